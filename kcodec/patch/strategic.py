"""Strategic merge patch with the semantics of k8s.io/apimachinery pkg/util/strategicpatch
(patch.go, meta.go; errors from pkg/util/mergepatch/errors.go), on JSON trees.

The schema is a kcodec model class: its field tables carry the Go struct tags
``patchStrategy`` and ``patchMergeKey`` (recorded by tools/gen_api.py, read through
:class:`kcodec.fieldtable.FieldInfo`), which is what Go's ``PatchMetaFromStruct`` reads by
reflection, including its lookups' quirks (a JSON name matched case-insensitively when no field
has it exactly; errors naming the Go kind). Trees are what Go's code sees: the live object as
``runtime.DefaultUnstructuredConverter.ToUnstructured`` gives it (``kcodec.model.to_tree``) and
the patch as ``kjson.UnmarshalCaseSensitivePreserveInts`` reads it (``gojson.loads``): ints are
int64 and other numbers float64, and Go compares them by type and value (``1`` is not ``1.0``).

Go ranges over maps in random order; this port goes in the tree's order. Where Go's result
would depend on that order (never for a patch kubectl writes), results may differ from one Go
run to another too. Sorting follows Go's algorithms where the comparison is not a strict order
(``sort.SliceStable``'s insertion sort and symMerge; the insertion sort of ``sort.Sort`` for
up to 12 items), since the result then depends on the algorithm.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

from kcodec import goyaml
from kcodec._kinds import (
    K_ANY, K_BOOL, K_BYTES, K_CUSTOM, K_FLOAT, K_INT32, K_INT64, K_LIST, K_MAP, K_STR, K_STRUCT,
)
from kcodec.fieldtable import StructMeta, fields_of, go_type_name
from kcodec.gofmt import format_g, quote
from kcodec.patch._tree import deep_copy
from kcodec.patch.errors import (
    ERR_BAD_JSON_DOC, ERR_BAD_PATCH_FORMAT_FOR_PRIMITIVE_LIST, ERR_BAD_PATCH_FORMAT_FOR_RETAIN_KEYS,
    ERR_BAD_PATCH_FORMAT_FOR_SET_ELEMENT_ORDER_LIST, ERR_NO_LIST_OF_LISTS,
    ERR_UNSUPPORTED_STRATEGIC_MERGE_PATCH_FORMAT, MergeConflictError, PreconditionFailedError,
    StrategicMergePatchError,
)

__all__ = [
    "strategic_merge_patch",
    "create_two_way_merge_patch",
    "create_three_way_merge_patch",
    "merging_maps_have_conflicts",
    "supports_strategic_merge_patch",
    "PatchMeta",
    "PatchSchema",
    "require_key_unchanged",
    "require_metadata_key_unchanged",
]

_DIRECTIVE = "$patch"
_DELETE = "delete"
_REPLACE = "replace"
_MERGE = "merge"
_RETAIN_KEYS_STRATEGY = "retainKeys"
_DELETE_FROM_PRIMITIVE_LIST = "$deleteFromPrimitiveList"
_RETAIN_KEYS = "$retainKeys"
_SET_ELEMENT_ORDER = "$setElementOrder"

PreconditionFunc = Callable[[Any], bool]


def _fail(err: StrategicMergePatchError) -> StrategicMergePatchError:
    """A mergepatch sentinel, ready to raise (without the traceback of its last raise)."""
    return err.with_traceback(None)


def _error(msg: str) -> StrategicMergePatchError:
    # Errors interpretStrategicMergePatchError does not name reach the client as they are:
    # kube-apiserver answers them with a 500 and reason "".
    return StrategicMergePatchError(msg)


# ----------------------------------------------------------------------- Go's printing

def _go_type(v: Any) -> str:
    """reflect.TypeOf(v).String() of a value encoding/json put in an interface{}."""
    if v is None:
        return "nil"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int64"
    if isinstance(v, float):
        return "float64"
    if isinstance(v, str):
        return "string"
    if isinstance(v, dict):
        return "map[string]interface {}"
    if isinstance(v, list):
        return "[]interface {}"
    return type(v).__name__


def _go_kind(v: Any) -> str:
    t = _go_type(v)
    return {"map[string]interface {}": "map", "[]interface {}": "slice"}.get(t, t)


def _v(x: Any) -> str:
    """fmt's %v."""
    if x is None:
        return "<nil>"
    if x is True:
        return "true"
    if x is False:
        return "false"
    if isinstance(x, int):
        return str(x)
    if isinstance(x, float):
        return format_g(x)
    if isinstance(x, str):
        return x
    if isinstance(x, dict):
        return "map[" + " ".join(f"{k}:{_v(x[k])}" for k in sorted(x)) + "]"
    if isinstance(x, list):
        return "[" + " ".join(_v(e) for e in x) + "]"
    return str(x)


def _s(x: Any) -> str:
    """fmt's %s (a non-string prints as %!s(type=value))."""
    if isinstance(x, str):
        return x
    if x is None:
        return "%!s(<nil>)"
    return f"%!s({_go_type(x)}={_v(x)})"


def _type_str(x: Any) -> str:
    """%s of reflect.TypeOf(x) (a nil interface has no type)."""
    return "%!s(<nil>)" if x is None else _go_type(x)


def _bad_arg_type(expected: str, actual: Any) -> StrategicMergePatchError:
    """mergepatch.ErrBadArgType; ``expected`` is the Go type asked for."""
    return _error(f"expected a {expected}, but received a {_type_str(actual)}")


_MAP_T = "map[string]interface {}"
_SLICE_T = "[]interface {}"


def _no_merge_key(m: Any, key: str) -> StrategicMergePatchError:
    return _error(f"map: {_v(m)} does not contain declared merge key: {key}")


def _bad_patch_type(t: Any, m: Any) -> StrategicMergePatchError:
    return _error(f"unknown patch type: {_s(t)} in map: {_v(m)}")


def _go_eq(a: Any, b: Any) -> bool:
    """Go's == on two interface{} values (same dynamic type and value)."""
    ta, tb = _go_type(a), _go_type(b)
    if ta != tb:
        return False
    if ta in (_MAP_T, _SLICE_T):
        raise _error(f"runtime error: comparing uncomparable type {ta}")
    return a == b


