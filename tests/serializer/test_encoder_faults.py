"""Encoders on objects Go could not hold, or nested past what a C stack holds: always a
kcodec error, never another exception or a crash, whatever ``sys.getrecursionlimit()``.

Go has no such objects (its types hold what they declare; goroutine stacks grow to 1 GB),
so the texts here are kcodec's own except where a Go source is named.
"""
from __future__ import annotations

import sys
from typing import Any, Iterator

import pytest

import kcodec
from kcodec._kinds import MAX_ENCODE_DEPTH
from kcodec.api.apiextensions.v1 import (
    CustomResourceDefinition,
    CustomResourceDefinitionSpec,
    CustomResourceDefinitionVersion,
    CustomResourceValidation,
    JSONSchemaProps,
)
from kcodec.api.apps.v1 import Deployment, DeploymentSpec
from kcodec.api.core.v1 import ConfigMap
from kcodec.api.meta.v1 import FieldsV1, ManagedFieldsEntry, ObjectMeta
from kcodec.errors import DecodeError, EncodeError
from kcodec.runtime import Unstructured

FORMATS = ("json", "json-pretty", "yaml", "cbor", "protobuf")

#: Deep enough that an encoder recursing in C without a bound of its own overflows an
#: 8 MiB stack (the compiled protobuf encoder did at 32,000 levels) once the recursion
#: limit below lets it.
CHAIN = 50_000

_DEPTH_TEXT = {
    "json": f"json: exceeded max nesting depth {MAX_ENCODE_DEPTH} while encoding",
    "json-pretty": f"json: exceeded max nesting depth {MAX_ENCODE_DEPTH} while encoding",
    "yaml": f"json: exceeded max nesting depth {MAX_ENCODE_DEPTH} while encoding",
    "protobuf": f"proto: exceeded max nesting depth {MAX_ENCODE_DEPTH} while encoding",
    # fxamacker/cbor's text for its nesting limit (encode.go), 10000 as kcodec's decoder.
    "cbor": "cbor: exceeded max nested level 10000",
}


def _crd(schema: JSONSchemaProps) -> CustomResourceDefinition:
    version = CustomResourceDefinitionVersion(
        name="v1", served=True, storage=True, schema=CustomResourceValidation(open_apiv3_schema=schema))
    return CustomResourceDefinition(
        api_version="apiextensions.k8s.io/v1", kind="CustomResourceDefinition",
        metadata=ObjectMeta(name="deep.x.io"), spec=CustomResourceDefinitionSpec(group="x.io", versions=[version]))


def _chain(through: str, n: int) -> JSONSchemaProps:
    """A JSONSchemaProps ``n`` levels deep through ``not`` (a field) or ``allOf`` (a list),
    set past the checked setters as a program building one by hand could."""
    root = JSONSchemaProps._new_zero()
    cur = root
    for _ in range(n):
        nxt = JSONSchemaProps._new_zero()
        object.__setattr__(cur, "not_" if through == "field" else "all_of", nxt if through == "field" else [nxt])
        cur = nxt
    return root


@pytest.fixture(scope="module")
def chains() -> dict[str, CustomResourceDefinition]:
    return {through: _crd(_chain(through, CHAIN)) for through in ("field", "list")}


@pytest.fixture
def high_recursion_limit() -> Iterator[None]:
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(100_000)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


@pytest.mark.parametrize("through", ["field", "list"])
@pytest.mark.parametrize("fmt", FORMATS)
def test_deep_struct_chain_is_an_encode_error_at_a_high_recursion_limit(
        chains: dict[str, Any], through: str, fmt: str, high_recursion_limit: None) -> None:
    with pytest.raises(EncodeError) as err:
        kcodec.dump(chains[through], fmt)  # type: ignore[arg-type]
    assert str(err.value) == _DEPTH_TEXT[fmt]


@pytest.mark.parametrize("fmt", FORMATS)
def test_deep_struct_chain_is_an_encode_error_at_the_default_limit(chains: dict[str, Any], fmt: str) -> None:
    # Python's own limit stops the pure walkers first; they say the same.
    with pytest.raises(EncodeError) as err:
        kcodec.dump(chains["list"], fmt)  # type: ignore[arg-type]
    assert str(err.value) == _DEPTH_TEXT[fmt]


def test_nesting_below_the_bound_still_encodes(kcodec_mode: str) -> None:
    # Real schemas nest a few tens of levels; 400 is deeper than any, and stays within
    # the pure walkers' recursion at the default limit.
    crd = _crd(_chain("field", 400))
    for fmt in FORMATS:
        out = kcodec.dump(crd, fmt)  # type: ignore[arg-type]
        if fmt in ("json", "yaml"):
            back = kcodec.load(out)
            assert kcodec.dump(back, fmt) == out  # type: ignore[arg-type]


