"""Command line: ``nanaccess describe [FILE]`` (also ``python -m nanaccess``).

For each numeric column of a CSV, Parquet or NetCDF file it prints a table of the
kinds of values it holds (numbers, quiet / signaling / negative NaNs, payloads,
infinities, missing values) and a table of statistics under one ``--policy`` or
all six side by side, optionally per group (``--groupby COL``). With no file it
describes the bundled sample data (the README's demo).

NetCDF variables are described each over its own dimensions (with their dims and
attributes; coordinates listed apart). Missing values (CSV tokens ``""``, ``NA``,
``N/A``, ``NULL``, ``None``, ``#N/A``; Parquet nulls; NetCDF ``_FillValue`` /
``missing_value``) are counted apart from NaN (``nan``, ``-nan``: the sign is kept).
``--format csv|json`` writes tidy records (see :mod:`nanaccess.cli.output`).

The format is told by the file's content (Parquet and NetCDF magic bytes, compressed
CSV, else CSV text), so a file with a wrong or missing extension is read.

Exit codes: 0 done (a column with stray text tokens is reported and left out, not
fatal, unless ``--strict``); 2 bad usage or unreadable input (missing file, unknown
format, a requested column that is not numeric, nothing numeric to describe, and with
``--strict`` a column left out over stray tokens); 3 a single ``--policy`` refused the
data (e.g. ``--policy raise`` on data with NaNs: the output shows where).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any, TextIO

import pandas as pd

from .._version import __version__
from ..options import VALID_POLICIES, chosen_option, get_options, option_context
from .output import (
    records_of,
    show_csv,
    show_json,
    show_table,
    table_schema,
    tidy,
)
from .progress import progress
from .readers import (
    PROGRESS_BYTES,
    CLIError,
    CSVOptions,
    Table,
    check_columns,
    with_notes,
)
from .readers import read_table as read_table
from .stats import SIMPLE_STATS, count_records, grouped_records, quantile_of, stat_records

__all__ = ["main", "describe", "CLIError", "read_table"]

EXIT_OK, EXIT_USAGE, EXIT_POLICY = 0, 2, 3

DEFAULT_STATS = ("count", "mean", "std", "min", "median", "max")
_SIMPLE_STATS = SIMPLE_STATS
_FORMATS = ("table", "csv", "json")


# --------------------------------------------------------------------------------------
# statistics


def _parse_stats(text: str) -> list[str]:
    stats = [s.strip() for s in text.split(",") if s.strip()]
    for s in stats:
        if s in _SIMPLE_STATS:
            continue
        if s.startswith("q") and quantile_of(s) is not None:
            continue
        raise argparse.ArgumentTypeError(
            f"unknown statistic {s!r}; choose from {', '.join(_SIMPLE_STATS)} or qNN "
            "(the NN-th percentile, 0 <= NN <= 100: q10, q90, q0.5)"
        )
    if not stats:
        raise argparse.ArgumentTypeError("--stats needs at least one statistic")
    return stats


def _comma_list(text: str) -> list[str]:
    return [c.strip() for c in text.split(",") if c.strip()]


def _encoding(text: str) -> str:
    import codecs

    try:
        return codecs.lookup(text).name
    except LookupError:
        raise argparse.ArgumentTypeError(f"unknown encoding {text!r}") from None


def _one_char(text: str) -> str:
    text = {"\\t": "\t", "tab": "\t", "TAB": "\t", "space": " "}.get(text, text)
    if len(text) != 1:
        raise argparse.ArgumentTypeError(f"expected one character, got {text!r}")
    return text


#: below this many values in every described column, ``describe`` computes with the
#: NumPy engine (the same bits): compiling numba kernels would cost more than it saves
NUMBA_FROM_VALUES = 1_000_000


def _engine_for(table: Table, cols: list[str]) -> str:
    """The engine of one ``describe``: the option's, except "auto" on small columns."""
    engine = get_options()["engine"]
    longest = max((len(table.data[c]) for c in cols), default=0)
    return "numpy" if engine == "auto" and longest < NUMBA_FROM_VALUES else engine


