"""Issue 22's measured ceilings, held: ``tools/arch_metrics.py`` counts the hand-written
code (generated accessors excluded) and these tests fail when a change takes a count
back over its ceiling. Lower a ceiling when a count falls; never raise one."""

from __future__ import annotations

import ast
import importlib.util
import pathlib
import sys
import textwrap

ROOT = pathlib.Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("arch_metrics", ROOT / "tools" / "arch_metrics.py")
arch_metrics = importlib.util.module_from_spec(_spec)
sys.modules["arch_metrics"] = arch_metrics
_spec.loader.exec_module(arch_metrics)

#: ``== "var"``, ``in ("median", ...)``: engines read the table's sets instead
MAX_NAME_COMPARISONS = 45
#: ``from x import _y`` across modules: a name shared is a public name
MAX_PRIVATE_IMPORTS = 40
#: modules over 600 lines that another branch owns and is splitting (the window
#: engines, helper ``win``); remove an entry when its module is split
LONG_MODULES_OWNED_ELSEWHERE = {
    "nanaccess/core/_numba/window_var.py",
    "nanaccess/core/window/reduce.py",
}
#: import cycles between modules (imports inside functions count)
MAX_CYCLES = 0

METRICS = arch_metrics.measure()


def test_comparisons_against_statistic_names():
    got = METRICS.comparisons
    assert len(got) <= MAX_NAME_COMPARISONS, "\n".join(
        f"{f}:{line}: {src}" for f, line, src in got)


def test_private_names_imported_across_modules():
    got = METRICS.private_imports
    assert len(got) <= MAX_PRIVATE_IMPORTS, "\n".join(
        f"{f}:{line}: {src}" for f, line, src in got)


def test_no_module_over_600_lines():
    over = set(METRICS.long_modules) - LONG_MODULES_OWNED_ELSEWHERE
    assert not over, {f: METRICS.long_modules[f] for f in over}


def test_import_cycles():
    assert len(METRICS.cycles) <= MAX_CYCLES, METRICS.cycles
    xarray = [c for c in METRICS.cycles if any(m.startswith("nanaccess.xarray") for m in c)]
    assert not xarray, xarray


def test_the_counter_counts(tmp_path):
    """Each rule fires on a planted module and stays quiet on its neighbour."""
    pkg = tmp_path / "nanaccess"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "a.py").write_text(textwrap.dedent("""
        from . import b
        from .b import _hidden, shown
        def f(stat, how):
            from .b import _late
            return (stat == "var", stat in ("median", "x"), how == "left",
                    stat in {"foo"}, "std" != stat, stat < "mean")
    """))
    (pkg / "sub" / "b.py").write_text("from .a import f\n" + "x = 1\n" * 601)
    (pkg / "sub" / "_generated_c.py").write_text("y = stat == 'var'\n" * 700)
    old = arch_metrics.ROOT
    arch_metrics.ROOT = tmp_path
    try:
        m = arch_metrics.measure(pkg)
    finally:
        arch_metrics.ROOT = old
    assert [src for _, _, src in m.comparisons] == [
        "stat == 'var'", "stat in ('median', 'x')", "'std' != stat"]
    assert sorted(src.split()[-1] for _, _, src in m.private_imports) == ["_hidden", "_late"]
    assert list(m.long_modules) == ["nanaccess/sub/b.py"]
    assert m.cycles == [["nanaccess.sub.a", "nanaccess.sub.b"]]
    ast.parse((ROOT / "tools" / "arch_metrics.py").read_text())
