"""Conversion through the internal (hub) version on compiled tables.

Target (issue 12): converting the PodList (``LIST_ITEMS`` pods, 1000 by default) v1 ->
internal -> v1 costs less than protobuf-decoding it (``PodListCodec.time_decode`` with
``format=protobuf``, measured here too for a same-run comparison).
"""
from __future__ import annotations

from typing import Any

from . import _docs
from ._docs import MODES, Heavy


class PodListHub(Heavy):
    """PodList v1 -> internal -> v1 with the legacy scheme (no defaulting), and its protobuf decode."""

    params = [MODES]
    param_names = ["mode"]

    def setup(self, docs: dict[str, Any], mode: str) -> None:
        _docs.require_kcodec()
        _docs.use_mode(mode)
        from kcodec import legacyscheme
        from kcodec.schema import INTERNAL_GROUP_VERSIONER, GroupVersion

        self.scheme = legacyscheme.scheme
        self.internal = INTERNAL_GROUP_VERSIONER
        self.v1 = GroupVersion("", "v1")
        self.serializer = _docs.serializer_for("protobuf")
        self.data = _docs.document(docs, "list_pb")
        self.obj, _ = self.serializer.decode(self.data)
        self.time_round_trip(docs, mode)  # compile the plans outside the timing

    def time_round_trip(self, docs: dict[str, Any], mode: str) -> None:
        internal = self.scheme.unsafe_convert_to_version(self.obj, self.internal)
        self.scheme.unsafe_convert_to_version(internal, self.v1)

    def time_protobuf_decode(self, docs: dict[str, Any], mode: str) -> None:
        self.serializer.decode(self.data)
