"""kube-apiserver's legacy scheme: every built-in group with its internal (hub) version.

Go: ``k8s.io/kubernetes/pkg/api/legacyscheme`` (``Scheme``, ``Codecs``) filled by each
``pkg/apis/<group>/install`` package: the internal version (``__internal``) and every
external version of a group, the conversion functions between each external version and the
internal one, defaulting functions, field-label conversions and version priorities.

``scheme`` and ``codecs`` are made on first access (thread-safe), and the scheme installs a
group (an API package: types, conversions, defaults) when the first lookup needs it, with
the groups its internal types and conversions use, as ``kcodec.api`` builds its
external-only scheme: converting one Deployment installs apps, autoscaling and core, not all
25 groups. Queries about the whole scheme install every group first. ``codecs.universal_decoder()`` decodes any served version, applies
that version's defaults and converts to the internal version. Converting an external object
straight to another external version raises ``ConversionError`` (no function links two
external versions; go through the internal version, or use :func:`convert`).
"""
from __future__ import annotations

import functools
import importlib
import threading
from types import ModuleType
from typing import TYPE_CHECKING, Any

from kcodec.errors import ConversionError, KCodecError
from kcodec.schema import INTERNAL_GROUP_VERSIONER, GroupVersion, parse_group_version

if TYPE_CHECKING:
    from kcodec.runtime.scheme import Scheme
    from kcodec.serializer.factory import CodecFactory

__all__ = [
    "scheme", "codecs", "PACKAGES", "EXTRA_PACKAGES", "convert", "to_internal", "preferred_version",
    "served_versions",
]

#: API packages (``kcodec.api.<package>``) whose internal version is installed, in the order
#: kube-apiserver installs them. Groups not listed are not in the legacy scheme.
PACKAGES: tuple[str, ...] = (
    "core", "apps", "autoscaling", "batch", "extensions", "networking", "policy", "rbac",
    "storage", "scheduling", "coordination", "discovery", "events", "node", "certificates",
    "flowcontrol", "admissionregistration", "authentication", "authorization",
    "storagemigration", "apiserverinternal", "imagepolicy", "admission", "resource",
)

_lock = threading.Lock()
_built: dict[str, Any] = {}


#: Packages of kube-apiserver's other two schemes (apiextensions-apiserver's and
#: kube-aggregator's), installed here too so one scheme converts every kind the server serves.
EXTRA_PACKAGES: tuple[str, ...] = ("apiextensions", "apiregistration")


def _units() -> tuple[str, ...]:
    return PACKAGES + EXTRA_PACKAGES


@functools.lru_cache(maxsize=None)
def _package_groups() -> dict[str, tuple[str, ...]]:
    """API group -> the packages registering it (external versions from the generated
    table; ``extensions`` is its own package, whose internal kinds live in others)."""
    from kcodec.api._registry import GROUP_VERSIONS

    units = set(_units())
    out: dict[str, list[str]] = {}
    for (group, _version), (module, _kinds) in GROUP_VERSIONS.items():
        pkg = module.split(".")[2]
        if pkg in units and pkg not in out.setdefault(group, []):
            out[group].append(pkg)
    return {group: tuple(pkgs) for group, pkgs in out.items()}


def _package_of_type(t: type) -> list[str] | None:
    parts = t.__module__.split(".")
    if len(parts) == 4 and parts[:3] == ["kcodec", "api", "removed"]:
        # kcodec.api.removed.<package>_<version>: installed with its group's package
        parts[2] = parts[3].split("_", 1)[0]
    if len(parts) >= 3 and parts[:2] == ["kcodec", "api"] and parts[2] in _units():
        return [parts[2]]
    return None


def _dependencies(pkg: str, modules: list[ModuleType]) -> list[str]:
    """The other packages whose types ``modules`` (a package's internal version and
    conversions) use: their conversion functions must be registered first."""
    units = _units()
    found: set[str] = set()
    for mod in modules:
        for value in vars(mod).values():
            if isinstance(value, ModuleType):
                name = value.__name__
            elif isinstance(value, type):
                name = value.__module__
            else:
                continue
            parts = name.split(".")
            if len(parts) >= 3 and parts[:2] == ["kcodec", "api"] and parts[2] in units and parts[2] != pkg:
                found.add(parts[2])
    return [u for u in units if u in found]


