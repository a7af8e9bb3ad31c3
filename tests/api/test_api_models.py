"""Built-in Kubernetes models beyond the fixtures: zero values, nil vs empty, value types.

The Go-written fixtures set every field, so they never show a zero value, a nil list, an
omitted key or a re-canonicalised quantity. These tests pin those down with bytes derived
from the generated Go marshallers and struct tags (Go: k8s.io/apimachinery/pkg/runtime/serializer/json/json.go (Encode); the generated.pb.go marshallers of k8s.io/apimachinery/pkg/apis/meta/v1 and k8s.io/apimachinery/pkg/runtime; k8s.io/apimachinery/pkg/apis/meta/v1 and util/intstr), through the
serializers of ``kcodec.api.codecs``.
"""
from __future__ import annotations

import pytest

from conftest import fixtures_dir
from kcodec.api import codecs
from kcodec.api.apps.v1 import ControllerRevision, Deployment, DeploymentList
from kcodec.api.coordination.v1 import Lease, LeaseSpec
from kcodec.api.core.v1 import (
    ConfigMap,
    Container,
    Pod,
    PodList,
    ResourceRequirements,
    Secret,
    Service,
    ServicePort,
)
from kcodec.api.events.v1 import Event
from kcodec.api.meta.v1 import ListMeta, MicroTime, ObjectMeta, OwnerReference, Time
from kcodec.errors import DecodeError, EncodeError
from kcodec.model import from_proto, to_proto
from kcodec.runtime import RawExtension, Unknown
from kcodec.schema import GroupVersionKind
from kcodec.types import IntOrString, Quantity

_INFOS = {i.media_type: i for i in codecs.supported_media_types()}
JSON = _INFOS["application/json"].serializer
PRETTY = _INFOS["application/json"].pretty_serializer
YAML = _INFOS["application/yaml"].serializer
PB = _INFOS["application/vnd.kubernetes.protobuf"].serializer
FORMATS = {"json": JSON, "yaml": YAML, "pb": PB}
POD_GVK = GroupVersionKind("", "v1", "Pod")


def typed(obj, api_version: str, kind: str):
    obj.api_version, obj.kind = api_version, kind
    return obj


def roundtrip(fmt: str, obj):
    s = FORMATS[fmt]
    data = s.encode(obj)
    back, _ = s.decode(data)
    return data, back


# ------------------------------------------------------------------ protobuf zero values (Go: the generated.pb.go marshallers of k8s.io/apimachinery/pkg/apis/meta/v1 and k8s.io/apimachinery/pkg/runtime)

EMPTY_OBJECT_META = bytes.fromhex("0a00 1200 1a00 2200 2a00 3200 3800 4200")
EMPTY_POD_SPEC = bytes.fromhex(
    "1a00"  # 3 restartPolicy
    "3200"  # 6 dnsPolicy
    "4200 4a00 5200"  # 8 serviceAccountName, 9 serviceAccount, 10 nodeName
    "5800 6000 6800"  # 11 hostNetwork, 12 hostPID, 13 hostIPC
    "820100 8a0100 9a0100 c20100"  # 16 hostname, 17 subdomain, 19 schedulerName, 24 priorityClassName
)
EMPTY_POD_STATUS = bytes.fromhex(
    "0a00 1a00 2200 2a00 3200"  # 1 phase, 3 message, 4 reason, 5 hostIP, 6 podIP
    "4a00 5a00 7200"  # 9 qosClass, 11 nominatedNodeName, 14 resize
    "880100"  # 17 observedGeneration
)


def test_zero_pod_protobuf_body_writes_every_value_field():
    body = to_proto(Pod())
    assert body == (b"\x0a\x10" + EMPTY_OBJECT_META + b"\x12\x1c" + EMPTY_POD_SPEC
                    + b"\x1a\x13" + EMPTY_POD_STATUS)
    assert from_proto(Pod, body) == Pod()


