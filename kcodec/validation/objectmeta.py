"""ObjectMeta validation (Go: k8s.io/apimachinery pkg/api/validation/objectmeta.go and
pkg/apis/meta/v1/validation/validation.go).

kcodec has one ObjectMeta class (``kcodec.api.meta.v1.ObjectMeta``), used by external and
internal objects alike, so these functions take it directly (Go's ``meta.Accessor`` view).
Labels and annotations are checked in sorted key order (Go walks its maps in random order;
the set of errors is the same).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kcodec.gofmt import quote
from kcodec.validation import field as fld
from kcodec.validation.field import ErrorList, Path
from kcodec.validation.names import (
    ValidateNameFunc,
    go_len,
    is_qualified_name,
    is_valid_label_value,
    validate_namespace_name,
    validate_nonnegative_field,
)

__all__ = [
    "FIELD_IMMUTABLE_ERROR_MSG",
    "TOTAL_ANNOTATION_SIZE_LIMIT_B",
    "FINALIZER_ORPHAN_DEPENDENTS",
    "FINALIZER_DELETE_DEPENDENTS",
    "validate_object_meta",
    "validate_object_meta_update",
    "validate_annotations",
    "validate_annotations_size",
    "validate_labels",
    "validate_label_name",
    "validate_label_selector",
    "validate_label_selector_requirement",
    "validate_owner_references",
    "validate_finalizers",
    "validate_finalizer_name",
    "validate_no_new_finalizers",
    "validate_immutable_field",
    "validate_managed_fields",
    "validate_field_manager",
    "go_sharp_v_strings",
]

FIELD_IMMUTABLE_ERROR_MSG = "field is immutable"
#: Go: ``TotalAnnotationSizeLimitB`` (256 KiB of keys and values together).
TOTAL_ANNOTATION_SIZE_LIMIT_B = 256 * (1 << 10)
FINALIZER_ORPHAN_DEPENDENTS = "orphan"
FINALIZER_DELETE_DEPENDENTS = "foregroundDeletion"
_BANNED_OWNERS = {("", "v1", "Event")}


def go_sharp_v_strings(values: Sequence[str]) -> str:
    """``%#v`` of a Go ``[]string``: ``[]string{"a", "b"}``."""
    return "[]string{" + ", ".join(quote(v) for v in values) + "}"


def _sorted_keys(m: Mapping[str, str]) -> list[str]:
    return sorted(m)


# --- labels (apis/meta/v1/validation) ---

def validate_label_name(label_name: str, path: Path) -> ErrorList:
    """Go: ``ValidateLabelName``."""
    return ErrorList(fld.invalid(path, label_name, m).with_origin("format=k8s-label-key")
                     for m in is_qualified_name(label_name))


def validate_labels(labels: Mapping[str, str] | None, path: Path) -> ErrorList:
    """Go: ``ValidateLabels``: every key a qualified name, every value a label value."""
    errs = ErrorList()
    for k in _sorted_keys(labels or {}):
        v = labels[k]  # type: ignore[index]
        errs.extend(validate_label_name(k, path))
        errs.extend(fld.invalid(path, v, m).with_origin("format=k8s-label-value") for m in is_valid_label_value(v))
    return errs


