"""Reading the command line's input files: CSV, Parquet and NetCDF into one table.

``read_table`` turns a file into a :class:`Table` (a frame, its numeric columns and
why others were skipped), with a progress bar for large files on a terminal.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["CLIError", "Table", "read_table", "PROGRESS_BYTES"]

#: Files at least this large get a progress bar with ``--progress auto``.
PROGRESS_BYTES = 32 * 1024 * 1024

_FORMATS = {
    ".csv": "CSV",
    ".tsv": "CSV",
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
    """What ``describe`` works on: a frame, its numeric columns and notes."""

    frame: pd.DataFrame
    source: str
    fmt: str
    numeric: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)  # column -> why


def _progress(iterable: Iterable | None = None, *, enabled: bool, **kwargs: Any):
    """A tqdm progress bar on stderr, or the plain iterable when disabled/unavailable."""
    if not enabled:
        return _NoBar(iterable)
    try:
        from tqdm.auto import tqdm
    except ImportError:
        print(
            "nanaccess: note: install tqdm for a progress bar (pip install tqdm)",
            file=sys.stderr,
        )
        return _NoBar(iterable)
    return tqdm(iterable, file=sys.stderr, dynamic_ncols=True, leave=False, **kwargs)


class _NoBar:
    def __init__(self, iterable: Iterable | None) -> None:
        self._it = iterable

    def __iter__(self) -> Iterator:
        return iter(self._it if self._it is not None else ())

    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def update(self, n: int = 1) -> None:
        return None

    def close(self) -> None:
        return None


def _detect_format(path: Path) -> tuple[str, str | None]:
    suffixes = [s.lower() for s in path.suffixes]
    compression = None
    if suffixes and suffixes[-1] in _COMPRESSIONS:
        compression = suffixes.pop()
    fmt = _FORMATS.get(suffixes[-1] if suffixes else "")
    if fmt is None or (compression and fmt != "CSV"):
        raise CLIError(
            f"cannot tell the format of {str(path)!r} from its name; nanaccess describe reads "
            "CSV (.csv, .tsv, .txt, optionally compressed: .csv.gz ...), Parquet (.parquet, "
            ".pq) and NetCDF (.nc, .nc4, .cdf) files"
        )
    return fmt, compression


def read_table(path: str | os.PathLike, *, progress: str = "auto") -> Table:
    """Read a CSV, Parquet or NetCDF file into a :class:`Table`, keeping NaN bits.

    Parquet float columns that hold nulls become Arrow-backed columns, so nulls
    (missing) stay apart from NaNs; NetCDF variables are flattened into columns
    (variables on different dimensions are described separately). CSV can only
    hold canonical NaN.

    Parameters
    ----------
    path : path-like
    progress : {"auto", "always", "never"}
        Show a progress bar; "auto" does for files of at least 32 MiB.

    Returns
    -------
    Table

    Raises
    ------
    CLIError
        Missing file, unknown format, unreadable content, or a missing optional
        reader (pyarrow for Parquet, netCDF4 / h5netcdf for NetCDF).

    Examples
    --------
    >>> from nanaccess.cli import read_table
    >>> from nanaccess.data import sample_path
    >>> t = read_table(sample_path("sensors.csv"))
    >>> t.fmt, t.numeric[:2], t.skipped
    ('CSV', ['temp_c', 'humidity_pct'], {'date': 'text', 'station': 'text'})
    """
    path = Path(path)
    if not path.exists():
        raise CLIError(f"no such file: {str(path)!r}")
    if path.is_dir():
        raise CLIError(f"{str(path)!r} is a directory, not a data file")
    fmt, compression = _detect_format(path)
    size = path.stat().st_size
    show = progress == "always" or (progress == "auto" and size >= PROGRESS_BYTES)
    try:
        if fmt == "CSV":
            frame = _read_csv(path, compression, size, show)
        elif fmt == "Parquet":
            frame = _read_parquet(path, show)
        else:
            frame = _read_netcdf(path, show)
    except CLIError:
        raise
    except ImportError as err:
        raise CLIError(str(err)) from err
    except Exception as err:  # noqa: BLE001 - any reader failure is a user-facing error
        reason = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise CLIError(f"cannot read {str(path)!r} as {fmt}: {reason}") from err
    table = Table(frame=frame, source=str(path), fmt=fmt)
    _classify_columns(table)
    return table


def _read_csv(path: Path, compression: str | None, size: int, show: bool) -> pd.DataFrame:
    comp = {None: None, ".gz": "gzip", ".bz2": "bz2", ".xz": "xz", ".zst": "zstd", ".zip": "zip"}[
        compression
    ]
    sep = "\t" if path.suffixes and path.suffixes[0].lower() == ".tsv" else ","
    if size == 0:
        raise CLIError(f"cannot read {str(path)!r} as CSV: the file is empty")
    with open(path, "rb") as raw:
        if show:
            bar = _progress(
                enabled=True, total=size, desc=f"reading {path.name}", unit="B", unit_scale=True
            )
            from tqdm.utils import CallbackIOWrapper

            stream: Any = CallbackIOWrapper(bar.update, raw, "read")
            try:
                return pd.read_csv(stream, sep=sep, compression=comp)
            finally:
                bar.close()
        return pd.read_csv(raw, sep=sep, compression=comp)


def _arrow_float_to_numpy(arr) -> np.ndarray:
    """float values of a pyarrow float array, bit for bit (nulls' slots included)."""
    np_type = arr.type.to_pandas_dtype()
    buf = np.frombuffer(arr.buffers()[1], dtype=np_type)
    return buf[arr.offset : arr.offset + len(arr)].copy()


def _read_parquet(path: Path, show: bool) -> pd.DataFrame:
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
        for i in _progress(groups, enabled=show, desc=f"reading {path.name}", unit="row group")
    ]
    table = pa.concat_tables(parts) if parts else pf.schema_arrow.empty_table()
    columns: dict[str, Any] = {}
    for name in table.column_names:
        col = table.column(name).combine_chunks()
        if pa.types.is_floating(col.type):
            if col.null_count:  # keep nulls apart from NaNs: an Arrow-backed column
                columns[name] = pd.Series(pd.arrays.ArrowExtensionArray(col), name=name)
            else:  # to_pandas may canonicalise NaN bits: take the buffer itself
                columns[name] = pd.Series(_arrow_float_to_numpy(col), name=name)
        else:
            columns[name] = pa.table({name: col}).to_pandas()[name]
    return pd.DataFrame(columns)


