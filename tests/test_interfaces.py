"""Every serializer, codec, framer, typer and versioner keeps its contract in
kcodec.runtime.interfaces (Go's runtime/interfaces.go), and every store, backend, value
transformer and key service its contract in kcodec.storage.interfaces (apiserver's
storage.Interface, value.Transformer and the KMS services).

``isinstance`` against a ``runtime_checkable`` Protocol only sees that the methods exist;
each method is also called through ``inspect.signature(...).bind`` with the arguments the
Protocol declares, so a method that cannot be called the way the contract says fails here.
"""
from __future__ import annotations

import inspect
import io
from typing import Any, Callable

import pytest

from kcodec import runtime
from kcodec.runtime import interfaces
from kcodec.storage import interfaces as storage_interfaces
from kcodec.schema import GroupVersion, GroupVersions

APPS_V1 = GroupVersion("apps", "v1")


def _api() -> Any:
    import kcodec.api as api

    return api


def _json(**options: Any) -> Any:
    from kcodec.serializer import json

    s = _api().scheme
    return json.Serializer(s, s, **options)


_TMP: list[Any] = []


def _tmp_db() -> str:
    """A database path in a directory removed when the test process ends."""
    import tempfile

    if not _TMP:
        _TMP.append(tempfile.TemporaryDirectory())
    _TMP.append(None)
    return f"{_TMP[0].name}/db{len(_TMP)}.sqlite"


def _sqlite_kv() -> Any:
    from kcodec.storage.sqlite import SQLiteKV

    return SQLiteKV(_tmp_db())


def _sqlite_store() -> Any:
    from kcodec.storage.sqlite import SQLiteStore

    return SQLiteStore(_tmp_db(), _api().codecs.legacy_codec(GroupVersion("", "v1")))


def _protobuf(raw: bool = False) -> Any:
    from kcodec.serializer import protobuf

    s = _api().scheme
    return (protobuf.RawSerializer if raw else protobuf.Serializer)(s, s)


def _framers() -> dict[str, Any]:
    from kcodec.serializer import framing

    return {"json": framing.JSON_FRAMER, "yaml": framing.YAML_FRAMER,
            "length-delimited": framing.LENGTH_DELIMITED_FRAMER, "default": runtime.DEFAULT_FRAMER}


