"""Events: k/k pkg/apis/core/validation/events.go ValidateEventCreate, ValidateEventUpdate,
legacyValidateEvent, validateV1EventSeries (cases after events_test.go)."""
from __future__ import annotations

import json

from kcodec import legacyscheme
from kcodec.api.core import validation as cv
from kcodec.api.events import validation as ev


def internal(doc: dict):
    obj, _ = legacyscheme.codecs.universal_decoder().decode(json.dumps(doc).encode())
    return obj


def msgs(errs):
    return [str(e) for e in errs]


def core_event(ns: str, involved_ns: str, **extra):
    return internal({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e", "namespace": ns},
                     "involvedObject": {"kind": "Pod", "name": "p", "namespace": involved_ns}, **extra})


def v1_event(**extra):
    doc = {"apiVersion": "events.k8s.io/v1", "kind": "Event",
           "metadata": {"name": "e", "namespace": "d", "resourceVersion": "1"},
           "eventTime": "2024-01-01T00:00:00.000000Z", "reportingController": "k8s.io/kubelet",
           "reportingInstance": "node-1", "action": "Pulling", "reason": "Pulling", "type": "Normal",
           "regarding": {"kind": "Pod", "name": "p", "namespace": "d"}}
    doc.update(extra)
    return internal(doc)


def test_legacy_events():
    assert msgs(cv.validate_event(core_event("d", "d"))) == []
    assert msgs(cv.validate_event(core_event("default", ""))) == []
    assert msgs(cv.validate_event(core_event("d", "other"))) == [
        'involvedObject.namespace: Invalid value: "other": does not match event.namespace']
    assert msgs(cv.validate_event(core_event("d", ""))) == [
        'involvedObject.namespace: Invalid value: "": does not match event.namespace']
    # core/v1 with an eventTime: the reporting fields are required.
    assert msgs(cv.validate_event(core_event("d", "d", eventTime="2024-01-01T00:00:00.000000Z"))) == [
        "reportingController: Required value",
        "reportingController: Invalid value: \"\": name part must be non-empty",
        "reportingController: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or "
        "'.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
        "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        "reportingInstance: Required value",
        "action: Required value",
        "reason: Required value",
    ]


def test_strict_events():
    good = v1_event()
    assert msgs(ev.validate_event(good)) == []
    assert msgs(ev.validate_event_update(good.deep_copy(), good)) == []
    bad = v1_event(type="Info", deprecatedCount=3, deprecatedSource={"component": "x"},
                   series={"count": 1, "lastObservedTime": "2024-01-01T00:00:00.000000Z"},
                   note="n" * 1025)
    assert msgs(ev.validate_event(bad)) == [
        "message: Invalid value: \"\": can have at most 1024 characters",
        "series.count: Invalid value: \"\": should be at least 2",
        "type: Invalid value: \"\": has invalid value: Info",
        "count: Invalid value: \"\": needs to be unset",
        "source: Invalid value: \"\": needs to be unset",
    ]
    # The same object through events.k8s.io/v1beta1 gets only the legacy checks.
    assert msgs(ev.validate_event(bad, "events.k8s.io/v1beta1")) == [
        "message: Invalid value: \"\": can have at most 1024 characters"]
    changed = v1_event(reason="Pulled", action="Pulled")
    assert msgs(ev.validate_event_update(changed, good)) == [
        'reason: Invalid value: "Pulled": field is immutable',
        'reason: Invalid value: "Pulled": field is immutable',
        'action: Invalid value: "Pulled": field is immutable',
    ]
