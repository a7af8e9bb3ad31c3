"""Custom resources on the registry (apiextensions-apiserver pkg/registry/customresource):
storage layout, generation and status rules, status and scale subresources."""
from __future__ import annotations

import json

import pytest

from _etcd import etcd_endpoints  # noqa: F401  (session fixture)
from _registry_env import backend, make_getter  # noqa: F401
from kcodec.api import errors as apierrors
from kcodec.api.meta.unstructured import Unstructured
from kcodec.registry import rest
from kcodec.registry.customresource import custom_resource_storage
from kcodec.registry.request import Context

NS = Context(namespace="default")

CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "crontabs.stable.example.com"},
    "spec": {
        "group": "stable.example.com", "scope": "Namespaced",
        "names": {"plural": "crontabs", "singular": "crontab", "kind": "CronTab", "shortNames": ["ct"]},
        "versions": [
            {"name": "v1", "served": True, "storage": True,
             "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
             "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.replicas",
                                                       "statusReplicasPath": ".status.replicas",
                                                       "labelSelectorPath": ".status.selector"}}},
            {"name": "v1beta1", "served": True, "storage": False,
             "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}},
        ],
    },
}


@pytest.fixture
def crontabs(backend, tmp_path, request):
    getter = make_getter(backend, tmp_path, request)
    storage = custom_resource_storage(Unstructured(json.loads(json.dumps(CRD))), getter)
    request.addfinalizer(storage.destroy)
    return storage


def _crontab(name, **spec):
    return Unstructured({"apiVersion": "stable.example.com/v1", "kind": "CronTab",
                         "metadata": {"name": name}, "spec": dict(spec), "status": {"replicas": 9}})


def test_custom_resource_lifecycle(crontabs):
    store = crontabs.store
    assert sorted(crontabs.storage_map()) == ["crontabs", "crontabs/scale", "crontabs/status"]
    assert (store.short_names(), store.get_single_name(), store.namespace_scoped()) == (["ct"], "crontab", True)
    out = store.create(NS, _crontab("a", cronSpec="* * * * */5", replicas=1))
    content = out.unstructured_content()
    assert "status" not in content and content["metadata"]["generation"] == 1
    kv = store.storage.kv
    raw, _ = kv.get((store.rest_options.storage_config.prefix.rstrip("/") +
                     "/stable.example.com/crontabs/default/a").encode())
    assert json.loads(raw.value)["apiVersion"] == "stable.example.com/v1"
    assert store.get(NS, "a") == out
    # metadata-only change: generation stays; spec change: bumped
    labelled = out.deep_copy()
    labelled.set_labels({"x": "y"})
    out2, _ = store.update(NS, "a", rest.DefaultUpdatedObjectInfo(labelled))
    assert out2.get_generation() == 1
    changed = out2.deep_copy()
    changed.unstructured_content()["spec"]["cronSpec"] = "0 * * * *"
    out3, _ = store.update(NS, "a", rest.DefaultUpdatedObjectInfo(changed))
    assert out3.get_generation() == 2
    # no unconditional updates for custom resources
    blind = out3.deep_copy()
    blind.set_resource_version("")
    with pytest.raises(apierrors.StatusError) as e:
        store.update(NS, "a", rest.DefaultUpdatedObjectInfo(blind))
    assert str(e.value) == ('crontabs.stable.example.com "a" is invalid: metadata.resourceVersion: '
                            'Invalid value: 0: must be specified for an update')
    # status subresource writes status only
    st = out3.deep_copy()
    st.unstructured_content()["status"] = {"replicas": 1, "selector": "app=a"}
    st.unstructured_content()["spec"]["cronSpec"] = "ignored"
    out4, _ = crontabs.status.update(NS, "a", rest.DefaultUpdatedObjectInfo(st))
    assert out4.unstructured_content()["status"] == {"replicas": 1, "selector": "app=a"}
    assert out4.unstructured_content()["spec"]["cronSpec"] == "0 * * * *" and out4.get_generation() == 2
    # scale
    scale = crontabs.scale.get(NS, "a")
    assert (scale.spec.replicas, scale.status.replicas, scale.status.selector) == (1, 1, "app=a")
    scale.spec.replicas = 3
    scaled, _ = crontabs.scale.update(NS, "a", rest.DefaultUpdatedObjectInfo(scale))
    assert scaled.spec.replicas == 3
    assert store.get(NS, "a").unstructured_content()["spec"]["replicas"] == 3
    listed = store.list(NS)
    assert [i.get_name() for i in listed.items] == ["a"] and listed.get_kind() == "CronTabList"
    status, now = store.delete(NS, "a")
    assert now and status.details.kind == "crontabs" and status.details.group == "stable.example.com"


def test_custom_resource_validation_hook(crontabs, backend, tmp_path, request):
    from kcodec.validation import field

    def validator(obj):
        spec = obj.unstructured_content().get("spec", {})
        if not isinstance(spec.get("replicas", 0), int):
            return field.ErrorList([field.invalid(field.Path("spec", "replicas"), spec["replicas"],
                                                  'spec.replicas in body must be of type integer: "string"')])
        return field.ErrorList()

    getter = make_getter(backend, tmp_path, request)
    storage = custom_resource_storage(Unstructured(json.loads(json.dumps(CRD))), getter, validator=validator)
    request.addfinalizer(storage.destroy)
    with pytest.raises(apierrors.StatusError) as e:
        storage.store.create(NS, _crontab("x", replicas="string"))
    assert str(e.value) == ('CronTab.stable.example.com "x" is invalid: spec.replicas: Invalid value: "string": '
                            'spec.replicas in body must be of type integer: "string"')
    with pytest.raises(apierrors.StatusError) as e:
        storage.store.create(NS, _crontab("Bad"))
    assert e.value.code == 422
