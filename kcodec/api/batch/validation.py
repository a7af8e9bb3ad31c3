"""Validation of the batch group's internal objects (Go: k8s.io/kubernetes
pkg/apis/batch/validation/validation.go): Job and CronJob, their updates and Job status
updates, with Go's field paths and texts. Cron schedules are parsed with the rules and error
texts of github.com/robfig/cron/v3's ``ParseStandard`` (what Go calls); time zones are checked
against the system's IANA database, as ``time.LoadLocation`` does.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from kcodec.api.core import validation as core
from kcodec.api.core.validation import PodValidationOptions
from kcodec.gofmt import quote
from kcodec.labels import SelectorParseError, label_selector_as_selector
from kcodec.validation import field as fld
from kcodec.validation import names
from kcodec.validation import objectmeta as om
from kcodec.validation.field import OMIT_VALUE, ErrorList, Path

__all__ = [
    "JobValidationOptions",
    "validate_job",
    "validate_job_update",
    "validate_job_status_update",
    "validate_cron_job",
    "validate_cron_job_update",
    "parse_standard_cron",
    "CronParseError",
]

_nonneg = names.validate_nonnegative_field
_MAX_PARALLELISM_INDEXED = 100000
_MAX_FAILED_INDEXES = 100_000
_COMPLETIONS_SOFT_LIMIT = 100_000
_PARALLELISM_HIGH = 10_000
_MAX_FAILED_HIGH = 10_000
_MAX_PFP_RULES = 20
_MAX_EXIT_CODES = 255
_MAX_POD_CONDITIONS = 20
_MAX_MANAGED_BY = 63
_MAX_SUCCEEDED_INDEXES = 64 * 1024
_MAX_SUCCESS_RULES = 20
_PFP_ACTIONS = ["Count", "FailIndex", "FailJob", "Ignore"]


@dataclass
class JobValidationOptions:
    """Go: ``JobValidationOptions`` with kube-apiserver 1.36's values for a new Job."""

    pod: PodValidationOptions | None = None
    allow_mutable_scheduling_directives: bool = False
    allow_elastic_indexed_jobs: bool = True
    require_prefixed_labels: bool = True


# --- cron (robfig/cron/v3 ParseStandard) ------------------------------------------------------

class CronParseError(ValueError):
    """A schedule robfig/cron rejects; ``str()`` is its error text."""


_MONTHS = {n: i + 1 for i, n in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct",
                                            "nov", "dec"))}
_DOWS = {n: i for i, n in enumerate(("sun", "mon", "tue", "wed", "thu", "fri", "sat"))}
_FIELDS = [(0, 59, None), (0, 23, None), (1, 31, None), (1, 12, _MONTHS), (0, 6, _DOWS)]
_DESCRIPTORS = {"@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"}


def _atoi(s: str) -> int:
    # strconv.Atoi: optional sign, decimal digits, int64 range.
    if not re.fullmatch(r"[+-]?[0-9]+", s):
        raise CronParseError(f'strconv.Atoi: parsing {quote(s)}: invalid syntax')
    v = int(s)
    if not -(1 << 63) <= v < (1 << 63):
        raise CronParseError(f'strconv.Atoi: parsing {quote(s)}: value out of range')
    return v


def _must_parse_int(expr: str) -> int:
    try:
        num = _atoi(expr)
    except CronParseError as e:
        raise CronParseError(f"failed to parse int from {expr}: {e}") from None
    if num < 0:
        raise CronParseError(f"negative number ({num}) not allowed: {expr}")
    return num


def _parse_int_or_name(expr: str, names_: dict[str, int] | None) -> int:
    if names_ is not None and expr.lower() in names_:
        return names_[expr.lower()]
    return _must_parse_int(expr)


