"""Conversions between apiextensions.k8s.io v1 / v1beta1 and the internal version.

Follows k8s.io/apiextensions-apiserver v0.36.3 ``pkg/apis/apiextensions/{v1,v1beta1}``: the
generated ``zz_generated.conversion.go`` (same-named fields copied, nested structs converted)
and the hand-written ``conversion.go``:

* v1 keeps validation, subresources, printer columns and selectable fields per version only;
  the internal version (as v1beta1) also has them at the top of the spec. Internal -> v1
  copies the top-level ones into every version (and makes ``versions`` from ``version`` when
  there is none); v1 -> internal lifts them to the top when every version has the same value.
* v1's conversion has a ``webhook`` struct where internal has ``webhookClientConfig`` and
  ``conversionReviewVersions`` side by side.
* ``preserveUnknownFields`` is a plain bool in v1 and a pointer internally (nil -> false).
* ``JSON`` values (``default``, ``example``, ``enum``) are JSON text externally and decoded
  values internally; going back they are written with Go's ``json.Marshal`` (map keys sorted).
"""
from __future__ import annotations

from typing import Any

from kcodec.conversion import Scope, generated_conversion
from kcodec.model import Struct, fields_of
from kcodec.runtime import Object
from kcodec.gojson import dumps

from kcodec.api.apiextensions import internal, v1, v1beta1
from kcodec.api.apiextensions._values import new_schema

__all__ = ["add_conversion_funcs"]


# --------------------------------------------------------------------------- JSON values


def _json_to_value(j: Any) -> Any:
    """Convert_v1_JSON_To_apiextensions_JSON: the decoded value (None for null or empty)."""
    if j is None or not j.raw or j.raw == b"null":
        return None
    return j.value()


def _value_to_json(cls: type, value: Any) -> Any:
    """Convert_apiextensions_JSON_To_v1_JSON: json.Marshal of the value (keys sorted)."""
    if value is None:
        return cls()
    if type(value) in (str, bool, int):
        return cls.from_value(value)
    return cls(dumps(value, sort_keys=True))


def _json_fields(json_cls: type) -> tuple[dict[str, Any], dict[str, Any]]:
    """Overrides of JSONSchemaProps.default/example/enum: (to internal, from internal)."""

    def default_in(src: Any, dst: Any, scope: Scope) -> None:
        dst.default = _json_to_value(src.default)

    def example_in(src: Any, dst: Any, scope: Scope) -> None:
        dst.example = _json_to_value(src.example)

    def enum_in(src: Any, dst: Any, scope: Scope) -> None:
        dst.enum = None if src.enum is None else [_json_to_value(e) for e in src.enum]

    # A pointer to a nil value comes back as no value at all (Convert_apiextensions_
    # JSONSchemaProps_To_v1_JSONSchemaProps); Python has no pointer to None, so None is both.
    def default_out(src: Any, dst: Any, scope: Scope) -> None:
        dst.default = None if src.default is None else _value_to_json(json_cls, src.default)

    def example_out(src: Any, dst: Any, scope: Scope) -> None:
        dst.example = None if src.example is None else _value_to_json(json_cls, src.example)

    def enum_out(src: Any, dst: Any, scope: Scope) -> None:
        dst.enum = None if src.enum is None else [_value_to_json(json_cls, e) for e in src.enum]

    return ({"default": default_in, "example": example_in, "enum": enum_in},
            {"default": default_out, "example": example_out, "enum": enum_out})


# --------------------------------------------------------------------------- schema holders


def _convert_schema(src: Any, dst_props: type, scope: Scope) -> Any:
    if src is None:
        return None
    out = new_schema(dst_props)
    scope.convert(src, out)
    return out


def _holders(ext: Any, scheme: Any) -> None:
    """The three schema-or-something values, both ways (their fields pair up by name)."""
    pairs = (
        (ext.JSONSchemaPropsOrBool, internal.JSONSchemaPropsOrBool, ("allows",), "schema", None),
        (ext.JSONSchemaPropsOrArray, internal.JSONSchemaPropsOrArray, (), "schema", "json_schemas"),
        (ext.JSONSchemaPropsOrStringArray, internal.JSONSchemaPropsOrStringArray, ("property",),
         "schema", None),
    )
    for ext_cls, int_cls, plain, one, many in pairs:
        for src_cls, dst_cls, props in ((ext_cls, int_cls, internal.JSONSchemaProps),
                                        (int_cls, ext_cls, ext.JSONSchemaProps)):
            def convert(src: Any, dst: Any, scope: Scope, plain: tuple[str, ...] = plain,
                        one: str = one, many: str | None = many, props: type = props) -> None:
                for name in plain:
                    value = getattr(src, name)
                    setattr(dst, name, list(value) if isinstance(value, list) else value)
                setattr(dst, one, _convert_schema(getattr(src, one), props, scope))
                if many is not None:
                    items = getattr(src, many)
                    setattr(dst, many, None if items is None else
                            [_convert_schema(s, props, scope) for s in items])

            scheme.add_conversion_func(src_cls, dst_cls, convert)


