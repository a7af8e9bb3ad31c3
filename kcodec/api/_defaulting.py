"""Defaulting, field-label conversions and version priorities of the built-in API groups.

This is what kube-apiserver's legacy scheme registers besides types and conversions
(kubernetes/kubernetes ``pkg/apis/<group>/<version>/defaults.go`` with its generated
``zz_generated.defaults.go``, ``<version>/conversion.go`` field-label functions and
``<group>/install/install.go`` version priorities). :func:`install` puts all of it on a
:class:`~kcodec.runtime.scheme.Scheme`; ``kcodec.legacyscheme`` calls it.

How the defaulters are built
----------------------------
Go's defaulter-gen writes, for every top-level type, a function that calls the type's own
``SetDefaults_<Type>`` and then walks its fields in declaration order, calling the
``SetDefaults_`` of every nested type (pointers only when set, every element of slices
and maps) and applying the declarative ``+default=`` markers of the fields on the way.
Here that walk is built from the model field tables instead of generated: each package's
``_defaults`` module lists its hand-written functions (``DEFAULTERS``, keyed by model
class) and its markers (``MARKERS``, keyed by ``(class, field name)``), and
:func:`defaulter_for` compiles, per class, one function that does exactly what the generated
Go function does, in the same order:

1. the class's own defaulter;
2. for each field in declaration order: the field's marker (only when the field holds
   its zero value, or nil for a pointer), then the walk of the field's value.

Types whose walk does nothing get no function, so a walk only descends where something can
change. A walk writes the walks of the nested classes into its own function (as
defaulter-gen writes one function per top-level type), so it calls only the hand-written
defaulters. ``resource.Quantity`` maps of core's ``ResourceList`` type are rounded up to milli
precision (``SetDefaults_ResourceList``); the model does not keep Go's named map type, so
those fields are listed by :data:`kcodec.api.core._defaults.RESOURCE_LIST_FIELDS`.
"""
from __future__ import annotations

import importlib
import keyword
import threading
from typing import Any, Callable

from kcodec._kinds import K_CUSTOM, K_LIST, K_MAP, K_STRUCT
from kcodec.model import fields_of
from kcodec.schema import GroupVersion

__all__ = [
    "install",
    "defaulter_for",
    "VERSION_PRIORITIES",
    "DEFAULTING_PACKAGES",
    "set_object_defaults",
]

#: Packages (``kcodec.api.<name>``) that have a ``_defaults`` module.
DEFAULTING_PACKAGES = (
    "core",
    "apps",
    "extensions",
    "batch",
    "autoscaling",
    "networking",
    "rbac",
    "storage",
    "scheduling",
    "admissionregistration",
    "flowcontrol",
    "discovery",
    "resource",
    "certificates",
    "authentication",
)

