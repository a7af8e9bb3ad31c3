"""EncryptionConfiguration files (``apiserver.config.k8s.io/v1``) -> transformers per resource.

Follows apiserver ``pkg/server/options/encryptionconfig/config.go`` (building the chains,
``*.group`` and ``*.*`` rules, masking checks, resource lookup) and
``pkg/apis/apiserver/validation/validation_encryption.go`` (field-path errors), with the
v1 defaults of ``pkg/apis/apiserver/v1/defaults.go``. Files are decoded strictly, as the
API server does: an unknown field is an error naming its path.

KMS v2 providers dial their plugin's ``endpoint`` over gRPC, as kube-apiserver does
(``grpcio`` needed), unless ``kms_services`` gives a
:class:`~kcodec.storage.value.kms.KMSService` for the provider's name (``LocalKMS``...).
KMS v1 providers (behind ``kms_v1=True``) need a ``KMSv1Service`` from ``kms_services``.
"""
from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from kcodec.errors import ConfigError, DecodeError, KCodecError
from kcodec.schema import GroupResource, parse_group_resource
from kcodec.storage.value.aes import AESCBCTransformer, AESGCMTransformer
from kcodec.storage.value.kms import KMSService, KMSv1Transformer, KMSv2Transformer
from kcodec.storage.value.secretbox import SecretboxTransformer
from kcodec.storage.value.transformer import IdentityTransformer, PrefixTransformers

__all__ = ["load_encryption_config", "parse_encryption_config", "transformer_for_resource",
           "ANY_GROUP_ANY_RESOURCE"]

ANY_GROUP_ANY_RESOURCE = GroupResource("*", "*")

# The name Go's scheme for this file carries (runtime.NewScheme names it by its call site).
_SCHEME_NAME = "k8s.io/apiserver/pkg/server/options/encryptionconfig/config.go:142"

_AES_KEY_SIZES = [16, 24, 32]
_SECRETBOX_KEY_SIZES = [32]

class _Struct:
    """A struct of the v1 config types: its Go name and JSON fields.

    A field's type is ``"string"``, ``"int32"``, ``"duration"`` (metav1.Duration), a
    :class:`_Struct`, or a one-element list of one of those.
    """

    def __init__(self, name: str, fields: dict[str, Any]) -> None:
        self.name = name
        self.fields = fields


_KEY = _Struct("Key", {"name": "string", "secret": "string"})
_AES = _Struct("AESConfiguration", {"keys": [_KEY]})
_SECRETBOX = _Struct("SecretboxConfiguration", {"keys": [_KEY]})
_IDENTITY = _Struct("IdentityConfiguration", {})
_KMS = _Struct("KMSConfiguration", {"apiVersion": "string", "name": "string", "cachesize": "int32",
                                    "endpoint": "string", "timeout": "duration"})
_PROVIDER = _Struct("ProviderConfiguration", {"aesgcm": _AES, "aescbc": _AES, "secretbox": _SECRETBOX,
                                              "identity": _IDENTITY, "kms": _KMS})
_RESOURCE = _Struct("ResourceConfiguration", {"resources": ["string"], "providers": [_PROVIDER]})
_TOP = _Struct("EncryptionConfiguration", {"kind": "string", "apiVersion": "string", "resources": [_RESOURCE]})


def _go_type(t: Any) -> str:
    if isinstance(t, list):
        return "[]" + _go_type(t[0])
    if isinstance(t, _Struct):
        return "v1." + t.name
    return {"duration": "v1.Duration"}.get(t, t)


_UNIT_NS = {"ns": 1, "us": 1_000, "µs": 1_000, "μs": 1_000, "ms": 1_000_000, "s": 1_000_000_000,
            "m": 60_000_000_000, "h": 3_600_000_000_000}
_MAX_DURATION = (1 << 63) - 1


