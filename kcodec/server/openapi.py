"""OpenAPI v2 (/openapi/v2) and v3 (/openapi/v3, /openapi/v3/<api path>?hash=) built from
kcodec's models, as kube-apiserver publishes them.

kube-apiserver builds its documents with kube-openapi from openapi-gen's definitions of the Go
types (k8s.io/apiserver pkg/endpoints/openapi: definition names, operation ids and tags;
pkg/endpoints/installer.go: paths, verbs, query parameters, consumed patch types) and serves
them with kube-openapi pkg/handler (v2) and pkg/handler3 (v3: an index of group versions whose
URLs carry the document's hash; a request with a stale hash is redirected to the current one).
This module does the same from kcodec's field tables: definitions are named as Go names them
(``io.k8s.api.apps.v1.Deployment``), kinds carry ``x-kubernetes-group-version-kind``, fields
carry the merge tags tools/gen_api.py records (``x-kubernetes-patch-strategy``,
``-patch-merge-key``, ``-list-type``, ``-list-map-keys``, ``-map-type``), and every PATCH, POST
and PUT lists the ``fieldValidation`` query parameter kubectl's QueryParamVerifier looks for.
Descriptions come from upstream's types_swagger_doc_generated.go, which tools/gen_api.py
copies to kcodec/api/_swagger_docs.json (read only when a document is first built), so
``kubectl explain`` prints them; ``+default`` markers are not recorded and give no defaults.

The documents are JSON; the protobuf forms (gnostic's OpenAPI v2/v3 messages) are not
written: such a request gets the 406 kube-openapi's handlers answer for a type they do not
serve (kubectl then goes on without the v2 document, which it only asks for in protobuf).
"""
from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from kcodec._kinds import (
    K_ANY, K_BOOL, K_BYTES, K_CUSTOM, K_FLOAT, K_INT32, K_INT64, K_LIST, K_MAP, K_STR, K_STRUCT,
)
from kcodec.fieldtable import fields_of, go_type_name, struct_type_of
from kcodec.schema import GroupVersion, GroupVersionKind

__all__ = [
    "OpenAPIService",
    "definition_name",
    "operation_id_and_tags",
    "make_openapi_handler",
    "resources_from_routes",
    "OpenAPIResponse",
    "describe",
]

_PATCH_TYPES_BUILTIN = ("application/apply-patch+yaml", "application/json-patch+json",
                        "application/merge-patch+json", "application/strategic-merge-patch+json")
_PATCH_TYPES_CUSTOM = ("application/apply-patch+yaml", "application/json-patch+json",
                       "application/merge-patch+json")
_MEDIA = ("application/json", "application/vnd.kubernetes.protobuf", "application/yaml")
_WATCH_MEDIA = ("application/json", "application/json;stream=watch", "application/vnd.kubernetes.protobuf",
                "application/vnd.kubernetes.protobuf;stream=watch", "application/yaml")

# Go packages of the modules kcodec's models mirror (tools/gen_api.py's sources).
_PACKAGE_OF_MODULE = {
    "kcodec.api.meta.v1": "io.k8s.apimachinery.pkg.apis.meta.v1",
    "kcodec.api.meta._values": "io.k8s.apimachinery.pkg.apis.meta.v1",
}
_PACKAGE_OF_GO_NAME = {
    "resource.Quantity": "io.k8s.apimachinery.pkg.api.resource.Quantity",
    "intstr.IntOrString": "io.k8s.apimachinery.pkg.util.intstr.IntOrString",
    "runtime.RawExtension": "io.k8s.apimachinery.pkg.runtime.RawExtension",
}
_EXTRA_PACKAGES = {
    "apiextensions": "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions",
    "apiregistration": "io.k8s.kube-aggregator.pkg.apis.apiregistration",
}

# The definitions openapi-gen writes for types with their own JSON form (their
# OpenAPIDefinition/OpenAPISchemaType methods), v3 and v2.
_CUSTOM_SCHEMAS_V3: dict[str, dict[str, Any]] = {
    "io.k8s.apimachinery.pkg.api.resource.Quantity": {"oneOf": [{"type": "string"}, {"type": "number"}]},
    "io.k8s.apimachinery.pkg.util.intstr.IntOrString": {
        "format": "int-or-string", "oneOf": [{"type": "integer"}, {"type": "string"}]},
    "io.k8s.apimachinery.pkg.runtime.RawExtension": {"type": "object"},
    "io.k8s.apimachinery.pkg.apis.meta.v1.Time": {"format": "date-time", "type": "string"},
    "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime": {"format": "date-time", "type": "string"},
    "io.k8s.apimachinery.pkg.apis.meta.v1.Duration": {"type": "string"},
    "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1": {"type": "object"},
}
_CUSTOM_SCHEMAS_V2: dict[str, dict[str, Any]] = {
    "io.k8s.apimachinery.pkg.api.resource.Quantity": {"type": "string"},
    "io.k8s.apimachinery.pkg.util.intstr.IntOrString": {"format": "int-or-string", "type": "string"},
}