def _deep_equal(a: Any, b: Any) -> bool:
    """reflect.DeepEqual on JSON trees (types matter: int64 1 is not float64 1)."""
    if _go_type(a) != _go_type(b):
        return False
    if isinstance(a, dict):
        return len(a) == len(b) and all(k in b and _deep_equal(v, b[k]) for k, v in a.items())
    if isinstance(a, list):
        return len(a) == len(b) and all(_deep_equal(x, y) for x, y in zip(a, b))
    return a == b


def _hashable(v: Any) -> Any:
    """A dict key standing for Go's interface{} map key ``v`` (type and value)."""
    t = _go_type(v)
    if t in (_MAP_T, _SLICE_T):
        raise _error(f"runtime error: hash of unhashable type {t}")
    return (t, v)


# ----------------------------------------------------------------------- Go's sorting

def _insertion_sort(data: list[Any], less: Callable[[int, int], bool], a: int, b: int) -> None:
    for i in range(a + 1, b):
        j = i
        while j > a and less(j, j - 1):
            data[j], data[j - 1] = data[j - 1], data[j]
            j -= 1


def _swap_range(data: list[Any], a: int, b: int, n: int) -> None:
    for i in range(n):
        data[a + i], data[b + i] = data[b + i], data[a + i]


def _rotate(data: list[Any], a: int, m: int, b: int) -> None:
    i = m - a
    j = b - m
    while i != j:
        if i > j:
            _swap_range(data, m - i, m, j)
            i -= j
        else:
            _swap_range(data, m - i, m + j - i, i)
            j -= i
    _swap_range(data, m - i, m, i)


def _sym_merge(data: list[Any], less: Callable[[int, int], bool], a: int, m: int, b: int) -> None:
    if m - a == 1:
        i, j = m, b
        while i < j:
            h = (i + j) >> 1
            if less(h, a):
                i = h + 1
            else:
                j = h
        for k in range(a, i - 1):
            data[k], data[k + 1] = data[k + 1], data[k]
        return
    if b - m == 1:
        i, j = a, m
        while i < j:
            h = (i + j) >> 1
            if not less(m, h):
                i = h + 1
            else:
                j = h
        for k in range(m, i, -1):
            data[k], data[k - 1] = data[k - 1], data[k]
        return
    mid = (a + b) >> 1
    n = mid + m
    if m > mid:
        start, r = n - b, mid
    else:
        start, r = a, m
    p = n - 1
    while start < r:
        c = (start + r) >> 1
        if not less(p - c, c):
            start = c + 1
        else:
            r = c
    end = n - start
    if start < m < end:
        _rotate(data, start, m, end)
    if a < start < mid:
        _sym_merge(data, less, a, start, mid)
    if mid < end < b:
        _sym_merge(data, less, mid, end, b)


def _slice_stable(data: list[Any], less_items: Callable[[Any, Any], bool]) -> None:
    """sort.SliceStable (Go's stable insertion-sort-and-symMerge, step for step)."""
    def less(i: int, j: int) -> bool:
        return less_items(data[i], data[j])

    n = len(data)
    block = 20
    a, b = 0, block
    while b <= n:
        _insertion_sort(data, less, a, b)
        a = b
        b += block
    _insertion_sort(data, less, a, n)
    while block < n:
        a, b = 0, 2 * block
        while b <= n:
            _sym_merge(data, less, a, a + block, b)
            a = b
            b += 2 * block
        m = a + block
        if m < n:
            _sym_merge(data, less, a, m, n)
        block *= 2


def _sort_by_string(data: list[Any], key: Callable[[Any], str]) -> list[Any]:
    """sort.Sort with Less = StringsAreSorted([a, b]) (a <= b): for up to 12 items Go's
    pdqsort is an insertion sort, which moves equal items past each other."""
    if len(data) <= 12:
        keys = [key(x) for x in data]
        pairs = list(zip(keys, data))

        def less(i: int, j: int) -> bool:
            return pairs[i][0] <= pairs[j][0]

        _insertion_sort(pairs, less, 0, len(pairs))
        data[:] = [x for _, x in pairs]
        return data
    data.sort(key=key)
    return data


def _sort_scalars(s: list[Any]) -> list[Any]:
    return _sort_by_string(s, _v)


def _dedup_scalars(s: list[Any]) -> list[Any]:
    """deduplicateScalars, with its order (a duplicate's place takes the last item)."""
    s = list(s)
    length = len(s) - 1
    i = 0
    while i < length:
        j = i + 1
        while j <= length:
            if _go_eq(s[i], s[j]):
                s[j] = s[length]
                s = s[:length]
                length -= 1
                j -= 1
            j += 1
        i += 1
    return s


# ----------------------------------------------------------------------- schema (meta.go)

class PatchMeta:
    """strategicpatch.PatchMeta: the patch strategies and merge key of one field."""

    __slots__ = ("strategies", "merge_key")

    def __init__(self, strategies: Sequence[str] = (), merge_key: str = "") -> None:
        self.strategies = list(strategies)
        self.merge_key = merge_key

    def __repr__(self) -> str:
        return f"PatchMeta(strategies={self.strategies!r}, merge_key={self.merge_key!r})"


_KIND_NAMES = {K_STR: "string", K_BOOL: "bool", K_INT32: "int32", K_INT64: "int64",
               K_FLOAT: "float64", K_BYTES: "slice", K_LIST: "slice", K_MAP: "map",
               K_ANY: "interface", K_STRUCT: "struct", K_CUSTOM: "struct"}


