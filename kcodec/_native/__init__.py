"""Pure-Python kernels: the twins of the Cython kernels in ``kcodec._speedups``.

Each name in ``__all__`` exists in both packages with the same signature and behaviour;
:mod:`kcodec.speedups` binds one set or the other. The twins pair file to file: the
kernels of ``kcodec/_speedups/_X.pyx`` are those of ``kcodec/_native/X.py``, as
tests/speedups/test_parity.py checks, signatures included.

A name is imported from its file on first use: in compiled mode a compiled kernel falls
back on its twin only for what it leaves to it (an error text, a rare shape), and that
loads the one file it needs, not the whole set.
"""
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kcodec._native.cbor import (
        cbor_encode,
        cbor_encode_tree,
        cbor_fill,
        cbor_item_end,
        cbor_loads,
        cbor_type_meta,
    )
    from kcodec._native.codec import (
        copy_plain_tree,
        expand_raw_tree,
        fill_from_proto,
        fill_from_tree,
        struct_to_proto,
        struct_to_tree,
    )
    from kcodec._native.convert import bind_conversion, convert_fields, deep_copy, new_zero
    from kcodec._native.smd import (
        bind_fieldpath,
        smd_compare,
        smd_ensure_named_fields,
        smd_equals,
        smd_list_item_pe,
        smd_merge,
        smd_remove,
        smd_set_difference,
        smd_set_empty,
        smd_set_from_tree,
        smd_set_intersection,
        smd_set_recursive_difference,
        smd_set_tree,
        smd_to_field_set,
        smd_validate,
    )
    from kcodec._native.json import json_container_scan, json_encode, json_fill, json_fill_vouched
    from kcodec._native.wire import (
        decode_signed_varint,
        decode_varint,
        encode_varint,
        envelope_decode,
        envelope_encode,
        envelope_span,
        interpret_gvk,
        iter_fields,
        marshal_unknown,
        unmarshal_unknown,
    )
    from kcodec._native.yaml import yaml_block_tree, yaml_encode_tree

__all__ = [
    "fill_from_proto",
    "fill_from_tree",
    "struct_to_proto",
    "struct_to_tree",
    "expand_raw_tree",
    "copy_plain_tree",
    "decode_signed_varint",
    "decode_varint",
    "encode_varint",
    "envelope_decode",
    "envelope_encode",
    "envelope_span",
    "interpret_gvk",
    "json_container_scan",
    "json_encode",
    "json_fill",
    "json_fill_vouched",
    "iter_fields",
    "marshal_unknown",
    "unmarshal_unknown",
    "convert_fields",
    "deep_copy",
    "yaml_block_tree",
    "yaml_encode_tree",
    "new_zero",
    "cbor_encode",
    "cbor_encode_tree",
    "cbor_fill",
    "cbor_item_end",
    "cbor_loads",
    "cbor_type_meta",
    "smd_validate",
    "smd_to_field_set",
    "smd_merge",
    "smd_list_item_pe",
    "smd_set_tree",
    "smd_set_from_tree",
    "smd_ensure_named_fields",
    "smd_set_empty",
    "smd_set_difference",
    "smd_set_recursive_difference",
    "smd_set_intersection",
    "smd_equals",
    "smd_compare",
    "smd_remove",
]

#: The file of each kernel (and of bind_conversion and bind_fieldpath, which the conversion
#: and structured-merge-diff twins take).
_FILE = {
    **dict.fromkeys(("cbor_encode", "cbor_encode_tree", "cbor_fill", "cbor_item_end", "cbor_loads",
                     "cbor_type_meta"), "cbor"),
    **dict.fromkeys(("copy_plain_tree", "expand_raw_tree", "fill_from_proto", "fill_from_tree",
                     "struct_to_proto", "struct_to_tree"), "codec"),
    **dict.fromkeys(("bind_conversion", "convert_fields", "deep_copy", "new_zero"), "convert"),
    **dict.fromkeys(("json_container_scan", "json_encode", "json_fill", "json_fill_vouched"), "json"),
    **dict.fromkeys(("decode_signed_varint", "decode_varint", "encode_varint", "envelope_decode",
                     "envelope_encode", "envelope_span", "interpret_gvk", "iter_fields",
                     "marshal_unknown", "unmarshal_unknown"), "wire"),
    **dict.fromkeys(("yaml_block_tree", "yaml_encode_tree"), "yaml"),
    **dict.fromkeys(("bind_fieldpath", "smd_validate", "smd_to_field_set", "smd_merge", "smd_list_item_pe",
                     "smd_set_tree", "smd_set_from_tree", "smd_ensure_named_fields", "smd_set_empty",
                     "smd_set_difference", "smd_set_recursive_difference", "smd_set_intersection",
                     "smd_equals", "smd_compare", "smd_remove"), "smd"),
}


def __getattr__(name: str) -> Any:
    file = _FILE.get(name)
    if file is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{file}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_FILE))
