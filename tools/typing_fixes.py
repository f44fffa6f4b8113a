"""Mechanical annotations for ``mypy --strict`` (issue 27, item 4).

``python tools/typing_fixes.py apply [PATH ...]`` edits the package in place (default:
``nanaccess``). It only ever *adds* annotation text; it never moves code, so other
branches' edits to the same files merge, and it is idempotent (a second run changes
nothing), so a merge can simply run it again. What it adds:

* ``from __future__ import annotations`` where missing (annotations cost nothing at run
  time then, and numba never sees them);
* ``-> None`` on functions whose body returns no value (and on every ``__init__``);
* ``-> Any`` on other unannotated functions, ``: Any`` on unannotated ``*args`` and
  ``**kwargs``;
* in the numba kernel modules (plain Python over arrays: ``core/_numba``,
  ``core/exactsum/compiled.py``): ``np.ndarray`` on a parameter the body indexes or asks
  for ``.shape``/``.size``/``.dtype``/``.ndim``/``len()``, ``Any`` on the other ones;
  elsewhere ``Any`` on parameters left bare (to be narrowed by hand);
* type arguments on bare generics in annotations (``dict`` -> ``dict[str, Any]`` when the
  name says keyword-like, else ``dict[Any, Any]``; ``list`` -> ``list[Any]``, ``tuple``
  -> ``tuple[Any, ...]``, ``Callable`` -> ``Callable[..., Any]``, ...);
* ``from typing import Any`` when it introduced ``Any`` and the module lacks it.

``python tools/typing_fixes.py check`` exits 1 when ``apply`` would change something.
"""

from __future__ import annotations

import ast
import io
import subprocess
import sys
import tokenize
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 600  # tests/test_arch_metrics.py: no module over 600 lines
KERNEL_PARTS = ("nanaccess/core/_numba/", "nanaccess/core/exactsum/compiled.py")
ARRAY_ATTRS = {"shape", "size", "dtype", "ndim", "itemsize", "view", "reshape", "ravel",
               "astype", "copy", "fill", "sum", "strides", "T", "flat", "tobytes"}
GENERICS = {
    "dict": "dict[{k}, Any]", "Dict": "dict[{k}, Any]", "Mapping": "Mapping[{k}, Any]",
    "MutableMapping": "MutableMapping[{k}, Any]",
    "list": "list[Any]", "List": "list[Any]", "set": "set[Any]", "frozenset": "frozenset[Any]",
    "tuple": "tuple[Any, ...]", "Tuple": "tuple[Any, ...]",
    "Iterable": "Iterable[Any]", "Iterator": "Iterator[Any]", "Sequence": "Sequence[Any]",
    "Callable": "Callable[..., Any]", "PathLike": "PathLike[str]", "Queue": "Queue[Any]",
    "type": "type[Any]", "Generator": "Generator[Any, None, None]",
}


def _is_kernel(path: Path) -> bool:
    rel = path.resolve().relative_to(ROOT).as_posix()
    return any(rel.startswith(p) for p in KERNEL_PARTS)