class PatchSchema:
    """strategicpatch.PatchMetaFromStruct over a kcodec type: ``kind`` is Go's reflect kind
    name (``"struct"``, ``"ptr"``, ``"slice"``, ``"map"``...), ``cls`` the struct class."""

    __slots__ = ("kind", "cls", "elem", "pointer")

    def __init__(self, kind: int, cls: Any = None, elem: Any = None, pointer: bool = False) -> None:
        self.kind = kind
        self.cls = cls
        self.elem = elem
        self.pointer = pointer

    @classmethod
    def of_class(cls, model: Any) -> "PatchSchema":
        """The schema of a model class (``NewPatchMetaFromStruct``)."""
        if not isinstance(model, StructMeta):
            raise _fail(ERR_UNSUPPORTED_STRATEGIC_MERGE_PATCH_FORMAT)
        return cls(K_STRUCT, model)

    @classmethod
    def _of_type(cls, t: Any) -> "PatchSchema":
        return cls(t.kind, t.cls, t.elem, bool(getattr(t, "pointer", False)))

    def name(self) -> str:
        """Name(): the reflect kind of the type."""
        return "ptr" if self.pointer else _KIND_NAMES.get(self.kind, "struct")

    def _struct_name(self) -> str:
        if self.cls is None:
            return ""
        return go_type_name(self.cls).rpartition(".")[2]

    def lookup_struct(self, key: str) -> tuple["PatchSchema", PatchMeta]:
        """LookupPatchMetadataForStruct (third_party/forked/golang/json/fields.go)."""
        if self.kind not in (K_STRUCT, K_CUSTOM):
            raise _error("merging an object in json but data type is not struct, instead is: "
                         + _KIND_NAMES.get(self.kind, "struct"))
        chain = None
        if self.kind == K_STRUCT:
            fields_of(self.cls)
            table = self.cls.__kc_json__
            chain = table.get(key)
            if chain is None:
                folded = key.lower()
                for name, c in table.items():
                    if name.lower() == folded:
                        chain = c
                        break
        if chain is None:
            raise _error(f"unable to find api field in struct {self._struct_name()} "
                         f"for the json field {quote(key)}")
        f = chain[-1]
        ps = f.patch_strategy
        return PatchSchema._of_type(f), PatchMeta(ps.split(","), f.patch_merge_key)

    def lookup_slice(self, key: str) -> tuple["PatchSchema", PatchMeta]:
        """LookupPatchMetadataForSlice."""
        sub, meta = self.lookup_struct(key)
        if sub.kind in (K_LIST, K_BYTES) and not sub.pointer:
            if sub.kind == K_BYTES:
                return PatchSchema(K_INT32), meta  # uint8: a scalar kind either way
            elem = sub.elem
            if elem.kind in (K_LIST, K_BYTES):
                raise _error("unexpected slice of slice")
            return PatchSchema._of_type(elem), meta
        if sub.pointer:
            return PatchSchema(sub.kind, sub.cls, sub.elem), meta
        raise _error(f"expected slice or array type, but got: {self.name()}")

    def __repr__(self) -> str:
        return f"PatchSchema({self.name()}, {self._struct_name() or '-'})"


def supports_strategic_merge_patch(cls: Any) -> bool:
    """Whether kube-apiserver takes ``application/strategic-merge-patch+json`` for objects of
    ``cls``: built-in kinds (kcodec model classes) yes; custom resources (Unstructured) no,
    their handler does not list the type (apiextensions-apiserver customresource_handler.go),
    so the request gets a 415."""
    return isinstance(cls, StructMeta)


def _extract_retain_keys(strategies: list[str]) -> tuple[bool, str]:
    n = len(strategies)
    if n == 0:
        return False, ""
    if n == 1:
        if strategies[0] == _RETAIN_KEYS_STRATEGY:
            return True, ""
        return False, strategies[0]
    if n == 2:
        if strategies[0] == _RETAIN_KEYS_STRATEGY:
            return True, strategies[1]
        if strategies[1] == _RETAIN_KEYS_STRATEGY:
            return True, strategies[0]
    raise _error(f"unexpected patch strategy: [{' '.join(strategies)}]")


# ----------------------------------------------------------------------- diff (create patches)

class DiffOptions:
    __slots__ = ("set_element_order", "ignore_changes_and_additions", "ignore_deletions",
                 "build_retain_keys_directive")

    def __init__(self, set_element_order: bool = False, ignore_changes_and_additions: bool = False,
                 ignore_deletions: bool = False, build_retain_keys_directive: bool = False) -> None:
        self.set_element_order = set_element_order
        self.ignore_changes_and_additions = ignore_changes_and_additions
        self.ignore_deletions = ignore_deletions
        self.build_retain_keys_directive = build_retain_keys_directive

    def with_retain(self, retain: bool) -> "DiffOptions":
        return DiffOptions(self.set_element_order, self.ignore_changes_and_additions,
                           self.ignore_deletions, retain)


def _diff_maps(original: dict[str, Any], modified: dict[str, Any], schema: PatchSchema,
               opts: DiffOptions) -> dict[str, Any]:
    patch: dict[str, Any] = {}
    retain_keys: list[Any] = []
    for key, mv in modified.items():
        if opts.build_retain_keys_directive and mv is not None:
            retain_keys.append(key)
        if key not in original:
            if not opts.ignore_changes_and_additions:
                patch[key] = mv
            continue
        ov = original[key]
        if key == _DIRECTIVE:
            if not isinstance(ov, str) or not isinstance(mv, str):
                raise _error(f"invalid value for special key: {_DIRECTIVE}")
            if mv != ov:
                patch[_DIRECTIVE] = mv
            continue
        if _go_type(ov) != _go_type(mv):
            if not opts.ignore_changes_and_additions:
                patch[key] = mv
            continue
        if isinstance(ov, dict):
            _handle_map_diff(key, ov, mv, patch, schema, opts)
        elif isinstance(ov, list):
            _handle_slice_diff(key, ov, mv, patch, schema, opts)
        else:
            _replace_if_not_equal(key, ov, mv, patch, opts)
    if not opts.ignore_deletions:
        for key in original:
            if key not in modified:
                patch[key] = None
    if retain_keys and (patch or any(v is not None and k not in modified for k, v in original.items())):
        patch[_RETAIN_KEYS] = _sort_scalars(retain_keys)
    return patch


def _handle_map_diff(key: str, ov: dict[str, Any], mv: dict[str, Any], patch: dict[str, Any],
                     schema: PatchSchema, opts: DiffOptions) -> None:
    try:
        sub, meta = schema.lookup_struct(key)
    except StrategicMergePatchError:
        if _deep_equal(ov, mv):
            return
        raise
    retain, strategy = _extract_retain_keys(meta.strategies)
    opts = opts.with_retain(retain)
    if strategy == _REPLACE:
        if not opts.ignore_changes_and_additions:
            patch[key] = mv
        return
    pv = _diff_maps(ov, mv, sub, opts)
    if pv:
        patch[key] = pv


def _handle_slice_diff(key: str, ov: list[Any], mv: list[Any], patch: dict[str, Any],
                       schema: PatchSchema, opts: DiffOptions) -> None:
    try:
        sub, meta = schema.lookup_slice(key)
    except StrategicMergePatchError:
        if _deep_equal(ov, mv):
            return
        raise
    retain, strategy = _extract_retain_keys(meta.strategies)
    if strategy == _MERGE:
        opts = opts.with_retain(retain)
        add, delete, order = _diff_lists(ov, mv, sub, meta.merge_key, opts)
        if add:
            patch[key] = add
        if delete:
            patch[f"{_DELETE_FROM_PRIMITIVE_LIST}/{key}"] = delete
        if order:
            patch[f"{_SET_ELEMENT_ORDER}/{key}"] = order
    else:
        _replace_if_not_equal(key, ov, mv, patch, opts)