#: Version priority of every group, most preferred first, as each
#: ``pkg/apis/<group>/install/install.go`` calls ``scheme.SetVersionPriority`` (only the
#: versions k8s.io/api v0.36.3 still has). resource.k8s.io/v1beta1 is installed by a
#: scheme init function after the others, so it ranks last. apiextensions.k8s.io and
#: apiregistration.k8s.io are as apiextensions-apiserver and kube-aggregator install them.
VERSION_PRIORITIES: dict[str, tuple[str, ...]] = {
    "": ("v1",),
    "admission.k8s.io": ("v1", "v1beta1"),
    "admissionregistration.k8s.io": ("v1", "v1beta1", "v1alpha1"),
    "apiextensions.k8s.io": ("v1", "v1beta1"),
    "apiregistration.k8s.io": ("v1", "v1beta1"),
    "apps": ("v1", "v1beta2", "v1beta1"),
    "authentication.k8s.io": ("v1", "v1beta1", "v1alpha1"),
    "authorization.k8s.io": ("v1", "v1beta1"),
    "autoscaling": ("v2", "v1"),
    "batch": ("v1", "v1beta1"),
    "certificates.k8s.io": ("v1", "v1beta1", "v1alpha1"),
    "coordination.k8s.io": ("v1", "v1beta1", "v1alpha2"),
    "discovery.k8s.io": ("v1", "v1beta1"),
    "events.k8s.io": ("v1", "v1beta1"),
    "extensions": ("v1beta1",),
    "flowcontrol.apiserver.k8s.io": ("v1", "v1beta3", "v1beta2", "v1beta1"),
    "imagepolicy.k8s.io": ("v1alpha1",),
    "internal.apiserver.k8s.io": ("v1alpha1",),
    "networking.k8s.io": ("v1", "v1beta1"),
    "node.k8s.io": ("v1", "v1beta1", "v1alpha1"),
    "policy": ("v1", "v1beta1"),
    "rbac.authorization.k8s.io": ("v1", "v1beta1", "v1alpha1"),
    "resource.k8s.io": ("v1", "v1beta2", "v1alpha3", "v1beta1"),
    "scheduling.k8s.io": ("v1", "v1beta1", "v1alpha2"),
    "storage.k8s.io": ("v1", "v1beta1", "v1alpha1"),
    "storagemigration.k8s.io": ("v1beta1",),
}

_NOTHING = object()

_compiled: dict[type, Callable[[Any], None] | None] = {}
# Compiling fills _compiled recursively; one thread at a time keeps half-built walks private.
_lock = threading.RLock()

# The tables of the packages loaded so far: a walk loads only the ``_defaults`` modules of
# the packages its classes come from (a Deployment's: apps and core), so the first object
# defaulted in a process does not import every API group.
_defaulters: dict[type, Callable[[Any], None]] = {}
_markers: dict[tuple[type, str], Any] = {}
_resource_lists: set[tuple[type, str]] = set()
_loaded_packages: set[str] = set()


def _package_of(cls: type) -> str | None:
    parts = getattr(cls, "__module__", "").split(".")
    if len(parts) == 4 and parts[:2] == ["kcodec", "api"] and parts[2] == "removed":
        # kcodec.api.removed.<package>_<version>: defaulted by its group's package
        parts[2] = parts[3].split("_", 1)[0]
    if len(parts) == 4 and parts[:2] == ["kcodec", "api"] and parts[2] in DEFAULTING_PACKAGES:
        return parts[2]
    return None


def _load_package(pkg: str) -> None:
    if pkg in _loaded_packages:
        return
    mod = importlib.import_module(f"kcodec.api.{pkg}._defaults")
    _defaulters.update(mod.DEFAULTERS)
    _markers.update(getattr(mod, "MARKERS", {}))
    _resource_lists.update(getattr(mod, "RESOURCE_LIST_FIELDS", ()))
    _loaded_packages.add(pkg)


def _load_tables() -> tuple[dict[type, Callable[[Any], None]], dict[tuple[type, str], Any], frozenset]:
    """Every package's tables (defaulters, markers, ResourceList fields), all loaded."""
    with _lock:
        for pkg in DEFAULTING_PACKAGES:
            _load_package(pkg)
        return dict(_defaulters), dict(_markers), frozenset(_resource_lists)


# How deep a walk inlines the walks of nested classes. Python refuses more than 100
# indentation levels and 20 nested loops in one function; past these a nested walk is
# called instead (each level costs two indents, or three with a loop).
_MAX_INLINE_INDENT = 30
_MAX_INLINE_LOOPS = 8

# A built walk keeps its steps, in Go's order, under this attribute: ("own", fn),
# ("marker", name, value, pointer), ("struct", name, run), ("elements", name, run, mapping)
# and ("resource_list", name), where run is the nested class's walk. Kept on the function,
# not by class, so a walk inlines exactly the walks it would have called.
_STEPS = "_kc_walk_steps"
# The attribute of a walk not compiled yet: builds it (see _pending_walk).
_BUILD = "_kc_walk_build"


