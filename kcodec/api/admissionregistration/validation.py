"""Validation of admission webhook configurations (Go: k8s.io/kubernetes
pkg/apis/admissionregistration/validation/validation.go, with apiserver
pkg/util/webhook/validation.go for client configs): ValidatingWebhookConfiguration and
MutatingWebhookConfiguration; ValidatingAdmissionPolicy (create, update, ``/status``),
ValidatingAdmissionPolicyBinding, MutatingAdmissionPolicy and MutatingAdmissionPolicyBinding.

matchConditions are checked for names and non-empty expressions; the policies'
validations, message expressions, variables, audit annotations and mutations also for
their CEL syntax (kcodec.api._celsyntax). Type errors in CEL (each kind's typed
environment) are not reported.
"""
from __future__ import annotations

import re
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
    "validate_validating_admission_policy",
    "validate_validating_admission_policy_update",
    "validate_validating_admission_policy_status_update",
    "validate_validating_admission_policy_binding",
    "validate_validating_admission_policy_binding_update",
    "is_cel_identifier",
    "validate_mutating_admission_policy",
    "validate_mutating_admission_policy_update",
    "validate_mutating_admission_policy_binding",
    "validate_mutating_admission_policy_binding_update",
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


# ------------------------------------------------------------------ admission policies

#: validation.go: at most 20 audit annotations, value expressions of at most 5 KiB.
_MAX_AUDIT_ANNOTATIONS = 20
_MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH = 5 * 1024
_VALIDATION_ACTIONS = ["Audit", "Deny", "Warn"]
_POLICY_REASONS = ["Forbidden", "Invalid", "RequestEntityTooLarge", "Unauthorized"]
_PARAMETER_NOT_FOUND_ACTIONS = ["Deny", "Allow"]
_CEL_RESERVED = frozenset(("true", "false", "null", "in", "as", "break", "const", "continue", "else", "for",
                           "function", "if", "import", "let", "loop", "package", "namespace", "return", "var",
                           "void", "while"))
_CEL_IDENT = re.compile(r"[_a-zA-Z][_a-zA-Z0-9]*")


def _cel_syntax(expression: str, path: Path) -> ErrorList:
    """Go's compile of a policy expression, as far as its syntax (kcodec.api._celsyntax)."""
    from kcodec.api._celsyntax import cel_syntax_error

    why = cel_syntax_error(expression)
    return ErrorList([fld.invalid(path, expression, why)]) if why is not None else ErrorList()


def is_cel_identifier(name: str) -> bool:
    """Go ``isCELIdentifier``: CEL's IDENT production minus its reserved words."""
    return _CEL_IDENT.fullmatch(name) is not None and name not in _CEL_RESERVED


def _parse_group_version(gv: str) -> tuple[str, str]:
    """Go ``parseGroupVersion`` (ValueError with Go's text for more than one slash)."""
    if not gv or gv == "/":
        return "", ""
    n = gv.count("/")
    if n == 0:
        return "", gv
    if n == 1:
        group, _, version = gv.partition("/")
        return group, version
    raise ValueError(f"unexpected GroupVersion string: {gv}")


def _validate_param_kind(pk: Any, path: Path) -> ErrorList:
    """Go ``validateParamKind``."""
    errs = ErrorList()
    ap = path.child("apiVersion")
    if not pk.api_version:
        errs.append(fld.required(ap, ""))
    else:
        try:
            group, version = _parse_group_version(pk.api_version)
        except ValueError as exc:
            errs.append(fld.invalid(ap, pk.api_version, str(exc)))
        else:
            if group:
                bad = names.is_dns1123_subdomain(group)
                if bad:
                    errs.append(fld.invalid(ap, group, ",".join(bad)))
            if not version:
                errs.append(fld.invalid(ap, pk.api_version, "version must be specified"))
            else:
                bad = names.is_dns1035_label(version)
                if bad:
                    errs.append(fld.invalid(ap, version, ",".join(bad)))
    if not pk.kind:
        errs.append(fld.required(path.child("kind"), ""))
    else:
        bad = names.is_dns1035_label(pk.kind.lower())
        if bad:
            errs.append(fld.invalid(path.child("kind"), pk.kind, "may have mixed case, but should otherwise match: "
                                    + ",".join(bad)))
    return errs