def _replace_if_not_equal(key: str, ov: Any, mv: Any, patch: dict[str, Any], opts: DiffOptions) -> None:
    if opts.ignore_changes_and_additions or _deep_equal(ov, mv):
        return
    patch[key] = mv


def _validate_merge_key_in_lists(merge_key: str, *lists: list[Any]) -> None:
    for lst in lists:
        for item in lst:
            if not isinstance(item, dict):
                raise _bad_arg_type(_MAP_T, item)
            if merge_key not in item:
                raise _no_merge_key(item, merge_key)


def _index(lst: list[Any], val: Any, merge_key: str, is_map: bool) -> int:
    if is_map:
        def get(item: Any) -> Any:
            return item.get(merge_key) if isinstance(item, dict) else None
    else:
        def get(item: Any) -> Any:
            return item
    want = get(val)
    for i, v in enumerate(lst):
        if _go_eq(want, get(v)):
            return i
    return -1


def _extract_to_delete(lst: list[Any]) -> tuple[list[Any], list[Any]]:
    keep: list[Any] = []
    delete: list[Any] = []
    for v in lst:
        if not isinstance(v, dict):
            raise _bad_arg_type(_MAP_T, v)
        d = v.get(_DIRECTIVE, _MISSING)
        if d is not _MISSING and isinstance(d, str) and d == _DELETE:
            delete.append(v)
        else:
            keep.append(v)
    return keep, delete


_MISSING: Any = object()


def _normalize_slice_order(to_sort: list[Any], order: list[Any], merge_key: str, is_map: bool) -> list[Any]:
    delete: list[Any] = []
    if is_map:
        _validate_merge_key_in_lists(merge_key, to_sort, order)
        to_sort, delete = _extract_to_delete(to_sort)
    else:
        to_sort = list(to_sort)

    def less(a: Any, b: Any) -> bool:
        ia = _index(order, a, merge_key, is_map)
        if ia >= 0:
            ib = _index(order, b, merge_key, is_map)
            if ib >= 0:
                return ia < ib
        return True

    _slice_stable(to_sort, less)
    return to_sort + delete


def _merge_sorted_slice(left: list[Any], right: list[Any], server_order: list[Any], merge_key: str,
                        is_map: bool) -> list[Any]:
    out: list[Any] = []
    i = j = 0
    for _ in range(len(left) + len(right)):
        if i >= len(left) and j < len(right):
            out.append(right[j])
            j += 1
        elif j >= len(right) and i < len(left):
            out.append(left[i])
            i += 1
        else:
            li = _index(server_order, left[i], merge_key, is_map)
            ri = _index(server_order, right[j], merge_key, is_map)
            if li >= 0 and ri >= 0 and li < ri:
                out.append(left[i])
                i += 1
            else:
                out.append(right[j])
                j += 1
    return out


def _normalize_element_order(patch: list[Any], server_only: list[Any], patch_order: list[Any],
                             server_order: list[Any], merge_key: str, is_map: bool) -> list[Any]:
    patch = _normalize_slice_order(patch, patch_order, merge_key, is_map)
    server_only = _normalize_slice_order(server_only, server_order, merge_key, is_map)
    return _merge_sorted_slice(server_only, patch, server_order, merge_key, is_map)


def _slice_element_kind(*slices: list[Any]) -> str:
    """sliceElementType's kind: "map", "slice" refused, a scalar type name otherwise."""
    prev = None
    for s in slices:
        for v in s:
            t = _go_type(v)
            if prev is None:
                prev = t
                if t == _SLICE_T:
                    raise _fail(ERR_NO_LIST_OF_LISTS)
            elif prev != t:
                raise _error("list element types are not identical: "
                             + "[" + " ".join(_v(x) for x in slices) + "]")
    if prev is None:
        raise _error("no elements in any of the given slices")
    return "map" if prev == _MAP_T else prev


def _diff_lists(original: list[Any], modified: list[Any], schema: PatchSchema, merge_key: str,
                opts: DiffOptions) -> tuple[list[Any], list[Any], list[Any]]:
    if not original:
        if not modified or opts.ignore_changes_and_additions:
            return [], [], []
        return modified, [], []
    kind = _slice_element_kind(original, modified)
    if kind == "map":
        patch_list, delete_list = _diff_lists_of_maps(original, modified, schema, merge_key, opts)
        patch_list = _normalize_slice_order(patch_list, modified, merge_key, True)
        order_same = _is_order_same(original, modified, merge_key)
        patch_list = patch_list + delete_list
        order: list[Any] = []
        if opts.set_element_order and (
                (not opts.ignore_changes_and_additions and (patch_list or not order_same))
                or (not opts.ignore_deletions and patch_list)):
            order = [{merge_key: v.get(merge_key)} for v in modified]
        return patch_list, [], order
    add, delete = _diff_lists_of_scalars(original, modified, opts)
    add = _normalize_slice_order(add, modified, merge_key, False)
    order = []
    if opts.set_element_order and ((not opts.ignore_deletions and delete) or (
            not opts.ignore_changes_and_additions and not _deep_equal(original, modified))):
        order = modified
    return add, delete, order


def _is_order_same(original: list[Any], modified: list[Any], merge_key: str) -> bool:
    if len(original) != len(modified):
        return False
    for o, m in zip(original, modified):
        if not _merge_key_value_equal(o, m, merge_key):
            return False
    return True


def _diff_lists_of_scalars(original: list[Any], modified: list[Any],
                           opts: DiffOptions) -> tuple[list[Any], list[Any]]:
    orig = _sort_scalars(list(original))
    mod = _sort_scalars(list(modified))
    oi = mi = 0
    add: list[Any] = []
    delete: list[Any] = []
    while oi < len(orig) or mi < len(mod):
        o_in = oi < len(orig)
        m_in = mi < len(mod)
        os_ = _v(orig[oi]) if o_in else ""
        ms = _v(mod[mi]) if m_in else ""
        if o_in and m_in and os_ == ms:
            oi += 1
            mi += 1
        elif not o_in or (o_in and m_in and os_ > ms):
            if not opts.ignore_changes_and_additions:
                add.append(mod[mi])
            mi += 1
        else:
            if not opts.ignore_deletions:
                delete.append(orig[oi])
            oi += 1
    return add, _dedup_scalars(delete)


