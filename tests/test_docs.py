"""The docs site (built once, warnings as errors), the README and the CI script."""

from __future__ import annotations

import doctest
import importlib.util
import json
import re
from pathlib import Path

import pytest

import nanaccess

docs = pytest.mark.xdist_group("docs")

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

README = ROOT / "README.md"
CI = ROOT / ".ci" / "run"
DEMO_CMD = (
    "python3 -m venv .venv && .venv/bin/pip install --no-compile -e . "
    "&& .venv/bin/nanaccess describe"
)
TEST_CMD = (
    'python3 -m venv .venv && .venv/bin/pip install -e ".[test]" '
    "&& .venv/bin/python -m pytest -n 2 --dist loadgroup"
)


def _gen_perf():
    spec = importlib.util.spec_from_file_location("gen_perf", DOCS / "gen_perf.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --------------------------------------------------------------------------------------
# the build


@docs
def test_docs_build_without_warnings(docs_build):
    tail = docs_build.output[-6000:]
    assert docs_build.returncode == 0, f"sphinx-build -W failed:\n{tail}"
    # Sphinx's own warnings and errors ("file.md:12: WARNING: ..."); -W makes them fatal
    # already, this names them. Kernel start-up chatter ("[IPKernelApp] WARNING |") is not
    # a docs problem.
    problems = [
        line
        for line in docs_build.output.splitlines()
        if re.search(r"(^|: )(WARNING|ERROR|CRITICAL): ", line)
    ]
    assert not problems, "\n".join(problems[:30])
    for page in ("index", "getting-started", "semantics", "groupby", "dask", "api", "performance"):
        assert (docs_build.html / f"{page}.html").exists(), page


@docs
def test_api_page_lists_accessor_methods(docs_build):
    api = docs_build.page("api")
    for name in (
        "DataFrame.nanstats.median",
        "Series.nanstats.quantile",
        "DataArray.nanstats.median",
        "Dataset.nanstats.median",
    ):
        assert name in api, f"API page does not list {name}"
    generated = docs_build.html / "generated"
    page = generated / "pandas.DataFrame.nanstats.median.html"
    assert page.exists(), sorted(p.name for p in generated.glob("*nanstats*"))[:20]
    text = page.read_text(encoding="utf-8")
    assert "nan_policy" in text and "Examples" in text
    assert (generated / "nanaccess.median.html").exists()


@docs
def test_semantics_page_has_figure_and_comparison(docs_build):
    html = docs_build.page("semantics")
    assert re.search(r'<img[^>]+src="_images/[^"]+\.png"', html), "no bit-layout figure"
    for policy in ("raise", "propagate", "omit", "smallest", "largest", "totalorder"):
        assert f"nan_policy=&#39;{policy}&#39;" in html or f"nan_policy='{policy}'" in html
    for other in (
        "statistics.median",
        "numpy.median",
        "numpy.nanmedian",
        "pandas .median()",
        "scipy.stats",
    ):
        assert other in html, f"side-by-side table lacks {other}"
    assert "0x7ff8000000000000" in html.lower()  # bits printed by an executed cell


@docs
def test_performance_page_comes_from_the_results(docs_build):
    html = docs_build.page("performance")
    built = (docs_build.html / "performance.html").stat().st_mtime
    results = sorted((ROOT / "benchmarks" / "results").glob("*.json"))
    if not results:
        assert "Not yet measured" in html
    else:
        assert "Not yet measured" not in html
        assert "<table" in html
        for path in results:
            if path.stat().st_mtime > built - 60:
                continue  # written while the docs were building (a local benchmark run)
            assert f"benchmarks/results/{path.name}" in html
    if (ROOT / "benchmarks" / "results" / "summary.json").exists():
        # the page leads with the ratio chart drawn from the results (before any
        # table), and the summary and its chart come before the detail tables
        glance = html.index('id="at-a-glance"')
        assert glance < html.index("<table") and "<img" in html[glance:html.index("<table")]
        summary = html.index('id="summary"')
        assert summary < html.index('id="every-measurement"')
        chart = re.search(r'<img[^>]+src="(_images/perf_summary[^"]*\.svg)"', html)
        assert chart and html.index(chart.group(0)) > summary, "no summary chart"
        svg = (docs_build.html / chart.group(1)).read_text(encoding="utf-8")
        assert "target" in svg and " vs " in svg  # bars labelled by their reference


@docs
def test_error_examples_show_the_message_not_a_traceback(docs_build):
    pages = sorted(docs_build.html.rglob("*.html"))
    frames = re.compile(r'File (?:&quot;|")[^"&]+(?:&quot;|"), line \d+')
    with_paths = [
        str(p.relative_to(docs_build.html))
        for p in pages
        if frames.search(p.read_text(encoding="utf-8"))
    ]
    assert not with_paths, f"pages showing a traceback with file paths: {with_paths}"
    # the pages and error docstrings of this suite print the message alone
    own = ["index", "getting-started", "semantics", "groupby", "performance"]
    own += [f"notebooks/{p.stem}" for p in (ROOT / "notebooks").glob("*.ipynb")]
    own += [f"generated/nanaccess.{e}" for e in ("NaNError", "SignalingNaNError",
                                                "WeightsValueError")]
    tracebacks = [page for page in own if "Traceback (most" in docs_build.page(page)]
    assert not tracebacks, f"pages showing a traceback: {tracebacks}"
    text = docs_build.page("getting-started")
    assert "NaNError: data holds 1 NaN value" in text


@docs
def test_long_dotted_names_break_only_after_a_dot(docs_build):
    page = docs_build.html / "generated" / "pandas.api.typing.DataFrameGroupBy.nanstats.agg.html"
    if not page.exists():  # the longest names the API has
        page = max((docs_build.html / "generated").glob("*.html"), key=lambda p: len(p.name))
    html = page.read_text(encoding="utf-8")
    title = re.search(r"<h1>(.*?)<a class=\"headerlink\"", html, flags=re.S).group(1)
    assert "<wbr>" in title and re.sub(r"<[^>]+>", "", title) == page.stem
    # the sidebar entries too, and the stylesheet that keeps words whole
    assert re.search(r'class="reference internal"[^>]*>[^<]*\.<wbr>', html)
    assert "custom.css" in html
    css = (docs_build.html / "_static" / "custom.css").read_text(encoding="utf-8")
    assert "overflow-wrap: normal" in css


# --------------------------------------------------------------------------------------
# sources, checked without a build


def _public_methods(cls: type) -> set[str]:
    names = set()
    for klass in cls.__mro__:
        if klass.__module__.split(".")[0] != "nanaccess":
            continue
        names.update(n for n, v in vars(klass).items() if not n.startswith("_") and callable(v))
    return names


def test_api_reference_is_complete():
    """Every public function and accessor method is listed in docs/api.rst."""
    api = (DOCS / "api.rst").read_text(encoding="utf-8")
    entries = set(re.findall(r"^\s{3}([\w.]+)\s*$", api, flags=re.M))
    missing = []
    for name in nanaccess.__all__:
        obj = getattr(nanaccess, name)
        if callable(obj) and name not in entries:
            missing.append(name)
    import pandas as pd
    import xarray as xr

    for host in (pd.Series, pd.DataFrame, xr.DataArray, xr.Dataset):
        cls = host.nanstats  # class attribute access gives the accessor class
        for method in _public_methods(cls):
            if f"{host.__name__}.nanstats.{method}" not in entries:
                missing.append(f"{host.__name__}.nanstats.{method}")
    assert not missing, f"docs/api.rst does not list: {missing}"


def test_gen_perf_renders_results(tmp_path: Path):
    gen = _gen_perf()
    failures, tried = doctest.testmod(gen, optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failures == 0

    assert gen.render(tmp_path).strip() == gen.NOT_MEASURED
    (tmp_path / "a_list.json").write_text(
        json.dumps([{"case": "median 1e6", "nanaccess": 0.01234, "numpy": 0.0456}])
    )
    (tmp_path / "b_pytest_benchmark.json").write_text(
        json.dumps(
            {
                "machine_info": {"cpu": "x86_64", "python_version": "3.11.7"},
                "benchmarks": [{"name": "test_median", "stats": {"mean": 1.5e-05, "rounds": 10}}],
            }
        )
    )
    (tmp_path / "c_broken.json").write_text("{not json")
    md = gen.render(tmp_path)
    assert "| case | nanaccess | numpy |" in md
    assert "| median 1e6 | 0.0123 | 0.0456 |" in md
    assert "| name | stats.mean | stats.rounds |" in md and "1.500e-05" in md
    assert "cpu: x86_64" in md
    assert "Could not be read" in md
    # headings stay one level below the page title (MyST warns on skipped levels)
    assert all(line.startswith("## ") for line in md.splitlines() if line.startswith("#"))

    # a summary leads, with the chart of its ratios; a column of one value is said once
    (tmp_path / "summary.json").write_text(
        json.dumps(
            {
                "results": [
                    {
                        "bench": "g",
                        "target": "groupby <= 1.0x pandas",
                        "accel": True,
                        "worst_case": "w",
                        "worst_ratio": 0.8,
                        "met": True,
                    },
                    {
                        "bench": "l",
                        "target": "list <= 0.5x statistics",
                        "accel": False,
                        "worst_case": "v",
                        "worst_ratio": 0.7,
                        "met": False,
                    },
                ]
            }
        )
    )
    (tmp_path / "d_same.json").write_text(
        json.dumps([{"case": "a", "n": 5, "t": 1.0}, {"case": "b", "n": 5, "t": 2.0}])
    )
    assert [r["target_x"] for r in gen.summary_rows(tmp_path)] == [1.0, 0.5]
    out = tmp_path / "out" / "tables.md"
    md = gen.write_tables(tmp_path, out)
    assert md.startswith("## Summary") and "1 of 2 targets met" in md
    assert f"]({gen.CHART})" in md and (out.parent / gen.CHART).exists()
    svg = (out.parent / gen.CHART).read_text(encoding="utf-8")
    assert "groupby vs pandas (numba)" in svg and "list vs statistics (NumPy only)" in svg
    assert "In every row: n 5." in md and "| case | t |" in md
    assert md.count("summary.json") == 1  # not repeated as a detail table
    heads = [line for line in md.splitlines() if line.startswith("#")]
    assert heads[:2] == ["## Summary", "## Every measurement"]
    assert all(h.startswith("### ") for h in heads[2:]) and len(heads) == 6


def test_dotted_breaks_only_touch_text_after_a_dot():
    spec = importlib.util.spec_from_file_location("dotted_breaks", DOCS / "dotted_breaks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    failures, tried = doctest.testmod(module)
    assert tried > 0 and failures == 0
    brk = module.break_dots
    assert brk("pandas.api.typing.DataFrameGroupBy") == (
        "pandas.<wbr>api.<wbr>typing.<wbr>DataFrameGroupBy"
    )
    assert (
        brk('<a href="a.b.html" title="x.y">a.b</a>')
        == '<a href="a.b.html" title="x.y">a.<wbr>b</a>'
    )
    assert brk("1.5 and e.g. 0.25") == "1.5 and e.<wbr>g. 0.25"  # numbers keep their dot
    ctx = {
        "body": '<h1>x.y<a class="headerlink" href="#">#</a></h1><p>a.b</p>',
        "next": {"title": "m.n", "link": "m.n.html"},
    }
    module.add_breaks(None, "page", "page.html", ctx, None)
    assert ctx["body"].startswith("<h1>x.<wbr>y") and "<p>a.b</p>" in ctx["body"]
    assert ctx["next"] == {"title": "m.<wbr>n", "link": "m.n.html"}


def test_readme_has_the_two_commands_and_ci_runs_the_test_command():
    text = README.read_text(encoding="utf-8")
    assert DEMO_CMD in text
    assert TEST_CMD in text
    ci = CI.read_text(encoding="utf-8")
    assert TEST_CMD in ci, ".ci/run must run the README's test command"
    assert "set -euo pipefail" in ci
    assert CI.stat().st_mode & 0o111, ".ci/run must be executable"


def test_readme_tour_runs():
    """The README's >>> tour is a doctest: it must keep working."""
    text = README.read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    tour = "\n".join(b for b in blocks if b.lstrip().startswith(">>>"))
    assert tour.count(">>>") >= 8
    assert len(tour.splitlines()) <= 24, "keep the tour to about 20 lines"
    parser = doctest.DocTestParser()
    test = parser.get_doctest(tour, {}, "README tour", str(README), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    out: list[str] = []
    runner.run(test, out=out.append)
    assert runner.failures == 0, "".join(out)


def test_docs_link_targets_exist():
    text = README.read_text(encoding="utf-8")
    for target in re.findall(r"\]\(((?:docs|notebooks)/[^)]+)\)", text):
        assert (ROOT / target).exists(), f"README links to missing {target}"
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        assert f"notebooks/{nb.stem}" in index, f"{nb.name} is not in the docs toctree"
