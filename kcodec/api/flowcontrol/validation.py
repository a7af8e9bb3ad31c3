"""Validation of the flowcontrol group's internal objects (Go: k8s.io/kubernetes
pkg/apis/flowcontrol/validation/validation.go): FlowSchema and PriorityLevelConfiguration.

The mandatory objects (``exempt`` and ``catch-all`` of both kinds, k8s.io/apiserver
pkg/apis/flowcontrol/bootstrap/default.go as k/k internalbootstrap defaults them) must keep
their fixed specs; the ``exempt`` priority level may change only its ``spec.exempt``.
Priority levels are validated as the 1.30+ strategy does on create and update
(``AllowZeroLimitedNominalConcurrencyShares``) and name ``nominalConcurrencyShares`` as
the v1 and v1beta3 APIs do.
"""
from __future__ import annotations

import math
from typing import Any

from kcodec.validation import field as fld
from kcodec.validation import names
from kcodec.validation import objectmeta as om
from kcodec.validation.field import ErrorList, Path

__all__ = [
    "FLOW_SCHEMA_MAX_MATCHING_PRECEDENCE",
    "MAX_HASH_BITS",
    "PRIORITY_LEVEL_QUEUING_MAX_QUEUES",
    "mandatory_flow_schemas",
    "mandatory_priority_level_configurations",
    "required_entropy_bits",
    "validate_flow_schema",
    "validate_flow_schema_spec",
    "validate_flow_schema_status_update",
    "validate_flow_schema_update",
    "validate_non_resource_url_path",
    "validate_priority_level_configuration",
    "validate_priority_level_configuration_status_update",
    "validate_priority_level_configuration_update",
]

#: pkg/apis/flowcontrol types.go.
FLOW_SCHEMA_MAX_MATCHING_PRECEDENCE = 10000
#: validation.go ``priorityLevelConfigurationQueuingMaxQueues``.
PRIORITY_LEVEL_QUEUING_MAX_QUEUES = 10 * 1000 * 1000
#: apiserver pkg/util/shufflesharding ``MaxHashBits``.
MAX_HASH_BITS = 60

_DISTINGUISHER_METHODS = ["ByNamespace", "ByUser"]
_VERBS = frozenset(("get", "list", "create", "update", "delete", "deletecollection", "patch", "watch", "proxy"))
_VERBS_SORTED = sorted(_VERBS)
_SUBJECT_KINDS = ["Group", "ServiceAccount", "User"]
_ENABLEMENTS = ["Exempt", "Limited"]
_LIMIT_RESPONSE_TYPES = ["Queue", "Reject"]
_NS_ERR_INTRO = "each member of this list must be '*' or a DNS-1123 label; "


def required_entropy_bits(deck_size: int, hand_size: int) -> int:
    """apiserver shufflesharding ``RequiredEntropyBits``."""
    return int(math.ceil(math.log2(deck_size) * hand_size))


# ------------------------------------------------------------------ the mandatory objects

def _group_subject(name: str) -> Any:
    from kcodec.api.flowcontrol import internal

    return internal.Subject(kind="Group", group=internal.GroupSubject(name=name))


def _all_rules(*groups: str) -> Any:
    from kcodec.api.flowcontrol import internal

    return internal.PolicyRulesWithSubjects(
        subjects=[_group_subject(g) for g in groups],
        resource_rules=[internal.ResourcePolicyRule(verbs=["*"], api_groups=["*"], resources=["*"],
                                                    namespaces=["*"], cluster_scope=True)],
        non_resource_rules=[internal.NonResourcePolicyRule(verbs=["*"], non_resource_urls=["*"])])


def mandatory_flow_schemas() -> dict[str, Any]:
    """k/k internalbootstrap ``MandatoryFlowSchemas``: name -> internal FlowSchemaSpec."""
    from kcodec.api.flowcontrol import internal

    return {
        "exempt": internal.FlowSchemaSpec(
            priority_level_configuration=internal.PriorityLevelConfigurationReference(name="exempt"),
            matching_precedence=1, rules=[_all_rules("system:masters")]),
        "catch-all": internal.FlowSchemaSpec(
            priority_level_configuration=internal.PriorityLevelConfigurationReference(name="catch-all"),
            matching_precedence=10000, distinguisher_method=internal.FlowDistinguisherMethod(type="ByUser"),
            rules=[_all_rules("system:unauthenticated", "system:authenticated")]),
    }