def test_deep_unstructured_tree_to_cbor_at_a_high_recursion_limit(high_recursion_limit: None) -> None:
    root: dict[str, Any] = {}
    cur = root
    for _ in range(CHAIN):
        nxt: dict[str, Any] = {}
        cur["a"] = nxt
        cur = nxt
    obj = Unstructured({"apiVersion": "x.io/v1", "kind": "X", "metadata": {"name": "a"}, "spec": root})
    with pytest.raises(EncodeError, match="cbor: exceeded max nested level 10000"):
        kcodec.dump(obj, "cbor")


@pytest.mark.parametrize("n, ok", [(9998, True), (9999, False)])
def test_deep_unstructured_tree_to_yaml(n: int, ok: bool) -> None:
    # sigs.k8s.io/yaml's JSONToYAML reads json.Marshal's text with go-yaml, whose scanner
    # stops past 10000 flow levels (scannerc.go max_flow_level: "exceeded max depth of
    # 10000"); the document's own object and spec are two of them.
    root: dict[str, Any] = {}
    cur = root
    for _ in range(n):
        nxt: dict[str, Any] = {}
        cur["a"] = nxt
        cur = nxt
    obj = Unstructured({"apiVersion": "x.io/v1", "kind": "X", "metadata": {"name": "a"}, "spec": root})
    if ok:
        assert kcodec.dump(obj, "yaml").startswith(b"apiVersion: x.io/v1\nkind: X\nmetadata:\n  name: a\nspec:\n  a:\n")
    else:
        with pytest.raises(EncodeError, match=r"^yaml: exceeded max depth of 10000$"):
            kcodec.dump(obj, "yaml")


# --------------------------------------------------------------------------- values past the setters


def _deployment_with(field: str, value: Any) -> Deployment:
    d = Deployment(metadata=ObjectMeta(name="a"), spec=DeploymentSpec())
    object.__setattr__(d.spec, field, value)
    return d


@pytest.mark.parametrize("fmt", FORMATS)
def test_value_past_the_setters_names_the_field(fmt: str) -> None:
    # Go's JSON encoder cannot meet a string in an int32 field; kcodec's wrote
    # "replicas":"three" (JSON, YAML) and CBOR raised a bare TypeError.
    with pytest.raises(EncodeError) as err:
        kcodec.dump(_deployment_with("replicas", "three"), fmt)  # type: ignore[arg-type]
    assert str(err.value) == "cannot encode v1.Deployment: spec.replicas: expected int32 (int) or None, got str 'three'"
    assert err.value.field_path == "spec.replicas"  # type: ignore[attr-defined]


@pytest.mark.parametrize("fmt", FORMATS)
def test_wrong_scalars_in_lists_and_maps_name_the_field(fmt: str) -> None:
    cm = ConfigMap(metadata=ObjectMeta(name="a"), data={"k": "v"})
    object.__setattr__(cm, "data", {"k": 5})
    with pytest.raises(EncodeError, match=r"cannot encode v1.ConfigMap: data\[k\]: "):
        kcodec.dump(cm, fmt)  # type: ignore[arg-type]
    cm = ConfigMap(metadata=ObjectMeta(name="a", finalizers=["x"]))
    object.__setattr__(cm.metadata, "finalizers", ["x", True])
    with pytest.raises(EncodeError, match=r"cannot encode v1.ConfigMap: metadata.finalizers\[1\]: "):
        kcodec.dump(cm, fmt)  # type: ignore[arg-type]


def _fields_v1_set_to(raw: Any) -> ConfigMap:
    fields = FieldsV1(b"{}")
    object.__setattr__(fields, "raw", raw)
    entry = ManagedFieldsEntry(manager="m", fields_type="FieldsV1", fields_v1=fields)
    return ConfigMap(metadata=ObjectMeta(name="a", managed_fields=[entry]))


@pytest.mark.parametrize("raw", ['{"f:data":{}}', 5])
@pytest.mark.parametrize("fmt", FORMATS)
def test_fields_v1_raw_past_its_setter(raw: Any, fmt: str) -> None:
    with pytest.raises(EncodeError) as err:
        kcodec.dump(_fields_v1_set_to(raw), fmt)  # type: ignore[arg-type]
    assert str(err.value) == (f"cannot encode v1.ConfigMap: metadata.managedFields[0].fieldsV1: "
                              f"FieldsV1.raw holds {type(raw).__name__}, not bytes")


def test_fields_v1_raw_assignment_keeps_bytes() -> None:
    fields = FieldsV1()
    fields.raw = '{"f:data":{}}'  # type: ignore[assignment]
    assert fields.raw == b'{"f:data":{}}'
    with pytest.raises(TypeError, match="FieldsV1.raw must be bytes, str or None, not int"):
        fields.raw = 5  # type: ignore[assignment]
    entry = ManagedFieldsEntry(manager="m", fields_type="FieldsV1", fields_v1=FieldsV1('{"f:data":{}}'))
    cm = ConfigMap(metadata=ObjectMeta(name="a", managed_fields=[entry]))
    back = kcodec.load(kcodec.dump(cm, "protobuf"))
    assert back.metadata.managed_fields[0].fields_v1.raw == b'{"f:data":{}}'


