"""Codes and limits shared by the field tables, the kernels and the layers above them.

Plain ints so the Cython kernels can switch on them; the layers above import them from
here, so a kernel never reaches up for a constant.
"""

# Kind codes of the field tables. Plain ints so the Cython kernels can switch on them.
K_STR = 1
K_BOOL = 2
K_INT32 = 3
K_INT64 = 4
K_FLOAT = 5
K_BYTES = 6
K_STRUCT = 7
K_CUSTOM = 8
K_LIST = 9
K_MAP = 10
K_ANY = 11

# Protobuf wire types.
WT_VARINT = 0
WT_FIXED64 = 1
WT_BYTES = 2

_GO_NAMES = {
    K_STR: "string",
    K_BOOL: "bool",
    K_INT32: "int32",
    K_INT64: "int64",
    K_FLOAT: "float64",
    K_BYTES: "[]uint8",
    K_ANY: "interface {}",
}

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1

# Actions of a conversion plan row (kcodec.conversion.PlanRow, run by convert_fields).
PLAN_SHARE = 0      # dst.f = src.f (scalars, same-class values: Go shares identical layouts)
PLAN_CONVERT = 1    # a struct (or list/map of structs) of another class: fresh dst values
PLAN_OVERRIDE = 2   # overrides[f](src, dst, scope), or leave dst.f alone when it is None

#: How many nested ``scope.convert`` calls one conversion may make (struct nesting depth).
#: Real API objects nest a few tens of levels; pure-Python conversion functions use a handful
#: of interpreter frames per level, so this stays well inside Python's recursion limit.
MAX_CONVERSION_DEPTH = 100

#: Deepest nesting ``deep_copy`` follows, in both kernel sets (structs and untyped lists/maps, counted together).
#: Far beyond anything a decoder accepts (JSON/YAML stop at 10000): only a cyclic or absurd
#: structure built in Python gets there, and it raises instead of allocating forever.
MAX_COPY_DEPTH = 100_000

#: Lists/maps nested inside one converted field value (ill-typed data only: a declared
#: ``list[Struct]`` field holds one level).
MAX_VALUE_NESTING = 32

#: How deeply the encoders nest structs (JSON, YAML, protobuf and the JSON tree of a typed
#: object; CBOR keeps fxamacker's nested-level count, also 10000). The compiled encoders
#: recurse in C, where a deep chain would overflow the thread's stack long before Python's
#: recursion limit (raised by an application) stops it, so the bound is fixed here instead.
#: Go's encoders have none: goroutine stacks grow to 1 GB. 10000 matches encoding/json's
#: maxNestingDepth on the decoding side (scanner.go); the compiled writers use under
#: 0.7 KB of C stack per level, so 10000 levels fit a default 8 MiB thread stack.
MAX_ENCODE_DEPTH = 10000


def encode_depth_message(prefix: str) -> str:
    """The text of the EncodeError an encoder raises past :data:`MAX_ENCODE_DEPTH`
    (``prefix``: ``json``, ``proto``)."""
    return f"{prefix}: exceeded max nesting depth {MAX_ENCODE_DEPTH} while encoding"