def mandatory_priority_level_configurations() -> dict[str, Any]:
    """k/k internalbootstrap ``MandatoryPriorityLevelConfigurations`` (v1 defaults applied)."""
    from kcodec.api.flowcontrol import internal

    return {
        "exempt": internal.PriorityLevelConfigurationSpec(
            type="Exempt", exempt=internal.ExemptPriorityLevelConfiguration(nominal_concurrency_shares=0,
                                                                            lendable_percent=0)),
        "catch-all": internal.PriorityLevelConfigurationSpec(
            type="Limited", limited=internal.LimitedPriorityLevelConfiguration(
                nominal_concurrency_shares=5, lendable_percent=0,
                limit_response=internal.LimitResponse(type="Reject"))),
    }


def _normal(tree: Any) -> Any:
    """A JSON tree with empty lists and maps dropped: apimachinery's Semantic.DeepEqual
    holds nil and empty slices and maps equal."""
    if isinstance(tree, dict):
        out = {}
        for k, v in tree.items():
            v = _normal(v)
            if v is None or v == [] or v == {}:
                continue
            out[k] = v
        return out
    if isinstance(tree, list):
        return [_normal(v) for v in tree]
    return tree


def _semantic_equal(a: Any, b: Any) -> bool:
    from kcodec.model import to_tree

    return bool(_normal(to_tree(a)) == _normal(to_tree(b)))


# ------------------------------------------------------------------ FlowSchema

def _has_wildcard(values: list[str] | None) -> bool:
    return "*" in (values or ())


def validate_non_resource_url_path(path: str, fp: Path) -> fld.Error | None:
    """Go ``ValidateNonResourceURLPath``: a slash first, no white-space or double slash,
    ``*`` only as the ``/*`` suffix."""
    if not path:
        return fld.invalid(fp, path, "must not be empty")
    if path == "/":
        return None
    if not path.startswith("/"):
        return fld.invalid(fp, path, "must start with slash")
    if " " in path:
        return fld.invalid(fp, path, "must not contain white-space")
    if "//" in path:
        return fld.invalid(fp, path, "must not contain double slash")
    stars = path.count("*")
    if stars > 1 or (stars == 1 and path[-2:] != "/*"):
        return fld.invalid(fp, path, "wildcard can only do suffix matching")
    return None


def _validate_verbs(verbs: list[str] | None, fp: Path) -> ErrorList:
    errs = ErrorList()
    verbs = list(verbs or ())
    if not verbs:
        errs.append(fld.required(fp, "verbs must contain at least one value"))
    elif "*" in verbs:
        if len(verbs) > 1:
            errs.append(fld.invalid(fp, verbs, "if '*' is present, must not specify other verbs"))
    elif not set(verbs) <= _VERBS:
        errs.append(fld.not_supported(fp, verbs, _VERBS_SORTED))
    return errs


def _validate_resource_rule(rule: Any, fp: Path) -> ErrorList:
    """Go ``ValidateFlowSchemaResourcePolicyRule``."""
    errs = _validate_verbs(rule.verbs, fp.child("verbs"))
    groups = list(rule.api_groups or ())
    if not groups:
        errs.append(fld.required(fp.child("apiGroups"), "resource rules must supply at least one api group"))
    elif len(groups) > 1 and "*" in groups:
        errs.append(fld.invalid(fp.child("apiGroups"), groups, "if '*' is present, must not specify other api groups"))
    resources = list(rule.resources or ())
    if not resources:
        errs.append(fld.required(fp.child("resources"), "resource rules must supply at least one resource"))
    elif len(resources) > 1 and "*" in resources:
        errs.append(fld.invalid(fp.child("resources"), resources, "if '*' is present, must not specify other resources"))
    namespaces = list(rule.namespaces or ())
    if not namespaces and not rule.cluster_scope:
        errs.append(fld.required(fp.child("namespaces"),
                                 "resource rules that are not cluster scoped must supply at least one namespace"))
    elif "*" in namespaces:
        if len(namespaces) > 1:
            errs.append(fld.invalid(fp.child("namespaces"), namespaces,
                                    "if '*' is present, must not specify other namespaces"))
    else:
        for i, ns in enumerate(namespaces):
            errs.extend(fld.invalid(fp.child("namespaces").index(i), ns, _NS_ERR_INTRO + m)
                        for m in names.name_is_dns_label(ns, False))
    return errs


