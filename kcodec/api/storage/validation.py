"""Validation of the storage group's internal objects (Go: k8s.io/kubernetes
pkg/apis/storage/validation/validation.go): StorageClass, CSIDriver, CSINode,
VolumeAttachment (with the inline PersistentVolume spec of core), CSIStorageCapacity and
VolumeAttributesClass, with the options kube-apiserver 1.36's strategies pass (long CSI node
IDs, SELinuxMountReadWriteOncePod and MutableCSINodeAllocatableCount on)."""
from __future__ import annotations

from typing import Any

from kcodec.api.core.validation import validate_csi_driver_name
from kcodec.validation import field as fld
from kcodec.validation import names
from kcodec.validation import objectmeta as om
from kcodec.validation.field import ErrorList, Path

__all__ = [
    "validate_csi_driver",
    "validate_csi_driver_update",
    "validate_csi_node",
    "validate_csi_node_update",
    "validate_csi_storage_capacity",
    "validate_csi_storage_capacity_update",
    "validate_volume_attachment",
    "validate_volume_attachment_update",
    "validate_volume_attributes_class",
    "validate_volume_attributes_class_update",
    "validate_storage_class",
    "validate_storage_class_update",
    "validate_topology_selector_term",
]

_MAX_PARAMETERS_SIZE = 256 * (1 << 10)
_MAX_PARAMETERS_LEN = 512
_RECLAIM_POLICIES = ["Delete", "Retain"]
_BINDING_MODES = ["Immediate", "WaitForFirstConsumer"]


def validate_topology_selector_term(term: Any, path: Path) -> tuple[dict[str, set[str]], ErrorList]:
    """Go: core ``ValidateTopologySelectorTerm``: the term's key -> values map and its errors
    (values required and unique, keys label names and unique)."""
    errs = ErrorList()
    expr_map: dict[str, set[str]] = {}
    ep = path.child("matchLabelExpressions")
    for i, req in enumerate(term.match_label_expressions or []):
        ip = ep.index(i)
        values: set[str] = set()
        vp = ip.child("values")
        if not req.values:
            errs.append(fld.required(vp, ""))
        for j, v in enumerate(req.values or []):
            if v in values:
                errs.append(fld.duplicate(vp.index(j), v))
            values.add(v)
        errs.extend(om.validate_label_name(req.key, ip.child("key")))
        if req.key in expr_map:
            errs.append(fld.duplicate(ip.child("key"), req.key))
        expr_map[req.key] = values
    return expr_map, errs


def _validate_allowed_topologies(terms: Any, path: Path) -> ErrorList:
    errs = ErrorList()
    if not terms:
        return errs
    # Go makes the list with len(terms) nil maps and then appends; Semantic.DeepEqual takes
    # an empty map for a nil one, so a term without expressions is a duplicate of those.
    raw: list[dict[str, set[str]]] = [{} for _ in terms]
    for i, term in enumerate(terms):
        expr_map, term_errs = validate_topology_selector_term(term, path.index(i))
        errs.extend(term_errs)
        for seen in raw:
            if seen == expr_map:
                errs.append(fld.duplicate(path.index(i).child("matchLabelExpressions"), ""))
        raw.append(expr_map)
    return errs


def _validate_parameters(params: Any, path: Path, allow_empty: bool = True) -> ErrorList:
    errs = ErrorList()
    params = params or {}
    if len(params) > _MAX_PARAMETERS_LEN:
        errs.append(fld.too_long(path, "", _MAX_PARAMETERS_LEN))
        return errs
    total = 0
    for k, v in params.items():
        if not k:
            errs.append(fld.invalid(path, k, "field can not be empty."))
        total += names.go_len(k) + names.go_len(v)
    if total > _MAX_PARAMETERS_SIZE:
        errs.append(fld.too_long(path, "", _MAX_PARAMETERS_SIZE))
    if not allow_empty and not params:
        errs.append(fld.required(path, "must contain at least one key/value pair"))
    return errs


def _validate_provisioner(provisioner: str | None, path: Path) -> ErrorList:
    """Go: ``validateProvisioner`` (a qualified name once lowercased)."""
    if not provisioner:
        return ErrorList([fld.required(path, "")])
    lowered = provisioner.lower()
    return ErrorList(fld.invalid(path, lowered, m) for m in names.is_qualified_name(lowered))