def _sort_maps_by_key(s: list[Any], merge_key: str) -> list[Any]:
    return _sort_by_string(list(s), lambda m: _v(m.get(merge_key)))


def _sort_merge_lists_by_name_array(s: list[Any], schema: PatchSchema, merge_key: str,
                                    recurse: bool) -> list[Any]:
    if not s:
        return s
    kind = _slice_element_kind(s)
    if kind != "map":
        return _sort_scalars(_dedup_scalars(s))
    if recurse:
        s = [_sort_merge_lists_by_name_map(e, schema) for e in s]
    return _sort_maps_by_key(s, merge_key)


def _sort_merge_lists_by_name_map(s: dict[str, Any], schema: PatchSchema) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in s.items():
        if k == _RETAIN_KEYS:
            if not isinstance(v, list):
                raise _fail(ERR_BAD_PATCH_FORMAT_FOR_RETAIN_KEYS)
            v = _sort_scalars(list(v))
        elif k.startswith(_DELETE_FROM_PRIMITIVE_LIST):
            if not isinstance(v, list):
                raise _fail(ERR_BAD_PATCH_FORMAT_FOR_PRIMITIVE_LIST)
            v = _sort_scalars(list(v))
        elif k.startswith(_SET_ELEMENT_ORDER):
            if not isinstance(v, list):
                raise _fail(ERR_BAD_PATCH_FORMAT_FOR_SET_ELEMENT_ORDER_LIST)
        elif k != _DIRECTIVE:
            if isinstance(v, dict):
                sub, _meta = schema.lookup_struct(k)
                v = _sort_merge_lists_by_name_map(v, sub)
            elif isinstance(v, list):
                sub, meta = schema.lookup_slice(k)
                _r, strategy = _extract_retain_keys(meta.strategies)
                if strategy == _MERGE:
                    v = _sort_merge_lists_by_name_array(v, sub, meta.merge_key, True)
        out[k] = v
    return out


def _map_and_key(i: int, merge_key: str, lst: list[Any]) -> tuple[dict[str, Any], Any]:
    m = lst[i]
    if not isinstance(m, dict):
        raise _bad_arg_type(_MAP_T, m)
    if merge_key not in m:
        raise _no_merge_key(m, merge_key)
    return m, m[merge_key]


def _diff_lists_of_maps(original: list[Any], modified: list[Any], schema: PatchSchema,
                        merge_key: str, opts: DiffOptions) -> tuple[list[Any], list[Any]]:
    patch: list[Any] = []
    deletion: list[Any] = []
    orig = _sort_merge_lists_by_name_array(original, schema, merge_key, False)
    mod = _sort_merge_lists_by_name_array(modified, schema, merge_key, False)
    oi = mi = 0
    while oi < len(orig) or mi < len(mod):
        o_in = oi < len(orig)
        m_in = mi < len(mod)
        os_ = ms = ""
        oe = me = ok_ = mk = None
        if o_in:
            oe, ok_ = _map_and_key(oi, merge_key, orig)
            os_ = _v(ok_)
        if m_in:
            me, mk = _map_and_key(mi, merge_key, mod)
            ms = _v(mk)
        if o_in and m_in and os_ == ms:
            pv = _diff_maps(oe, me, schema, opts)  # type: ignore[arg-type]
            if pv:
                pv[merge_key] = mk
                patch.append(pv)
            oi += 1
            mi += 1
        elif not o_in or (o_in and m_in and os_ > ms):
            if not opts.ignore_changes_and_additions:
                patch.append(me)
            mi += 1
        else:
            if not opts.ignore_deletions:
                deletion.append({merge_key: ok_, _DIRECTIVE: _DELETE})
            oi += 1
    return patch, deletion


# ----------------------------------------------------------------------- merge (apply patches)

class MergeOptions:
    __slots__ = ("merge_parallel_list", "ignore_unmatched_nulls")

    def __init__(self, merge_parallel_list: bool, ignore_unmatched_nulls: bool) -> None:
        self.merge_parallel_list = merge_parallel_list
        self.ignore_unmatched_nulls = ignore_unmatched_nulls


def _handle_directive_in_merge_map(directive: Any, patch: dict[str, Any]) -> dict[str, Any]:
    if isinstance(directive, str) and directive == _REPLACE:
        del patch[_DIRECTIVE]
        return patch
    if isinstance(directive, str) and directive == _DELETE:
        return {}
    raise _bad_patch_type(directive, patch)


def _contains_directive(item: Any) -> bool:
    return isinstance(item, dict) and _DIRECTIVE in item


def _merge_key_value_equal(left: Any, right: Any, merge_key: str) -> bool:
    if not merge_key:
        return _go_eq(left, right)
    if not isinstance(left, dict):
        raise _bad_arg_type(_MAP_T, left)
    if not isinstance(right, dict):
        raise _bad_arg_type(_MAP_T, right)
    if merge_key not in left:
        raise _no_merge_key(left, merge_key)
    if merge_key not in right:
        raise _no_merge_key(right, merge_key)
    return _go_eq(left[merge_key], right[merge_key])


def _extract_key(s: str, prefix: str) -> str:
    parts = s.split("/", 1)
    if len(parts) <= 1 or parts[0] != prefix:
        if prefix == _DELETE_FROM_PRIMITIVE_LIST:
            raise _fail(ERR_BAD_PATCH_FORMAT_FOR_PRIMITIVE_LIST)
        if prefix == _SET_ELEMENT_ORDER:
            raise _fail(ERR_BAD_PATCH_FORMAT_FOR_SET_ELEMENT_ORDER_LIST)
        raise _error(f"fail to find unknown prefix {quote(prefix)} in {s}\n")
    return parts[1]


def _validate_patch_with_set_order_list(patch_list: Any, order: Any, merge_key: str) -> None:
    if not isinstance(order, list):
        raise _fail(ERR_BAD_PATCH_FORMAT_FOR_SET_ELEMENT_ORDER_LIST)
    if not isinstance(patch_list, list):
        raise _fail(ERR_BAD_PATCH_FORMAT_FOR_SET_ELEMENT_ORDER_LIST)
    if not order or not patch_list:
        return
    non_delete = _extract_to_delete(patch_list)[0] if merge_key else patch_list
    pi = si = 0
    while pi < len(non_delete) and si < len(order):
        if _contains_directive(non_delete[pi]):
            pi += 1
            continue
        if _merge_key_value_equal(non_delete[pi], order[si], merge_key):
            pi += 1
        si += 1
    if pi < len(non_delete) and si >= len(order):
        raise _error(f"The order in patch list:\n{_v(patch_list)}\n doesn't match "
                     f"{_SET_ELEMENT_ORDER} list:\n{_v(order)}\n")


