"""docs/guide.md: every ```python block runs, in order, in one namespace per page, in
both kernel modes. A guide whose examples fail is a guide that lies."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GUIDES = sorted((ROOT / "docs").glob("guide*.md"))
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def _blocks(path: Path) -> list[tuple[int, str]]:
    text = path.read_text(encoding="utf-8")
    return [(text.count("\n", 0, m.start()) + 2, m.group(1)) for m in _BLOCK.finditer(text)]


@pytest.mark.parametrize("path", GUIDES, ids=lambda p: p.name)
def test_guide_code_runs(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocks = _blocks(path)
    assert blocks, f"{path.name} has no python blocks"
    namespace: dict[str, object] = {"__name__": f"guide:{path.name}"}
    for line, code in blocks:
        try:
            exec(compile(code, f"{path.name}:{line}", "exec"), namespace)
        except Exception as err:
            raise AssertionError(f"{path.name}, block at line {line}: {err!r}") from err


def test_guide_is_linked_from_readme() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "docs/guide.md" in readme
