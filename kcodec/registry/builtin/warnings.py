"""Warnings for Pods and pod templates (k/k ``pkg/api/pod/warnings.go``
``GetWarningsForPod`` / ``GetWarningsForPodTemplate``), as the strategies of Pods,
PodTemplates and the workloads return them from ``WarningsOnCreate``/``WarningsOnUpdate``
(the server sends them as ``Warning: 299 - "..."`` headers).

Covered: deprecated node labels in nodeSelector, node affinity terms and topology keys
(``pkg/api/node``), topology spread constraints without a labelSelector, deprecated
annotations and volume plugins, duplicate hostAliases and imagePullSecrets, empty
imagePullSecret names, fractional byte quantities, seccomp annotations without the field,
env entries that hide earlier ones, and duplicate or overlapping container ports.
"""
from __future__ import annotations

from typing import Any, Iterator

from kcodec.gofmt import quote

__all__ = ["warnings_for_pod", "warnings_for_pod_template", "node_label_deprecated_message"]

_DEPRECATED_NODE_LABELS = {
    "beta.kubernetes.io/arch": 'deprecated since v1.14; use "kubernetes.io/arch" instead',
    "beta.kubernetes.io/os": 'deprecated since v1.14; use "kubernetes.io/os" instead',
    "failure-domain.beta.kubernetes.io/region": 'deprecated since v1.17; use "topology.kubernetes.io/region" instead',
    "failure-domain.beta.kubernetes.io/zone": 'deprecated since v1.17; use "topology.kubernetes.io/zone" instead',
    "beta.kubernetes.io/instance-type": 'deprecated since v1.17; use "node.kubernetes.io/instance-type" instead',
}

_DEPRECATED_ANNOTATIONS = (
    ("scheduler.alpha.kubernetes.io/critical-pod", 'non-functional in v1.16+; use the "priorityClassName" field instead'),
    ("security.alpha.kubernetes.io/sysctls", 'non-functional in v1.11+; use the "sysctls" field instead'),
    ("security.alpha.kubernetes.io/unsafe-sysctls", 'non-functional in v1.11+; use the "sysctls" field instead'),
)

_DEPRECATED_VOLUMES = (
    ("photon_persistent_disk", "photonPersistentDisk", "deprecated in v1.11, non-functional in v1.16+"),
    ("git_repo", "gitRepo", "deprecated in v1.11"),
    ("scale_io", "scaleIO", "deprecated in v1.16, non-functional in v1.22+"),
    ("flocker", "flocker", "deprecated in v1.22, non-functional in v1.25+"),
    ("storage_os", "storageOS", "deprecated in v1.22, non-functional in v1.25+"),
    ("quobyte", "quobyte", "deprecated in v1.22, non-functional in v1.25+"),
    ("glusterfs", "glusterfs", "deprecated in v1.25, non-functional in v1.26+"),
    ("ceph_fs", "cephfs", "deprecated in v1.28, non-functional in v1.31+"),
    ("rbd", "rbd", "deprecated in v1.28, non-functional in v1.31+"),
)

_SECCOMP_POD = "seccomp.security.alpha.kubernetes.io/pod"
_SECCOMP_CONTAINER_PREFIX = "container.seccomp.security.alpha.kubernetes.io/"


def node_label_deprecated_message(label: str) -> tuple[str, bool]:
    """k/k ``nodeapi.GetNodeLabelDeprecatedMessage``."""
    msg = _DEPRECATED_NODE_LABELS.get(label)
    return (msg, True) if msg is not None else ("", False)


class _P:
    """Go's ``*field.Path`` for the warnings (a nil prefix prints as the child alone)."""

    def __init__(self, text: str = "") -> None:
        self.text = text

    def child(self, *names: str) -> _P:
        text = self.text
        for n in names:
            text = f"{text}.{n}" if text else n
        return _P(text)

    def index(self, i: int) -> _P:
        return _P(f"{self.text}[{i}]")

    def key(self, k: str) -> _P:
        return _P(f"{self.text}[{k}]")

    def __str__(self) -> str:
        return self.text


def _containers(spec: Any, path: _P) -> Iterator[tuple[Any, _P]]:
    """k/k ``pods.VisitContainersWithPath``: init containers, containers, ephemeral containers."""
    for i, c in enumerate(spec.init_containers or ()):
        yield c, path.child("initContainers").index(i)
    for i, c in enumerate(spec.containers or ()):
        yield c, path.child("containers").index(i)
    for i, c in enumerate(spec.ephemeral_containers or ()):
        yield c.ephemeral_container_common, path.child("ephemeralContainers").index(i)