def _install_package(s: Any, pkg: str) -> None:
    """Register one package as its ``install`` package does in Go: the internal and
    external versions, conversions and defaulters (after the packages it uses)."""
    from kcodec.api import _defaulting, _hub
    from kcodec.runtime.scheme import Scheme

    if pkg in EXTRA_PACKAGES:
        importlib.import_module(f"kcodec.api.{pkg}._install").install(s)
        return
    internal = importlib.import_module(f"kcodec.api.{pkg}.internal")
    conversion = importlib.import_module(f"kcodec.api.{pkg}._conversion")
    s.load_units(*_dependencies(pkg, [internal, conversion]))
    internal.add_to_scheme(s)
    externals = _hub.external_versions(pkg)
    for mod in externals:
        mod.add_to_scheme(s)
    conversion.add_conversion_funcs(s)
    names = {mod.__name__ for mod in externals}
    # What is registered so far (Scheme's own method: the lazy one would install everything).
    classes = {cls for cls in Scheme.all_known_types(s).values() if cls.__module__ in names}
    _defaulting.install_defaulters(s, sorted(classes, key=lambda c: (c.__module__, c.__name__)))


def _new_scheme() -> Scheme:
    """The legacy scheme, empty but for meta/v1, field-label conversions and version
    priorities: each group is installed by the first lookup that needs it."""
    from kcodec.api import _defaulting
    from kcodec.api.meta import v1 as metav1
    from kcodec.runtime.scheme import LazyScheme

    groups = _package_groups()
    s = LazyScheme(
        "kcodec.legacyscheme", _units(), _install_package,
        units_for_gvk=lambda gvk: groups.get(gvk.group), units_for_type=_package_of_type,
        units_for_group=lambda group: groups.get(group, ()), partial_conversion=True,
    )
    metav1.add_to_scheme(s)
    _defaulting.install_tables(s)
    return s


def _build() -> None:
    from kcodec.serializer.factory import CodecFactory

    s = _new_scheme()
    _built["codecs"] = CodecFactory(s)
    _built["scheme"] = s


def _get(name: str) -> Any:
    if not _built:
        with _lock:
            if not _built:
                _build()
    return _built[name]