def _get_range(expr: str, lo: int, hi: int, names_: dict[str, int] | None) -> None:
    range_and_step = expr.split("/")
    low_high = range_and_step[0].split("-")
    single = len(low_high) == 1
    if low_high[0] in ("*", "?"):
        start, end = lo, hi
    else:
        start = _parse_int_or_name(low_high[0], names_)
        if len(low_high) == 1:
            end = start
        elif len(low_high) == 2:
            end = _parse_int_or_name(low_high[1], names_)
        else:
            raise CronParseError(f"too many hyphens: {expr}")
    if len(range_and_step) == 1:
        step = 1
    elif len(range_and_step) == 2:
        step = _must_parse_int(range_and_step[1])
        if single:
            end = hi
    else:
        raise CronParseError(f"too many slashes: {expr}")
    if start < lo:
        raise CronParseError(f"beginning of range ({start}) below minimum ({lo}): {expr}")
    if end > hi:
        raise CronParseError(f"end of range ({end}) above maximum ({hi}): {expr}")
    if start > end:
        raise CronParseError(f"beginning of range ({start}) beyond end of range ({end}): {expr}")
    if step == 0:
        raise CronParseError(f"step of range should be a positive number: {expr}")


def _parse_go_duration(s: str) -> None:
    # time.ParseDuration's accepted grammar (the value itself is not needed).
    if s in ("0", "+0", "-0"):
        return
    if not re.fullmatch(r"[+-]?([0-9]*(\.[0-9]*)?(ns|us|µs|μs|ms|s|m|h))+", s) or not re.search(r"[0-9]", s):
        raise CronParseError(f"time: invalid duration {quote(s)}")


def parse_standard_cron(spec: str) -> None:
    """robfig/cron/v3 ``ParseStandard``: raises :class:`CronParseError` with its text."""
    if not spec:
        raise CronParseError("empty spec string")
    if spec.startswith(("TZ=", "CRON_TZ=")):
        i = spec.find(" ")
        eq = spec.find("=")
        loc = spec[eq + 1:i] if i >= 0 else spec[eq + 1:]
        err = _load_location_error(loc)
        if err is not None:
            raise CronParseError(f"provided bad location {loc}: {err}")
        spec = spec[i:].strip() if i >= 0 else ""
    if spec.startswith("@"):
        if spec in _DESCRIPTORS:
            return
        if spec.startswith("@every "):
            d = spec[len("@every "):]
            try:
                _parse_go_duration(d)
            except CronParseError as e:
                raise CronParseError(f"failed to parse duration {spec}: {e}") from None
            return
        raise CronParseError(f"unrecognized descriptor: {spec}")
    fields = spec.split()
    if len(fields) != 5:
        raise CronParseError(f"expected exactly 5 fields, found {len(fields)}: [{' '.join(fields)}]")
    for value, (lo, hi, names_) in zip(fields, _FIELDS):
        for expr in value.split(","):
            _get_range(expr, lo, hi, names_)


_TZ_PART = re.compile(r"[A-Za-z.\-_0-9+]{1,14}")


def _load_location_error(name: str) -> str | None:
    """time.LoadLocation's error text for ``name``, or None."""
    import zoneinfo

    if name in ("", "UTC", "Local"):
        return None
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        return f"unknown time zone {name}"
    return None


def _validate_time_zone(tz: str | None, path: Path) -> ErrorList:
    if tz is None:
        return ErrorList()
    if not tz:
        return ErrorList([fld.invalid(path, tz, "timeZone must be nil or non-empty string")])
    for part in tz.split("/"):
        if part in (".", "..") or part.startswith("-") or not _TZ_PART.fullmatch(part):
            return ErrorList([fld.invalid(path, tz, f"unknown time zone {tz}")])
    errs = ErrorList()
    if tz.lower() == "local":
        errs.append(fld.invalid(path, tz, "timeZone must be an explicit time zone as defined in "
                                          "https://www.iana.org/time-zones"))
    err = _load_location_error(tz)
    if err is not None:
        errs.append(fld.invalid(path, tz, err))
    return errs


# --- Job -------------------------------------------------------------------------------------