def validate_label_selector_requirement(sr: Any, path: Path, *, allow_invalid_label_value: bool = False,
                                        allow_unknown_operator: bool = False) -> ErrorList:
    """Go: ``ValidateLabelSelectorRequirement``."""
    errs = ErrorList()
    values = list(sr.values or [])
    if sr.operator in ("In", "NotIn"):
        if not values:
            errs.append(fld.required(path.child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
    elif sr.operator in ("Exists", "DoesNotExist"):
        if values:
            errs.append(fld.forbidden(path.child("values"),
                                      "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
    elif not allow_unknown_operator:
        errs.append(fld.invalid(path.child("operator"), sr.operator, "not a valid selector operator"))
    errs.extend(validate_label_name(sr.key, path.child("key")))
    if not allow_invalid_label_value:
        for i, v in enumerate(values):
            errs.extend(fld.invalid(path.child("values").index(i), v, m) for m in is_valid_label_value(v))
    return errs


def validate_label_selector(ps: Any, path: Path, *, allow_invalid_label_value: bool = False,
                            allow_unknown_operator: bool = False) -> ErrorList:
    """Go: ``ValidateLabelSelector`` (a metav1.LabelSelector or None)."""
    errs = ErrorList()
    if ps is None:
        return errs
    errs.extend(validate_labels(ps.match_labels, path.child("matchLabels")))
    for i, expr in enumerate(ps.match_expressions or []):
        errs.extend(validate_label_selector_requirement(
            expr, path.child("matchExpressions").index(i), allow_invalid_label_value=allow_invalid_label_value,
            allow_unknown_operator=allow_unknown_operator))
    return errs


# --- annotations, owners, finalizers (pkg/api/validation/objectmeta.go) ---

def validate_annotations_size(annotations: Mapping[str, str] | None) -> str | None:
    """Go: ``ValidateAnnotationsSize``: the error text, or None within the limit."""
    total = sum(go_len(k) + go_len(v) for k, v in (annotations or {}).items())
    if total > TOTAL_ANNOTATION_SIZE_LIMIT_B:
        return f"annotations size {total} is larger than limit {TOTAL_ANNOTATION_SIZE_LIMIT_B}"
    return None


def validate_annotations(annotations: Mapping[str, str] | None, path: Path) -> ErrorList:
    """Go: ``ValidateAnnotations``: keys are qualified names (checked lower-cased), and keys
    plus values at most 256 KiB."""
    errs = ErrorList()
    for k in _sorted_keys(annotations or {}):
        errs.extend(fld.invalid(path, k, m).with_origin("format=k8s-label-key") for m in is_qualified_name(k.lower()))
    if validate_annotations_size(annotations) is not None:
        errs.append(fld.too_long(path, "", TOTAL_ANNOTATION_SIZE_LIMIT_B))
    return errs


def _parse_group_version(api_version: str) -> tuple[str, str] | None:
    # Go: schema.ParseGroupVersion.
    if not api_version or api_version == "/":
        return "", ""
    parts = api_version.split("/")
    if len(parts) == 1:
        return "", api_version
    if len(parts) == 2:
        return parts[0], parts[1]
    return None


def _validate_owner_reference(ref: Any, path: Path) -> ErrorList:
    errs = ErrorList()
    gv = _parse_group_version(ref.api_version)
    if not ref.api_version:
        errs.append(fld.required(path.child("apiVersion"), "must not be empty"))
    elif gv is None or not gv[1]:
        errs.append(fld.invalid(path.child("apiVersion"), ref.api_version, "must be <group>/<version> or <version>"))
    if not ref.kind:
        errs.append(fld.required(path.child("kind"), "must not be empty"))
    if not ref.name:
        errs.append(fld.required(path.child("name"), "must not be empty"))
    if not ref.uid:
        errs.append(fld.required(path.child("uid"), "must not be empty"))
    group, version = gv if gv is not None else ("", "")
    if (group, version, ref.kind) in _BANNED_OWNERS:
        gvk = f"{group}/{version}, Kind={ref.kind}"  # GroupVersionKind.String()
        errs.append(fld.invalid(path, ref, f"{gvk} is disallowed from being an owner"))
    return errs


def validate_owner_references(refs: Sequence[Any] | None, path: Path) -> ErrorList:
    """Go: ``ValidateOwnerReferences`` (at most one controller)."""
    errs = ErrorList()
    first_controller = ""
    refs = list(refs or [])
    for i, ref in enumerate(refs):
        errs.extend(_validate_owner_reference(ref, path.index(i)))
        if ref.controller:
            cur = f"{ref.kind}/{ref.name}"
            if first_controller:
                errs.append(fld.invalid(path, refs,
                                        'Only one reference can have Controller set to true. Found "true" in '
                                        f"references for {first_controller} and {cur}"))
            else:
                first_controller = cur
    return errs


def validate_finalizer_name(name: str, path: Path) -> ErrorList:
    """Go: ``ValidateFinalizerName``."""
    return ErrorList(fld.invalid(path, name, m) for m in is_qualified_name(name))


def validate_finalizers(finalizers: Sequence[str] | None, path: Path) -> ErrorList:
    """Go: ``ValidateFinalizers``."""
    errs = ErrorList()
    finalizers = list(finalizers or [])
    for f in finalizers:
        errs.extend(validate_finalizer_name(f, path))
    if FINALIZER_ORPHAN_DEPENDENTS in finalizers and FINALIZER_DELETE_DEPENDENTS in finalizers:
        errs.append(fld.invalid(path, finalizers, f"finalizer {FINALIZER_ORPHAN_DEPENDENTS} and "
                                                  f"{FINALIZER_DELETE_DEPENDENTS} cannot be both set"))
    return errs


def validate_no_new_finalizers(new: Sequence[str] | None, old: Sequence[str] | None, path: Path) -> ErrorList:
    """Go: ``ValidateNoNewFinalizers``."""
    extra = sorted(set(new or []) - set(old or []))
    if extra:
        return ErrorList([fld.forbidden(path, "no new finalizers can be added if the object is being deleted, "
                                              f"found new finalizers {go_sharp_v_strings(extra)}")])
    return ErrorList()


def _semantic_equal(a: Any, b: Any) -> bool:
    return bool(a == b)


def validate_immutable_field(new: Any, old: Any, path: Path) -> ErrorList:
    """Go: ``ValidateImmutableField`` (apiequality.Semantic.DeepEqual)."""
    if not _semantic_equal(old, new):
        return ErrorList([fld.invalid(path, new, FIELD_IMMUTABLE_ERROR_MSG)])
    return ErrorList()


def validate_field_manager(manager: str, path: Path) -> ErrorList:
    """Go: ``ValidateFieldManager`` (at most 128 bytes, printable runes)."""
    errs = ErrorList()
    if go_len(manager) > 128:
        errs.append(fld.too_long(path, "", 128))
    pos = 0
    for ch in manager:
        r = ch
        if 0xD800 <= ord(ch) <= 0xDFFF:
            r = "\ufffd"
        if not r.isprintable() and r != " ":
            errs.append(fld.invalid(path, manager, f"invalid character {_sharp_u(r)} (at position {pos})"))
        pos += go_len(ch)
    return errs


def _sharp_u(r: str) -> str:
    # Go's %#U: U+0007 (no quoted char when the rune is not printable).
    o = ord(r)
    text = f"U+{o:04X}"
    if r.isprintable():
        text += f" '{r}'"
    return text


def validate_managed_fields(entries: Sequence[Any] | None, path: Path) -> ErrorList:
    """Go: ``ValidateManagedFields``."""
    errs = ErrorList()
    for i, e in enumerate(entries or []):
        p = path.index(i)
        if e.operation == "":
            errs.append(fld.required(p.child("operation"), "must not be empty"))
        elif e.operation not in ("Apply", "Update"):
            errs.append(fld.not_supported(p.child("operation"), e.operation, ["Apply", "Update"]))
        if e.fields_type and e.fields_type != "FieldsV1":
            errs.append(fld.invalid(p.child("fieldsType"), e.fields_type, "must be `FieldsV1`"))
        errs.extend(validate_field_manager(e.manager, p.child("manager")))
        if go_len(e.subresource or "") > 256:
            errs.append(fld.too_long(p.child("subresource"), "", 256))
    return errs


# --- ObjectMeta (pkg/api/validation/objectmeta.go) ---

def validate_object_meta(meta: Any, requires_namespace: bool, name_fn: ValidateNameFunc,
                         path: Path | None = None) -> ErrorList:
    """Go: ``ValidateObjectMeta`` / ``ValidateObjectMetaAccessor`` for create."""
    path = path if path is not None else Path("metadata")
    errs = ErrorList()
    if meta.generate_name:
        errs.extend(fld.invalid(path.child("generateName"), meta.generate_name, m)
                    for m in name_fn(meta.generate_name, True))
    if not meta.name:
        errs.append(fld.required(path.child("name"), "name or generateName is required"))
    else:
        errs.extend(fld.invalid(path.child("name"), meta.name, m) for m in name_fn(meta.name, False))
    errs.extend(_validate_common(meta, requires_namespace, path))
    return errs


def _validate_common(meta: Any, requires_namespace: bool, path: Path) -> ErrorList:
    errs = ErrorList()
    if requires_namespace:
        if not meta.namespace:
            errs.append(fld.required(path.child("namespace"), ""))
        else:
            errs.extend(fld.invalid(path.child("namespace"), meta.namespace, m)
                        for m in validate_namespace_name(meta.namespace, False))
    elif meta.namespace:
        errs.append(fld.forbidden(path.child("namespace"), "not allowed on this type"))
    errs.extend(validate_nonnegative_field(meta.generation, path.child("generation")))
    errs.extend(validate_labels(meta.labels, path.child("labels")))
    errs.extend(validate_annotations(meta.annotations, path.child("annotations")))
    errs.extend(validate_owner_references(meta.owner_references, path.child("ownerReferences")))
    errs.extend(validate_finalizers(meta.finalizers, path.child("finalizers")))
    errs.extend(validate_managed_fields(meta.managed_fields, path.child("managedFields")))
    return errs


def validate_object_meta_update(new: Any, old: Any, path: Path | None = None) -> ErrorList:
    """Go: ``ValidateObjectMetaUpdate`` / ``ValidateObjectMetaAccessorUpdate``."""
    path = path if path is not None else Path("metadata")
    errs = ErrorList()
    if old.deletion_timestamp is not None:
        errs.extend(validate_no_new_finalizers(new.finalizers, old.finalizers, path.child("finalizers")))
    if not new.resource_version:
        errs.append(fld.invalid(path.child("resourceVersion"), new.resource_version, "must be specified for an update"))
    errs.extend(validate_nonnegative_field(new.generation, path.child("generation")))
    if new.generation < old.generation:
        errs.append(fld.invalid(path.child("generation"), new.generation, "must not be decremented"))
    errs.extend(validate_immutable_field(new.name, old.name, path.child("name")))
    errs.extend(validate_immutable_field(new.namespace, old.namespace, path.child("namespace")))
    errs.extend(validate_immutable_field(new.uid, old.uid, path.child("uid")).with_origin("immutable"))
    errs.extend(validate_immutable_field(new.creation_timestamp, old.creation_timestamp,
                                         path.child("creationTimestamp")).with_origin("immutable"))
    errs.extend(validate_immutable_field(new.deletion_timestamp, old.deletion_timestamp,
                                         path.child("deletionTimestamp")).with_origin("immutable"))
    errs.extend(validate_immutable_field(new.deletion_grace_period_seconds, old.deletion_grace_period_seconds,
                                         path.child("deletionGracePeriodSeconds")).with_origin("immutable"))
    errs.extend(validate_labels(new.labels, path.child("labels")))
    errs.extend(validate_annotations(new.annotations, path.child("annotations")))
    errs.extend(validate_owner_references(new.owner_references, path.child("ownerReferences")))
    errs.extend(validate_managed_fields(new.managed_fields, path.child("managedFields")))
    return errs