def _apply_retain_keys(original: dict[str, Any], patch: dict[str, Any], opts: MergeOptions) -> None:
    if _RETAIN_KEYS not in patch:
        return
    in_patch = patch.pop(_RETAIN_KEYS)
    if not opts.merge_parallel_list:
        if _RETAIN_KEYS in original:
            if not _deep_equal(original[_RETAIN_KEYS], in_patch):
                raise _error(f"{_v(original[_RETAIN_KEYS])} and {_v(in_patch)} are not deep equal: "
                             "this may happen when calculating the 3-way diff patch")
        else:
            original[_RETAIN_KEYS] = in_patch
        return
    if not isinstance(in_patch, list):
        raise _fail(ERR_BAD_PATCH_FORMAT_FOR_RETAIN_KEYS)
    keep = {_hashable(v) for v in in_patch}
    for k, v in patch.items():
        if v is None or k.startswith(_DELETE_FROM_PRIMITIVE_LIST) or k.startswith(_SET_ELEMENT_ORDER):
            continue
        if ("string", k) not in keep:
            raise _fail(ERR_BAD_PATCH_FORMAT_FOR_RETAIN_KEYS)
    for k in [k for k in original if ("string", k) not in keep]:
        del original[k]


def _partition_primitives(original: list[Any], by: list[Any]) -> tuple[list[Any], list[Any]]:
    present = {_hashable(v) for v in by}
    patch = [v for v in original if _hashable(v) in present]
    server = [v for v in original if _hashable(v) not in present]
    return patch, server


def _find_map_in_slice(lst: list[Any], key: str, value: Any) -> tuple[dict[str, Any] | None, int, bool]:
    for i, v in enumerate(lst):
        if not isinstance(v, dict):
            raise _error(f"value for key {i} is not a map")
        if key in v and _go_eq(v[key], value):
            return v, i, True
    return None, 0, False


def _partition_maps(original: list[Any], by: list[Any], merge_key: str) -> tuple[list[Any], list[Any]]:
    patch: list[Any] = []
    server: list[Any] = []
    for v in original:
        if not isinstance(v, dict):
            raise _bad_arg_type(_MAP_T, v)
        if merge_key not in v:
            raise _no_merge_key(v, merge_key)
        _m, _i, found = _find_map_in_slice(by, merge_key, v[merge_key])
        (patch if found else server).append(v)
    return patch, server


def _merge_patch_into_original(original: dict[str, Any], patch: dict[str, Any], schema: PatchSchema,
                               opts: MergeOptions) -> None:
    for key in list(patch):
        if key not in patch or not key.startswith(_SET_ELEMENT_ORDER):
            continue
        order_in_patch = patch[key]
        if not opts.merge_parallel_list:
            if key in original:
                if not _deep_equal(original[key], order_in_patch):
                    raise _fail(ERR_BAD_PATCH_FORMAT_FOR_SET_ELEMENT_ORDER_LIST)
            else:
                original[key] = order_in_patch
        del patch[key]
        if not isinstance(order_in_patch, list):
            raise _bad_arg_type(_SLICE_T, order_in_patch)
        okey = _extract_key(key, _SET_ELEMENT_ORDER)
        found_o = okey in original
        found_p = okey in patch
        ofv: list[Any] = []
        pfv: list[Any] = []
        if found_o:
            if not isinstance(original[okey], list):
                raise _bad_arg_type(_SLICE_T, original[okey])
            ofv = original[okey]
        if found_p:
            if not isinstance(patch[okey], list):
                raise _bad_arg_type(_SLICE_T, patch[okey])
            pfv = patch[okey]
        sub, meta = schema.lookup_slice(okey)
        _r, strategy = _extract_retain_keys(meta.strategies)
        # Go passes the typed (possibly nil) []interface{}: a missing patch list is empty here.
        _validate_patch_with_set_order_list(pfv, order_in_patch, meta.merge_key)
        if found_o and not found_p:
            merged = ofv
        elif not found_o and found_p:
            merged, _keep = _remove_directives(pfv)
        elif found_o and found_p:
            merged = _merge_slice_handler(original[okey], patch[okey], sub, strategy, meta.merge_key,
                                          False, opts)
        else:
            continue
        if not meta.merge_key:
            patch_items, server_only = _partition_primitives(merged, order_in_patch)
        else:
            patch_items, server_only = _partition_maps(merged, order_in_patch, meta.merge_key)
        kind = _slice_element_kind(ofv, pfv)
        original[okey] = _normalize_element_order(patch_items, server_only, order_in_patch, ofv,
                                                  meta.merge_key, kind == "map")
        patch.pop(okey, None)


def _remove_directives(obj: Any) -> tuple[Any, bool]:
    if obj is None:
        return obj, True
    if isinstance(obj, dict):
        if _DIRECTIVE in obj:
            return None, False
        for k in list(obj):
            nv, keep = _remove_directives(obj[k])
            if keep:
                obj[k] = nv
            else:
                del obj[k]
        return obj, True
    if isinstance(obj, list):
        res = []
        for v in obj:
            nv, keep = _remove_directives(v)
            if keep:
                res.append(nv)
        return res, True
    return obj, True


def _discard_nulls(v: Any) -> None:
    if isinstance(v, dict):
        for k in [k for k, x in v.items() if x is None]:
            del v[k]
        for x in v.values():
            _discard_nulls(x)
    elif isinstance(v, list):
        for x in v:
            _discard_nulls(x)


