"""Defaults of apiextensions.k8s.io v1 and v1beta1.

Follows k8s.io/apiextensions-apiserver v0.36.3 ``pkg/apis/apiextensions/{v1,v1beta1}/
defaults.go`` and the defaulter-gen walkers of ``zz_generated.defaults.go`` (the CRD, every
item of a CRD list, and the webhook service reference inside the conversion).
"""
from __future__ import annotations

from typing import Any

from kcodec.api.apiextensions import v1, v1beta1

__all__ = ["add_defaulting_funcs", "set_object_defaults_v1", "set_object_defaults_v1beta1"]


def _service_reference(ref: Any) -> None:
    if ref is not None and ref.port is None:
        ref.port = 443


def _names(spec: Any) -> None:
    names = spec.names
    if not names.singular:
        names.singular = names.kind.lower()
    if not names.list_kind and names.kind:
        names.list_kind = names.kind + "List"


def _stored_versions(crd: Any) -> None:
    if not crd.status.stored_versions:
        for v in crd.spec.versions or ():
            if v.storage:
                crd.status.stored_versions = [v.name]
                break


def _v1_spec(spec: Any) -> None:
    _names(spec)
    if spec.conversion is None:
        spec.conversion = v1.CustomResourceConversion(strategy="None")


def _v1beta1_spec(spec: Any) -> None:
    if not spec.scope:
        spec.scope = "Namespaced"
    _names(spec)
    if not spec.versions and spec.version:
        spec.versions = [v1beta1.CustomResourceDefinitionVersion(name=spec.version, served=True,
                                                                  storage=True)]
    if not spec.version and spec.versions:
        spec.version = spec.versions[0].name
    if spec.conversion is None:
        spec.conversion = v1beta1.CustomResourceConversion(strategy="None")
    conv = spec.conversion
    if conv.strategy == "Webhook" and not conv.conversion_review_versions:
        conv.conversion_review_versions = [v1beta1.SCHEME_GROUP_VERSION.version]
    if spec.preserve_unknown_fields is None:
        spec.preserve_unknown_fields = True


def set_object_defaults_v1(crd: v1.CustomResourceDefinition) -> None:
    """SetObjectDefaults_CustomResourceDefinition of v1."""
    # SetDefaults_CustomResourceDefinition (which defaults the spec), then the spec again.
    _v1_spec(crd.spec)
    _stored_versions(crd)
    _v1_spec(crd.spec)
    conv = crd.spec.conversion
    if conv is not None and conv.webhook is not None and conv.webhook.client_config is not None:
        _service_reference(conv.webhook.client_config.service)


def set_object_defaults_v1beta1(crd: v1beta1.CustomResourceDefinition) -> None:
    """SetObjectDefaults_CustomResourceDefinition of v1beta1."""
    _v1beta1_spec(crd.spec)
    _stored_versions(crd)
    _v1beta1_spec(crd.spec)
    conv = crd.spec.conversion
    if conv is not None and conv.webhook_client_config is not None:
        _service_reference(conv.webhook_client_config.service)


def _each(fn: Any) -> Any:
    def default_list(lst: Any) -> None:
        for item in lst.items or ():
            fn(item)

    return default_list


def add_defaulting_funcs(scheme: Any) -> None:
    """Register the v1 and v1beta1 CRD (and CRD list) defaulters with *scheme*."""
    scheme.add_type_defaulting_func(v1.CustomResourceDefinition, set_object_defaults_v1)
    scheme.add_type_defaulting_func(v1.CustomResourceDefinitionList, _each(set_object_defaults_v1))
    scheme.add_type_defaulting_func(v1beta1.CustomResourceDefinition, set_object_defaults_v1beta1)
    scheme.add_type_defaulting_func(v1beta1.CustomResourceDefinitionList,
                                    _each(set_object_defaults_v1beta1))
