"""kcodec's modules import downwards only, and never in a circle.

Every import statement of every kcodec module is read from the source (``ast`` for ``.py``,
the import lines of ``.pyx``), at module level, inside functions and under
``if TYPE_CHECKING:`` alike, and so is every ``importlib.import_module`` (or ``__import__``)
call whose argument names a module (a string, or an f-string whose leading text or
``__name__`` names a package): a deferred import is still a dependency, it only hides the
circle from the interpreter. Each module belongs to
one layer of :data:`LAYERS` (lowest first); a module may import modules of its own layer or
of a lower one, and the graph of kcodec modules must have no cycle. docs/design.md shows the
same table with the Go package each layer follows.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "kcodec"

#: Layers from the bottom up: (name, module prefixes). A module takes the layer of the
#: longest prefix that names it or one of its parent packages.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    # gofmt (strconv.Quote, Go's number formats) imports nothing from kcodec: errors quote with it.
    ("errors", ("kcodec._kinds", "kcodec.errors", "kcodec.gofmt")),
    ("schema", ("kcodec.schema",)),
    ("field tables", ("kcodec.fieldtable",)),
    ("Go text and wire rules", ("kcodec.gojson", "kcodec.goyaml", "kcodec.wire", "kcodec.yamlutil")),
    ("kernels", ("kcodec._native", "kcodec._speedups", "kcodec._native.yaml", "kcodec._speedups._yaml")),
    ("speedups switch", ("kcodec.speedups",)),
    ("model", ("kcodec.model", "kcodec.types")),
    ("conversion", ("kcodec.conversion",)),
    ("runtime", ("kcodec.runtime", "kcodec.labels", "kcodec.fields",
                 "kcodec.validation.field", "kcodec.validation.names")),
    ("serializer", ("kcodec.serializer",)),
    ("api and storage", ("kcodec.api", "kcodec.storage", "kcodec.legacyscheme", "kcodec.validation",
                         "kcodec.patch", "kcodec.managedfields")),
    ("unstructured", ("kcodec.api.meta.unstructured",)),
    ("registry", ("kcodec.registry", "kcodec.printers")),
    ("server", ("kcodec.server",)),
    ("entry points", ("kcodec", "kcodec.cli", "kcodec.__main__")),
)

#: Upward imports kept on purpose, each with its reason.
ALLOWED_UPWARD: dict[tuple[str, str], str] = {
    ("kcodec.runtime", "kcodec.api.meta.unstructured"):
        "API.md names kcodec.runtime.Unstructured: the package face re-exports it on first access",
}

_PYX_IMPORT = re.compile(
    r"^\s*(?:from\s+(?P<base>[\w.]+)\s+c?import\s+(?P<names>\(?[^#\n]*)|c?import\s+(?P<mods>[\w., ]+))"
)


def _module_name(path: Path) -> tuple[str, bool]:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    is_pkg = parts[-1] == "__init__"
    if is_pkg:
        parts.pop()
    return ".".join(parts), is_pkg


def _modules() -> dict[str, tuple[Path, bool]]:
    found: dict[str, tuple[Path, bool]] = {}
    for path in sorted(PACKAGE.rglob("*.py")) + sorted(PACKAGE.rglob("*.pyx")):
        name, is_pkg = _module_name(path)
        found[name] = (path, is_pkg)
    return found


def _statements(path: Path) -> list[tuple[int, str, list[str]]]:
    """(level, base, names) of every import in the file: ``import a.b`` is (0, "a.b", [])."""
    out: list[tuple[int, str, list[str]]] = []
    if path.suffix == ".pyx":
        for line in path.read_text().splitlines():
            m = _PYX_IMPORT.match(line)
            if m is None:
                continue
            if m.group("base"):
                names = [n.strip().split()[0] for n in m.group("names").strip("()").split(",")
                         if n.strip() and n.strip() not in ("(", ")")]
                out.append((0, m.group("base"), names))
            else:
                for mod in m.group("mods").split(","):
                    if mod.strip():
                        out.append((0, mod.strip().split()[0], []))
        return out
    tree = ast.parse(path.read_text(), str(path))
    module = _module_name(path)[0] if path.is_relative_to(ROOT) else ""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend((0, alias.name, []) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            out.append((node.level, node.module or "", [a.name for a in node.names]))
        elif isinstance(node, ast.Call) and _is_import_call(node) and node.args:
            target = _named_module(node.args[0], module)
            if target:
                out.append((0, target, []))
    return out


def _is_import_call(node: ast.Call) -> bool:
    """``importlib.import_module(...)``, ``import_module(...)`` or ``__import__(...)``."""
    f = node.func
    return ((isinstance(f, ast.Attribute) and f.attr == "import_module")
            or (isinstance(f, ast.Name) and f.id in ("import_module", "__import__")))


def _named_module(arg: ast.expr, module: str) -> str:
    """The module (or, for an f-string, the package) an import call's argument names;
    ``""`` when it is computed some other way."""
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value
    if not isinstance(arg, ast.JoinedStr) or not arg.values:
        return ""
    head = ""
    for part in arg.values:
        if isinstance(part, ast.Constant) and isinstance(part.value, str):
            head += part.value
        elif (isinstance(part, ast.FormattedValue) and isinstance(part.value, ast.Name)
              and part.value.id == "__name__" and not head):
            head = module
        else:
            break
    return head.rsplit(".", 1)[0] if "." in head else ""


def import_graph() -> dict[str, set[str]]:
    """kcodec module -> the kcodec modules it imports (a package stands for its __init__)."""
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, (path, is_pkg) in modules.items():
        for level, base, names in _statements(path):
            if level:
                anchor = name.split(".") if is_pkg else name.split(".")[:-1]
                anchor = anchor[: len(anchor) - (level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{n}" if f"{base}.{n}" in modules else base for n in names] or [base]
            for target in targets:
                while target not in modules and "." in target:
                    target = target.rsplit(".", 1)[0]
                if target in modules and target != name and target.startswith("kcodec"):
                    graph[name].add(target)
    return graph


def layer_of(module: str) -> int:
    best, best_len = -1, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best_len:
                best, best_len = index, len(prefix)
    return best


def test_every_module_has_a_layer() -> None:
    missing = sorted(m for m in import_graph() if layer_of(m) < 0)
    assert not missing, f"add these modules to LAYERS: {missing}"


def test_imports_point_down() -> None:
    graph = import_graph()
    upward = []
    for module, targets in sorted(graph.items()):
        for target in sorted(targets):
            if layer_of(target) > layer_of(module) and (module, target) not in ALLOWED_UPWARD:
                upward.append(f"{module} ({LAYERS[layer_of(module)][0]}) imports {target} "
                              f"({LAYERS[layer_of(target)][0]})")
    assert not upward, "imports from a higher layer:\n" + "\n".join(upward)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_cycle() -> None:
    graph = import_graph()
    # The allowed re-exports are resolved on attribute access, after both modules exist.
    for module, target in ALLOWED_UPWARD:
        graph.get(module, set()).discard(target)
    cycles = _cycles(graph)
    assert not cycles, "import cycles among kcodec modules:\n" + "\n".join(" <-> ".join(c) for c in cycles)


@pytest.mark.parametrize("source, expected", [
    ({"a": {"b"}, "b": {"a"}, "c": set()}, [["a", "b"]]),
    ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
])
def test_cycle_finder(source: dict[str, set[str]], expected: list[list[str]]) -> None:
    assert _cycles(source) == expected


def test_scanner_sees_deferred_and_relative_imports(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text("def f():\n    from kcodec import model\n    from . import sibling\n")
    assert _statements(source) == [(0, "kcodec", ["model"]), (1, "", ["sibling"])]


def test_scanner_sees_type_checking_imports_and_import_calls(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text(
        "import importlib\nfrom typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from kcodec.storage import kv\n"
        "def f(pkg, name):\n"
        "    importlib.import_module('kcodec.api.apps.v1')\n"
        "    importlib.import_module(f'kcodec.api.{pkg}.internal')\n"
        "    __import__('kcodec.cli')\n"
        "    importlib.import_module(name)\n")
    found = _statements(source)
    assert (0, "kcodec.storage", ["kv"]) in found
    assert (0, "kcodec.api.apps.v1", []) in found
    assert (0, "kcodec.api", []) in found  # the f-string's package
    assert (0, "kcodec.cli", []) in found
    assert len(found) == 6  # import importlib, from typing, the four kcodec ones