def _merge_map(original: dict[str, Any] | None, patch: dict[str, Any], schema: PatchSchema,
               opts: MergeOptions) -> dict[str, Any]:
    if _DIRECTIVE in patch:
        return _handle_directive_in_merge_map(patch[_DIRECTIVE], patch)
    if original is None:
        original = {}
    _apply_retain_keys(original, patch, opts)
    _merge_patch_into_original(original, patch, schema, opts)
    for k, pv in list(patch.items()):
        is_delete_list = False
        if k.startswith(_DELETE_FROM_PRIMITIVE_LIST):
            if not opts.merge_parallel_list:
                original[k] = pv
                continue
            k = _extract_key(k, _DELETE_FROM_PRIMITIVE_LIST)
            is_delete_list = True
        if pv is None:
            original.pop(k, None)
            if opts.ignore_unmatched_nulls:
                continue
        if k not in original:
            if not is_delete_list:
                if opts.ignore_unmatched_nulls:
                    _discard_nulls(pv)
                nv, keep = _remove_directives(pv)
                if keep:
                    original[k] = nv
            continue
        ov = original[k]
        if _go_type(ov) != _go_type(pv):
            if not is_delete_list:
                if opts.ignore_unmatched_nulls:
                    _discard_nulls(pv)
                nv, keep = _remove_directives(pv)
                if keep:
                    original[k] = nv
                else:
                    del original[k]
            continue
        if isinstance(ov, dict):
            sub, meta = schema.lookup_struct(k)
            _r, strategy = _extract_retain_keys(meta.strategies)
            original[k] = _merge_map_handler(ov, pv, sub, strategy, opts)
        elif isinstance(ov, list):
            sub, meta = schema.lookup_slice(k)
            _r, strategy = _extract_retain_keys(meta.strategies)
            original[k] = _merge_slice_handler(ov, pv, sub, strategy, meta.merge_key, is_delete_list, opts)
        else:
            nv, keep = _remove_directives(pv)
            if keep:
                original[k] = nv
            else:
                del original[k]
    return original


def _merge_map_handler(original: Any, patch: Any, schema: PatchSchema, strategy: str,
                       opts: MergeOptions) -> dict[str, Any]:
    if not isinstance(original, dict):
        raise _bad_arg_type(_MAP_T, original)
    if not isinstance(patch, dict):
        raise _bad_arg_type(_MAP_T, patch)
    if strategy != _REPLACE:
        return _merge_map(original, patch, schema, opts)
    return patch


def _merge_slice_handler(original: Any, patch: Any, schema: PatchSchema, strategy: str,
                         merge_key: str, is_delete_list: bool, opts: MergeOptions) -> list[Any]:
    if not isinstance(original, list):
        raise _bad_arg_type(_SLICE_T, original)
    if not isinstance(patch, list):
        raise _bad_arg_type(_SLICE_T, patch)
    if strategy == _MERGE or is_delete_list:
        return _merge_slice(original, patch, schema, merge_key, opts, is_delete_list)
    return patch


def _merge_slice(original: list[Any], patch: list[Any], schema: PatchSchema, merge_key: str,
                 opts: MergeOptions, is_delete_list: bool) -> list[Any]:
    """mergeSlice. ``original`` is used as Go uses the slice's backing array: deletions shift
    its items in place and appends fill the slots they free, so that the caller's view of the
    original list (``$setElementOrder``'s server order) sees what Go's does."""
    if not original and not patch:
        return original
    kind = _slice_element_kind(original, patch)
    if kind != "map":
        if opts.merge_parallel_list and is_delete_list:
            gone = {_hashable(v) for v in patch}
            return [v for v in original if _hashable(v) not in gone]
        merged = _dedup_scalars(original + patch)
        server_order = original
    else:
        if merge_key == "":
            raise _error(f"cannot merge lists without merge key for {schema.name()}")
        backing, n, patch = _merge_slice_with_special_elements(original, patch, merge_key)
        merged = _merge_slice_without_special_elements(backing, n, patch, merge_key, schema, opts)
        server_order = backing[:n]
    if not merge_key:
        patch_items, server_only = _partition_primitives(merged, patch)
    else:
        patch_items, server_only = _partition_maps(merged, patch, merge_key)
    return _normalize_element_order(patch_items, server_only, patch, server_order, merge_key, kind == "map")


def _merge_slice_with_special_elements(original: list[Any], patch: list[Any],
                                       merge_key: str) -> tuple[list[Any], int, list[Any]]:
    """mergeSliceWithSpecialElements: (backing list, its length in use, the patch without
    directives). Deletions shift ``original``'s items in place (Go's append(s[:i], s[i+1:]...))."""
    without: list[Any] = []
    replace = False
    n = len(original)
    for v in patch:
        if _DIRECTIVE not in v:
            without.append(v)
            continue
        d = v[_DIRECTIVE]
        if isinstance(d, str) and d == _DELETE:
            if merge_key not in v:
                raise _no_merge_key(v, merge_key)
            mv = v[merge_key]
            while True:
                _m, i, found = _find_map_in_slice(original[:n], merge_key, mv)
                if not found:
                    break
                original[i:n - 1] = original[i + 1:n]
                n -= 1
        elif isinstance(d, str) and d == _REPLACE:
            replace = True
        elif isinstance(d, str) and d == _MERGE:
            raise _error("merging lists cannot yet be specified in the patch")
        else:
            raise _bad_patch_type(d, v)
    if replace:
        return without, len(without), []
    return original, n, without


def _merge_slice_without_special_elements(backing: list[Any], n: int, patch: list[Any], merge_key: str,
                                          schema: PatchSchema, opts: MergeOptions) -> list[Any]:
    """mergeSliceWithoutSpecialElements on ``backing[:n]``: merged items are written back in
    place and appended ones fill ``backing``'s free slots first, as Go's append does."""
    extra: list[Any] = []
    for v in patch:
        if merge_key not in v:
            raise _no_merge_key(v, merge_key)
        current = backing[:n] + extra
        om, i, found = _find_map_in_slice(current, merge_key, v[merge_key])
        if found:
            merged = _merge_map(om, v, schema, opts)
            if i < n:
                backing[i] = merged
            else:
                extra[i - n] = merged
        elif n < len(backing) and not extra:
            backing[n] = v
            n += 1
        else:
            extra.append(v)
    return backing[:n] + extra


# ----------------------------------------------------------------------- conflicts

def merging_maps_have_conflicts(left: dict[str, Any], right: dict[str, Any], cls: Any) -> bool:
    """MergingMapsHaveConflicts: whether two patches change a key differently."""
    return _fields_conflict(left, right, PatchSchema.of_class(cls), "", "")