def _selector(ps: Any) -> Any:
    try:
        return label_selector_as_selector(ps)
    except SelectorParseError:
        return None


def _has_label(meta: Any, path: Path, key: str, expected: str) -> ErrorList:
    labels = meta.labels or {}
    if key not in labels:
        return ErrorList([fld.required(path.child("labels").key(key), f"must be '{expected}'")])
    if labels[key] != expected:
        return ErrorList([fld.invalid(path.child("labels").key(key), meta.labels, f"must be '{expected}'")])
    return ErrorList()


def _validate_generated_selector(job: Any, prefixed: bool) -> ErrorList:
    errs = ErrorList()
    spec = job.spec
    if spec.manual_selector or spec.selector is None:
        return errs
    uid, name = job.metadata.uid, job.metadata.name
    if not uid:
        errs.append(fld.required(Path("metadata").child("uid"), ""))
    tp = Path("spec").child("template").child("metadata")
    tmeta = spec.template.metadata
    errs.extend(_has_label(tmeta, tp, "controller-uid", uid))
    errs.extend(_has_label(tmeta, tp, "job-name", name))
    expected = {}
    if prefixed:
        errs.extend(_has_label(tmeta, tp, "batch.kubernetes.io/controller-uid", uid))
        errs.extend(_has_label(tmeta, tp, "batch.kubernetes.io/job-name", name))
        expected["batch.kubernetes.io/controller-uid"] = uid
        expected["batch.kubernetes.io/job-name"] = name
    expected["controller-uid"] = uid
    expected["job-name"] = name
    sel = _selector(spec.selector)
    if sel is not None and not sel.matches(expected):
        errs.append(fld.invalid(Path("spec").child("selector"), spec.selector, "`selector` not auto-generated"))
    return errs


def _parse_index_interval(s: str, completions: int) -> tuple[int, int]:
    limits = s.split("-")
    if len(limits) > 2:
        raise ValueError(f"the fragment {quote(s)} violates the requirement that an index interval can have at most "
                         "two parts separated by '-'")

    def num(t: str) -> int:
        try:
            return _atoi(t)
        except CronParseError:
            raise ValueError(f"cannot convert string to integer for index: {quote(t)}") from None

    x = num(limits[0])
    if x >= completions:
        raise ValueError(f"too large index: {quote(limits[0])}")
    if len(limits) > 1:
        y = num(limits[1])
        if y >= completions:
            raise ValueError(f"too large index: {quote(limits[1])}")
        if x >= y:
            raise ValueError(f"non-increasing order, previous: {x}, current: {y}")
        return x, y
    return x, x


def _validate_indexes_format(s: str, completions: int) -> int:
    if not s:
        return 0
    last: int | None = None
    total = 0
    for interval in s.split(","):
        x, y = _parse_index_interval(interval, completions)
        if last is not None and last >= x:
            raise ValueError(f"non-increasing order, previous: {last}, current: {x}")
        total += y - x + 1
        last = y
    return total