class _Edits:
    """Insertions at (line, column-in-characters), applied last-first."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines(keepends=True)
        self.items: list[tuple[int, int, int, str]] = []  # line, col, end col, new text

    def col(self, line: int, byte_col: int) -> int:
        raw = self.lines[line - 1].encode("utf-8")[:byte_col]
        return len(raw.decode("utf-8"))

    def replace(self, line: int, col: int, end: int, new: str) -> None:
        self.items.append((line, col, end, new))

    def apply(self) -> str:
        lines = list(self.lines)
        for line, col, end, new in sorted(self.items, reverse=True):
            s = lines[line - 1]
            lines[line - 1] = s[:col] + new + s[end:]
        for line in sorted({i[0] for i in self.items}, reverse=True):
            lines[line - 1] = _wrap(lines[line - 1])
        return "".join(lines)


def _wrap(line: str, limit: int = 100) -> str:
    """Break a too-long signature line after commas, aligned under their open bracket."""
    body = line.rstrip("\n")
    if len(body) <= limit:
        return line
    depth: list[int] = []
    commas: list[tuple[int, int]] = []  # comma index, its innermost open bracket
    quote = None
    for i, ch in enumerate(body):
        if quote:
            if ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth.append(i)
        elif ch in ")]}":
            if depth:
                depth.pop()
        elif ch == "," and body[i + 1:i + 2] == " ":
            if not depth:  # a continuation line: its bracket opened on a line above
                commas.append((i, len(body) - len(body.lstrip()) - 1))
            elif body[depth[-1]] == "(":
                commas.append((i, depth[-1]))
    out: list[str] = []
    start, indent = 0, 0
    while indent + len(body) - start > limit:
        fits = [c for c in commas if c[0] > start and indent + c[0] + 1 - start <= limit]
        if not fits:
            break
        i, open_at = fits[-1]
        out.append(" " * indent + body[start:i + 1])
        start, indent = i + 2, open_at + 1
    out.append(" " * indent + body[start:])
    return "\n".join(out) + line[len(body):]


def _own_nodes(fn: ast.AST) -> Iterator[ast.AST]:
    """Nodes of a function body, not descending into nested functions/classes/lambdas."""
    stack = list(ast.iter_child_nodes(fn))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        stack.extend(ast.iter_child_nodes(node))


def _returns_value(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for node in _own_nodes(fn):
        if isinstance(node, ast.Return) and node.value is not None:
            if not (isinstance(node.value, ast.Constant) and node.value.value is None):
                return True
    return False


def _is_generator(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(isinstance(n, ast.Yield | ast.YieldFrom) for n in _own_nodes(fn)
               if not isinstance(n, ast.Lambda))


def _array_evident(fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    for node in _own_nodes(fn):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) \
                and node.value.id == name:
            return True
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id == name and node.attr in ARRAY_ATTRS:
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "len" and node.args \
                and isinstance(node.args[0], ast.Name) and node.args[0].id == name:
            return True
    return False


def _signature_colon(text_lines: list[str], fn: ast.FunctionDef | ast.AsyncFunctionDef
                     ) -> tuple[int, int] | None:
    """(line, col) of the ``:`` closing the signature; None when it has a ``->``."""
    start = fn.lineno
    end = fn.body[0].lineno if fn.body else fn.end_lineno or fn.lineno
    src = "".join(text_lines[start - 1:end])
    depth = 0
    seen_def = False
    try:
        for tok in tokenize.generate_tokens(io.StringIO(src).readline):
            if tok.type == tokenize.NAME and tok.string == "def":
                seen_def = True
            if not seen_def or tok.type != tokenize.OP:
                continue
            if tok.string in "([{":
                depth += 1
            elif tok.string in ")]}":
                depth -= 1
            elif depth == 0 and tok.string == "->":
                return None
            elif depth == 0 and tok.string == ":":
                return start + tok.start[0] - 1, tok.start[1]
    except tokenize.TokenError:
        pass
    return None


def _bare_generics(ann: ast.expr) -> Iterator[ast.expr]:
    """Name/Attribute nodes of a bare generic inside an annotation."""
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        return  # string annotations: leave to hand
    parents: dict[ast.AST, ast.AST] = {}
    for node in ast.walk(ann):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    for node in ast.walk(ann):
        name = node.id if isinstance(node, ast.Name) else (
            node.attr if isinstance(node, ast.Attribute) else None)
        if name not in GENERICS:
            continue
        parent = parents.get(node)
        if isinstance(parent, ast.Subscript) and parent.value is node:
            continue
        if isinstance(parent, ast.Attribute):
            continue
        yield node


def _generic_text(node: ast.expr, context: str) -> str:
    name = node.id if isinstance(node, ast.Name) else node.attr  # type: ignore[attr-defined]
    prefix = ast.unparse(node)[: -len(name)]
    keyish = any(w in context.lower() for w in ("kw", "option", "param", "attrs", "names",
                                                 "config", "kwargs", "env", "meta"))
    return prefix + GENERICS[name].format(k="str" if keyish else "Any")


def fix_source(text: str, kernel: bool) -> str:
    tree = ast.parse(text)
    ed = _Edits(text)
    used_any = False
    has_np = any(isinstance(n, ast.Import) and any(a.name == "numpy" and a.asname == "np"
                                                   for a in n.names)
                 for n in tree.body)
    methods: set[ast.AST] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    methods.add(item)

    def annotate_generics(ann: ast.expr | None, context: str) -> None:
        nonlocal used_any
        if ann is None:
            return
        for node in _bare_generics(ann):
            assert node.end_col_offset is not None and node.end_lineno == node.lineno
            ed.replace(node.lineno, ed.col(node.lineno, node.col_offset),
                       ed.col(node.lineno, node.end_col_offset), _generic_text(node, context))
            used_any = True

    for node in ast.walk(tree):
        if isinstance(node, ast.AnnAssign):
            annotate_generics(node.annotation, ast.unparse(node.target))
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        args = node.args
        positional = [*args.posonlyargs, *args.args]
        decos = {ast.unparse(d) for d in node.decorator_list}
        skip_first = node in methods and "staticmethod" not in decos and positional
        for i, a in enumerate([*positional, *args.kwonlyargs]):
            if a.annotation is not None:
                annotate_generics(a.annotation, a.arg)
                continue
            if i == 0 and skip_first:
                continue
            if kernel and has_np and _array_evident(node, a.arg):
                new = ": np.ndarray"
            else:
                new = ": Any"
                used_any = True
            line = a.lineno
            end = ed.col(line, a.end_col_offset or 0)
            rest = ed.lines[line - 1][end:]
            if rest.startswith("="):
                ed.replace(line, end, end + 1, new + " = ")
            else:
                ed.replace(line, end, end, new)
        for a in (args.vararg, args.kwarg):
            if a is None:
                continue
            if a.annotation is not None:
                annotate_generics(a.annotation, a.arg)
                continue
            end = ed.col(a.lineno, a.end_col_offset or 0)
            ed.replace(a.lineno, end, end, ": Any")
            used_any = True
        if node.returns is not None:
            annotate_generics(node.returns, node.name)
            continue
        if _is_generator(node):
            continue  # left to hand
        colon = _signature_colon(ed.lines, node)
        if colon is None:
            continue
        if node.name == "__init__" or not _returns_value(node):
            ret = " -> None"
        else:
            ret = " -> Any"
            used_any = True
        line, col = colon
        ed.replace(line, col, col, ret)

    out = ed.apply()
    if used_any and not _imports_any(tree):
        out = _add_import(out, "from typing import Any\n")
    if "from __future__ import annotations" not in out:
        out = _add_import(out, "from __future__ import annotations\n", first=True)
    return out


def _imports_any(tree: ast.Module) -> bool:
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "typing" \
                and any(a.name == "Any" and a.asname is None for a in node.names):
            return True
    return False


def _add_import(text: str, stmt: str, first: bool = False) -> str:
    """Put ``stmt`` after the docstring (``first``) or after ``from __future__``.

    ``ruff check --fix --select I`` (run by ``apply`` on the files it changed) then
    merges it into the import block.
    """
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    body = tree.body
    at = 0
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        at = body[0].end_lineno or 0
    if not first:
        for node in body:
            if isinstance(node, ast.ImportFrom) and node.module == "__future__":
                at = node.end_lineno or at
                break
    sep = "\n" if at else ""
    return "".join(lines[:at]) + sep + stmt + "".join(lines[at:])


def files(paths: list[str]) -> list[Path]:
    out: list[Path] = []
    for p in paths or ["nanaccess"]:
        path = (ROOT / p) if not Path(p).is_absolute() else Path(p)
        out.extend(sorted(path.rglob("*.py")) if path.is_dir() else [path])
    return [p for p in out if p.name != "_version.py"]


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("apply", "check"):
        print(__doc__)
        return 2
    changed = []
    for path in files(argv[1:]):
        text = path.read_text()
        new = fix_source(text, _is_kernel(path))
        if new.count("\n") > MAX_LINES >= text.count("\n"):
            print(f"skipped (would pass {MAX_LINES} lines): {path.relative_to(ROOT)}")
            continue
        if new != text:
            changed.append(path)
            if argv[0] == "apply":
                path.write_text(new)
    for path in changed:
        print(path.relative_to(ROOT))
    if changed and argv[0] == "apply":
        ruff = Path(sys.executable).with_name("ruff")
        subprocess.run([str(ruff) if ruff.exists() else "ruff", "check", "--quiet", "--fix",
                        "--select", "I", *map(str, changed)], check=False)
    return 1 if (changed and argv[0] == "check") else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