def _parse_duration(s: str) -> int:
    """Go's time.ParseDuration, in nanoseconds, with its error texts."""
    orig = s
    invalid = ValueError(f"time: invalid duration {_q(orig)}")
    neg = False
    if s and s[0] in "+-":
        neg = s[0] == "-"
        s = s[1:]
    if s == "0":
        return 0
    if not s:
        raise invalid
    total = 0
    while s:
        if not (s[0] == "." or s[0].isdigit()):
            raise invalid
        i = 0
        while i < len(s) and "0" <= s[i] <= "9":
            i += 1
        whole, s, pre = int(s[:i] or "0"), s[i:], i > 0
        frac, post = "", False
        if s.startswith("."):
            j = 1
            while j < len(s) and "0" <= s[j] <= "9":
                j += 1
            frac, s, post = s[1:j], s[j:], j > 1
        if not pre and not post:
            raise invalid
        k = 0
        while k < len(s) and s[k] != "." and not ("0" <= s[k] <= "9"):
            k += 1
        if k == 0:
            raise ValueError(f"time: missing unit in duration {_q(orig)}")
        unit_name, s = s[:k], s[k:]
        unit = _UNIT_NS.get(unit_name)
        if unit is None:
            raise ValueError(f"time: unknown unit {_q(unit_name)} in duration {_q(orig)}")
        value = whole * unit + (int(int(frac) * unit / 10 ** len(frac)) if frac else 0)
        total += value
        if total > _MAX_DURATION + (1 if neg else 0):
            raise invalid
    return -total if neg else total


def _go_duration(ns: int) -> str:
    """time.Duration.String for whole-second-ish values (what timeouts hold)."""
    if ns == 0:
        return "0s"
    sign = "-" if ns < 0 else ""
    ns = abs(ns)
    h, rem = divmod(ns, 3_600_000_000_000)
    m, rem = divmod(rem, 60_000_000_000)
    sec = rem / 1_000_000_000
    out = ""
    if h:
        out += f"{h}h"
    if h or m:
        out += f"{m}m"
    out += (f"{sec:.9f}".rstrip("0").rstrip(".") or "0") + "s"
    return sign + out


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _strict(tree: Any, typ: Any, path: str, json_path: str, struct: str, unknown: list[str]) -> Any:
    """Check ``tree`` against ``typ`` as sigs.k8s.io/json's strict decoding would.

    Unknown fields are collected with their indexed path (Go reports them all, as
    ``resources[0].providers[3].kms.pandas``); a type mismatch raises at once with
    encoding/json's text, which names the innermost struct and the un-indexed path.
    """
    if tree is None:  # null leaves a Go value at its zero value
        return None

    def mismatch(what: str) -> DecodeError:
        return DecodeError(f"json: cannot unmarshal {what} into Go struct field {struct}.{json_path} "
                           f"of type {_go_type(typ)}")

    if isinstance(typ, list):
        if not isinstance(tree, list):
            raise mismatch(_json_kind(tree))
        return [_strict(item, typ[0], f"{path}[{i}]", json_path, struct, unknown) for i, item in enumerate(tree)]
    if isinstance(typ, _Struct):
        if not isinstance(tree, dict):
            raise mismatch(_json_kind(tree))
        out = {}
        for k, v in tree.items():
            if k not in typ.fields:
                unknown.append(f"{path}.{k}" if path else k)
                continue
            out[k] = _strict(v, typ.fields[k], f"{path}.{k}" if path else k,
                             f"{json_path}.{k}" if json_path else k, typ.name, unknown)
        return out
    if typ == "int32":
        if isinstance(tree, bool) or not isinstance(tree, (int, float)):
            raise mismatch(_json_kind(tree))
        if isinstance(tree, float) or not -(1 << 31) <= tree < 1 << 31:
            raise mismatch(f"number {tree}")
        return tree
    if not isinstance(tree, str):
        if typ == "duration":  # metav1.Duration unmarshals a JSON string itself
            raise DecodeError(f"json: cannot unmarshal {_json_kind(tree)} into Go value of type string")
        raise mismatch(_json_kind(tree))
    if typ == "duration":
        _parse_duration(tree)
    return tree