def _validate_pod_failure_policy(spec: Any, path: Path) -> ErrorList:
    errs = ErrorList()
    rules = list(spec.pod_failure_policy.rules or [])
    rp = path.child("rules")
    if len(rules) > _MAX_PFP_RULES:
        errs.append(fld.too_many(rp, len(rules), _MAX_PFP_RULES))
    containers = {c.name for c in (spec.template.spec.containers or []) + (spec.template.spec.init_containers or [])}
    for i, rule in enumerate(rules):
        p = rp.index(i)
        ap = p.child("action")
        if rule.action == "":
            errs.append(fld.required(ap, "valid values: [" + " ".join(quote(a) for a in _PFP_ACTIONS) + "]"))
        elif rule.action == "FailIndex":
            if spec.backoff_limit_per_index is None:
                errs.append(fld.invalid(ap, rule.action, "requires the backoffLimitPerIndex to be set"))
        elif rule.action not in _PFP_ACTIONS:
            errs.append(fld.not_supported(ap, rule.action, _PFP_ACTIONS))
        oec = rule.on_exit_codes
        if oec is not None:
            ep = p.child("onExitCodes")
            op = ep.child("operator")
            if oec.operator == "":
                errs.append(fld.required(op, 'valid values: ["In" "NotIn"]'))
            elif oec.operator not in ("In", "NotIn"):
                errs.append(fld.not_supported(op, oec.operator, ["In", "NotIn"]))
            if oec.container_name is not None and oec.container_name not in containers:
                errs.append(fld.invalid(ep.child("containerName"), oec.container_name,
                                        "must be one of the container or initContainer names in the pod template"))
            vp = ep.child("values")
            values = list(oec.values or [])
            if not values:
                errs.append(fld.invalid(vp, values, "at least one value is required"))
            elif len(values) > _MAX_EXIT_CODES:
                errs.append(fld.too_many(vp, len(values), _MAX_EXIT_CODES))
            seen: set[int] = set()
            ordered = True
            for j, v in enumerate(values):
                if oec.operator == "In" and v == 0:
                    errs.append(fld.invalid(vp.index(j), v, "must not be 0 for the In operator"))
                if v in seen:
                    errs.append(fld.duplicate(vp.index(j), v))
                seen.add(v)
                if j > 0 and values[j - 1] > v:
                    ordered = False
            if not ordered:
                errs.append(fld.invalid(vp, values, "must be ordered"))
        conds = list(rule.on_pod_conditions or [])
        if conds:
            cp = p.child("onPodConditions")
            if len(conds) > _MAX_POD_CONDITIONS:
                errs.append(fld.too_many(cp, len(conds), _MAX_POD_CONDITIONS))
            for j, c in enumerate(conds):
                errs.extend(fld.invalid(cp.index(j).child("type"), c.type, m) for m in names.is_qualified_name(c.type))
                sp = cp.index(j).child("status")
                if c.status == "":
                    errs.append(fld.required(sp, 'valid values: ["False" "True" "Unknown"]'))
                elif c.status not in ("False", "True", "Unknown"):
                    errs.append(fld.not_supported(sp, c.status, ["False", "True", "Unknown"]))
        if oec is not None and conds:
            errs.append(fld.invalid(p, OMIT_VALUE, "specifying both OnExitCodes and OnPodConditions is not supported"))
        if oec is None and not conds:
            errs.append(fld.invalid(p, OMIT_VALUE, "specifying one of OnExitCodes and OnPodConditions is required"))
    return errs


def _validate_success_policy(spec: Any, path: Path) -> ErrorList:
    errs = ErrorList()
    rules = list(spec.success_policy.rules or [])
    rp = path.child("rules")
    if not rules:
        errs.append(fld.required(rp, "at least one rules must be specified when the successPolicy is specified"))
    if len(rules) > _MAX_SUCCESS_RULES:
        errs.append(fld.too_many(rp, len(rules), _MAX_SUCCESS_RULES))
    completions = spec.completions or 0
    for i, rule in enumerate(rules):
        p = rp.index(i)
        if rule.succeeded_count is None and rule.succeeded_indexes is None:
            errs.append(fld.required(p, "at least one of succeededCount or succeededIndexes must be specified"))
        total = 0
        if rule.succeeded_indexes is not None:
            ip = p.child("succeededIndexes")
            if names.go_len(rule.succeeded_indexes) > _MAX_SUCCEEDED_INDEXES:
                errs.append(fld.too_long(ip, rule.succeeded_indexes, _MAX_SUCCEEDED_INDEXES))
            try:
                total = _validate_indexes_format(rule.succeeded_indexes, completions)
            except ValueError as e:
                errs.append(fld.invalid(ip, rule.succeeded_indexes, f"error parsing succeededIndexes: {e}"))
        if rule.succeeded_count is not None:
            cp = p.child("succeededCount")
            errs.extend(_nonneg(rule.succeeded_count, cp))
            if rule.succeeded_count > completions:
                errs.append(fld.invalid(cp, rule.succeeded_count,
                                        f"must be less than or equal to {completions} (the number of specified completions)"))
            if rule.succeeded_indexes is not None and rule.succeeded_count > total:
                errs.append(fld.invalid(cp, rule.succeeded_count, f"must be less than or equal to {total} (the number of "
                                                                  "indexes in the specified succeededIndexes field)"))
    return errs


