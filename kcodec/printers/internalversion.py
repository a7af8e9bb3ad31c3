"""The tables of the built-in kinds, as k8s.io/kubernetes ``pkg/printers/internalversion/printers.go``
(``AddHandlers`` and the ``print<Kind>`` functions) builds them for kube-apiserver.

Every function takes the internal object the registry holds. Cells are what Go puts in
``TableRow.Cells``: ``str``, ``int`` (Go's int64) and ``bool``. Column descriptions are
the Go types' SwaggerDoc texts (:mod:`kcodec.printers._docs`, generated).
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from kcodec.api.meta.v1 import RawExtension, TableColumnDefinition, TableRow, TableRowCondition
from kcodec.printers.tablegenerator import GenerateOptions, TableGenerator
from kcodec.printers._docs import DOCS
from kcodec.printers.duration import human_duration

__all__ = ["add_handlers", "translate_timestamp_since", "format_labels", "format_label_selector",
           "layout_container_cells"]

_LOAD_BALANCER_WIDTH = 16
_LABEL_NODE_ROLE_PREFIX = "node-role.kubernetes.io/"
_NODE_LABEL_ROLE = "kubernetes.io/role"
_NODE_UNREACHABLE_POD_REASON = "NodeLost"  # k8s.io/kubernetes pkg/util/node


def _doc(ref: str) -> str:
    """SwaggerDoc of ``"<package>.<Type>.<field>"`` (``"meta/v1.ObjectMeta.name"``)."""
    return DOCS.get(ref, "")


def _col(name: str, type_: str, description: str, *, priority: int = 0, format_: str = "") -> TableColumnDefinition:
    return TableColumnDefinition(name=name, type=type_, format=format_, description=description, priority=priority)


def _name_col() -> TableColumnDefinition:
    return _col("Name", "string", _doc("meta/v1.ObjectMeta.name"), format_="name")


def _age_col() -> TableColumnDefinition:
    return _col("Age", "string", _doc("meta/v1.ObjectMeta.creationTimestamp"))


_CONTAINERS = "Names of each container in the template."
_IMAGES = "Images referenced by each container in the template."


def _wide_containers(selector_doc: str | None) -> list[TableColumnDefinition]:
    cols = [_col("Containers", "string", _CONTAINERS, priority=1), _col("Images", "string", _IMAGES, priority=1)]
    if selector_doc is not None:
        cols.append(_col("Selector", "string", _doc(selector_doc), priority=1))
    return cols


# ------------------------------------------------------------------ formatting helpers

def _now_ns() -> int:
    return time.time_ns()


def translate_timestamp_since(timestamp: Any) -> str:
    """Go's ``translateTimestampSince``: the age of a Time (or MicroTime), "<unknown>" when zero."""
    if timestamp is None or timestamp.is_zero():
        return "<unknown>"
    return human_duration(_now_ns() - timestamp.unix_nano())


def _items(value: Iterable[Any] | None) -> list[Any]:
    return list(value) if value else []


def format_labels(label_map: Mapping[str, str] | None) -> str:
    """Go's ``labels.FormatLabels``: sorted ``k=v`` pairs, "<none>" when empty."""
    text = ",".join(f"{k}={v}" for k, v in sorted((label_map or {}).items()))
    return text or "<none>"


def format_label_selector(selector: Any) -> str:
    """Go's ``metav1.FormatLabelSelector``: "<error>" for an invalid selector, "<none>" for an empty one."""
    from kcodec.labels import label_selector_as_selector
    from kcodec.errors import KCodecError

    try:
        text = str(label_selector_as_selector(selector))
    except KCodecError:
        return "<error>"
    return text or "<none>"


def layout_container_cells(containers: Iterable[Any] | None) -> tuple[str, str]:
    """Go's ``layoutContainerCells``: container names and images, comma separated."""
    items = _items(containers)
    return ",".join(c.name for c in items), ",".join(c.image for c in items)


def _template_containers(template: Any) -> list[Any]:
    return _items(template.spec.containers) if template is not None else []


def _list_with_more(values: list[str], more: bool, count: int, max_: int) -> str:
    text = ",".join(values)
    if more:
        return f"{text} + {count - max_} more..."
    return text or "<unset>"


def _join_host_port(host: str, port: int) -> str:
    # net.JoinHostPort brackets any host with a colon (IPv6).
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _row(obj: Any, *cells: Any) -> TableRow:
    return TableRow(cells=list(cells), object=RawExtension(object=obj))


def _meta(obj: Any) -> Any:
    return obj.metadata


def _bool_ptr(value: bool | None) -> str:
    if value is None:
        return "<unset>"
    return "True" if value else "False"


# ------------------------------------------------------------------ pods

_POD_SUCCESS = [TableRowCondition(type="Completed", status="True", reason="Succeeded",
                                  message="The pod has completed successfully.")]
_POD_FAILED = [TableRowCondition(type="Completed", status="True", reason="Failed", message="The pod failed.")]


def _restartable_init(container: Any) -> bool:
    # k8s.io/kubernetes pkg/api/pod IsRestartableInitContainer
    return container is not None and getattr(container, "restart_policy", None) == "Always"


def _later(current: Any, candidate: Any) -> Any:
    if current is None or current.is_zero():
        return candidate
    return candidate if current.before(candidate) else current


def _has_condition(conditions: Iterable[Any] | None, type_: str, status: str = "True") -> bool:
    return any(c.type == type_ and c.status == status for c in _items(conditions))


def _pod_initialized(status: Any) -> bool:
    for c in _items(status.conditions):
        if c.type == "Initialized":
            return c.status == "True"
    return False


def print_pod(pod: Any, options: GenerateOptions) -> list[TableRow]:
    spec, status = pod.spec, pod.status
    restarts = 0
    restartable_restarts = 0
    total = len(_items(spec.containers))
    ready = 0
    last_restart: Any = None
    last_restartable_restart: Any = None
    phase = status.phase or ""
    reason = status.reason or phase
    for cond in _items(status.conditions):
        if cond.type == "PodScheduled" and cond.reason == "SchedulingGated":
            reason = "SchedulingGated"
    conditions = None
    if phase == "Succeeded":
        conditions = list(_POD_SUCCESS)
    elif phase == "Failed":
        conditions = list(_POD_FAILED)
    init_containers = {}
    for c in _items(spec.init_containers):
        init_containers[c.name] = c
        if _restartable_init(c):
            total += 1
    init_statuses = _items(status.init_container_statuses)
    initializing = False
    for i, cs in enumerate(init_statuses):
        restarts += cs.restart_count
        terminated_last = cs.last_termination_state.terminated
        if terminated_last is not None:
            last_restart = _later(last_restart, terminated_last.finished_at)
        restartable = _restartable_init(init_containers.get(cs.name))
        if restartable:
            restartable_restarts += cs.restart_count
            if terminated_last is not None:
                last_restartable_restart = _later(last_restartable_restart, terminated_last.finished_at)
        state = cs.state
        if state.terminated is not None and state.terminated.exit_code == 0:
            continue
        if restartable and cs.started:
            if cs.ready:
                ready += 1
            continue
        if state.terminated is not None:
            t = state.terminated
            if not t.reason:
                reason = f"Init:Signal:{t.signal}" if t.signal != 0 else f"Init:ExitCode:{t.exit_code}"
            else:
                reason = "Init:" + t.reason
        elif state.waiting is not None and state.waiting.reason and state.waiting.reason != "PodInitializing":
            reason = "Init:" + state.waiting.reason
        else:
            reason = f"Init:{i}/{len(_items(spec.init_containers))}"
        initializing = True
        break
    if not initializing or _pod_initialized(status):
        restarts = restartable_restarts
        last_restart = last_restartable_restart
        has_running = False
        for cs in reversed(_items(status.container_statuses)):
            restarts += cs.restart_count
            if cs.last_termination_state.terminated is not None:
                last_restart = _later(last_restart, cs.last_termination_state.terminated.finished_at)
            state = cs.state
            if state.waiting is not None and state.waiting.reason:
                reason = state.waiting.reason
            elif state.terminated is not None and state.terminated.reason:
                reason = state.terminated.reason
            elif state.terminated is not None:
                t = state.terminated
                reason = f"Signal:{t.signal}" if t.signal != 0 else f"ExitCode:{t.exit_code}"
            elif cs.ready and state.running is not None:
                has_running = True
                ready += 1
        if reason == "Completed" and has_running:
            reason = "Running" if _has_condition(status.conditions, "Ready") else "NotReady"
    meta = pod.metadata
    if meta.deletion_timestamp is not None and status.reason == _NODE_UNREACHABLE_POD_REASON:
        reason = "Unknown"
    elif meta.deletion_timestamp is not None and phase not in ("Failed", "Succeeded"):
        reason = "Terminating"
    restarts_text = str(restarts)
    if restarts != 0 and last_restart is not None and not last_restart.is_zero():
        restarts_text = f"{restarts} ({translate_timestamp_since(last_restart)} ago)"
    row = _row(pod, meta.name, f"{ready}/{total}", reason, restarts_text,
               translate_timestamp_since(meta.creation_timestamp))
    row.conditions = conditions
    if options.wide:
        pod_ips = _items(status.pod_ips)
        pod_ip = (pod_ips[0].ip if pod_ips else "") or "<none>"
        gates_text = "<none>"
        gates = _items(spec.readiness_gates)
        if gates:
            true_conditions = 0
            for gate in gates:
                for cond in _items(status.conditions):
                    if cond.type == gate.condition_type:
                        if cond.status == "True":
                            true_conditions += 1
                        break
            gates_text = f"{true_conditions}/{len(gates)}"
        row.cells.extend([pod_ip, spec.node_name or "<none>", status.nominated_node_name or "<none>", gates_text])
    return [row]