def _decode(data: bytes) -> dict[str, Any]:
    """YAML or JSON -> the strictly checked, defaulted config tree."""
    from kcodec.yamlutil import is_json_buffer, yaml_to_tree

    if is_json_buffer(data):
        try:
            tree = json.loads(data)
        except ValueError as err:
            raise DecodeError(f"json: {err}") from None
    else:
        tree = yaml_to_tree(data)
    if not isinstance(tree, dict):
        raise DecodeError(f"couldn't get version/kind; json parse error: json: cannot unmarshal "
                          f"{_json_kind(tree)} into Go value of type struct {{ APIVersion string "
                          f'"json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }}')
    kind, api_version = tree.get("kind", ""), tree.get("apiVersion", "")
    compact = json.dumps(tree, separators=(",", ":"))
    if not kind:
        raise DecodeError(f"Object 'Kind' is missing in '{compact}'")
    if not api_version:
        raise DecodeError(f"Object 'apiVersion' is missing in '{compact}'")
    known = {("apiserver.config.k8s.io/v1", "EncryptionConfiguration"), ("v1", "EncryptionConfig")}
    if (api_version, kind) not in known:
        raise DecodeError(f'no kind "{kind}" is registered for version "{api_version}" in scheme "{_SCHEME_NAME}"')
    unknown: list[str] = []
    out = _strict(tree, _TOP, "", "", "EncryptionConfiguration", unknown)
    if unknown:
        raise DecodeError("strict decoding error: " + ", ".join(f'unknown field "{u}"' for u in unknown))
    for rc in out.get("resources") or []:
        for p in (rc or {}).get("providers") or []:
            kms = (p or {}).get("kms")
            if kms is not None:
                # v1 defaults (SetDefaults_KMSConfiguration)
                kms.setdefault("timeout", "3s")
                if not kms.get("apiVersion"):
                    kms["apiVersion"] = "v1"
                if kms.get("cachesize") is None and kms["apiVersion"] == "v1":
                    kms["cachesize"] = 1000
    return out


# ----------------------------------------------------------------------- validation


