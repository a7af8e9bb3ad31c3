"""The request context the registry works in (apiserver ``pkg/endpoints/request``).

Go threads a ``context.Context`` carrying the request's namespace, user and RequestInfo
through every registry call, and the ``warning`` package collects the warnings the
strategies add. :class:`Context` is that: a small mutable record made per request.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

__all__ = ["Context", "RequestInfo", "UserInfo", "new_context", "with_namespace"]


@dataclass
class UserInfo:
    """Go's ``user.DefaultInfo``: who makes the request."""

    name: str = ""
    uid: str = ""
    groups: list[str] = field(default_factory=list)
    extra: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class RequestInfo:
    """Go's ``request.RequestInfo``: what the URL asked for."""

    is_resource_request: bool = True
    path: str = ""
    verb: str = ""
    api_prefix: str = ""
    api_group: str = ""
    api_version: str = ""
    namespace: str = ""
    resource: str = ""
    subresource: str = ""
    name: str = ""
    parts: list[str] = field(default_factory=list)


@dataclass
class Context:
    """The request context: ``namespace`` ("" for cluster-scoped requests and for lists
    across all namespaces), ``user``, ``request_info`` (when the request came through a
    URL; errors then name the URL's resource, as Go's ``qualifiedResourceFromContext``),
    and ``warnings``, where strategies add what Go's ``warning.AddWarning`` records (the
    server sends them as ``Warning: 299 - "..."`` headers).
    """

    namespace: str = ""
    user: UserInfo | None = None
    request_info: RequestInfo | None = None
    warnings: list[str] = field(default_factory=list)
    values: dict[str, Any] = field(default_factory=dict)

    def with_namespace(self, namespace: str) -> Context:
        """A copy in ``namespace`` (sharing the warnings list, as Go's derived contexts share the recorder)."""
        return replace(self, namespace=namespace)

    def add_warning(self, text: str) -> None:
        """Record a warning once (Go's recorder drops duplicates and empty texts)."""
        if text and text not in self.warnings:
            self.warnings.append(text)


def new_context(namespace: str = "", **kwargs: Any) -> Context:
    """Go's ``request.NewContext`` / ``WithNamespace(NewContext(), ns)``."""
    return Context(namespace=namespace, **kwargs)


def with_namespace(ctx: Context, namespace: str) -> Context:
    """Go's ``request.WithNamespace``."""
    return ctx.with_namespace(namespace)