def _read_netcdf(path: Path, show: bool) -> pd.DataFrame:
    import xarray as xr

    engines = set(xr.backends.list_engines())
    if not engines & {"netcdf4", "h5netcdf", "scipy"}:
        raise CLIError('reading NetCDF needs netCDF4: pip install netCDF4 (or "nanaccess[io]")')
    ds = xr.open_dataset(path, mask_and_scale=True, decode_times=True)
    with ds:
        names = list(ds.data_vars)
        if not names:
            raise CLIError(f"{str(path)!r} holds no data variables")
        dims = {ds[v].dims for v in names}
        loaded = {}
        for v in _progress(names, enabled=show, desc=f"reading {path.name}", unit="var"):
            loaded[v] = ds[v].load()
        if len(dims) == 1:
            frame = xr.Dataset(loaded).to_dataframe().reset_index()
            index_cols = [c for c in frame.columns if c not in loaded]
            frame.attrs["nanaccess_coords"] = index_cols
            return frame
        # variables on different dims: describe each flattened, side by side
        longest = max(loaded[v].size for v in names)
        cols = {}
        for v in names:
            flat = np.ravel(loaded[v].values)
            if flat.size < longest:
                pad = np.empty(longest - flat.size, dtype=object)
                pad[:] = None
                flat = np.concatenate([flat.astype(object), pad])
                cols[v] = pd.Series(flat, dtype=object)
            else:
                cols[v] = pd.Series(flat)
        frame = pd.DataFrame(cols)
        frame.attrs["nanaccess_padded"] = True
        return frame


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
    padded = table.frame.attrs.get("nanaccess_padded", False)
    coords = set(table.frame.attrs.get("nanaccess_coords", ()))
    for name in table.frame.columns:
        s = table.frame[name]
        kind = _kind_of(s)
        if padded and kind == "text":  # object-padded NetCDF variables
            inner = pd.Series([v for v in s.tolist() if v is not None])
            kind = _kind_of(pd.Series(inner.tolist())) if len(inner) else "text"
        if name in coords:
            table.skipped[str(name)] = "coordinate"
        elif kind == "numeric":
            table.numeric.append(str(name))
        else:
            table.skipped[str(name)] = kind


def _not_numeric_error(s: pd.Series, name: str, kind: str) -> CLIError:
    hint = "leave it out with --columns, or group by it with --groupby"
    if kind == "text":
        values = s.dropna().astype(str)
        parsed = pd.to_numeric(values, errors="coerce")
        bad = values[parsed.isna()]
        if len(bad):
            label, first = bad.index[0], bad.iloc[0]
            return CLIError(
                f"column {name!r} is not numeric: row {label} holds {first!r}, which is not a "
                f"number ({len(bad)} such values); fix the file, or {hint}"
            )
    return CLIError(f"column {name!r} is not numeric (it holds {kind} values); {hint}")


def _check_columns(table: Table, requested: Sequence[str] | None, groupby: str | None) -> list[str]:
    frame = table.frame
    if groupby is not None and groupby not in frame.columns:
        raise CLIError(
            f"no column {groupby!r} to group by; columns are: " + ", ".join(map(str, frame.columns))
        )
    if requested:
        missing = [c for c in requested if c not in frame.columns]
        if missing:
            raise CLIError(
                f"no column {missing[0]!r} in {table.source!r}; columns are: "
                + ", ".join(map(str, frame.columns))
            )
        for c in requested:
            if c not in table.numeric:
                raise _not_numeric_error(frame[c], c, table.skipped.get(c, "text"))
        columns = list(requested)
    else:
        # a text column that mostly parses as numbers is a broken numeric column
        for c, kind in table.skipped.items():
            if kind != "text" or c == groupby:
                continue
            values = frame[c].dropna().astype(str)
            if len(values) and pd.to_numeric(values, errors="coerce").notna().mean() > 0.5:
                raise _not_numeric_error(frame[c], c, kind)
        columns = [c for c in table.numeric if c != groupby]
    if not columns:
        raise CLIError(
            f"no numeric columns to describe in {table.source!r} (columns: "
            + ", ".join(f"{c} ({k})" for c, k in table.skipped.items())
            + ")"
        )
    return columns