def _go_json(value: Any) -> str:
    """encoding/json's Marshal of a value (compact, HTML-safe), as field errors print bad values."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    for ch, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                    ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(ch, esc)
    return text


def _provider_value(p: Mapping[str, Any]) -> str:
    """The bad value of a provider entry, as Go marshals its internal struct (no JSON tags).

    Go prints the keys' secrets too; they are redacted here, as the key validation does.
    """
    def keys(cfg: Any) -> Any:
        if cfg is None:
            return None
        return {"Keys": [{"Name": (k or {}).get("name") or "", "Secret": "REDACTED"}
                         for k in (cfg.get("keys") or [])] or None}

    kms = p.get("kms")
    return _go_json({
        "AESGCM": keys(p.get("aesgcm")),
        "AESCBC": keys(p.get("aescbc")),
        "Secretbox": keys(p.get("secretbox")),
        "Identity": None if p.get("identity") is None else {},
        "KMS": None if kms is None else {
            "APIVersion": kms.get("apiVersion") or "", "Name": kms.get("name") or "",
            "CacheSize": kms.get("cachesize"), "Endpoint": kms.get("endpoint") or "",
            "Timeout": kms.get("timeout")},
    })


class _Errors:
    def __init__(self) -> None:
        self.items: list[tuple[str, str]] = []

    def required(self, path: str, detail: str) -> None:
        self.items.append((path, f"{path}: Required value: {detail}"))

    def invalid(self, path: str, value: str, detail: str) -> None:
        self.items.append((path, f"{path}: Invalid value: {value}: {detail}"))


def _q(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)


def _validate_keys(keys: Any, path: str, sizes: list[int], errs: _Errors) -> None:
    if not keys:
        errs.required(path, "at least one keys is required")
        return
    for i, key in enumerate(keys):
        kp = f"{path}[{i}]"
        key = key or {}
        if not key.get("name"):
            errs.required(f"{kp}.name", "name is a mandatory field for a key")
        secret = key.get("secret") or ""
        if not secret:
            errs.required(f"{kp}.secret", "secret is a mandatory field for a key")
            continue
        try:
            raw = base64.b64decode(secret, validate=True)
        except (binascii.Error, ValueError):
            errs.invalid(f"{kp}.secret", '"REDACTED"', "secrets must be base64 encoded")
            continue
        if len(raw) not in sizes:
            errs.invalid(f"{kp}.secret", '"REDACTED"',
                         f"secret is not of the expected length, got {len(raw)}, expected one of "
                         f"[{' '.join(str(s) for s in sizes)}]")


def _validate_kms(kms: Mapping[str, Any], path: str, names: set[str], errs: _Errors) -> None:
    name, api_version = kms.get("name") or "", kms.get("apiVersion") or ""
    if not name:
        errs.required(f"{path}.name", "name is a mandatory field for a provider")
    if api_version != "v1" and ":" in name:
        errs.invalid(f"{path}.name", _q(name), f"invalid KMS provider name {name}, must not contain ':'")
    if api_version != "v1" and name in names:
        errs.invalid(f"{path}.name", _q(name), f"duplicate KMS provider name {name}, names must be unique")
    timeout = _parse_duration(kms.get("timeout") or "0")
    if timeout <= 0:
        # a *metav1.Duration: marshalled to JSON, so quoted
        errs.invalid(f"{path}.timeout", _q(_go_duration(timeout)), "timeout should be a positive value")
    endpoint = kms.get("endpoint") or ""
    if not endpoint:
        errs.invalid(f"{path}.endpoint", '""', "endpoint is a mandatory field for a kms")
    else:
        try:
            scheme = urlsplit(endpoint).scheme
        except ValueError as err:
            errs.invalid(f"{path}.endpoint", _q(endpoint), f"invalid endpoint for kms provider, error: {err}")
        else:
            if scheme != "unix":
                errs.invalid(f"{path}.endpoint", _q(endpoint),
                             f"unsupported scheme {_q(scheme)} for KMS provider, only unix is supported")
    cache_size = kms.get("cachesize")
    if api_version != "v1" and cache_size is not None:
        errs.invalid(f"{path}.cachesize", str(cache_size), "cachesize is not supported in v2")
    if api_version == "v1" and cache_size == 0:
        errs.invalid(f"{path}.cachesize", "0", "cachesize should be a positive value, or negative to disable")
    if api_version not in ("v1", "v2"):
        errs.invalid(f"{path}.apiVersion", _q(api_version),
                     "unsupported apiVersion apiVersion for KMS provider, only v1 and v2 are supported")


_NON_REST = {"apiserveripinfo", "serviceipallocations", "servicenodeportallocations"}


def _validate_resources(resources: list[str], path: str, errs: _Errors) -> None:
    grs = [parse_group_resource(r) for r in resources]
    if len(grs) >= 2:
        has_dup = has_overlap = False
        for i, r1 in enumerate(grs):
            for j, r2 in enumerate(grs):
                if i == j:
                    continue
                if r1 == r2 and not has_dup:
                    has_dup = True
                    continue
                if has_overlap:
                    continue
                if r1 == ANY_GROUP_ANY_RESOURCE:
                    has_overlap = True
                    continue
                if r1.group != r2.group:
                    continue
                if r1.resource == "*" or r2.resource == "*":
                    has_overlap = True
        if has_dup:
            errs.invalid(path, _go_json(resources), "the same resource cannot be specified multiple times")
        if has_overlap:
            errs.invalid(path, _go_json(resources),
                         "using overlapping resources such as 'secrets' and '*.' in the same resource list "
                         "is not allowed as they will be masked")
    for j, res in enumerate(resources):
        jp = f"{path}[{j}]"
        gr = parse_group_resource(res)
        if res.lower() != res:
            errs.invalid(jp, _q(res), "resource name should not contain capital letters")
        elif res == "*":
            errs.invalid(jp, _q(res), "use '*.' to encrypt all the resources from core API group or *.* to "
                                      "encrypt all resources")
        elif res in _NON_REST:
            errs.invalid(jp, _q(res), "resources which do not have REST API/s cannot be encrypted")
        elif gr.group == "events.k8s.io":
            errs.invalid(jp, _q(res), "'*.events.k8s.io' objects are stored using the 'events' API group in "
                                      "etcd. Use 'events' instead in the config file")
        elif gr.group == "extensions":
            errs.invalid(jp, _q(res), "'extensions' group has been removed and cannot be used for encryption")
        elif gr.group == "*" and gr.resource != "*":
            errs.invalid(jp, _q(res), "encrypting the same resource across groups is not supported")


def _validate(config: Mapping[str, Any]) -> None:
    """Go's ValidateEncryptionConfiguration (reload=false); raises ConfigError listing all faults."""
    errs = _Errors()
    resources = config.get("resources") or []
    if not resources:
        errs.required("resources", "at least one resources is required")
    names: set[str] = set()
    for i, rc in enumerate(resources):
        rc = rc or {}
        rp, pp = f"resources[{i}].resources", f"resources[{i}].providers"
        res_list = rc.get("resources") or []
        if not res_list:
            errs.required(rp, f"at least one {rp} is required")
        _validate_resources(res_list, rp, errs)
        providers = rc.get("providers") or []
        if not providers:
            errs.required(pp, f"at least one {pp} is required")
        for j, p in enumerate(providers):
            path = f"{pp}[{j}]"
            p = p or {}
            found = sum(1 for k in ("kms", "aesgcm", "aescbc", "secretbox", "identity") if p.get(k) is not None)
            if found == 0:
                errs.invalid(path, _provider_value(p), "provider does not contain any of the expected providers: "
                                                      "KMS, AESGCM, AESCBC, Secretbox, Identity")
            elif found > 1:
                errs.invalid(path, _provider_value(p), "more than one provider specified in a single element, "
                                                      "should split into different list elements")
            if p.get("kms") is not None:
                _validate_kms(p["kms"], f"{path}.kms", names, errs)
                names.add(p["kms"].get("name") or "")
            elif p.get("aesgcm") is not None:
                _validate_keys(p["aesgcm"].get("keys"), f"{path}.aesgcm.keys", _AES_KEY_SIZES, errs)
            elif p.get("aescbc") is not None:
                _validate_keys(p["aescbc"].get("keys"), f"{path}.aescbc.keys", _AES_KEY_SIZES, errs)
            elif p.get("secretbox") is not None:
                _validate_keys(p["secretbox"].get("keys"), f"{path}.secretbox.keys", _SECRETBOX_KEY_SIZES, errs)
    if errs.items:
        msgs = list(dict.fromkeys(m for _, m in errs.items))
        text = msgs[0] if len(msgs) == 1 else "[" + ", ".join(msgs) + "]"
        raise ConfigError("error while parsing file: " + text, field=errs.items[0][0],
                          errors=[(f, m) for f, m in errs.items])