def _fields_conflict(left: Any, right: Any, schema: PatchSchema | None, strategy: str, merge_key: str) -> bool:
    if isinstance(left, dict):
        if not isinstance(right, dict):
            return True
        lm = left.get(_DIRECTIVE, _MISSING)
        rm = right.get(_DIRECTIVE, _MISSING)
        if lm is not _MISSING or rm is not _MISSING:
            if (lm is _MISSING) != (rm is _MISSING):
                return True
            if not _go_eq(lm, rm):
                return True
        if strategy == _REPLACE:
            return False
        return _maps_conflict(left, right, schema)
    if isinstance(left, list):
        if not isinstance(right, list):
            return True
        return _slices_conflict(left, right, schema, strategy, merge_key)
    return not _deep_equal(left, right)


def _maps_conflict(left: dict[str, Any], right: dict[str, Any], schema: PatchSchema | None) -> bool:
    for key, lv in left.items():
        if key in (_DIRECTIVE, _RETAIN_KEYS) or key not in right:
            continue
        sub: PatchSchema | None = None
        meta = PatchMeta()
        strategy = ""
        if isinstance(lv, list):
            sub, meta = schema.lookup_slice(key)  # type: ignore[union-attr]
            _r, strategy = _extract_retain_keys(meta.strategies)
        elif isinstance(lv, dict):
            sub, meta = schema.lookup_struct(key)  # type: ignore[union-attr]
            _r, strategy = _extract_retain_keys(meta.strategies)
        if _fields_conflict(lv, right[key], sub, strategy, meta.merge_key):
            return True
    return False


def _slices_conflict(left: list[Any], right: list[Any], schema: PatchSchema | None, strategy: str,
                     merge_key: str) -> bool:
    kind = _slice_element_kind(left, right)
    if strategy == _MERGE:
        if kind != "map":
            return False
        lm = _slice_to_map(left, merge_key)
        rm = _slice_to_map(right, merge_key)
        return any(k in rm and _fields_conflict(v, rm[k], schema, "", "") for k, v in lm.items())
    if len(left) != len(right):
        return True
    if kind != "map":
        left = _sort_scalars(_dedup_scalars(left))
        right = _sort_scalars(_dedup_scalars(right))
    return any(_fields_conflict(a, b, schema, "", "") for a, b in zip(left, right))


def _slice_to_map(s: list[Any], merge_key: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for v in s:
        if not isinstance(v, dict):
            raise _error(f"invalid element type in merging list:{_v(s)}")
        if merge_key not in v:
            raise _error(f"cannot find merge key `{merge_key}` in merging list element:{_v(v)}")
        out[_s(v[merge_key])] = v
    return out


# ----------------------------------------------------------------------- public entry points

def require_key_unchanged(key: str) -> PreconditionFunc:
    """mergepatch.RequireKeyUnchanged: the patch must not set ``key``."""
    def check(patch: Any) -> bool:
        return not isinstance(patch, dict) or key not in patch
    return check


def require_metadata_key_unchanged(key: str) -> PreconditionFunc:
    """mergepatch.RequireMetadataKeyUnchanged: the patch must not set ``metadata.<key>``."""
    def check(patch: Any) -> bool:
        if not isinstance(patch, dict) or not isinstance(patch.get("metadata"), dict):
            return True
        return key not in patch["metadata"]
    return check


def _as_map(tree: Any) -> dict[str, Any]:
    if tree is None:
        return {}
    if not isinstance(tree, dict):
        raise _fail(ERR_BAD_JSON_DOC)
    return deep_copy(tree)


def _check_preconditions(patch: dict[str, Any], fns: Sequence[PreconditionFunc]) -> None:
    for fn in fns:
        if not fn(patch):
            raise PreconditionFailedError(f"precondition failed for: {_v(patch)}")


def strategic_merge_patch(doc_tree: Any, patch_tree: Any, cls: Any) -> dict[str, Any]:
    """Apply a strategic merge patch (StrategicMergeMapPatch) and return the patched tree;
    the arguments are left as they were.

    ``cls`` is the model class of the object's version (``kcodec.api.apps.v1.Deployment``);
    anything else (an Unstructured custom resource) is refused with
    ``ERR_UNSUPPORTED_STRATEGIC_MERGE_PATCH_FORMAT``. Raises
    :class:`~kcodec.patch.errors.StrategicMergePatchError` with Go's text and the code
    kube-apiserver answers with (400 or 422 for the sentinels its patch handler names, else
    500 as Go).
    """
    schema = PatchSchema.of_class(cls)
    original = _as_map(doc_tree)
    patch = _as_map(patch_tree)
    return _merge_map(original, patch, schema, MergeOptions(True, True))


def create_two_way_merge_patch(original: Any, modified: Any, cls: Any, *,
                               preconditions: Sequence[PreconditionFunc] = ()) -> dict[str, Any]:
    """CreateTwoWayMergeMapPatch: the strategic merge patch turning ``original`` into
    ``modified`` (with ``$setElementOrder`` lists, as kubectl sends)."""
    schema = PatchSchema.of_class(cls)
    patch = _diff_maps(_as_map(original), _as_map(modified), schema, DiffOptions(set_element_order=True))
    _check_preconditions(patch, preconditions)
    return patch


def create_three_way_merge_patch(original: Any, modified: Any, current: Any, cls: Any,
                                 overwrite: bool = True, *,
                                 preconditions: Sequence[PreconditionFunc] = ()) -> dict[str, Any]:
    """CreateThreeWayMergePatch, what ``kubectl apply`` (client side) sends: the changes from
    ``current`` (the live object) to ``modified`` (the new configuration) without deletions,
    plus the deletions from ``original`` (the last-applied configuration) to ``modified``.
    With ``overwrite=False`` a change that conflicts with one made from ``original`` to
    ``current`` raises :class:`~kcodec.patch.errors.MergeConflictError` with Go's text."""
    schema = PatchSchema.of_class(cls)
    o, m, c = _as_map(original), _as_map(modified), _as_map(current)
    delta = _diff_maps(c, m, schema, DiffOptions(set_element_order=True, ignore_deletions=True))
    deletions = _diff_maps(o, m, schema, DiffOptions(set_element_order=True,
                                                     ignore_changes_and_additions=True))
    patch = _merge_map(deletions, delta, schema, MergeOptions(False, False))
    _check_preconditions(patch, preconditions)
    if not overwrite:
        changed = _diff_maps(o, c, schema, DiffOptions())
        if _fields_conflict(patch, changed, schema, "", ""):
            raise MergeConflictError(
                "patch:\n" + goyaml.tree_to_yaml(patch).decode()
                + "\nconflicts with changes made from original to current:\n"
                + goyaml.tree_to_yaml(changed).decode() + "\n")
    return patch
