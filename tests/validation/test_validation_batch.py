"""kcodec.api.batch.validation against k/k pkg/apis/batch/validation/validation.go
(ValidateJob, ValidateJobUpdate, ValidateCronJobCreate) and the error texts of
github.com/robfig/cron/v3 ParseStandard, which validateScheduleFormat reports."""
from __future__ import annotations

import json

import pytest

from kcodec import legacyscheme
from kcodec.api.batch import validation as bv
from kcodec.api.meta import v1 as metav1


def internal(doc: dict):
    obj, _ = legacyscheme.codecs.universal_decoder().decode(json.dumps(doc).encode())
    return obj


def job(**spec) -> object:
    base = {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "pi", "image": "perl"}]}}}
    base.update(spec)
    obj = internal({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "pi", "namespace": "default"},
                    "spec": base})
    # What the Job strategy generates on create (generateSelector) after BeforeCreate's uid.
    uid = "0d6b4b5e-8d2c-4b39-9d55-2f4fbb1cf0a1"
    obj.metadata.uid = uid
    obj.spec.template.metadata.labels = {"controller-uid": uid, "job-name": "pi",
                                         "batch.kubernetes.io/controller-uid": uid, "batch.kubernetes.io/job-name": "pi"}
    obj.spec.selector = metav1.LabelSelector(match_labels={"batch.kubernetes.io/controller-uid": uid})
    return obj


def msgs(errs):
    return [str(e) for e in errs]


def test_valid_job():
    assert not bv.validate_job(job())


def test_job_errors():
    j = job(parallelism=-1, backoffLimitPerIndex=1)
    j.spec.template.spec.restart_policy = "Always"
    got = msgs(bv.validate_job(j))
    assert "spec.parallelism: Invalid value: -1: must be greater than or equal to 0" in got
    assert "spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode" in got
    assert 'spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"' in got


def test_job_generated_selector_labels():
    j = job()
    j.spec.template.metadata.labels["job-name"] = "other"
    got = msgs(bv.validate_job(j))
    assert got[0].startswith("spec.template.metadata.labels[job-name]: Invalid value: {")
    assert got[0].endswith(": must be 'pi'")


def test_job_update_immutable_template():
    old = job()
    old.metadata.resource_version = "1"
    new = old.deep_copy()
    new.spec.template.spec.containers[0].image = "perl:2"
    errs = bv.validate_job_update(new, old)
    assert [e.field for e in errs] == ["spec.template"] and errs[0].detail == "field is immutable"


@pytest.mark.parametrize(("schedule", "msg"), [
    ("*/5 * * * *", None), ("@hourly", None), ("0 0 * * mon-fri", None), ("@every 1h30m", None),
    ("", "empty spec string"),
    ("* * * *", "expected exactly 5 fields, found 4: [* * * *]"),
    ("61 * * * *", "end of range (61) above maximum (59): 61"),
    ("* * 0 * *", "beginning of range (0) below minimum (1): 0"),
    ("5-1 * * * *", "beginning of range (5) beyond end of range (1): 5-1"),
    ("*/0 * * * *", "step of range should be a positive number: */0"),
    ("x * * * *", 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax'),
    ("@sometimes", "unrecognized descriptor: @sometimes"),
    ("1-2-3 * * * *", "too many hyphens: 1-2-3"),
    ("1/2/3 * * * *", "too many slashes: 1/2/3"),
])
def test_cron_parse_standard(schedule, msg):
    if msg is None:
        bv.parse_standard_cron(schedule)
    else:
        with pytest.raises(bv.CronParseError) as info:
            bv.parse_standard_cron(schedule)
        assert str(info.value) == msg


def test_cron_job():
    doc = {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "c" * 53, "namespace": "default"},
           "spec": {"schedule": "TZ=UTC 61 * * * *", "timeZone": "Mars/Olympus",
                    "jobTemplate": {"spec": {"template": {"spec": {"restartPolicy": "OnFailure",
                                                                   "containers": [{"name": "c", "image": "i"}]}}}}}}
    got = msgs(bv.validate_cron_job(internal(doc)))
    assert 'spec.schedule: Invalid value: "TZ=UTC 61 * * * *": end of range (61) above maximum (59): 61' in got
    assert 'spec.schedule: Invalid value: "TZ=UTC 61 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone ' \
           "field instead" in got
    assert 'spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus' in got
    assert f'metadata.name: Invalid value: "{"c" * 53}": must be no more than 52 characters' in got