# Query parameters (their Go doc texts are the metav1 options' field comments).
_P = {
    "pretty": ("string", "If 'true', then the output is pretty printed. Defaults to 'false' unless the "
               "user-agent indicates a browser or command-line HTTP tool (curl and wget)."),
    "allowWatchBookmarks": ("boolean", "allowWatchBookmarks requests watch events with type \"BOOKMARK\"."),
    "continue": ("string", "The continue option should be set when retrieving more results from the server."),
    "fieldSelector": ("string", "A selector to restrict the list of returned objects by their fields. "
                      "Defaults to everything."),
    "labelSelector": ("string", "A selector to restrict the list of returned objects by their labels. "
                      "Defaults to everything."),
    "limit": ("integer", "limit is a maximum number of responses to return for a list call."),
    "resourceVersion": ("string", "resourceVersion sets a constraint on what resource versions a request "
                        "may be served from. Defaults to unset"),
    "resourceVersionMatch": ("string", "resourceVersionMatch determines how resourceVersion is applied to "
                             "list calls. Defaults to unset"),
    "sendInitialEvents": ("boolean", "`sendInitialEvents=true` may be set together with `watch=true`."),
    "timeoutSeconds": ("integer", "Timeout for the list/watch call."),
    "watch": ("boolean", "Watch for changes to the described resources and return them as a stream of add, "
              "update, and remove notifications. Specify resourceVersion."),
    "dryRun": ("string", "When present, indicates that modifications should not be persisted. An invalid or "
               "unrecognized dryRun directive will result in an error response and no further processing "
               "of the request. Valid values are: - All: all dry run stages will be processed"),
    "fieldManager": ("string", "fieldManager is a name associated with the actor or entity that is making "
                     "these changes."),
    "fieldValidation": ("string", "fieldValidation instructs the server on how to handle objects in the "
                        "request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: "
                        "- Ignore: This will ignore any unknown fields that are silently dropped from the "
                        "object, and will ignore all but the last duplicate field that the decoder "
                        "encounters. This is the default behavior prior to v1.23. - Warn: This will send a "
                        "warning via the standard warning response header for each unknown field that is "
                        "dropped from the object, and for each duplicate field that is encountered. The "
                        "request will still succeed if there are no other errors, and will only persist "
                        "the last of any duplicate fields. This is the default in v1.23+ - Strict: This "
                        "will fail the request with a BadRequest error if any unknown fields would be "
                        "dropped from the object, or if any duplicate fields are present. The error "
                        "returned from the server will contain all unknown and duplicate fields "
                        "encountered."),
    "force": ("boolean", "Force is going to \"force\" Apply requests. It means user will re-acquire "
              "conflicting fields owned by other people. Force flag must be unset for non-apply patch "
              "requests."),
    "gracePeriodSeconds": ("integer", "The duration in seconds before the object should be deleted."),
    "ignoreStoreReadErrorWithClusterBreakingPotential": (
        "boolean", "if set to true, it will trigger an unsafe deletion of the resource in case the normal "
        "deletion flow fails with a corrupt object error."),
    "orphanDependents": ("boolean", "Deprecated: please use the PropagationPolicy, this field will be "
                         "deprecated in 1.7."),
    "propagationPolicy": ("string", "Whether and how garbage collection will be performed."),
}
_LIST_PARAMS = ("allowWatchBookmarks", "continue", "fieldSelector", "labelSelector", "limit",
                "resourceVersion", "resourceVersionMatch", "sendInitialEvents", "timeoutSeconds", "watch")
_DELETE_PARAMS = ("dryRun", "gracePeriodSeconds", "ignoreStoreReadErrorWithClusterBreakingPotential",
                  "orphanDependents", "propagationPolicy")
_WRITE_PARAMS = ("dryRun", "fieldManager", "fieldValidation")


_DOCS_LOCK = threading.Lock()
_DOCS: dict[str, Any] | None = None


def _descriptions() -> dict[str, Any]:
    """kcodec/api/_swagger_docs.json (tools/gen_api.py: types_swagger_doc_generated.go),
    read on first use; empty when the file is absent."""
    global _DOCS
    with _DOCS_LOCK:
        if _DOCS is None:
            import kcodec.api

            path = Path(kcodec.api.__file__).parent / "_swagger_docs.json"
            try:
                _DOCS = json.loads(path.read_text(encoding="utf-8"))
            except OSError:
                _DOCS = {"strings": [], "types": {}}
        return _DOCS


def describe(cls: Any, json_name: str = "") -> str:
    """The description kube-apiserver's OpenAPI gives the Go type ``cls`` mirrors
    (``json_name=""``) or its field ``json_name``; "" when upstream has none."""
    docs = _descriptions()
    module = cls.__module__
    if module == "kcodec.api.meta._values":
        module = "kcodec.api.meta.v1"
    entry = docs["types"].get(module, {}).get(go_type_name(cls).rpartition(".")[2])
    if not entry or json_name not in entry:
        return ""
    return str(docs["strings"][entry[json_name]])