class _WalkSource:
    """The Python source of one class's defaulting walk, built step by step in Go's order.

    Each step used to be a closure called per object (a Deployment's walk made some 130
    Python calls and as many ``getattr``s, two thirds of defaulting's time): written as one
    function, a field is one attribute load. The walks of nested classes are written into
    the same function, as defaulter-gen writes one function per top-level type, so a
    Deployment's walk calls only the hand-written defaulters (each nested walk call cost
    about as much as the defaulter it led to). Values the code refers to (defaulters,
    marker values, walks not inlined) are bound as names of the function's globals, never
    spelled into the source.
    """

    def __init__(self, cls: type, steps: tuple[tuple[Any, ...], ...]) -> None:
        self.cls = cls
        self.steps = steps
        self.lines: list[str] = []
        self.env: dict[str, Any] = {"getattr": getattr, "setattr": setattr}
        self.names = 0

    def bind(self, value: Any) -> str:
        name = f"_c{len(self.env)}"
        self.env[name] = value
        return name

    def fresh(self, prefix: str) -> str:
        # Every inlined level has its own variables: a nested loop must not overwrite
        # the value an enclosing level reads next.
        self.names += 1
        return f"{prefix}{self.names}"

    def add(self, indent: int, line: str) -> None:
        self.lines.append("    " * indent + line)

    def read(self, var: str, name: str) -> str:
        # Model field names are identifiers (reserved words get a trailing underscore);
        # anything else is read and written through getattr/setattr, as the closures did.
        if name.isidentifier() and not keyword.iskeyword(name):
            return f"{var}.{name}"
        return f"getattr({var}, {self.bind(name)})"

    def write(self, var: str, name: str, value: str) -> str:
        if name.isidentifier() and not keyword.iskeyword(name):
            return f"{var}.{name} = {value}"
        return f"setattr({var}, {self.bind(name)}, {value})"

    def emit(self, steps: tuple[tuple[Any, ...], ...], var: str, indent: int, loops: int) -> None:
        """The ``steps`` of a walk applied to the object named ``var``."""
        for step in steps:
            kind = step[0]
            if kind == "own":
                self.add(indent, f"{self.bind(step[1])}({var})")
            elif kind == "marker":
                _, name, value, pointer = step
                # defaulter-gen tests a pointer against nil and a value against its zero value.
                test = "is None" if pointer else f"== {self.bind(type(value)())}"
                self.add(indent, f"if {self.read(var, name)} {test}:")
                self.add(indent + 1, self.write(var, name, self.bind(value)))
            elif kind == "struct":
                _, name, run = step
                v = self.fresh("v")
                self.add(indent, f"{v} = {self.read(var, name)}")
                self.add(indent, f"if {v} is not None:")
                self.nested(run, v, indent + 1, loops)
            elif kind == "elements":
                _, name, run, mapping = step
                v, x = self.fresh("v"), self.fresh("x")
                self.add(indent, f"{v} = {self.read(var, name)}")
                self.add(indent, f"if {v}:")
                self.add(indent + 1, f"for {x} in {v}.values():" if mapping else f"for {x} in {v}:")
                self.nested(run, x, indent + 2, loops + 1)
            else:  # resource_list: SetDefaults_ResourceList, written out
                round_up = importlib.import_module("kcodec.api.core._defaults").round_up_milli
                v, k, q, r = self.fresh("v"), self.fresh("k"), self.fresh("q"), self.fresh("r")
                # round_up_milli returns a quantity at milli scale or coarser unchanged:
                # only finer ones need the call.
                self.add(indent, f"{v} = {self.read(var, step[1])}")
                self.add(indent, f"if {v}:")
                self.add(indent + 1, f"for {k}, {q} in {v}.items():")
                self.add(indent + 2, f"if {q}._e < -3:")
                self.add(indent + 3, f"{r} = {self.bind(round_up)}({q})")
                self.add(indent + 3, f"if {r} is not {q}:")
                self.add(indent + 4, f"{v}[{k}] = {r}")

    def nested(self, run: Callable[[Any], None], var: str, indent: int, loops: int) -> None:
        # Only built walks have steps: a class's own defaulter is called, and so is the
        # late-bound walk of a recursive type (which was still being compiled when this
        # walk's steps were listed, so inlining always ends), as are levels too deep.
        steps = getattr(run, _STEPS, None)
        if steps is not None and indent <= _MAX_INLINE_INDENT and loops < _MAX_INLINE_LOOPS:
            self.emit(steps, var, indent, loops)
        else:
            self.add(indent, f"{self.bind(run)}({var})")

    def build(self) -> Callable[[Any], None]:
        cls = self.cls
        self.emit(self.steps, "obj", 1, 0)
        qualname = f"set_object_defaults[{cls.__module__}.{cls.__qualname__}]"
        body = "".join(f"{line}\n" for line in self.lines)
        code = compile(f"def walk(obj):\n{body}", f"<kcodec defaulting walk of {qualname}>", "exec")
        exec(code, self.env)
        fn = self.env["walk"]
        fn.__qualname__ = qualname
        setattr(fn, _STEPS, self.steps)
        return fn