def _describe_columns(table: Table, cols: list[str], groupby: str | None,
                      policies: list[str], stats: Sequence[str], show: bool,
                      counts: list[dict[Any, Any]], group_counts: list[dict[Any, Any]],
                      stat_rows: list[dict[Any, Any]],
                      errors: list[BaseException], ungrouped: list[str]) -> None:
    """Fill the records of each column (and group) under each policy."""
    noun = table.noun
    for c in progress(cols, enabled=show, desc="describing", unit="column"):
        s = table.data[c].rename(c)
        counts.extend(count_records(s, c, {}))
        if groupby is None:
            stat_rows.extend(stat_records(s, c, {}, policies, stats, noun, None, errors))
            continue
        keys = table.keys(c, groupby)
        if keys is None:
            ungrouped.append(c)
            continue
        g_counts, g_rows = grouped_records(s, keys, c, str(groupby), policies, stats, noun,
                                           errors)
        group_counts.extend(g_counts)
        stat_rows.extend(g_rows)


def describe(
    path: str | os.PathLike[str] | None = None,
    *,
    policy: str | None = None,
    groupby: str | None = None,
    columns: Sequence[str] | None = None,
    stats: Sequence[str] = DEFAULT_STATS,
    fmt: str = "table",
    progress: str = "auto",
    options: CSVOptions | None = None,
    strict: bool = False,
    out: TextIO | None = None,
) -> int:
    """Describe the NaNs and statistics of a data file; what ``nanaccess describe`` runs.

    Parameters
    ----------
    path : path-like or "-", optional
        A CSV, Parquet or NetCDF file, ``"-"`` for stdin; the bundled ``sensors.csv``
        when omitted.
    policy : str, optional
        One ``nan_policy``, or "all" for all six side by side. Default: the policy
        chosen with ``set_options(nan_policy=...)`` / ``option_context(...)`` when one
        is in force (a refusal is reported, exit code 3, never raised), else "all"
        (the command line passes its ``--policy``, default "all").
    groupby : str, optional
        A column (NetCDF: a dimension or coordinate) whose values split the values
        into groups; counts and statistics are then given per group.
    columns : sequence of str, optional
        Columns (NetCDF: data variables) to describe (default: every numeric one).
    stats : sequence of str
        Statistics of ``nanaccess`` that take no argument (count, mean, std, median,
        min, max, iqr, ...), or qNN for the NN-th percentile (q90 = the 0.9 quantile).
    fmt : {"table", "csv", "json"}
        Aligned text tables, or tidy records as CSV or JSON (one record per column x
        policy x statistic, counts of each kind of value with an empty policy).
    progress : {"auto", "always", "never"}
        Progress on stderr; "auto" for files of at least 32 MiB. A bar on a terminal,
        one plain line per step otherwise.
    options : CSVOptions, optional
        CSV separator, thousands and decimal marks, missing tokens, encoding.
    strict : bool, default False
        Refuse (``CLIError``, exit code 2) a file whose numeric-looking columns would
        be left out over stray text tokens, naming each column, the first bad cell,
        its row and line; by default such columns are reported and left out.
    out : text stream, optional
        Where to print (default ``sys.stdout``).

    Returns
    -------
    int
        The exit code: 0, or 3 when a single ``policy`` refused the data.

    Raises
    ------
    CLIError
        For a missing or unreadable file or an unusable column (with ``strict``, also
        a column left out over stray tokens).

    Examples
    --------
    >>> from nanaccess.cli import describe
    >>> from nanaccess.data import sample_path
    >>> describe(sample_path(), policy="omit", columns=["temp_c"], stats=["count", "median"])
    nanaccess describe: sensors.csv (CSV, 480 rows x 7 columns)
    <BLANKLINE>
    NaN kinds
           values numbers nan quiet signaling negative payloads +inf -inf missing
    column...
    temp_c    480     460 ...
    <BLANKLINE>
    Statistics (nan_policy="omit")
           count median
    column...
    temp_c   460   5.45
    0
    """
    out = out if out is not None else sys.stdout
    if policy is None:
        chosen = chosen_option("nan_policy")
        policy = "all" if chosen is None else str(chosen)
    if policy != "all" and policy not in VALID_POLICIES:
        raise CLIError(f"unknown policy {policy!r}; choose from all, {', '.join(VALID_POLICIES)}")
    if fmt not in _FORMATS:
        raise CLIError(f"unknown format {fmt!r}; choose from {', '.join(_FORMATS)}")
    if path is None:
        from ..data import sample_path

        path = sample_path("sensors.csv")
    table = read_table(path, progress=progress, options=options)
    try:
        if strict:
            _check_strict(table, columns, groupby)
        cols = check_columns(table, columns, groupby)
    except CLIError as err:
        raise with_notes(err, table.notes) from None
    show = progress == "always" or (progress == "auto" and table.size >= PROGRESS_BYTES)
    policies = list(VALID_POLICIES) if policy == "all" else [policy]

    counts: list[dict[Any, Any]] = []
    group_counts: list[dict[Any, Any]] = []
    stat_rows: list[dict[Any, Any]] = []
    errors: list[BaseException] = []
    ungrouped: list[str] = []
    with option_context(engine=_engine_for(table, cols)):
        _describe_columns(table, cols, groupby, policies, stats, show, counts, group_counts,
                          stat_rows, errors, ungrouped)
    notes = _notes(table, columns, groupby, ungrouped, errors)
    counts_f = tidy(counts, None)
    groups_f = tidy(group_counts, groupby) if groupby is not None else None
    stats_f = tidy(stat_rows, groupby)
    if fmt == "csv":
        show_csv(out, pd.concat([groups_f if groups_f is not None else counts_f, stats_f],
                                ignore_index=True))
        for n in notes:
            print(f"nanaccess: note: {n}", file=sys.stderr)
    elif fmt == "json":
        show_json(out, _json_doc(table, cols, counts_f, groups_f, stats_f, notes, groupby))
    else:
        title = (
            f'Statistics (nan_policy="{policy}")' if policy != "all"
            else "Statistics under each nan_policy"
        )
        if groupby is not None:
            title += f", by {groupby}"
        show_table(
            out,
            f"nanaccess describe: {table.name} ({table.fmt}, {table.shape_text()})",
            counts_f, groups_f, stats_f,
            stat_names=list(stats), groupby=groupby, one_policy=policy != "all", title=title,
            noun=table.noun,
            sections=_netcdf_sections(table), notes=notes,
        )
    return EXIT_POLICY if errors and policy != "all" else EXIT_OK


