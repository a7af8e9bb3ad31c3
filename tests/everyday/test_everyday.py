"""kcodec.load / load_all / dump / watch_events on the Go fixtures and crafted streams."""
from __future__ import annotations

import io
import struct
from pathlib import Path

import pytest

import kcodec
from kcodec.api import codecs
from kcodec.api.core.v1 import ConfigMap, Pod
from kcodec.api.meta.v1 import ObjectMeta, WatchEvent
from kcodec.errors import DecodeError, EncodeError, StrictDecodingError
from kcodec.runtime import RawExtension, Unstructured

from conftest import fixtures_dir


def _pod_files() -> dict[str, bytes]:
    d = fixtures_dir()
    files = {ext: (d / f"core.v1.Pod.{ext}").read_bytes() for ext in ("json", "yaml", "pb")}
    files["cbor"] = (d.parent / "cbor-go" / "core.v1.Pod.cbor").read_bytes()
    return files


@pytest.mark.parametrize("ext", ["json", "yaml", "pb", "cbor"])
def test_load_any_format_and_dump_gives_go_bytes(ext: str) -> None:
    files = _pod_files()
    pod = kcodec.load(files[ext])
    assert isinstance(pod, Pod)
    assert kcodec.dump(pod, "protobuf") == files["pb"]
    assert kcodec.dump(pod, "yaml") == files["yaml"]
    assert kcodec.dump(pod, "json-pretty") == files["json"]
    assert kcodec.dump(pod, "cbor") == files["cbor"]
    assert kcodec.dump(pod, "json").endswith(b"}\n")


def test_load_paths_and_text(tmp_path: Path) -> None:
    path = fixtures_dir() / "apps.v1.Deployment.yaml"
    by_path = kcodec.load(path)
    assert kcodec.load(str(path)) == by_path
    assert kcodec.load(path.read_text()) == by_path
    assert type(by_path).__name__ == "Deployment"


def test_load_every_head_fixture_equals_universal_deserializer() -> None:
    d = fixtures_dir()
    decoded = 0
    for f in sorted(d.glob("*.pb")):
        try:
            want, _ = codecs.universal_deserializer().decode(f.read_bytes())
        except Exception as err:  # a fixture Go writes without TypeMeta: same error
            with pytest.raises(type(err)):
                kcodec.load(f)
            continue
        assert kcodec.load(f) == want, f.name
        decoded += 1
    assert decoded > 150


def test_unknown_kind_is_unstructured() -> None:
    obj = kcodec.load(b"apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: 3\n")
    assert isinstance(obj, Unstructured)
    assert obj.get_name() == "w"
    assert obj.unstructured_content()["spec"] == {"size": 3}
    assert str(obj.get_object_kind().group_version_kind()) == "example.com/v1, Kind=Widget"


def test_load_refuses_several_documents_and_empty_input() -> None:
    with pytest.raises(DecodeError, match="holds 2 documents; kcodec.load reads one"):
        kcodec.load(b"kind: ConfigMap\napiVersion: v1\n---\nkind: ConfigMap\napiVersion: v1\n")
    with pytest.raises(DecodeError, match="no object to decode"):
        kcodec.load(b"# only a comment\n")


def test_load_strict_reports_unknown_fields() -> None:
    doc = b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"bogus":1}'
    assert kcodec.load(doc).metadata.name == "a"
    with pytest.raises(StrictDecodingError) as info:
        kcodec.load(doc, strict=True)
    assert info.value.errors == ['unknown field "bogus"']


def test_load_all_yaml_stream_skips_empty_documents_and_keeps_lists_whole() -> None:
    stream = (
        b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"
        b"---\n# nothing here\n---\n"
        b"apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n"
        b"---\napiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: b\n"
    )
    objs = kcodec.load_all(stream)
    assert [type(o).__name__ for o in objs] == ["ConfigMap", "Unstructured", "List"]
    assert objs[0].metadata.name == "a"


def test_load_all_json_object_stream() -> None:
    stream = b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}\n {"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"}}'
    objs = kcodec.load_all(stream)
    assert [(type(o).__name__, o.metadata.name) for o in objs] == [("ConfigMap", "a"), ("Secret", "s")]


def test_load_all_names_the_failing_document() -> None:
    stream = b"apiVersion: v1\nkind: ConfigMap\n---\napiVersion: v1\nkind: ConfigMap\ndata: [1]\n"
    with pytest.raises(DecodeError) as info:
        kcodec.load_all(stream)
    assert info.value.document == 1


