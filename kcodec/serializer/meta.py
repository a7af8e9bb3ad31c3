"""The JSON MetaFactory: sniff ``apiVersion``/``kind`` from a JSON document (Go: k8s.io/apimachinery/pkg/runtime/serializer/json/meta.go (SimpleMetaFactory))."""
from __future__ import annotations

from kcodec import speedups
from kcodec.schema import GroupVersionKind

__all__ = ["SimpleMetaFactory", "DEFAULT_META_FACTORY", "interpret_gvk"]


def interpret_gvk(data: bytes) -> GroupVersionKind:
    """Kernel entry point: the kind a JSON document names (see :class:`SimpleMetaFactory`)."""
    return speedups.interpret_gvk(data)


class SimpleMetaFactory:
    """Go's ``json.SimpleMetaFactory``.

    Reads only ``apiVersion`` and ``kind`` with the standard JSON rules (case-insensitive
    keys, last duplicate wins), then parses the group/version. The whole input must be
    valid JSON.
    """

    __slots__ = ()

    def interpret(self, data: bytes) -> GroupVersionKind:
        """The kind named by ``data``; the empty kind for ``null``, ``{}`` or no keys.

        Raises :class:`kcodec.errors.DecodeError`: ``couldn't get version/kind; json parse
        error: <Go text>`` for malformed JSON or non-string values, and ``unexpected
        GroupVersion string: <s>`` for an apiVersion with more than one slash.
        """
        return interpret_gvk(data)

    def __eq__(self, other: object) -> bool:
        return type(other) is SimpleMetaFactory

    def __hash__(self) -> int:
        return hash(SimpleMetaFactory)

    def __repr__(self) -> str:
        return "SimpleMetaFactory()"


DEFAULT_META_FACTORY = SimpleMetaFactory()
"""The meta factory JSON serializers use when none is given (Go's DefaultMetaFactory)."""