def _check_strict(table: Table, columns: Sequence[str] | None, groupby: str | None) -> None:
    """``--strict``: a column left out over stray tokens is an error naming each one."""
    dropped = [st for c, st in table.strays.items()
               if c != groupby and (not columns or c in columns)]
    if not dropped:
        return
    what = "; ".join(st.message() for st in dropped)
    many = "a column" if len(dropped) == 1 else f"{len(dropped)} columns"
    raise CLIError(f"--strict: {many} would be left out: {what}; fix the file, or "
                   "choose the columns to describe with --columns")


def _notes(table: Table, columns: Sequence[str] | None, groupby: str | None,
           ungrouped: list[str], errors: list[BaseException]) -> list[str]:
    notes = list(table.notes)
    notes += [f"{st.message()}; not described" for st in table.strays.values()]
    skipped = [f"{c} ({k})" for c, k in table.skipped.items()
               if c != groupby and c not in table.strays]
    if skipped and not columns:
        notes.append("not described: " + ", ".join(skipped))
    if ungrouped:
        notes.append(f"not grouped (no {groupby!r} on their dimensions): " + ", ".join(ungrouped))
    if errors:
        seen: dict[str, None] = {}
        for err in errors:
            seen.setdefault(f"{type(err).__name__}: {err}", None)
        msgs = list(seen)
        notes.extend(msgs[:5])
        if len(msgs) > 5:
            notes.append(f"... and {len(msgs) - 5} more errors of the same kind")
    return notes


