"""kcodec.printers: the tables kube-apiserver serves for ``kubectl get``.

Expected cells follow k8s.io/kubernetes pkg/printers/internalversion/printers.go (and its
printers_test.go cases); durations follow apimachinery pkg/util/duration/duration.go.
"""
from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

import kcodec
from kcodec import legacyscheme
from kcodec.api.meta.v1 import Time
from kcodec.errors import KCodecError
from kcodec.printers import GenerateOptions, TableConvertor, TableGenerator, default_table_generator
from kcodec.printers import internalversion
from kcodec.printers.duration import human_duration, short_human_duration

from conftest import fixtures_dir

S = 1_000_000_000
M = 60 * S
H = 60 * M


@pytest.mark.parametrize(("d", "want"), [
    (-2 * S, "<invalid>"), (-S, "0s"), (0, "0s"), (S, "1s"), (119 * S, "119s"), (2 * M, "2m"),
    (2 * M + S, "2m1s"), (9 * M + 59 * S, "9m59s"), (10 * M, "10m"), (179 * M, "179m"), (3 * H, "3h"),
    (3 * H + 5 * M, "3h5m"), (8 * H, "8h"), (47 * H, "47h"), (48 * H, "2d"), (48 * H + H, "2d1h"),
    (8 * 24 * H, "8d"), (2 * 365 * 24 * H, "2y"), (2 * 365 * 24 * H + 24 * H, "2y1d"), (8 * 365 * 24 * H, "8y"),
])
def test_human_duration(d: int, want: str) -> None:
    # apimachinery pkg/util/duration/duration_test.go TestHumanDuration
    assert human_duration(d) == want


@pytest.mark.parametrize(("d", "want"), [
    (-2 * S, "<invalid>"), (-S, "0s"), (59 * S, "59s"), (60 * S, "1m"), (59 * M, "59m"), (H, "1h"),
    (23 * H, "23h"), (24 * H, "1d"), (364 * 24 * H, "364d"), (365 * 24 * H, "1y"),
])
def test_short_human_duration(d: int, want: str) -> None:
    assert short_human_duration(d) == want


def _internal(name: str):
    path = fixtures_dir() / name
    return legacyscheme.to_internal(kcodec.load(path.read_bytes()), default=True)


def _handled_fixtures() -> list[str]:
    root = fixtures_dir()
    gen = default_table_generator()
    out = []
    for path in sorted(root.glob("*.json")):
        try:
            obj = legacyscheme.to_internal(kcodec.load(path.read_bytes()), default=True)
        except KCodecError:
            continue
        if gen.handles(obj):
            out.append(path.name)
    return out


def test_every_handled_fixture_prints_a_row_per_column() -> None:
    """Every Go-written fixture whose kind has a printer gives one row with one cell per column."""
    names = _handled_fixtures()
    kinds = {n.rsplit(".", 2)[-2] for n in names}
    # The kinds `kubectl get` users look at most are all there.
    assert {"Pod", "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob", "Service",
            "Ingress", "Node", "Namespace", "ConfigMap", "Secret", "ServiceAccount", "Event",
            "PersistentVolume", "PersistentVolumeClaim", "RoleBinding", "ClusterRoleBinding"} <= kinds
    gen = default_table_generator()
    for name in names:
        obj = _internal(name)
        table = gen.generate_table(obj, GenerateOptions(wide=True))
        assert len(table.rows) == 1, name
        # Go's printIPAddress adds an age cell its two column definitions do not name.
        extra = 1 if name.endswith(".IPAddress.json") else 0
        assert len(table.rows[0].cells) == len(table.column_definitions) + extra, name
        narrow = gen.generate_table(obj, GenerateOptions(wide=False))
        assert all(c.priority == 0 for c in narrow.column_definitions), name
        # The whole Table encodes as kube-apiserver would send it.
        kcodec.dump(_external_table(table), "json")


def _external_table(table):
    # Rows carry internal objects; the server replaces them (PartialObjectMetadata by default).
    for row in table.rows:
        row.object = type(row.object)()
    return table


def _pod(**status):
    from kcodec.api.core import internal as core

    pod = core.Pod()
    pod.metadata.name = "web"
    pod.metadata.creation_timestamp = Time(dt.datetime.now(dt.timezone.utc) - dt.timedelta(minutes=5))
    pod.spec.containers = [core.Container(name="a", image="nginx"), core.Container(name="b", image="redis")]
    for key, value in status.items():
        setattr(pod.status, key, value)
    return pod


def test_pod_row_like_go() -> None:
    from kcodec.api.core import internal as core

    running = core.ContainerStatus(name="a", ready=True, restart_count=3,
                                   state=core.ContainerState(running=core.ContainerStateRunning()))
    waiting = core.ContainerStatus(name="b", restart_count=0,
                                   state=core.ContainerState(waiting=core.ContainerStateWaiting(reason="CrashLoopBackOff")))
    pod = _pod(phase="Running", container_statuses=[running, waiting])
    (row,) = internalversion.print_pod(pod, GenerateOptions(wide=True))
    # printers_test.go TestPrintPod: the last container's waiting reason wins; restarts add up.
    assert row.cells[:4] == ["web", "1/2", "CrashLoopBackOff", "3"]
    assert row.cells[4] == "5m"
    assert row.cells[5:] == ["<none>", "<none>", "<none>", "<none>"]
    assert row.conditions is None


def test_pod_succeeded_row_condition_and_terminating() -> None:
    pod = _pod(phase="Succeeded")
    (row,) = internalversion.print_pod(pod, GenerateOptions())
    assert row.cells[2] == "Succeeded"
    assert [(c.type, c.status, c.reason) for c in row.conditions] == [("Completed", "True", "Succeeded")]
    pod = _pod(phase="Running")
    pod.metadata.deletion_timestamp = Time.now()
    assert internalversion.print_pod(pod, GenerateOptions())[0].cells[2] == "Terminating"
    pod.status.reason = "NodeLost"
    assert internalversion.print_pod(pod, GenerateOptions())[0].cells[2] == "Unknown"


