"""Render the benchmark results in ``benchmarks/results/*.json`` as Markdown tables.

The performance page (``performance.md``) includes the file this writes, so the
numbers in the docs always come from the JSON the benchmark suite saved, never typed
by hand. ``conf.py`` calls :func:`write_tables` on every build; run it by hand with::

    python docs/gen_perf.py            # print the Markdown
    python docs/gen_perf.py OUT.md     # write it

Accepted JSON shapes: a list of records (one table row each); an object holding such a
list under "results", "benchmarks", "rows" or "data" (its other scalar fields become a
"measured on" line, a nested "machine"/"machine_info"/"environment" object too);
nested objects in records are flattened to dotted names (``stats.mean``), so
pytest-benchmark files work as well. With no JSON present the page says so.

``summary.json`` (one row per target: the worst same-run ratio against its reference)
leads the page: a chart (:func:`write_chart`, matplotlib, an SVG written next to the
Markdown at build time) and its table; the other files follow as details, columns
that hold one value in every row said once above their table instead.
"""

from __future__ import annotations

import json
import math
import re
import sys
import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["render", "write_tables", "write_chart", "summary_rows", "ratio_figure",
           "AREAS", "NOT_MEASURED"]

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
NOT_MEASURED = (
    "Not yet measured: there are no results in `benchmarks/results/`. Run the benchmark "
    "suite in `benchmarks/` to write them; the next docs build shows them here."
)
_LIST_KEYS = ("results", "benchmarks", "rows", "data", "records")
_META_KEYS = ("machine", "machine_info", "environment", "env", "meta", "metadata")
SUMMARY = "summary.json"
CHART = "perf_summary.svg"


