"""``componentstatuses`` (deprecated, still served by 1.36): the health of the control plane
components, probed on every get and list.

Go: k/k ``pkg/registry/core/componentstatus/rest.go`` and ``validator.go``: the scheduler
(``https://127.0.0.1:10259/healthz``) and the controller manager (``:10257``) are probed
over HTTPS (certificates not verified); the storage backends (``etcd-0``...) answer through
their client. An HTTP probe that fails is ``Healthy: False`` with the error as the message
(``probe/http``: a failed request is a probe failure, not an error).
"""
from __future__ import annotations

import socket
import ssl
import urllib.error
import urllib.request
from typing import Any, Callable

from kcodec.api import errors as apierrors
from kcodec.registry.request import Context
from kcodec.schema import GroupResource

__all__ = ["ComponentStatusREST", "http_probe", "kv_probe"]

_PROBE_TIMEOUT = 20.0  # Go's probeTimeOut
Probe = Callable[[], "tuple[str, str, str]"]  # (status True|False|Unknown, message, error)


def http_probe(url: str, timeout: float = _PROBE_TIMEOUT) -> Probe:
    """A probe of ``url``: "True" with the body on a 2xx/3xx answer, "False" otherwise."""

    def probe() -> tuple[str, str, str]:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        try:
            with urllib.request.urlopen(url, timeout=timeout, context=context) as resp:  # noqa: S310 - fixed URL
                body = resp.read(10 * 1024).decode("utf-8", "replace")
                return "True", body, ""
        except urllib.error.HTTPError as exc:
            return "False", f"HTTP probe failed with statuscode: {exc.code}", ""
        except (urllib.error.URLError, OSError) as exc:
            return "False", _go_dial_error(url, exc), ""

    return probe


def _go_dial_error(url: str, exc: BaseException) -> str:
    """The text Go's HTTP client gives for a failed request (connection refused, timeout)."""
    from urllib.parse import urlsplit

    reason = getattr(exc, "reason", exc)
    host = urlsplit(url).netloc
    if isinstance(reason, ConnectionRefusedError):
        return f'Get "{url}": dial tcp {host}: connect: connection refused'
    if isinstance(reason, (socket.timeout, TimeoutError)):
        return f'Get "{url}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)'
    return f'Get "{url}": {reason}'


def kv_probe(kv: Any) -> Probe:
    """A storage backend answers when it reports its current revision."""

    def probe() -> tuple[str, str, str]:
        try:
            kv.current_revision()
        except Exception as exc:  # noqa: BLE001 - any failure is an unhealthy backend
            return "False", "", str(exc)
        return "True", "ok", ""

    return probe


class ComponentStatusREST:
    """``componentstatuses``: get and list (cluster-scoped, read-only)."""

    def __init__(self, servers: dict[str, Probe]) -> None:
        self.servers = dict(servers)

    def __repr__(self) -> str:
        return f"ComponentStatusREST({sorted(self.servers)})"

    @classmethod
    def for_getter(cls, getter: Any) -> ComponentStatusREST:
        """Go's ``GetServersToValidate``: scheduler, controller manager, and each backend the
        getter uses (``etcd-<i>``, in server-list order)."""
        servers: dict[str, Probe] = {
            "scheduler": http_probe("https://127.0.0.1:10259/healthz"),
            "controller-manager": http_probe("https://127.0.0.1:10257/healthz"),
        }
        config = getattr(getattr(getter, "storage_factory", None), "storage_config", None)
        if config is not None and hasattr(getter, "kv_for"):
            servers["etcd-0"] = kv_probe(getter.kv_for(config))
        return cls(servers)

    def new(self) -> Any:
        from kcodec.api.core import internal as core

        return core.ComponentStatus()

    def new_list(self) -> Any:
        from kcodec.api.core import internal as core

        return core.ComponentStatusList()

    def namespace_scoped(self) -> bool:
        return False

    def get_single_name(self) -> str:
        return "componentstatus"

    def short_names(self) -> list[str]:
        return ["cs"]

    def categories(self) -> list[str]:
        return []

    def verbs(self) -> list[str]:
        return ["get", "list"]

    def _status(self, name: str, probe: Probe) -> Any:
        from kcodec.api.core import internal as core

        status, message, error = probe()
        out = core.ComponentStatus(conditions=[core.ComponentCondition(type="Healthy", status=status,
                                                                       message=message, error=error)])
        out.metadata.name = name
        return out

    def get(self, ctx: Context, name: str, options: Any = None) -> Any:
        probe = self.servers.get(name)
        if probe is None:
            raise apierrors.new_not_found(GroupResource("", "componentstatus"), name)
        return self._status(name, probe)

    def list(self, ctx: Context, options: Any = None) -> Any:
        """Every component, filtered by the label and field selectors (metadata.name only)."""
        out = self.new_list()
        items = []
        for name in sorted(self.servers):
            status = self._status(name, self.servers[name])
            label = getattr(options, "label_selector", None)
            field = getattr(options, "field_selector", None)
            if label is not None and not label.matches({}):
                continue
            if field is not None and not field.matches({"metadata.name": name}):
                continue
            items.append(status)
        out.items = items
        return out

    def convert_to_table(self, ctx: Context, obj: Any, table_options: Any = None) -> Any:
        from kcodec.registry.rest import DefaultTableConvertor

        try:
            from kcodec.printers import TableConvertor, default_table_generator
        except ImportError:
            return DefaultTableConvertor(GroupResource("", "componentstatuses")).convert_to_table(ctx, obj, table_options)
        generator = default_table_generator()
        if generator.handles(obj):
            return TableConvertor(generator).convert_to_table(ctx, obj, table_options)
        return DefaultTableConvertor(GroupResource("", "componentstatuses")).convert_to_table(ctx, obj, table_options)
