"""Conversions between core/v1 and the internal core version.

Follows kubernetes/kubernetes pkg/apis/core/v1/conversion.go: the generated field-by-field
functions for every struct (:func:`kcodec.api._hub.register_version`) plus the places where
the internal type keeps a value elsewhere:

* PodSpec: ``serviceAccount`` is a deprecated alias of ``serviceAccountName`` (read when the
  latter is empty, written back as a copy); ``hostNetwork``/``hostPID``/``hostIPC``/
  ``hostUsers`` live in the internal PodSecurityContext, which therefore always exists
  internally (so a converted pod shows ``securityContext: {}``, as Go's does).
* PodStatus ``podIP``/``hostIP`` and NodeSpec ``podCIDR`` are the first entries of the
  plural lists (filled from the singular field when the list is empty).
* Secret ``stringData`` is write-only: merged into ``data`` on the way in.
"""
from __future__ import annotations

from typing import Any

from kcodec import speedups
from kcodec.api._hub import register_version
from kcodec.api.core import internal as api
from kcodec.api.core import v1
from kcodec.conversion import Scope

__all__ = ["add_conversion_funcs"]

# The overrides below write slots directly: each value comes from a field of the same Go
# type (or is a fresh struct of the field's class), which is all Struct.__setattr__ would
# check, and that check was a fifth of these functions' time.
_set = object.__setattr__


# -- PodSpec ----------------------------------------------------------------------------------

def _v1_service_account(src: v1.PodSpec, dst: api.PodSpec, scope: Scope) -> None:
    _set(dst, "service_account_name", src.service_account_name or src.deprecated_service_account)


def _v1_pod_security_context(src: v1.PodSpec, dst: api.PodSpec, scope: Scope) -> None:
    # The zero value from the compiled table: a twentieth of _new_zero's Python loop, once
    # per converted PodSpec (every Deployment, StatefulSet, Job... template).
    out = speedups.new_zero(api.PodSecurityContext)
    if src.security_context is not None:
        scope.convert(src.security_context, out)
    _set(out, "host_network", src.host_network)
    _set(out, "host_pid", src.host_pid)
    _set(out, "host_ipc", src.host_ipc)
    _set(out, "host_users", src.host_users)
    _set(dst, "security_context", out)


def _api_deprecated_service_account(src: api.PodSpec, dst: v1.PodSpec, scope: Scope) -> None:
    _set(dst, "deprecated_service_account", src.service_account_name)


def _api_host_fields(src: api.PodSpec, dst: v1.PodSpec, scope: Scope) -> None:
    sc = src.security_context
    if sc is not None:
        _set(dst, "host_network", sc.host_network)
        _set(dst, "host_pid", sc.host_pid)
        _set(dst, "host_ipc", sc.host_ipc)
        _set(dst, "host_users", sc.host_users)


# -- PodStatus, NodeSpec ------------------------------------------------------------------------

def _v1_pod_ips(src: v1.PodStatus, dst: api.PodStatus, scope: Scope) -> None:
    if src.pod_ips:
        dst.pod_ips = [api.PodIP(ip=p.ip) for p in src.pod_ips]
    elif src.pod_ip:
        dst.pod_ips = [api.PodIP(ip=src.pod_ip)]
    else:
        dst.pod_ips = None if src.pod_ips is None else []


def _v1_host_ips(src: v1.PodStatus, dst: api.PodStatus, scope: Scope) -> None:
    if src.host_ips:
        dst.host_ips = [api.HostIP(ip=p.ip) for p in src.host_ips]
    elif src.host_ip:
        dst.host_ips = [api.HostIP(ip=src.host_ip)]
    else:
        dst.host_ips = None if src.host_ips is None else []


def _api_pod_ip(src: api.PodStatus, dst: v1.PodStatus, scope: Scope) -> None:
    dst.pod_ip = src.pod_ips[0].ip if src.pod_ips else ""


def _api_host_ip(src: api.PodStatus, dst: v1.PodStatus, scope: Scope) -> None:
    dst.host_ip = src.host_ips[0].ip if src.host_ips else ""


def _v1_pod_cidrs(src: v1.NodeSpec, dst: api.NodeSpec, scope: Scope) -> None:
    if not src.pod_cidrs and src.pod_cidr:
        dst.pod_cidrs = [src.pod_cidr]
    else:
        dst.pod_cidrs = None if src.pod_cidrs is None else list(src.pod_cidrs)


def _api_pod_cidr(src: api.NodeSpec, dst: v1.NodeSpec, scope: Scope) -> None:
    dst.pod_cidr = src.pod_cidrs[0] if src.pod_cidrs else ""


# -- Secret -------------------------------------------------------------------------------------

def _v1_secret_data(src: v1.Secret, dst: api.Secret, scope: Scope) -> None:
    data = src.data
    if src.string_data:
        data = dict(data or {})
        for k, v in src.string_data.items():
            data[k] = v.encode("utf-8")
    dst.data = data


def add_conversion_funcs(scheme: Any) -> None:
    """Register core/v1 <-> internal conversions with ``scheme``."""
    register_version(
        scheme, v1, [api],
        to_internal={
            "PodSpec": {"service_account_name": _v1_service_account,
                        "security_context": _v1_pod_security_context},
            "PodStatus": {"pod_ips": _v1_pod_ips, "host_ips": _v1_host_ips},
            "NodeSpec": {"pod_cidrs": _v1_pod_cidrs},
            "Secret": {"data": _v1_secret_data},
        },
        to_external={
            "PodSpec": {"deprecated_service_account": _api_deprecated_service_account,
                        "host_network": _api_host_fields},
            "PodStatus": {"pod_ip": _api_pod_ip, "host_ip": _api_host_ip},
            "NodeSpec": {"pod_cidr": _api_pod_cidr},
        },
    )
