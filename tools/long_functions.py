"""List the functions longer than a limit in kcodec's hand-written code (a reading aid).

    python tools/long_functions.py              # over 100 lines, kernels and the rest
    python tools/long_functions.py --limit 80 kcodec/_speedups

Python files are measured with ``ast`` (first line of the ``def`` to its last line);
Cython files by indentation: a ``def``/``cdef``/``cpdef`` function runs until the next
line at its indentation or less that is not blank, a comment or a decorator. Generated
modules (``kcodec/api/**/v*.py``, ``zz_generated`` and the like) are skipped: only code
people write and read is listed.
"""
from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_CYTHON_DEF = re.compile(r"^(\s*)(?:async\s+)?(?:c?p?def|cdef)\s+(?:[\w\[\]\*\. ,]+\s+)?\**(\w+)\s*\(")
_GENERATED_MARK = "Code generated"


def _generated(path: Path, text: str) -> bool:
    return _GENERATED_MARK in text[:2000] or "DO NOT EDIT" in text[:2000]


def python_functions(path: Path, text: str) -> list[tuple[str, int, int]]:
    """(qualified name, first line, line count) of every function in a Python file."""
    out = []

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{prefix}{child.name}"
                out.append((name, child.lineno, (child.end_lineno or child.lineno) - child.lineno + 1))
                walk(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                walk(child, f"{prefix}{child.name}.")
            else:
                walk(child, prefix)

    walk(ast.parse(text, str(path)), "")
    return out


def cython_functions(text: str) -> list[tuple[str, int, int]]:
    """(name, first line, line count) of every def/cdef/cpdef function in a Cython file."""
    lines = text.splitlines()
    out = []
    for i, line in enumerate(lines):
        m = _CYTHON_DEF.match(line)
        if m is None or " = " in line.split("(")[0]:
            continue
        indent = len(m.group(1))
        end = i
        for j in range(i + 1, len(lines)):
            body = lines[j]
            stripped = body.strip()
            if not stripped or stripped.startswith(("#", "@")):
                continue
            if len(body) - len(body.lstrip()) <= indent and not body.lstrip().startswith((")", "]")):
                break
            end = j
        out.append((m.group(2), i + 1, end - i + 1))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*", type=Path, default=[ROOT / "kcodec", ROOT / "tools"])
    ap.add_argument("--limit", type=int, default=100)
    args = ap.parse_args()
    found = []
    for base in args.paths:
        base = base.resolve()
        files = [base] if base.is_file() else sorted([*base.rglob("*.py"), *base.rglob("*.pyx")])
        for path in files:
            text = path.read_text(encoding="utf-8")
            if _generated(path, text):
                continue
            funcs = python_functions(path, text) if path.suffix == ".py" else cython_functions(text)
            for name, line, count in funcs:
                if count > args.limit:
                    found.append((count, f"{path.relative_to(ROOT)}:{line}", name))
    for count, where, name in sorted(found, reverse=True):
        print(f"{count:5d}  {where}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
