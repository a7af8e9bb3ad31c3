"""Conversion through the internal version: external -> ``__internal`` -> external.

Two subjects:

* ``legacyscheme``: the fixture Pod converted with ``kcodec.legacyscheme.scheme`` (the
  kube-apiserver style scheme with internal types); skipped while that module is absent.
* ``widgets``: a small pair of versioned test types defined here (``WidgetV1`` external,
  ``Widget`` internal) whose shapes differ (pointer vs value replicas, env map vs sorted
  list, a nested spec flattened) so every conversion function does real work, registered
  with ``Scheme.add_conversion_func``; the object has ``WIDGET_CONTAINERS`` containers.
"""
from __future__ import annotations

from typing import Any

# _docs first: it puts this checkout on sys.path before kcodec is imported.
from . import _docs
from ._docs import MODES, build_documents

from kcodec.api.meta.v1 import ObjectMeta
from kcodec.model import Int32, Struct, field
from kcodec.runtime import APIVersionInternal, Object, Scheme
from kcodec.schema import GroupVersion

WIDGET_CONTAINERS = 50


class WidgetPortV1(Struct):
    """External port."""

    name: str = field(1, "name", omitempty=True)
    container_port: Int32 = field(2, "containerPort")
    protocol: str = field(3, "protocol", omitempty=True)


class WidgetContainerV1(Struct):
    """External container: env as a map."""

    name: str = field(1, "name")
    image: str = field(2, "image", omitempty=True)
    args: list[str] | None = field(3, "args", omitempty=True)
    env: dict[str, str] | None = field(4, "env", omitempty=True)
    ports: list[WidgetPortV1] | None = field(5, "ports", omitempty=True)


class WidgetSpecV1(Struct):
    """External spec: replicas is a pointer."""

    replicas: Int32 | None = field(1, "replicas", omitempty=True)
    paused: bool = field(2, "paused", omitempty=True)
    containers: list[WidgetContainerV1] | None = field(3, "containers")


class WidgetV1(Object):
    """External kind ``bench.kcodec.io/v1, Kind=Widget``."""

    metadata: ObjectMeta = field(1, "metadata", omitempty=True)
    spec: WidgetSpecV1 = field(2, "spec", omitempty=True)


class WidgetEnv(Struct):
    """Internal env var."""

    name: str = field(0, "name")
    value: str = field(0, "value")


class WidgetPort(Struct):
    """Internal port: protocol defaulted."""

    name: str = field(0, "name")
    container_port: int = field(0, "containerPort")
    protocol: str = field(0, "protocol")


class WidgetContainer(Struct):
    """Internal container: env as a list sorted by name."""

    name: str = field(0, "name")
    image: str = field(0, "image")
    args: list[str] | None = field(0, "args")
    env: list[WidgetEnv] | None = field(0, "env")
    ports: list[WidgetPort] | None = field(0, "ports")


class Widget(Object):
    """Internal kind: spec flattened, replicas a value."""

    metadata: ObjectMeta = field(0, "metadata")
    replicas: int = field(0, "replicas")
    paused: bool = field(0, "paused")
    containers: list[WidgetContainer] | None = field(0, "containers")


def port_to_internal(src: WidgetPortV1, dst: WidgetPort, scope: Any) -> None:
    """Port v1 -> internal; an empty protocol becomes TCP."""
    dst.name = src.name
    dst.container_port = int(src.container_port)
    dst.protocol = src.protocol or "TCP"


def port_to_external(src: WidgetPort, dst: WidgetPortV1, scope: Any) -> None:
    """Port internal -> v1."""
    dst.name = src.name
    dst.container_port = src.container_port
    dst.protocol = src.protocol


def container_to_internal(src: WidgetContainerV1, dst: WidgetContainer, scope: Any) -> None:
    """Container v1 -> internal; env map -> list sorted by name."""
    dst.name = src.name
    dst.image = src.image
    dst.args = None if src.args is None else list(src.args)
    dst.env = None if src.env is None else [WidgetEnv(name=k, value=v) for k, v in sorted(src.env.items())]
    if src.ports is None:
        dst.ports = None
    else:
        dst.ports = []
        for p in src.ports:
            out = WidgetPort()
            scope.convert(p, out)
            dst.ports.append(out)


def container_to_external(src: WidgetContainer, dst: WidgetContainerV1, scope: Any) -> None:
    """Container internal -> v1; env list -> map."""
    dst.name = src.name
    dst.image = src.image
    dst.args = None if src.args is None else list(src.args)
    dst.env = None if src.env is None else {e.name: e.value for e in src.env}
    if src.ports is None:
        dst.ports = None
    else:
        dst.ports = []
        for p in src.ports:
            out = WidgetPortV1()
            scope.convert(p, out)
            dst.ports.append(out)