def _flatten(record: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in record.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(_flatten(value, prefix=f"{name}."))
        elif isinstance(value, list | tuple) and not any(isinstance(v, Mapping) for v in value):
            out[name] = ", ".join(map(str, value))
        elif not isinstance(value, list | tuple):
            out[name] = value
    return out


def _fmt(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if value == 0 or 1e-3 <= abs(value) < 1e6:
            return f"{value:.3g}" if abs(value) < 1000 else f"{value:,.0f}"
        return f"{value:.3e}"
    if isinstance(value, int):
        return f"{value:,}" if abs(value) >= 10000 else str(value)
    return str(value).replace("|", "\\|").replace("\n", " ")


def _table(records: list[Mapping[str, Any]]) -> str:
    rows = [_flatten(r) for r in records]
    columns: list[str] = []
    for r in rows:
        columns.extend(k for k in r if k not in columns)
    if not columns:
        return "*(no rows)*"
    same = {}
    if len(rows) > 1:  # a column with one value in every row: said once, not repeated
        for c in columns:
            values = {repr(r.get(c)) for r in rows}
            if len(values) == 1 and len(columns) - len(same) > 2:
                same[c] = rows[0].get(c)
        columns = [c for c in columns if c not in same]
    head = ""
    if same:
        head = "In every row: " + ", ".join(f"{c} {_fmt(v) or '—'}" for c, v in same.items())
        head += ".\n\n"
    lines = ["| " + " | ".join(columns) + " |"]
    lines.append("| " + " | ".join("---:" if _numeric(rows, c) else "---" for c in columns) + " |")
    for r in rows:
        lines.append("| " + " | ".join(_fmt(r.get(c)) for c in columns) + " |")
    return head + "\n".join(lines)


def _numeric(rows: list[dict[str, Any]], column: str) -> bool:
    values = [r.get(column) for r in rows if r.get(column) is not None]
    return bool(values) and all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in values
    )


def _section(path: Path, level: int = 2) -> str:
    title = path.stem.replace("_", " ").replace("-", " ")
    mark = "#" * level
    head = f"{mark} {title[:1].upper()}{title[1:]}\n\nFrom `benchmarks/results/{path.name}`."
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        return f"{head}\n\nCould not be read: {_fmt(str(err))}\n"
    meta: dict[str, Any] = {}
    records: list[Mapping[str, Any]] | None = None
    if isinstance(data, list):
        records = [r if isinstance(r, Mapping) else {"value": r} for r in data]
    elif isinstance(data, Mapping):
        for key in _LIST_KEYS:
            if isinstance(data.get(key), list):
                records = [r if isinstance(r, Mapping) else {"value": r} for r in data[key]]
                break
        for key, value in data.items():
            if key in _LIST_KEYS and records is not None:
                continue
            if isinstance(value, Mapping) and key in _META_KEYS:
                meta.update(_flatten(value))
            elif not isinstance(value, Mapping | list | tuple):
                meta[key] = value
        if records is None:
            records = [{"name": k, "value": v} for k, v in _flatten(data).items()]
            meta = {}
    else:
        records = [{"value": data}]
    parts = [head]
    if meta:
        shown = ", ".join(f"{k}: {_fmt(v)}" for k, v in list(meta.items())[:12])
        parts.append(f"Measured with {shown}.")
    parts.append(_table(records))
    return "\n\n".join(parts) + "\n"


def _target_value(text: str) -> float | None:
    """The number in a target such as "... <= 0.5x NumPy" (None when there is none).

    >>> _target_value("groupby <= 1.0x pandas"), _target_value("at most one extra copy")
    (1.0, None)
    """
    found = re.search(r"<=\s*([0-9.]+)\s*x", text)
    return float(found.group(1)) if found else None


def summary_rows(results_dir: Path | str = RESULTS) -> list[dict[str, Any]]:
    """The rows of ``summary.json`` that have a ratio, with a numeric ``target_x``.

    A target without a number ("at most one extra copy") is a ratio of copies: 1.
    """
    path = Path(results_dir) / SUMMARY
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    records = data.get("results", []) if isinstance(data, Mapping) else data
    rows = []
    for r in records if isinstance(records, list) else []:
        if not isinstance(r, Mapping) or not isinstance(r.get("worst_ratio"), int | float):
            continue
        target = str(r.get("target", ""))
        rows.append({**r, "target_x": _target_value(target) or 1.0})
    return rows


def _label(row: Mapping[str, Any]) -> str:
    """ "groupby <= 1.0x pandas" -> "groupby vs pandas (numba)", wrapped."""
    target = str(row.get("target", row.get("bench", "")))
    found = re.match(r"(.*?):?\s*<=\s*[0-9.]+\s*x\s*(.*)$", target)
    text = f"{found.group(1)} vs {found.group(2)}" if found else f"{target}: copies"
    engine = "numba" if row.get("accel") else "NumPy only"
    return "\n".join(textwrap.wrap(f"{text} ({engine})", 40))


def write_chart(results_dir: Path | str, out: Path | str) -> bool:
    """Draw the summary's worst ratio per target as bars, each with its target line.

    Writes an SVG at ``out``; returns False (and writes nothing) when there is no
    summary or no matplotlib.
    """
    rows = summary_rows(results_dir)
    if not rows:
        return False
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - the docs extra installs it
        return False
    rows = rows[::-1]  # first summary row on top
    fig, ax = plt.subplots(figsize=(8, 0.6 * len(rows) + 1.4), layout="constrained")
    ys = range(len(rows))
    ratios = [float(r["worst_ratio"]) for r in rows]
    colors = ["#2a9d8f" if r.get("met") else "#e76f51" for r in rows]
    ax.barh(list(ys), ratios, height=0.6, color=colors, zorder=2)
    for y, r, ratio in zip(ys, rows, ratios, strict=True):
        t = r["target_x"]
        ax.plot([t, t], [y - 0.42, y + 0.42], color="#222222", lw=2, zorder=3)
        ax.annotate(
            f"{ratio:.2f}x",
            (max(ratio, t), y),
            xytext=(4, 0),
            textcoords="offset points",
            va="center",
            fontsize=8,
        )
    ax.set_xscale("log")
    lo = min(min(ratios), min(r["target_x"] for r in rows)) / 1.6
    hi = max(max(ratios), max(r["target_x"] for r in rows)) * 1.8
    ax.set_xlim(lo, hi)
    ax.axvline(1.0, color="0.6", lw=0.8, ls=":", zorder=1)
    ticks = [v for v in (0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20) if lo <= v <= hi]
    ax.set_xticks(ticks, [f"{v:g}x" for v in ticks])
    ax.minorticks_off()
    ax.set_yticks(list(ys))
    ax.set_yticklabels([_label(r) for r in rows], fontsize=9.5)
    ax.set_xlabel(
        "worst same-run ratio nanaccess / reference (time; for memory, copies)\n"
        "log scale: lower is better"
    )
    ax.grid(axis="x", color="0.9", zorder=0)
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    ax.legend(
        handles=[
            Patch(color="#2a9d8f", label="target met"),
            Patch(color="#e76f51", label="target missed"),
            Line2D([], [], color="#222222", lw=2, label="target"),
        ],
        loc="lower right",
        fontsize=8,
        framealpha=0.9,
    )
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, format="svg", metadata={"Date": None})
    plt.close(fig)
    return True