def validate_storage_class(sc: Any) -> ErrorList:
    """Go: ``ValidateStorageClass``."""
    from kcodec.api.core.validation import validate_object_meta

    errs = validate_object_meta(sc.metadata, False, names.name_is_dns_subdomain, Path("metadata"))
    errs.extend(_validate_provisioner(sc.provisioner, Path("provisioner")))
    errs.extend(_validate_parameters(sc.parameters, Path("parameters")))
    if sc.reclaim_policy and sc.reclaim_policy not in _RECLAIM_POLICIES:
        errs.append(fld.not_supported(Path("reclaimPolicy"), sc.reclaim_policy, _RECLAIM_POLICIES))
    if sc.volume_binding_mode is None:
        errs.append(fld.required(Path("volumeBindingMode"), ""))
    elif sc.volume_binding_mode not in _BINDING_MODES:
        errs.append(fld.not_supported(Path("volumeBindingMode"), sc.volume_binding_mode, _BINDING_MODES))
    errs.extend(_validate_allowed_topologies(sc.allowed_topologies, Path("allowedTopologies")))
    return errs


def validate_storage_class_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateStorageClassUpdate``: parameters, provisioner, reclaimPolicy and
    volumeBindingMode are immutable."""
    from kcodec.api.core.validation import validate_object_meta_update

    errs = validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    if new.parameters != old.parameters:  # reflect.DeepEqual: a nil map differs from an empty one
        errs.append(fld.forbidden(Path("parameters"), "updates to parameters are forbidden."))
    if new.provisioner != old.provisioner:
        errs.append(fld.forbidden(Path("provisioner"), "updates to provisioner are forbidden."))
    if new.reclaim_policy != old.reclaim_policy:
        errs.append(fld.forbidden(Path("reclaimPolicy"), "updates to reclaimPolicy are forbidden."))
    errs.extend(om.validate_immutable_field(new.volume_binding_mode, old.volume_binding_mode, Path("volumeBindingMode")))
    return errs


# --- CSIDriver, CSINode, VolumeAttachment, CSIStorageCapacity, VolumeAttributesClass ---

_FS_GROUP_POLICIES = ["File", "None", "ReadWriteOnceWithFSType"]
_LIFECYCLE_MODES = ["Persistent", "Ephemeral"]
_CSI_NODE_ID_MAX_LENGTH = 256  # the strategy sets AllowLongNodeID
_MAX_ATTACHED_VOLUME_METADATA_SIZE = 256 * (1 << 10)
_MAX_VOLUME_ERROR_MESSAGE_SIZE = 1024


def _validate_csi_driver_spec(spec: Any, path: Path) -> ErrorList:
    errs = ErrorList()
    for attr, js in (("attach_required", "attachedRequired"), ("pod_info_on_mount", "podInfoOnMount"),
                     ("storage_capacity", "storageCapacity")):
        if getattr(spec, attr) is None:
            errs.append(fld.required(path.child(js), ""))
    if spec.fs_group_policy is not None and spec.fs_group_policy not in _FS_GROUP_POLICIES:
        errs.append(fld.not_supported(path.child("fsGroupPolicy"), spec.fs_group_policy, _FS_GROUP_POLICIES))
    audiences: set[str] = set()
    for i, tr in enumerate(spec.token_requests or []):
        tp = path.child("tokenRequests").index(i)
        if tr.audience in audiences:
            errs.append(fld.duplicate(tp.child("audience"), tr.audience))
            continue
        audiences.add(tr.audience)
        if tr.expiration_seconds is None:
            continue
        if tr.expiration_seconds < 600:
            errs.append(fld.invalid(tp.child("expirationSeconds"), tr.expiration_seconds,
                                    "may not specify a duration less than 10 minutes"))
        if tr.expiration_seconds > 1 << 32:
            errs.append(fld.invalid(tp.child("expirationSeconds"), tr.expiration_seconds,
                                    "may not specify a duration larger than 2^32 seconds"))
    for mode in spec.volume_lifecycle_modes or []:
        if mode not in _LIFECYCLE_MODES:
            errs.append(fld.not_supported(path.child("volumeLifecycleModes"), mode, _LIFECYCLE_MODES))
    if spec.se_linux_mount is None:
        errs.append(fld.required(path.child("seLinuxMount"), ""))
    period = spec.node_allocatable_update_period_seconds
    if period is not None and period < 10:
        errs.append(fld.invalid(path.child("nodeAllocatableUpdatePeriodSeconds"), period,
                                "must be greater than or equal to 10 seconds"))
    return errs


def validate_csi_driver(obj: Any) -> ErrorList:
    """Go: ``ValidateCSIDriver`` (SELinuxMountReadWriteOncePod on: seLinuxMount required,
    which defaulting sets)."""
    from kcodec.api.core.validation import validate_object_meta

    errs = validate_object_meta(obj.metadata, False, names.name_is_dns_subdomain, Path("metadata"))
    errs.extend(_validate_csi_driver_spec(obj.spec, Path("spec")))
    return errs


def validate_csi_driver_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateCSIDriverUpdate``: attachRequired and volumeLifecycleModes are immutable
    (Go's path says ``attachedRequired``)."""
    from kcodec.api.core.validation import validate_object_meta_update

    errs = validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    errs.extend(_validate_csi_driver_spec(new.spec, Path("spec")))
    errs.extend(om.validate_immutable_field(new.spec.attach_required, old.spec.attach_required,
                                            Path("spec", "attachedRequired")))
    errs.extend(om.validate_immutable_field(new.spec.volume_lifecycle_modes, old.spec.volume_lifecycle_modes,
                                            Path("spec", "volumeLifecycleModes")))
    return errs