# --------------------------------------------------------------------------- strings UTF-8 cannot hold


@pytest.mark.parametrize("fmt", ["cbor", "protobuf"])
def test_lone_surrogate_in_a_typed_string(fmt: str) -> None:
    cm = ConfigMap(metadata=ObjectMeta(name="a"), data={"k": "\ud800"})
    with pytest.raises(EncodeError) as err:
        kcodec.dump(cm, fmt)  # type: ignore[arg-type]
    assert str(err.value) == ("cannot encode v1.ConfigMap: data[k]: string holds U+D800, a lone "
                              "surrogate, which UTF-8 cannot encode")


def test_lone_surrogate_is_u_fffd_in_json_and_yaml() -> None:
    # encoding/json (encode.go, appendString) writes invalid UTF-8 as \ufffd; a lone
    # surrogate is the Python form of such bytes.
    cm = ConfigMap(metadata=ObjectMeta(name="a"), data={"k": "\ud800"})
    assert b'"data":{"k":"\\ufffd"}' in kcodec.dump(cm, "json")
    assert "k: \ufffd\n".encode() in kcodec.dump(cm, "yaml")


def test_unstructured_to_cbor_with_a_lone_surrogate() -> None:
    obj = Unstructured({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"},
                        "data": {"k": ["x", "\ud800"]}})
    with pytest.raises(EncodeError) as err:
        kcodec.dump(obj, "cbor")
    assert str(err.value) == "cbor: cannot encode data.k[1]: string holds U+D800, a lone surrogate, which UTF-8 cannot encode"
    obj = Unstructured({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"\udbff": "x"}})
    with pytest.raises(EncodeError, match=r"^cbor: cannot encode map key at data: string holds U\+DBFF"):
        kcodec.dump(obj, "cbor")


def test_surrogate_escapes_keep_their_bytes_in_cbor() -> None:
    # Strings decoded from invalid UTF-8 hold their bytes as U+DC80-U+DCFF and get them back.
    obj = Unstructured({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"k": "\udcff"}})
    assert b"\x41\xff" in kcodec.dump(obj, "cbor")


def test_unstructured_to_cbor_with_an_int_key() -> None:
    # Go's unstructured content is map[string]interface{}: no other key type exists.
    obj = Unstructured({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {1: "x"}})
    with pytest.raises(EncodeError, match=r"^cbor: unsupported type: map key 1 of type int$"):
        kcodec.dump(obj, "cbor")


# --------------------------------------------------------------------------- watch frames


def test_watch_frame_with_its_own_kind() -> None:
    # The frame carries apiVersion v1 and kind Pod, so the JSON serializer decodes it as a
    # Pod (runtime.UseOrCreateObject), not into the WatchEvent it was given; client-go's
    # rest/watch/decoder.go then refuses it with this text.
    frames = [
        b'{"type":"ADDED","kind":"Pod","apiVersion":"v1"}',
        b'{"type":"ADDED","kind":"Pod","apiVersion":"v1","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a"}}}',
    ]
    for frame in frames:
        with pytest.raises(DecodeError, match=r"^unable to decode to metav1\.Event$") as err:
            list(kcodec.watch_events(frame, format="json"))
        assert err.value.event == 0  # type: ignore[attr-defined]
    good = b'{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a"}}}\n'
    events = kcodec.watch_events(good + frames[0], format="json")
    first = next(events)
    assert first.type == "ADDED" and first.object.metadata.name == "a"
    with pytest.raises(DecodeError, match=r"^unable to decode to metav1\.Event$") as err:
        next(events)
    assert err.value.event == 1  # type: ignore[attr-defined]


def _python_depth() -> int:
    """How deep plain Python recursion goes from here before RecursionError."""
    def down(n: int) -> int:
        try:
            return down(n + 1)
        except RecursionError:
            return n
    return down(0)


def test_a_recursion_error_in_the_kernels_gives_every_level_back(chains: dict[str, Any]) -> None:
    # Py_EnterRecursiveCall fails with 1, not -1, and gives its level back itself: a kernel
    # that took the failure for success and left the level again leaked recursion budget,
    # after which deep comparisons elsewhere ran unbounded.
    before = _python_depth()
    for _ in range(3):
        for fmt in FORMATS:
            with pytest.raises(EncodeError):
                kcodec.dump(chains["list"], fmt)  # type: ignore[arg-type]
    assert abs(_python_depth() - before) <= 2