def _attrs_text(attrs: dict[str, Any]) -> str:
    return "; ".join(f"{k}={v!r}" if isinstance(v, str) else f"{k}={v}" for k, v in attrs.items())


def _netcdf_sections(table: Table) -> list[tuple[str, pd.DataFrame]]:
    """NetCDF: the variables (dims, dtype, attributes) and the coordinates."""
    if not table.variables:
        return []
    out = []
    for title, group in (("Variables", table.variables), ("Coordinates", table.coords)):
        if not group:
            continue
        frame = pd.DataFrame(
            {
                "dims": [", ".join(f"{d}={n}" for d, n in v.dims.items()) or "()"
                         for v in group.values()],
                "dtype": [v.dtype for v in group.values()],
                "attributes": [_attrs_text(v.attrs) for v in group.values()],
            },
            index=pd.Index(list(group), name=title.lower()[:-1]),
        )
        out.append((title, frame))
    return out


def _json_doc(table: Table, cols: list[str], counts: pd.DataFrame, groups: Any,
              stats: pd.DataFrame, notes: list[str], groupby: str | None) -> dict[Any, Any]:
    """pandas' table orient (``schema`` + ``data``: the records of ``--format csv``,
    so ``pd.read_json(text, orient="table")`` reads them), with the file's details and
    the same records split by kind under their own keys."""
    records = pd.concat([groups if groups is not None else counts, stats], ignore_index=True)
    doc: dict[str, Any] = {
        "schema": table_schema(groupby),
        "data": records_of(records),
        "source": table.source,
        "format": table.fmt,
        "described": cols,
        "not_described": {c: k for c, k in table.skipped.items() if c not in cols},
        "stray_tokens": [
            {"column": st.column, "count": st.count, "first": st.first,
             "row": st.row, "line": st.line}
            for st in table.strays.values()
        ],
    }
    if table.variables:
        for key, group in (("variables", table.variables), ("coordinates", table.coords)):
            doc[key] = {n: {"dims": v.dims, "dtype": v.dtype, "attrs": v.attrs}
                        for n, v in group.items()}
    doc["counts"] = records_of(counts)
    if groups is not None:
        doc["group_counts"] = records_of(groups)
    doc["statistics"] = records_of(stats)
    doc["notes"] = notes
    return doc


# --------------------------------------------------------------------------------------
# argument parsing