def definition_name(cls: Any) -> str:
    """The OpenAPI definition name kube-apiserver gives the Go type ``cls`` mirrors
    (``io.k8s.api.apps.v1.Deployment``, ``io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta``,
    ``io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition``)."""
    go = go_type_name(cls)
    if go in _PACKAGE_OF_GO_NAME:
        return _PACKAGE_OF_GO_NAME[go]
    module = cls.__module__
    name = go.rpartition(".")[2]
    if module in _PACKAGE_OF_MODULE:
        return f"{_PACKAGE_OF_MODULE[module]}.{name}"
    if module.startswith("kcodec.api."):
        pkg, _, version = module[len("kcodec.api."):].partition(".")
        base = _EXTRA_PACKAGES.get(pkg, f"io.k8s.api.{pkg}")
        return f"{base}.{version}.{name}"
    return f"{module}.{name}"


def _valid_operation_id(s: str, capitalize_first: bool) -> str:
    """ToValidOperationID (apiserver pkg/endpoints/openapi/openapi.go)."""
    out = []
    capitalize = capitalize_first
    for i, ch in enumerate(s):
        if ch.isalpha() or ch == "_" or (i != 0 and ch.isdigit()):
            out.append(ch.upper() if capitalize else ch)
            capitalize = False
        else:
            capitalize = True
    return "".join(out)


_VERBS = ("get", "log", "read", "replace", "patch", "delete", "deletecollection", "watch", "connect",
          "proxy", "list", "create")


def operation_id_and_tags(operation: str, path: str) -> tuple[str, list[str]]:
    """GetOperationIDAndTags: go-restful's operation name (``patchNamespacedDeployment``)
    with the group and version of ``path`` spliced in (``patchAppsV1NamespacedDeployment``)
    and the tag (``apps_v1``)."""
    prefix = ""
    for n in range(1, len(operation) + 1):  # the trie's GetPrefix: the shortest verb
        if operation[:n] in _VERBS:
            prefix = operation[:n]
            break
    op = operation[len(prefix):]
    parts = path.strip("/").split("/")
    tags: list[str] = []
    if parts and parts[0] == "api":
        parts = ["apis", "core"] + parts[1:]
    if len(parts) >= 2 and parts[0] == "apis":
        trimmed = parts[1][:-len(".k8s.io")] if parts[1].endswith(".k8s.io") else parts[1]
        prefix = prefix + _valid_operation_id(trimmed, prefix != "")
        tag = _valid_operation_id(trimmed, False)
        if len(parts) > 2:
            prefix = prefix + _valid_operation_id(parts[2], prefix != "")
            tag = tag + "_" + _valid_operation_id(parts[2], False)
        tags.append(tag)
    elif parts:
        tags.append(_valid_operation_id(parts[0], False))
    return prefix + _valid_operation_id(op, prefix != ""), tags


def _title(s: str) -> str:
    return s[:1].upper() + s[1:]


class _Resource:
    """One row of a group version's API resource list (metav1.APIResource's fields)."""

    __slots__ = ("name", "namespaced", "kind", "verbs", "group", "version")

    def __init__(self, name: str, namespaced: bool, kind: str, verbs: Sequence[str], group: str = "",
                 version: str = "") -> None:
        self.name = name
        self.namespaced = namespaced
        self.kind = kind
        self.verbs = list(verbs)
        self.group = group
        self.version = version


def _resource_of(r: Any) -> _Resource:
    if isinstance(r, Mapping):
        return _Resource(r["name"], bool(r.get("namespaced")), r["kind"], r.get("verbs") or [],
                         r.get("group", "") or "", r.get("version", "") or "")
    return _Resource(r.name, bool(r.namespaced), r.kind, list(r.verbs or []), getattr(r, "group", "") or "",
                     getattr(r, "version", "") or "")


def resources_from_routes(routes: Mapping[Any, Any]) -> dict[GroupVersion, list[Any]]:
    """The ``{GroupVersion: [APIResource]}`` of an installed server's routes (any mapping whose
    values have ``api_resources``, as kcodec.server.installer's GroupVersionRoutes)."""
    return {GroupVersion(gv.group, gv.version): list(r.api_resources) for gv, r in routes.items()}


