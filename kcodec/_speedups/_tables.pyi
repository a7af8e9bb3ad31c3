"""Type stub of the compiled field tables (the C-level API is in ``_tables.pxd``)."""
from typing import Any

from kcodec.model import TypeInfo

__all__: list[str]

class TypeRow:
    kind: int
    wire: int
    pointer: bool
    wrapped: bool
    shareable: bool
    elem_scalar: bool
    cls: Any
    elem: TypeRow | None
    info: TypeInfo
    def __init__(self, info: TypeInfo) -> None: ...

class FieldRow(TypeRow):
    name: str
    json: str
    number: int
    omitempty: bool
    omitzero: bool
    inline: bool
    offset: int
    pbkey: bytes
    def __init__(self, info: TypeInfo, owner: type) -> None: ...

class Table:
    cls: type
    fields: tuple[FieldRow, ...]
    pb: tuple[FieldRow, ...]
    json: dict[str, tuple[FieldRow, ...]]
    proto_ok: bool
    direct: bool
    src_fields: tuple[Any, ...]
    def __init__(self, cls: type) -> None: ...

def _table(cls: type) -> Table: ...
def _new_zero(cls: type) -> Any: ...
