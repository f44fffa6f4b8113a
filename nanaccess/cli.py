"""Command line: ``nanaccess describe [FILE]`` (also ``python -m nanaccess``).

For each numeric column of a CSV, Parquet or NetCDF file it prints a table of the
kinds of values it holds (numbers, quiet / signaling / negative NaNs, payloads,
infinities, missing values) and a table of statistics under one ``--policy`` or
all six side by side, optionally per group (``--groupby COL``). With no file it
describes the bundled sample data (the README's demo).

Exit codes: 0 done; 2 bad usage or unreadable input (missing file, unknown format,
a column that should be numeric but is not); 3 a single ``--policy`` refused the data
(e.g. ``--policy raise`` on data with NaNs: the table shows where).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import numpy as np
import pandas as pd

from . import _stats
from ._readers import PROGRESS_BYTES, CLIError, _check_columns, _progress, read_table
from ._version import __version__
from .options import VALID_POLICIES

__all__ = ["main", "describe", "CLIError", "read_table"]

EXIT_OK, EXIT_USAGE, EXIT_POLICY = 0, 2, 3

DEFAULT_STATS = ("count", "mean", "std", "min", "median", "max")
# every statistic of the table that needs no argument (qNN covers quantiles); arg
# statistics are positions, not summaries of a column
_SIMPLE_STATS = tuple(
    st.name for st in _stats.STATISTICS.values()
    if st.family != "arg" and not any(p.required for p in st.params)
)
_REPORT_COLUMNS = {
    "values": "values",
    "numbers": "numbers",
    "nan": "nan",
    "quiet_nan": "quiet",
    "signaling_nan": "signaling",
    "negative_nan": "negative",
    "distinct_payloads": "payloads",
    "posinf": "+inf",
    "neginf": "-inf",
    "missing": "missing",
}


# --------------------------------------------------------------------------------------
# statistics


def _parse_stats(text: str) -> list[str]:
    stats = [s.strip() for s in text.split(",") if s.strip()]
    for s in stats:
        if s in _SIMPLE_STATS:
            continue
        if s.startswith("q") and _quantile_of(s) is not None:
            continue
        raise argparse.ArgumentTypeError(
            f"unknown statistic {s!r}; choose from {', '.join(_SIMPLE_STATS)} or qNN "
            "(a percentile, e.g. q10, q90)"
        )
    if not stats:
        raise argparse.ArgumentTypeError("--stats needs at least one statistic")
    return stats


def _quantile_of(stat: str) -> float | None:
    try:
        q = float(stat[1:]) / 100
    except ValueError:
        return None
    return q if 0 <= q <= 1 else None


@dataclass
class Cell:
    value: Any = None
    error: BaseException | None = None


def _compute(stat: str, s: pd.Series, policy: str) -> Cell:
    import nanaccess as na

    from .errors import NaNError

    try:
        if stat == "count":
            report = na.nan_report(s)
            return Cell(int(report["numbers"]))
        if stat.startswith("q") and stat not in _SIMPLE_STATS:
            value = na.quantile(s, _quantile_of(stat), nan_policy=policy)
        else:
            # the table's pandas defaults (ddof=1: sample statistics, as pandas' describe)
            params = {p.name: p.pandas_default for p in _stats.get(stat).params
                      if p.pandas_default is not None}
            value = getattr(na, stat)(s, nan_policy=policy, **params)
    except NaNError as err:
        if getattr(err, "subject", None) == "data" and hasattr(err, "relabel"):
            position = err.position
            location = None
            if isinstance(position, tuple) and len(position) == 1:
                location = f"row {s.index[int(position[0])]}"
            err = err.relabel(f"column {s.name!r}", location)
        return Cell(error=err)
    return Cell(value)


def _format_value(value: Any) -> str:
    if value is None or value is pd.NA or value is pd.NaT:
        return "<NA>"
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, float | np.floating):
        if math.isnan(value):
            from .core.bits import layout_of

            a = np.asarray(value).reshape(1)
            lay = layout_of(a.dtype)
            bits = int(a.view(lay.uint_dtype)[0])
            payload = bits & lay.payload_mask
            sign = "-" if bits & lay.sign_bit else ""
            name = "nan" if bits & lay.quiet_bit else "snan"
            if not payload:
                return f"{sign}{name}"
            return f"{sign}{name}({payload if payload < 1 << 16 else hex(payload)})"
        return f"{float(value):.6g}"
    if isinstance(value, int | np.integer):
        return str(int(value))
    return str(value)


def _cell_text(cell: Cell) -> str:
    if cell.error is not None:
        return type(cell.error).__name__
    return _format_value(cell.value)


def _render(rows: list[list[str]], header: list[str], n_left: int) -> str:
    widths = [
        max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)
    ]
    out = []
    for line in [header, *rows]:
        parts = [
            (c.ljust(w) if i < n_left else c.rjust(w))
            for i, (c, w) in enumerate(zip(line, widths, strict=True))
        ]
        out.append("  ".join(parts).rstrip())
    return "\n".join(out)


def _csv_lines(rows: list[list[str]], header: list[str]) -> str:
    import csv
    import io

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    return buf.getvalue().rstrip("\n")


def describe(
    path: str | os.PathLike | None = None,
    *,
    policy: str = "all",
    groupby: str | None = None,
    columns: Sequence[str] | None = None,
    stats: Sequence[str] = DEFAULT_STATS,
    fmt: str = "table",
    progress: str = "auto",
    out: TextIO | None = None,
) -> int:
    """Describe the NaNs and statistics of a data file; what ``nanaccess describe`` runs.

    Parameters
    ----------
    path : path-like, optional
        A CSV, Parquet or NetCDF file; the bundled ``sensors.csv`` when omitted.
    policy : str, default "all"
        One ``nan_policy``, or "all" for all six side by side.
    groupby : str, optional
        A column whose values split the rows into groups.
    columns : sequence of str, optional
        Columns to describe (default: every numeric column).
    stats : sequence of str
        Statistics: count, mean, std, var, sum, min, median, median_low,
        median_high, max, or qNN for the NN-th percentile.
    fmt : {"table", "csv"}
        Aligned text tables, or CSV (NaN kinds, a blank line, statistics).
    progress : {"auto", "always", "never"}
        Progress bar on stderr; "auto" shows it for files of at least 32 MiB.
    out : text stream, optional
        Where to print (default ``sys.stdout``).

    Returns
    -------
    int
        The exit code: 0, or 3 when a single ``policy`` refused the data.

    Raises
    ------
    CLIError
        For a missing or unreadable file or an unusable column.

    Examples
    --------
    >>> from nanaccess.cli import describe
    >>> from nanaccess.data import sample_path
    >>> describe(sample_path(), policy="omit", columns=["temp_c"], stats=["count", "median"])
    nanaccess describe: sensors.csv (CSV, 480 rows x 7 columns)
    <BLANKLINE>
    NaN kinds
    column  values  numbers  nan  quiet  signaling  negative  payloads  +inf  -inf  missing
    temp_c     480      460   20     20          0         0         1     0     0        0
    <BLANKLINE>
    Statistics (nan_policy="omit")
    column  count  median
    temp_c    460    ...
    0
    """
    out = out if out is not None else sys.stdout
    if policy != "all" and policy not in VALID_POLICIES:
        raise CLIError(f"unknown policy {policy!r}; choose from all, {', '.join(VALID_POLICIES)}")
    if path is None:
        from .data import sample_path

        path = sample_path("sensors.csv")
    table = read_table(path, progress=progress)
    cols = _check_columns(table, columns, groupby)
    frame = table.frame
    size = Path(path).stat().st_size
    show = progress == "always" or (progress == "auto" and size >= PROGRESS_BYTES)
    policies = list(VALID_POLICIES) if policy == "all" else [policy]

    import nanaccess as na

    if fmt == "table":
        print(
            f"nanaccess describe: {Path(path).name} ({table.fmt}, {len(frame)} rows x "
            f"{frame.shape[1]} columns)",
            file=out,
        )
        print(file=out)

    # NaN kinds per column
    kind_header = ["column", *(_REPORT_COLUMNS.values())]
    kind_rows = []
    for c in cols:
        report = na.nan_report(frame[c])
        kind_rows.append([c, *(str(int(report[k])) for k in _REPORT_COLUMNS)])

    # statistics
    groups: list[tuple[Any, pd.DataFrame]]
    if groupby is not None:
        groups = list(frame.groupby(groupby, sort=True, dropna=False))
    else:
        groups = [(None, frame)]
    lead = ([groupby] if groupby is not None else []) + ["column"]
    lead += ["policy"] if policy == "all" else []
    stat_header = [*lead, *stats]
    stat_rows: list[list[str]] = []
    errors: list[BaseException] = []
    work = [(g, sub, c) for g, sub in groups for c in cols]
    for key, sub, c in _progress(work, enabled=show, desc="describing", unit="column"):
        s = sub[c]
        s.name = c
        for p in policies:
            cells = [_compute(stat, s, p) for stat in stats]
            errors.extend(cell.error for cell in cells if cell.error is not None)
            label = [] if groupby is None else [_format_group(key)]
            row = [*label, c, *([p] if policy == "all" else []), *map(_cell_text, cells)]
            stat_rows.append(row)

    title = (
        f'Statistics (nan_policy="{policy}")'
        if policy != "all"
        else ("Statistics under each nan_policy")
    )
    if groupby is not None:
        title += f", by {groupby}"
    if fmt == "csv":
        print(_csv_lines(kind_rows, kind_header), file=out)
        print(file=out)
        print(_csv_lines(stat_rows, stat_header), file=out)
    else:
        print("NaN kinds", file=out)
        print(_render(kind_rows, kind_header, 1), file=out)
        print(file=out)
        print(title, file=out)
        print(_render(stat_rows, stat_header, len(lead)), file=out)
    notes = []
    if table.skipped:
        skipped = [f"{c} ({k})" for c, k in table.skipped.items() if c != groupby]
        if skipped and not columns:
            notes.append("not described: " + ", ".join(skipped))
    if errors:
        seen: dict[str, None] = {}
        for err in errors:
            seen.setdefault(f"{type(err).__name__}: {err}", None)
        msgs = list(seen)
        notes.extend(msgs[:5])
        if len(msgs) > 5:
            notes.append(f"... and {len(msgs) - 5} more errors of the same kind")
    if notes and fmt == "table":
        print(file=out)
        for n in notes:
            print(f"note: {n}", file=out)
    return EXIT_POLICY if errors and policy != "all" else EXIT_OK


def _format_group(key: Any) -> str:
    if isinstance(key, tuple) and len(key) == 1:
        key = key[0]
    if key is None or (isinstance(key, float) and math.isnan(key)) or key is pd.NA:
        return "<NA>"
    return str(key)


# --------------------------------------------------------------------------------------
# argument parsing


def build_parser() -> argparse.ArgumentParser:
    """The ``nanaccess`` argument parser (subcommand ``describe``)."""
    parser = argparse.ArgumentParser(
        prog="nanaccess",
        description="Explicit NaN handling for statistics: describe the NaNs in a data file "
        "and the statistics each nan_policy gives.",
        epilog="Exit codes: 0 done; 2 bad usage or unreadable input; 3 the chosen --policy "
        "refused the data.",
    )
    parser.add_argument("--version", action="version", version=f"nanaccess {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    d = sub.add_parser(
        "describe",
        help="NaN kinds and statistics per column of a CSV, Parquet or NetCDF file",
        description="For each numeric column (or NetCDF variable): a table of the kinds of "
        "values it holds, and its statistics under --policy. Without FILE, the bundled "
        "sample weather data is described.",
    )
    d.add_argument(
        "file",
        nargs="?",
        metavar="FILE",
        help="a .csv (.csv.gz, .tsv), .parquet or .nc file; default: bundled sample",
    )
    d.add_argument(
        "--policy",
        default="all",
        choices=["all", *VALID_POLICIES],
        help='nan_policy for the statistics, or "all" (default) for all six',
    )
    d.add_argument("--groupby", metavar="COL", help="statistics per group of this column")
    d.add_argument(
        "--columns",
        metavar="COL",
        nargs="+",
        help="columns to describe (default: every numeric column)",
    )
    d.add_argument(
        "--stats",
        type=_parse_stats,
        default=list(DEFAULT_STATS),
        help="comma-separated statistics (default: %(default)s); qNN = NN-th percentile",
    )
    d.add_argument(
        "--format",
        dest="fmt",
        choices=["table", "csv"],
        default="table",
        help="output format (default: table)",
    )
    d.add_argument(
        "--progress",
        choices=["auto", "always", "never"],
        default="auto",
        help="progress bar on stderr (auto: for files of 32 MiB or more)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (the console script exits with it).

    Examples
    --------
    >>> from nanaccess.cli import main
    >>> main(["describe", "no-such-file.csv"])
    2
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        return describe(
            args.file,
            policy=args.policy,
            groupby=args.groupby,
            columns=args.columns,
            stats=args.stats,
            fmt=args.fmt,
            progress=args.progress,
        )
    except CLIError as err:
        print(f"nanaccess: error: {err}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # pragma: no cover - e.g. piped into head
        return EXIT_OK