class _Builder:
    """Definitions and paths of one document (v2 or v3)."""

    def __init__(self, v3: bool, gvks_of: Mapping[type, list[GroupVersionKind]]) -> None:
        self.v3 = v3
        self.gvks_of = gvks_of
        self.defs: dict[str, Any] = {}

    def ref(self, cls: Any) -> str:
        name = definition_name(cls)
        if name not in self.defs:
            self.defs[name] = None  # placeholder: recursive types
            self.defs[name] = self.definition(cls, name)
        return ("#/components/schemas/" if self.v3 else "#/definitions/") + name

    def definition(self, cls: Any, name: str) -> dict[str, Any]:
        custom = (_CUSTOM_SCHEMAS_V2.get(name) if not self.v3 else None) or _CUSTOM_SCHEMAS_V3.get(name)
        if custom is not None:
            out = dict(custom)
            desc = describe(cls)
            if desc:
                out["description"] = desc
            return out
        if not hasattr(cls, "__kc_decls__"):  # a CustomValue without a known schema
            return {}
        fields_of(cls)
        props: dict[str, Any] = {}
        required: list[str] = []
        for json_name, chain in cls.__kc_json__.items():
            f = chain[-1]
            owner = chain[-2].cls if len(chain) > 1 else cls  # an inline struct documents its own fields
            props[json_name] = self.field_schema(f, describe(owner, json_name))
            if not f.omitempty and not f.omitzero and not any(c.omitempty for c in chain[:-1]):
                required.append(json_name)
        out: dict[str, Any] = {"type": "object"}
        desc = describe(cls)
        if desc:
            out["description"] = desc
        if props:
            out["properties"] = props
        if required:
            out["required"] = required
        st = struct_type_of(cls)
        if st:
            out["x-kubernetes-map-type"] = st
        gvks = self.gvks_of.get(cls)
        if gvks:
            out["x-kubernetes-group-version-kind"] = [
                {"group": g.group, "kind": g.kind, "version": g.version} for g in gvks]
        return out

    def type_schema(self, t: Any, item: bool) -> dict[str, Any]:
        k = t.kind
        if k == K_STR:
            s: dict[str, Any] = {"type": "string"}
            zero: Any = ""
        elif k == K_BOOL:
            s, zero = {"type": "boolean"}, False
        elif k == K_INT32:
            s, zero = {"format": "int32", "type": "integer"}, 0
        elif k == K_INT64:
            s, zero = {"format": "int64", "type": "integer"}, 0
        elif k == K_FLOAT:
            s, zero = {"format": "double", "type": "number"}, 0
        elif k == K_BYTES:
            return {"format": "byte", "type": "string"}
        elif k == K_LIST:
            return {"items": self.type_schema(t.elem, True), "type": "array"}
        elif k == K_MAP:
            return {"additionalProperties": self.type_schema(t.elem, True), "type": "object"}
        elif k == K_ANY:
            return {"type": "object"}
        else:
            ref = self.ref(t.cls)
            if self.v3 and item and k == K_STRUCT and not t.pointer:
                return {"allOf": [{"$ref": ref}], "default": {}}
            return {"$ref": ref}
        if item and self.v3 and not t.pointer:
            s["default"] = zero
        return s

    def field_schema(self, f: Any, description: str = "") -> dict[str, Any]:
        s = self.type_schema(f, False)
        extra: dict[str, Any] = {}
        if description:
            extra["description"] = description
        if self.v3:
            if f.kind == K_STRUCT and not f.pointer:
                extra["default"] = {}
            elif f.kind in (K_STR, K_BOOL, K_INT32, K_INT64, K_FLOAT) and not f.pointer \
                    and not f.omitempty and not f.omitzero:
                extra["default"] = {K_STR: "", K_BOOL: False}.get(f.kind, 0)
        tags = f.tags()
        if f.list_type:
            extra["x-kubernetes-list-type"] = f.list_type
        if f.list_map_keys:
            extra["x-kubernetes-list-map-keys"] = list(f.list_map_keys)
        if f.map_type:
            extra["x-kubernetes-map-type"] = f.map_type
        elif "structType" in tags:
            extra["x-kubernetes-map-type"] = tags["structType"]
        if f.patch_merge_key:
            extra["x-kubernetes-patch-merge-key"] = f.patch_merge_key
        if f.patch_strategy:
            extra["x-kubernetes-patch-strategy"] = f.patch_strategy
        if not extra:
            return s
        if "$ref" in s and self.v3:
            return {"allOf": [{"$ref": s["$ref"]}], **extra}
        return {**s, **extra}

    # -- paths ------------------------------------------------------------------------------

    def _param(self, name: str, where: str = "query") -> dict[str, Any]:
        typ, desc = _P[name] if name in _P else ("string", "")
        if self.v3:
            return {"description": desc, "in": where, "name": name, "schema": {"type": typ, "uniqueItems": True}}
        return {"description": desc, "in": where, "name": name, "type": typ, "uniqueItems": True}

    def _path_param(self, name: str, desc: str) -> dict[str, Any]:
        if self.v3:
            return {"description": desc, "in": "path", "name": name, "required": True,
                    "schema": {"type": "string", "uniqueItems": True}}
        return {"description": desc, "in": "path", "name": name, "required": True, "type": "string",
                "uniqueItems": True}

    def _content(self, ref: str, media: Iterable[str]) -> dict[str, Any]:
        return {m: {"schema": {"$ref": ref}} for m in media}

    def _responses(self, ref: str, codes: Sequence[tuple[str, str]], media: Sequence[str] = _MEDIA) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for code, text in codes:
            if self.v3:
                out[code] = {"content": self._content(ref, media), "description": text}
            else:
                out[code] = {"description": text, "schema": {"$ref": ref}}
        out["401"] = {"description": "Unauthorized"}
        return out

    def operation(self, method: str, op_name: str, path: str, desc: str, action: str, gvk: GroupVersionKind | None,
                  params: Sequence[str], body_ref: str | None, body_types: Sequence[str], response_ref: str,
                  codes: Sequence[tuple[str, str]], media: Sequence[str] = _MEDIA) -> dict[str, Any]:
        op_id, tags = operation_id_and_tags(op_name, path)
        op: dict[str, Any] = {"description": desc, "operationId": op_id}
        plist = [self._param(p) for p in params]
        if body_ref is not None:
            if self.v3:
                op["requestBody"] = {"content": self._content(body_ref, body_types)}
                if method != "delete":
                    op["requestBody"]["required"] = True
            else:
                plist.insert(0, {"in": "body", "name": "body", "required": method != "delete",
                                 "schema": {"$ref": body_ref}})
                op["consumes"] = list(body_types)
        if plist:
            op["parameters"] = plist
        if not self.v3:
            op["produces"] = list(media)
            op["schemes"] = ["https"]
        op["responses"] = self._responses(response_ref, codes, media)
        op["tags"] = tags
        op["x-kubernetes-action"] = action
        if gvk is not None:
            op["x-kubernetes-group-version-kind"] = {"group": gvk.group, "kind": gvk.kind, "version": gvk.version}
        return op