_STATS_HELP = (
    f"comma-separated statistics (default: {','.join(DEFAULT_STATS)}): any of "
    + ", ".join(_SIMPLE_STATS)
    + ", or qNN, the NN-th PERCENTILE: q90 is the 0.9 quantile, q0.5 the 0.5th percentile "
    "(the 0.005 quantile; the median is q50)"
)


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
        description="For each numeric column (or NetCDF variable, over its own dimensions): "
        "the kinds of values it holds (numbers, NaNs, missing values apart) and its "
        "statistics under --policy. Without FILE, the bundled sample weather data.",
        epilog="CSV: the fields '', NA, N/A, NULL, None, #N/A (and --na-values) are missing "
        "values; nan and -nan are NaN (sign kept). A column with stray text among numbers is "
        "reported and left out (an error with --strict). The format is told by the file's "
        "content, whatever its name. Exit codes: 0 done; 2 bad usage or unreadable input; "
        "3 the chosen --policy refused the data.",
    )
    d.add_argument(
        "file",
        nargs="?",
        metavar="FILE",
        help="a CSV (optionally compressed), Parquet or NetCDF file, told apart by its "
        "content, or - for stdin; default: the bundled sample",
    )
    d.add_argument(
        "--policy",
        default="all",
        choices=["all", *VALID_POLICIES],
        help='nan_policy for the statistics, or "all" (default) for all six',
    )
    d.add_argument("--groupby", metavar="COL",
                   help="counts and statistics per group of this column (NetCDF: coordinate)")
    d.add_argument(
        "--columns",
        metavar="A,B",
        type=_comma_list,
        action="extend",
        help="comma-separated columns to describe (default: every numeric column)",
    )
    d.add_argument("--stats", type=_parse_stats, default=list(DEFAULT_STATS), help=_STATS_HELP)
    d.add_argument(
        "--format",
        dest="fmt",
        choices=list(_FORMATS),
        default="table",
        help="table (default), or tidy records as csv or json (one per column x policy x "
        "statistic; full precision; json is pandas' table orient: "
        "pd.read_json(f, orient='table') reads it)",
    )
    d.add_argument(
        "--strict",
        action="store_true",
        help="exit with code 2 when a column would be left out over stray text tokens "
        "(the message names the column, the first bad cell, its row and line); by "
        "default such columns are reported and left out",
    )
    d.add_argument(
        "--progress",
        choices=["auto", "always", "never"],
        default="auto",
        help="progress on stderr (auto: for files of 32 MiB or more); a bar on a terminal, "
        "plain lines in a log",
    )
    csv_opts = d.add_argument_group("CSV input")
    csv_opts.add_argument("-d", "--sep", type=_one_char, metavar="CHAR",
                          help="field separator (default: tab for .tsv, else sniffed: , ; tab |)")
    csv_opts.add_argument("--thousands", type=_one_char, metavar="CHAR",
                          help="thousands separator to ignore in numbers, e.g. ,")
    csv_opts.add_argument("--decimal", type=_one_char, default=".", metavar="CHAR",
                          help="decimal mark (default: .)")
    csv_opts.add_argument("--na-values", type=_comma_list, action="extend", default=None,
                          metavar="A,B", help="more fields that mean a missing value")
    csv_opts.add_argument("--encoding", type=_encoding, default="utf-8",
                          help="text encoding (default: utf-8)")
    w = sub.add_parser(
        "warm",
        help="compile (and cache on disk) the numba kernels of the common statistics",
        description="Compile the numba kernels of the common statistics (median, "
        "quantiles, min/max, sum/mean, var/std, describe; flat, grouped and rolling) and "
        "cache them on disk, so that first calls in later processes are fast. Results "
        "do not depend on it.",
    )
    w.add_argument("--dtypes", type=_comma_list, default=["float64"], metavar="A,B",
                   help="float dtypes to compile for: float64 (default), float32")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (the console script exits with it).

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments after the program name (default ``sys.argv[1:]``), e.g.
        ``["describe", "data.csv", "--format", "json"]``.

    Returns
    -------
    int
        0 on success; 2 for a usage error or an unreadable file; 3 when one
        ``--policy`` was chosen (not "all") and it refused some column or group (e.g.
        "raise" on data holding NaN).

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
    if args.command == "warm":
        bad = [d for d in args.dtypes if d not in ("float64", "float32")]
        if bad:
            parser.error(f"--dtypes: {bad[0]!r} is not float64 or float32")
        from .warm import warm

        return warm(tuple(args.dtypes))
    if args.sep is not None and args.sep == args.decimal:
        parser.error("--sep and --decimal must differ")
    options = CSVOptions(
        sep=args.sep,
        thousands=args.thousands,
        decimal=args.decimal,
        na_values=tuple(args.na_values or ()),
        encoding=args.encoding,
    )
    try:
        return describe(
            args.file,
            policy=args.policy,
            groupby=args.groupby,
            columns=args.columns,
            stats=args.stats,
            fmt=args.fmt,
            progress=args.progress,
            options=options,
            strict=args.strict,
        )
    except CLIError as err:
        print(f"nanaccess: error: {err}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # pragma: no cover - e.g. piped into head
        return EXIT_OK
