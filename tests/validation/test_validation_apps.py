"""kcodec.api.apps.validation against k/k pkg/apis/apps/validation/validation.go
(ValidateDeployment, ValidateReplicaSet, ValidateStatefulSet(Update), ValidateDaemonSet(Update),
the status updates), on internal objects from kcodec.legacyscheme."""
from __future__ import annotations

import json

from kcodec import legacyscheme
from kcodec.api.apps import validation as av


def internal(doc: dict):
    obj, _ = legacyscheme.codecs.universal_decoder().decode(json.dumps(doc).encode())
    return obj


def deployment(**spec) -> dict:
    base = {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}},
                         "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}
    base.update(spec)
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
            "spec": base}


def msgs(errs) -> list[str]:
    return [str(e) for e in errs]


def test_valid_deployment():
    assert not av.validate_deployment(internal(deployment()))


def test_selector_does_not_match_template():
    doc = deployment()
    doc["spec"]["template"]["metadata"]["labels"] = {"app": "y"}
    errs = av.validate_deployment(internal(doc))
    # Go renders the map with json.Marshal (field.Error.ErrorBody).
    assert msgs(errs) == ['spec.template.metadata.labels: Invalid value: {"app":"y"}: '
                          "`selector` does not match template `labels`"]
    assert errs.to_aggregate() == msgs(errs)[0]


def test_deployment_spec_errors():
    doc = deployment(replicas=-1, minReadySeconds=10, progressDeadlineSeconds=5,
                     strategy={"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "150%", "maxSurge": 0}})
    doc["spec"]["template"]["spec"]["restartPolicy"] = "Never"
    got = msgs(av.validate_deployment(internal(doc)))
    assert "spec.replicas: Invalid value: -1: must be greater than or equal to 0" in got
    assert 'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"' in got
    assert 'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "150%": must not be greater than 100%' in got
    assert "spec.progressDeadlineSeconds: Invalid value: 5: must be greater than minReadySeconds" in got


def test_empty_selector_and_bad_percent():
    doc = deployment(selector={}, strategy={"type": "RollingUpdate",
                                            "rollingUpdate": {"maxUnavailable": "x%", "maxSurge": 1}})
    got = msgs(av.validate_deployment(internal(doc)))
    assert "spec.selector: Invalid value: {}: empty selector is invalid for deployment" in got
    assert "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: \"x%\": a valid percent string must be a " \
           "numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is " \
           "'[0-9]+%')" in got


def test_stateful_set_update_forbidden_fields():
    doc = {"apiVersion": "apps/v1", "kind": "StatefulSet",
           "metadata": {"name": "db", "namespace": "default", "resourceVersion": "1"},
           "spec": {"serviceName": "db", "selector": {"matchLabels": {"app": "db"}},
                    "template": {"metadata": {"labels": {"app": "db"}},
                                 "spec": {"containers": [{"name": "db", "image": "postgres"}]}}}}
    old = internal(doc)
    assert not av.validate_stateful_set(old)
    new = old.deep_copy()
    new.spec.replicas = 5
    assert not av.validate_stateful_set_update(new, old)
    new.spec.service_name = "other"
    assert msgs(av.validate_stateful_set_update(new, old)) == [
        "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', "
        "'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"]
    bad = internal(dict(doc, metadata={"name": "db.x", "namespace": "default"}))
    assert msgs(av.validate_stateful_set(bad)) == ['metadata.name: Invalid value: "db.x": must not contain dots']


def test_daemon_set_template_generation():
    doc = {"apiVersion": "apps/v1", "kind": "DaemonSet",
           "metadata": {"name": "agent", "namespace": "default", "resourceVersion": "1"},
           "spec": {"selector": {"matchLabels": {"app": "a"}},
                    "template": {"metadata": {"labels": {"app": "a"}},
                                 "spec": {"containers": [{"name": "a", "image": "agent"}]}}}}
    old = internal(doc)
    assert not av.validate_daemon_set(old)
    new = old.deep_copy()
    new.spec.template.spec.containers[0].image = "agent:2"
    assert msgs(av.validate_daemon_set_update(new, old)) == [
        "spec.templateGeneration: Invalid value: 0: must be incremented upon template update"]
    new.spec.template_generation = 1
    assert not av.validate_daemon_set_update(new, old)


def test_status_updates():
    old = internal(deployment())
    old.metadata.resource_version = "1"
    new = old.deep_copy()
    new.status.replicas = 1
    new.status.ready_replicas = 3
    new.status.collision_count = None
    old.status.collision_count = 2
    assert msgs(av.validate_deployment_status_update(new, old)) == [
        "status.readyReplicas: Invalid value: 3: cannot be greater than status.replicas",
        "status.collisionCount: Invalid value: 0: cannot be decremented",
    ]