# ----------------------------------------------------------------------- building


def _keys(p: Mapping[str, Any]) -> list[tuple[str, bytes]]:
    return [(k.get("name") or "", base64.b64decode(k.get("secret") or "")) for k in (p.get("keys") or [])]


def _provider(p: Mapping[str, Any], kms_services: Mapping[str, Any], kms_v1: bool) -> Any:
    if p.get("aesgcm") is not None:
        return AESGCMTransformer(_keys(p["aesgcm"]))
    if p.get("aescbc") is not None:
        return AESCBCTransformer(_keys(p["aescbc"]))
    if p.get("secretbox") is not None:
        return SecretboxTransformer(_keys(p["secretbox"]))
    if p.get("kms") is not None:
        kms = p["kms"]
        name = kms.get("name") or ""
        v1 = kms.get("apiVersion") == "v1"
        if v1 and not kms_v1:
            raise ConfigError("KMSv1 is deprecated and will only receive security updates going forward. Use "
                              "KMSv2 instead.  Set --feature-gates=KMSv1=true to use the deprecated KMSv1 feature.")
        service = kms_services.get(name)
        if service is None and not v1:
            # as kube-apiserver does: dial the plugin at its endpoint
            from kcodec.storage.value.kms_grpc import GRPCKMSService

            try:
                service = GRPCKMSService(kms.get("endpoint") or "",
                                         timeout=_parse_duration(kms.get("timeout") or "3s") / 1e9)
            except KCodecError as err:
                raise ConfigError(f"could not configure KMSv2-Plugin's probe {_q(name)}, error: {err}") from None
        if service is None:
            raise ConfigError(f"could not configure KMSv1-Plugin's probe {_q(name)}, error: no KMS v1 service given "
                              f"for this provider (kcodec does not speak the v1beta1 gRPC API)")
        if v1:
            return KMSv1Transformer(name, service, cache_size=int(kms.get("cachesize") or 0))
        return KMSv2Transformer(name, service)
    if p.get("identity") is not None:
        return IdentityTransformer()
    raise ConfigError("provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, "
                      "Identity")