def widget_to_internal(src: WidgetV1, dst: Widget, scope: Any) -> None:
    """Widget v1 -> internal; spec flattened, nil replicas -> 1."""
    dst.metadata = src.metadata
    spec = src.spec
    dst.replicas = 1 if spec.replicas is None else int(spec.replicas)
    dst.paused = spec.paused
    if spec.containers is None:
        dst.containers = None
    else:
        dst.containers = []
        for c in spec.containers:
            out = WidgetContainer()
            scope.convert(c, out)
            dst.containers.append(out)


def widget_to_external(src: Widget, dst: WidgetV1, scope: Any) -> None:
    """Widget internal -> v1."""
    dst.metadata = src.metadata
    spec = WidgetSpecV1()
    spec.replicas = src.replicas
    spec.paused = src.paused
    if src.containers is None:
        spec.containers = None
    else:
        spec.containers = []
        for c in src.containers:
            out = WidgetContainerV1()
            scope.convert(c, out)
            spec.containers.append(out)
    dst.spec = spec


def build_widget_scheme() -> tuple[Scheme, GroupVersion, GroupVersion]:
    """A Scheme with the widget types and their conversion functions registered.

    Returns ``(scheme, external_gv, internal_gv)``.
    """
    external_gv = GroupVersion("bench.kcodec.io", "v1")
    internal_gv = GroupVersion("bench.kcodec.io", APIVersionInternal)
    scheme = Scheme("widget-bench")
    scheme.add_known_type_with_name(external_gv.with_kind("Widget"), WidgetV1)
    scheme.add_known_type_with_name(internal_gv.with_kind("Widget"), Widget)
    scheme.add_conversion_func(WidgetPortV1, WidgetPort, port_to_internal)
    scheme.add_conversion_func(WidgetPort, WidgetPortV1, port_to_external)
    scheme.add_conversion_func(WidgetContainerV1, WidgetContainer, container_to_internal)
    scheme.add_conversion_func(WidgetContainer, WidgetContainerV1, container_to_external)
    scheme.add_conversion_func(WidgetV1, Widget, widget_to_internal)
    scheme.add_conversion_func(Widget, WidgetV1, widget_to_external)
    return scheme, external_gv, internal_gv


def make_widget(containers: int = WIDGET_CONTAINERS) -> WidgetV1:
    """An external Widget with ``containers`` containers, built through ``from_dict``."""
    doc = {
        "apiVersion": "bench.kcodec.io/v1",
        "kind": "Widget",
        "metadata": {"name": "widget", "namespace": "default", "labels": {"app": "bench", "tier": "web"}},
        "spec": {
            "replicas": 3,
            "containers": [
                {
                    "name": f"c{i}",
                    "image": f"registry.example/app:{i}",
                    "args": ["--port", str(8000 + i), "--verbose"],
                    "env": {"B_VAR": "b", "A_VAR": "a", "C_VAR": str(i)},
                    "ports": [{"name": "http", "containerPort": 8000 + i}, {"containerPort": 9000 + i, "protocol": "UDP"}],
                }
                for i in range(containers)
            ],
        },
    }
    return WidgetV1.from_dict(doc)


def _legacyscheme() -> Any:
    try:
        from kcodec import legacyscheme
    except ImportError:
        raise NotImplementedError("kcodec.legacyscheme is absent") from None
    return legacyscheme


class ConvertInternal:
    """``convert_to_version`` to the internal version and back to the external one."""

    params = [MODES, ["widgets", "legacyscheme"]]
    param_names = ["mode", "subject"]
    setup_cache = staticmethod(build_documents)

    def setup(self, docs: dict[str, Any], mode: str, subject: str) -> None:
        _docs.use_mode(mode)
        if subject == "widgets":
            self.scheme, self.external_gv, self.internal_gv = build_widget_scheme()
            self.obj = make_widget()
        else:
            _docs.require_kcodec()
            self.scheme = _legacyscheme().scheme
            self.external_gv = GroupVersion("", "v1")
            self.internal_gv = GroupVersion("", APIVersionInternal)
            self.obj, _ = _docs.json_serializer().decode(docs["pod_json"])
        self.internal = self.scheme.convert_to_version(self.obj, self.internal_gv)

    def time_to_internal(self, docs: dict[str, Any], mode: str, subject: str) -> None:
        self.scheme.convert_to_version(self.obj, self.internal_gv)

    def time_to_external(self, docs: dict[str, Any], mode: str, subject: str) -> None:
        self.scheme.convert_to_version(self.internal, self.external_gv)

    def time_round_trip(self, docs: dict[str, Any], mode: str, subject: str) -> None:
        internal = self.scheme.convert_to_version(self.obj, self.internal_gv)
        self.scheme.convert_to_version(internal, self.external_gv)
