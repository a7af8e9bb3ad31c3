"""Go's ``pkg/printers/tablegenerator.go`` and ``pkg/printers/storage/storage.go``: the table
generator keyed by object type and the registries' ``TableConvertor``; the built-in handlers
register into it from :mod:`kcodec.printers.internalversion`, which imports this module (and
not the package) so the two never import each other.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from kcodec.api.meta.v1 import ListMeta, Table, TableColumnDefinition, TableOptions, TableRow
from kcodec.errors import KCodecError

__all__ = ["GenerateOptions", "TableGenerator", "TableConvertor", "PrintFunc", "type_key"]


class GenerateOptions(NamedTuple):
    """Go's ``printers.GenerateOptions``."""

    no_headers: bool = False
    wide: bool = False


#: ``print(obj, options) -> rows``: one row per object, or one per item of a list.
PrintFunc = Callable[[Any, GenerateOptions], list[TableRow]]


def type_key(cls: type) -> tuple[str, str]:
    """``(api package, Go type name)`` of a model class: ``("apps", "Deployment")``.

    Generated models live in ``kcodec.api.<package>.<version>`` (or ``.internal``); meta
    types such as Status in ``kcodec.api.meta.v1``.
    """
    parts = cls.__module__.split(".")
    package = parts[2] if len(parts) > 3 and parts[:2] == ["kcodec", "api"] else cls.__module__
    return package, cls.__name__


class _Handler(NamedTuple):
    columns: tuple[TableColumnDefinition, ...]
    print_func: PrintFunc


class TableGenerator:
    """Go's ``HumanReadableGenerator``: print handlers by object type."""

    def __init__(self) -> None:
        self._handlers: dict[tuple[str, str], _Handler] = {}

    def __repr__(self) -> str:
        return f"TableGenerator({len(self._handlers)} handlers)"

    def table_handler(self, key: tuple[str, str], columns: Sequence[TableColumnDefinition],
                      print_func: PrintFunc) -> None:
        """Register ``print_func`` for objects of type ``key`` (Go's ``TableHandler``)."""
        if key in self._handlers:
            raise KCodecError(f"registered duplicate printer for {key[0]}.{key[1]}")
        self._handlers[key] = _Handler(tuple(columns), print_func)

    def with_handlers(self, add: Callable[[TableGenerator], None]) -> TableGenerator:
        """Go's ``With``: ``add(self)`` registers handlers; returns ``self``."""
        add(self)
        return self

    def handles(self, obj_or_cls: Any) -> bool:
        """Whether a handler is registered for this object (or class)."""
        cls = obj_or_cls if isinstance(obj_or_cls, type) else type(obj_or_cls)
        return type_key(cls) in self._handlers

    def generate_table(self, obj: Any, options: GenerateOptions = GenerateOptions()) -> Table:
        """Go's ``GenerateTable``: the Table of ``obj`` (an object or its list)."""
        key = type_key(type(obj))
        handler = self._handlers.get(key)
        if handler is None:
            raise KCodecError(f"no table handler registered for this type *{key[0]}.{key[1]}")
        rows = handler.print_func(obj, options)
        columns: list[TableColumnDefinition] | None = None
        if not options.no_headers:
            columns = [c for c in handler.columns if options.wide or c.priority == 0]
        table = Table(api_version="meta.k8s.io/v1", kind="Table", column_definitions=columns, rows=rows)
        table.metadata = _list_meta(obj)
        return table


def _list_meta(obj: Any) -> ListMeta:
    meta = getattr(obj, "metadata", None)
    out = ListMeta()
    if meta is None:
        return out
    out.resource_version = getattr(meta, "resource_version", "") or ""
    if isinstance(meta, ListMeta):
        out.continue_ = meta.continue_
        out.remaining_item_count = meta.remaining_item_count
    return out


class TableConvertor:
    """Go's ``printerstorage.TableConvertor``: a registry's ``convert_to_table``.

    The server always asks for the wide columns (kubectl hides those with a priority
    unless ``-o wide``), and ``no_headers`` drops the column definitions.
    """

    def __init__(self, generator: TableGenerator) -> None:
        self.generator = generator

    def __repr__(self) -> str:
        return f"TableConvertor({self.generator!r})"

    def convert_to_table(self, ctx: Any, obj: Any, table_options: Any = None, *,
                         no_headers: bool = False) -> Table:
        """The Table of ``obj``; ``no_headers`` is Go's ``TableOptions.NoHeaders`` (``json:"-"``,
        set by the server, never by clients)."""
        if table_options is not None and not isinstance(table_options, TableOptions):
            raise KCodecError(f"unrecognized type {type(table_options).__name__} for table options, "
                              "can't display tabular output")
        return self.generator.generate_table(obj, GenerateOptions(no_headers=no_headers, wide=True))
