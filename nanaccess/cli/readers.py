"""Reading the command line's input files: CSV, Parquet and NetCDF into one table.

``read_table`` turns a file into a :class:`Table` (a frame, its numeric columns and
why others were skipped), with a progress bar for large files on a terminal.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd

from .._arrow import float_values
from .progress import progress as _progress
from .readers_csv import CSVOptions, Stray, data_lines, read_csv_text, sniff_sep
from .readers_netcdf import Variable, group_keys, read_netcdf

__all__ = ["CLIError", "CSVOptions", "Table", "read_table", "PROGRESS_BYTES"]

#: Files at least this large get a progress bar with ``--progress auto``.
PROGRESS_BYTES = 32 * 1024 * 1024
_SNIFF_CHARS = 64 * 1024
_SNIFF_HEAD = 4096

_FORMATS = {
    ".csv": "CSV",
    ".tsv": "CSV",
    ".tab": "CSV",
    ".txt": "CSV",
    ".parquet": "Parquet",
    ".pq": "Parquet",
    ".nc": "NetCDF",
    ".nc4": "NetCDF",
    ".netcdf": "NetCDF",
    ".cdf": "NetCDF",
}
_COMPRESSIONS = (".gz", ".bz2", ".xz", ".zst", ".zip")


class CLIError(Exception):
    """A user-facing error: printed as ``nanaccess: error: ...``, exit code 2."""


# --------------------------------------------------------------------------------------
# reading


@dataclass
class Table:
    """What ``describe`` works on: the columns (or NetCDF variables) and notes.

    ``data`` maps each column or data variable to its flat values (a variable's index
    holds its dimensions' labels); ``frame`` is the whole table for CSV and Parquet
    (``None`` for NetCDF, whose variables do not share one index).
    """

    frame: pd.DataFrame | None
    source: str
    fmt: str
    size: int = 0
    name: str = ""
    sep: str | None = None
    data: dict[str, pd.Series] = field(default_factory=dict)
    numeric: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)  # column -> why
    strays: dict[str, Stray] = field(default_factory=dict)
    variables: dict[str, Variable] = field(default_factory=dict)  # NetCDF only
    coords: dict[str, Variable] = field(default_factory=dict)
    coord_arrays: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # e.g. a format told by content

    @property
    def noun(self) -> str:
        return "variable" if self.variables else "column"

    def shape_text(self) -> str:
        if self.frame is not None:
            return f"{len(self.frame)} rows x {self.frame.shape[1]} columns"
        return f"{len(self.variables)} variables, {len(self.coords)} coordinates"

    def keys(self, name: str, by: str) -> Any:
        """Group labels of ``name``'s values by ``by``; None when it has none."""
        if self.frame is not None:
            return self.frame[by]
        return group_keys(self.data[name], self.variables[name], by, self.coord_arrays)

    def can_group_by(self, by: str) -> bool:
        if self.frame is not None:
            return by in self.frame.columns
        return by in self.coord_arrays or any(by in v.dims for v in self.variables.values())


def _format_of_bytes(head: bytes) -> str:
    """Parquet and NetCDF (classic or HDF5) by their magic bytes, else CSV."""
    if head.startswith(b"PAR1"):
        return "Parquet"
    if head.startswith((b"CDF\x01", b"CDF\x02", b"CDF\x05", b"\x89HDF")):
        return "NetCDF"
    return "CSV"


#: compressed CSV by its magic bytes (the same suffixes as the file names)
_COMPRESSION_MAGIC = {
    b"\x1f\x8b": ".gz", b"BZh": ".bz2", b"\xfd7zXZ\x00": ".xz", b"\x28\xb5\x2f\xfd": ".zst",
    b"PK\x03\x04": ".zip",
}


def _detect_format(path: Path) -> tuple[str, str | None, str | None]:
    """(format, compression suffix, note): by the file's first bytes, so that a file
    with a wrong or missing extension is read; the note says when the name disagrees.

    Parquet (``PAR1``) and NetCDF (``CDF\\x01``, ``CDF\\x02``, ``CDF\\x05``, HDF5's
    ``\\x89HDF``) by their magic; gzip/bz2/xz/zstd/zip magic: a compressed CSV; other
    text: CSV; other binary content (a NUL byte): an error naming what is read.
    """
    with open(path, "rb") as f:
        head = f.read(_SNIFF_HEAD)
    suffixes = [s.lower() for s in path.suffixes]
    named_compression = suffixes.pop() if suffixes and suffixes[-1] in _COMPRESSIONS else None
    named = _FORMATS.get(suffixes[-1] if suffixes else "")
    fmt = _format_of_bytes(head)
    compression = next((c for m, c in _COMPRESSION_MAGIC.items() if head.startswith(m)), None)
    if compression == ".zip" and named_compression != ".zip":
        binary = "a zip archive (an .xlsx workbook is one)"
    elif fmt == "CSV" and compression is None and b"\x00" in head:
        binary = f"binary content (first bytes {head[:8]!r})"
    else:
        binary = None
    if binary is not None:
        raise CLIError(
            f"cannot tell the format of {str(path)!r}: {binary}; nanaccess describe reads CSV "
            "(optionally compressed: .gz, .bz2, .xz, .zst, .zip), Parquet and NetCDF "
            "(classic or NetCDF4/HDF5) files, told apart by their content"
        )
    note = None
    if named is not None and named != fmt:
        note = f"{path.name} was read as {fmt} (by its content; its name says {named})"
    elif named is None and (fmt != "CSV" or suffixes):
        note = f"{path.name} was read as {fmt} (by its content)"
    elif named_compression and compression != named_compression and fmt == "CSV":
        how = "uncompressed" if compression is None else f"{compression} compressed"
        note = f"{path.name} was read as {how} CSV (by its content)"
    return fmt, compression, note


def read_table(
    path: str | os.PathLike[str],
    *,
    progress: str = "auto",
    options: CSVOptions | None = None,
    stdin: IO[bytes] | None = None,
) -> Table:
    """Read a CSV, Parquet or NetCDF file (or ``"-"``: stdin) into a :class:`Table`.

    Missing values stay apart from NaN (nullable columns) and NaN bits are kept:
    CSV missing tokens and ``nan``/``-nan`` as :mod:`nanaccess.cli.readers_csv` says,
    Parquet nulls (float and integer), NetCDF ``_FillValue``/``missing_value`` (each
    variable over its own dimensions, :mod:`nanaccess.cli.readers_netcdf`).

    Parameters
    ----------
    path : path-like or "-"
        The file; ``"-"`` reads standard input (format from its first bytes).
    progress : {"auto", "always", "never"}
        Show progress; "auto" does for files of at least 32 MiB. A bar on a terminal,
        one line per step otherwise.
    options : CSVOptions, optional
        Separator, thousands and decimal marks, extra missing tokens, encoding.
    stdin : binary stream, optional
        What ``"-"`` reads (default ``sys.stdin.buffer``).

    Returns
    -------
    Table

    Raises
    ------
    CLIError
        Missing file, unknown format, unreadable content, or a missing optional
        reader (pyarrow for Parquet, netCDF4 for NetCDF).

    Examples
    --------
    >>> from nanaccess.cli import read_table
    >>> from nanaccess.data import sample_path
    >>> t = read_table(sample_path("sensors.csv"))
    >>> t.fmt, t.numeric[:2], t.skipped
    ('CSV', ['temp_c', 'humidity_pct'], {'date': 'text', 'station': 'text'})
    """
    opts = options if options is not None else CSVOptions()
    compression: str | None = None
    raw: bytes | None
    if str(path) == "-":
        stream = stdin if stdin is not None else sys.stdin.buffer
        raw = stream.read()
        name, source, size = "<stdin>", "<stdin>", len(raw)
        fmt, note = _format_of_bytes(raw[:8]), None
        compression = next((c for m, c in _COMPRESSION_MAGIC.items() if raw.startswith(m)), None)
    else:
        p = Path(path)
        if not p.exists():
            raise CLIError(f"no such file: {str(p)!r}")
        if p.is_dir():
            raise CLIError(f"{str(p)!r} is a directory, not a data file")
        fmt, compression, note = _detect_format(p)
        raw, name, source, size = None, p.name, str(p), p.stat().st_size
    show = progress == "always" or (progress == "auto" and size >= PROGRESS_BYTES)
    table = Table(frame=None, source=source, fmt=fmt, size=size, name=name)
    if note is not None:
        table.notes.append(note)
    try:
        if fmt == "CSV":
            _read_csv(table, path, raw, compression, opts, show)
        elif fmt == "Parquet":
            table.frame = _read_parquet(io.BytesIO(raw) if raw is not None else path, name, show)
        else:
            _read_nc(table, raw if raw is not None else path, name, show)
    except CLIError as err:
        raise with_notes(err, table.notes) from err.__cause__
    except ImportError as err:
        raise CLIError(str(err)) from err
    except Exception as err:  # noqa: BLE001 - any reader failure is a user-facing error
        reason = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise with_notes(CLIError(f"cannot read {source!r} as {fmt}: {reason}"),
                         table.notes) from err
    if table.frame is not None:
        table.data = {str(c): table.frame[c] for c in table.frame.columns}
    _classify_columns(table)
    return table


_CODECS = {".gz": "gzip", ".bz2": "bz2", ".xz": "xz", ".zst": "zstd", ".zip": "zip"}


def _open_text(path: Any, raw: bytes | None, compression: str | None, encoding: str) -> Any:
    """A text stream of the (decompressed) CSV, or None for zip/zstd files."""
    openers: dict[str | None, Callable[..., Any]] = {
        None: open, ".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}
    opener = openers.get(compression)
    if opener is None:
        return None
    if raw is not None:
        if compression is None:
            return io.TextIOWrapper(io.BytesIO(raw), encoding=encoding, errors="replace",
                                    newline="")
        return opener(io.BytesIO(raw), "rt", encoding=encoding, errors="replace", newline="")
    return opener(path, "rt", encoding=encoding, errors="replace", newline="")


def with_notes(err: CLIError, notes: list[str]) -> CLIError:
    """``err`` with the table's notes (e.g. a format told by content) appended."""
    return CLIError("; ".join([str(err), *(f"note: {n}" for n in notes)])) if notes else err


def _read_csv(
    table: Table, path: Any, raw: bytes | None, compression: str | None, opts: CSVOptions,
    show: bool,
) -> None:
    if table.size == 0:
        raise CLIError(f"cannot read {table.source!r} as CSV: the file is empty")
    sep = opts.sep
    if sep is None and raw is None and {".tsv", ".tab"} & {x.lower() for x in Path(path).suffixes}:
        sep = "\t"
    if sep is None:
        text = _open_text(path, raw, compression, opts.encoding)
        sep = sniff_sep(text.read(_SNIFF_CHARS)) if text is not None else ","
        if text is not None:
            text.close()
    table.sep = sep

    def lines_of(rows: list[int]) -> list[int | None]:
        text = _open_text(path, raw, compression, opts.encoding)
        if text is None:
            return [None] * len(rows)
        with text:
            return data_lines(text, sep, rows)

    codec = _CODECS.get(compression) if compression else None
    if raw is not None:
        source: Any = io.BytesIO(raw)
        frame, table.skipped, table.strays = read_csv_text(
            source, opts, sep=sep, compression=codec, lines_of=lines_of
        )
    else:
        with open(path, "rb") as stream:
            bar = _progress(enabled=show, total=table.size, desc=f"reading {table.name}",
                            unit="B", unit_scale=True)
            try:
                from tqdm.utils import CallbackIOWrapper

                wrapped: Any = CallbackIOWrapper(bar.update, stream, "read")
            except ImportError:  # pragma: no cover - no tqdm: no bar either
                wrapped = stream
            try:
                frame, table.skipped, table.strays = read_csv_text(
                    wrapped, opts, sep=sep, compression=codec, lines_of=lines_of
                )
            finally:
                bar.close()
    table.frame = frame


def _read_parquet(path: Any, name: str, show: bool) -> pd.DataFrame:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise CLIError(
            'reading Parquet needs pyarrow: pip install "nanaccess[io]" (or pip install pyarrow)'
        ) from None
    pf = pq.ParquetFile(path)
    groups = range(pf.num_row_groups)
    parts = [
        pf.read_row_group(i)
        for i in _progress(groups, enabled=show, desc=f"reading {name}", unit="row group")
    ]
    table = pa.concat_tables(parts) if parts else pf.schema_arrow.empty_table()
    columns: dict[str, Any] = {}
    for col_name in table.column_names:
        col = table.column(col_name).combine_chunks()
        if pa.types.is_floating(col.type) or pa.types.is_integer(col.type):
            if pa.types.is_floating(col.type):  # to_pandas may canonicalise NaN bits
                values, mask = float_values(col)
            else:
                values = np.array(col.fill_null(0).to_numpy(zero_copy_only=False))
                mask = col.is_null().to_numpy(zero_copy_only=False) if col.null_count else None
            if mask is not None:  # nulls are missing, apart from NaN: a nullable column
                values[mask] = 0
                kind = pd.arrays.FloatingArray if values.dtype.kind == "f" else (
                    pd.arrays.IntegerArray)
                columns[col_name] = pd.Series(kind(values, mask), name=col_name)
            else:
                columns[col_name] = pd.Series(values, name=col_name)
        else:
            columns[col_name] = pa.table({col_name: col}).to_pandas()[col_name]
    return pd.DataFrame(columns)


def _read_nc(table: Table, src: Any, name: str, show: bool) -> None:
    def bar(names: list[str]) -> Any:
        return _progress(names, enabled=show, desc=f"reading {name}", unit="variable")

    table.data, table.variables, table.coords, table.coord_arrays = read_netcdf(src, bar)
    if not table.data:
        raise CLIError(f"{table.source!r} holds no data variables")


def _kind_of(s: pd.Series) -> str:
    dt = s.dtype
    if pd.api.types.is_bool_dtype(dt):
        return "bool"
    if pd.api.types.is_numeric_dtype(dt) and not pd.api.types.is_complex_dtype(dt):
        return "numeric"
    if pd.api.types.is_datetime64_any_dtype(dt) or pd.api.types.is_timedelta64_dtype(dt):
        return "datetime"
    if pd.api.types.is_complex_dtype(dt):
        return "complex"
    return "text"


def _classify_columns(table: Table) -> None:
    for name, s in table.data.items():
        if name in table.skipped:
            continue
        kind = _kind_of(s)
        if kind == "numeric":
            table.numeric.append(name)
        else:
            table.skipped[name] = kind


def _not_numeric_error(table: Table, name: str) -> CLIError:
    hint = "leave it out with --columns, or group by it with --groupby"
    if name in table.strays:
        return CLIError(f"{table.strays[name].message()}; fix the file, or {hint}")
    kind = table.skipped.get(name, "text")
    return CLIError(f"{table.noun} {name!r} is not numeric (it holds {kind} values); {hint}")


def _no_group_error(table: Table, by: str) -> CLIError:
    """``--groupby`` names nothing to group by: say what the file offers instead."""
    if table.frame is not None:
        cols = [str(c) for c in table.frame.columns]
        listed = ", ".join(cols) if cols else "none"
        return CLIError(f"no column {by!r} to group by in {table.source!r}; its columns are: "
                        f"{listed}")
    dims = list(dict.fromkeys(d for v in table.variables.values() for d in v.dims))
    offers = [*table.coords, *(d for d in dims if d not in table.coords)]
    if not offers:
        return CLIError(f"nothing named {by!r} to group by in {table.source!r}: its variables "
                        "have no dimensions or coordinates (only scalar variables)")
    return CLIError(f"no dimension or coordinate {by!r} to group by in {table.source!r}; "
                    "group by one of: " + ", ".join(map(str, offers)))


def _nothing_to_describe(table: Table, groupby: str | None) -> str:
    """Why no column is left to describe, naming what the file holds (never an empty
    list)."""
    held = [f"{c} ({k})" for c, k in table.skipped.items() if c != groupby]
    if groupby is not None and groupby in table.numeric:
        held.insert(0, f"{groupby} (the --groupby {table.noun})")
    what = ", ".join(held) if held else f"it has no {table.noun}s"
    return f"no numeric {table.noun}s to describe in {table.source!r} ({what})"


def check_columns(table: Table, requested: Sequence[str] | None, groupby: str | None) -> list[str]:
    names = list(table.data)
    if groupby is not None and not table.can_group_by(groupby):
        raise _no_group_error(table, groupby)
    if requested:
        missing = [c for c in requested if c not in table.data]
        if missing:
            raise CLIError(
                f"no {table.noun} {missing[0]!r} in {table.source!r}; "
                f"{table.noun}s are: " + ", ".join(names)
            )
        for c in requested:
            if c not in table.numeric:
                raise _not_numeric_error(table, c)
        columns = list(requested)
    else:
        columns = [c for c in table.numeric if c != groupby]
    if not columns:
        if table.strays:  # the only numbers were in columns with stray tokens
            raise _not_numeric_error(table, next(iter(table.strays)))
        raise CLIError(_nothing_to_describe(table, groupby))
    return columns