#: (id, Protocol, factory of the implementation)
CASES: list[tuple[str, Any, Callable[[], Any]]] = [
    ("json.Serializer", interfaces.Serializer, lambda: _json()),
    ("json.Serializer yaml", interfaces.Serializer, lambda: _json(yaml=True)),
    ("json.Serializer pretty strict", interfaces.Serializer, lambda: _json(pretty=True, strict=True)),
    ("protobuf.Serializer", interfaces.Serializer, lambda: _protobuf()),
    ("protobuf.RawSerializer", interfaces.Serializer, lambda: _protobuf(raw=True)),
    ("json.Serializer recognizer", interfaces.RecognizingDecoder, lambda: _json()),
    ("protobuf.Serializer recognizer", interfaces.RecognizingDecoder, lambda: _protobuf()),
    ("SimpleMetaFactory", interfaces.MetaFactory,
     lambda: __import__("kcodec.serializer.meta", fromlist=["x"]).SimpleMetaFactory()),
    ("Base64Serializer", interfaces.Serializer, lambda: runtime.Base64Serializer(_json(), _json())),
    ("legacy_codec", interfaces.Codec, lambda: _api().codecs.legacy_codec(APPS_V1)),
    ("codec_for_versions", interfaces.Codec,
     lambda: _api().codecs.codec_for_versions(_json(), _json(), APPS_V1, APPS_V1)),
    ("universal_deserializer", interfaces.Decoder, lambda: _api().codecs.universal_deserializer()),
    ("universal_decoder", interfaces.Decoder, lambda: _api().codecs.universal_decoder(APPS_V1)),
    ("encoder_for_version", interfaces.Encoder,
     lambda: _api().codecs.encoder_for_version(_json(), APPS_V1)),
    ("decoder_to_version", interfaces.Decoder,
     lambda: _api().codecs.decoder_to_version(_json(), APPS_V1)),
    ("without_conversion", interfaces.NegotiatedSerializer, lambda: _api().codecs.without_conversion()),
    ("RecognizerDecoder", interfaces.Decoder,
     lambda: __import__("kcodec.serializer.recognizer", fromlist=["x"]).RecognizerDecoder(_json(), _protobuf())),
    ("NoopEncoder", interfaces.Codec, lambda: runtime.NoopEncoder(_json())),
    ("NoopDecoder", interfaces.Codec, lambda: runtime.NoopDecoder(_json())),
    ("WithVersionEncoder", interfaces.Encoder,
     lambda: runtime.WithVersionEncoder(APPS_V1, _json(), _api().scheme)),
    ("WithoutVersionDecoder", interfaces.Decoder, lambda: runtime.WithoutVersionDecoder(_json())),
    ("ParameterCodec", interfaces.ParameterCodec, lambda: runtime.ParameterCodec(_api().scheme)),
    ("CodecFactory", interfaces.NegotiatedSerializer, lambda: _api().codecs),
    ("CodecFactory storage", interfaces.StorageSerializer, lambda: _api().codecs),
    ("ClientNegotiator", interfaces.ClientNegotiator,
     lambda: __import__("kcodec.serializer.factory", fromlist=["x"]).ClientNegotiator(_api().codecs, APPS_V1)),
    ("SerializerInfo", interfaces.SerializerInfo, lambda: _api().codecs.supported_media_types()[0]),
    ("StreamSerializerInfo", interfaces.StreamSerializerInfo,
     lambda: _api().codecs.supported_media_types()[0].stream_serializer),
    ("Scheme typer", interfaces.ObjectTyper, lambda: runtime.Scheme("t")),
    ("Scheme creater", interfaces.ObjectCreater, lambda: runtime.Scheme("t")),
    ("Scheme convertor", interfaces.ObjectConvertor, lambda: runtime.Scheme("t")),
    ("Scheme versioner", interfaces.ObjectVersioner, lambda: runtime.Scheme("t")),
    ("Scheme defaulter", interfaces.ObjectDefaulter, lambda: runtime.Scheme("t")),
    ("api.scheme typer", interfaces.ObjectTyper, lambda: _api().scheme),
    ("api.scheme creater", interfaces.ObjectCreater, lambda: _api().scheme),
    ("MultiObjectTyper", interfaces.ObjectTyper, lambda: runtime.MultiObjectTyper([_api().scheme])),
    ("GroupVersion", interfaces.GroupVersioner, lambda: APPS_V1),
    ("GroupVersions", interfaces.GroupVersioner, lambda: GroupVersions([APPS_V1])),
    ("INTERNAL_GROUP_VERSIONER", interfaces.GroupVersioner, lambda: runtime.INTERNAL_GROUP_VERSIONER),
    ("DISABLED_GROUP_VERSIONER", interfaces.GroupVersioner, lambda: runtime.DISABLED_GROUP_VERSIONER),
    ("MultiGroupVersioner", interfaces.GroupVersioner, lambda: runtime.MultiGroupVersioner(APPS_V1)),
    ("Unstructured", interfaces.Unstructured, lambda: runtime.Unstructured({})),
    ("UnstructuredList", interfaces.Unstructured, lambda: runtime.UnstructuredList({})),
    ("IdentityTransformer", storage_interfaces.Transformer,
     lambda: __import__("kcodec.storage.value", fromlist=["x"]).IdentityTransformer()),
    ("AESGCMTransformer", storage_interfaces.Transformer,
     lambda: __import__("kcodec.storage.value.aes", fromlist=["x"]).AESGCMTransformer({"k1": b"0" * 32})),
    ("AESCBCTransformer", storage_interfaces.Transformer,
     lambda: __import__("kcodec.storage.value.aes", fromlist=["x"]).AESCBCTransformer({"k1": b"0" * 32})),
    ("SecretboxTransformer", storage_interfaces.Transformer,
     lambda: __import__("kcodec.storage.value.secretbox", fromlist=["x"]).SecretboxTransformer({"k1": b"0" * 32})),
    ("KMSv2Transformer", storage_interfaces.Transformer,
     lambda: (lambda kms: kms.KMSv2Transformer("p", kms.LocalKMS()))(
         __import__("kcodec.storage.value.kms", fromlist=["x"]))),
    ("LocalKMS", storage_interfaces.KMSService, lambda: __import__("kcodec.storage.value.kms", fromlist=["x"]).LocalKMS()),
    ("GRPCKMSService", storage_interfaces.KMSService,
     lambda: __import__("kcodec.storage.value.kms_grpc", fromlist=["x"]).GRPCKMSService("unix:///nonexistent.sock")),
    ("LocalKMSv1", storage_interfaces.KMSv1Service,
     lambda: __import__("kcodec.storage.value.kms", fromlist=["x"]).LocalKMSv1()),
    ("DefaultResourceEncodingConfig", storage_interfaces.ResourceEncodingConfig,
     lambda: __import__("kcodec.storage.factory", fromlist=["x"]).DefaultResourceEncodingConfig(_api().scheme)),
    ("SQLiteKV", storage_interfaces.KV, _sqlite_kv),
    ("SQLiteKV watch", storage_interfaces.RawWatch, lambda: _sqlite_kv().watch(b"/a", None, 0)),
    ("SQLiteStore", storage_interfaces.StorageInterface, _sqlite_store),
    ("SQLiteStore watch", interfaces.WatchInterface, lambda: _sqlite_store().watch("/a", resource_version="0")),
    ("typed object", interfaces.Object, lambda: __import__("kcodec.api.apps.v1", fromlist=["x"]).Deployment()),
]
for _name in ("json", "yaml", "length-delimited", "default"):
    CASES += [
        (f"{_name} framer", interfaces.Framer, lambda n=_name: _framers()[n]),
        (f"{_name} frame reader", interfaces.FrameReader,
         lambda n=_name: _framers()[n].new_frame_reader(io.BytesIO(b""))),
        (f"{_name} frame writer", interfaces.FrameWriter,
         lambda n=_name: _framers()[n].new_frame_writer(io.BytesIO())),
    ]