def _gv_prefix(gv: GroupVersion) -> str:
    return f"/api/{gv.version}" if not gv.group else f"/apis/{gv.group}/{gv.version}"


def _gv_key(gv: GroupVersion) -> str:
    return _gv_prefix(gv).lstrip("/")


class OpenAPIService:
    """The OpenAPI documents of a set of served resources, built once and cached.

    ``resources`` maps each served GroupVersion to its API resource list (metav1.APIResource
    objects or dicts: ``name`` (``"deployments"``, ``"deployments/status"``), ``namespaced``,
    ``kind``, ``verbs``, and ``group``/``version`` where a subresource's kind lives elsewhere,
    as autoscaling/v1 Scale). ``scheme`` (default ``kcodec.api.scheme``) gives the model class
    of each kind. Kinds without a model class (custom resources) are listed in the paths with
    a free-form object schema.
    """

    def __init__(self, resources: Mapping[Any, Sequence[Any]], scheme: Any = None) -> None:
        if scheme is None:
            from kcodec.api import scheme as default_scheme

            scheme = default_scheme
        self.scheme = scheme
        self.resources: dict[GroupVersion, list[_Resource]] = {}
        for gv, rows in resources.items():
            if isinstance(gv, str):
                group, _, version = gv.rpartition("/")
            else:
                group, version = gv.group, gv.version
            self.resources[GroupVersion(group, version)] = [_resource_of(r) for r in rows]
        self._lock = threading.Lock()
        self._v2: bytes | None = None
        self._v3: dict[str, bytes] = {}
        self._index: bytes | None = None
        self._gvks: dict[type, list[GroupVersionKind]] | None = None

    def __repr__(self) -> str:
        return f"OpenAPIService({len(self.resources)} group versions)"

    # -- models -----------------------------------------------------------------------------

    def _class(self, gvk: GroupVersionKind) -> Any:
        try:
            types = self.scheme.known_types(GroupVersion(gvk.group, gvk.version))
        except Exception:  # noqa: BLE001 - a group the scheme does not know: a custom resource
            return None
        cls = types.get(gvk.kind)
        return cls if cls is not None and hasattr(cls, "__kc_decls__") else None

    def _gvks_of(self) -> dict[type, list[GroupVersionKind]]:
        if self._gvks is None:
            out: dict[type, list[GroupVersionKind]] = {}
            for gv in sorted(self.resources, key=lambda g: (g.group, g.version)):
                try:
                    types = self.scheme.known_types(gv)
                except Exception:  # noqa: BLE001 - not in the scheme
                    continue
                for kind, cls in types.items():
                    out.setdefault(cls, []).append(GroupVersionKind(gv.group, gv.version, kind))
            for lst in out.values():
                lst.sort(key=lambda g: (g.group, g.version, g.kind))
            self._gvks = out
        return self._gvks

    def _kind_ref(self, b: _Builder, gvk: GroupVersionKind, list_kind: bool = False) -> str:
        cls = self._class(GroupVersionKind(gvk.group, gvk.version, gvk.kind + ("List" if list_kind else "")))
        if cls is not None:
            return b.ref(cls)
        # A custom resource: a free-form object definition named as Go names unstructured kinds.
        name = ".".join(reversed(gvk.group.split("."))) + "." + gvk.version + "." + gvk.kind + \
            ("List" if list_kind else "")
        if name not in b.defs:
            d: dict[str, Any] = {"type": "object",
                                 "x-kubernetes-group-version-kind": [
                                     {"group": gvk.group, "kind": gvk.kind + ("List" if list_kind else ""),
                                      "version": gvk.version}]}
            if b.v3:
                d["x-kubernetes-preserve-unknown-fields"] = True
            b.defs[name] = d
        return ("#/components/schemas/" if b.v3 else "#/definitions/") + name

    def _meta_ref(self, b: _Builder, name: str) -> str:
        from kcodec.api.meta import v1 as metav1

        return b.ref(getattr(metav1, name))

    # -- paths ------------------------------------------------------------------------------

    def _paths(self, b: _Builder, gv: GroupVersion) -> dict[str, Any]:
        prefix = _gv_prefix(gv)
        paths: dict[str, Any] = {}
        rows = self.resources.get(gv, [])
        top = {r.name: r for r in rows if "/" not in r.name}
        ns_param = b._path_param("namespace", "object name and auth scope, such as for teams and projects")
        pretty = b._param("pretty")
        resource_list = self._meta_ref(b, "APIResourceList")
        op_id, tags = operation_id_and_tags("getAPIResources", prefix + "/")
        disc: dict[str, Any] = {"description": "get available resources", "operationId": op_id}
        if not b.v3:
            disc.update({"consumes": ["application/json", "application/yaml", "application/vnd.kubernetes.protobuf"],
                         "produces": list(_MEDIA), "schemes": ["https"]})
        disc["responses"] = b._responses(resource_list, [("200", "OK")])
        disc["tags"] = tags
        paths[prefix + "/"] = {"get": disc}
        status_ref = self._meta_ref(b, "Status")
        delete_ref = self._meta_ref(b, "DeleteOptions")
        watch_ref = self._meta_ref(b, "WatchEvent")
        patch_ref = self._meta_ref(b, "Patch")
        for r in sorted(rows, key=lambda x: x.name):
            resource, _, sub = r.name.partition("/")
            parent = top.get(resource, r)
            # a subresource may name its kind's group and version (scale: autoscaling/v1 Scale)
            kind_gvk = GroupVersionKind(r.group if r.version else gv.group, r.version or gv.version, r.kind)
            namespaced = parent.namespaced
            scope = "Namespaced" if namespaced else ""
            kind = parent.kind
            base = prefix + ("/namespaces/{namespace}/" if namespaced else "/") + resource
            item = base + "/{name}" + (("/" + sub) if sub else "")
            name_param = b._path_param("name", f"name of the {r.kind}")
            verbs = set(r.verbs)
            obj_ref = self._kind_ref(b, kind_gvk)
            sub_t = _title(sub)
            sub_desc = (sub + " of ") if sub else ""
            ops: dict[str, Any] = {}
            body_types = ("*/*",)
            if "get" in verbs:
                ops["get"] = b.operation("get", f"read{scope}{kind}{sub_t}", item,
                                         f"read {sub_desc}the specified {kind}", "get", kind_gvk, (), None, (),
                                         obj_ref, [("200", "OK")])
            if "update" in verbs:
                ops["put"] = b.operation("put", f"replace{scope}{kind}{sub_t}", item,
                                         f"replace {sub_desc}the specified {kind}", "put", kind_gvk, _WRITE_PARAMS,
                                         obj_ref, body_types, obj_ref, [("200", "OK"), ("201", "Created")])
            if "patch" in verbs:
                patch_types = _PATCH_TYPES_BUILTIN if self._class(kind_gvk) is not None else _PATCH_TYPES_CUSTOM
                ops["patch"] = b.operation("patch", f"patch{scope}{kind}{sub_t}", item,
                                           f"partially update {sub_desc}the specified {kind}", "patch", kind_gvk,
                                           _WRITE_PARAMS + ("force",), patch_ref, patch_types, obj_ref,
                                           [("200", "OK"), ("201", "Created")])
            if "delete" in verbs and not sub:
                ops["delete"] = b.operation("delete", f"delete{scope}{kind}", item, f"delete a {kind}", "delete",
                                            kind_gvk, _DELETE_PARAMS, delete_ref, body_types, status_ref,
                                            [("200", "OK"), ("202", "Accepted")])
            if sub and "create" in verbs:
                ops["post"] = b.operation("post", f"create{scope}{kind}{sub_t}", item,
                                          f"create {sub_desc}a {kind}", "post", kind_gvk, _WRITE_PARAMS, obj_ref,
                                          body_types, obj_ref, [("200", "OK"), ("201", "Created"),
                                                                ("202", "Accepted")])
            if ops:
                params = [name_param] + ([ns_param] if namespaced else []) + [pretty]
                paths[item] = {**ops, "parameters": params}
            if sub:
                continue
            coll: dict[str, Any] = {}
            list_ref = self._kind_ref(b, kind_gvk, list_kind=True)
            if "list" in verbs:
                coll["get"] = b.operation("get", f"list{scope}{kind}", base, f"list or watch objects of kind {kind}",
                                          "list", kind_gvk, _LIST_PARAMS, None, (), list_ref, [("200", "OK")],
                                          _WATCH_MEDIA)
            if "create" in verbs:
                coll["post"] = b.operation("post", f"create{scope}{kind}", base, f"create a {kind}", "post",
                                           kind_gvk, _WRITE_PARAMS, obj_ref, body_types, obj_ref,
                                           [("200", "OK"), ("201", "Created"), ("202", "Accepted")])
            if "deletecollection" in verbs:
                coll["delete"] = b.operation("delete", f"deletecollection{scope}{kind}", base,
                                             f"delete collection of {kind}", "deletecollection", kind_gvk,
                                             sorted(set(_LIST_PARAMS + _DELETE_PARAMS) - {"watch",
                                                                                          "allowWatchBookmarks"}),
                                             delete_ref, body_types, status_ref, [("200", "OK")])
            if coll:
                paths[base] = {**coll, "parameters": ([ns_param] if namespaced else []) + [pretty]}
            if "list" in verbs and namespaced:
                p = f"{prefix}/{resource}"
                paths[p] = {"get": b.operation("get", f"list{kind}ForAllNamespaces", p,
                                               f"list or watch objects of kind {kind}", "list", kind_gvk, (), None,
                                               (), list_ref, [("200", "OK")], _WATCH_MEDIA),
                            "parameters": [b._param(x) for x in ("allowWatchBookmarks", "continue", "fieldSelector",
                                                                 "labelSelector", "limit", "pretty",
                                                                 "resourceVersion", "resourceVersionMatch",
                                                                 "sendInitialEvents", "timeoutSeconds", "watch")]}
            if "watch" in verbs:
                wparams = [b._param(x) for x in _LIST_PARAMS]
                wbase = prefix + "/watch" + ("/namespaces/{namespace}/" if namespaced else "/") + resource
                dep = ". deprecated: use the 'watch' parameter with a list operation instead"
                paths[wbase] = {"get": b.operation(
                    "get", f"watch{scope}{kind}List", wbase,
                    f"watch individual changes to a list of {kind}{dep}.", "watchlist", kind_gvk, (), None, (),
                    watch_ref, [("200", "OK")], _WATCH_MEDIA),
                    "parameters": ([ns_param] if namespaced else []) + wparams}
                paths[wbase + "/{name}"] = {"get": b.operation(
                    "get", f"watch{scope}{kind}", wbase + "/{name}",
                    f"watch changes to an object of kind {kind}{dep}, filtered to a single item with the "
                    "'fieldSelector' parameter.", "watch", kind_gvk, (), None, (), watch_ref, [("200", "OK")],
                    _WATCH_MEDIA),
                    "parameters": [name_param] + ([ns_param] if namespaced else []) + wparams}
                if namespaced:
                    p = f"{prefix}/watch/{resource}"
                    paths[p] = {"get": b.operation(
                        "get", f"watch{kind}ListForAllNamespaces", p,
                        f"watch individual changes to a list of {kind}{dep}.", "watchlist", kind_gvk, (), None, (),
                        watch_ref, [("200", "OK")], _WATCH_MEDIA), "parameters": wparams}
        return paths

    # -- documents ----------------------------------------------------------------------------

    @staticmethod
    def _dump(doc: Any) -> bytes:
        # encoding/json writes map keys sorted; spec structs marshal their fields in order, but
        # every field here is a map key or sorted like one in kube's documents.
        return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()

    def v3_document(self, gv: GroupVersion) -> dict[str, Any]:
        """The v3 document of one group version, as a JSON tree."""
        b = _Builder(True, self._gvks_of())
        paths = self._paths(b, gv)
        return {"components": {"schemas": {k: v for k, v in b.defs.items()},
                               "securitySchemes": {"BearerToken": {"description": "Bearer Token authentication",
                                                                   "in": "header", "name": "authorization",
                                                                   "type": "apiKey"}}},
                "info": {"title": "Kubernetes", "version": "unversioned"},
                "openapi": "3.0.0", "paths": paths,
                "security": [{"BearerToken": []}]}

    def v2_document(self) -> dict[str, Any]:
        """The v2 (swagger 2.0) document of every served group version, as a JSON tree."""
        b = _Builder(False, self._gvks_of())
        paths: dict[str, Any] = {}
        for gv in sorted(self.resources, key=lambda g: (g.group, g.version)):
            paths.update(self._paths(b, gv))
        return {"definitions": dict(b.defs), "info": {"title": "Kubernetes", "version": "unversioned"},
                "paths": paths, "security": [{"BearerToken": []}],
                "securityDefinitions": {"BearerToken": {"description": "Bearer Token authentication",
                                                        "in": "header", "name": "authorization",
                                                        "type": "apiKey"}},
                "swagger": "2.0"}

    def v2(self) -> bytes:
        """/openapi/v2 as JSON (cached)."""
        with self._lock:
            if self._v2 is None:
                self._v2 = self._dump(self.v2_document())
            return self._v2

    def v3(self, key: str) -> bytes | None:
        """/openapi/v3/<key> as JSON (``"api/v1"``, ``"apis/apps/v1"``), None for a group
        version not served (cached)."""
        with self._lock:
            data = self._v3.get(key)
            if data is None:
                gv = next((g for g in self.resources if _gv_key(g) == key), None)
                if gv is None:
                    return None
                data = self._v3[key] = self._dump(self.v3_document(gv))
            return data

    @staticmethod
    def etag(data: bytes) -> str:
        """kube-openapi's computeETag: the upper-case hex SHA-512 of the document."""
        return hashlib.sha512(data).hexdigest().upper()

    def v3_index(self) -> bytes:
        """/openapi/v3: ``{"paths": {"apis/apps/v1": {"serverRelativeURL": "/openapi/v3/apis/apps/v1?hash=..."}}}``."""
        with self._lock:
            if self._index is not None:
                return self._index
        paths = {}
        for gv in self.resources:
            key = _gv_key(gv)
            data = self.v3(key)
            assert data is not None
            paths[key] = {"serverRelativeURL": f"/openapi/v3/{key}?hash={self.etag(data)}"}
        index = self._dump({"paths": paths})
        with self._lock:
            self._index = index
        return index

    # -- HTTP -------------------------------------------------------------------------------

    def handle(self, method: str, path: str, query: Mapping[str, Sequence[str]],
               headers: Mapping[str, str]) -> tuple[int, dict[str, str], bytes] | None:
        """Answer a request for /openapi/v2 or /openapi/v3[/...] as kube-openapi's handlers do:
        ``(status, headers, body)``, or None for another path."""
        if method not in ("GET", "HEAD"):
            return None
        accept = headers.get("Accept", "") or "*/*"
        if path == "/openapi/v2":
            if not _accepts(accept, "json"):
                return 406, {"Vary": "Accept"}, b""
            data = self.v2()
            return self._content_response(data, headers, {"Vary": "Accept"})
        if path == "/openapi/v3":
            data = self.v3_index()
            return self._content_response(data, headers, {})
        if path.startswith("/openapi/v3/"):
            key = path[len("/openapi/v3/"):]
            hdrs = {"Vary": "Accept"}
            if not _accepts(accept, "json"):
                return 406, hdrs, b""
            data = self.v3(key)
            if data is None:
                return 200, hdrs, b""  # handler3 writes nothing for a group version it does not have
            etag = self.etag(data)
            want = (query.get("hash") or [""])[0]
            if want:
                if want != etag:
                    loc = f"/openapi/v3/{key}?hash={etag}"
                    return 301, {**hdrs, "Location": loc, "Content-Type": "text/html; charset=utf-8"}, \
                        f'<a href="{loc}">Moved Permanently</a>.\n\n'.encode()
                hdrs["Cache-Control"] = "public, immutable"
            return self._content_response(data, headers, hdrs, etag)
        return None

    def _content_response(self, data: bytes, req_headers: Mapping[str, str], hdrs: dict[str, str],
                          etag: str | None = None) -> tuple[int, dict[str, str], bytes]:
        etag = etag or self.etag(data)
        quoted = f'"{etag}"'
        out = {**hdrs, "Content-Type": "application/json", "Etag": quoted}
        if req_headers.get("If-None-Match", "") in (quoted, "*"):
            return 304, out, b""
        return 200, out, data

    def serve(self, req: Any) -> "OpenAPIResponse | None":
        """The handler kcodec.server's GenericAPIServer calls for /openapi/ paths (``req``
        has ``method``, ``path``, ``query`` and ``headers``): an :class:`OpenAPIResponse`
        (the fields of kcodec.server.responses.Response), or None for another path."""
        headers = req.headers if req.headers is not None else {}
        got = self.handle(req.method, req.path, req.query, headers)
        if got is None:
            return None
        status, hdrs, body = got
        ctype = hdrs.pop("Content-Type", "")
        return OpenAPIResponse(status, body, ctype, hdrs)