def _validate_non_resource_rule(rule: Any, fp: Path) -> ErrorList:
    """Go ``ValidateFlowSchemaNonResourcePolicyRule``."""
    errs = _validate_verbs(rule.verbs, fp.child("verbs"))
    urls = list(rule.non_resource_urls or ())
    if not urls:
        errs.append(fld.required(fp.child("nonResourceURLs"), "nonResourceURLs must contain at least one value"))
    elif "*" in urls:
        if len(urls) > 1:
            errs.append(fld.invalid(fp.child("nonResourceURLs"), urls,
                                    "if '*' is present, must not specify other non-resource URLs"))
    else:
        for i, u in enumerate(urls):
            e = validate_non_resource_url_path(u, fp.child("nonResourceURLs").index(i))
            if e is not None:
                errs.append(e)
    return errs


_NOT_USER = "user is forbidden when subject kind is not 'User'"
_NOT_GROUP = "group is forbidden when subject kind is not 'Group'"
_NOT_SA = "serviceAccount is forbidden when subject kind is not 'ServiceAccount'"


def _validate_subject(s: Any, fp: Path) -> ErrorList:
    """Go ``ValidateFlowSchemaSubject``."""
    errs = ErrorList()
    if s.kind == "ServiceAccount":
        sp = fp.child("serviceAccount")
        sa = s.service_account
        if sa is None:
            errs.append(fld.required(sp, "serviceAccount is required when subject kind is 'ServiceAccount'"))
        else:
            if not sa.name:
                errs.append(fld.required(sp.child("name"), ""))
            elif sa.name != "*":
                errs.extend(fld.invalid(sp.child("name"), sa.name, m) for m in names.name_is_dns_subdomain(sa.name, False))
            if sa.namespace:
                errs.extend(fld.invalid(sp.child("namespace"), sa.namespace, m)
                            for m in names.name_is_dns_label(sa.namespace, False))
            else:
                errs.append(fld.required(sp.child("namespace"), "must specify namespace for service account"))
        if s.user is not None:
            errs.append(fld.forbidden(fp.child("user"), _NOT_USER))
        if s.group is not None:
            errs.append(fld.forbidden(fp.child("group"), _NOT_GROUP))
    elif s.kind == "User":
        if s.user is None:
            errs.append(fld.required(fp.child("user"), "user is required when subject kind is 'User'"))
        elif not s.user.name:
            errs.append(fld.required(fp.child("user", "name"), ""))
        if s.service_account is not None:
            errs.append(fld.forbidden(fp.child("serviceAccount"), _NOT_SA))
        if s.group is not None:
            errs.append(fld.forbidden(fp.child("group"), _NOT_GROUP))
    elif s.kind == "Group":
        if s.group is None:
            errs.append(fld.required(fp.child("group"), "group is required when subject kind is 'Group'"))
        elif not s.group.name:
            errs.append(fld.required(fp.child("group", "name"), ""))
        if s.service_account is not None:
            errs.append(fld.forbidden(fp.child("serviceAccount"), _NOT_SA))
        if s.user is not None:
            errs.append(fld.forbidden(fp.child("user"), _NOT_USER))
    else:
        errs.append(fld.not_supported(fp.child("kind"), s.kind, _SUBJECT_KINDS))
    return errs


def _validate_rule(rule: Any, fp: Path) -> ErrorList:
    """Go ``ValidateFlowSchemaPolicyRulesWithSubjects``."""
    errs = ErrorList()
    subjects = list(rule.subjects or ())
    if subjects:
        for i, s in enumerate(subjects):
            errs.extend(_validate_subject(s, fp.child("subjects").index(i)))
    else:
        errs.append(fld.required(fp.child("subjects"), "subjects must contain at least one value"))
    if not rule.resource_rules and not rule.non_resource_rules:
        errs.append(fld.required(fp, "at least one of resourceRules and nonResourceRules has to be non-empty"))
    for i, r in enumerate(rule.resource_rules or ()):
        errs.extend(_validate_resource_rule(r, fp.child("resourceRules").index(i)))
    for i, r in enumerate(rule.non_resource_rules or ()):
        errs.extend(_validate_non_resource_rule(r, fp.child("nonResourceRules").index(i)))
    return errs