def test_object_meta_examples_from_the_reference():
    assert to_proto(ObjectMeta()) == EMPTY_OBJECT_META
    meta = ObjectMeta(name="foo", labels={"b": "2", "a": "1"})
    assert to_proto(meta) == bytes.fromhex(
        "0a03666f6f 1200 1a00 2200 2a00 3200 3800 4200 5a06 0a0161 120131 5a06 0a0162 120132")
    stamped = to_proto(ObjectMeta(creation_timestamp=Time.parse("1998-05-05T05:05:05Z")))
    assert bytes.fromhex("4208 0881bcbaaa03 1000") in stamped
    grace = to_proto(ObjectMeta(deletion_grace_period_seconds=-1))
    assert bytes.fromhex("50ffffffffffffffffff01") in grace
    assert from_proto(ObjectMeta, grace).deletion_grace_period_seconds == -1


def test_list_meta_and_owner_reference_examples():
    assert to_proto(ListMeta()) == bytes.fromhex("0a00 1200 1a00")
    assert to_proto(ListMeta(resource_version="5", remaining_item_count=0)) == bytes.fromhex("0a00 120135 1a00 2000")
    ref = OwnerReference(kind="K", name="n", uid="u", api_version="v1", controller=True)
    assert to_proto(ref) == bytes.fromhex("0a014b 1a016e 220175 2a027631 3001")


def test_pointer_fields_only_when_set():
    meta = to_proto(ObjectMeta(deletion_grace_period_seconds=0))
    assert meta == EMPTY_OBJECT_META + bytes.fromhex("5000")
    assert from_proto(ObjectMeta, EMPTY_OBJECT_META).deletion_grace_period_seconds is None
    assert from_proto(ObjectMeta, meta).deletion_grace_period_seconds == 0
    # *metav1.Time: nil absent, set-to-zero is an empty message
    assert to_proto(ObjectMeta(deletion_timestamp=Time())) == EMPTY_OBJECT_META + bytes.fromhex("4a00")


# ------------------------------------------------------------------ JSON omitempty / omitzero (Go: k8s.io/apimachinery/pkg/runtime/serializer/json/json.go (Encode); k8s.io/apimachinery/pkg/apis/meta/v1 and util/intstr)


def test_zero_pod_json():
    assert JSON.encode(typed(Pod(), "v1", "Pod")) == (
        b'{"kind":"Pod","apiVersion":"v1","metadata":{},"spec":{"containers":null},"status":{}}\n')


def test_creation_timestamp_omitted_only_when_zero():
    pod = typed(Pod(), "v1", "Pod")
    pod.metadata.creation_timestamp = Time.parse("1998-05-05T05:05:05Z")
    assert b'"metadata":{"creationTimestamp":"1998-05-05T05:05:05Z"}' in JSON.encode(pod)
    # a pointer Time (deletionTimestamp) set to zero is written as null
    pod.metadata.deletion_timestamp = Time()
    assert b'"deletionTimestamp":null' in JSON.encode(pod)


def test_omitempty_never_drops_structs_or_custom_values():
    # events/v1 Event: eventTime has no omitempty; deprecated*Timestamp have omitempty,
    # which Go ignores for structs (only omitzero drops them).
    event = typed(Event(), "events.k8s.io/v1", "Event")
    assert JSON.encode(event) == (
        b'{"kind":"Event","apiVersion":"events.k8s.io/v1","metadata":{},"eventTime":null,'
        b'"regarding":{},"deprecatedSource":{},"deprecatedFirstTimestamp":null,'
        b'"deprecatedLastTimestamp":null}\n')
    # targetPort (IntOrString, omitempty) is still written when zero
    svc = typed(Service(), "v1", "Service")
    svc.spec.ports = [ServicePort(port=80)]
    assert b'"ports":[{"port":80,"targetPort":0}]' in JSON.encode(svc)


def test_zero_deployment_json_and_protobuf():
    d = typed(Deployment(), "apps/v1", "Deployment")
    assert JSON.encode(d) == (
        b'{"kind":"Deployment","apiVersion":"apps/v1","metadata":{},"spec":{"selector":null,'
        b'"template":{"metadata":{},"spec":{"containers":null}},"strategy":{}},"status":{}}\n')
    _, back = roundtrip("pb", d)
    assert back == d and back.spec.selector is None and back.spec.replicas is None


