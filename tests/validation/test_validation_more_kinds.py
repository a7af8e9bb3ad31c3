"""Endpoints, ResourceQuota, LimitRange (k/k pkg/apis/core/validation/validation.go) and
IngressClass, ServiceCIDR, IPAddress (pkg/apis/networking/validation/validation.go) on
internal objects; kinds kube-apiserver creates itself or users rarely write, checked with
Go's texts all the same."""
from __future__ import annotations

import json

from kcodec import legacyscheme
from kcodec.api.core import validation as cv
from kcodec.api.networking import validation as nv


def internal(doc: dict):
    obj, _ = legacyscheme.codecs.universal_decoder().decode(json.dumps(doc).encode())
    return obj


def msgs(errs):
    return [str(e) for e in errs]


def test_endpoints():
    ep = internal({"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": "e", "namespace": "d"},
                   "subsets": [{"addresses": [{"ip": "127.0.0.1"}], "ports": [{"port": 80}, {"port": 81}]}, {}]})
    assert msgs(cv.validate_endpoints(ep)) == [
        'subsets[0].addresses[0].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, '
        "::1/128)",
        "subsets[0].ports[0].name: Required value",
        "subsets[0].ports[1].name: Required value",
        "subsets[1]: Required value: must specify `addresses` or `notReadyAddresses`",
    ]


def test_resource_quota():
    rq = internal({"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q", "namespace": "d"},
                   "spec": {"hard": {"pods": "1.5", "foo": "1", "requests.cpu": "2"},
                            "scopes": ["BestEffort", "NotBestEffort"]}})
    assert msgs(cv.validate_resource_quota(rq)) == [
        'spec.hard[foo]: Invalid value: "foo": must be a standard resource type or fully qualified',
        'spec.hard[foo]: Invalid value: "foo": must be a standard resource for quota',
        'spec.hard[pods]: Invalid value: "1500m": must be an integer',
        'spec.scopes: Invalid value: ["BestEffort","NotBestEffort"]: conflicting scopes',
    ]


def test_limit_range():
    lr = internal({"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "l", "namespace": "d"},
                   "spec": {"limits": [{"type": "Pod", "default": {"cpu": "1"}},
                                       {"type": "Container", "min": {"cpu": "2"}, "max": {"cpu": "1"}}]}})
    got = msgs(cv.validate_limit_range(lr))
    assert "spec.limits[0].default: Forbidden: may not be specified when `type` is 'Pod'" in got
    assert 'spec.limits[1].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1' in got


def test_ingress_class_service_cidr_ip_address():
    ic = internal({"apiVersion": "networking.k8s.io/v1", "kind": "IngressClass", "metadata": {"name": "nginx"},
                   "spec": {"controller": "ingress-nginx",
                            "parameters": {"kind": "X", "name": "y", "scope": "Cluster", "namespace": "z"}}})
    assert msgs(nv.validate_ingress_class(ic)) == [
        'spec.controller: Invalid value: "ingress-nginx": must be a domain-prefixed path (such as "acme.io/foo")',
        "spec.parameters.namespace: Forbidden: `parameters.scope` is set to 'Cluster'",
    ]
    cidr = internal({"apiVersion": "networking.k8s.io/v1", "kind": "ServiceCIDR", "metadata": {"name": "k"},
                     "spec": {"cidrs": ["10.0.0.0/24", "fd00::/108"]}})
    assert not nv.validate_service_cidr(cidr)
    ipa = internal({"apiVersion": "networking.k8s.io/v1", "kind": "IPAddress", "metadata": {"name": "10.0.0.01"},
                    "spec": {"parentRef": {"resource": "services", "name": "a", "namespace": "default"}}})
    assert msgs(nv.validate_ip_address(ipa)) == ['metadata.name: Invalid value: "10.0.0.01": must not have leading 0s']


def test_node():
    # validation.go ValidateNode: taints are checked under metadata.taints (Go's own path).
    node = internal({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
                     "spec": {"podCIDRs": ["10.0.0.0/24", "10.1.0.0/24"],
                              "taints": [{"key": "k", "effect": "NoSchedule"}, {"key": "k", "effect": "NoSchedule"},
                                         {"key": "j", "effect": "Sometimes"}]}})
    assert msgs(cv.validate_node(node)) == [
        'metadata.taints[1]: Duplicate value: {"Key":"k","Value":"","Effect":"NoSchedule","TimeAdded":null}: taints '
        "must be unique by key and effect pair",
        'metadata.taints[2].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", '
        '"PreferNoSchedule", "NoExecute"',
        'spec.podCIDRs: Invalid value: ["10.0.0.0/24","10.1.0.0/24"]: may specify no more than one CIDR for each IP '
        "family",
    ]
    old = internal({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "resourceVersion": "1"},
                    "spec": {"podCIDRs": ["10.0.0.0/24"], "providerID": "aws://a"}})
    new = old.deep_copy()
    new.spec.pod_cidrs = ["10.9.0.0/24"]
    new.spec.provider_id = "aws://b"
    assert msgs(cv.validate_node_update(new, old)) == [
        'spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid',
        'spec.providerID: Forbidden: node updates may not change providerID except from "" to valid',
    ]


def test_quota_resource_names_follow_helpers():
    """pkg/apis/core/helper/helpers.go: IsStandardResourceName takes "hugepages-*" and
    "requests.hugepages-*" but not "limits.hugepages-*"; standardQuotaResources lacks "storage"."""
    rq = internal({"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q", "namespace": "d"},
                   "spec": {"hard": {"hugepages-2Mi": "1Gi", "requests.hugepages-2Mi": "1Gi",
                                     "limits.hugepages-2Mi": "1Gi", "storage": "1Gi", "count/pods": "3"}}})
    assert msgs(cv.validate_resource_quota(rq)) == [
        'spec.hard[limits.hugepages-2Mi]: Invalid value: "limits.hugepages-2Mi": must be a standard resource '
        "type or fully qualified",
        'spec.hard[limits.hugepages-2Mi]: Invalid value: "limits.hugepages-2Mi": must be a standard resource '
        "for quota",
        'spec.hard[storage]: Invalid value: "storage": must be a standard resource for quota',
    ]


def test_pod_deletion_cost_annotation():
    """pkg/apis/core/helper/helpers.go GetDeletionCostFromPodAnnotations (validFirstDigit)."""
    key = "controller.kubernetes.io/pod-deletion-cost"
    pod = internal({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "d"},
                    "spec": {"containers": [{"name": "c", "image": "i"}]}})
    for value, ok in [("10", True), ("-5", True), ("0", True), ("+10", False), ("010", False),
                      ("2147483648", False), ("-2147483648", True), ("", False), ("x", False)]:
        errs = cv.validate_pod_specific_annotations({key: value}, pod.spec, fld_path(), cv.PodValidationOptions())
        assert (not errs) == ok, (value, msgs(errs))
        if not ok:
            assert msgs(errs) == [f'metadata.annotations[{key}]: Invalid value: "{value}": must be a 32bit integer']


def fld_path():
    from kcodec.validation.field import Path
    return Path("metadata", "annotations")
