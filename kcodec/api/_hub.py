"""Wiring every external version of a built-in group to its internal (hub) version.

kube-apiserver converts each served version to the internal one and back with functions
conversion-gen writes (``zz_generated.conversion.go``: a field-by-field copy wherever the
two types line up) plus the hand-written ones of ``pkg/apis/<group>/<version>/conversion.go``.
:func:`register_version` is kcodec's side of the generated part: every struct class of an
external module is paired by name with the internal class and gets a plan-backed
:func:`kcodec.conversion.generated_conversion` in each direction; ``overrides`` name the
destination fields that a hand-written function fills instead. Hand-written functions are
registered afterwards with ``scheme.add_conversion_func`` and take precedence, as in Go.
"""
from __future__ import annotations

import importlib
import pkgutil
import re
from types import ModuleType
from typing import Any, Callable, Mapping

from kcodec.conversion import GeneratedConversion, Scope, generated_conversion
from kcodec.errors import ConversionError
from kcodec.model import Struct

__all__ = ["external_versions", "struct_classes", "hub_classes", "register_version", "Pair", "copy_map",
           "auto", "register_package"]

#: A Kubernetes API version name (kcodec.api's own rule for external version modules).
_VERSION = re.compile(r"v[0-9]+(?:(?:alpha|beta)[0-9]+)?")

Override = Callable[[Any, Any, Scope], None]
Overrides = Mapping[str, Mapping[str, Override | None]]


def external_versions(package: str) -> list[ModuleType]:
    """The external version modules of ``kcodec.api.<package>`` (``v1``, ``v1beta1``...);
    other modules of the package (``internal``, ``validation``, private ``_*``) are not."""
    pkg = importlib.import_module(f"kcodec.api.{package}")
    out = []
    for mod in pkgutil.iter_modules(pkg.__path__, pkg.__name__ + "."):
        leaf = mod.name.rsplit(".", 1)[1]
        if not mod.ispkg and _VERSION.fullmatch(leaf):
            out.append(importlib.import_module(mod.name))
    return out


def struct_classes(module: ModuleType) -> dict[str, type]:
    """``{name: class}`` of the Struct classes a generated module defines."""
    return {
        name: obj for name, obj in vars(module).items()
        if isinstance(obj, type) and issubclass(obj, Struct) and obj.__module__ == module.__name__
    }


def hub_classes(module: ModuleType) -> dict[str, type]:
    """``{name: class}`` of the Struct classes an internal module exports: its own, and the
    preferred version's classes it binds where the two layouts are identical (the generator's
    ``_shared_with_preferred``)."""
    names = getattr(module, "__all__", None)
    if names is None:
        return struct_classes(module)
    return {
        name: obj for name in names
        if isinstance(obj := getattr(module, name), type) and issubclass(obj, Struct)
    }


class Pair:
    """The generated functions of one external module: ``to_internal[name]`` and
    ``to_external[name]`` (each a :class:`GeneratedConversion`)."""

    __slots__ = ("to_internal", "to_external")

    def __init__(self) -> None:
        self.to_internal: dict[str, GeneratedConversion] = {}
        self.to_external: dict[str, GeneratedConversion] = {}