def _protocol_methods(protocol: Any) -> dict[str, inspect.Signature]:
    methods = {}
    for klass in reversed(protocol.__mro__):
        if klass in (object, getattr(__import__("typing"), "Protocol"), getattr(__import__("typing"), "Generic")):
            continue
        for name, value in vars(klass).items():
            if callable(value) and not name.startswith("_"):
                methods[name] = inspect.signature(value)
    return methods


def _arguments(sig: inspect.Signature) -> tuple[list[Any], dict[str, Any]]:
    """Placeholder arguments for every parameter a Protocol method declares (self dropped)."""
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for param in list(sig.parameters.values())[1:]:
        if param.kind in (param.POSITIONAL_ONLY, param.POSITIONAL_OR_KEYWORD):
            args.append(object())
        elif param.kind == param.KEYWORD_ONLY:
            kwargs[param.name] = object()
    return args, kwargs


@pytest.mark.parametrize("protocol, make", [(p, m) for _, p, m in CASES], ids=[c[0] for c in CASES])
def test_keeps_its_protocol(protocol: Any, make: Callable[[], Any]) -> None:
    impl = make()
    assert isinstance(impl, protocol), f"{impl!r} lacks a method of {protocol.__name__}"
    for name, sig in _protocol_methods(protocol).items():
        method = getattr(impl, name)
        if not callable(method):
            continue  # a data member the Protocol declares as a property
        args, kwargs = _arguments(sig)
        try:
            inspect.signature(method).bind(*args, **kwargs)
        except TypeError as exc:
            pytest.fail(f"{type(impl).__name__}.{name}{inspect.signature(method)} cannot be called as "
                        f"{protocol.__name__}.{name}{sig}: {exc}")


def test_interfaces_is_the_only_home_of_protocols() -> None:
    """No kcodec module but a layer's interfaces.py (runtime, storage, server) defines a
    typing.Protocol."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "kcodec"
    others = []
    for path in root.rglob("*.py"):
        if path.name == "interfaces.py" and path.parent.name in ("runtime", "storage", "server"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and any(
                (isinstance(b, ast.Name) and b.id == "Protocol")
                or (isinstance(b, ast.Attribute) and b.attr == "Protocol") for b in node.bases
            ):
                others.append(f"{path.relative_to(root.parent)}:{node.name}")
    assert not others, others


def test_storage_contracts_live_in_the_storage_layer() -> None:
    """The runtime layer's contracts name nothing of kcodec.storage (Go keeps
    storage.Interface in k8s.io/apiserver, above apimachinery's runtime)."""
    names = set(storage_interfaces.__all__)
    assert {"Transformer", "StorageInterface", "ResourceEncodingConfig", "KV", "RawWatch",
            "KMSService", "KMSv1Service"} <= names
    assert not names & set(interfaces.__all__)
    assert "WatchInterface" in interfaces.__all__  # apimachinery's watch.Interface
    source = inspect.getsource(interfaces)
    assert "kcodec.storage" not in source.replace("kcodec.storage.interfaces", "")
