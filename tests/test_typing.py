"""Type checkers see the generated models' fields: mypy, run on user code the way a user
runs it (from another directory, against the installed package), flags wrong field types
and misspelled fields, and accepts correct code."""
from __future__ import annotations

import inspect
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

GOOD = '''
from kcodec.api.apps.v1 import Deployment, DeploymentSpec
from kcodec.api.core.v1 import Container, PodSpec, PodTemplateSpec
from kcodec.api.meta.v1 import ObjectMeta

d = Deployment(
    metadata=ObjectMeta(name="web", labels={"app": "web"}),
    spec=DeploymentSpec(
        replicas=3,
        template=PodTemplateSpec(spec=PodSpec(containers=[Container(name="c", image="nginx")])),
    ),
)
d.spec.replicas = 4
n: int | None = d.spec.replicas
'''

BAD = '''
from kcodec.api.apps.v1 import DeploymentSpec
from kcodec.api.core.v1 import Container

a = DeploymentSpec(replicas="three")
b = DeploymentSpec(replcas=3)
c = Container(name=1)
a.paused = "yes"
'''


@pytest.fixture(autouse=True)
def kcodec_mode() -> Iterator[str]:
    """Overrides conftest's two-mode fixture: type checking does not depend on the mode."""
    yield "none"


ROOT = Path(__file__).resolve().parents[1]