class OpenAPIResponse:
    """An answer of :meth:`OpenAPIService.serve`: ``status``, ``body``, ``content_type``,
    ``headers`` and (always empty) ``warnings``, as kcodec.server.responses.Response has them."""

    __slots__ = ("status", "body", "content_type", "headers", "warnings")

    def __init__(self, status: int, body: bytes, content_type: str, headers: dict[str, str]) -> None:
        self.status = status
        self.body = body
        self.content_type = content_type
        self.headers = headers
        self.warnings: list[str] = []

    def __repr__(self) -> str:
        return f"OpenAPIResponse({self.status}, {len(self.body)} bytes, {self.content_type!r})"


def _accepts(accept: str, subtype: str) -> bool:
    """Whether an Accept header admits ``application/<subtype>`` (goautoneg's clause match)."""
    for clause in accept.split(","):
        mt = clause.split(";", 1)[0].strip()
        t, _, st = mt.partition("/")
        if t in ("application", "*") and st in (subtype, "*"):
            return True
    return False


def make_openapi_handler(resources: Mapping[Any, Sequence[Any]], scheme: Any = None) -> Callable[[Any], Any]:
    """``GenericAPIServer(openapi=...)``'s handler for these resources (see
    :func:`resources_from_routes`): builds the documents on first use and caches them."""
    return OpenAPIService(resources, scheme).serve