def validate_csi_node(obj: Any) -> ErrorList:
    """Go: ``ValidateCSINode`` with the strategy's options (long node IDs allowed)."""
    from kcodec.api.core.validation import validate_object_meta

    errs = validate_object_meta(obj.metadata, False, names.name_is_dns_subdomain, Path("metadata"))
    dp = Path("spec", "drivers")
    seen: set[str] = set()
    for i, d in enumerate(obj.spec.drivers or []):
        ip = dp.index(i)
        errs.extend(validate_csi_driver_name(d.name, ip.child("name")))
        if not d.node_id:
            errs.append(fld.required(ip.child("nodeID"), ""))
        if names.go_len(d.node_id or "") > _CSI_NODE_ID_MAX_LENGTH:
            errs.append(fld.invalid(ip.child("nodeID"), d.node_id,
                                    f"must be {_CSI_NODE_ID_MAX_LENGTH} characters or less"))
        if d.allocatable is not None and d.allocatable.count is not None:
            errs.extend(names.validate_nonnegative_field(d.allocatable.count, ip.child("allocatable", "count")))
        if d.name in seen:
            errs.append(fld.duplicate(ip.child("name"), d.name))
        seen.add(d.name)
        keys: set[str] = set()
        for key in d.topology_keys or []:
            if not key:
                errs.append(fld.required(ip, key))
            if key in keys:
                errs.append(fld.duplicate(ip, key))
            keys.add(key)
            errs.extend(fld.invalid(ip, key, m) for m in names.is_qualified_name(key))
    return errs