def print_pod_template(obj: Any, options: GenerateOptions) -> list[TableRow]:
    names, images = layout_container_cells(obj.template.spec.containers)
    return [_row(obj, obj.metadata.name, names, images, format_labels(obj.template.metadata.labels))]


def print_pod_disruption_budget(obj: Any, options: GenerateOptions) -> list[TableRow]:
    spec = obj.spec
    min_available = str(spec.min_available) if spec.min_available is not None else "N/A"
    max_unavailable = str(spec.max_unavailable) if spec.max_unavailable is not None else "N/A"
    return [_row(obj, obj.metadata.name, min_available, max_unavailable, obj.status.disruptions_allowed,
                 translate_timestamp_since(obj.metadata.creation_timestamp))]


# ------------------------------------------------------------------ workloads

def print_replication_controller(obj: Any, options: GenerateOptions) -> list[TableRow]:
    row = _row(obj, obj.metadata.name, obj.spec.replicas, obj.status.replicas, obj.status.ready_replicas,
               translate_timestamp_since(obj.metadata.creation_timestamp))
    if options.wide:
        names, images = layout_container_cells(_template_containers(obj.spec.template))
        row.cells.extend([names, images, format_labels(obj.spec.selector)])
    return [row]


def print_replica_set(obj: Any, options: GenerateOptions) -> list[TableRow]:
    row = _row(obj, obj.metadata.name, obj.spec.replicas, obj.status.replicas, obj.status.ready_replicas,
               translate_timestamp_since(obj.metadata.creation_timestamp))
    if options.wide:
        names, images = layout_container_cells(obj.spec.template.spec.containers)
        row.cells.extend([names, images, format_label_selector(obj.spec.selector)])
    return [row]


def print_job(obj: Any, options: GenerateOptions) -> list[TableRow]:
    spec, status = obj.spec, obj.status
    if spec.completions is not None:
        completions = f"{status.succeeded}/{spec.completions}"
    else:
        parallelism = spec.parallelism or 0
        completions = (f"{status.succeeded}/1 of {parallelism}" if parallelism > 1 else f"{status.succeeded}/1")
    duration = ""
    if status.start_time is not None:
        if status.completion_time is None:
            duration = human_duration(_now_ns() - status.start_time.unix_nano())
        else:
            duration = human_duration(status.completion_time.unix_nano() - status.start_time.unix_nano())
    conds = status.conditions
    if _first_true(conds, "Complete"):
        state = "Complete"
    elif _first_true(conds, "Failed"):
        state = "Failed"
    elif obj.metadata.deletion_timestamp is not None:
        state = "Terminating"
    elif _first_true(conds, "Suspended"):
        state = "Suspended"
    elif _first_true(conds, "FailureTarget"):
        state = "FailureTarget"
    else:
        state = "Running"
    row = _row(obj, obj.metadata.name, state, completions, duration,
               translate_timestamp_since(obj.metadata.creation_timestamp))
    if options.wide:
        names, images = layout_container_cells(spec.template.spec.containers)
        row.cells.extend([names, images, format_label_selector(spec.selector)])
    return [row]


def _first(conditions: Iterable[Any] | None, type_: str) -> Any:
    for c in _items(conditions):
        if c.type == type_:
            return c
    return None


def _first_true(conditions: Iterable[Any] | None, type_: str) -> bool:
    # Go's hasJobCondition: the first condition of that type decides.
    c = _first(conditions, type_)
    return c is not None and c.status == "True"


def print_cron_job(obj: Any, options: GenerateOptions) -> list[TableRow]:
    spec, status = obj.spec, obj.status
    last = translate_timestamp_since(status.last_schedule_time) if status.last_schedule_time is not None else "<none>"
    time_zone = spec.time_zone if spec.time_zone is not None else "<none>"
    row = _row(obj, obj.metadata.name, spec.schedule, time_zone, _bool_ptr(spec.suspend),
               len(_items(status.active)), last, translate_timestamp_since(obj.metadata.creation_timestamp))
    if options.wide:
        job_spec = spec.job_template.spec
        names, images = layout_container_cells(job_spec.template.spec.containers)
        row.cells.extend([names, images, format_label_selector(job_spec.selector)])
    return [row]


def print_stateful_set(obj: Any, options: GenerateOptions) -> list[TableRow]:
    row = _row(obj, obj.metadata.name, f"{obj.status.ready_replicas}/{obj.spec.replicas}",
               translate_timestamp_since(obj.metadata.creation_timestamp))
    if options.wide:
        names, images = layout_container_cells(obj.spec.template.spec.containers)
        row.cells.extend([names, images])
    return [row]


def print_daemon_set(obj: Any, options: GenerateOptions) -> list[TableRow]:
    st = obj.status
    row = _row(obj, obj.metadata.name, st.desired_number_scheduled, st.current_number_scheduled,
               st.number_ready, st.updated_number_scheduled, st.number_available,
               format_labels(obj.spec.template.spec.node_selector),
               translate_timestamp_since(obj.metadata.creation_timestamp))
    if options.wide:
        names, images = layout_container_cells(obj.spec.template.spec.containers)
        row.cells.extend([names, images, format_label_selector(obj.spec.selector)])
    return [row]


def print_deployment(obj: Any, options: GenerateOptions) -> list[TableRow]:
    st = obj.status
    row = _row(obj, obj.metadata.name, f"{st.ready_replicas}/{obj.spec.replicas}", st.updated_replicas,
               st.available_replicas, translate_timestamp_since(obj.metadata.creation_timestamp))
    if options.wide:
        names, images = layout_container_cells(obj.spec.template.spec.containers)
        row.cells.extend([names, images, _selector_or_invalid(obj.spec.selector)])
    return [row]


def _selector_or_invalid(selector: Any) -> str:
    # printDeployment: LabelSelectorAsSelector's String(), "<invalid>" on error (no "<none>").
    from kcodec.labels import label_selector_as_selector
    from kcodec.errors import KCodecError

    try:
        return str(label_selector_as_selector(selector))
    except KCodecError:
        return "<invalid>"


def print_controller_revision(obj: Any, options: GenerateOptions) -> list[TableRow]:
    controller = "<none>"
    for ref in _items(obj.metadata.owner_references):
        if ref.controller:
            group = ref.api_version.split("/", 1)[0] if "/" in ref.api_version else ""
            kind = ref.kind
            controller = (f"{kind.lower()}.{group}/{ref.name}" if group else f"{kind.lower()}/{ref.name}") \
                if kind or group else ref.name
            break
    return [_row(obj, obj.metadata.name, controller, obj.revision,
                 translate_timestamp_since(obj.metadata.creation_timestamp))]


# ------------------------------------------------------------------ services and networking

def _lb_status(ingress: Iterable[Any] | None, wide: bool) -> str:
    found = set()
    for ing in _items(ingress):
        if ing.ip:
            found.add(ing.ip)
        elif ing.hostname:
            found.add(ing.hostname)
    text = ",".join(sorted(found))
    if not wide and len(text) > _LOAD_BALANCER_WIDTH:
        text = text[:_LOAD_BALANCER_WIDTH - 3] + "..."
    return text


