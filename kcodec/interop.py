"""Interop with the official ``kubernetes`` Python client and with plain dicts.

The official client speaks JSON only (kubernetes-client/python#166) and spends most of a
large list call turning JSON into its pydantic models. :func:`request` and :func:`watch`
keep the client's configuration, authentication and TLS, but ask the API server for
``application/vnd.kubernetes.protobuf`` (falling back to JSON for kinds the server cannot
write as protobuf, such as custom resources, exactly as client-go's content negotiation
does) and decode the body with kcodec::

    from kubernetes import client, config
    from kcodec import interop

    config.load_kube_config()
    v1 = client.CoreV1Api()
    pods = interop.request(v1.list_namespaced_pod, "default")    # kcodec PodList
    for event in interop.watch(v1.list_namespaced_pod, "default", timeout_seconds=60):
        print(event.type, event.object.metadata.name)

:func:`to_client_model` and :func:`from_client_model` move single objects between kcodec
and the client's models (through their JSON form, which both sides define identically);
:func:`to_dict` and :func:`from_dict` do the same with plain JSON-compatible dicts.

The ``kubernetes`` package is imported only by the functions that need it.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from kcodec.errors import DecodeError, EncodeError, KCodecError

__all__ = [
    "PROTOBUF_ACCEPT",
    "PROTOBUF_WATCH_ACCEPT",
    "client_model_name",
    "from_client_model",
    "from_dict",
    "request",
    "to_client_model",
    "to_dict",
    "watch",
]

#: What client-go sends when a clientset is configured for protobuf: protobuf first,
#: JSON for what the server cannot write as protobuf.
PROTOBUF_ACCEPT = "application/vnd.kubernetes.protobuf, application/json"
PROTOBUF_WATCH_ACCEPT = (
    "application/vnd.kubernetes.protobuf;stream=watch, application/json;stream=watch"
)


def _client() -> Any:
    try:
        import kubernetes.client
    except ImportError as err:  # pragma: no cover - exercised only without the package
        raise ImportError(
            "kcodec.interop needs the official client: pip install kubernetes"
        ) from err
    return kubernetes.client


def to_dict(obj: Any) -> dict[str, Any]:
    """The JSON-compatible dict of ``obj`` (typed or Unstructured), TypeMeta filled."""
    from kcodec._everyday import dump

    return json.loads(dump(obj, "json"))


def from_dict(data: dict[str, Any], *, scheme: Any = None, strict: bool = False) -> Any:
    """The kcodec object for a dict with ``apiVersion`` and ``kind`` (as :func:`kcodec.load`)."""
    from kcodec._everyday import load

    if not isinstance(data, dict):
        raise TypeError(f"from_dict: expected a dict, got {type(data).__name__}")
    return load(json.dumps(data, separators=(",", ":")).encode(), scheme=scheme, strict=strict)


def client_model_name(api_version: str, kind: str) -> str:
    """The official client's model class name for ``apiVersion``/``kind``.

    The client's generator names a model ``<Version><Kind>`` (``V1Pod``,
    ``V2HorizontalPodAutoscaler``) and prefixes the group's first label where two groups
    share the name (``CoreV1Event`` and ``EventsV1Event``).
    """
    client = _client()
    group, _, version = api_version.rpartition("/")
    ver = version[:1].upper() + version[1:]
    first = (group.split(".", 1)[0] if group else "core")
    candidates = (f"{first[:1].upper()}{first[1:]}{ver}{kind}", f"{ver}{kind}")
    for name in candidates:
        if hasattr(client, name):
            return name
    raise KCodecError(
        f"the kubernetes client has no model for {api_version}, Kind={kind} "
        f"(looked for {' and '.join(candidates)})"
    )


def to_client_model(obj: Any, api_client: Any = None) -> Any:
    """``obj`` as the official client's model (``V1Pod``...), through its JSON form."""
    client = _client()
    api_client = api_client or client.ApiClient()
    data = to_dict(obj)
    name = client_model_name(data.get("apiVersion", ""), data.get("kind", ""))
    try:
        return api_client.deserialize(json.dumps(data), name, "application/json")
    except (ValueError, TypeError) as err:
        # The client's pydantic models refuse some objects the API server accepts (e.g. a
        # null time in a PodDisruptionBudget's disruptedPods map).
        first = " ".join(str(err).split())
        raise EncodeError(f"the kubernetes client's {name} model refuses this object: {first}") from err


def from_client_model(model: Any, *, scheme: Any = None) -> Any:
    """A kcodec object for an official client model (which must carry api_version/kind)."""
    client = _client()
    data = client.ApiClient().sanitize_for_serialization(model)
    if not isinstance(data, dict) or "kind" not in data or "apiVersion" not in data:
        raise KCodecError(
            f"from_client_model: {type(model).__name__} has no api_version/kind set; "
            "set them (the API server's responses always carry them)"
        )
    return from_dict(data, scheme=scheme)


def _body(response: Any) -> tuple[bytes, str]:
    status = getattr(response, "status", 200)
    data = response.data if getattr(response, "data", None) is not None else response.read()
    content_type = response.headers.get("Content-Type", "") if response.headers else ""
    if status >= 400:
        raise KCodecError(f"API server answered {status}: {data[:512]!r}")
    return data, content_type


def request(api_method: Callable[..., Any], *args: Any, scheme: Any = None, **kwargs: Any) -> Any:
    """Call an official client API method (get, list...) asking for protobuf; return the
    response decoded by kcodec (typed when the kind is built in, else Unstructured).

    ``args`` and ``kwargs`` are the method's own (namespace, name, label_selector, ...).
    """
    from kcodec._everyday import _codecs, _decode, detect_format

    headers = dict(kwargs.pop("_headers", None) or {})
    headers.setdefault("Accept", PROTOBUF_ACCEPT)
    response = api_method(*args, _headers=headers, _preload_content=False, **kwargs)
    try:
        data, _ = _body(response)
    finally:
        release = getattr(response, "release_conn", None)
        if release is not None:
            release()
    if not data:
        raise DecodeError("the API server sent an empty body")
    return _decode(_codecs(scheme), data, detect_format(data), False)


def watch(api_method: Callable[..., Any], *args: Any, scheme: Any = None, **kwargs: Any) -> Iterator[Any]:
    """Watch through an official client list method, as protobuf; yield
    :class:`kcodec.Event` ``(type, object)`` as the events arrive (see
    :func:`kcodec.watch_events`). The connection is released when the iteration ends."""
    from kcodec._everyday import watch_events

    headers = dict(kwargs.pop("_headers", None) or {})
    headers.setdefault("Accept", PROTOBUF_WATCH_ACCEPT)
    kwargs["watch"] = True
    response = api_method(*args, _headers=headers, _preload_content=False, **kwargs)
    try:
        status = getattr(response, "status", 200)
        if status >= 400:
            raise KCodecError(f"API server answered {status}: {response.read()[:512]!r}")
        content_type = (response.headers or {}).get("Content-Type", "")
        fmt = "protobuf" if "protobuf" in content_type else "json"
        yield from watch_events(response, fmt, scheme=scheme)
    finally:
        release = getattr(response, "release_conn", None)
        if release is not None:
            release()