def _validate_job_spec_common(spec: Any, path: Path, opts: PodValidationOptions) -> ErrorList:
    errs = ErrorList()
    for attr in ("parallelism", "completions", "active_deadline_seconds", "backoff_limit",
                 "ttl_seconds_after_finished", "backoff_limit_per_index"):
        v = getattr(spec, attr)
        if v is not None:
            errs.extend(_nonneg(v, path.child(_camel(attr))))
    if spec.max_failed_indexes is not None:
        errs.extend(_nonneg(spec.max_failed_indexes, path.child("maxFailedIndexes")))
        if spec.backoff_limit_per_index is None:
            errs.append(fld.required(path.child("backoffLimitPerIndex"), "when maxFailedIndexes is specified"))
    if spec.managed_by is not None:
        errs.extend(names.is_domain_prefixed_path(path.child("managedBy"), spec.managed_by))
        if names.go_len(spec.managed_by) > _MAX_MANAGED_BY:
            errs.append(fld.too_long(path.child("managedBy"), spec.managed_by, _MAX_MANAGED_BY))
    mode = spec.completion_mode
    if mode is not None:
        if mode not in ("NonIndexed", "Indexed"):
            errs.append(fld.not_supported(path.child("completionMode"), mode, ["NonIndexed", "Indexed"]))
        if mode == "Indexed":
            if spec.completions is None:
                errs.append(fld.required(path.child("completions"), "when completion mode is Indexed"))
            if spec.parallelism is not None and spec.parallelism > _MAX_PARALLELISM_INDEXED:
                errs.append(fld.invalid(path.child("parallelism"), spec.parallelism,
                                        f"must be less than or equal to {_MAX_PARALLELISM_INDEXED} when completion mode "
                                        "is Indexed"))
            mfi = spec.max_failed_indexes
            if spec.completions is not None and mfi is not None and mfi > spec.completions:
                errs.append(fld.invalid(path.child("maxFailedIndexes"), mfi, "must be less than or equal to completions"))
            if mfi is not None and mfi > _MAX_FAILED_INDEXES:
                errs.append(fld.invalid(path.child("maxFailedIndexes"), mfi,
                                        f"must be less than or equal to {_MAX_FAILED_INDEXES}"))
            if spec.completions is not None and spec.completions > _COMPLETIONS_SOFT_LIMIT and \
                    spec.backoff_limit_per_index is not None:
                if mfi is None:
                    errs.append(fld.required(path.child("maxFailedIndexes"),
                                             f"must be specified when completions is above {_COMPLETIONS_SOFT_LIMIT}"))
                tail = f"when completions are above {_COMPLETIONS_SOFT_LIMIT} and used with backoff limit per index"
                if spec.parallelism is not None and spec.parallelism > _PARALLELISM_HIGH:
                    errs.append(fld.invalid(path.child("parallelism"), spec.parallelism,
                                            f"must be less than or equal to {_PARALLELISM_HIGH} {tail}"))
                if mfi is not None and mfi > _MAX_FAILED_HIGH:
                    errs.append(fld.invalid(path.child("maxFailedIndexes"), mfi,
                                            f"must be less than or equal to {_MAX_FAILED_HIGH} {tail}"))
    if mode is None or mode == "NonIndexed":
        if spec.backoff_limit_per_index is not None:
            errs.append(fld.invalid(path.child("backoffLimitPerIndex"), spec.backoff_limit_per_index,
                                    "requires indexed completion mode"))
        if spec.max_failed_indexes is not None:
            errs.append(fld.invalid(path.child("maxFailedIndexes"), spec.max_failed_indexes,
                                    "requires indexed completion mode"))
    if spec.pod_failure_policy is not None:
        errs.extend(_validate_pod_failure_policy(spec, path.child("podFailurePolicy")))
    if spec.success_policy is not None:
        if (mode or "NonIndexed") != "Indexed":
            errs.append(fld.invalid(path.child("successPolicy"), spec.success_policy, "requires indexed completion mode"))
        else:
            errs.extend(_validate_success_policy(spec, path.child("successPolicy")))
    rpp = spec.pod_replacement_policy
    if rpp is not None:
        if spec.pod_failure_policy is not None:
            if rpp != "Failed":
                errs.append(fld.not_supported(path.child("podReplacementPolicy"), rpp, ["Failed"]))
        elif rpp not in ("Failed", "TerminatingOrFailed"):
            errs.append(fld.not_supported(path.child("podReplacementPolicy"), rpp, ["Failed", "TerminatingOrFailed"]))
    errs.extend(core.validate_pod_template_spec(spec.template, path.child("template"), opts))
    rp = path.child("template", "spec", "restartPolicy")
    restart = spec.template.spec.restart_policy
    if restart in ("Always", ""):
        errs.append(fld.required(rp, 'valid values: "OnFailure", "Never"'))
    elif restart not in ("OnFailure", "Never"):
        errs.append(fld.not_supported(rp, restart, ["OnFailure", "Never"]))
    elif spec.pod_failure_policy is not None and restart != "Never":
        errs.append(fld.invalid(rp, restart, 'only "Never" is supported when podFailurePolicy is specified'))
    return errs


