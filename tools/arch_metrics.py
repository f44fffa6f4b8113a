"""Architecture metrics of the hand-written code (issue 22's measured criteria).

Reads the source with :mod:`ast` only (nothing of nanaccess is imported but the
statistics table, for its names) and prints four counts:

* **comparisons against statistic names**: ``==``, ``!=``, ``in`` and ``not in`` whose
  other side is a string literal, or a tuple / list / set of string literals, naming a
  statistic of ``nanaccess._stats.STATISTICS``. The table itself (``_stats.py``) is
  where names belong and is not counted;
* **private names imported across modules**: ``from X import _y`` where ``X`` is a
  nanaccess module other than the importer and ``_y`` is a name of it (not a submodule
  and not a dunder), at any depth (imports inside functions count);
* **modules over 600 lines**;
* **import cycles between modules**: strongly connected sets of the module graph
  (every ``import`` / ``from ... import`` of a nanaccess module, inside functions
  too; importing a package is an arrow to its ``__init__``, a submodule through
  ``from package import submodule`` an arrow to that submodule).

Generated files (``_generated*.py``) are skipped. Run ``python tools/arch_metrics.py``
(``--list`` prints every finding); ``tests/test_arch_metrics.py`` holds the ceilings.
"""

from __future__ import annotations

import ast
import importlib.util
import pathlib
import sys
from collections import Counter
from dataclasses import dataclass, field

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "nanaccess"
MAX_LINES = 600
#: the table: the one place where statistic names are data
TABLE = "nanaccess/_stats.py"


def statistic_names() -> frozenset[str]:
    """The names of the table (read from this checkout's ``nanaccess/_stats.py``)."""
    path = pathlib.Path(__file__).resolve().parents[1] / TABLE
    spec = importlib.util.spec_from_file_location("_arch_metrics_stats", path)
    table = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = table  # dataclasses look their module up
    spec.loader.exec_module(table)
    return frozenset(table.STATISTICS)


def hand_written(package: pathlib.Path = PACKAGE) -> list[pathlib.Path]:
    """The hand-written modules of the package (generated accessors excluded)."""
    return sorted(p for p in package.rglob("*.py") if not p.name.startswith("_generated"))


def module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_package(path: pathlib.Path) -> bool:
    return path.name == "__init__.py"


def _resolve(importer: str, is_pkg: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = importer.split(".")
    if not is_pkg:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


@dataclass
class Metrics:
    comparisons: list[tuple[str, int, str]] = field(default_factory=list)
    private_imports: list[tuple[str, int, str]] = field(default_factory=list)
    long_modules: dict[str, int] = field(default_factory=dict)
    cycles: list[list[str]] = field(default_factory=list)

    def per_file(self) -> Counter[str]:
        return Counter(f for f, _, _ in self.comparisons)


def _literal_names(node: ast.AST) -> list[str] | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and node.elts and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
        return [e.value for e in node.elts]
    return None


def measure(package: pathlib.Path = PACKAGE) -> Metrics:
    stats = statistic_names()
    files = hand_written(package)
    modules = {module_name(p): p for p in files}
    # generated modules exist as import targets too
    known = set(modules) | {module_name(p) for p in package.rglob("_generated*.py")}
    out = Metrics()
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for path in files:
        rel = path.relative_to(ROOT).as_posix()
        text = path.read_text()
        n_lines = text.count("\n") + (not text.endswith("\n"))
        if n_lines > MAX_LINES:
            out.long_modules[rel] = n_lines
        name = module_name(path)
        tree = ast.parse(text, filename=rel)
        # imports under `if TYPE_CHECKING:` never run: they make no cycle
        typing_only = {id(n) for block in ast.walk(tree) if isinstance(block, ast.If)
                       and ast.unparse(block.test).endswith("TYPE_CHECKING")
                       for stmt in block.body for n in ast.walk(stmt)}
        for node in ast.walk(tree):
            if id(node) in typing_only and isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            if isinstance(node, ast.Compare) and rel != TABLE:
                sides = [node.left, *node.comparators]
                for op, left, right in zip(node.ops, sides, sides[1:], strict=False):
                    if not isinstance(op, (ast.Eq, ast.NotEq, ast.In, ast.NotIn)):
                        continue
                    for side in (left, right):
                        lits = _literal_names(side)
                        if lits and any(s in stats for s in lits):
                            out.comparisons.append((rel, node.lineno, ast.unparse(node)))
                            break
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] == "nanaccess":
                        target = alias.name
                        while target and target not in known:
                            target = target.rpartition(".")[0]
                        if target and target != name and target in graph:
                            graph[name].add(target)
            elif isinstance(node, ast.ImportFrom):
                source = _resolve(name, _is_package(path), node)
                if source.split(".")[0] != "nanaccess":
                    continue
                for alias in node.names:
                    sub = f"{source}.{alias.name}"
                    if sub in known:  # a submodule
                        if sub in graph and sub != name:
                            graph[name].add(sub)
                        continue
                    if source in graph and source != name:
                        graph[name].add(source)
                    private = alias.name.startswith("_") and not alias.name.startswith("__")
                    if private and source != name:
                        out.private_imports.append(
                            (rel, node.lineno, f"from {source} import {alias.name}"))
    out.cycles = _cycles(graph)
    return out


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected sets of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            node, it = work[-1]
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        m = stack.pop()
                        on.discard(m)
                        comp.append(m)
                        if m == node:
                            break
                    if len(comp) > 1:
                        found.append(sorted(comp))
    return sorted(found)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    m = measure()
    print(f"comparisons against statistic names: {len(m.comparisons)}")
    for f, n in m.per_file().most_common(10 if "--list" not in argv else None):
        print(f"    {n:3d}  {f}")
    print(f"private names imported across modules: {len(m.private_imports)}")
    print(f"modules over {MAX_LINES} lines: {len(m.long_modules)}")
    for f, n in sorted(m.long_modules.items(), key=lambda kv: -kv[1]):
        print(f"    {n:5d}  {f}")
    print(f"import cycles between modules: {len(m.cycles)}")
    for comp in m.cycles:
        print("    " + " <-> ".join(comp))
    if "--list" in argv:
        print("\ncomparisons:")
        for f, line, src in m.comparisons:
            print(f"  {f}:{line}: {src}")
        print("\nprivate imports:")
        for f, line, src in m.private_imports:
            print(f"  {f}:{line}: {src}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