def test_pod_init_container_states() -> None:
    from kcodec.api.core import internal as core

    pod = _pod(phase="Pending")
    pod.spec.init_containers = [core.Container(name="init", image="busybox")]
    pod.status.init_container_statuses = [core.ContainerStatus(
        name="init", state=core.ContainerState(terminated=core.ContainerStateTerminated(exit_code=2)))]
    assert internalversion.print_pod(pod, GenerateOptions())[0].cells[2] == "Init:ExitCode:2"
    pod.status.init_container_statuses = [core.ContainerStatus(
        name="init", state=core.ContainerState(waiting=core.ContainerStateWaiting(reason="ImagePullBackOff")))]
    assert internalversion.print_pod(pod, GenerateOptions())[0].cells[2] == "Init:ImagePullBackOff"
    pod.status.init_container_statuses = [core.ContainerStatus(name="init")]
    assert internalversion.print_pod(pod, GenerateOptions())[0].cells[2] == "Init:0/1"


def test_service_row_like_go() -> None:
    from kcodec.api.core import internal as core

    svc = core.Service()
    svc.metadata.name = "web"
    svc.spec.type = "NodePort"
    svc.spec.cluster_ips = ["10.0.0.12"]
    svc.spec.ports = [core.ServicePort(port=80, node_port=30080, protocol="TCP"),
                      core.ServicePort(port=53, protocol="UDP")]
    svc.spec.selector = {"b": "2", "a": "1"}
    (row,) = internalversion.print_service(svc, GenerateOptions(wide=True))
    assert row.cells[:5] == ["web", "NodePort", "10.0.0.12", "<none>", "80:30080/TCP,53/UDP"]
    assert row.cells[5] == "<unknown>"  # zero creationTimestamp
    assert row.cells[6] == "a=1,b=2"
    svc.spec.type = "LoadBalancer"
    assert internalversion.print_service(svc, GenerateOptions())[0].cells[3] == "<pending>"
    svc.status.load_balancer.ingress = [core.LoadBalancerIngress(hostname="a-very-long-hostname.example.com")]
    assert internalversion.print_service(svc, GenerateOptions())[0].cells[3] == "a-very-long-h..."


def test_deployment_and_job_rows() -> None:
    obj = _internal("apps.v1.Deployment.json")
    table = default_table_generator().generate_table(obj, GenerateOptions(wide=True))
    assert [c.name for c in table.column_definitions] == [
        "Name", "Ready", "Up-to-date", "Available", "Age", "Containers", "Images", "Selector"]
    row = table.rows[0].cells
    st = obj.status
    assert row[1] == f"{st.ready_replicas}/{obj.spec.replicas}"
    assert row[2:4] == [st.updated_replicas, st.available_replicas]
    job = _internal("batch.v1.Job.json")
    cells = default_table_generator().generate_table(job, GenerateOptions()).rows[0].cells
    assert cells[1] in ("Complete", "Failed", "Terminating", "Suspended", "FailureTarget", "Running")


def test_lists_print_one_row_per_item_and_keep_list_meta() -> None:
    from kcodec.api.core import internal as core

    lst = core.ConfigMapList(items=[core.ConfigMap(data={"a": "1"}, binary_data={"b": b"2"}), core.ConfigMap()])
    lst.items[0].metadata.name = "one"
    lst.items[1].metadata.name = "two"
    lst.metadata.resource_version = "42"
    lst.metadata.continue_ = "tok"
    table = TableConvertor(default_table_generator()).convert_to_table(None, lst)
    assert [r.cells[:2] for r in table.rows] == [["one", 2], ["two", 0]]
    assert (table.metadata.resource_version, table.metadata.continue_) == ("42", "tok")
    assert table.kind == "Table" and table.api_version == "meta.k8s.io/v1"
    headless = TableConvertor(default_table_generator()).convert_to_table(None, lst, no_headers=True)
    assert headless.column_definitions is None


def test_unregistered_type_and_duplicates_are_errors() -> None:
    from kcodec.api.rbac import internal as rbac

    with pytest.raises(KCodecError, match=r"no table handler registered for this type \*rbac\.Role"):
        default_table_generator().generate_table(rbac.Role())
    gen = TableGenerator()
    gen.table_handler(("core", "Pod"), [], internalversion.print_pod)
    with pytest.raises(KCodecError, match="registered duplicate printer for core.Pod"):
        gen.table_handler(("core", "Pod"), [], internalversion.print_pod)
    with pytest.raises(KCodecError, match="unrecognized type Pod for table options"):
        TableConvertor(gen).convert_to_table(None, _pod(), _pod())


def test_column_descriptions_are_go_swagger_docs() -> None:
    table = default_table_generator().generate_table(_pod(), GenerateOptions(wide=True))
    by_name = {c.name: c for c in table.column_definitions}
    assert by_name["Name"].format == "name"
    assert by_name["Name"].description.startswith("Name must be unique within a namespace.")
    assert by_name["IP"].description.startswith("podIP address allocated to the pod.")
    assert by_name["Restarts"].type == "string"


def test_generated_docs_are_current() -> None:
    """Every _doc reference has an entry in the generated table (rerun tools/gen_printer_docs.py)."""
    import re

    from kcodec.printers._docs import DOCS

    source = Path(internalversion.__file__).read_text()
    refs = set(re.findall(r'_doc\("([\w/]+\.\w+\.\w+)"\)', source))
    assert refs and refs == set(DOCS)
