"""What building models in Python costs, with the constructor's type checks and without.

Decoders never call constructors (they fill slots directly); this is the price user code
pays for ``TypeError``s that name the field. ``ModelConstruct.time_checked`` builds a
PodSpec of ``CONTAINERS`` containers (ports, env, resources, probes) through the
constructors; ``time_unchecked`` fills the same objects slot by slot, as a decoder does.
"""
from __future__ import annotations

from typing import Any

from . import _docs  # noqa: F401 - puts this checkout on sys.path before kcodec is imported
from ._docs import MODES, build_documents

from kcodec.api.core.v1 import (
    Container, ContainerPort, EnvVar, PodSpec, Probe, ProbeHandler, HTTPGetAction, ResourceRequirements,
)
from kcodec.types import IntOrString, Quantity

CONTAINERS = 50


def _checked() -> PodSpec:
    return PodSpec(containers=[
        Container(
            name=f"c{i}", image="nginx:1.27", args=["--port", "80"],
            ports=[ContainerPort(name="http", container_port=80, protocol="TCP")],
            env=[EnvVar(name="MODE", value="fast"), EnvVar(name="LEVEL", value="3")],
            resources=ResourceRequirements(limits={"cpu": Quantity("500m"), "memory": Quantity("1Gi")}),
            liveness_probe=Probe(probe_handler=ProbeHandler(http_get=HTTPGetAction(path="/", port=IntOrString(80))),
                                 period_seconds=10),
        )
        for i in range(CONTAINERS)
    ])


def _new(cls: type, **values: Any) -> Any:
    obj = cls._new_zero()
    for name, value in values.items():
        object.__setattr__(obj, name, value)
    return obj


def _unchecked() -> PodSpec:
    return _new(PodSpec, containers=[
        _new(
            Container, name=f"c{i}", image="nginx:1.27", args=["--port", "80"],
            ports=[_new(ContainerPort, name="http", container_port=80, protocol="TCP")],
            env=[_new(EnvVar, name="MODE", value="fast"), _new(EnvVar, name="LEVEL", value="3")],
            resources=_new(ResourceRequirements, limits={"cpu": Quantity("500m"), "memory": Quantity("1Gi")}),
            liveness_probe=_new(Probe, probe_handler=_new(ProbeHandler, http_get=_new(
                HTTPGetAction, path="/", port=IntOrString(80))), period_seconds=10),
        )
        for i in range(CONTAINERS)
    ])


class ModelConstruct:
    """Constructing a 50-container PodSpec in Python, checked and unchecked."""

    params = [MODES]
    param_names = ["mode"]
    setup_cache = staticmethod(build_documents)

    def setup(self, docs: dict[str, Any], mode: str) -> None:
        _docs.use_mode(mode)
        assert _checked() == _unchecked()

    def time_checked(self, docs: dict[str, Any], mode: str) -> None:
        _checked()

    def time_unchecked(self, docs: dict[str, Any], mode: str) -> None:
        _unchecked()