#: the benchmark files the overview chart shows, with what a reader calls them
AREAS = {
    "core": "median / quantile of an array",
    "axis": "median / quantile along an axis",
    "list": "median of a Python list",
    "small": "small arrays (n <= 1000)",
    "accessor_small": "small Series, .nanstats",
    "moments": "exact sum / mean / var",
    "groupby": "grouped statistics",
    "weighted": "weighted statistics",
    "windows": "rolling windows",
    "dask": "dask arrays",
    "dask_grid": "dask: quantile over time of a grid",
}


def _ratios(path: Path) -> list[tuple[float, str]]:
    """(ratio, reference) of every timed row of one results file."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    records = data.get("results", []) if isinstance(data, Mapping) else data
    out = []
    for r in records if isinstance(records, list) else []:
        ratio = r.get("ratio") if isinstance(r, Mapping) else None
        if isinstance(ratio, int | float) and ratio > 0 and math.isfinite(ratio):
            out.append((float(ratio), str(r.get("reference", ""))))
    return out


def ratio_figure(results_dir: Path | str = RESULTS) -> Any:
    """A matplotlib figure: every same-run ratio of each area (:data:`AREAS`), one
    dot per measured case on a log axis, the median ringed; None without results.

    Examples
    --------
    >>> import json, tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> ratio_figure(d) is None
    True
    >>> _ = (d / "core.json").write_text(json.dumps(
    ...     [{"case": "median", "ratio": 0.4, "reference": "np.median"}]))
    >>> ratio_figure(d).axes[0].get_yticklabels()[0].get_text()
    'median / quantile of an array'
    """
    results_dir = Path(results_dir)
    areas = [(name, label, _ratios(results_dir / f"{name}.json"))
             for name, label in AREAS.items()]
    areas = [a for a in areas if a[2]][::-1]
    if not areas:
        return None
    import matplotlib.pyplot as plt  # the caller's backend (inline in the docs)

    fig, ax = plt.subplots(figsize=(8, 0.45 * len(areas) + 1.3), layout="constrained")
    ax.axvspan(1e-3, 1.0, color="#2a9d8f", alpha=0.07, lw=0)
    ax.axvline(1.0, color="0.3", lw=1)
    rng = np.random.default_rng(0)
    for y, (_, _, rows) in enumerate(areas):
        r = np.array([v for v, _ in rows])
        ax.scatter(r, y + rng.uniform(-0.18, 0.18, r.size), s=12, color="#264653",
                   alpha=0.55, lw=0, zorder=2)
        ax.plot(np.median(r), y, "o", mfc="none", mec="#e76f51", ms=10, mew=2, zorder=3)
    allr = np.concatenate([[v for v, _ in a[2]] for a in areas])
    lo, hi = max(allr.min() / 1.5, 1e-3), allr.max() * 1.5
    ax.set_xscale("log")
    ax.set_xlim(min(lo, 0.5), max(hi, 2.0))
    ticks = [v for v in (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50)
             if ax.get_xlim()[0] <= v <= ax.get_xlim()[1]]
    ax.set_xticks(ticks, [f"{v:g}x" for v in ticks])
    ax.minorticks_off()
    ax.set_yticks(range(len(areas)), [label for _, label, _ in areas])
    ax.set_xlabel("time of nanaccess / time of the tool you would use otherwise\n"
                  "(same run; left of the line: nanaccess is faster; ringed: median)")
    ax.grid(axis="x", color="0.9", zorder=0)
    return fig

def _summary(results_dir: Path, chart: str | None) -> str:
    rows = summary_rows(results_dir)
    if not rows:
        return ""
    met = sum(bool(r.get("met")) for r in rows)
    parts = [
        "## Summary",
        f"{met} of {len(rows)} targets met. Each bar is the worst same-run ratio of a "
        "target's cases (nanaccess's time over the reference's, measured in alternation "
        "on the same machine), the black line the target. From "
        f"`benchmarks/results/{SUMMARY}`.",
    ]
    if chart:
        parts.append(f"![Worst same-run ratio against each reference, with its target]({chart})")
    table = [
        "| target | numba | worst case | worst ratio | met |",
        "| --- | --- | --- | ---: | --- |",
    ]
    for r in rows:
        table.append(
            f"| {_fmt(r.get('target'))} | {_fmt(r.get('accel'))} | {_fmt(r.get('worst_case'))} "
            f"| {_fmt(r.get('worst_ratio'))} | {_fmt(r.get('met'))} |"
        )
    parts.append("\n".join(table))
    return "\n\n".join(parts) + "\n"


def render(results_dir: Path | str = RESULTS, chart: str | None = None) -> str:
    """Markdown for every ``*.json`` in ``results_dir``: the summary first, then the rest.

    ``chart``: the path of the summary chart to show (see :func:`write_chart`).

    Examples
    --------
    >>> import json, tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> render(d) == NOT_MEASURED + "\\n"
    True
    >>> _ = (d / "median.json").write_text(json.dumps(
    ...     {"python": "3.11", "results": [{"case": "1e6 float64", "nanaccess_s": 0.0123}]}))
    >>> print(render(d))
    ## Median
    <BLANKLINE>
    From `benchmarks/results/median.json`.
    <BLANKLINE>
    Measured with python: 3.11.
    <BLANKLINE>
    | case | nanaccess_s |
    | --- | ---: |
    | 1e6 float64 | 0.0123 |
    <BLANKLINE>
    """
    results_dir = Path(results_dir)
    files = sorted(results_dir.glob("*.json")) if results_dir.is_dir() else []
    if not files:
        return NOT_MEASURED + "\n"
    head = _summary(results_dir, chart)
    if not head:
        return "\n".join(_section(p) for p in files)
    details = [_section(p, level=3) for p in files if p.name != SUMMARY]
    intro = (
        "## Every measurement\n\nThe cases behind the summary, one table per benchmark "
        "file (times in seconds; `ratio` is nanaccess's time over the reference's)."
    )
    return "\n".join([head, intro + "\n", *details])


def write_tables(results_dir: Path | str = RESULTS, out: Path | str | None = None) -> str:
    """Render and, when ``out`` is given, write the Markdown (only if it changed) and
    the summary chart beside it (:data:`CHART`)."""
    chart = None
    if out is not None and write_chart(results_dir, Path(out).parent / CHART):
        chart = CHART
    text = render(results_dir, chart)
    if out is not None:
        out = Path(out)
        out.parent.mkdir(parents=True, exist_ok=True)
        if not out.exists() or out.read_text(encoding="utf-8") != text:
            out.write_text(text, encoding="utf-8")
    return text


if __name__ == "__main__":  # pragma: no cover
    target = sys.argv[1] if len(sys.argv) > 1 else None
    md = write_tables(RESULTS, target)
    if target is None:
        print(md, end="")