def _service_external_ip(svc: Any, wide: bool) -> str:
    spec = svc.spec
    external = _items(spec.external_ips)
    if spec.type in ("ClusterIP", "NodePort"):
        return ",".join(external) if external else "<none>"
    if spec.type == "LoadBalancer":
        lb = _lb_status(svc.status.load_balancer.ingress, wide)
        if external:
            return ",".join((lb.split(",") if lb else []) + external)
        return lb or "<pending>"
    if spec.type == "ExternalName":
        return spec.external_name
    return "<unknown>"


def _port_string(ports: Iterable[Any] | None) -> str:
    pieces = []
    for p in _items(ports):
        pieces.append(f"{p.port}:{p.node_port}/{p.protocol}" if p.node_port > 0 else f"{p.port}/{p.protocol}")
    return ",".join(pieces)


def print_service(obj: Any, options: GenerateOptions) -> list[TableRow]:
    spec = obj.spec
    cluster_ips = _items(spec.cluster_ips)
    row = _row(obj, obj.metadata.name, spec.type, cluster_ips[0] if cluster_ips else "<none>",
               _service_external_ip(obj, options.wide), _port_string(spec.ports) or "<none>",
               translate_timestamp_since(obj.metadata.creation_timestamp))
    if options.wide:
        row.cells.append(format_labels(spec.selector))
    return [row]


def _format_hosts(rules: Iterable[Any] | None) -> str:
    rules = _items(rules)
    hosts: list[str] = []
    more = False
    for rule in rules:
        if len(hosts) == 3:
            more = True
        if not more and rule.host:
            hosts.append(rule.host)
    if not hosts:
        return "*"
    text = ",".join(hosts)
    return f"{text} + {len(rules) - 3} more..." if more else text


def print_ingress(obj: Any, options: GenerateOptions) -> list[TableRow]:
    spec = obj.spec
    class_name = spec.ingress_class_name if spec.ingress_class_name is not None else "<none>"
    ports = "80, 443" if _items(spec.tls) else "80"
    return [_row(obj, obj.metadata.name, class_name, _format_hosts(spec.rules),
                 _lb_status(obj.status.load_balancer.ingress, options.wide), ports,
                 translate_timestamp_since(obj.metadata.creation_timestamp))]


def print_ingress_class(obj: Any, options: GenerateOptions) -> list[TableRow]:
    params = "<none>"
    p = obj.spec.parameters
    if p is not None:
        params = p.kind + ("." + p.api_group if p.api_group is not None else "") + "/" + p.name
    return [_row(obj, obj.metadata.name, obj.spec.controller, params,
                 translate_timestamp_since(obj.metadata.creation_timestamp))]


def _format_endpoints(endpoints: Any) -> str:
    subsets = _items(endpoints.subsets)
    if not subsets:
        return "<none>"
    out: list[str] = []
    max_, more, count = 3, False, 0
    for ss in subsets:
        addresses = _items(ss.addresses)
        ports = _items(ss.ports)
        if not ports:
            count += len(addresses)
            for addr in addresses:
                if len(out) == max_:
                    more = True
                    break
                out.append(addr.ip)
            continue
        for port in ports:
            count += len(addresses)
            for addr in addresses:
                if len(out) == max_:
                    more = True
                    break
                out.append(_join_host_port(addr.ip, port.port))
    text = ",".join(out)
    return f"{text} + {count - max_} more..." if more else text


def print_endpoints(obj: Any, options: GenerateOptions) -> list[TableRow]:
    return [_row(obj, obj.metadata.name, _format_endpoints(obj),
                 translate_timestamp_since(obj.metadata.creation_timestamp))]


def print_endpoint_slice(obj: Any, options: GenerateOptions) -> list[TableRow]:
    ports: list[str] = []
    more, count = False, 0
    for port in _items(obj.ports):
        if len(ports) < 3:
            ports.append(str(port.port) if port.port is not None else (port.name if port.name is not None else "*"))
        elif len(ports) == 3:
            more = True
        count += 1
    ports_text = _list_with_more(ports, more, count, 3)
    addrs: list[str] = []
    more, count = False, 0
    for ep in _items(obj.endpoints):
        for address in _items(ep.addresses):
            if len(addrs) < 3:
                addrs.append(address)
            elif len(addrs) == 3:
                more = True
            count += 1
    return [_row(obj, obj.metadata.name, obj.address_type, ports_text, _list_with_more(addrs, more, count, 3),
                 translate_timestamp_since(obj.metadata.creation_timestamp))]


def print_network_policy(obj: Any, options: GenerateOptions) -> list[TableRow]:
    return [_row(obj, obj.metadata.name, format_label_selector(obj.spec.pod_selector),
                 translate_timestamp_since(obj.metadata.creation_timestamp))]


def print_service_cidr(obj: Any, options: GenerateOptions) -> list[TableRow]:
    return [_row(obj, obj.metadata.name, ",".join(_items(obj.spec.cidrs)),
                 translate_timestamp_since(obj.metadata.creation_timestamp))]


def print_ip_address(obj: Any, options: GenerateOptions) -> list[TableRow]:
    parent = "<none>"
    ref = obj.spec.parent_ref
    if ref is not None:
        gr = f"{ref.resource}.{ref.group}" if ref.group else ref.resource
        parent = gr.lower() + (f"/{ref.namespace}" if ref.namespace else "") + "/" + ref.name
    return [_row(obj, obj.metadata.name, parent, translate_timestamp_since(obj.metadata.creation_timestamp))]


# ------------------------------------------------------------------ cluster objects

def print_namespace(obj: Any, options: GenerateOptions) -> list[TableRow]:
    return [_row(obj, obj.metadata.name, obj.status.phase, translate_timestamp_since(obj.metadata.creation_timestamp))]


def print_secret(obj: Any, options: GenerateOptions) -> list[TableRow]:
    return [_row(obj, obj.metadata.name, obj.type, len(obj.data or {}),
                 translate_timestamp_since(obj.metadata.creation_timestamp))]


def print_service_account(obj: Any, options: GenerateOptions) -> list[TableRow]:
    return [_row(obj, obj.metadata.name, len(_items(obj.secrets)),
                 translate_timestamp_since(obj.metadata.creation_timestamp))]


def print_config_map(obj: Any, options: GenerateOptions) -> list[TableRow]:
    return [_row(obj, obj.metadata.name, len(obj.data or {}) + len(obj.binary_data or {}),
                 translate_timestamp_since(obj.metadata.creation_timestamp))]


def _node_roles(node: Any) -> list[str]:
    roles = set()
    for k, v in (node.metadata.labels or {}).items():
        if k.startswith(_LABEL_NODE_ROLE_PREFIX):
            role = k[len(_LABEL_NODE_ROLE_PREFIX):]
            if role:
                roles.add(role)
        elif k == _NODE_LABEL_ROLE and v:
            roles.add(v)
    return sorted(roles)


def _node_address(node: Any, type_: str) -> str:
    for a in _items(node.status.addresses):
        if a.type == type_:
            return a.address
    return "<none>"


def print_node(obj: Any, options: GenerateOptions) -> list[TableRow]:
    conditions = {c.type: c for c in _items(obj.status.conditions)}
    status: list[str] = []
    ready = conditions.get("Ready")
    if ready is not None:
        status.append("Ready" if ready.status == "True" else "NotReady")
    if not status:
        status.append("Unknown")
    if obj.spec.unschedulable:
        status.append("SchedulingDisabled")
    info = obj.status.node_info
    row = _row(obj, obj.metadata.name, ",".join(status), ",".join(_node_roles(obj)) or "<none>",
               translate_timestamp_since(obj.metadata.creation_timestamp), info.kubelet_version)
    if options.wide:
        row.cells.extend([_node_address(obj, "InternalIP"), _node_address(obj, "ExternalIP"),
                          info.os_image or "<unknown>", info.kernel_version or "<unknown>",
                          info.container_runtime_version or "<unknown>"])
    return [row]


def _access_modes(modes: Iterable[str] | None) -> str:
    # k8s.io/kubernetes pkg/apis/core/helper GetAccessModesAsString
    present = set(_items(modes))
    return ",".join(short for mode, short in (("ReadWriteOnce", "RWO"), ("ReadOnlyMany", "ROX"),
                                               ("ReadWriteMany", "RWX"), ("ReadWriteOncePod", "RWOP"))
                    if mode in present)


_BETA_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class"


def _pv_class(pv: Any) -> str:
    annotations = pv.metadata.annotations or {}
    if _BETA_STORAGE_CLASS in annotations:
        return annotations[_BETA_STORAGE_CLASS]
    return pv.spec.storage_class_name