def test_zero_and_empty_lists():
    pod = typed(Pod(), "v1", "Pod")
    pod.spec.containers = []
    assert b'"spec":{"containers":[]}' in JSON.encode(pod)
    assert JSON.decode(JSON.encode(pod))[0].spec.containers == []
    # protobuf has no way to say "empty": the list comes back nil
    assert PB.decode(PB.encode(pod))[0].spec.containers is None
    empty = typed(PodList(), "v1", "PodList")
    assert JSON.encode(empty) == b'{"kind":"PodList","apiVersion":"v1","metadata":{},"items":null}\n'
    empty.items = []
    assert JSON.encode(empty) == b'{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[]}\n'
    assert YAML.encode(empty) == b"apiVersion: v1\nitems: []\nkind: PodList\nmetadata: {}\n"


def test_nil_and_empty_maps():
    cm = typed(ConfigMap(data={}), "v1", "ConfigMap")
    assert JSON.encode(cm) == b'{"kind":"ConfigMap","apiVersion":"v1","metadata":{}}\n'  # omitempty
    assert JSON.decode(b'{"kind":"ConfigMap","apiVersion":"v1","data":{}}')[0].data == {}
    assert JSON.decode(b'{"kind":"ConfigMap","apiVersion":"v1","data":null}')[0].data is None
    assert JSON.decode(b'{"kind":"ConfigMap","apiVersion":"v1"}')[0].data is None
    cm.data = {"empty": ""}
    assert b'"data":{"empty":""}' in JSON.encode(cm)
    assert PB.decode(PB.encode(cm))[0].data == {"empty": ""}


def test_map_keys_sorted_in_every_format():
    pod = typed(Pod(), "v1", "Pod")
    pod.metadata.labels = {"b": "2", "a": "1", "B": "0"}
    pod.metadata.name = "foo"
    assert b'"labels":{"B":"0","a":"1","b":"2"}' in JSON.encode(pod)
    assert to_proto(pod.metadata).endswith(bytes.fromhex("5a06 0a0142 120130 5a06 0a0161 120131 5a06 0a0162 120132"))
    y = YAML.encode(pod)
    assert b"  labels:\n    B: \"0\"\n    a: \"1\"\n    b: \"2\"\n  name: foo\n" in y


# ------------------------------------------------------------------ Quantity (Go: k8s.io/apimachinery/pkg/api/resource/quantity.go)


def _pod_with_limits(**limits: str) -> Pod:
    pod = typed(Pod(), "v1", "Pod")
    pod.spec.containers = [Container(name="c", resources=ResourceRequirements(
        limits={k: Quantity(v) for k, v in limits.items()}))]
    return pod


@pytest.mark.parametrize(
    ("given", "canonical"),
    [
        ("1024Mi", "1Gi"),
        ("1.5", "1500m"),
        ("0.1", "100m"),
        ("1000M", "1G"),
        ("1.5Gi", "1536Mi"),
        ("300Mi", "300Mi"),
        ("307200Ki", "300Mi"),
        ("3000", "3k"),
        ("3e3", "3e3"),
        ("1e9", "1e9"),
        ("0.00000012345", "124n"),
        ("0Ki", "0"),
        ("-1Gi", "-1Gi"),
    ],
)
def test_quantity_canonical_form_in_json_yaml_and_protobuf(given, canonical):
    data = b'{"kind":"Pod","apiVersion":"v1","spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":"%s"}}}]}}' % given.encode()
    pod, _ = JSON.decode(data)
    assert b'"limits":{"cpu":"%s"}' % canonical.encode() in JSON.encode(pod)
    assert b"cpu: %s\n" % canonical.encode() in YAML.encode(pod) or b'cpu: "%s"\n' % canonical.encode() in YAML.encode(pod)
    pb = PB.encode(pod)
    text = canonical.encode()
    assert b"\x0a\x03cpu\x12" + bytes([len(text) + 2]) + b"\x0a" + bytes([len(text)]) + text in pb
    assert str(PB.decode(pb)[0].spec.containers[0].resources.limits["cpu"]) == canonical