def _camel(attr: str) -> str:
    return re.sub(r"_(.)", lambda m: m.group(1).upper(), attr)


def _validate_job_spec(spec: Any, path: Path, opts: PodValidationOptions) -> ErrorList:
    errs = _validate_job_spec_common(spec, path, opts)
    if spec.selector is None:
        errs.append(fld.required(path.child("selector"), ""))
    else:
        errs.extend(om.validate_label_selector(spec.selector, path.child("selector"),
                                               allow_invalid_label_value=opts.allow_invalid_label_value_in_selector))
    sel = _selector(spec.selector)
    if sel is not None and not sel.matches(spec.template.metadata.labels or {}):
        errs.append(fld.invalid(path.child("template", "metadata", "labels"), spec.template.metadata.labels,
                                "`selector` does not match template `labels`"))
    return errs


def validate_job(job: Any, opts: JobValidationOptions | None = None) -> ErrorList:
    """Go: ``ValidateJob``. The selector and the template's controller labels are what the
    Job strategy generates on create (``generateSelector``), as in Go."""
    opts = opts or JobValidationOptions()
    pod_opts = opts.pod or PodValidationOptions()
    errs = core.validate_object_meta(job.metadata, True, names.name_is_dns_subdomain, Path("metadata"))
    errs.extend(_validate_generated_selector(job, opts.require_prefixed_labels))
    errs.extend(_validate_job_spec(job.spec, Path("spec"), pod_opts))
    spec = job.spec
    if spec.completion_mode == "Indexed" and spec.completions is not None and spec.completions > 0:
        host = f"{job.metadata.name}-{spec.completions - 1}"
        if names.is_dns1123_label(host):
            errs.append(fld.invalid(Path("metadata").child("name"), job.metadata.name,
                                    f"will not able to create pod with invalid DNS label: {host}"))
    return errs