def _fractional(q: Any) -> bool:
    try:
        return q.milli_value() % 1000 != 0
    except (AttributeError, OverflowError, ValueError):
        return False


def _node_selector_term_warnings(term: Any, path: _P) -> list[str]:
    out = []
    for j, r in enumerate(term.match_expressions or ()):
        msg, deprecated = node_label_deprecated_message(r.key)
        if deprecated:
            out.append(f"{path.child('matchExpressions').index(j).child('key')}: {r.key} is {msg}")
    return out


def _port_text(port: Any) -> str:
    """Go's ``%+v`` of an internal ``ContainerPort``."""
    return (f"{{Name:{port.name} HostPort:{port.host_port} ContainerPort:{port.container_port} "
            f"Protocol:{port.protocol} HostIP:{port.host_ip}}}")


def _warnings(field_path: _P, spec: Any, meta: Any) -> list[str]:
    warnings: list[str] = []
    for k in spec.node_selector or {}:
        msg, deprecated = node_label_deprecated_message(k)
        if deprecated:
            warnings.append(f"{field_path.child('spec', 'nodeSelector').key(k)}: {msg}")
    affinity = spec.affinity
    if affinity is not None and affinity.node_affinity is not None:
        n = affinity.node_affinity
        if n.required_during_scheduling_ignored_during_execution is not None:
            terms_path = field_path.child("spec", "affinity", "nodeAffinity",
                                          "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
            for i, term in enumerate(n.required_during_scheduling_ignored_during_execution.node_selector_terms or ()):
                warnings.extend(_node_selector_term_warnings(term, terms_path.index(i)))
        preferred = field_path.child("spec", "affinity", "nodeAffinity",
                                     "preferredDuringSchedulingIgnoredDuringExecution")
        for i, term in enumerate(n.preferred_during_scheduling_ignored_during_execution or ()):
            warnings.extend(_node_selector_term_warnings(term.preference, preferred.index(i).child("preference")))
    for i, t in enumerate(spec.topology_spread_constraints or ()):
        tsc = field_path.child("spec", "topologySpreadConstraints").index(i)
        msg, deprecated = node_label_deprecated_message(t.topology_key)
        if deprecated:
            warnings.append(f"{tsc.child('topologyKey')}: {t.topology_key} is {msg}")
        if t.label_selector is None:
            warnings.append(f"{tsc.child('labelSelector')}: a null labelSelector results in matching no pod")
    annotations = meta.annotations or {}
    for key, message in _DEPRECATED_ANNOTATIONS:
        if key in annotations:
            warnings.append(f"{field_path.child('metadata', 'annotations').key(key)}: {message}")
    for i, v in enumerate(spec.volumes or ()):
        source = v.volume_source
        for attr, json_name, message in _DEPRECATED_VOLUMES:
            if getattr(source, attr, None) is not None:
                warnings.append(f"{field_path.child('spec', 'volumes').index(i).child(json_name)}: {message}")
    if len(spec.host_aliases or ()) > 1:
        seen: set[str] = set()
        for i, alias in enumerate(spec.host_aliases):
            if alias.ip in seen:
                warnings.append(f"{field_path.child('spec', 'hostAliases').index(i).child('ip')}: duplicate ip "
                                f"{quote(alias.ip)}")
            else:
                seen.add(alias.ip)
    secrets = spec.image_pull_secrets or ()
    if len(secrets) > 1:
        seen = set()
        for i, ref in enumerate(secrets):
            if ref.name in seen:
                warnings.append(f"{field_path.child('spec', 'imagePullSecrets').index(i).child('name')}: "
                                f"duplicate name {quote(ref.name)}")
            else:
                seen.add(ref.name)
    for i, ref in enumerate(secrets):
        if not ref.name:
            warnings.append(f"{field_path.child('spec', 'imagePullSecrets').index(i).child('name')}: "
                            f"invalid empty name {quote(ref.name)}")
    for resource in ("memory", "ephemeral-storage"):
        value = (spec.overhead or {}).get(resource)
        if value is not None and _fractional(value):
            warnings.append(f"{field_path.child('spec', 'overhead').key(resource)}: fractional byte value "
                            f"{quote(str(value))} is invalid, must be an integer")
    if spec.security_context is None or spec.security_context.seccomp_profile is None:
        if _SECCOMP_POD in annotations:
            warnings.append(f"{field_path.child('metadata', 'annotations').key(_SECCOMP_POD)}: non-functional in "
                            'v1.27+; use the "seccompProfile" field instead')
    spec_path = field_path.child("spec")
    for c, p in _containers(spec, spec_path):
        key = _SECCOMP_CONTAINER_PREFIX + c.name
        if (c.security_context is None or c.security_context.seccomp_profile is None) and key in annotations:
            warnings.append(f"{field_path.child('metadata', 'annotations').key(key)}: non-functional in v1.27+; "
                            'use the "seccompProfile" field instead')
        resources = c.resources
        limits = (resources.limits if resources else None) or {}
        requests = (resources.requests if resources else None) or {}
        for resource in ("memory", "ephemeral-storage"):  # Go's order: limits then requests of each
            for kind, values in (("limits", limits), ("requests", requests)):
                value = values.get(resource)
                if value is not None and _fractional(value):
                    warnings.append(f"{p.child('resources', kind).key(resource)}: fractional byte value "
                                    f"{quote(str(value))} is invalid, must be an integer")
        if len(c.env or ()) > 1:
            seen = set()
            for i, item in enumerate(c.env):
                if item.name in seen:
                    ref = f"$({item.name})"
                    if item.value_from is not None or item.value == ref or ref not in item.value:
                        warnings.append(f"{p.child('env').index(i)}: hides previous definition of "
                                        f"{quote(item.name)}, which may be dropped when using apply")
                else:
                    seen.add(item.name)
    all_ports: dict[str, list[tuple[_P, Any]]] = {}
    for c, p in _containers(spec, spec_path):
        for i, port in enumerate(c.ports or ()):
            here = p.child("ports").index(i)
            if port.host_ip and port.host_port == 0:
                warnings.append(f"{here}: hostIP set without hostPort: {_port_text(port)}")
            k = f"{port.container_port}/{port.protocol}"
            for other_path, other in all_ports.get(k, ()):
                if port.host_ip == other.host_ip and port.host_port == other.host_port:
                    warnings.append(f"{here}: duplicate port definition with {other_path}")
                elif port.host_port == 0 or other.host_port == 0:
                    warnings.append(f"{here}: overlapping port definition with {other_path}")
                elif port.host_port == other.host_port and ((port.host_ip == "") != (other.host_ip == "")):
                    warnings.append(f"{here}: dangerously ambiguous port definition with {other_path}")
            all_ports.setdefault(k, []).append((here, port))
    grace = spec.termination_grace_period_seconds
    if grace is not None and grace < 0:
        warnings.append(f"{field_path.child('spec', 'terminationGracePeriodSeconds')}: must be >= 0; negative values "
                        "are invalid and will be treated as 1")
    if affinity is not None:
        for name, terms in (("podAffinity", affinity.pod_affinity), ("podAntiAffinity", affinity.pod_anti_affinity)):
            if terms is None:
                continue
            required = field_path.child("spec", "affinity", name, "requiredDuringSchedulingIgnoredDuringExecution")
            for i, t in enumerate(terms.required_during_scheduling_ignored_during_execution or ()):
                if t.label_selector is None:
                    warnings.append(f"{required.index(i).child('labelSelector')}: a null labelSelector results in "
                                    "matching no pod")
            preferred = field_path.child("spec", "affinity", name, "preferredDuringSchedulingIgnoredDuringExecution")
            for i, t in enumerate(terms.preferred_during_scheduling_ignored_during_execution or ()):
                if t.pod_affinity_term.label_selector is None:
                    warnings.append(f"{preferred.index(i).child('podAffinityTerm', 'labelSelector')}: a null "
                                    "labelSelector results in matching no pod")
    return warnings


def warnings_for_pod(pod: Any, old: Any = None) -> list[str]:
    """k/k ``GetWarningsForPod``."""
    if pod is None:
        return []
    return _warnings(_P(), pod.spec, pod.metadata)


def warnings_for_pod_template(path: str, template: Any, old: Any = None) -> list[str]:
    """k/k ``GetWarningsForPodTemplate`` at ``path`` (``"spec.template"``)."""
    if template is None:
        return []
    return _warnings(_P(path), template.spec, template.metadata)
