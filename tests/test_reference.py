"""The API reference is generated from the code (never stale), and every dotted kcodec name
the public contract (../shared/API.md) promises resolves."""
from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
API_MD = ROOT.parent / "shared" / "API.md"
sys.path.insert(0, str(ROOT / "tools"))

import gen_reference  # noqa: E402


def test_reference_is_current() -> None:
    committed = (ROOT / "docs" / "reference.md").read_text(encoding="utf-8")
    assert committed == gen_reference.render(), "docs/reference.md is stale: run python tools/gen_reference.py"


def _resolve(dotted: str) -> object:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ModuleNotFoundError(dotted)


def test_every_name_of_the_contract_resolves() -> None:
    if not API_MD.is_file():
        pytest.skip("../shared/API.md is not beside the checkout")
    text = API_MD.read_text(encoding="utf-8")
    names = sorted({m.rstrip(".") for m in re.findall(r"\bkcodec(?:\.[A-Za-z_][A-Za-z0-9_]*)+", text)})
    # `kcodec.api.<package>.<version>` placeholders are patterns, not names; `kcodec.db` is
    # the file `kcodec serve` stores in by default (a file name, not a module).
    names = [n for n in names if "<" not in n and not re.search(r"\.(db|sqlite3?|yaml|json)$", n)]
    missing = []
    for name in names:
        try:
            _resolve(name)
        except (ImportError, AttributeError) as err:
            missing.append(f"{name}: {err}")
    assert not missing, "\n".join(missing)