def validate_job_update(new: Any, old: Any, opts: JobValidationOptions | None = None) -> ErrorList:
    """Go: ``ValidateJobUpdate`` (selector, template, completionMode, podFailurePolicy,
    backoffLimitPerIndex, managedBy and successPolicy are immutable)."""
    opts = opts or JobValidationOptions(require_prefixed_labels=False)
    pod_opts = opts.pod or PodValidationOptions()
    errs = core.validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    sp = Path("spec")
    ns, os_ = new.spec, old.spec
    errs.extend(_validate_job_spec(ns, sp, pod_opts))
    cp = sp.child("completions")
    if not opts.allow_elastic_indexed_jobs or ns.completion_mode != "Indexed":
        errs.extend(om.validate_immutable_field(ns.completions, os_.completions, cp))
    elif ns.completions != os_.completions and ns.completions is not None and ns.completions != ns.parallelism:
        errs.append(fld.invalid(cp, ns.completions, "can only be modified in tandem with spec.parallelism"))
    errs.extend(om.validate_immutable_field(ns.selector, os_.selector, sp.child("selector")))
    old_template = os_.template
    if opts.allow_mutable_scheduling_directives:
        old_template = os_.template.deep_copy()
        old_template.spec.affinity = ns.template.spec.affinity
        old_template.spec.node_selector = ns.template.spec.node_selector
        old_template.spec.tolerations = ns.template.spec.tolerations
        old_template.metadata.annotations = ns.template.metadata.annotations
        old_template.metadata.labels = ns.template.metadata.labels
        old_template.spec.scheduling_gates = ns.template.spec.scheduling_gates
    errs.extend(om.validate_immutable_field(ns.template, old_template, sp.child("template")))
    for attr, js in (("completion_mode", "completionMode"), ("pod_failure_policy", "podFailurePolicy"),
                     ("backoff_limit_per_index", "backoffLimitPerIndex"), ("managed_by", "managedBy"),
                     ("success_policy", "successPolicy")):
        errs.extend(om.validate_immutable_field(getattr(ns, attr), getattr(os_, attr), sp.child(js)))
    return errs


def _condition_true(job: Any, ctype: str) -> bool:
    return any(c.type == ctype and c.status == "True" for c in job.status.conditions or [])


def validate_job_status_update(new: Any, old: Any) -> ErrorList:
    """Go: ``ValidateJobUpdateStatus`` with the checks 1.36 enables for every client."""
    errs = core.validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    sp = Path("status")
    status = new.status
    for attr in ("active", "succeeded", "failed"):
        errs.extend(_nonneg(getattr(status, attr), sp.child(attr)))
    if status.ready is not None:
        errs.extend(_nonneg(status.ready, sp.child("ready")))
    if status.terminating is not None:
        errs.extend(_nonneg(status.terminating, sp.child("terminating")))
    utp = status.uncounted_terminated_pods
    if utp is not None:
        up = sp.child("uncountedTerminatedPods")
        seen: set[str] = set()
        for attr in ("succeeded", "failed"):
            for i, k in enumerate(getattr(utp, attr) or []):
                p = up.child(attr).index(i)
                if not k:
                    errs.append(fld.invalid(p, k, "must not be empty"))
                elif k in seen:
                    errs.append(fld.duplicate(p, k))
                else:
                    seen.add(k)
    complete, failed = _condition_true(new, "Complete"), _condition_true(new, "Failed")
    finished = complete or failed
    if complete and failed:
        errs.append(fld.invalid(sp.child("conditions"), OMIT_VALUE, "cannot set Complete=True and Failed=true conditions"))
    if status.ready is not None and status.ready > status.active:
        errs.append(fld.invalid(sp.child("ready"), status.ready, "cannot set more ready pods than active"))
    if finished and status.active > 0:
        errs.append(fld.invalid(sp.child("active"), status.active, "active>0 is invalid for finished job"))
    for ctype in ("Failed", "Complete", "FailureTarget"):
        if _condition_true(old, ctype) and not _condition_true(new, ctype):
            errs.append(fld.invalid(sp.child("conditions"), OMIT_VALUE, f"cannot disable the terminal {ctype}=True condition"))
    if new.status.failed < old.status.failed:
        errs.append(fld.invalid(sp.child("failed"), new.status.failed, "cannot decrease the failed counter"))
    if new.status.succeeded < old.status.succeeded:
        errs.append(fld.invalid(sp.child("succeeded"), new.status.succeeded, "cannot decrease the succeeded counter"))
    return errs


