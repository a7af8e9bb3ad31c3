"""Kind codes and limits shared by the model and the codec kernels (plain ints for Cython)."""

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