def test_quantity_accepts_numbers_padding_and_null():
    pod, _ = JSON.decode(b'{"kind":"Pod","apiVersion":"v1","spec":{"overhead":'
                         b'{"a":1,"b":" 1","c":"1 ","d":0.5,"e":null}}}')
    assert {k: str(v) for k, v in pod.spec.overhead.items()} == {"a": "1", "b": "1", "c": "1", "d": "500m", "e": "0"}
    pod, _ = YAML.decode(b"kind: Pod\napiVersion: v1\nspec:\n  overhead:\n    cpu: 0.1\n    mem: 1Gi\n")
    assert {k: str(v) for k, v in pod.spec.overhead.items()} == {"cpu": "100m", "mem": "1Gi"}


def test_zero_quantity_protobuf_is_the_string_0():
    pod = _pod_with_limits(cpu="0")
    assert b"\x0a\x03cpu\x12\x03\x0a\x010" in PB.encode(pod)


# ------------------------------------------------------------------ Time / MicroTime (Go: k8s.io/apimachinery/pkg/apis/meta/v1/time.go; k8s.io/apimachinery/pkg/apis/meta/v1/micro_time.go)


def test_time_keeps_fraction_in_memory_but_writes_seconds():
    pod, _ = JSON.decode(b'{"kind":"Pod","apiVersion":"v1","metadata":'
                         b'{"creationTimestamp":"1998-05-05T05:05:05.123456789Z"}}')
    ts = pod.metadata.creation_timestamp
    assert ts.nanosecond == 123456789
    assert b'"creationTimestamp":"1998-05-05T05:05:05Z"' in JSON.encode(pod)
    assert b'creationTimestamp: "1998-05-05T05:05:05Z"\n' in YAML.encode(pod)
    pb = PB.encode(pod)
    assert bytes.fromhex("4208 0881bcbaaa03 1000") in pb
    back = PB.decode(pb)[0].metadata.creation_timestamp
    assert back.nanosecond == 0 and back == Time.parse("1998-05-05T05:05:05Z")


def test_time_offsets_are_written_in_utc():
    pod, _ = JSON.decode(b'{"kind":"Pod","apiVersion":"v1","metadata":'
                         b'{"creationTimestamp":"1998-05-05T01:05:05-04:00"}}')
    assert b'"creationTimestamp":"1998-05-05T05:05:05Z"' in JSON.encode(pod)


def test_epoch_is_not_the_zero_time():
    meta = ObjectMeta(creation_timestamp=Time.unix(0))
    assert bytes.fromhex("4204 0800 1000") in to_proto(meta)
    assert from_proto(ObjectMeta, to_proto(meta)).creation_timestamp == Time.unix(0)
    assert from_proto(ObjectMeta, EMPTY_OBJECT_META).creation_timestamp.is_zero()


def test_microtime_json_has_six_digits_and_protobuf_truncates_to_micros():
    lease = typed(Lease(), "coordination.k8s.io/v1", "Lease")
    lease.spec = LeaseSpec(renew_time=MicroTime.unix(894344705, 5050))
    assert b'"renewTime":"1998-05-05T05:05:05.000005Z"' in JSON.encode(lease)
    pb = PB.encode(lease)
    assert bytes.fromhex("2209 0881bcbaaa03 108827") in pb
    back = PB.decode(pb)[0]
    assert back.spec.renew_time == MicroTime.unix(894344705, 5000)
    assert JSON.decode(JSON.encode(lease))[0].spec.renew_time == MicroTime.unix(894344705, 5000)
    event = typed(Event(), "events.k8s.io/v1", "Event")
    event.event_time = MicroTime.parse("1998-05-05T05:05:05.000000Z")
    assert b'"eventTime":"1998-05-05T05:05:05.000000Z"' in JSON.encode(event)


@pytest.mark.parametrize("text", ["1998-05-05T05:05:05Z", "1998-05-05T05:05:05.123Z", "1998-05-05T05:05:05.1234567Z"])
def test_microtime_json_needs_exactly_six_digits(text):
    data = b'{"kind":"Lease","apiVersion":"coordination.k8s.io/v1","spec":{"renewTime":"%s"}}' % text.encode()
    with pytest.raises(DecodeError, match=r"^parsing time ") as info:
        JSON.decode(data)
    assert info.value.field_path == "spec.renewTime"  # Go's text; the place is data