def defaulter_for(cls: type) -> Callable[[Any], None] | None:
    """The compiled defaulting walk of model class ``cls``, or None when it changes nothing.

    Mirrors defaulter-gen's ``SetObjectDefaults_<Type>``: own defaulter first, then each
    field in declaration order (marker, then the nested walk).
    """
    found = _compiled.get(cls, _NOTHING)
    if found is not _NOTHING and found is not _IN_PROGRESS and not hasattr(found, _BUILD):
        return found  # type: ignore[return-value]
    with _lock:
        fn = _compile_walk(cls)
        build = getattr(fn, _BUILD, None)
        return fn if build is None else build()


def _pending_walk(cls: type, steps: tuple[tuple[Any, ...], ...]) -> Callable[[Any], None]:
    """A walk whose source is compiled on its first call.

    Most walks are only ever inlined into their parents' (a Deployment's compiles one
    function, not those of its spec, template, pod spec, containers...), and compiling
    them all would double the first Deployment's cost. It carries its steps for inlining;
    :func:`defaulter_for` and its first call build it and put the result in its place.
    """
    built: list[Callable[[Any], None]] = []

    def build() -> Callable[[Any], None]:
        with _lock:
            if not built:
                built.append(_WalkSource(cls, steps).build())
                if _compiled.get(cls) is walk:
                    _compiled[cls] = built[0]
            return built[0]

    def walk(obj: Any) -> None:
        (built[0] if built else build())(obj)

    walk.__qualname__ = f"set_object_defaults[{cls.__module__}.{cls.__qualname__}]"
    setattr(walk, _STEPS, steps)
    setattr(walk, _BUILD, build)
    return walk


def _compile_walk(cls: type) -> Callable[[Any], None] | None:
    if cls in _compiled:
        found = _compiled[cls]
        if found is _IN_PROGRESS:
            # A recursive type: resolve the walk when it runs, once compiling has finished.
            def late(obj: Any, _cls: type = cls) -> None:
                fn = _compiled.get(_cls)
                if fn is not None and fn is not _IN_PROGRESS:
                    fn(obj)
            return late
        return found
    pkg = _package_of(cls)
    if pkg is not None:
        _load_package(pkg)
    defaulters, markers, resource_lists = _defaulters, _markers, _resource_lists
    _compiled[cls] = _IN_PROGRESS
    own = defaulters.get(cls)
    steps: list[tuple[Any, ...]] = []
    if own is not None:
        steps.append(("own", own))
    for f in fields_of(cls):
        marker = markers.get((cls, f.name), _NOTHING)
        if marker is not _NOTHING:
            steps.append(("marker", f.name, marker, f.pointer))
        if f.kind == K_STRUCT:
            run = _compile_walk(f.cls)
            if run is not None:
                steps.append(("struct", f.name, run))
        elif f.kind == K_LIST and f.elem is not None and f.elem.kind == K_STRUCT:
            run = _compile_walk(f.elem.cls)
            if run is not None:
                steps.append(("elements", f.name, run, False))
        elif f.kind == K_MAP and f.elem is not None:
            if f.elem.kind == K_STRUCT:
                run = _compile_walk(f.elem.cls)
                if run is not None:
                    steps.append(("elements", f.name, run, True))
            elif f.elem.kind == K_CUSTOM and (cls, f.name) in resource_lists:
                steps.append(("resource_list", f.name))
    result: Callable[[Any], None] | None
    if len(steps) == (own is not None):
        result = own
    else:
        result = _pending_walk(cls, tuple(steps))
    _compiled[cls] = result
    return result