def test_dump_fills_type_meta_without_changing_the_object() -> None:
    cm = ConfigMap(metadata=ObjectMeta(name="x"), data={"a": "b"})
    assert kcodec.dump(cm, "json") == b'{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"x"},"data":{"a":"b"}}\n'
    assert kcodec.dump(cm, "yaml") == b"apiVersion: v1\ndata:\n  a: b\nkind: ConfigMap\nmetadata:\n  name: x\n"
    assert cm.kind == "" and cm.api_version == ""
    assert kcodec.load(kcodec.dump(cm, "protobuf")).data == {"a": "b"}


def test_dump_rejects_unknown_format() -> None:
    with pytest.raises(ValueError, match="unknown format 'xml'"):
        kcodec.dump(ConfigMap(), "xml")  # type: ignore[arg-type]


def test_dump_unstructured() -> None:
    u = Unstructured({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}})
    assert kcodec.load(kcodec.dump(u, "json")) == u
    with pytest.raises(EncodeError):
        kcodec.dump(u, "protobuf")


def _watch_json(events: list[tuple[str, bytes]]) -> bytes:
    return b"".join(b'{"type":"%s","object":%s}\n' % (t, o) for t, o in events)


def test_watch_events_json() -> None:
    pod_json = _pod_files()["json"]
    body = _watch_json([
        (b"ADDED", pod_json),
        (b"MODIFIED", b'{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"}}'),
        (b"DELETED", b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}'),
    ])
    events = list(kcodec.watch_events(io.BytesIO(body)))
    assert [e.type for e in events] == ["ADDED", "MODIFIED", "DELETED"]
    kind, obj = events[0]
    assert kind == "ADDED" and obj == kcodec.load(pod_json)
    assert isinstance(events[1].object, Unstructured)
    assert events[2].object.metadata.name == "c"


def test_watch_events_json_stream_error_is_go_scanner_text() -> None:
    # The framer's error reaches the caller as Go's watch decoder returns it
    # (k8s.io/client-go/rest/watch/decoder.go: the streaming decoder's error, unwrapped).
    body = _watch_json([(b"ADDED", b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}')])
    events = kcodec.watch_events(io.BytesIO(body + b'{"type":"ADDED","object":tru]'))
    assert next(events).object.metadata.name == "c"
    with pytest.raises(DecodeError, match=r"^invalid character '\]' in literal true \(expecting 'e'\)$") as info:
        next(events)
    assert info.value.offset == len(body) + 29


def test_watch_events_protobuf() -> None:
    pod_pb = _pod_files()["pb"]
    info = next(i for i in codecs.supported_media_types()
                if i.media_type == "application/vnd.kubernetes.protobuf")
    raw = info.stream_serializer.serializer
    body = io.BytesIO()
    for t in ("ADDED", "MODIFIED"):
        frame = raw.encode(WatchEvent(type=t, object=RawExtension(raw=pod_pb)))
        body.write(struct.pack(">I", len(frame)) + frame)
    body.seek(0)
    events = list(kcodec.watch_events(body, "protobuf"))
    assert [e.type for e in events] == ["ADDED", "MODIFIED"]
    assert events[1].object == kcodec.load(pod_pb)
    assert not body.closed


def test_watch_events_bad_event_names_its_index() -> None:
    body = _watch_json([(b"ADDED", b'{"apiVersion":"v1","kind":"ConfigMap"}')]) + b'{"type":"ADDED","object":{}}\n'
    it = kcodec.watch_events(body)
    assert next(it).type == "ADDED"
    with pytest.raises(DecodeError) as info:
        next(it)
    assert info.value.event == 1


def test_watch_events_json_compact_form_and_its_look_alikes() -> None:
    """The API server's compact events are read from the object's own bytes; frames that
    only look like them (more members, a second object, null, spaces) give what the general
    path gives, errors included."""
    cm = b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":"v"}}'
    widget = b'{"apiVersion":"example.com/v1","kind":"Widget","spec":{"n":1.0}}'
    ok = [
        b'{"type":"ADDED","object":%s}\n' % cm,
        b'{"type":"MODIFIED","object":%s,"extra":1}\n' % cm,
        b'{"type":"DELETED","object":%s,"object":%s}\n' % (widget, cm),
        b'{ "type": "BOOKMARK", "object": %s }\n' % cm,
        b'{"type":"ADDED","object":%s}\n' % widget,
    ]
    events = list(kcodec.watch_events(b"".join(ok)))
    assert [e.type for e in events] == ["ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ADDED"]
    for e in events[:4]:
        assert e.object == kcodec.load(cm)
    # Go keeps the object's bytes: an untyped 1.0 stays a float
    assert events[4].object.unstructured_content()["spec"] == {"n": 1.0}
    with pytest.raises(DecodeError) as info:
        list(kcodec.watch_events(b'{"type":"ADDED","object":null}\n'))
    assert str(info.value) == "watch event has no object" and info.value.event == 0