def __getattr__(name: str) -> Any:
    if name in ("scheme", "codecs"):
        return _get(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def preferred_version(group: str) -> GroupVersion:
    """The version kube-apiserver prefers for ``group`` (what ``kubectl convert`` picks
    when no ``--output-version`` is given)."""
    versions = _get("scheme").prioritized_versions_for_group(group)
    for gv in versions:
        if gv.version != "__internal":
            return gv
    raise KCodecError(f"group {group!r} is not registered in the legacy scheme")


def served_versions(group: str) -> list[GroupVersion]:
    """The external versions of ``group`` in the legacy scheme, preferred first (empty for a
    group it does not have)."""
    return [gv for gv in _get("scheme").prioritized_versions_for_group(group)
            if gv.version != "__internal"]


def to_internal(obj: Any, *, default: bool = True) -> Any:
    """``obj`` (an external object, typed or Unstructured) in its internal version.

    The object is defaulted first (on a copy) when ``default`` is true, as kube-apiserver's
    decoder does; an object already internal is returned as a copy.
    """
    return _internal_of(obj, default, copy=True)


def _internal_of(obj: Any, default: bool, copy: bool) -> Any:
    """:func:`to_internal`; ``copy=False`` when ``obj`` is the caller's own fresh object
    (just decoded), which may then be defaulted in place and share data with the result."""
    s = _get("scheme")
    if _is_unstructured(obj):
        obj = s._unstructured_to_typed(obj)
    elif copy:
        obj = obj.deep_copy()
    if default:
        s.default(obj)
    return s.unsafe_convert_to_version(obj, INTERNAL_GROUP_VERSIONER)


def convert(obj: Any, version: str | GroupVersion) -> Any:
    """``obj`` as ``version`` ("apps/v1", "v1"...): any served version of a kind to any other,
    through the internal version, with the source version's defaults applied (what
    ``kubectl convert`` does). ``obj`` may also be the bytes/text of one document (JSON,
    YAML or protobuf). Raises :class:`~kcodec.errors.ConversionError` when the kind has no
    version ``version``.
    """
    s = _get("scheme")
    gv = version if isinstance(version, GroupVersion) else parse_group_version(version)
    fresh = isinstance(obj, (bytes, bytearray, memoryview, str))
    if fresh:
        data = obj.encode("utf-8") if isinstance(obj, str) else bytes(obj)
        obj, _gvk = _get("codecs").universal_deserializer().decode(data)
    elif _chunkable(s, obj):
        try:
            return _convert_in_chunks(s, obj, gv)
        except Exception:  # noqa: BLE001 - the whole-object path below raises its own error
            pass
    return _convert_whole(s, obj, gv, fresh)


def _convert_whole(s: Any, obj: Any, gv: GroupVersion, fresh: bool) -> Any:
    internal = _internal_of(obj, True, copy=not fresh)
    kinds, _ = s.object_kinds(internal)
    if not any(k.group == gv.group for k in kinds):
        names = ", ".join(str(k) for k in kinds)
        raise ConversionError(f"{type(obj).__name__} ({names}) has no version in group {gv.group!r}"
                              f" to convert to {gv}")
    # The internal object is this call's own (nothing else holds it): the external one may
    # share its data, which saves the copy convert_to_version makes.
    return s.unsafe_convert_to_version(internal, gv)


#: Items per chunk of a typed list converted by :func:`_convert_in_chunks`, and the least
#: number of items for which the list is cut (a few hundred kilobytes of objects a chunk).
CHUNK_ITEMS = 16
_MIN_CHUNKED = 2 * CHUNK_ITEMS


def _chunkable(s: Any, obj: Any) -> bool:
    """Whether ``obj`` is a typed list (an ``items`` list of objects of a kind the scheme
    knows, all of one class) long enough to convert in chunks."""
    items = getattr(obj, "items", None)
    if type(items) is not list or len(items) < _MIN_CHUNKED or _is_unstructured(obj):
        return False
    cls = type(items[0])
    if not all(type(x) is cls for x in items) or _is_unstructured(items[0]):
        return False
    try:
        s.object_kinds(items[0])
    except Exception:  # noqa: BLE001 - not a registered kind: converted whole
        return False
    return True


def _convert_in_chunks(s: Any, obj: Any, gv: GroupVersion) -> Any:
    """:func:`convert` of a long typed list, ``CHUNK_ITEMS`` items at a time: each chunk is
    a copy of the list with those items, copied, defaulted and converted twice as the whole
    list would be, and the chunks' converted items are joined in order in the first
    chunk's result. Go's list defaulters and conversions treat every item on its own (the
    list's functions loop over the items), so the result is the whole list's; what changes
    is that each item is defaulted and converted while its fresh copy is still in the CPU
    caches, instead of four passes over a tree of tens of megabytes (1000 Deployments:
    copy, defaulting and both conversions each walked memory the previous pass had left).
    A list whose result lacks an ``items`` list as long as each chunk raises here and is
    converted whole by the caller, as is any list that fails (the same error, in the order
    the whole-list path meets it)."""
    import copy as _copy

    items = obj.items
    shell = _copy.copy(obj)  # a shallow copy of the caller's list: only its items slot changes
    out = None
    for start in range(0, len(items), CHUNK_ITEMS):
        chunk = items[start:start + CHUNK_ITEMS]
        object.__setattr__(shell, "items", chunk)
        part = _convert_whole(s, shell, gv, False)
        got = getattr(part, "items", None)
        if type(got) is not list or len(got) != len(chunk):
            raise ConversionError("list conversion does not keep one item per item")
        if out is None:
            out = part
            joined = got
        else:
            joined.extend(got)
    return out


def _is_unstructured(obj: Any) -> bool:
    from kcodec.runtime.scheme import is_unstructured

    return is_unstructured(obj)


scheme: Scheme
codecs: CodecFactory