def _validate_named_rule(rule: Any, path: Path) -> ErrorList:
    """Go ``validateNamedRuleWithOperations``."""
    errs = ErrorList()
    seen: set[str] = set()
    for i, name in enumerate(rule.resource_names or ()):
        rp = path.child("resourceNames").index(i)
        errs.extend(fld.invalid(rp, name, m) for m in names.validate_path_segment_name(name, False))
        if name in seen:
            errs.append(fld.duplicate(rp, name))
        else:
            seen.add(name)
    errs.extend(_validate_rule_with_operations(rule.rule_with_operations, path))
    return errs


def _validate_match_resources(mc: Any, path: Path) -> ErrorList:
    """Go ``validateMatchResources`` (selectors validated strictly)."""
    errs = ErrorList()
    if mc is None:
        return errs
    if mc.match_policy is None:
        errs.append(fld.required(path.child("matchPolicy"), ""))
    elif mc.match_policy not in _MATCH_POLICIES:
        errs.append(fld.not_supported(path.child("matchPolicy"), mc.match_policy, _MATCH_POLICIES))
    for attr, name in (("namespace_selector", "namespaceSelector"), ("object_selector", "objectSelector")):
        sel = getattr(mc, attr)
        if sel is None:
            errs.append(fld.required(path.child(name), ""))
        else:
            errs.extend(om.validate_label_selector(sel, path.child(name)))
    for i, r in enumerate(mc.resource_rules or ()):
        errs.extend(_validate_named_rule(r, path.child("resourceRules").index(i)))
    for i, r in enumerate(mc.exclude_resource_rules or ()):
        errs.extend(_validate_named_rule(r, path.child("excludeResourceRules").index(i)))
    return errs


def _validate_variable(v: Any, path: Path) -> ErrorList:
    """Go ``validateVariable`` (the expression's syntax only)."""
    errs = ErrorList()
    if not (v.name or "").strip():
        errs.append(fld.required(path.child("name"), "name is not specified"))
    elif not is_cel_identifier(v.name):
        errs.append(fld.invalid(path.child("name"), v.name, "name is not a valid CEL identifier"))
    if not (v.expression or "").strip():
        errs.append(fld.required(path.child("expression"), "expression is not specified"))
    else:
        errs.extend(_cel_syntax(v.expression, path.child("expression")))
    return errs


def _validate_validation(v: Any, path: Path) -> ErrorList:
    """Go ``validateValidation`` (the expressions' syntax only)."""
    errs = ErrorList()
    if not (v.expression or "").strip():
        errs.append(fld.required(path.child("expression"), "expression is not specified"))
    else:
        errs.extend(_cel_syntax(v.expression, path.child("expression")))
    if v.message_expression and not v.message_expression.strip():
        errs.append(fld.invalid(path.child("messageExpression"), v.message_expression, "must be non-empty if specified"))
    elif v.message_expression:
        errs.extend(_cel_syntax(v.message_expression, path.child("messageExpression")))
    msg = v.message or ""
    if msg and not msg.strip():
        errs.append(fld.invalid(path.child("message"), msg, "message must be non-empty if specified"))
    elif re.search(r"[\n\r]", msg.strip()):
        errs.append(fld.invalid(path.child("message"), msg, "message must not contain line breaks"))
    if v.reason is not None and v.reason not in _POLICY_REASONS:
        errs.append(fld.not_supported(path.child("reason"), v.reason, _POLICY_REASONS))
    return errs


def _validate_audit_annotation(policy_name: str, a: Any, path: Path) -> ErrorList:
    """Go ``validateAuditAnnotation`` (the value expression's syntax only)."""
    errs = ErrorList()
    kp = path.child("key")
    if policy_name:
        q = policy_name + "/" + (a.key or "")
        errs.extend(fld.invalid(kp, q, m) for m in names.is_qualified_name(q))
    else:
        errs.append(fld.invalid(kp, a.key, "requires metadata.name be non-empty"))
    value = (a.value_expression or "").strip()
    vp = path.child("valueExpression")
    if not value:
        errs.append(fld.required(vp, "valueExpression is not specified"))
    elif len(value.encode()) > _MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH:
        errs.append(fld.required(vp, f"must not exceed {_MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH} bytes in length"))
    else:
        why = _cel_syntax(value, vp)
        if why:  # Go compiles the trimmed text and reports the value as written
            errs.append(fld.invalid(vp, a.value_expression, why[0].detail))
    return errs


