"""Patches as kube-apiserver applies them: JSON patch (RFC 6902, evanphx/json-patch v4),
JSON merge patch (RFC 7386, evanphx's MergePatch) and strategic merge patch
(k8s.io/apimachinery pkg/util/strategicpatch), on JSON trees (``json.loads``-style values,
see docs/design.md "The JSON tree"), plus the patch types each kind accepts.

Errors are :class:`~kcodec.patch.errors.PatchError` subclasses carrying Go's text and the
HTTP code kube-apiserver answers with (``.code``, ``.reason``).
"""
from __future__ import annotations

from typing import Any

from kcodec.patch.errors import (
    JSONPatchApplyError, JSONPatchDecodeError, JSONPatchTooLargeError, MergeConflictError,
    MergePatchError, PatchError, PreconditionFailedError, StrategicMergePatchError,
)
from kcodec.patch.jsonpatch import (
    JSON_PATCH_MAX_COPY_BYTES, MAX_JSON_PATCH_OPERATIONS, decode_json_patch, json_patch,
)
from kcodec.patch.mergepatch import create_merge_patch, merge_patch
from kcodec.patch.strategic import (
    PatchMeta, PatchSchema, create_three_way_merge_patch, create_two_way_merge_patch,
    merging_maps_have_conflicts, require_key_unchanged, require_metadata_key_unchanged,
    strategic_merge_patch, supports_strategic_merge_patch,
)

__all__ = [
    "json_patch",
    "decode_json_patch",
    "merge_patch",
    "create_merge_patch",
    "strategic_merge_patch",
    "create_two_way_merge_patch",
    "create_three_way_merge_patch",
    "merging_maps_have_conflicts",
    "supports_strategic_merge_patch",
    "supported_patch_types",
    "unsupported_media_type_message",
    "require_key_unchanged",
    "require_metadata_key_unchanged",
    "PatchMeta",
    "PatchSchema",
    "PatchError",
    "JSONPatchDecodeError",
    "JSONPatchApplyError",
    "JSONPatchTooLargeError",
    "MergePatchError",
    "StrategicMergePatchError",
    "MergeConflictError",
    "PreconditionFailedError",
    "MAX_JSON_PATCH_OPERATIONS",
    "JSON_PATCH_MAX_COPY_BYTES",
    "JSON_PATCH",
    "MERGE_PATCH",
    "STRATEGIC_MERGE_PATCH",
    "APPLY_PATCH_YAML",
    "APPLY_PATCH_CBOR",
]

#: apimachinery pkg/types/patch.go's PatchType values (the Content-Type of a PATCH).
JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"
APPLY_PATCH_YAML = "application/apply-patch+yaml"
APPLY_PATCH_CBOR = "application/apply-patch+cbor"


def supported_patch_types(cls: Any, *, cbor: bool = False) -> list[str]:
    """The Content-Types a PATCH of objects of ``cls`` accepts, in Go's order: built-in kinds
    as apiserver pkg/endpoints/installer.go lists them, custom resources (any ``cls`` that is
    not a kcodec model class) as apiextensions-apiserver customresource_handler.go does,
    without strategic merge patch. ``cbor``: the CBORServingAndStorage feature gate."""
    types = [JSON_PATCH, MERGE_PATCH]
    if supports_strategic_merge_patch(cls):
        types.append(STRATEGIC_MERGE_PATCH)
    types.append(APPLY_PATCH_YAML)
    if cbor:
        types.append(APPLY_PATCH_CBOR)
    return types


def unsupported_media_type_message(accepted: list[str]) -> str:
    """The message of the 415 (reason UnsupportedMediaType) a PATCH with another
    Content-Type gets (apiserver pkg/endpoints/handlers/negotiation/errors.go)."""
    return ("the body of the request was in an unknown format - accepted media types include: "
            + ", ".join(accepted))