def register_version(
    scheme: Any,
    external: ModuleType,
    internals: list[ModuleType],
    *,
    to_internal: Overrides | None = None,
    to_external: Overrides | None = None,
    skip: tuple[str, ...] = (),
) -> Pair:
    """Register generated conversions between ``external`` and the internal modules.

    Each struct class of ``external`` is paired with the first class of the same name in
    ``internals``; classes with no partner (and names in ``skip``) get nothing.
    ``to_internal``/``to_external`` map a class name to the overrides of its plan.
    """
    pair = Pair()
    tables = [hub_classes(m) for m in internals]
    for name, ext in struct_classes(external).items():
        if name in skip:
            continue
        hub = next((t[name] for t in tables if name in t), None)
        if hub is None:
            continue
        if hub is ext:
            # The internal version binds this class (identical layout): conversion shares
            # its values, so a hand-written override would never run.
            for table in (to_internal, to_external):
                if table and name in table:
                    raise ConversionError(
                        f"{external.__name__}.{name} is shared with the internal version, so its "
                        "hand-written conversion would be skipped: list it in "
                        "INTERNAL_HAND_CONVERTED (tools/gen_api.py) and regenerate")
        over_in = {**_pointer_overrides(ext, hub), **(to_internal or {}).get(name, {})}
        over_out = {**_pointer_overrides(hub, ext), **(to_external or {}).get(name, {})}
        fin = generated_conversion(ext, hub, over_in)
        fout = generated_conversion(hub, ext, over_out)
        scheme.add_generated_conversion_func(ext, hub, fin)
        scheme.add_generated_conversion_func(hub, ext, fout)
        pair.to_internal[name] = fin
        pair.to_external[name] = fout
    return pair


_ZEROS = {"str": "", "bool": False, "Int32": 0, "Int64": 0, "int": 0, "float": 0.0}


def _pointer_overrides(src: type, dst: type) -> dict[str, Override]:
    """Overrides for fields that are pointers in ``src`` and values in ``dst`` (conversion-gen's
    ``Convert_Pointer_X_To_X``: nil becomes the zero value). Read from the annotation text, so
    no field table is compiled at registration."""
    out: dict[str, Override] = {}
    dst_ann = getattr(dst, "__annotations__", {})
    for name, ann in getattr(src, "__annotations__", {}).items():
        target = dst_ann.get(name)
        if not isinstance(ann, str) or not isinstance(target, str) or ann != target + " | None":
            continue
        if target in _ZEROS:
            out[name] = _scalar_from_pointer(name, _ZEROS[target])
        elif not target.startswith(("list[", "dict[", "bytes", "Any")):
            out[name] = _struct_from_pointer(name)
    return out


def _scalar_from_pointer(name: str, zero: Any) -> Override:
    def convert(src: Any, dst: Any, scope: Scope) -> None:
        v = getattr(src, name)
        setattr(dst, name, zero if v is None else v)

    convert.__qualname__ = f"pointer_to_value[{name}]"
    return convert


def _struct_from_pointer(name: str) -> Override:
    def convert(src: Any, dst: Any, scope: Scope) -> None:
        from kcodec.model import fields_of

        cls = next(f.cls for f in fields_of(type(dst)) if f.name == name)
        out = cls()
        v = getattr(src, name)
        if v is not None:
            if type(v) is cls:
                out = v
            else:
                scope.convert(v, out)
        setattr(dst, name, out)

    convert.__qualname__ = f"pointer_to_value[{name}]"
    return convert


def register_package(scheme: Any, package: str, internals: list[ModuleType] | None = None,
                     **per_version: dict[str, Overrides]) -> dict[str, Pair]:
    """:func:`register_version` for every external version of ``kcodec.api.<package>``.

    ``per_version`` maps a version name (``v1beta1``) to ``{"to_internal": ..., "to_external":
    ..., "skip": ...}``. Returns ``{version: Pair}``.
    """
    if internals is None:
        internals = [importlib.import_module(f"kcodec.api.{package}.internal")]
    out = {}
    for mod in external_versions(package):
        version = mod.__name__.rsplit(".", 1)[1]
        out[version] = register_version(scheme, mod, internals, **per_version.get(version, {}))
    return out


def auto(fn: GeneratedConversion, src: Any, dst: Any, scope: Scope) -> None:
    """Run a generated conversion from a hand-written one (Go's ``autoConvert_A_To_B``)."""
    fn(src, dst, scope)


def copy_map(m: dict[str, str] | None) -> dict[str, str] | None:
    """A copy of a string map about to be modified (generated conversions share maps)."""
    return None if m is None else dict(m)