def _validate_policy_head(p: Any) -> ErrorList:
    """What Go's validating and mutating policy validations both check first, in this order:
    metadata, failurePolicy, paramKind, matchConstraints (required, with resourceRules)."""
    errs = om.validate_object_meta(p.metadata, False, names.name_is_dns_subdomain, Path("metadata"))
    spec = p.spec
    sp = Path("spec")
    if spec.failure_policy is None:
        errs.append(fld.required(sp.child("failurePolicy"), ""))
    elif spec.failure_policy not in _FAILURE_POLICIES:
        errs.append(fld.not_supported(sp.child("failurePolicy"), spec.failure_policy, _FAILURE_POLICIES))
    if spec.param_kind is not None:
        errs.extend(_validate_param_kind(spec.param_kind, sp.child("paramKind")))
    mp = sp.child("matchConstraints")
    if spec.match_constraints is None:
        errs.append(fld.required(mp, ""))
    else:
        errs.extend(_validate_match_resources(spec.match_constraints, mp))
        if not spec.match_constraints.resource_rules:
            errs.append(fld.required(mp.child("resourceRules"), ""))
    return errs


def _validate_policy(p: Any, ignore_match_conditions: bool) -> ErrorList:
    """Go ``validateValidatingAdmissionPolicy`` / ``validateValidatingAdmissionPolicySpec``."""
    errs = _validate_policy_head(p)
    spec = p.spec
    sp = Path("spec")
    if not ignore_match_conditions:
        errs.extend(_validate_match_conditions(list(spec.match_conditions or []), sp.child("matchConditions")))
    for i, v in enumerate(spec.variables or ()):
        errs.extend(_validate_variable(v, sp.child("variables").index(i)))
    if not spec.validations and not spec.audit_annotations:
        why = "validations or auditAnnotations must contain at least one item"
        errs.append(fld.required(sp.child("validations"), why))
        errs.append(fld.required(sp.child("auditAnnotations"), why))
    else:
        for i, v in enumerate(spec.validations or ()):
            errs.extend(_validate_validation(v, sp.child("validations").index(i)))
        if spec.audit_annotations is not None:
            ap = sp.child("auditAnnotations")
            if len(spec.audit_annotations) > _MAX_AUDIT_ANNOTATIONS:
                errs.append(fld.invalid(ap, spec.audit_annotations,
                                        f"must not have more than {_MAX_AUDIT_ANNOTATIONS} auditAnnotations"))
            keys: set[str] = set()
            for i, a in enumerate(spec.audit_annotations):
                errs.extend(_validate_audit_annotation(p.metadata.name or "", a, ap.index(i)))
                if a.key in keys:
                    errs.append(fld.duplicate(ap.index(i).child("key"), a.key))
                keys.add(a.key)
    return errs


def validate_validating_admission_policy(p: Any) -> ErrorList:
    """Go: ``ValidateValidatingAdmissionPolicy``."""
    return _validate_policy(p, False)


def validate_validating_admission_policy_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateValidatingAdmissionPolicyUpdate``: unchanged matchConditions are not
    checked again."""
    nm, om_ = list(new.spec.match_conditions or []), list(old.spec.match_conditions or [])
    return _validate_policy(new, len(nm) == len(om_) and all(a == b for a, b in zip(nm, om_)))


def validate_validating_admission_policy_status_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateValidatingAdmissionPolicyStatusUpdate``: expression warnings name a
    field and carry a text (the JSONPath of ``fieldRef`` is not parsed), and conditions."""
    errs = ErrorList()
    status = new.status
    if status is None:
        return errs
    sp = Path("status")
    if status.type_checking is not None:
        wp = sp.child("typeChecking", "expressionWarnings")
        for i, w in enumerate(status.type_checking.expression_warnings or ()):
            if not w.warning:
                errs.append(fld.required(wp.index(i).child("warning"), ""))
            if not (w.field_ref or "").strip():
                errs.append(fld.required(wp.index(i).child("fieldRef"), ""))
    errs.extend(om.validate_conditions(status.conditions, sp.child("conditions")))
    return errs


