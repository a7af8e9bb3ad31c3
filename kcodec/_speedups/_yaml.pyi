"""Type stub of the compiled twin of the block-style YAML fast path of ``kcodec._native.yaml``."""
from typing import Any

__all__: list[str]

def yaml_block_tree(data: Any) -> Any: ...
def yaml_encode_tree(tree: Any) -> bytes: ...