def _gr_yaml(gr: GroupResource) -> str:
    if gr.group == "" and gr.resource == "*":
        return "*."
    return str(gr)


def parse_encryption_config(data: bytes, *, source: str = "<data>",
                            kms_services: Mapping[str, KMSService] | None = None, kms_v1: bool = False
                            ) -> dict[GroupResource, PrefixTransformers]:
    """:func:`load_encryption_config` for the file's bytes; ``source`` names it in errors."""
    services = dict(kms_services or {})
    try:
        config = _decode(bytes(data))
    except (DecodeError, ValueError) as err:
        raise ConfigError(f"error while parsing file: error decoding encryption provider configuration file "
                          f"{_q(source)}: {err}") from None
    _validate(config)
    chains: dict[GroupResource, list[Any]] = {}
    for rc in config.get("resources") or []:
        try:
            providers = [_provider(p, services, kms_v1).prefix_transformer() for p in rc.get("providers") or []]
        except ConfigError as err:
            raise ConfigError(f"error while building transformers: {err}") from None
        for res in rc.get("resources") or []:
            gr = parse_group_resource(res)
            group_any = GroupResource(gr.group, "*")
            for mask in (group_any, ANY_GROUP_ANY_RESOURCE):
                if mask in chains:
                    raise ConfigError(f"error while building transformers: resource {_q(_gr_yaml(gr))} is masked "
                                      f"by earlier rule {_q(_gr_yaml(mask))}")
            chains.setdefault(gr, []).extend(providers)
    return {gr: PrefixTransformers(*items, error="no matching prefix found") for gr, items in chains.items()}


def load_encryption_config(path: str | Path, *, kms_services: Mapping[str, KMSService] | None = None,
                           kms_v1: bool = False) -> dict[GroupResource, PrefixTransformers]:
    """Read an EncryptionConfiguration file: a transformer chain per configured resource.

    Keys are the resources as written (``secrets`` -> ``GroupResource("", "secrets")``,
    ``*.apps`` -> ``GroupResource("apps", "*")``, ``*.*``); use
    :func:`transformer_for_resource` to pick the chain for a resource as the API server
    does. Raises :class:`kcodec.errors.ConfigError` with Go's texts: decoding errors
    (including unknown fields), validation errors named by field path
    (``resources[0].providers[0].aesgcm.keys[0].secret: Invalid value: "REDACTED": ...``;
    ``.field`` and ``.errors`` hold them as data), rules masked by earlier wildcards.
    ``kms_services`` maps KMS provider names to services (``KMSService`` for v2,
    ``KMSv1Service`` for v1); ``kms_v1=True`` is ``--feature-gates=KMSv1=true``.
    """
    path = str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        reason = err.strerror.lower() if err.strerror else str(err)
        raise ConfigError(f"error while parsing file: error while loading file: error reading encryption provider "
                          f"configuration file {_q(path)}: open {path}: {reason}") from None
    if not data:
        raise ConfigError(f"error while parsing file: error while loading file: encryption provider configuration "
                          f"file {_q(path)} is empty")
    return parse_encryption_config(data, source=path, kms_services=kms_services, kms_v1=kms_v1)


def transformer_for_resource(overrides: Mapping[GroupResource, Any], resource: GroupResource) -> Any:
    """The transformer the API server uses for ``resource``: exact, then ``*.group``, then ``*.*``, then identity."""
    for candidate in (resource, GroupResource(resource.group, "*"), ANY_GROUP_ANY_RESOURCE):
        t = overrides.get(candidate)
        if t is not None:
            return t
    return IdentityTransformer()