def _validate_param_ref(pr: Any, path: Path) -> ErrorList:
    """Go ``validateParamRef``."""
    errs = ErrorList()
    if pr is None:
        return errs
    exclusive = "name and selector are mutually exclusive"
    if pr.name:
        errs.extend(fld.invalid(path.child("name"), pr.name, m) for m in names.validate_path_segment_name(pr.name, False))
        if pr.selector is not None:
            errs.append(fld.forbidden(path.child("name"), exclusive))
    if pr.selector is not None:
        errs.extend(om.validate_label_selector(pr.selector, path.child("selector")))
        if pr.name:
            errs.append(fld.forbidden(path.child("selector"), exclusive))
    if not pr.name and pr.selector is None:
        errs.append(fld.required(path, "one of name or selector must be specified"))
    if not pr.parameter_not_found_action:
        errs.append(fld.required(path.child("parameterNotFoundAction"), ""))
    elif pr.parameter_not_found_action not in _PARAMETER_NOT_FOUND_ACTIONS:
        errs.append(fld.not_supported(path.child("parameterNotFoundAction"), pr.parameter_not_found_action,
                                      _PARAMETER_NOT_FOUND_ACTIONS))
    return errs


def _validate_validation_actions(actions: list[str] | None, path: Path) -> ErrorList:
    """Go ``validateValidationActions``."""
    errs = ErrorList()
    seen: set[str] = set()
    va = list(actions or ())
    for i, a in enumerate(va):
        if a not in _VALIDATION_ACTIONS:
            errs.append(fld.not_supported(path.index(i), a, _VALIDATION_ACTIONS))
        if a in seen:
            errs.append(fld.duplicate(path.index(i), a))
        seen.add(a)
    if "Deny" in seen and "Warn" in seen:
        errs.append(fld.invalid(path, va, "must not contain both Deny and Warn (repeating the same validation failure "
                                          "information in the API response and headers serves no purpose)"))
    if not seen:
        errs.append(fld.required(path, "at least one validation action is required"))
    return errs


def validate_validating_admission_policy_binding(b: Any) -> ErrorList:
    """Go: ``ValidateValidatingAdmissionPolicyBinding``."""
    errs = om.validate_object_meta(b.metadata, False, names.name_is_dns_subdomain, Path("metadata"))
    spec = b.spec
    sp = Path("spec")
    if not spec.policy_name:
        errs.append(fld.required(sp.child("policyName"), ""))
    else:
        errs.extend(fld.invalid(sp.child("policyName"), spec.policy_name, m)
                    for m in names.name_is_dns_subdomain(spec.policy_name, False))
    errs.extend(_validate_param_ref(spec.param_ref, sp.child("paramRef")))
    errs.extend(_validate_match_resources(spec.match_resources, sp.child("matchResources")))
    errs.extend(_validate_validation_actions(spec.validation_actions, sp.child("validationActions")))
    return errs


