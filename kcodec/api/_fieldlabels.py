"""Field-selector label conversions of the built-in kinds, as kube-apiserver registers them.

Each version's ``pkg/apis/<group>/<version>/conversion.go`` (kubernetes/kubernetes)
calls ``scheme.AddFieldLabelConversionFunc`` for the kinds whose field selectors go
beyond ``metadata.name``/``metadata.namespace``; every other kind gets the scheme's
default (metadata only). A function returns the internal ``(label, value)`` or raises
:class:`~kcodec.errors.ConversionError` with Go's text for a label it does not support.
"""
from __future__ import annotations

from typing import Callable, Iterator

from kcodec.errors import ConversionError
from kcodec.schema import GroupVersionKind
from kcodec.gofmt import quote as _go_quote  # Go's %q

__all__ = ["field_label_conversions", "FIELD_LABELS"]

FieldLabelFunc = Callable[[str, str], "tuple[str, str]"]


def _accepting(labels: tuple[str, ...], error: Callable[[str], str],
               renames: dict[str, str] | None = None) -> FieldLabelFunc:
    accepted = frozenset(labels)
    renamed = dict(renames or {})

    def convert(label: str, value: str) -> tuple[str, str]:
        if label in accepted:
            return label, value
        if label in renamed:
            return renamed[label], value
        raise ConversionError(error(label))
    convert.__doc__ = f"Accepts {sorted(accepted | set(renamed))}."
    return convert


def _mapping(mapping: dict[str, str], error: Callable[[str], str]) -> FieldLabelFunc:
    table = dict(mapping)

    def convert(label: str, value: str) -> tuple[str, str]:
        mapped = table.get(label)
        if mapped is None:
            raise ConversionError(error(label))
        return mapped, value
    convert.__doc__ = f"Maps {sorted(table)}."
    return convert


def _plain(label: str) -> str:
    return f"field label not supported: {label}"


_EVENTS_MAPPING = {
    "reason": "reason",
    "regarding.kind": "involvedObject.kind",
    "regarding.namespace": "involvedObject.namespace",
    "regarding.name": "involvedObject.name",
    "regarding.uid": "involvedObject.uid",
    "regarding.apiVersion": "involvedObject.apiVersion",
    "regarding.resourceVersion": "involvedObject.resourceVersion",
    "regarding.fieldPath": "involvedObject.fieldPath",
    "reportingController": "reportingComponent",
    "source": "source",
    "type": "type",
    "metadata.namespace": "metadata.namespace",
    "metadata.name": "metadata.name",
}


def _build() -> dict[GroupVersionKind, FieldLabelFunc]:
    t: dict[GroupVersionKind, FieldLabelFunc] = {}

    def gvk(group: str, version: str, kind: str) -> GroupVersionKind:
        return GroupVersionKind(group, version, kind)

    # core/v1 (pkg/apis/core/v1/conversion.go)
    t[gvk("", "v1", "Pod")] = _accepting(
        ("metadata.name", "metadata.namespace", "spec.nodeName", "spec.restartPolicy",
         "spec.schedulerName", "spec.serviceAccountName", "spec.hostNetwork", "status.phase",
         "status.podIP", "status.podIPs", "status.nominatedNodeName"),
        _plain,
        # old v1 clients send spec.host
        {"spec.host": "spec.nodeName"},
    )
    t[gvk("", "v1", "Node")] = _accepting(("metadata.name", "spec.unschedulable"), _plain)
    t[gvk("", "v1", "ReplicationController")] = _accepting(
        ("metadata.name", "metadata.namespace", "status.replicas"), _plain)
    t[gvk("", "v1", "Event")] = _accepting(
        ("involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
         "involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion",
         "involvedObject.fieldPath", "reason", "reportingComponent", "source", "type",
         "metadata.namespace", "metadata.name"),
        _plain,
    )
    t[gvk("", "v1", "Namespace")] = _accepting(("status.phase", "metadata.name"), _plain)
    t[gvk("", "v1", "Secret")] = _accepting(("type", "metadata.namespace", "metadata.name"), _plain)
    t[gvk("", "v1", "Service")] = _accepting(
        ("metadata.namespace", "metadata.name", "spec.clusterIP", "spec.type"), _plain)

    # apps/v1beta1 and v1beta2 StatefulSet (each message names its own version)
    for version in ("v1beta1", "v1beta2"):
        t[gvk("apps", version, "StatefulSet")] = _accepting(
            ("metadata.name", "metadata.namespace", "status.successful"),
            lambda label, v=version: f"field label not supported for apps{v}.StatefulSet: {label}",
        )

    # batch/v1 Job; batch/v1beta1 Job, JobTemplate and CronJob
    t[gvk("batch", "v1", "Job")] = _accepting(
        ("metadata.name", "metadata.namespace", "status.successful"),
        lambda label: f"field label {_go_quote(label)} not supported for batchv1.Job",
    )
    # (only CronJob is left in batch/v1beta1; Go still registers the other two names; the
    # removed batch/v2alpha1 of kcodec.api.removed had the same function until 1.20)
    for version in ("v1beta1", "v2alpha1"):
        for kind in ("Job", "JobTemplate", "CronJob"):
            t[gvk("batch", version, kind)] = _accepting(
                ("metadata.name", "metadata.namespace", "status.successful"),
                lambda label, k=kind: f"field label {_go_quote(label)} not supported for {_go_quote(k)}",
            )

    # certificates.k8s.io
    for version in ("v1", "v1beta1"):
        t[gvk("certificates.k8s.io", version, "CertificateSigningRequest")] = _accepting(
            ("metadata.name", "spec.signerName"), _plain)
    for version in ("v1alpha1", "v1beta1"):
        t[gvk("certificates.k8s.io", version, "ClusterTrustBundle")] = _accepting(
            ("metadata.name", "spec.signerName"), _plain)
    # v1alpha1: the removed PodCertificateRequest of 1.34 (kcodec.api.removed)
    for version in ("v1beta1", "v1alpha1"):
        t[gvk("certificates.k8s.io", version, "PodCertificateRequest")] = _accepting(
            ("metadata.name", "spec.signerName", "spec.podName", "spec.nodeName"), _plain)

    # events.k8s.io maps its field names onto core Event's
    for version in ("v1", "v1beta1"):
        t[gvk("events.k8s.io", version, "Event")] = _mapping(_EVENTS_MAPPING, _plain)

    # resource.k8s.io ResourceSlice; the message names the kind as GroupVersionKind.String()
    # (v1alpha3: the removed ResourceSlice of 1.33, kcodec.api.removed)
    for version in ("v1", "v1beta1", "v1beta2", "v1alpha3"):
        t[gvk("resource.k8s.io", version, "ResourceSlice")] = _accepting(
            ("metadata.name", "spec.nodeName", "spec.driver"),
            lambda label, v=version: f"field label not supported for resource.k8s.io/{v}, Kind=ResourceSlice: {label}",
        )
    return t


#: Every registered conversion, keyed by GroupVersionKind.
FIELD_LABELS: dict[GroupVersionKind, FieldLabelFunc] = _build()


def field_label_conversions() -> Iterator[tuple[GroupVersionKind, FieldLabelFunc]]:
    """``(gvk, fn)`` pairs to hand to ``Scheme.add_field_label_conversion_func``."""
    return iter(FIELD_LABELS.items())