def validate_flow_schema_spec(fs_name: str, spec: Any, fp: Path) -> ErrorList:
    """Go: ``ValidateFlowSchemaSpec``."""
    errs = ErrorList()
    mp = fp.child("matchingPrecedence")
    prec = int(spec.matching_precedence or 0)
    if prec <= 0:
        errs.append(fld.invalid(mp, prec, "must be a positive value"))
    if prec > FLOW_SCHEMA_MAX_MATCHING_PRECEDENCE:
        errs.append(fld.invalid(mp, prec, f"must not be greater than {FLOW_SCHEMA_MAX_MATCHING_PRECEDENCE}"))
    if prec == 1 and fs_name != "exempt":
        errs.append(fld.invalid(mp, prec, "only the schema named 'exempt' may have matchingPrecedence 1"))
    dm = spec.distinguisher_method
    if dm is not None and dm.type not in _DISTINGUISHER_METHODS:
        errs.append(fld.not_supported(fp.child("distinguisherMethod", "type"), dm, _DISTINGUISHER_METHODS))
    plc = spec.priority_level_configuration.name if spec.priority_level_configuration is not None else ""
    pp = fp.child("priorityLevelConfiguration", "name")
    if plc:
        errs.extend(fld.invalid(pp, plc, m) for m in names.name_is_dns_subdomain(plc, False))
    else:
        errs.append(fld.required(pp, "must reference a priority level"))
    for i, rule in enumerate(spec.rules or ()):
        errs.extend(_validate_rule(rule, fp.child("rules").index(i)))
    return errs


def _validate_conditions(conditions: list[Any] | None, fp: Path) -> ErrorList:
    """Go ``ValidateFlowSchemaStatus`` / ``ValidatePriorityLevelConfigurationStatus``."""
    errs = ErrorList()
    seen: set[str] = set()
    for i, c in enumerate(conditions or ()):
        cp = fp.child("conditions").index(i)
        if c.type in seen:
            errs.append(fld.duplicate(cp.child("type"), c.type))
        seen.add(c.type)
        if not c.type:
            errs.append(fld.required(cp.child("type"), "must not be empty"))
    return errs


def validate_flow_schema(fs: Any) -> ErrorList:
    """Go: ``ValidateFlowSchema``."""
    errs = om.validate_object_meta(fs.metadata, False, names.name_is_dns_subdomain, Path("metadata"))
    sp = Path("spec")
    name = fs.metadata.name or ""
    errs.extend(validate_flow_schema_spec(name, fs.spec, sp))
    mand = mandatory_flow_schemas().get(name)
    if mand is not None and not _semantic_equal(fs.spec, mand):
        errs.append(fld.invalid(sp, fs.spec, f"spec of '{name}' must equal the fixed value"))
    errs.extend(_validate_conditions(fs.status.conditions if fs.status is not None else None, Path("status")))
    return errs


def validate_flow_schema_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateFlowSchemaUpdate`` (the new object validated as on create)."""
    return validate_flow_schema(new)


def validate_flow_schema_status_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateFlowSchemaStatusUpdate``."""
    return _validate_conditions(new.status.conditions if new.status is not None else None, Path("status"))


# ------------------------------------------------------------------ PriorityLevelConfiguration

def _validate_queuing(q: Any, fp: Path) -> ErrorList:
    """Go ``ValidatePriorityLevelQueuingConfiguration``."""
    errs = ErrorList()
    if q.queue_length_limit <= 0:
        errs.append(fld.invalid(fp.child("queueLengthLimit"), int(q.queue_length_limit), "must be positive"))
    queues, hand = int(q.queues), int(q.hand_size)
    if queues <= 0:
        errs.append(fld.invalid(fp.child("queues"), queues, "must be positive"))
    elif queues > PRIORITY_LEVEL_QUEUING_MAX_QUEUES:
        errs.append(fld.invalid(fp.child("queues"), queues, f"must not be greater than {PRIORITY_LEVEL_QUEUING_MAX_QUEUES}"))
    if hand <= 0:
        errs.append(fld.invalid(fp.child("handSize"), hand, "must be positive"))
    elif hand > queues:
        errs.append(fld.invalid(fp.child("handSize"), hand, f"should not be greater than queues ({queues})"))
    elif required_entropy_bits(queues, hand) > MAX_HASH_BITS:
        errs.append(fld.invalid(fp.child("handSize"), hand, f"required entropy bits of deckSize {queues} and handSize "
                                f"{hand} should not be greater than {MAX_HASH_BITS}"))
    return errs


def _validate_limit_response(lr: Any, fp: Path) -> ErrorList:
    """Go ``validateLimitResponse``."""
    errs = ErrorList()
    if lr.type == "Reject":
        if lr.queuing is not None:
            errs.append(fld.forbidden(fp.child("queuing"), "must be nil if limited.limitResponse.type is not Limited"))
    elif lr.type == "Queue":
        if lr.queuing is None:
            errs.append(fld.required(fp.child("queuing"), "must not be empty if limited.limitResponse.type is Limited"))
        else:
            errs.extend(_validate_queuing(lr.queuing, fp.child("queuing")))
    else:
        errs.append(fld.not_supported(fp.child("type"), lr.type, _LIMIT_RESPONSE_TYPES))
    return errs