def _pvc_class(pvc: Any) -> str:
    annotations = pvc.metadata.annotations or {}
    if _BETA_STORAGE_CLASS in annotations:
        return annotations[_BETA_STORAGE_CLASS]
    return pvc.spec.storage_class_name if pvc.spec.storage_class_name is not None else ""


def _quantity(resources: Mapping[str, Any] | None, name: str) -> str:
    q = (resources or {}).get(name)
    return str(q) if q is not None else "0"


def print_persistent_volume(obj: Any, options: GenerateOptions) -> list[TableRow]:
    spec = obj.spec
    claim = f"{spec.claim_ref.namespace}/{spec.claim_ref.name}" if spec.claim_ref is not None else ""
    phase = "Terminating" if obj.metadata.deletion_timestamp is not None else obj.status.phase
    return [_row(obj, obj.metadata.name, _quantity(spec.capacity, "storage"), _access_modes(spec.access_modes),
                 spec.persistent_volume_reclaim_policy, phase, claim, _pv_class(obj),
                 spec.volume_attributes_class_name if spec.volume_attributes_class_name is not None else "<unset>",
                 obj.status.reason, translate_timestamp_since(obj.metadata.creation_timestamp),
                 spec.volume_mode if spec.volume_mode is not None else "<unset>")]


def print_persistent_volume_claim(obj: Any, options: GenerateOptions) -> list[TableRow]:
    spec = obj.spec
    phase = "Terminating" if obj.metadata.deletion_timestamp is not None else obj.status.phase
    capacity = access = ""
    if spec.volume_name:
        access = _access_modes(obj.status.access_modes)
        capacity = _quantity(obj.status.capacity, "storage")
    return [_row(obj, obj.metadata.name, phase, spec.volume_name, capacity, access, _pvc_class(obj),
                 spec.volume_attributes_class_name if spec.volume_attributes_class_name is not None else "<unset>",
                 translate_timestamp_since(obj.metadata.creation_timestamp),
                 spec.volume_mode if spec.volume_mode is not None else "<unset>")]


def print_component_status(obj: Any, options: GenerateOptions) -> list[TableRow]:
    status, message, error = "Unknown", "", ""
    for cond in _items(obj.conditions):
        if cond.type == "Healthy":
            status = "Healthy" if cond.status == "True" else "Unhealthy"
            message, error = cond.message, cond.error
            break
    return [_row(obj, obj.metadata.name, status, message, error)]


def _event_source(source: Any, controller: str, instance: str) -> str:
    component = source.component or controller
    host = source.host or instance
    return f"{component}, {host}" if host else component


def print_event(obj: Any, options: GenerateOptions) -> list[TableRow]:
    first = translate_timestamp_since(obj.first_timestamp)
    if obj.first_timestamp is None or obj.first_timestamp.is_zero():
        first = translate_timestamp_since(obj.event_time)
    last = translate_timestamp_since(obj.last_timestamp)
    if obj.last_timestamp is None or obj.last_timestamp.is_zero():
        last = first
    count = obj.count
    if obj.series is not None:
        last = translate_timestamp_since(obj.series.last_observed_time)
        count = obj.series.count
    elif count == 0:
        count = 1
    involved = obj.involved_object
    target = f"{involved.kind.lower()}/{involved.name}" if involved.name else involved.kind.lower()
    message = (obj.message or "").strip()
    if options.wide:
        return [_row(obj, last, obj.type, obj.reason, target, involved.field_path,
                     _event_source(obj.source, obj.reporting_controller, obj.reporting_instance),
                     message, first, count, obj.metadata.name)]
    return [_row(obj, last, obj.type, obj.reason, target, message)]


def _subjects(subjects: Iterable[Any] | None) -> tuple[str, str, str]:
    # k8s.io/kubernetes pkg/apis/rbac SubjectsStrings
    users, groups, sas = [], [], []
    for s in _items(subjects):
        if s.kind == "ServiceAccount":
            sas.append(f"{s.namespace}/{s.name}")
        elif s.kind == "User":
            users.append(s.name)
        elif s.kind == "Group":
            groups.append(s.name)
    return ", ".join(users), ", ".join(groups), ", ".join(sas)


def print_role_binding(obj: Any, options: GenerateOptions) -> list[TableRow]:
    row = _row(obj, obj.metadata.name, f"{obj.role_ref.kind}/{obj.role_ref.name}",
               translate_timestamp_since(obj.metadata.creation_timestamp))
    if options.wide:
        row.cells.extend(_subjects(obj.subjects))
    return [row]


def _csr_status(obj: Any) -> str:
    types = {c.type for c in _items(obj.status.conditions)}
    status = "Denied" if "Denied" in types else "Approved" if "Approved" in types else "Pending"
    if "Failed" in types:
        status += ",Failed"
    if obj.status.certificate:
        status += ",Issued"
    return status


def print_certificate_signing_request(obj: Any, options: GenerateOptions) -> list[TableRow]:
    spec = obj.spec
    requested = "<none>"
    if spec.expiration_seconds is not None:
        requested = human_duration(spec.expiration_seconds * 1_000_000_000)
    return [_row(obj, obj.metadata.name, translate_timestamp_since(obj.metadata.creation_timestamp),
                 spec.signer_name or "<none>", spec.username, requested, _csr_status(obj))]


def print_cluster_trust_bundle(obj: Any, options: GenerateOptions) -> list[TableRow]:
    return [_row(obj, obj.metadata.name, obj.spec.signer_name or "<none>")]


def print_lease(obj: Any, options: GenerateOptions) -> list[TableRow]:
    holder = obj.spec.holder_identity if obj.spec.holder_identity is not None else ""
    return [_row(obj, obj.metadata.name, holder, translate_timestamp_since(obj.metadata.creation_timestamp))]


def print_lease_candidate(obj: Any, options: GenerateOptions) -> list[TableRow]:
    spec = obj.spec
    return [_row(obj, obj.metadata.name, spec.lease_name, spec.binary_version, spec.emulation_version,
                 translate_timestamp_since(obj.metadata.creation_timestamp))]


def _is_default(annotations: Mapping[str, str] | None, keys: tuple[str, ...]) -> bool:
    return any((annotations or {}).get(k) == "true" for k in keys)


def print_storage_class(obj: Any, options: GenerateOptions) -> list[TableRow]:
    name = obj.metadata.name
    if _is_default(obj.metadata.annotations, ("storageclass.kubernetes.io/is-default-class",
                                              "storageclass.beta.kubernetes.io/is-default-class")):
        name += " (default)"
    return [_row(obj, name, obj.provisioner, obj.reclaim_policy if obj.reclaim_policy is not None else "Delete",
                 obj.volume_binding_mode if obj.volume_binding_mode is not None else "Immediate",
                 bool(obj.allow_volume_expansion), translate_timestamp_since(obj.metadata.creation_timestamp))]


def print_volume_attributes_class(obj: Any, options: GenerateOptions) -> list[TableRow]:
    name = obj.metadata.name
    if _is_default(obj.metadata.annotations, ("storage.kubernetes.io/is-default-class",)):
        name += " (default)"
    return [_row(obj, name, obj.driver_name, translate_timestamp_since(obj.metadata.creation_timestamp))]


def print_status(obj: Any, options: GenerateOptions) -> list[TableRow]:
    return [_row(obj, obj.status, obj.reason, obj.message)]


def print_resource_quota(obj: Any, options: GenerateOptions) -> list[TableRow]:
    hard = obj.status.hard or {}
    used = obj.status.used or {}
    requests, limits = [], []
    for name in sorted(hard):
        pieces = name.split(".")
        target = limits if len(pieces) > 1 and pieces[0] == "limits" else requests
        target.append(f"{name}: {_quantity(used, name)}/{_quantity(hard, name)}")
    return [_row(obj, obj.metadata.name, ", ".join(requests), ", ".join(limits),
                 translate_timestamp_since(obj.metadata.creation_timestamp))]


def print_priority_class(obj: Any, options: GenerateOptions) -> list[TableRow]:
    row = _row(obj, obj.metadata.name, obj.value, obj.global_default,
               translate_timestamp_since(obj.metadata.creation_timestamp))
    if options.wide:
        row.cells.append(obj.preemption_policy if obj.preemption_policy is not None else "")
    return [row]