# --------------------------------------------------------------------------- shared parts


def _port_in(src: Any, dst: Any, scope: Scope) -> None:
    # metav1.Convert_Pointer_int32_To_int32
    dst.port = src.port if src.port is not None else 0


def _port_out(src: Any, dst: Any, scope: Scope) -> None:
    # metav1.Convert_int32_To_Pointer_int32
    dst.port = src.port


def _struct_pairs(ext: Any) -> list[tuple[str, type, type]]:
    """(name, external class, internal class) of every struct both modules declare."""
    out = []
    for name in ext.__all__:
        a, b = getattr(ext, name, None), getattr(internal, name, None)
        if (isinstance(a, type) and isinstance(b, type) and issubclass(a, Struct)
                and issubclass(b, Struct)):
            out.append((name, a, b))
    return out


# Generated conversions leave TypeMeta alone (Go's autoConvert_* never copy it): the
# destination keeps its own apiVersion/kind, which convert_to_version then sets.
_KEEP_TYPE_META: dict[str, None] = {"kind": None, "api_version": None}


def _register(scheme: Any, ext: Any, to_internal: dict[str, dict[str, Any]],
              from_internal: dict[str, dict[str, Any]], manual: dict[str, Any]) -> None:
    """Register generated conversions for every struct pair of *ext* <-> internal.

    ``to_internal`` / ``from_internal`` give the overrides of a class; ``manual`` maps
    ``"<name>:in"`` / ``"<name>:out"`` to wrappers ``fn(auto)`` returning the registered
    function (Go's Convert_* calling autoConvert_* and then doing its own work).
    """
    for name, ext_cls, int_cls in _struct_pairs(ext):
        for direction, src, dst, overrides in (("in", ext_cls, int_cls, to_internal),
                                               ("out", int_cls, ext_cls, from_internal)):
            table = dict(overrides.get(name) or {})
            if issubclass(dst, Object):
                table.update(_KEEP_TYPE_META)
            fn: Any = generated_conversion(src, dst, table)
            wrap = manual.get(f"{name}:{direction}")
            if wrap is not None:
                scheme.add_conversion_func(src, dst, wrap(fn))
            else:
                scheme.add_generated_conversion_func(src, dst, fn)
    _holders(ext, scheme)


# --------------------------------------------------------------------------- v1 specifics


def _v1_spec_in(auto: Any) -> Any:
    """Convert_v1_CustomResourceDefinitionSpec_To_apiextensions_CustomResourceDefinitionSpec."""

    def convert(src: Any, dst: Any, scope: Scope) -> None:
        auto(src, dst, scope)
        versions = dst.versions
        if not versions:
            return
        dst.version = versions[0].name
        for name in ("subresources", "schema", "additional_printer_columns", "selectable_fields"):
            first = getattr(versions[0], name)
            if all(_semantic_equal(getattr(v, name), first) for v in versions):
                setattr(dst, "validation" if name == "schema" else name, first)
                for v in versions:
                    setattr(v, name, None)

    return convert


def _semantic_equal(a: Any, b: Any) -> bool:
    """apiequality.Semantic.DeepEqual: as ==, but a nil list or map equals an empty one."""
    if isinstance(a, (list, dict)) or isinstance(b, (list, dict)):
        a = a if a is not None else type(b)()
        b = b if b is not None else type(a)()
        if type(a) is not type(b) or len(a) != len(b):
            return False
        if isinstance(a, dict):
            return all(k in b and _semantic_equal(v, b[k]) for k, v in a.items())
        return all(_semantic_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, Struct) and isinstance(b, Struct):
        return type(a) is type(b) and all(
            _semantic_equal(getattr(a, f.name), getattr(b, f.name)) for f in fields_of(type(a)))
    return bool(a == b)