def _installed_elsewhere() -> bool:
    """Whether the kcodec a user would import is another checkout than this one (a git
    worktree of a developer, with the editable install pointing at the main checkout)."""
    out = subprocess.run([sys.executable, "-c", "import kcodec; print(kcodec.__file__)"],
                         cwd="/", capture_output=True, text=True,
                         env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    return out.returncode == 0 and Path(out.stdout.strip()).resolve().parents[1] != ROOT


def _mypy(tmp_path: Path, code: str) -> subprocess.CompletedProcess:
    pytest.importorskip("mypy", reason="mypy is a test dependency")
    src = tmp_path / "user_code.py"
    src.write_text(code)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if _installed_elsewhere():
        # check this checkout's code, not the one installed from another
        env["MYPYPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--follow-imports=silent",
         "--cache-dir", str(tmp_path / ".mypy_cache"), str(src)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
    )


def test_mypy_accepts_correct_models(tmp_path: Path) -> None:
    out = _mypy(tmp_path, GOOD)
    assert "Cannot find implementation or library stub" not in out.stdout, (
        "mypy cannot see the installed kcodec: install it with "
        "`pip install -e . --config-settings editable_mode=compat` (or a regular install)")
    assert out.returncode == 0, out.stdout


def test_mypy_flags_wrong_types_and_unknown_fields(tmp_path: Path) -> None:
    out = _mypy(tmp_path, BAD)
    lines = [l for l in out.stdout.splitlines() if ": error:" in l]
    assert any(':5: error: Argument "replicas" to "DeploymentSpec" has incompatible type "str"' in l for l in lines), out.stdout
    assert any(':6: error: Unexpected keyword argument "replcas"' in l for l in lines), out.stdout
    assert any(':7: error: Argument "name" to "Container" has incompatible type "int"' in l for l in lines), out.stdout
    assert any(":8: error: Incompatible types in assignment" in l for l in lines), out.stdout
    assert len(lines) == 4, out.stdout


def test_runtime_signature_lists_the_fields() -> None:
    from kcodec.api.apps.v1 import DeploymentSpec

    sig = inspect.signature(DeploymentSpec)
    assert list(sig.parameters)[:3] == ["replicas", "selector", "template"]
    assert sig.parameters["replicas"].default is None
    assert sig.parameters["min_ready_seconds"].default == 0


SETTERS = '''
import kcodec
from kcodec.api.apps.v1 import Deployment, RollingUpdateDeployment
from kcodec.api.core.v1 import EmptyDirVolumeSource, Pod, ResourceRequirements
from kcodec.runtime import Unstructured
from kcodec.types import IntOrString, Quantity

r = RollingUpdateDeployment(max_surge="25%", max_unavailable=1)
r.max_surge = 2
r.max_unavailable = IntOrString.from_string("10%")
surge: IntOrString | None = r.max_surge
res = ResourceRequirements(limits={"cpu": "500m", "memory": Quantity("1Gi")}, requests={"cpu": 1})
cpu: Quantity = (res.limits or {})["cpu"]
e = EmptyDirVolumeSource(size_limit="1Gi")
e.size_limit = None
size: Quantity | None = e.size_limit

d = kcodec.load(b"{}", kind=Deployment)
replicas: int | None = d.spec.replicas
pods: list[Pod] = kcodec.load_all(b"{}", kind=Pod)
u: Unstructured = kcodec.load(b"{}", kind=Unstructured)
anything = kcodec.load(b"{}")
anything.whatever = 1
'''

SETTERS_BAD = '''
import kcodec
from kcodec.api.apps.v1 import Deployment, RollingUpdateDeployment
from kcodec.api.core.v1 import EmptyDirVolumeSource, Pod

r = RollingUpdateDeployment(max_surge=2.5)
r.max_surge = [1]
e = EmptyDirVolumeSource(size_limit=1.5)
d = kcodec.load(b"{}", kind=Deployment)
d.spec.replcas = 3
p: Pod = kcodec.load(b"{}", kind=Deployment)
'''


def test_mypy_accepts_what_the_setters_accept(tmp_path: Path) -> None:
    out = _mypy(tmp_path, SETTERS)
    assert out.returncode == 0, out.stdout


def test_mypy_flags_wrong_values_misspelled_attributes_and_kinds(tmp_path: Path) -> None:
    out = _mypy(tmp_path, SETTERS_BAD)
    lines = [l for l in out.stdout.splitlines() if ": error:" in l]
    assert any(':6: error: Argument "max_surge" to "RollingUpdateDeployment" has incompatible type "float"' in l
               for l in lines), out.stdout
    assert any(":7: error: Incompatible types in assignment" in l for l in lines), out.stdout
    assert any(':8: error: Argument "size_limit" to "EmptyDirVolumeSource" has incompatible type "float"' in l
               for l in lines), out.stdout
    # the structs' checked __setattr__ is hidden from type checkers: a misspelling is an error
    assert any(':10: error: "DeploymentSpec" has no attribute "replcas"' in l for l in lines), out.stdout
    assert any(":11: error: Incompatible types in assignment" in l and '"Deployment"' in l for l in lines), out.stdout
    assert len(lines) == 5, out.stdout


def test_the_settable_annotations_are_the_plain_ones_at_run_time() -> None:
    import typing

    from kcodec import types

    assert types.IntOrStringField is types.IntOrString
    assert types.OptionalQuantity == typing.Optional[types.Quantity]
    assert types.ResourceList == typing.Optional[dict[str, types.Quantity]]
    from kcodec.api.apps.v1 import RollingUpdateDeployment

    r = RollingUpdateDeployment(max_surge="25%")
    assert r.max_surge == types.IntOrString.from_string("25%")
    with pytest.raises(TypeError, match="RollingUpdateDeployment.max_surge"):
        RollingUpdateDeployment(max_surge=2.5)  # type: ignore[arg-type]


def test_quantity_of_a_number_says_it_wants_a_string() -> None:
    from kcodec.types import Quantity

    with pytest.raises(TypeError, match=r"Quantity\(\) takes a string such as '500m' or '1Gi', got int 5: "
                                        r"write Quantity\('5'\), or new_quantity\(5, DecimalSI\)"):
        Quantity(5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="got float 0.5"):
        Quantity(0.5)  # type: ignore[arg-type]
    assert str(Quantity("5")) == "5"


def test_load_of_a_kind_checks_it_at_run_time() -> None:
    import kcodec
    from kcodec.api.apps.v1 import Deployment
    from kcodec.api.core.v1 import Pod
    from kcodec.errors import DecodeError

    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}
    assert kcodec.load(pod, kind=Pod).metadata.name == "p"
    with pytest.raises(DecodeError, match=r"<dict>: expected a kcodec.api.apps.v1.Deployment, got Pod \(v1, Kind=Pod\)"):
        kcodec.load(pod, kind=Deployment)
    with pytest.raises(DecodeError, match="<bytes>: document 1: expected a kcodec.api.core.v1.Pod"):
        kcodec.load_all(kcodec.dump_all([kcodec.load(pod), Deployment()]), kind=Pod)