def print_runtime_class(obj: Any, options: GenerateOptions) -> list[TableRow]:
    return [_row(obj, obj.metadata.name, obj.handler, translate_timestamp_since(obj.metadata.creation_timestamp))]


def print_volume_attachment(obj: Any, options: GenerateOptions) -> list[TableRow]:
    pv = obj.spec.source.persistent_volume_name
    return [_row(obj, obj.metadata.name, obj.spec.attacher, pv if pv is not None else "", obj.spec.node_name,
                 obj.status.attached, translate_timestamp_since(obj.metadata.creation_timestamp))]


def print_csi_node(obj: Any, options: GenerateOptions) -> list[TableRow]:
    return [_row(obj, obj.metadata.name, len(_items(obj.spec.drivers)),
                 translate_timestamp_since(obj.metadata.creation_timestamp))]


def print_csi_driver(obj: Any, options: GenerateOptions) -> list[TableRow]:
    spec = obj.spec
    modes = ",".join(_items(spec.volume_lifecycle_modes)) or "<none>"
    tokens = "<unset>"
    if spec.token_requests is not None:
        tokens = ",".join(t.audience for t in spec.token_requests)
    return [_row(obj, obj.metadata.name,
                 spec.attach_required if spec.attach_required is not None else True,
                 bool(spec.pod_info_on_mount), bool(spec.storage_capacity), tokens, bool(spec.requires_republish),
                 modes, translate_timestamp_since(obj.metadata.creation_timestamp))]


def print_csi_storage_capacity(obj: Any, options: GenerateOptions) -> list[TableRow]:
    capacity = str(obj.capacity) if obj.capacity is not None else "<unset>"
    return [_row(obj, obj.metadata.name, obj.storage_class_name, capacity)]


def _count_row(field: str) -> Callable[[Any, GenerateOptions], list[TableRow]]:
    def print_(obj: Any, options: GenerateOptions) -> list[TableRow]:
        return [_row(obj, obj.metadata.name, len(_items(getattr(obj, field))),
                     translate_timestamp_since(obj.metadata.creation_timestamp))]
    return print_


def _param_kind(spec: Any) -> str:
    pk = spec.param_kind
    return pk.api_version + "/" + pk.kind if pk is not None else "<unset>"


def _policy_row(field: str) -> Callable[[Any, GenerateOptions], list[TableRow]]:
    def print_(obj: Any, options: GenerateOptions) -> list[TableRow]:
        return [_row(obj, obj.metadata.name, len(_items(getattr(obj.spec, field))), _param_kind(obj.spec),
                     translate_timestamp_since(obj.metadata.creation_timestamp))]
    return print_


def print_admission_policy_binding(obj: Any, options: GenerateOptions) -> list[TableRow]:
    param = "<unset>"
    ref = obj.spec.param_ref
    if ref is not None:
        if ref.name:
            param = f"{ref.namespace}/{ref.name}" if ref.namespace else f"*/{ref.name}"
        elif ref.selector is not None:
            param = _label_selector_string(ref.selector)
    return [_row(obj, obj.metadata.name, obj.spec.policy_name, param,
                 translate_timestamp_since(obj.metadata.creation_timestamp))]


def _label_selector_string(selector: Any) -> str:
    """``LabelSelector.String()`` as gogo-protobuf generates it (apimachinery meta/v1 generated.pb.go)."""
    labels = "".join(f"{k}: {v}," for k, v in sorted((selector.match_labels or {}).items()))
    exprs = "".join(f"LabelSelectorRequirement{{Key:{r.key},Operator:{r.operator},"
                    f"Values:[{' '.join(_items(r.values))}],}},"
                    for r in _items(selector.match_expressions))
    return (f"&LabelSelector{{MatchLabels:map[string]string{{{labels}}},"
            f"MatchExpressions:[]LabelSelectorRequirement{{{exprs}}},}}")


def print_flow_schema(obj: Any, options: GenerateOptions) -> list[TableRow]:
    spec = obj.spec
    method = spec.distinguisher_method.type if spec.distinguisher_method is not None else "<none>"
    dangling = "?"
    for cond in _items(obj.status.conditions):
        if cond.type == "Dangling":
            dangling = cond.status
            break
    return [_row(obj, obj.metadata.name, spec.priority_level_configuration.name, spec.matching_precedence,
                 method, translate_timestamp_since(obj.metadata.creation_timestamp), dangling)]


def print_flow_schema_list(lst: Any, options: GenerateOptions) -> list[TableRow]:
    # apihelpers.FlowSchemaSequence: by matchingPrecedence, then name.
    items = sorted(_items(lst.items), key=lambda fs: (fs.spec.matching_precedence, fs.metadata.name))
    rows: list[TableRow] = []
    for fs in items:
        rows.extend(print_flow_schema(fs, options))
    return rows


def print_priority_level_configuration(obj: Any, options: GenerateOptions) -> list[TableRow]:
    ncs: Any = "<none>"
    queues: Any = "<none>"
    hand: Any = "<none>"
    qll: Any = "<none>"
    limited = obj.spec.limited
    if limited is not None:
        ncs = limited.nominal_concurrency_shares
        q = limited.limit_response.queuing
        if q is not None:
            queues, hand, qll = q.queues, q.hand_size, q.queue_length_limit
    return [_row(obj, obj.metadata.name, obj.spec.type, ncs, queues, hand, qll,
                 translate_timestamp_since(obj.metadata.creation_timestamp))]


def print_storage_version(obj: Any, options: GenerateOptions) -> list[TableRow]:
    common = obj.status.common_encoding_version
    versions: list[str] = []
    more, count = False, 0
    for sv in _items(obj.status.storage_versions):
        if len(versions) < 3:
            versions.append(f"{sv.api_server_id}={sv.encoding_version}")
        elif len(versions) == 3:
            more = True
        count += 1
    return [_row(obj, obj.metadata.name, common if common is not None else "<unset>",
                 _list_with_more(versions, more, count, 3),
                 translate_timestamp_since(obj.metadata.creation_timestamp))]


def print_scale(obj: Any, options: GenerateOptions) -> list[TableRow]:
    return [_row(obj, obj.metadata.name, obj.spec.replicas, obj.status.replicas,
                 translate_timestamp_since(obj.metadata.creation_timestamp))]


def print_name_age(obj: Any, options: GenerateOptions) -> list[TableRow]:
    return [_row(obj, obj.metadata.name, translate_timestamp_since(obj.metadata.creation_timestamp))]


def print_resource_claim(obj: Any, options: GenerateOptions) -> list[TableRow]:
    states = []
    deleted = obj.metadata.deletion_timestamp is not None
    if deleted:
        states.append("deleted")
    if obj.status.allocation is None:
        if not deleted:
            states.append("pending")
    else:
        states.append("allocated")
        if _items(obj.status.reserved_for):
            states.append("reserved")
    return [_row(obj, obj.metadata.name, ",".join(states), translate_timestamp_since(obj.metadata.creation_timestamp))]


def print_resource_slice(obj: Any, options: GenerateOptions) -> list[TableRow]:
    spec = obj.spec
    node = spec.node_name if isinstance(spec.node_name, str) else (spec.node_name or "")
    return [_row(obj, obj.metadata.name, node, spec.driver, spec.pool.name,
                 translate_timestamp_since(obj.metadata.creation_timestamp))]


def print_storage_version_migration(obj: Any, options: GenerateOptions) -> list[TableRow]:
    r = obj.spec.resource
    version = getattr(r, "version", None)
    if version is not None:  # v1alpha1's GroupVersionResource: resource.version.group
        text = f"{r.resource}.{version}.{r.group}"
    else:  # a GroupResource, as Go's GroupResource.String() prints it
        text = f"{r.resource}.{r.group}" if r.group else r.resource
    return [_row(obj, obj.metadata.name, text)]


# ------------------------------------------------------------------ registration

def _list_of(print_item: Callable[[Any, GenerateOptions], list[TableRow]]
             ) -> Callable[[Any, GenerateOptions], list[TableRow]]:
    def print_list(lst: Any, options: GenerateOptions) -> list[TableRow]:
        rows: list[TableRow] = []
        for item in _items(lst.items):
            rows.extend(print_item(item, options))
        return rows
    return print_list