def _in_progress(obj: Any) -> None:  # pragma: no cover - placeholder identity only
    raise RuntimeError("defaulter used while being compiled")


_IN_PROGRESS = _in_progress


def set_object_defaults(obj: Any) -> None:
    """Apply the defaults of ``obj``'s version to it in place (no scheme needed)."""
    fn = defaulter_for(type(obj))
    if fn is not None:
        fn(obj)


def _lazy_defaulter(cls: type) -> Callable[[Any], None]:
    """The defaulter registered for ``cls``: its walk is compiled on the first object
    defaulted (compiling every kind's walk up front would cost a second or more at scheme
    build time, mostly resolving field tables nothing may ever use)."""
    def default(obj: Any) -> None:
        fn = _compiled.get(cls, _NOTHING)
        if fn is _NOTHING or fn is _IN_PROGRESS:
            fn = defaulter_for(cls)
        if fn is not None:
            fn(obj)  # type: ignore[operator]
    default.__qualname__ = f"set_object_defaults[{cls.__module__}.{cls.__qualname__}]"
    return default


def _registered_external_kinds(scheme: Any) -> list[type]:
    """Classes ``scheme`` holds that come from a built-in external version module
    (``kcodec.api.<package>.<version>``; internal and meta.k8s.io types have no defaults)."""
    out: list[type] = []
    seen: set[type] = set()
    for cls in scheme.all_known_types().values():
        mod = getattr(cls, "__module__", "")
        parts = mod.split(".")
        if len(parts) != 4 or parts[:2] != ["kcodec", "api"] or parts[2] == "meta" or parts[3].startswith("_"):
            continue
        if parts[3] == "internal" or cls in seen:
            continue
        seen.add(cls)
        out.append(cls)
    return out


def install(scheme: Any) -> None:
    """Register defaulting functions, field-label conversions and version priorities.

    A defaulter goes on every kind ``scheme`` already holds from a built-in external
    version (list kinds included), so add the types first; each compiles its walk on
    first use, and a kind with nothing to default then does nothing, as Go registers no
    function for it. Priorities are set for every group of
    :data:`VERSION_PRIORITIES`, whether or not its types are registered yet (Go's
    ``SetVersionPriority`` does not look either), so the call may come before or after
    the types are added.
    """
    install_defaulters(scheme, _registered_external_kinds(scheme))
    install_tables(scheme)


def install_defaulters(scheme: Any, classes: Any) -> None:
    """Register the defaulter of each class of ``classes`` (built-in external kinds)."""
    for cls in classes:
        scheme.add_type_defaulting_func(cls, _lazy_defaulter(cls))


def install_tables(scheme: Any) -> None:
    """Register the field-label conversions and version priorities of every built-in group
    (neither needs the groups' types registered)."""
    from kcodec.api import _fieldlabels

    for gvk, fn in _fieldlabels.field_label_conversions():
        scheme.add_field_label_conversion_func(gvk, fn)
    for group, versions in VERSION_PRIORITIES.items():
        scheme.set_version_priority(*(GroupVersion(group, v) for v in versions))
