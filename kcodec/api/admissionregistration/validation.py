"""Validation of admission webhook configurations (Go: k8s.io/kubernetes
pkg/apis/admissionregistration/validation/validation.go, with apiserver
pkg/util/webhook/validation.go for client configs): ValidatingWebhookConfiguration and
MutatingWebhookConfiguration.

matchConditions are checked for names and non-empty expressions; their CEL is not
compiled (kcodec has no CEL environment), so a CEL type or syntax error is not reported.
"""
from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from kcodec.validation import field as fld
from kcodec.validation import names
from kcodec.validation import objectmeta as om
from kcodec.validation.field import ErrorList, Path

__all__ = [
    "validate_validating_webhook_configuration",
    "validate_validating_webhook_configuration_update",
    "validate_mutating_webhook_configuration",
    "validate_mutating_webhook_configuration_update",
    "validate_webhook_url",
    "validate_webhook_service",
]

_FAILURE_POLICIES = ["Fail", "Ignore"]
_MATCH_POLICIES = ["Equivalent", "Exact"]
_SIDE_EFFECTS = ["None", "NoneOnDryRun", "Some", "Unknown"]
_NO_SIDE_EFFECTS = ["None", "NoneOnDryRun"]
_OPERATIONS = ["*", "CONNECT", "CREATE", "DELETE", "UPDATE"]
_REINVOCATION = ["IfNeeded", "Never"]
_SCOPES = ["*", "Cluster", "Namespaced"]
_REVIEW_VERSIONS = ["v1", "v1beta1"]


def validate_webhook_url(path: Path, url: str, force_https: bool = True) -> ErrorList:
    """apiserver ``webhook.ValidateWebhookURL`` (Go's url.Parse rejects control characters;
    other parse errors are not reproduced)."""
    form = "; desired format: https://host[/path]"
    errs = ErrorList()
    bad = next((c for c in url if ord(c) < 0x20 or ord(c) == 0x7F), None)
    if bad is not None:
        errs.append(fld.required(path, f'url must be a valid URL: parse "{url}": net/url: invalid control character '
                                       f"in URL{form}"))
        return errs
    u = urlsplit(url)
    if force_https and u.scheme.lower() != "https":
        errs.append(fld.invalid(path, u.scheme.lower(), "'https' is the only allowed URL scheme" + form))
    userinfo, at, host = u.netloc.rpartition("@")
    if not host:
        errs.append(fld.invalid(path, host, "host must be specified" + form))
    if at:
        errs.append(fld.invalid(path, userinfo, "user information is not permitted in the URL"))
    if u.fragment:
        errs.append(fld.invalid(path, u.fragment, "fragments are not permitted in the URL"))
    if u.query:
        errs.append(fld.invalid(path, u.query, "query parameters are not permitted in the URL"))
    return errs


def validate_webhook_service(path: Path, namespace: str, name: str, url_path: str | None, port: int) -> ErrorList:
    """apiserver ``webhook.ValidateWebhookService``."""
    errs = ErrorList()
    if not name:
        errs.append(fld.required(path.child("name"), ""))
    if not namespace:
        errs.append(fld.required(path.child("namespace"), ""))
    port_errs = names.is_valid_port_num(port)
    if port_errs:
        errs.append(fld.invalid(path.child("port"), port, "port is not valid: " + ", ".join(port_errs)))
    if url_path is None or url_path in ("/", ""):
        return errs
    pp = path.child("path")
    if url_path == "//":
        errs.append(fld.invalid(pp, url_path, "segment[0] may not be empty"))
        return errs
    if not url_path.startswith("/"):
        errs.append(fld.invalid(pp, url_path, "must start with a '/'"))
    check = url_path[1:]
    if check.endswith("/"):
        check = check[:-1]
    for i, step in enumerate(check.split("/")):
        if not step:
            errs.append(fld.invalid(pp, url_path, f"segment[{i}] may not be empty"))
            continue
        errs.extend(fld.invalid(pp, url_path, f"segment[{i}]: {m}") for m in names.is_dns1123_subdomain(step))
    return errs


def _validate_resources(resources: list[str], path: Path) -> ErrorList:
    errs = ErrorList()
    if not resources:
        errs.append(fld.required(path, ""))
    res_with_wild_sub: set[str] = set()
    sub_with_wild_res: set[str] = set()
    double = single = plain = False
    for i, rs in enumerate(resources):
        if rs == "":
            errs.append(fld.required(path.index(i), ""))
            continue
        if rs == "*/*":
            double = True
        if rs == "*":
            single = True
        parts = rs.split("/", 1)
        if len(parts) == 1:
            plain = rs != "*"
            continue
        res, sub = parts
        if res in res_with_wild_sub:
            errs.append(fld.invalid(path.index(i), rs, f"if '{res}/*' is present, must not specify {rs}"))
        if sub in sub_with_wild_res:
            errs.append(fld.invalid(path.index(i), rs, f"if '*/{sub}' is present, must not specify {rs}"))
        if sub == "*":
            res_with_wild_sub.add(res)
        if res == "*":
            sub_with_wild_res.add(sub)
    if len(resources) > 1 and double:
        errs.append(fld.invalid(path, resources, "if '*/*' is present, must not specify other resources"))
    if single and plain:
        errs.append(fld.invalid(path, resources, "if '*' is present, must not specify other resources without subresources"))
    return errs


