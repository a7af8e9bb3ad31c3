"""Type stub of the compiled twin of ``kcodec._native.convert``."""
from typing import Any

__all__: list[str]

def convert_fields(plan: Any, src: Any, dst: Any, scope: Any, overrides: Any) -> None: ...
def deep_copy(obj: Any) -> Any: ...
