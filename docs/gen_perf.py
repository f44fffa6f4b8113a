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
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["render", "write_tables", "NOT_MEASURED"]

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
NOT_MEASURED = (
    "Not yet measured: there are no results in `benchmarks/results/`. Run the benchmark "
    "suite in `benchmarks/` to write them; the next docs build shows them here."
)
_LIST_KEYS = ("results", "benchmarks", "rows", "data", "records")
_META_KEYS = ("machine", "machine_info", "environment", "env", "meta", "metadata")


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
    lines = ["| " + " | ".join(columns) + " |"]
    lines.append("| " + " | ".join("---:" if _numeric(rows, c) else "---" for c in columns) + " |")
    for r in rows:
        lines.append("| " + " | ".join(_fmt(r.get(c)) for c in columns) + " |")
    return "\n".join(lines)


def _numeric(rows: list[dict[str, Any]], column: str) -> bool:
    values = [r.get(column) for r in rows if r.get(column) is not None]
    return bool(values) and all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in values
    )


def _section(path: Path) -> str:
    title = path.stem.replace("_", " ").replace("-", " ")
    head = f"## {title[:1].upper()}{title[1:]}\n\nFrom `benchmarks/results/{path.name}`."
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


def render(results_dir: Path | str = RESULTS) -> str:
    """Markdown for every ``*.json`` in ``results_dir`` (sorted by name).

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
    return "\n".join(_section(p) for p in files)


def write_tables(results_dir: Path | str = RESULTS, out: Path | str | None = None) -> str:
    """Render and, when ``out`` is given, write the Markdown (only if it changed)."""
    text = render(results_dir)
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