def _validate_rule_with_operations(rwo: Any, path: Path) -> ErrorList:
    errs = ErrorList()
    ops = list(rwo.operations or [])
    if not ops:
        errs.append(fld.required(path.child("operations"), ""))
    if len(ops) > 1 and "*" in ops:
        errs.append(fld.invalid(path.child("operations"), ops, "if '*' is present, must not specify other operations"))
    for i, op in enumerate(ops):
        if op not in _OPERATIONS:
            errs.append(fld.not_supported(path.child("operations").index(i), op, _OPERATIONS))
    rule = rwo.rule
    groups = list(rule.api_groups or [])
    if not groups:
        errs.append(fld.required(path.child("apiGroups"), ""))
    if len(groups) > 1 and "*" in groups:
        errs.append(fld.invalid(path.child("apiGroups"), groups, "if '*' is present, must not specify other API groups"))
    versions = list(rule.api_versions or [])
    if not versions:
        errs.append(fld.required(path.child("apiVersions"), ""))
    if len(versions) > 1 and "*" in versions:
        errs.append(fld.invalid(path.child("apiVersions"), versions,
                                "if '*' is present, must not specify other API versions"))
    for i, v in enumerate(versions):
        if v == "":
            errs.append(fld.required(path.child("apiVersions").index(i), ""))
    errs.extend(_validate_resources(list(rule.resources or []), path.child("resources")))
    if rule.scope is not None and rule.scope not in _SCOPES:
        errs.append(fld.not_supported(path.child("scope"), rule.scope, _SCOPES))
    return errs


def _validate_admission_review_versions(versions: list[str], require_recognized: bool, path: Path) -> ErrorList:
    errs = ErrorList()
    if not versions:
        errs.append(fld.required(path, "must specify one of v1, v1beta1"))
        return errs
    seen: set[str] = set()
    accepted = False
    for i, v in enumerate(versions):
        if v in seen:
            errs.append(fld.invalid(path.index(i), v, "duplicate version"))
            continue
        seen.add(v)
        errs.extend(fld.invalid(path.index(i), v, m) for m in names.is_dns1035_label(v))
        if v in _REVIEW_VERSIONS:
            accepted = True
    if require_recognized and not accepted:
        errs.append(fld.invalid(path, versions, "must include at least one of v1, v1beta1"))
    return errs


def _validate_match_conditions(conditions: list[Any], path: Path) -> ErrorList:
    errs = ErrorList()
    if len(conditions) > 64:
        errs.append(fld.too_many(path, len(conditions), 64))
        return errs
    seen: set[str] = set()
    for i, mc in enumerate(conditions):
        ip = path.index(i)
        if not (mc.expression or "").strip():
            errs.append(fld.required(ip.child("expression"), ""))
        if not mc.name:
            errs.append(fld.required(ip.child("name"), ""))
        else:
            errs.extend(fld.invalid(ip.child("name"), mc.name, m) for m in names.is_qualified_name(mc.name))
        if mc.name:
            if mc.name in seen:
                errs.append(fld.duplicate(ip.child("name"), mc.name))
            seen.add(mc.name)
    return errs


class _Options:
    def __init__(self, *, ignore_match_conditions: bool = False, require_no_side_effects: bool = True,
                 require_recognized_versions: bool = True, require_unique_names: bool = True,
                 allow_invalid_label_value: bool = False) -> None:
        self.ignore_match_conditions = ignore_match_conditions
        self.require_no_side_effects = require_no_side_effects
        self.require_recognized_versions = require_recognized_versions
        self.require_unique_names = require_unique_names
        self.allow_invalid_label_value = allow_invalid_label_value


