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

The v2 document is also served as gnostic's protobuf ``openapi_v2.Document``
(kcodec.server._openapi_pb), the only form client-go's ``OpenAPISchema()`` asks for (kubectl
``explain --output=plaintext-openapiv2``, and apply's fallback when the v3 document does not
do); the v3 documents are JSON only, which is what client-go's openapi3 reads: a protobuf
request for them gets the 406 kube-openapi's handler answers for a type it does not serve.
"""
from __future__ import annotations

import functools
import hashlib
import json
import threading
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from kcodec._kinds import (
    K_ANY, K_BOOL, K_BYTES, K_FLOAT, K_INT32, K_INT64, K_LIST, K_MAP, K_STR, K_STRUCT,
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
    "schema_markers",
]

_PATCH_TYPES_BUILTIN = ("application/apply-patch+yaml", "application/json-patch+json",
                        "application/merge-patch+json", "application/strategic-merge-patch+json")
_PATCH_TYPES_CUSTOM = ("application/apply-patch+yaml", "application/json-patch+json",
                       "application/merge-patch+json")
_MEDIA = ("application/json", "application/vnd.kubernetes.protobuf", "application/yaml")
#: the options kinds of the Connecter subresources (exec, attach, portforward, the proxies)
_CONNECT_KINDS = frozenset(("PodExecOptions", "PodAttachOptions", "PodPortForwardOptions", "PodProxyOptions",
                            "NodeProxyOptions", "ServiceProxyOptions"))
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
    module = cls.__module__
    if module == "kcodec.api.meta._values":
        module = "kcodec.api.meta.v1"
    return _doc(module, go_type_name(cls).rpartition(".")[2], json_name)


def _doc(module: str, type_name: str, json_name: str) -> str:
    docs = _descriptions()
    entry = docs["types"].get(module, {}).get(type_name)
    if not entry or json_name not in entry:
        return ""
    return str(docs["strings"][entry[json_name]])


def schema_markers(cls: Any) -> dict[str, Any]:
    """openapi-gen's other markers of the Go type ``cls`` mirrors, as tools/gen_api.py records
    them: ``{"default": {json name: value}}`` (``+default=``; ContainerPort's protocol is
    "TCP", which server-side apply also needs for list map keys) and ``{"required": [...]}``
    where ``+required``/``+optional`` make it differ from "the fields without omitempty"."""
    module = cls.__module__
    if module == "kcodec.api.meta._values":
        module = "kcodec.api.meta.v1"
    return dict(_descriptions().get("schema", {}).get(module, {}).get(go_type_name(cls).rpartition(".")[2], {}))


def _type_meta_doc(json_name: str) -> str:
    """metav1.TypeMeta's field texts (kcodec's Object carries kind and apiVersion itself)."""
    return _doc("kcodec.api.meta.v1", "TypeMeta", json_name)


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


@functools.lru_cache(maxsize=4096)
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


_NO_DEFAULT: Any = object()


class _Builder:
    """Definitions and paths of one document (v2 or v3)."""

    def __init__(self, v3: bool, gvks_of: Mapping[type, list[GroupVersionKind]],
                 cache: dict[tuple[bool, Any], tuple[dict[str, Any], list[Any]]] | None = None) -> None:
        self.v3 = v3
        self.gvks_of = gvks_of
        self.defs: dict[str, Any] = {}
        # {(v3, class): (definition, classes it refers to)}, shared by the service's documents:
        # a class's definition is the same in every document that holds it.
        self.cache = cache if cache is not None else {}
        self._deps: list[list[Any]] = []

    def ref(self, cls: Any) -> str:
        name = definition_name(cls)
        if self._deps:
            self._deps[-1].append(cls)
        if name not in self.defs:
            cached = self.cache.get((self.v3, cls))
            if cached is not None:
                self.defs[name] = cached[0]
                for dep in cached[1]:
                    self.ref(dep)
            else:
                self.defs[name] = None  # placeholder: recursive types
                self._deps.append([])
                try:
                    self.defs[name] = self.definition(cls, name)
                finally:
                    deps = self._deps.pop()
                self.cache[(self.v3, cls)] = (self.defs[name], deps)
        return ("#/components/schemas/" if self.v3 else "#/definitions/") + name

    def definition(self, cls: Any, name: str) -> dict[str, Any]:
        custom = (_CUSTOM_SCHEMAS_V2.get(name) if not self.v3 else None) or _CUSTOM_SCHEMAS_V3.get(name)
        if custom is not None:
            own = dict(custom)
            text = describe(cls)
            if text:
                own["description"] = text
            return own
        if not hasattr(cls, "__kc_decls__"):  # a CustomValue without a known schema
            return {}
        fields_of(cls)
        props: dict[str, Any] = {}
        required: list[str] = []
        markers = schema_markers(cls)
        defaults = markers.get("default", {})
        for json_name, chain in cls.__kc_json__.items():
            f = chain[-1]
            owner = chain[-2].cls if len(chain) > 1 else cls  # an inline struct documents its own fields
            text = _type_meta_doc(json_name) if f.via == "TypeMeta" else describe(owner, json_name)
            if len(chain) > 1:
                inner = schema_markers(owner).get("default", {})
                default = inner.get(json_name, _NO_DEFAULT)
            else:
                default = defaults.get(json_name, _NO_DEFAULT)
            props[json_name] = self.field_schema(f, text, default)
            if not f.omitempty and not f.omitzero and not any(c.omitempty for c in chain[:-1]):
                required.append(json_name)
        if "required" in markers:
            required = [n for n in markers["required"] if n in props]
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

    def field_schema(self, f: Any, description: str = "", default: Any = _NO_DEFAULT) -> dict[str, Any]:
        s = self.type_schema(f, False)
        extra: dict[str, Any] = {}
        if description:
            extra["description"] = description
        if default is not _NO_DEFAULT:  # a +default= marker
            extra["default"] = default
        elif self.v3:
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


def _custom_name(gvk: GroupVersionKind) -> str:
    return ".".join(reversed(gvk.group.split("."))) + "." + gvk.version + "." + gvk.kind


def _with_ref(b: _Builder, ref: str, description: str) -> dict[str, Any]:
    if b.v3:
        return {"allOf": [{"$ref": ref}], "description": description}
    return {"$ref": ref, "description": description}


_V2_DROPPED = ("nullable", "oneOf", "anyOf", "allOf", "not", "x-kubernetes-int-or-string")


def _to_v2(schema: Any) -> Any:
    """The v2 form of a CRD schema (apiextensions-apiserver openapiv2.ToStructuralOpenAPIV2, in
    short: what swagger 2.0 cannot say is dropped, an int-or-string loses its type)."""
    if isinstance(schema, dict):
        out = {k: _to_v2(v) for k, v in schema.items() if k not in _V2_DROPPED}
        if schema.get("x-kubernetes-int-or-string"):
            out.pop("type", None)
        return out
    if isinstance(schema, list):
        return [_to_v2(v) for v in schema]
    return schema


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

    def __init__(self, resources: Mapping[Any, Sequence[Any]], scheme: Any = None,
                 custom_schemas: Mapping[GroupVersionKind, Any] | None = None) -> None:
        self._custom: dict[GroupVersionKind, Any] = dict(custom_schemas or {})
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
        self._v2_pb: tuple[bytes, bytes] | None = None
        self._generation = 0  # bumped by update()
        self._v3: dict[str, bytes] = {}
        self._index: bytes | None = None
        self._gvks: dict[type, list[GroupVersionKind]] | None = None
        self._types: dict[GroupVersion, dict[str, Any]] = {}
        self._defs: dict[tuple[bool, Any], tuple[dict[str, Any], list[Any]]] = {}

    def __repr__(self) -> str:
        return f"OpenAPIService({len(self.resources)} group versions)"

    def update(self, resources: Mapping[Any, Sequence[Any]] | None = None,
               custom_schemas: Mapping[GroupVersionKind, Any] | None = None) -> None:
        """Replace the served resources and/or the custom resources' schemas (when a CRD is
        established, changed or deleted) and drop the cached documents."""
        with self._lock:
            if resources is not None:
                fresh = OpenAPIService(resources, self.scheme)
                self.resources = fresh.resources
            if custom_schemas is not None:
                self._custom = dict(custom_schemas)
            self._v2 = None
            self._v3 = {}
            self._index = None
            self._gvks = None
            self._types = {}
            self._defs = {}
            self._generation += 1

    def _custom_definition(self, b: _Builder, gvk: GroupVersionKind, schema: Any, plural: str,
                           list_kind: bool) -> dict[str, Any]:
        """apiextensions-apiserver pkg/controller/openapi/builder: the CRD version's schema with
        TypeMeta and ObjectMeta properties (buildKubeNative), or its list (buildListSchema)."""
        from kcodec.api.meta import v1 as metav1

        describe_meta = describe(metav1.PartialObjectMetadata, "metadata")
        type_props = {k: {"description": _type_meta_doc(k), "type": "string"} for k in ("apiVersion", "kind")}
        gvk_ext = [{"group": gvk.group, "kind": gvk.kind + ("List" if list_kind else ""), "version": gvk.version}]
        if list_kind:
            item_ref = self._kind_ref(b, gvk)
            meta_ref = self._meta_ref(b, "ListMeta")
            meta_doc = describe(metav1.PartialObjectMetadataList, "metadata")
            return {"description": f"{gvk.kind}List is a list of {gvk.kind}",
                    "properties": {**type_props,
                                   "items": {"description": f"List of {plural}. More info: "
                                             "https://kubernetes.io/docs/reference/kubectl/overview/#list",
                                             "items": {"$ref": item_ref}, "type": "array"},
                                   "metadata": _with_ref(b, meta_ref, meta_doc)},
                    "required": ["items"], "type": "object", "x-kubernetes-group-version-kind": gvk_ext}
        if not isinstance(schema, Mapping) or (not b.v3 and schema.get("x-kubernetes-preserve-unknown-fields")):
            return {"type": "object", "x-kubernetes-group-version-kind": gvk_ext}
        out = json.loads(json.dumps(schema))
        if not b.v3:
            out = _to_v2(out)
        props = out.setdefault("properties", {})
        props["metadata"] = _with_ref(b, self._meta_ref(b, "ObjectMeta"), describe_meta)
        props.update(type_props)
        out["x-kubernetes-group-version-kind"] = gvk_ext
        return out

    # -- models -----------------------------------------------------------------------------

    def _known_types(self, gv: GroupVersion) -> dict[str, Any]:
        """scheme.known_types, once per group version (it walks every registered type)."""
        types = self._types.get(gv)
        if types is None:
            try:
                types = dict(self.scheme.known_types(gv))
            except Exception:  # noqa: BLE001 - a group the scheme does not know: a custom resource
                types = {}
            self._types[gv] = types
        return types

    def _class(self, gvk: GroupVersionKind) -> Any:
        cls = self._known_types(GroupVersion(gvk.group, gvk.version)).get(gvk.kind)
        return cls if cls is not None and hasattr(cls, "__kc_decls__") else None

    def _gvks_of(self) -> dict[type, list[GroupVersionKind]]:
        if self._gvks is None:
            out: dict[type, list[GroupVersionKind]] = {}
            for gv in sorted(self.resources, key=lambda g: (g.group, g.version)):
                for kind, cls in self._known_types(gv).items():
                    out.setdefault(cls, []).append(GroupVersionKind(gv.group, gv.version, kind))
            for lst in out.values():
                lst.sort(key=lambda g: (g.group, g.version, g.kind))
            self._gvks = out
        return self._gvks

    def _kind_ref(self, b: _Builder, gvk: GroupVersionKind, list_kind: bool = False) -> str:
        cls = self._class(GroupVersionKind(gvk.group, gvk.version, gvk.kind + ("List" if list_kind else "")))
        if cls is not None:
            return b.ref(cls)
        # A custom resource, named as Go names unstructured kinds (scheme.ToOpenAPIDefinitionName).
        name = _custom_name(gvk) + ("List" if list_kind else "")
        if name not in b.defs:
            base = GroupVersionKind(gvk.group, gvk.version, gvk.kind)
            plural = next((r.name for r in self.resources.get(GroupVersion(gvk.group, gvk.version), [])
                           if r.kind == gvk.kind and "/" not in r.name), gvk.kind.lower())
            b.defs[name] = self._custom_definition(b, base, self._custom.get(base), plural, list_kind)
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
            if sub and (r.kind in _CONNECT_KINDS or r.name == "pods/log"):
                paths.update(self._connect_paths(b, r, kind, scope, item, name_param,
                                                 ns_param if namespaced else None))
                continue
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
            list_ref = self._kind_ref(b, kind_gvk, list_kind=True) if "list" in verbs else ""
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

    def _connect_paths(self, b: _Builder, r: _Resource, kind: str, scope: str, item: str, name_param: Any,
                       ns_param: Any) -> dict[str, Any]:
        """A connect subresource's paths as installer.go registers them: pods/log a GET with its
        options (produces text/plain), a Connecter one ``connect`` operation per HTTP method
        answering a string, proxies also under ``/{path}``; query parameters are the options'
        fields (AddObjectParams: struct-valued fields such as sinceTime are left out)."""
        sub = r.name.partition("/")[2]
        options_kind = "PodLogOptions" if r.name == "pods/log" else r.kind
        cls = self._class(GroupVersionKind("", "v1", options_kind))
        props = b.defs.get(b.ref(cls).rpartition("/")[2], {}).get("properties", {}) if cls is not None else {}
        query = []
        for name, prop in props.items():
            if name in ("apiVersion", "kind") or "$ref" in prop or "allOf" in prop:
                continue
            typ = prop.get("type", "string")
            if typ == "array":
                typ = prop.get("items", {}).get("type", "string")
            desc = prop.get("description", "")
            if b.v3:
                query.append({"description": desc, "in": "query", "name": name,
                              "schema": {"type": typ, "uniqueItems": True}})
            else:
                query.append({"description": desc, "in": "query", "name": name, "type": typ, "uniqueItems": True})
        string = {"type": "string"}

        def responses(media: Sequence[str]) -> dict[str, Any]:
            if b.v3:
                ok = {"content": {m: {"schema": string} for m in media}, "description": "OK"}
            else:
                ok = {"description": "OK", "schema": string}
            return {"200": ok, "401": {"description": "Unauthorized"}}

        def op(method: str, op_name: str, path: str, desc: str, action: str, gvk_kind: str,
               media: Sequence[str]) -> dict[str, Any]:
            op_id, tags = operation_id_and_tags(op_name, path)
            out: dict[str, Any] = {"description": desc, "operationId": op_id}
            if not b.v3:
                out.update({"consumes": ["*/*"], "produces": list(media), "schemes": ["https"]})
            out["responses"] = responses(media)
            out["tags"] = tags
            out["x-kubernetes-action"] = action
            out["x-kubernetes-group-version-kind"] = {"group": "", "kind": gvk_kind, "version": "v1"}
            return out

        def params(*extra: Any) -> list[Any]:
            found = [name_param, *extra] + ([ns_param] if ns_param is not None else []) + query
            return sorted(found, key=lambda p: p["name"])

        sub_t = _title(sub)
        if r.name == "pods/log":
            media = ("text/plain", *_MEDIA)
            pretty = b._param("pretty")
            return {item: {"get": op("get", f"read{scope}{kind}{sub_t}", item, f"read {sub} of the specified {kind}",
                                     "get", kind, media), "parameters": params(pretty)}}
        methods = ["GET", "POST"] if sub in ("exec", "attach", "portforward") else \
            ["DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT"]
        out: dict[str, Any] = {}
        forms = [(item, "", ())]
        if sub == "proxy":
            forms.append((item + "/{path}", "WithPath", (b._path_param("path", "path to the resource"),)))
        for path, suffix, extra in forms:
            ops = {m.lower(): op(m.lower(), f"connect{m.title()}{scope}{kind}{sub_t}{suffix}", path,
                                 f"connect {m} requests to {sub} of {kind}", "connect", r.kind, ("*/*",))
                   for m in methods}
            out[path] = {**ops, "parameters": params(*extra)}
        return out

    # -- documents ----------------------------------------------------------------------------

    @staticmethod
    def _dump(doc: Any) -> bytes:
        # encoding/json writes map keys sorted; spec structs marshal their fields in order, but
        # every field here is a map key or sorted like one in kube's documents.
        return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()

    def v3_document(self, gv: GroupVersion) -> dict[str, Any]:
        """The v3 document of one group version, as a JSON tree."""
        b = _Builder(True, self._gvks_of(), self._defs)
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
        b = _Builder(False, self._gvks_of(), self._defs)
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

    def v2_protobuf(self) -> bytes:
        """/openapi/v2 as gnostic's protobuf ``openapi_v2.Document`` (cached)."""
        from kcodec.server._openapi_pb import document_to_protobuf

        data = self.v2()
        with self._lock:
            if self._v2_pb is None or self._v2_pb[0] is not data:
                self._v2_pb = (data, document_to_protobuf(json.loads(data)))
            return self._v2_pb[1]

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
            generation = self._generation
        paths = {}
        for gv in self.resources:
            key = _gv_key(gv)
            data = self.v3(key)
            assert data is not None
            paths[key] = {"serverRelativeURL": f"/openapi/v3/{key}?hash={self.etag(data)}"}
        index = self._dump({"paths": paths})
        with self._lock:
            if generation == self._generation:  # not built from documents an update() dropped
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
            # kube-openapi pkg/handler: the first Accept clause it can serve wins
            for subtype in _accepted_subtypes(accept, _V2_SUBTYPES):
                if subtype == "json":
                    return self._content_response(self.v2(), headers, {"Vary": "Accept"})
                data = self.v2_protobuf()  # its ETag is the JSON document's, as kube-openapi's
                return self._content_response(data, headers, {"Vary": "Accept"}, self.etag(self.v2()),
                                              "application/" + _V2_PROTOBUF)
            return 406, {"Vary": "Accept"}, b""
        if path == "/openapi/v3":
            data = self.v3_index()
            return self._content_response(data, headers, {})
        if path.startswith("/openapi/v3/"):
            key = path[len("/openapi/v3/"):]
            hdrs = {"Vary": "Accept"}
            if not _accepts(accept, "json"):
                return 406, hdrs, b""
            doc = self.v3(key)
            if doc is None:
                return 200, hdrs, b""  # handler3 writes nothing for a group version it does not have
            data = doc
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
                          etag: str | None = None,
                          content_type: str = "application/json") -> tuple[int, dict[str, str], bytes]:
        etag = etag or self.etag(data)
        quoted = f'"{etag}"'
        out = {**hdrs, "Content-Type": content_type, "Etag": quoted}
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


_V2_PROTOBUF = "com.github.proto-openapi.spec.v2.v1.0+protobuf"
# (Accept subtype, what is served): the deprecated spelling is answered with the current one
_V2_SUBTYPES = (("json", "json"), ("com.github.proto-openapi.spec.v2@v1.0+protobuf", "protobuf"),
                (_V2_PROTOBUF, "protobuf"))


def _accepted_subtypes(accept: str, offered: Sequence[tuple[str, str]]) -> list[str]:
    """goautoneg's order: Accept clauses by quality (stable), each matched against the
    offered subtypes in order; what each matching clause would be served."""
    clauses = []
    for i, clause in enumerate(accept.split(",")):
        parts = [p.strip() for p in clause.split(";")]
        q = 1.0
        for p in parts[1:]:
            if p.startswith("q="):
                try:
                    q = float(p[2:])
                except ValueError:
                    q = 0.0
        t, _, st = parts[0].partition("/")
        clauses.append((-q, i, t, st))
    out = []
    for _q, _i, t, st in sorted(clauses):
        if _q == 0:
            continue
        for sub, served in offered:
            if t in ("application", "*") and st in (sub, "*"):
                out.append(served)
                break
    return out


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