def _columns() -> list[tuple[str, str, list[TableColumnDefinition], Any, Any]]:
    """(package, kind, columns, print item, print list) in AddHandlers' order."""
    name, age = _name_col(), _age_col()
    s, i, b = "string", "integer", "boolean"
    pod = [name, _col("Ready", s, "The aggregate readiness state of this pod for accepting traffic."),
           _col("Status", s, "The aggregate status of the containers in this pod."),
           _col("Restarts", s, "The number of times the containers in this pod have been restarted and when "
                               "the last container in this pod has restarted."),
           age,
           _col("IP", s, _doc("core/v1.PodStatus.podIP"), priority=1),
           _col("Node", s, _doc("core/v1.PodSpec.nodeName"), priority=1),
           _col("Nominated Node", s, _doc("core/v1.PodStatus.nominatedNodeName"), priority=1),
           _col("Readiness Gates", s, _doc("core/v1.PodSpec.readinessGates"), priority=1)]
    out: list[tuple[str, str, list[TableColumnDefinition], Any, Any]] = [
        ("core", "Pod", pod, print_pod, None),
        ("core", "PodTemplate", [name, _col("Containers", s, _CONTAINERS), _col("Images", s, _IMAGES),
                                 _col("Pod Labels", s, "The labels for the pod template.")], print_pod_template, None),
        ("policy", "PodDisruptionBudget", [
            name, _col("Min Available", s, "The minimum number of pods that must be available."),
            _col("Max Unavailable", s, "The maximum number of pods that may be unavailable."),
            _col("Allowed Disruptions", i, "Calculated number of pods that may be disrupted at this time."),
            age], print_pod_disruption_budget, None),
        ("core", "ReplicationController", [
            name, _col("Desired", i, _doc("core/v1.ReplicationControllerSpec.replicas")),
            _col("Current", i, _doc("core/v1.ReplicationControllerStatus.replicas")),
            _col("Ready", i, _doc("core/v1.ReplicationControllerStatus.readyReplicas")), age,
            *_wide_containers("core/v1.ReplicationControllerSpec.selector")], print_replication_controller, None),
        ("apps", "ReplicaSet", [
            name, _col("Desired", i, _doc("extensions/v1beta1.ReplicaSetSpec.replicas")),
            _col("Current", i, _doc("extensions/v1beta1.ReplicaSetStatus.replicas")),
            _col("Ready", i, _doc("extensions/v1beta1.ReplicaSetStatus.readyReplicas")), age,
            *_wide_containers("extensions/v1beta1.ReplicaSetSpec.selector")], print_replica_set, None),
        ("apps", "DaemonSet", [
            name, _col("Desired", i, _doc("extensions/v1beta1.DaemonSetStatus.desiredNumberScheduled")),
            _col("Current", i, _doc("extensions/v1beta1.DaemonSetStatus.currentNumberScheduled")),
            _col("Ready", i, _doc("extensions/v1beta1.DaemonSetStatus.numberReady")),
            _col("Up-to-date", i, _doc("extensions/v1beta1.DaemonSetStatus.updatedNumberScheduled")),
            _col("Available", i, _doc("extensions/v1beta1.DaemonSetStatus.numberAvailable")),
            _col("Node Selector", s, _doc("core/v1.PodSpec.nodeSelector")), age,
            *_wide_containers("extensions/v1beta1.DaemonSetSpec.selector")], print_daemon_set, None),
        ("batch", "Job", [
            name, _col("Status", s, "Status of the job."),
            _col("Completions", s, _doc("batch/v1.JobStatus.succeeded")),
            _col("Duration", s, "Time required to complete the job."), age,
            *_wide_containers("batch/v1.JobSpec.selector")], print_job, None),
        ("batch", "CronJob", [
            name, _col("Schedule", s, _doc("batch/v1beta1.CronJobSpec.schedule")),
            _col("Timezone", s, _doc("batch/v1beta1.CronJobSpec.timeZone")),
            _col("Suspend", b, _doc("batch/v1beta1.CronJobSpec.suspend")),
            _col("Active", i, _doc("batch/v1beta1.CronJobStatus.active")),
            _col("Last Schedule", s, _doc("batch/v1beta1.CronJobStatus.lastScheduleTime")), age,
            *_wide_containers("batch/v1.JobSpec.selector")], print_cron_job, None),
        ("core", "Service", [
            name, _col("Type", s, _doc("core/v1.ServiceSpec.type")),
            _col("Cluster-IP", s, _doc("core/v1.ServiceSpec.clusterIP")),
            _col("External-IP", s, _doc("core/v1.ServiceSpec.externalIPs")),
            _col("Port(s)", s, _doc("core/v1.ServiceSpec.ports")), age,
            _col("Selector", s, _doc("core/v1.ServiceSpec.selector"), priority=1)], print_service, None),
        ("networking", "Ingress", [
            name, _col("Class", s, "The name of the IngressClass resource that should be used for additional "
                                   "configuration"),
            _col("Hosts", s, "Hosts that incoming requests are matched against before the ingress rule"),
            _col("Address", s, "Address is a list containing ingress points for the load-balancer"),
            _col("Ports", s, "Ports of TLS configurations that open"), age], print_ingress, None),
        ("networking", "IngressClass", [
            name, _col("Controller", s, "Controller that is responsible for handling this class"),
            _col("Parameters", s, "A reference to a resource with additional parameters"), age],
         print_ingress_class, None),
        ("apps", "StatefulSet", [name, _col("Ready", s, "Number of the pod with ready state"), age,
                                 *_wide_containers(None)], print_stateful_set, None),
        ("core", "Endpoints", [name, _col("Endpoints", s, _doc("core/v1.Endpoints.subsets")), age],
         print_endpoints, None),
        ("core", "Node", [
            name, _col("Status", s, "The status of the node"), _col("Roles", s, "The roles of the node"), age,
            _col("Version", s, _doc("core/v1.NodeSystemInfo.kubeletVersion")),
            _col("Internal-IP", s, _doc("core/v1.NodeStatus.addresses"), priority=1),
            _col("External-IP", s, _doc("core/v1.NodeStatus.addresses"), priority=1),
            _col("OS-Image", s, _doc("core/v1.NodeSystemInfo.osImage"), priority=1),
            _col("Kernel-Version", s, _doc("core/v1.NodeSystemInfo.kernelVersion"), priority=1),
            _col("Container-Runtime", s, _doc("core/v1.NodeSystemInfo.containerRuntimeVersion"), priority=1)],
         print_node, None),
        ("core", "Event", [
            _col("Last Seen", s, _doc("core/v1.Event.lastTimestamp")),
            _col("Type", s, _doc("core/v1.Event.type")),
            _col("Reason", s, _doc("core/v1.Event.reason")),
            _col("Object", s, _doc("core/v1.Event.involvedObject")),
            _col("Subobject", s, _doc("core/v1.ObjectReference.fieldPath"), priority=1),
            _col("Source", s, _doc("core/v1.Event.source"), priority=1),
            _col("Message", s, _doc("core/v1.Event.message")),
            _col("First Seen", s, _doc("core/v1.Event.firstTimestamp"), priority=1),
            _col("Count", s, _doc("core/v1.Event.count"), priority=1),
            _col("Name", s, _doc("meta/v1.ObjectMeta.name"), priority=1, format_="name")], print_event, None),
        ("core", "Namespace", [name, _col("Status", s, "The status of the namespace"), age], print_namespace, None),
        ("core", "Secret", [name, _col("Type", s, _doc("core/v1.Secret.type")),
                            _col("Data", s, _doc("core/v1.Secret.data")), age], print_secret, None),
        ("core", "ServiceAccount", [name, _col("Secrets", s, _doc("core/v1.ServiceAccount.secrets")), age],
         print_service_account, None),
        ("core", "PersistentVolume", [
            name, _col("Capacity", s, _doc("core/v1.PersistentVolumeSpec.capacity")),
            _col("Access Modes", s, _doc("core/v1.PersistentVolumeSpec.accessModes")),
            _col("Reclaim Policy", s, _doc("core/v1.PersistentVolumeSpec.persistentVolumeReclaimPolicy")),
            _col("Status", s, _doc("core/v1.PersistentVolumeStatus.phase")),
            _col("Claim", s, _doc("core/v1.PersistentVolumeSpec.claimRef")),
            _col("StorageClass", s, "StorageClass of the pv"),
            _col("VolumeAttributesClass", s, "VolumeAttributesClass of the pv"),
            _col("Reason", s, _doc("core/v1.PersistentVolumeStatus.reason")), age,
            _col("VolumeMode", s, _doc("core/v1.PersistentVolumeSpec.volumeMode"), priority=1)],
         print_persistent_volume, None),
        ("core", "PersistentVolumeClaim", [
            name, _col("Status", s, _doc("core/v1.PersistentVolumeClaimStatus.phase")),
            _col("Volume", s, _doc("core/v1.PersistentVolumeClaimSpec.volumeName")),
            _col("Capacity", s, _doc("core/v1.PersistentVolumeClaimStatus.capacity")),
            _col("Access Modes", s, _doc("core/v1.PersistentVolumeClaimStatus.accessModes")),
            _col("StorageClass", s, "StorageClass of the pvc"),
            _col("VolumeAttributesClass", s, "VolumeAttributesClass of the pvc"), age,
            _col("VolumeMode", s, _doc("core/v1.PersistentVolumeClaimSpec.volumeMode"), priority=1)],
         print_persistent_volume_claim, None),
        ("core", "ComponentStatus", [
            name, _col("Status", s, "Status of the component conditions"),
            _col("Message", s, "Message of the component conditions"),
            _col("Error", s, "Error of the component conditions")], print_component_status, None),
        ("apps", "Deployment", [
            name, _col("Ready", s, "Number of the pod with ready state"),
            _col("Up-to-date", s, _doc("extensions/v1beta1.DeploymentStatus.updatedReplicas")),
            _col("Available", s, _doc("extensions/v1beta1.DeploymentStatus.availableReplicas")), age,
            *_wide_containers("extensions/v1beta1.DeploymentSpec.selector")], print_deployment, None),
        ("autoscaling", "HorizontalPodAutoscaler", [
            name, _col("Reference", s, _doc("autoscaling/v2.HorizontalPodAutoscalerSpec.scaleTargetRef")),
            _col("Targets", s, _doc("autoscaling/v2.HorizontalPodAutoscalerSpec.metrics")),
            _col("MinPods", s, _doc("autoscaling/v2.HorizontalPodAutoscalerSpec.minReplicas")),
            _col("MaxPods", s, _doc("autoscaling/v2.HorizontalPodAutoscalerSpec.maxReplicas")),
            _col("Replicas", s, _doc("autoscaling/v2.HorizontalPodAutoscalerStatus.currentReplicas")), age],
         print_horizontal_pod_autoscaler, None),
        ("core", "ConfigMap", [name, _col("Data", s, _doc("core/v1.ConfigMap.data")), age], print_config_map, None),
        ("networking", "NetworkPolicy", [
            name, _col("Pod-Selector", s, _doc("extensions/v1beta1.NetworkPolicySpec.podSelector")), age],
         print_network_policy, None),
        ("rbac", "RoleBinding", _binding_columns("roleBinding", "rbac/v1beta1.RoleBinding.roleRef"),
         print_role_binding, None),
        ("rbac", "ClusterRoleBinding", _binding_columns("clusterRoleBinding",
                                                        "rbac/v1beta1.ClusterRoleBinding.roleRef"),
         print_role_binding, None),
        ("certificates", "CertificateSigningRequest", [
            name, age, _col("SignerName", s, _doc("certificates/v1beta1.CertificateSigningRequestSpec.signerName")),
            _col("Requestor", s, _doc("certificates/v1beta1.CertificateSigningRequestSpec.request")),
            _col("RequestedDuration", s,
                 _doc("certificates/v1beta1.CertificateSigningRequestSpec.expirationSeconds")),
            _col("Condition", s, _doc("certificates/v1beta1.CertificateSigningRequestStatus.conditions"))],
         print_certificate_signing_request, None),
        ("certificates", "ClusterTrustBundle", [
            name, _col("SignerName", s, _doc("certificates/v1alpha1.ClusterTrustBundleSpec.signerName"))],
         print_cluster_trust_bundle, None),
        ("coordination", "Lease", [name, _col("Holder", s, _doc("coordination/v1.LeaseSpec.holderIdentity")), age],
         print_lease, None),
        ("coordination", "LeaseCandidate", [
            name, _col("LeaseName", s, _doc("coordination/v1alpha2.LeaseCandidateSpec.leaseName")),
            _col("BinaryVersion", s, _doc("meta/v1.ObjectMeta.binaryVersion")),
            _col("EmulationVersion", s, _doc("meta/v1.ObjectMeta.emulationVersion")), age],
         print_lease_candidate, None),
        ("storage", "StorageClass", [
            name, _col("Provisioner", s, _doc("storage/v1.StorageClass.provisioner")),
            _col("ReclaimPolicy", s, _doc("storage/v1.StorageClass.reclaimPolicy")),
            _col("VolumeBindingMode", s, _doc("storage/v1.StorageClass.volumeBindingMode")),
            _col("AllowVolumeExpansion", s, _doc("storage/v1.StorageClass.allowVolumeExpansion")), age],
         print_storage_class, None),
        ("storage", "VolumeAttributesClass", [
            name, _col("DriverName", s, _doc("storage/v1beta1.VolumeAttributesClass.driverName")), age],
         print_volume_attributes_class, None),
        ("meta", "Status", [
            _col("Status", s, _doc("meta/v1.Status.status")), _col("Reason", s, _doc("meta/v1.Status.reason")),
            _col("Message", s, _doc("meta/v1.Status.Message"))], print_status, False),
        ("apps", "ControllerRevision", [
            name, _col("Controller", s, "Controller of the object"),
            _col("Revision", s, _doc("apps/v1beta1.ControllerRevision.revision")), age],
         print_controller_revision, None),
        ("core", "ResourceQuota", [
            name, _col("Request", s, "Request represents a minimum amount of cpu/memory that a container may "
                                     "consume."),
            _col("Limit", s, "Limits control the maximum amount of cpu/memory that a container may use "
                             "independent of contention on the node."), age], print_resource_quota, None),
        ("scheduling", "PriorityClass", [
            name, _col("Value", i, _doc("scheduling/v1.PriorityClass.value")),
            _col("Global-Default", b, _doc("scheduling/v1.PriorityClass.globalDefault")), age,
            _col("PreemptionPolicy", s, _doc("scheduling/v1.PriorityClass.preemptionPolicy"))],
         print_priority_class, None),
        ("node", "RuntimeClass", [name, _col("Handler", s, _doc("meta/v1.ObjectMeta.handler")), age],
         print_runtime_class, None),
        ("storage", "VolumeAttachment", [
            name, _col("Attacher", s, _doc("storage/v1.VolumeAttachmentSpec.attacher"), format_="name"),
            _col("PV", s, _doc("storage/v1.VolumeAttachmentSource.persistentVolumeName")),
            _col("Node", s, _doc("storage/v1.VolumeAttachmentSpec.nodeName")),
            _col("Attached", b, _doc("storage/v1.VolumeAttachmentStatus.attached")), age],
         print_volume_attachment, None),
        ("discovery", "EndpointSlice", [
            name, _col("AddressType", s, _doc("discovery/v1beta1.EndpointSlice.addressType")),
            _col("Ports", s, _doc("discovery/v1beta1.EndpointSlice.ports")),
            _col("Endpoints", s, _doc("discovery/v1beta1.EndpointSlice.endpoints")), age],
         print_endpoint_slice, None),
        ("storage", "CSINode", [
            name, _col("Drivers", i, "Drivers indicates the number of CSI drivers registered on the node"), age],
         print_csi_node, None),
        ("storage", "CSIDriver", [
            name, _col("AttachRequired", b, _doc("storage/v1.CSIDriverSpec.attachRequired")),
            _col("PodInfoOnMount", b, _doc("storage/v1.CSIDriverSpec.podInfoOnMount")),
            _col("StorageCapacity", b, _doc("storage/v1.CSIDriverSpec.storageCapacity")),
            _col("TokenRequests", s, _doc("storage/v1.CSIDriverSpec.tokenRequests")),
            _col("RequiresRepublish", b, _doc("storage/v1.CSIDriverSpec.requiresRepublish")),
            _col("Modes", s, _doc("storage/v1.CSIDriverSpec.volumeLifecycleModes")), age],
         print_csi_driver, None),
        ("storage", "CSIStorageCapacity", [
            name, _col("StorageClassName", s, _doc("storage/v1.CSIStorageCapacity.storageClassName")),
            _col("Capacity", s, _doc("storage/v1.CSIStorageCapacity.capacity"))], print_csi_storage_capacity, None),
        ("admissionregistration", "MutatingWebhookConfiguration", _webhook_columns(), _count_row("webhooks"), None),
        ("admissionregistration", "ValidatingWebhookConfiguration", _webhook_columns(), _count_row("webhooks"),
         None),
        ("admissionregistration", "ValidatingAdmissionPolicy", [
            name, _col("Validations", i, "Validations indicates the number of validation rules defined in this "
                                         "configuration"),
            _col("ParamKind", s, "ParamKind specifies the kind of resources used to parameterize this policy"), age],
         _policy_row("validations"), None),
        ("admissionregistration", "ValidatingAdmissionPolicyBinding", _policy_binding_columns(),
         print_admission_policy_binding, None),
        ("admissionregistration", "MutatingAdmissionPolicy", [
            name, _col("Mutations", i, "Mutation indicates the number of mutations rules defined in this "
                                       "configuration"),
            _col("ParamKind", s, "ParamKind specifies the kind of resources used to parameterize this policy"), age],
         _policy_row("mutations"), None),
        ("admissionregistration", "MutatingAdmissionPolicyBinding", _policy_binding_columns(),
         print_admission_policy_binding, None),
        ("flowcontrol", "FlowSchema", [
            name, _col("PriorityLevel", s, _doc("flowcontrol/v1.PriorityLevelConfigurationReference.name")),
            _col("MatchingPrecedence", s, _doc("flowcontrol/v1.FlowSchemaSpec.matchingPrecedence")),
            _col("DistinguisherMethod", s, _doc("flowcontrol/v1.FlowSchemaSpec.distinguisherMethod")), age,
            _col("MissingPL", s, "references a broken or non-existent PriorityLevelConfiguration")],
         print_flow_schema, print_flow_schema_list),
        ("flowcontrol", "PriorityLevelConfiguration", [
            name, _col("Type", s, _doc("flowcontrol/v1.PriorityLevelConfigurationSpec.type")),
            _col("NominalConcurrencyShares", s,
                 _doc("flowcontrol/v1.LimitedPriorityLevelConfiguration.nominalConcurrencyShares")),
            _col("Queues", s, _doc("flowcontrol/v1.QueuingConfiguration.queues")),
            _col("HandSize", s, _doc("flowcontrol/v1.QueuingConfiguration.handSize")),
            _col("QueueLengthLimit", s, _doc("flowcontrol/v1.QueuingConfiguration.queueLengthLimit")), age],
         print_priority_level_configuration, None),
        ("apiserverinternal", "StorageVersion", [
            name, _col("CommonEncodingVersion", s,
                       _doc("apiserverinternal/v1alpha1.StorageVersionStatus.commonEncodingVersion")),
            _col("StorageVersions", s, _doc("apiserverinternal/v1alpha1.StorageVersionStatus.storageVersions")), age],
         print_storage_version, None),
        ("autoscaling", "Scale", [
            _col("Name", s, _doc("meta/v1.ObjectMeta.name")),
            _col("Desired", i, _doc("autoscaling/v1.ScaleSpec.replicas")),
            _col("Available", i, _doc("autoscaling/v1.ScaleStatus.replicas")), age], print_scale, False),
        ("resource", "DeviceClass", [name, age], print_name_age, None),
        ("resource", "ResourceClaim", [
            name, _col("State", s, "A summary of the current state (allocated, pending, reserved, etc.)."), age],
         print_resource_claim, None),
        ("resource", "ResourceClaimTemplate", [name, age], print_name_age, None),
        ("resource", "ResourceSlice", [
            name, _col("Node", s, _doc("resource/v1beta1.ResourceSliceSpec.nodeName")),
            _col("Driver", s, _doc("resource/v1beta1.ResourceSliceSpec.driver")),
            _col("Pool", s, _doc("resource/v1beta1.ResourcePool.name")), age], print_resource_slice, None),
        ("networking", "ServiceCIDR", [name, _col("CIDRs", s, _doc("networking/v1beta1.ServiceCIDRSpec.cidrs")), age],
         print_service_cidr, None),
        ("networking", "IPAddress", [name, _col("ParentRef", s, _doc("networking/v1beta1.IPAddressSpec.parentRef"))],
         print_ip_address, None),
        ("storagemigration", "StorageVersionMigration", [
            _col("Name", s, _doc("meta/v1.ObjectMeta.name")), _col("Resource", s, "Fully qualified resource to migrate")],
         print_storage_version_migration, None),
    ]
    return out