def _validate_percent(value: int | None, fp: Path) -> ErrorList:
    if value is not None and not 0 <= value <= 100:
        return ErrorList([fld.invalid(fp, int(value), "must be between 0 and 100, inclusive")])
    return ErrorList()


def _validate_limited(lim: Any, fp: Path) -> ErrorList:
    """Go ``validateLimitedPriorityLevelConfiguration`` (zero shares allowed)."""
    errs = ErrorList()
    if lim.nominal_concurrency_shares < 0:
        errs.append(fld.invalid(fp.child("nominalConcurrencyShares"), int(lim.nominal_concurrency_shares),
                                "must be a non-negative integer"))
    from kcodec.api.flowcontrol import internal

    errs.extend(_validate_limit_response(lim.limit_response or internal.LimitResponse(), fp.child("limitResponse")))
    errs.extend(_validate_percent(lim.lendable_percent, fp.child("lendablePercent")))
    if lim.borrowing_limit_percent is not None and lim.borrowing_limit_percent < 0:
        errs.append(fld.invalid(fp.child("borrowingLimitPercent"), int(lim.borrowing_limit_percent),
                                "if specified, must be a non-negative integer"))
    return errs


def _validate_plc_spec(spec: Any, name: str, fp: Path) -> ErrorList:
    """Go ``validatePriorityLevelConfigurationSpec``."""
    errs = ErrorList()
    if (name == "exempt") != (spec.type == "Exempt"):
        errs.append(fld.invalid(fp.child("type"), spec.type, "type must be 'Exempt' if and only if name is 'exempt'"))
    if spec.type == "Exempt":
        if spec.limited is not None:
            errs.append(fld.forbidden(fp.child("limited"), "must be nil if the type is not Limited"))
        ex = spec.exempt
        if ex is not None:
            ep = fp.child("exempt")
            if ex.nominal_concurrency_shares is not None and ex.nominal_concurrency_shares < 0:
                errs.append(fld.invalid(ep.child("nominalConcurrencyShares"), int(ex.nominal_concurrency_shares),
                                        "must be a non-negative integer"))
            errs.extend(_validate_percent(ex.lendable_percent, ep.child("lendablePercent")))
    elif spec.type == "Limited":
        if spec.exempt is not None:
            errs.append(fld.forbidden(fp.child("exempt"), "must be nil if the type is Limited"))
        if spec.limited is None:
            errs.append(fld.required(fp.child("limited"), "must not be empty when type is Limited"))
        else:
            errs.extend(_validate_limited(spec.limited, fp.child("limited")))
    else:
        errs.append(fld.not_supported(fp.child("type"), spec.type, _ENABLEMENTS))
    return errs


def _validate_if_mandatory_plc(pl: Any, fp: Path) -> ErrorList:
    """Go ``ValidateIfMandatoryPriorityLevelConfigurationObject``."""
    name = pl.metadata.name or ""
    mand = mandatory_priority_level_configurations().get(name)
    if mand is None:
        return ErrorList()
    if name == "exempt":
        have = pl.spec.deep_copy()
        have.exempt = mand.exempt
        if not _semantic_equal(mand, have):
            return ErrorList([fld.invalid(fp, pl.spec, f"spec of '{name}' except the 'spec.exempt' field must equal "
                                                       "the fixed value")])
        return ErrorList()
    if not _semantic_equal(pl.spec, mand):
        return ErrorList([fld.invalid(fp, pl.spec, f"spec of '{name}' must equal the fixed value")])
    return ErrorList()


def validate_priority_level_configuration(pl: Any) -> ErrorList:
    """Go: ``ValidatePriorityLevelConfiguration``."""
    errs = om.validate_object_meta(pl.metadata, False, names.name_is_dns_subdomain, Path("metadata"))
    sp = Path("spec")
    errs.extend(_validate_plc_spec(pl.spec, pl.metadata.name or "", sp))
    errs.extend(_validate_if_mandatory_plc(pl, sp))
    errs.extend(_validate_conditions(pl.status.conditions if pl.status is not None else None, Path("status")))
    return errs


def validate_priority_level_configuration_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidatePriorityLevelConfigurationUpdate``."""
    return validate_priority_level_configuration(new)


def validate_priority_level_configuration_status_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidatePriorityLevelConfigurationStatusUpdate``."""
    return _validate_conditions(new.status.conditions if new.status is not None else None, Path("status"))