# ------------------------------------------------------------------ IntOrString (Go: k8s.io/apimachinery/pkg/util/intstr/intstr.go)


@pytest.mark.parametrize(
    ("value", "json_text", "pb_body"),
    [
        (IntOrString.from_int(5), b"5", "0800 1005 1a00"),
        (IntOrString.from_string("50%"), b'"50%"', "0801 1000 1a03353025"),
        (IntOrString.from_string("123"), b'"123"', "0801 1000 1a03313233"),
    ],
)
def test_int_or_string_both_forms(value, json_text, pb_body):
    svc = typed(Service(), "v1", "Service")
    svc.spec.ports = [ServicePort(port=80, target_port=value)]
    out = JSON.encode(svc)
    assert b'"targetPort":' + json_text + b"}" in out
    back = JSON.decode(out)[0].spec.ports[0].target_port
    assert back == value and back.type == value.type
    body = bytes.fromhex(pb_body)
    assert b"\x22" + bytes([len(body)]) + body in to_proto(svc.spec.ports[0])
    assert PB.decode(PB.encode(svc))[0].spec.ports[0].target_port == value
    assert YAML.decode(YAML.encode(svc))[0].spec.ports[0].target_port == value


def test_int_or_string_null_is_int_zero():
    svc, _ = JSON.decode(b'{"kind":"Service","apiVersion":"v1","spec":{"ports":[{"port":1,"targetPort":null}]}}')
    assert svc.spec.ports[0].target_port == IntOrString.from_int(0)


# ------------------------------------------------------------------ bytes (Go: Go's encoding/json encoder)


def test_secret_data_is_base64():
    secret = typed(Secret(data={"b": bytes([0, 1, 2, 255]), "a": b""}, string_data={"s": "x"}), "v1", "Secret")
    out = JSON.encode(secret)
    assert out == (b'{"kind":"Secret","apiVersion":"v1","metadata":{},"data":{"a":"","b":"AAEC/w=="},'
                   b'"stringData":{"s":"x"}}\n')
    assert YAML.encode(secret) == (b'apiVersion: v1\ndata:\n  a: ""\n  b: AAEC/w==\nkind: Secret\n'
                                   b"metadata: {}\nstringData:\n  s: x\n")
    pb = PB.encode(secret)
    assert bytes.fromhex("1205 0a0161 1200" "1209 0a0162 120400 0102ff") in pb
    for fmt in FORMATS:
        assert roundtrip(fmt, secret)[1] == secret


@pytest.mark.parametrize("bad", ["AAEC/w", "AAEC_w==", "****"])
def test_secret_data_rejects_non_standard_base64(bad):
    data = b'{"kind":"Secret","apiVersion":"v1","data":{"k":"%s"}}' % bad.encode()
    with pytest.raises(DecodeError, match=r"^illegal base64 data at input byte \d+$") as info:
        JSON.decode(data)
    assert info.value.field_path.endswith("data[k]")


# ------------------------------------------------------------------ RawExtension (Go: k8s.io/apimachinery/pkg/runtime/extension.go (RawExtension))


def test_raw_extension_with_embedded_object_in_every_format():
    rev = typed(ControllerRevision(revision=2), "apps/v1", "ControllerRevision")
    rev.data = RawExtension(raw=b'{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}')
    out = JSON.encode(rev)
    assert b'"data":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}},"revision":2' in out
    assert PRETTY.encode(rev).count(b'\n      "name": "p"\n') == 1  # re-indented in place
    assert b"data:\n  apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p\n" in YAML.encode(rev)
    pb = PB.encode(rev)
    raw = rev.data.raw
    assert b"\x12" + bytes([len(raw) + 2]) + b"\x0a" + bytes([len(raw)]) + raw in pb
    for fmt in FORMATS:
        back = roundtrip(fmt, rev)[1]
        assert back.data.raw == raw and back.revision == 2