# --- CronJob -----------------------------------------------------------------------------------

def _validate_schedule(schedule: str, allow_tz: bool, tz: str | None, path: Path) -> ErrorList:
    errs = ErrorList()
    try:
        parse_standard_cron(schedule)
    except CronParseError as e:
        errs.append(fld.invalid(path, schedule, str(e)))
    if allow_tz and "TZ" in schedule and tz is not None:
        errs.append(fld.invalid(path, schedule, "cannot use both timeZone field and TZ or CRON_TZ in schedule"))
    elif not allow_tz and "TZ" in schedule:
        errs.append(fld.invalid(path, schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"))
    return errs


def _validate_job_template_spec(spec: Any, path: Path, opts: PodValidationOptions) -> ErrorList:
    errs = _validate_job_spec_common(spec.spec, path.child("spec"), opts)
    if spec.spec.selector is not None:
        errs.append(fld.invalid(path.child("spec", "selector"), spec.spec.selector, "`selector` will be auto-generated"))
    if spec.spec.manual_selector:
        errs.append(fld.not_supported(path.child("spec", "manualSelector"), spec.spec.manual_selector, ["nil", "false"]))
    return errs


def _validate_cron_job_spec(spec: Any, old: Any, path: Path, opts: PodValidationOptions) -> ErrorList:
    errs = ErrorList()
    if not spec.schedule:
        errs.append(fld.required(path.child("schedule"), ""))
    else:
        allow_tz = old is not None and "TZ" in old.schedule
        errs.extend(_validate_schedule(spec.schedule, allow_tz, spec.time_zone, path.child("schedule")))
    if spec.starting_deadline_seconds is not None:
        errs.extend(_nonneg(spec.starting_deadline_seconds, path.child("startingDeadlineSeconds")))
    if old is None or old.time_zone != spec.time_zone:
        errs.extend(_validate_time_zone(spec.time_zone, path.child("timeZone")))
    cp = path.child("concurrencyPolicy")
    if spec.concurrency_policy == "":
        errs.append(fld.required(cp, ""))
    elif spec.concurrency_policy not in ("Allow", "Forbid", "Replace"):
        errs.append(fld.not_supported(cp, spec.concurrency_policy, ["Allow", "Forbid", "Replace"]))
    errs.extend(_validate_job_template_spec(spec.job_template, path.child("jobTemplate"), opts))
    for attr, js in (("successful_jobs_history_limit", "successfulJobsHistoryLimit"),
                     ("failed_jobs_history_limit", "failedJobsHistoryLimit")):
        v = getattr(spec, attr)
        if v is not None:
            errs.extend(_nonneg(v, path.child(js)))
    return errs


def validate_cron_job(obj: Any, opts: PodValidationOptions | None = None) -> ErrorList:
    """Go: ``ValidateCronJobCreate`` (names of at most 52 characters: Job names get an
    11-character suffix)."""
    errs = core.validate_object_meta(obj.metadata, True, names.name_is_dns_subdomain, Path("metadata"))
    errs.extend(_validate_cron_job_spec(obj.spec, None, Path("spec"), opts or PodValidationOptions()))
    if names.go_len(obj.metadata.name) > 63 - 11:
        errs.append(fld.invalid(Path("metadata").child("name"), obj.metadata.name, "must be no more than 52 characters"))
    return errs


def validate_cron_job_update(new: Any, old: Any, opts: PodValidationOptions | None = None) -> ErrorList:
    """Go: ``ValidateCronJobUpdate``."""
    errs = core.validate_object_meta_update(new.metadata, old.metadata, Path("metadata"))
    errs.extend(_validate_cron_job_spec(new.spec, old.spec, Path("spec"), opts or PodValidationOptions()))
    return errs
