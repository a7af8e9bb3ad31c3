"""Conversion through the internal version: external -> ``__internal`` -> external.

Two subjects:

* ``legacyscheme``: the fixture Pod converted with ``kcodec.legacyscheme.scheme`` (the
  kube-apiserver style scheme with internal types); skipped while that module is absent.
* ``widgets``: a small pair of versioned test types defined here (``WidgetV1`` external,
  ``Widget`` internal) whose shapes differ (pointer vs value replicas, env map vs sorted
  list, a nested spec flattened), converted by conversion-gen style functions
  (``kcodec.conversion.generated_conversion`` with overrides for the differing fields, plus
  one manual wrapper); the object has ``WIDGET_CONTAINERS`` containers.
"""
from __future__ import annotations

from typing import Any

# _docs first: it puts this checkout on sys.path before kcodec is imported.
from . import _docs
from ._docs import MODES, build_documents

from kcodec.api.meta.v1 import ObjectMeta
from kcodec.conversion import generated_conversion
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


# Conversion functions in conversion-gen style: ``generated_conversion`` copies the fields
# both sides declare (sharing same-typed values, converting nested structs through their own
# registered functions); overrides cover only the fields whose shapes differ, and the manual
# functions wrap the generated ones as Go's Convert_A_To_B wraps autoConvert_A_To_B.


def protocol_to_internal(src: WidgetPortV1, dst: WidgetPort, scope: Any) -> None:
    """An empty protocol becomes TCP."""
    dst.protocol = src.protocol or "TCP"


def env_to_internal(src: WidgetContainerV1, dst: WidgetContainer, scope: Any) -> None:
    """Env map -> list sorted by name."""
    dst.env = None if src.env is None else [WidgetEnv(name=k, value=v) for k, v in sorted(src.env.items())]


def env_to_external(src: WidgetContainer, dst: WidgetContainerV1, scope: Any) -> None:
    """Env list -> map."""
    dst.env = None if src.env is None else {e.name: e.value for e in src.env}


def replicas_to_internal(src: WidgetSpecV1, dst: Widget, scope: Any) -> None:
    """A nil replicas pointer defaults to 1."""
    dst.replicas = 1 if src.replicas is None else int(src.replicas)


port_to_internal = generated_conversion(WidgetPortV1, WidgetPort, {"protocol": protocol_to_internal})
port_to_external = generated_conversion(WidgetPort, WidgetPortV1)
container_to_internal = generated_conversion(WidgetContainerV1, WidgetContainer, {"env": env_to_internal})
container_to_external = generated_conversion(WidgetContainer, WidgetContainerV1, {"env": env_to_external})
# The flattened spec: the external spec's fields land on the internal Widget itself.
spec_to_internal = generated_conversion(WidgetSpecV1, Widget, {"replicas": replicas_to_internal})
spec_from_internal = generated_conversion(Widget, WidgetSpecV1)
auto_widget_to_internal = generated_conversion(WidgetV1, Widget)


def widget_to_internal(src: WidgetV1, dst: Widget, scope: Any) -> None:
    """Widget v1 -> internal: the generated copy (metadata), then the flattened spec."""
    auto_widget_to_internal(src, dst, scope)
    spec_to_internal(src.spec, dst, scope)


def spec_to_external(src: Widget, dst: WidgetV1, scope: Any) -> None:
    """Internal Widget -> the external spec."""
    spec = WidgetSpecV1._new_zero()
    spec_from_internal(src, spec, scope)
    dst.spec = spec


widget_to_external = generated_conversion(Widget, WidgetV1, {"spec": spec_to_external})


def build_widget_scheme() -> tuple[Scheme, GroupVersion, GroupVersion]:
    """A Scheme with the widget types and their conversion functions registered.

    Returns ``(scheme, external_gv, internal_gv)``.
    """
    external_gv = GroupVersion("bench.kcodec.io", "v1")
    internal_gv = GroupVersion("bench.kcodec.io", APIVersionInternal)
    scheme = Scheme("widget-bench")
    scheme.add_known_type_with_name(external_gv.with_kind("Widget"), WidgetV1)
    scheme.add_known_type_with_name(internal_gv.with_kind("Widget"), Widget)
    scheme.add_generated_conversion_func(WidgetPortV1, WidgetPort, port_to_internal)
    scheme.add_generated_conversion_func(WidgetPort, WidgetPortV1, port_to_external)
    scheme.add_generated_conversion_func(WidgetContainerV1, WidgetContainer, container_to_internal)
    scheme.add_generated_conversion_func(WidgetContainer, WidgetContainerV1, container_to_external)
    scheme.add_conversion_func(WidgetV1, Widget, widget_to_internal)
    scheme.add_generated_conversion_func(Widget, WidgetV1, widget_to_external)
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