def test_raw_extension_holding_a_live_object_writes_its_json():
    pod = typed(Pod(), "v1", "Pod")
    pod.metadata.name = "live"
    rev = typed(ControllerRevision(data=RawExtension(object=pod)), "apps/v1", "ControllerRevision")
    assert (b'"data":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"live"},'
            b'"spec":{"containers":null},"status":{}}') in JSON.encode(rev)
    unknown = RawExtension(object=Unknown(raw=b'{"x": 1}', content_type="application/json"))
    rev.data = unknown
    assert b'"data":{"x":1}' in JSON.encode(rev)


def test_raw_extension_nil_and_non_json():
    rev = typed(ControllerRevision(), "apps/v1", "ControllerRevision")
    assert JSON.encode(rev) == b'{"kind":"ControllerRevision","apiVersion":"apps/v1","metadata":{},"data":null,"revision":0}\n'
    assert bytes.fromhex("1200") in to_proto(rev)  # empty RawExtension: zero-length message
    assert PB.decode(PB.encode(rev))[0].data.raw is None
    rev.data = RawExtension(raw=b"\x08\x01")
    with pytest.raises(EncodeError, match="unrecognized content type"):
        JSON.encode(rev)


def test_raw_extension_keeps_json_literals_verbatim():
    data = (b'{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{},'
            b'"data":{"a": 1.0, "b": "\\u00e9"},"revision":1}')
    rev, _ = JSON.decode(data)
    assert rev.data.raw == b'{"a": 1.0, "b": "\\u00e9"}'
    assert b'"data":{"a":1.0,"b":"\\u00e9"}' in JSON.encode(rev)


# ------------------------------------------------------------------ lists of several items


def _items_from_fixture(name: str, cls, count: int):
    data = (fixtures_dir() / f"{name}.pb").read_bytes()
    base, _ = PB.decode(data)
    items = []
    for i in range(count):
        item = base.deep_copy()
        item.api_version, item.kind = "", ""  # list items carry no TypeMeta in protobuf
        item.metadata.name = f"{item.metadata.name}-{i}"
        item.metadata.labels = {"index": str(i)}
        items.append(item)
    assert isinstance(base, cls)
    return items


@pytest.mark.parametrize("fmt", ["json", "yaml", "pb"])
def test_pod_list_of_several_items_roundtrips(fmt):
    lst = typed(PodList(metadata=ListMeta(resource_version="42", continue_="tok", remaining_item_count=3)),
                "v1", "PodList")
    lst.items = _items_from_fixture("core.v1.Pod", Pod, 3) + [Pod()]
    data, back = roundtrip(fmt, lst)
    assert back == lst
    assert [p.metadata.name for p in back.items[:3]] == [p.metadata.name for p in lst.items[:3]]
    assert FORMATS[fmt].encode(back) == data


@pytest.mark.parametrize("fmt", ["json", "yaml", "pb"])
def test_deployment_list_of_several_items_roundtrips(fmt):
    lst = typed(DeploymentList(), "apps/v1", "DeploymentList")
    lst.items = _items_from_fixture("apps.v1.Deployment", Deployment, 3)
    lst.items[1].spec.replicas = 0
    lst.items[2].spec.selector = None
    data, back = roundtrip(fmt, lst)
    assert back == lst
    assert back.items[1].spec.replicas == 0 and back.items[2].spec.selector is None
    assert FORMATS[fmt].encode(back) == data


def test_lists_decode_equal_across_formats():
    lst = typed(PodList(), "v1", "PodList")
    lst.items = _items_from_fixture("core.v1.Pod", Pod, 2)
    decoded = [s.decode(s.encode(lst))[0] for s in FORMATS.values()]
    assert decoded[0] == decoded[1] == decoded[2] == lst


def test_list_protobuf_layout():
    lst = typed(PodList(), "v1", "PodList")
    lst.items = [Pod(), Pod()]
    pod = to_proto(Pod())
    assert to_proto(lst) == (bytes.fromhex("0a06 0a00 1200 1a00")
                             + (b"\x12" + bytes([len(pod)]) + pod) * 2)