def _validate_webhook(hook: Any, opts: _Options, path: Path, mutating: bool) -> ErrorList:
    errs = names.is_fully_qualified_name(path.child("name"), hook.name or "")
    for i, rule in enumerate(hook.rules or []):
        errs.extend(_validate_rule_with_operations(rule, path.child("rules").index(i)))
    if hook.failure_policy is not None and hook.failure_policy not in _FAILURE_POLICIES:
        errs.append(fld.not_supported(path.child("failurePolicy"), hook.failure_policy, _FAILURE_POLICIES))
    if hook.match_policy is not None and hook.match_policy not in _MATCH_POLICIES:
        errs.append(fld.not_supported(path.child("matchPolicy"), hook.match_policy, _MATCH_POLICIES))
    allowed = _NO_SIDE_EFFECTS if opts.require_no_side_effects else _SIDE_EFFECTS
    if hook.side_effects is None:
        errs.append(fld.required(path.child("sideEffects"), f"must specify one of {', '.join(allowed)}"))
    elif hook.side_effects not in allowed:
        errs.append(fld.not_supported(path.child("sideEffects"), hook.side_effects, allowed))
    if hook.timeout_seconds is not None and not 1 <= hook.timeout_seconds <= 30:
        errs.append(fld.invalid(path.child("timeoutSeconds"), hook.timeout_seconds,
                                "the timeout value must be between 1 and 30 seconds"))
    for attr, js in (("namespace_selector", "namespaceSelector"), ("object_selector", "objectSelector")):
        sel = getattr(hook, attr)
        if sel is not None:
            errs.extend(om.validate_label_selector(sel, path.child(js),
                                                   allow_invalid_label_value=opts.allow_invalid_label_value))
    if mutating and hook.reinvocation_policy is not None and hook.reinvocation_policy not in _REINVOCATION:
        errs.append(fld.not_supported(path.child("reinvocationPolicy"), hook.reinvocation_policy, _REINVOCATION))
    cc = hook.client_config
    cp = path.child("clientConfig")
    if (cc.url is None) == (cc.service is None):
        errs.append(fld.required(cp, "exactly one of url or service is required"))
    elif cc.url is not None:
        errs.extend(validate_webhook_url(cp.child("url"), cc.url, True))
    else:
        s = cc.service
        errs.extend(validate_webhook_service(cp.child("service"), s.namespace, s.name, s.path, s.port))
    if not opts.ignore_match_conditions:
        errs.extend(_validate_match_conditions(list(hook.match_conditions or []), path.child("matchConditions")))
    return errs


def _validate_configuration(obj: Any, opts: _Options, mutating: bool) -> ErrorList:
    errs = om.validate_object_meta(obj.metadata, False, names.name_is_dns_subdomain, Path("metadata"))
    seen: set[str] = set()
    for i, hook in enumerate(obj.webhooks or []):
        hp = Path("webhooks").index(i)
        errs.extend(_validate_webhook(hook, opts, hp, mutating))
        errs.extend(_validate_admission_review_versions(list(hook.admission_review_versions or []),
                                                        opts.require_recognized_versions,
                                                        hp.child("admissionReviewVersions")))
        if opts.require_unique_names and hook.name:
            if hook.name in seen:
                errs.append(fld.duplicate(hp.child("name"), hook.name))
            seen.add(hook.name)
    return errs


def _update_options(new: Any, old: Any) -> _Options:
    old_hooks = list(old.webhooks or [])
    new_hooks = list(new.webhooks or [])
    ignore = len(new_hooks) == len(old_hooks) and all(
        n.match_conditions == o.match_conditions for n, o in zip(new_hooks, old_hooks))
    no_side_effects = all(h.side_effects is not None and h.side_effects in _NO_SIDE_EFFECTS for h in old_hooks)
    recognized = all(not h.admission_review_versions or any(v in _REVIEW_VERSIONS for v in h.admission_review_versions)
                     for h in old_hooks)
    hook_names = [h.name for h in old_hooks]
    unique = len(hook_names) == len(set(hook_names))
    invalid_labels = any(
        sel is not None and len(om.validate_label_selector(sel, Path("x"))) > 0
        for h in old_hooks for sel in (h.namespace_selector, h.object_selector))
    return _Options(ignore_match_conditions=ignore, require_no_side_effects=no_side_effects,
                    require_recognized_versions=recognized, require_unique_names=unique,
                    allow_invalid_label_value=invalid_labels)


def validate_validating_webhook_configuration(obj: Any) -> ErrorList:
    """Go: ``ValidateValidatingWebhookConfiguration``."""
    return _validate_configuration(obj, _Options(), False)


def validate_validating_webhook_configuration_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateValidatingWebhookConfigurationUpdate`` (rules the old object broke stay
    allowed)."""
    return _validate_configuration(new, _update_options(new, old), False)


def validate_mutating_webhook_configuration(obj: Any) -> ErrorList:
    """Go: ``ValidateMutatingWebhookConfiguration``."""
    return _validate_configuration(obj, _Options(), True)


def validate_mutating_webhook_configuration_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateMutatingWebhookConfigurationUpdate``."""
    return _validate_configuration(new, _update_options(new, old), True)