def validate_validating_admission_policy_binding_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateValidatingAdmissionPolicyBindingUpdate``."""
    return validate_validating_admission_policy_binding(new)


# ------------------------------------------------------------------ mutating admission policies
#
# The stored k/k sources of this environment predate the final MutatingAdmissionPolicy API
# (patchType with applyConfiguration / jsonPatch); these checks follow upstream's
# validateMutatingAdmissionPolicySpec, validateMutation and
# validateMutatingAdmissionPolicyBindingSpec as its validation_test.go expectations quote
# them, with the field checks shared with ValidatingAdmissionPolicy above.

_MUTATING_OPERATIONS = ["*", "CONNECT", "CREATE", "UPDATE"]
_PATCH_TYPES = ["ApplyConfiguration", "JSONPatch"]


def _validate_mutable_operations(mc: Any, path: Path) -> ErrorList:
    """Only create, update and connect requests can be mutated (DELETE is refused); Go
    reports at ``resourceRules.operations`` without an index."""
    errs = ErrorList()
    for rule in mc.resource_rules or ():
        for op in rule.rule_with_operations.operations or ():
            if op not in _MUTATING_OPERATIONS:
                errs.append(fld.not_supported(path, op, _MUTATING_OPERATIONS))
    return errs


def _validate_mutation(m: Any, path: Path) -> ErrorList:
    """Go ``validateMutation``: the patchType union (expressions checked for presence and syntax)."""
    errs = ErrorList()
    ap, jp = path.child("applyConfiguration"), path.child("jsonPatch")
    if not m.patch_type:
        errs.append(fld.required(path.child("patchType"), ""))
    elif m.patch_type == "JSONPatch":
        if m.json_patch is None:
            errs.append(fld.required(jp, "must be specified when patchType is JSONPatch"))
        elif not (m.json_patch.expression or "").strip():
            errs.append(fld.required(jp.child("expression"), ""))
        else:
            errs.extend(_cel_syntax(m.json_patch.expression, jp.child("expression")))
        if m.apply_configuration is not None:
            errs.append(fld.invalid(ap, "{applyConfiguration}", "must not be specified when patchType is JSONPatch"))
    elif m.patch_type == "ApplyConfiguration":
        if m.apply_configuration is None:
            errs.append(fld.required(ap, "must be specified when patchType is ApplyConfiguration"))
        elif not (m.apply_configuration.expression or "").strip():
            errs.append(fld.required(ap.child("expression"), ""))
        else:
            errs.extend(_cel_syntax(m.apply_configuration.expression, ap.child("expression")))
        if m.json_patch is not None:
            errs.append(fld.invalid(jp, "{jsonPatch}", "must not be specified when patchType is ApplyConfiguration"))
    else:
        errs.append(fld.not_supported(path.child("patchType"), m.patch_type, _PATCH_TYPES))
    return errs


def _validate_mutating_policy(p: Any, ignore_match_conditions: bool) -> ErrorList:
    """Go ``validateMutatingAdmissionPolicySpec``."""
    errs = _validate_policy_head(p)
    spec = p.spec
    sp = Path("spec")
    if spec.match_constraints is not None:
        mp = sp.child("matchConstraints")
        errs.extend(_validate_mutable_operations(spec.match_constraints, mp.child("resourceRules", "operations")))
    if not ignore_match_conditions:
        errs.extend(_validate_match_conditions(list(spec.match_conditions or []), sp.child("matchConditions")))
    for i, v in enumerate(spec.variables or ()):
        errs.extend(_validate_variable(v, sp.child("variables").index(i)))
    if not spec.mutations:
        errs.append(fld.required(sp.child("mutations"), "mutations must contain at least one item"))
    else:
        for i, m in enumerate(spec.mutations):
            errs.extend(_validate_mutation(m, sp.child("mutations").index(i)))
    rp = sp.child("reinvocationPolicy")
    if not spec.reinvocation_policy:
        errs.append(fld.required(rp, ""))
    elif spec.reinvocation_policy not in _REINVOCATION:
        errs.append(fld.not_supported(rp, spec.reinvocation_policy, _REINVOCATION))
    return errs


def validate_mutating_admission_policy(p: Any) -> ErrorList:
    """Go: ``ValidateMutatingAdmissionPolicy``."""
    return _validate_mutating_policy(p, False)


def validate_mutating_admission_policy_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateMutatingAdmissionPolicyUpdate`` (unchanged matchConditions are not
    checked again)."""
    nm, om_ = list(new.spec.match_conditions or []), list(old.spec.match_conditions or [])
    return _validate_mutating_policy(new, len(nm) == len(om_) and all(a == b for a, b in zip(nm, om_)))


def validate_mutating_admission_policy_binding(b: Any) -> ErrorList:
    """Go: ``ValidateMutatingAdmissionPolicyBinding``."""
    errs = om.validate_object_meta(b.metadata, False, names.name_is_dns_subdomain, Path("metadata"))
    spec = b.spec
    sp = Path("spec")
    if not spec.policy_name:
        errs.append(fld.required(sp.child("policyName"), ""))
    else:
        errs.extend(fld.invalid(sp.child("policyName"), spec.policy_name, m)
                    for m in names.name_is_dns_subdomain(spec.policy_name, False))
    errs.extend(_validate_param_ref(spec.param_ref, sp.child("paramRef")))
    if spec.match_resources is not None:
        mp = sp.child("matchResources")
        errs.extend(_validate_match_resources(spec.match_resources, mp))
        errs.extend(_validate_mutable_operations(spec.match_resources, mp.child("resourceRules", "operations")))
    return errs


def validate_mutating_admission_policy_binding_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateMutatingAdmissionPolicyBindingUpdate``."""
    return validate_mutating_admission_policy_binding(new)