def _v1_spec_out(auto: Any) -> Any:
    """Convert_apiextensions_CustomResourceDefinitionSpec_To_v1_CustomResourceDefinitionSpec."""

    def convert(src: Any, dst: Any, scope: Scope) -> None:
        auto(src, dst, scope)
        if not dst.versions and src.version:
            dst.versions = [v1.CustomResourceDefinitionVersion(name=src.version, served=True,
                                                               storage=True)]
        shared = (
            ("subresources", src.subresources, v1.CustomResourceSubresources),
            ("schema", src.validation, v1.CustomResourceValidation),
        )
        for name, value, cls in shared:
            if value is not None:
                out = cls._new_zero()
                scope.convert(value, out)
                for i, v in enumerate(dst.versions or ()):
                    setattr(v, name, out if i == 0 else out.deep_copy())
        lists = (
            ("additional_printer_columns", src.additional_printer_columns,
             v1.CustomResourceColumnDefinition),
            ("selectable_fields", src.selectable_fields, v1.SelectableField),
        )
        for name, values, cls in lists:
            if values is not None:
                out_list = []
                for value in values:
                    item = cls._new_zero()
                    scope.convert(value, item)
                    out_list.append(item)
                for i, v in enumerate(dst.versions or ()):
                    setattr(v, name, out_list if i == 0 else [x.deep_copy() for x in out_list])

    return convert


def _v1_conversion_in(auto: Any) -> Any:
    """Convert_v1_CustomResourceConversion_To_apiextensions_CustomResourceConversion."""

    def convert(src: Any, dst: Any, scope: Scope) -> None:
        auto(src, dst, scope)
        dst.webhook_client_config = None
        dst.conversion_review_versions = None
        hook = src.webhook
        if hook is not None:
            dst.conversion_review_versions = hook.conversion_review_versions
            if hook.client_config is not None:
                dst.webhook_client_config = internal.WebhookClientConfig._new_zero()
                scope.convert(hook.client_config, dst.webhook_client_config)

    return convert


def _v1_conversion_out(auto: Any) -> Any:
    """Convert_apiextensions_CustomResourceConversion_To_v1_CustomResourceConversion."""

    def convert(src: Any, dst: Any, scope: Scope) -> None:
        auto(src, dst, scope)
        dst.webhook = None
        if src.webhook_client_config is not None or src.conversion_review_versions is not None:
            dst.webhook = v1.WebhookConversion._new_zero()
            dst.webhook.conversion_review_versions = src.conversion_review_versions
            if src.webhook_client_config is not None:
                dst.webhook.client_config = v1.WebhookClientConfig._new_zero()
                scope.convert(src.webhook_client_config, dst.webhook.client_config)

    return convert


def _preserve_in(src: Any, dst: Any, scope: Scope) -> None:
    # metav1.Convert_bool_To_Pointer_bool: always set
    dst.preserve_unknown_fields = bool(src.preserve_unknown_fields)


def _preserve_out(src: Any, dst: Any, scope: Scope) -> None:
    # metav1.Convert_Pointer_bool_To_bool: nil is false
    dst.preserve_unknown_fields = bool(src.preserve_unknown_fields)


def _only_auto(fields: tuple[str, ...]) -> dict[str, None]:
    return {f: None for f in fields}


def add_conversion_funcs(scheme: Any) -> None:
    """Register v1 <-> internal and v1beta1 <-> internal conversions with *scheme*.

    The scheme must know the three versions' kinds (``add_to_scheme`` of each module).
    """
    for ext in (v1, v1beta1):
        json_in, json_out = _json_fields(ext.JSON)
        to_internal: dict[str, dict[str, Any]] = {
            "JSONSchemaProps": json_in,
            "ServiceReference": {"port": _port_in},
        }
        from_internal: dict[str, dict[str, Any]] = {
            "JSONSchemaProps": json_out,
            "ServiceReference": {"port": _port_out},
        }
        manual: dict[str, Any] = {}
        if ext is v1:
            to_internal["CustomResourceDefinitionSpec"] = {"preserve_unknown_fields": _preserve_in}
            from_internal["CustomResourceDefinitionSpec"] = {"preserve_unknown_fields": _preserve_out}
            manual = {
                "CustomResourceDefinitionSpec:in": _v1_spec_in,
                "CustomResourceDefinitionSpec:out": _v1_spec_out,
                "CustomResourceConversion:in": _v1_conversion_in,
                "CustomResourceConversion:out": _v1_conversion_out,
            }
        _register(scheme, ext, to_internal, from_internal, manual)