def _binding_columns(what: str, role_ref_doc: str) -> list[TableColumnDefinition]:
    s = "string"
    return [_name_col(), _col("Role", s, _doc(role_ref_doc)), _age_col(),
            _col("Users", s, f"Users in the {what}", priority=1),
            _col("Groups", s, f"Groups in the {what}", priority=1),
            _col("ServiceAccounts", s, f"ServiceAccounts in the {what}", priority=1)]


def _webhook_columns() -> list[TableColumnDefinition]:
    return [_name_col(), _col("Webhooks", "integer", "Webhooks indicates the number of webhooks registered in this "
                                                     "configuration"), _age_col()]


def _policy_binding_columns() -> list[TableColumnDefinition]:
    s = "string"
    return [_name_col(),
            _col("PolicyName", s, "PolicyName indicates the policy definition which the policy binding binded to"),
            _col("ParamRef", s, "ParamRef indicates the param resource which sets the configration param"),
            _age_col()]


def add_handlers(generator: TableGenerator) -> None:
    """Go's ``AddHandlers``: register the handler of every built-in kind and of its list."""
    for package, kind, columns, print_item, print_list in _columns():
        generator.table_handler((package, kind), columns, print_item)
        if print_list is not False:
            generator.table_handler((package, kind + "List"), columns, print_list or _list_of(print_item))


