"""Render the per-host statistic methods and the API page list from the statistics table.

Usage::

    python tools/generate_api.py          # write the rendered modules and docs/api.rst
    python tools/generate_api.py --check  # exit 1 (with a diff) if writing would change
                                          # a committed file
    python tools/generate_api.py --hosts pandas dask   # only these hosts' modules

The host specs live in ``tools/apigen/hosts_*.py``, the engine and docstring
templates in ``tools/apigen/render.py`` (its docstring says how a host spec looks).
The examples' outputs are computed by running them, so writing takes two steps: the
modules are first written without outputs (so the hosts have every method), then a
fresh process imports nanaccess, runs the examples and the modules are written again
with their outputs. tests/test_generated_api.py runs the check.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from apigen import render  # noqa: E402

DOCS = "docs/api.rst"


def _by_path(specs: list[render.HostSpec]) -> dict[str, list[render.HostSpec]]:
    groups: dict[str, list[render.HostSpec]] = defaultdict(list)
    for s in specs:
        groups[s.path].append(s)
    return dict(groups)


def rendered(specs: list[render.HostSpec], outputs: dict | None) -> dict[str, str]:
    """path (relative to the repository) -> text, for every output of the generator."""
    files = {path: render.render_module(group, outputs) for path, group in _by_path(specs).items()}
    docs = render.ROOT / DOCS
    if docs.exists():
        files[DOCS] = render.splice_docs(docs.read_text(), specs)
    return files


def select(specs: list[render.HostSpec], prefixes: list[str] | None) -> list[render.HostSpec]:
    """The specs of ``prefixes`` plus every spec sharing an output module with one."""
    if not prefixes:
        return specs
    paths = {s.path for s in specs if s.key.startswith(tuple(prefixes))}
    return [s for s in specs if s.path in paths]


def _evaluate_fresh(prefixes: list[str] | None) -> dict:
    """The examples' outputs, computed in a new process (it imports the new modules)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "outputs.json"
        extra = ["--hosts", *prefixes] if prefixes else []
        subprocess.run([sys.executable, __file__, "--evaluate", str(out), *extra], check=True,
                       cwd=render.ROOT, env={**os.environ, "MPLBACKEND": "Agg"})
        return json.loads(out.read_text())


def write(specs: list[render.HostSpec], prefixes: list[str] | None = None) -> list[str]:
    changed = []
    for path, text in rendered(specs, None).items():
        if path != DOCS:
            (render.ROOT / path).write_text(text)
    for path, text in rendered(specs, _evaluate_fresh(prefixes)).items():
        target = render.ROOT / path
        if not target.exists() or target.read_text() != text:
            changed.append(path)
        target.write_text(text)
    return changed


def committed_outputs(specs: list[render.HostSpec]) -> dict | None:
    """The examples' outputs as the committed modules print them, in the form
    :func:`render.evaluate` returns; None if a method or an example is not there.

    The check compares everything else with a fresh rendering; whether the printed
    outputs are right is the doctests' job (``--doctest-modules`` runs every generated
    example), so the check need not run the examples a second time.
    """
    outputs: dict[str, list[list[str]]] = {}
    for path, group in _by_path(specs).items():
        target = render.ROOT / path
        if not target.exists():
            return None
        tree = ast.parse(target.read_text())
        tops = {n.name: n for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
        for spec in group:
            owner = tops.get(spec.name) if spec.kind == "mixin" else tree
            if owner is None:
                return None
            funcs = {n.name: n for n in owner.body if isinstance(n, ast.FunctionDef)}
            for stat in spec.stats():
                node = funcs.get(stat.name)
                doc = ast.get_docstring(node) if node is not None else None
                if doc is None or "\nExamples\n--------\n" not in doc:
                    return None
                runs: list[list[str]] = []
                for line in doc.split("\nExamples\n--------\n", 1)[1].splitlines():
                    if line.startswith(">>> "):
                        runs.append([])
                    elif runs:
                        runs[-1].append("" if line == "<BLANKLINE>" else line)
                outputs[f"{spec.key}.{stat.name}"] = runs
    return outputs


def check(specs: list[render.HostSpec]) -> list[str]:
    """Paths whose committed text differs from a fresh rendering (diffs on stderr)."""
    stale = []
    outputs = committed_outputs(specs)
    for path, text in rendered(specs, outputs or render.evaluate(specs)).items():
        target = render.ROOT / path
        old = target.read_text() if target.exists() else ""
        if old != text:
            stale.append(path)
            sys.stderr.writelines(difflib.unified_diff(
                old.splitlines(True), text.splitlines(True), f"{path} (committed)",
                f"{path} (regenerated)"))
    return stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="compare with the committed files instead of writing")
    parser.add_argument("--hosts", metavar="PREFIX", nargs="+",
                        help="only the hosts whose key starts with a PREFIX (e.g. pandas "
                             "dask); their output modules are written whole")
    parser.add_argument("--evaluate", metavar="JSON", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    specs = select(render.discover_hosts(), args.hosts)
    if args.evaluate:
        Path(args.evaluate).write_text(json.dumps(render.evaluate(specs)))
        return 0
    if args.check:
        stale = check(specs)
        if stale:
            print("stale generated files (run python tools/generate_api.py): "
                  + ", ".join(stale), file=sys.stderr)
            return 1
        return 0
    changed = write(specs, args.hosts)
    print("written: " + (", ".join(changed) if changed else "nothing changed"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