def validate_csi_node_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateCSINodeUpdate``: an existing driver entry may change only its
    allocatable count (MutableCSINodeAllocatableCount, on in 1.36)."""
    errs = validate_csi_node(new)
    for o in old.spec.drivers or []:
        for n in new.spec.drivers or []:
            if o.name == n.name:
                nc, oc = n.deep_copy(), o.deep_copy()
                nc.allocatable = None
                oc.allocatable = None
                errs.extend(om.validate_immutable_field(nc, oc, Path("spec").child("drivers")))
    return errs


def _validate_volume_error(e: Any, path: Path) -> ErrorList:
    errs = ErrorList()
    if e is None:
        return errs
    if names.go_len(e.message or "") > _MAX_VOLUME_ERROR_MESSAGE_SIZE:
        # Go reports the metadata limit here.
        errs.append(fld.too_long(path.child("message"), "", _MAX_ATTACHED_VOLUME_METADATA_SIZE))
    if e.error_code is not None and e.error_code < 0:
        errs.append(fld.invalid(path.child("errorCode"), e.error_code, "must be between 0 and 2147483647, inclusive"))
    return errs


def validate_volume_attachment(va: Any) -> ErrorList:
    """Go: ``ValidateVolumeAttachment`` and ``ValidateVolumeAttachmentV1`` (the strategy
    runs both)."""
    from kcodec.api.core import validation as core

    errs = core.validate_object_meta(va.metadata, False, names.name_is_dns_subdomain, Path("metadata"))
    sp = Path("spec")
    spec = va.spec
    if not spec.attacher:
        errs.append(fld.required(sp.child("attacher"), spec.attacher or ""))
    src = spec.source
    srcp = sp.child("source")
    if src.inline_volume_spec is None and src.persistent_volume_name is None:
        errs.append(fld.required(srcp, "must specify exactly one of inlineVolumeSpec and persistentVolumeName"))
    elif src.inline_volume_spec is not None and src.persistent_volume_name is not None:
        errs.append(fld.forbidden(srcp, "must specify exactly one of inlineVolumeSpec and persistentVolumeName"))
    elif src.persistent_volume_name is not None:
        if not src.persistent_volume_name:
            errs.append(fld.required(srcp.child("persistentVolumeName"), "must specify non empty persistentVolumeName"))
    else:
        errs.extend(core.validate_persistent_volume_spec(src.inline_volume_spec, "", True,
                                                         srcp.child("inlineVolumeSpec")))
    errs.extend(fld.invalid(sp.child("nodeName"), spec.node_name, m)
                for m in names.name_is_dns_subdomain(spec.node_name or "", False))
    st = va.status
    stp = Path("status")
    if st is not None:
        size = sum(names.go_len(k) + names.go_len(v) for k, v in (st.attachment_metadata or {}).items())
        if size > _MAX_ATTACHED_VOLUME_METADATA_SIZE:
            errs.append(fld.too_long(stp.child("attachmentMetadata"), "", _MAX_ATTACHED_VOLUME_METADATA_SIZE))
        errs.extend(_validate_volume_error(st.attach_error, stp.child("attachError")))
        errs.extend(_validate_volume_error(st.detach_error, stp.child("detachError")))
    # ValidateVolumeAttachmentV1
    errs.extend(validate_csi_driver_name(spec.attacher or "", Path("spec.attacher")))
    if src.persistent_volume_name is not None:
        pv = src.persistent_volume_name
        errs.extend(fld.invalid(Path("spec.source.persistentVolumeName"), pv, m)
                    for m in names.name_is_dns_subdomain(pv, False))
    return errs


def validate_volume_attachment_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateVolumeAttachmentUpdate``: the spec is read-only."""
    errs = validate_volume_attachment(new)
    if new.spec != old.spec:
        errs.append(fld.invalid(Path("spec"), new.spec, "field is immutable"))
    return errs


def validate_csi_storage_capacity(obj: Any, allow_invalid_label_value: bool = False) -> ErrorList:
    """Go: ``ValidateCSIStorageCapacity``."""
    from kcodec.api.core import validation as core

    errs = core.validate_object_meta(obj.metadata, True, names.name_is_dns_subdomain, Path("metadata"))
    errs.extend(om.validate_label_selector(obj.node_topology, Path("nodeTopology"),
                                           allow_invalid_label_value=allow_invalid_label_value))
    errs.extend(fld.invalid(Path("storageClassName"), obj.storage_class_name, m)
                for m in names.name_is_dns_subdomain(obj.storage_class_name or "", False))
    if obj.capacity is not None and obj.capacity.sign() < 0:
        errs.append(fld.invalid(Path("capacity"), str(obj.capacity), names.IS_NEGATIVE_ERROR_MSG))
    return errs


def validate_csi_storage_capacity_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateCSIStorageCapacityUpdate``: nodeTopology and storageClassName are
    immutable."""
    from kcodec.api.core.validation import validate_object_meta_update

    errs = validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    if new.node_topology != old.node_topology:
        errs.append(fld.invalid(Path("nodeTopology"), new.node_topology, "field is immutable"))
    if new.storage_class_name != old.storage_class_name:
        errs.append(fld.invalid(Path("storageClassName"), new.storage_class_name, "field is immutable"))
    return errs


def validate_volume_attributes_class(obj: Any) -> ErrorList:
    """Go: ``ValidateVolumeAttributesClass`` (parameters may not be empty)."""
    from kcodec.api.core.validation import validate_object_meta

    errs = validate_object_meta(obj.metadata, False, names.name_is_dns_subdomain, Path("metadata"))
    errs.extend(_validate_provisioner(obj.driver_name, Path("driverName")))
    errs.extend(_validate_parameters(obj.parameters, Path("parameters"), allow_empty=False))
    return errs


def validate_volume_attributes_class_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateVolumeAttributesClassUpdate``: driverName and parameters are immutable."""
    from kcodec.api.core.validation import validate_object_meta_update

    errs = validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    if new.driver_name != old.driver_name:
        errs.append(fld.forbidden(Path("driverName"), "updates to driverName are forbidden."))
    if new.parameters != old.parameters:
        errs.append(fld.forbidden(Path("parameters"), "updates to parameters are forbidden."))
    errs.extend(validate_volume_attributes_class(new))
    return errs