# ------------------------------------------------------------------ horizontal pod autoscalers

def _q(value: Any) -> str:
    return str(value) if value is not None else "<nil>"


def _hpa_metric(spec: Any, status: Any) -> str:
    type_ = spec.type
    if type_ == "External":
        target = spec.external.target
        cur = status.external if status is not None else None
        if target.average_value is not None:
            current = str(cur.current.average_value) if cur is not None and cur.current.average_value is not None \
                else "<unknown>"
            return f"{current}/{target.average_value} (avg)"
        current = _q(cur.current.value) if cur is not None else "<unknown>"
        return f"{current}/{_q(target.value)}"
    if type_ == "Pods":
        cur = status.pods if status is not None else None
        current = _q(cur.current.average_value) if cur is not None else "<unknown>"
        return f"{current}/{_q(spec.pods.target.average_value)}"
    if type_ == "Object":
        target = spec.object.target
        cur = status.object if status is not None else None
        if target.average_value is not None:
            current = str(cur.current.average_value) if cur is not None and cur.current.average_value is not None \
                else "<unknown>"
            return f"{current}/{target.average_value} (avg)"
        current = _q(cur.current.value) if cur is not None else "<unknown>"
        return f"{current}/{_q(target.value)}"
    if type_ in ("Resource", "ContainerResource"):
        source = spec.resource if type_ == "Resource" else spec.container_resource
        cur = None
        if status is not None:
            cur = status.resource if type_ == "Resource" else status.container_resource
        target = source.target
        if target.average_value is not None:
            current = _q(cur.current.average_value) if cur is not None else "<unknown>"
            return f"{source.name}: {current}/{target.average_value}"
        current = "<unknown>"
        if cur is not None and cur.current.average_utilization is not None:
            current = f"{cur.current.average_utilization}%"
        goal = f"{target.average_utilization}%" if target.average_utilization is not None else "<auto>"
        return f"{source.name}: {current}/{goal}"
    return "<unknown type>"


def format_hpa_metrics(specs: Iterable[Any] | None, statuses: Iterable[Any] | None) -> str:
    """Go's ``formatHPAMetrics``: at most two targets, then "+ N more..."."""
    specs = _items(specs)
    statuses = _items(statuses)
    if not specs:
        return "<none>"
    texts = [_hpa_metric(spec, statuses[i] if len(statuses) > i else None) for i, spec in enumerate(specs)]
    if len(texts) > 2:
        return ", ".join(texts[:2]) + f" + {len(texts) - 2} more..."
    return ", ".join(texts)


def print_horizontal_pod_autoscaler(obj: Any, options: GenerateOptions) -> list[TableRow]:
    spec = obj.spec
    reference = f"{spec.scale_target_ref.kind}/{spec.scale_target_ref.name}"
    min_pods = str(spec.min_replicas) if spec.min_replicas is not None else "<unset>"
    return [_row(obj, obj.metadata.name, reference, format_hpa_metrics(spec.metrics, obj.status.current_metrics),
                 min_pods, spec.max_replicas, obj.status.current_replicas,
                 translate_timestamp_since(obj.metadata.creation_timestamp))]

