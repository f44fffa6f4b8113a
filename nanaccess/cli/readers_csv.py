"""Reading CSV for the command line: missing tokens apart from NaN, stray tokens reported.

pandas' C parser reads the numbers, with only the missing tokens as NA; a column it
leaves as text is converted once (vectorised):

* the missing tokens (``""``, ``NA``, ``N/A``, ``NULL``, ``None``, ``#N/A`` and any
  ``--na-values``) are *missing*: no bits, no sign (a nullable ``Float64`` / ``Int64``
  column);
* ``nan``, ``+nan``, ``-nan`` (any case) are *NaN*, with the sign kept;
* everything else goes through ``pd.to_numeric`` after removing ``--thousands`` and
  turning ``--decimal`` into ``.``.

A column where most fields are numbers but some are not has *stray tokens*: it is not
described, and :class:`Stray` says how many, the first one, its row label and its
1-based line in the file (header = line 1).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO, Any

import numpy as np
import pandas as pd

__all__ = ["MISSING_TOKENS", "CSVOptions", "Stray", "read_csv_text", "sniff_sep"]

#: fields that mean "no value" (missing), never NaN
MISSING_TOKENS = ("", "NA", "N/A", "NULL", "None", "#N/A")
#: fields (compared lower-case) that are NaN; "-nan" is a negative NaN
_NAN_TOKENS = ("nan", "+nan", "-nan")
_SNIFF_BYTES = 64 * 1024
_INT_RE = r"^[+-]?\d+$"


@dataclass(frozen=True)
class CSVOptions:
    """How to split and read the fields (the ``describe`` input options)."""

    sep: str | None = None  # None: by extension (.tsv) or sniffed
    thousands: str | None = None
    decimal: str = "."
    na_values: Sequence[str] = ()
    encoding: str = "utf-8"


@dataclass(frozen=True)
class Stray:
    """Fields of a numeric-looking column that are not numbers."""

    column: str
    count: int
    first: str
    row: Any  # the row label (the frame's index)
    line: int | None  # 1-based line in the file, None when unknown

    def message(self) -> str:
        """The report, e.g. ``column 'x' is not numeric: row 2 holds 'err', ...``.

        Examples
        --------
        >>> print(Stray("temp", 1, "err", 2, 4).message())  # doctest: +ELLIPSIS
        column 'temp' is not numeric: row 2 holds 'err', ... (1 such value; first on line 4)
        """
        where = f"first on line {self.line}" if self.line is not None else "line unknown"
        many = "value" if self.count == 1 else "values"
        return (
            f"column {self.column!r} is not numeric: row {self.row} holds {self.first!r}, "
            f"which is not a number ({self.count} such {many}; {where})"
        )


def sniff_sep(sample: str) -> str:
    """The field separator of a CSV sample: one of ``, \\t ; |`` (``,`` when unsure).

    Examples
    --------
    >>> sniff_sep("a\\tb\\n1\\t2\\n"), sniff_sep("a;b\\n1,5;2\\n"), sniff_sep("a\\n1\\n")
    ('\\t', ';', ',')
    """
    lines = [ln for ln in sample.splitlines() if ln.strip()][:20]
    if not lines:
        return ","
    # the candidate found the same number of times (>0) on every complete line wins;
    # the last line of a sample may be cut, so it is left out when there are others
    body = lines[:-1] if len(lines) > 2 else lines
    best, best_n = ",", 0
    for sep in (",", "\t", ";", "|"):
        counts = {ln.count(sep) for ln in body}
        if len(counts) == 1 and (n := counts.pop()) > best_n:
            best, best_n = sep, n
    if best_n:
        return best
    try:
        return csv.Sniffer().sniff("\n".join(body), delimiters=",\t;|").delimiter
    except csv.Error:
        return ","


def read_csv_text(
    raw: bytes | IO[bytes],
    opts: CSVOptions,
    *,
    sep: str,
    compression: str | None,
    lines_of: Any = None,
) -> tuple[pd.DataFrame, dict[str, str], dict[str, Stray]]:
    """Read CSV bytes into (frame, skipped column -> why, stray-token reports).

    ``frame`` holds every column: numbers converted as the module docstring says, the
    rest as text. ``lines_of(row_positions)`` maps 0-based data rows to 1-based lines
    (only called for a column with stray tokens).

    Examples
    --------
    >>> text = b"g,a,b\\nx,1,NA\\ny,-nan,2\\nz,3,err\\nw,4,5\\n"
    >>> frame, skipped, stray = read_csv_text(text, CSVOptions(), sep=",", compression=None)
    >>> frame.dtypes.astype(str).tolist(), skipped
    (['string', 'float64', 'string'], {'g': 'text', 'b': 'text with stray tokens'})
    >>> bool(np.signbit(frame["a"][1])), stray["b"].first, stray["b"].row
    (True, 'err', 2)
    """
    src = io.BytesIO(raw) if isinstance(raw, bytes) else raw
    missing_tokens = list(dict.fromkeys([*MISSING_TOKENS, *opts.na_values]))
    # pandas' C parser does the numbers (thousands/decimal marks included); with only
    # the missing tokens as NA, a column holding "nan" comes back as text and is
    # converted below, keeping the sign of "-nan"
    frame = pd.read_csv(
        src,
        sep=sep,
        keep_default_na=False,
        na_values=missing_tokens,
        thousands=opts.thousands,
        decimal=opts.decimal,
        encoding=opts.encoding,
        compression=compression,
        dtype_backend="numpy_nullable",
    )
    out: dict[str, Any] = {}
    skipped: dict[str, str] = {}
    strays: dict[str, Stray] = {}
    for name in frame.columns:
        column = frame[name]
        if column.dtype.kind in "iuf":  # Int64 / Float64: every NA is a missing token
            out[name] = _unmask_if_full(column)
            continue
        if not (pd.api.types.is_string_dtype(column.dtype) or column.dtype == object):
            out[name] = column  # booleans, ...: not described
            continue
        col, bad = _convert(column, opts)
        key = str(name)
        if bad is None:
            out[name] = col
            continue
        out[name] = column
        n_bad = int(bad.sum())
        n_filled = int(column.notna().sum())
        if n_bad * 2 >= n_filled:  # mostly text: a text column
            skipped[key] = "text"
            continue
        first = int(np.flatnonzero(bad)[0])
        line = lines_of([first])[0] if lines_of is not None else None
        strays[key] = Stray(key, n_bad, str(column.iloc[first]), frame.index[first], line)
        skipped[key] = "text with stray tokens"
    return pd.DataFrame(out, index=frame.index), skipped, strays


def _unmask_if_full(col: pd.Series) -> pd.Series:
    """A nullable column without missing values as a plain NumPy one."""
    if col.isna().any():
        return col
    return pd.Series(col.to_numpy(dtype=col.dtype.numpy_dtype), index=col.index, name=col.name)


def _convert(raw: pd.Series, opts: CSVOptions) -> tuple[pd.Series, np.ndarray | None]:
    """(numbers, None) or (raw, mask of the fields that are not numbers)."""
    missing = raw.isna().to_numpy()
    text = raw.astype(object).where(~missing, None)
    text = pd.Series(text, dtype=object).str.strip()
    low = text.str.lower()
    is_nan = low.isin(_NAN_TOKENS).to_numpy()
    numeric = text.where(~(missing | is_nan))
    if opts.thousands:
        numeric = numeric.str.replace(opts.thousands, "", regex=False)
    if opts.decimal != ".":
        numeric = numeric.str.replace(opts.decimal, ".", regex=False)
    parsed = pd.to_numeric(numeric, errors="coerce")
    bad = parsed.isna().to_numpy() & ~missing & ~is_nan
    if bad.any():
        return raw, bad
    filled = ~(missing | is_nan)
    if not is_nan.any() and numeric[filled].str.fullmatch(_INT_RE).all():
        ints = pd.to_numeric(numeric.where(filled, "0"), errors="coerce")
        if ints.dtype.kind in "iu":  # not beyond int64/uint64
            values = ints.to_numpy()
            if missing.any():
                return pd.Series(pd.arrays.IntegerArray(values, missing), index=raw.index), None
            return pd.Series(values, index=raw.index), None
    values = parsed.to_numpy(dtype=np.float64, na_value=0.0).copy()
    values[is_nan] = np.nan
    values[(low == "-nan").to_numpy()] = -np.nan  # the sign of "-nan" is kept
    if missing.any():
        values[missing] = 0.0  # a missing slot's bits mean nothing
        return pd.Series(pd.arrays.FloatingArray(values, missing), index=raw.index), None
    return pd.Series(values, index=raw.index), None


def data_lines(stream: IO[str], sep: str, rows: Sequence[int]) -> list[int | None]:
    """1-based file lines of 0-based data rows, as ``pd.read_csv`` counts rows
    (header first, blank lines skipped, quoted fields may span lines).

    Examples
    --------
    >>> data_lines(io.StringIO('a,b\\n1,2\\n\\n"x\\ny",3\\n4,5\\n'), ",", [0, 1, 2])
    [2, 4, 6]
    """
    wanted = sorted(set(rows))
    found: dict[int, int] = {}
    reader = csv.reader(stream, delimiter=sep)
    n, end = -1, 0  # the header is record -1; end: last line read so far
    for record in reader:  # only run for a column with stray tokens
        start, end = end + 1, reader.line_num
        if not record:
            continue
        if n in wanted:
            found[n] = start
            if len(found) == len(wanted):
                break
        n += 1
    return [found.get(r) for r in rows]
