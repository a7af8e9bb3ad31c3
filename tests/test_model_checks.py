"""Checked models: constructors and assignment refuse values of the wrong Python type with
a TypeError naming the field, convert the text forms Go's types have, and encoders name
the field of anything they cannot write (EncodeError), in both modes."""
from __future__ import annotations

import copy
import pickle
from datetime import datetime, timedelta, timezone

import pytest

import kcodec
from kcodec.api.apps.v1 import Deployment, DeploymentSpec
from kcodec.api.core.v1 import Container, ContainerPort, Pod, PodSpec, ResourceRequirements, ServicePort
from kcodec.api.meta.v1 import Duration, ObjectMeta, Time
from kcodec.errors import EncodeError
from kcodec.types import IntOrString, Quantity


@pytest.mark.parametrize("build, message", [
    (lambda: DeploymentSpec(replicas="three"),
     "DeploymentSpec.replicas: expected int32 (int) or None, got str 'three'"),
    (lambda: DeploymentSpec(paused=1), "DeploymentSpec.paused: expected bool, got int 1"),
    (lambda: Container(name=None), "Container.name: expected string (str), got NoneType None"),
    (lambda: Container(ports=[{"containerPort": 80}]),
     "Container.ports[0]: expected ContainerPort, got dict (build it with ContainerPort(...) or ContainerPort.from_dict(...))"),
    (lambda: Container(args=["a", 2]), "Container.args[1]: expected string (str), got int 2"),
    (lambda: ObjectMeta(labels={"a": 1}), "ObjectMeta.labels['a']: expected string (str), got int 1"),
    (lambda: ObjectMeta(labels={1: "a"}), "ObjectMeta.labels: map keys must be str, got int 1"),
    (lambda: Deployment(spec="x"), "Deployment.spec: expected DeploymentSpec, got str 'x'"),
    (lambda: ResourceRequirements(limits={"cpu": 0.5}), "ResourceRequirements.limits['cpu']: expected Quantity, got float 0.5"),
])
def test_constructor_refuses_wrong_types(build, message: str) -> None:
    with pytest.raises(TypeError) as info:
        build()
    assert str(info.value) == message


def test_ranges_and_bad_text_are_value_errors() -> None:
    with pytest.raises(ValueError, match=r"DeploymentSpec.replicas: 2147483648 is out of range for int32"):
        DeploymentSpec(replicas=2**31)
    with pytest.raises(ValueError, match=r"ResourceRequirements.limits\['cpu'\]: quantities must match"):
        ResourceRequirements(limits={"cpu": "lots"})
    with pytest.raises(ValueError, match=r"ObjectMeta.creation_timestamp: "):
        ObjectMeta(creation_timestamp="yesterday")


def test_text_forms_are_converted() -> None:
    r = ResourceRequirements(limits={"cpu": "500m", "memory": 1024})
    assert r.limits == {"cpu": Quantity("500m"), "memory": Quantity("1024")}
    assert ServicePort(target_port="http").target_port == IntOrString.from_string("http")
    assert ServicePort(target_port=8080).target_port == IntOrString.from_int(8080)
    when = datetime(2024, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
    assert ObjectMeta(creation_timestamp="2024-01-02T03:04:05Z").creation_timestamp == Time(when)
    assert ObjectMeta(creation_timestamp=when).creation_timestamp == Time(when)
    from kcodec.api.meta.v1 import Duration as D

    assert D._coerce("1m30s") == Duration(90 * 10**9) == D._coerce(timedelta(seconds=90))


def test_assignment_is_checked_and_lists_are_kept() -> None:
    d = Deployment()
    with pytest.raises(TypeError, match="DeploymentSpec.replicas: expected int32"):
        d.spec.replicas = "four"
    d.spec.replicas = 4
    containers = [Container(name="a")]
    spec = PodSpec(containers=containers)
    assert spec.containers is containers  # validated, not copied
    with pytest.raises(AttributeError):
        d.not_a_field = 1  # type: ignore[attr-defined]


def test_copies_and_pickles_keep_working() -> None:
    p = Pod(metadata=ObjectMeta(name="p"), spec=PodSpec(containers=[Container(name="c")]))
    assert copy.deepcopy(p) == p and copy.copy(p) == p
    assert pickle.loads(pickle.dumps(p)) == p


@pytest.mark.parametrize("fmt", ["json", "yaml", "protobuf"])
def test_encoders_name_the_field_they_cannot_write(fmt: str) -> None:
    p = Pod(spec=PodSpec(containers=[Container(name="a")]))
    p.spec.containers.append("x")  # type: ignore[arg-type]  # a list mutated in place is not checked
    with pytest.raises(EncodeError) as info:
        kcodec.dump(p, fmt)
    assert info.value.field_path == "spec.containers[1]"
    assert str(info.value) == "cannot encode v1.Pod: spec.containers[1]: expected Container, got str 'x'"
    q = Pod(spec=PodSpec(containers=[Container(name="a", resources=ResourceRequirements(limits={}))]))
    q.spec.containers[0].resources.limits["cpu"] = "500m"  # type: ignore[assignment]
    with pytest.raises(EncodeError) as info:
        kcodec.dump(q, fmt)
    assert info.value.field_path == "spec.containers[0].resources.limits[cpu]"


def test_protobuf_names_a_wrong_scalar() -> None:
    p = Pod(spec=PodSpec(containers=[Container(name="a", ports=[ContainerPort(container_port=80)])]))
    object.__setattr__(p.spec.containers[0].ports[0], "container_port", "80")
    with pytest.raises(EncodeError) as info:
        kcodec.dump(p, "protobuf")
    assert info.value.field_path == "spec.containers[0].ports[0].containerPort"


class _Text(str):
    pass


def test_values_of_the_exact_type_are_kept_and_others_still_checked() -> None:
    """Constructors and assignment keep values of exactly the field's type as given (no
    copy, no conversion), and send everything else through the full check: subclasses
    are kept, ints become floats, a wrong element is named by its index or key."""
    labels = {"a": "b"}
    ports = [ContainerPort(container_port=80), ContainerPort(container_port=81)]
    meta = ObjectMeta(name="n", labels=labels)
    assert meta.labels is labels
    c = Container(name="c", ports=ports)
    assert c.ports is ports
    c.name = _Text("t")
    assert type(c.name) is _Text
    c.ports = (ContainerPort(),)
    assert type(c.ports) is list
    with pytest.raises(TypeError, match=r"^Container\.ports\[1\]: expected ContainerPort, got dict"):
        Container(ports=[ContainerPort(), {"containerPort": 80}])
    with pytest.raises(TypeError, match=r"^ObjectMeta\.labels\['x'\]: expected string \(str\), got int 1"):
        meta.labels = {"a": "b", "x": 1}
    with pytest.raises(TypeError, match=r"^ObjectMeta\.labels: map keys must be str, got int 1"):
        ObjectMeta(labels={1: "b"})
    with pytest.raises(TypeError, match=r"^ObjectMeta\.name: expected string \(str\), got int 5"):
        meta.name = 5
    spec = ServicePort(port=80)
    with pytest.raises(ValueError, match=r"^ServicePort\.port: 4294967296 is out of range for int32"):
        spec.port = 2**32
