"""pandas columns of every dtype -> (NumPy values, missing mask), and results back.

NaN and missing stay apart whatever ``pandas.isna`` says: a NaN stored in the values
of a nullable ``Float64`` or an Arrow ``double[pyarrow]`` array (unmasked / valid) is
a NaN, a masked / null slot is missing. Values are read from the arrays' own buffers
(no pandas reduction, no pyarrow compute), as views where possible; the input is
never modified.

=========================================  ===============================  ============
pandas dtype                               values seen by the core          missing
=========================================  ===============================  ============
float16/32/64, int*, uint*, bool           the NumPy array (a view)         none
datetime64 / timedelta64 (NaT)             the NumPy array                  NaT (core)
datetime64[unit, tz]                       UTC datetime64 values            NaT (core)
Float32/64, Int*, UInt*, boolean           the masked array's data          its mask
Arrow float/int/bool/timestamp/duration    the value buffer                 nulls
Arrow decimal, object (Decimal, Fraction)  object array                     None / NA
=========================================  ===============================  ============

Categorical, string, period, interval and other dtypes are non-numeric: a
:class:`TypeError` naming the column.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ._groupby_registry import numpy_values

__all__ = ["Column", "column_arrays", "is_numeric_column", "to_pandas_array", "to_scalar"]


@dataclass(frozen=True)
class Column:
    """One pandas column seen as NumPy data.

    Attributes
    ----------
    values : numpy.ndarray
        Read-only use only (may be a view of the pandas data).
    missing : numpy.ndarray of bool or None
        Masked / null entries (None when nothing is masked).
    host : str
        "numpy", "masked", "arrow" or "object": how results are built back.
    dtype : object
        The original pandas dtype.
    tz : object
        Time zone of tz-aware datetimes (results are converted back to it).
    """

    values: np.ndarray
    missing: np.ndarray | None
    host: str
    dtype: Any
    tz: Any = None

    @property
    def has_na(self) -> bool:
        """Whether the column's missing value is ``pd.NA`` (nullable and Arrow dtypes,
        Arrow decimals included), so a missing result is ``pd.NA``, never a NaN."""
        return self.host in ("masked", "arrow") or isinstance(self.dtype, pd.ArrowDtype)


def _non_numeric(name: Any, dtype: Any) -> TypeError:
    return TypeError(
        f"column {name!r} has non-numeric dtype {dtype}; nanaccess statistics need "
        "numbers (pass numeric_only=True to skip such columns)"
    )


def is_numeric_column(dtype: Any) -> bool:
    """Whether pandas' ``numeric_only=True`` keeps a column of this dtype.

    Examples
    --------
    >>> import pandas as pd
    >>> from nanaccess.pandas.dtypes import is_numeric_column
    >>> is_numeric_column(pd.Int64Dtype()), is_numeric_column(pd.StringDtype())
    (True, False)
    """
    if isinstance(dtype, pd.CategoricalDtype):
        return False
    return bool(pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype))


def _unpack_bits(buf: Any, offset: int, length: int) -> np.ndarray:
    raw = np.frombuffer(buf, dtype=np.uint8)
    bits = np.unpackbits(raw, bitorder="little")
    return bits[offset : offset + length].astype(bool)


def _arrow_column(arr: Any, name: Any, dtype: Any) -> Column:
    import pyarrow as pa

    chunked = arr.__arrow_array__()
    a = chunked.combine_chunks() if isinstance(chunked, pa.ChunkedArray) else chunked
    t = a.type
    n = len(a)
    if pa.types.is_decimal(t):
        return Column(np.array(a.to_pylist(), dtype=object), None, "object", dtype)
    tz = None
    if pa.types.is_floating(t) or pa.types.is_integer(t):
        np_dtype = np.dtype(t.to_pandas_dtype())
    elif pa.types.is_timestamp(t):
        np_dtype = np.dtype(f"datetime64[{t.unit}]")
        tz = t.tz
    elif pa.types.is_duration(t):
        np_dtype = np.dtype(f"timedelta64[{t.unit}]")
    elif pa.types.is_boolean(t):
        np_dtype = np.dtype(bool)
    else:
        raise _non_numeric(name, dtype)
    bufs = a.buffers()
    validity, data = bufs[0], bufs[1]
    if np_dtype == np.bool_:
        values = _unpack_bits(data, a.offset, n) if n else np.zeros(0, bool)
    elif data is None:
        values = np.zeros(n, dtype=np_dtype)
    else:
        item = np_dtype.itemsize
        values = np.frombuffer(data, dtype=np_dtype, count=(a.offset + n) if n else 0,
                               offset=0)[a.offset :] if len(data) >= item * (a.offset + n) else \
            np.zeros(n, np_dtype)
    missing = None
    if a.null_count and validity is not None:
        missing = ~_unpack_bits(validity, a.offset, n)
    elif a.null_count == n and n:
        missing = np.ones(n, bool)
    return Column(values, missing, "arrow", dtype, tz)


def column_arrays(s: pd.Series | pd.Index | Any, name: Any = None) -> Column:
    """Convert one pandas column to :class:`Column` (values + missing mask).

    Parameters
    ----------
    s : pandas.Series, Index or ExtensionArray
    name : label used in error messages (defaults to ``s.name``)

    Raises
    ------
    TypeError
        A non-numeric dtype (strings, categoricals, periods, intervals, complex).

    Examples
    --------
    >>> import numpy as np, pandas as pd, pyarrow as pa
    >>> from nanaccess.pandas.dtypes import column_arrays
    >>> c = column_arrays(pd.Series(pa.array([1.0, None, float("nan")]), dtype="double[pyarrow]"))
    >>> c.values[[0, 2]], c.missing
    (array([ 1., nan]), array([False,  True, False]))
    """
    if name is None:
        name = getattr(s, "name", None)
    dtype = s.dtype
    if isinstance(dtype, np.dtype) and isinstance(s, pd.Series) and dtype.kind in "fiubmM":
        # the common case at the cost of one attribute (``.array`` builds a wrapper)
        if dtype.kind == "f" and dtype.itemsize not in (2, 4, 8):
            raise _non_numeric(name, dtype)
        return Column(np.asarray(numpy_values(s)), None, "numpy", dtype)
    arr = s.array if hasattr(s, "array") else s
    if isinstance(dtype, np.dtype):
        k = dtype.kind
        if k in "fiub" or k in "mM":
            if k == "f" and dtype.itemsize not in (2, 4, 8):
                raise _non_numeric(name, dtype)
            return Column(np.asarray(arr), None, "numpy", dtype)
        if k == "O":
            return Column(np.asarray(arr, dtype=object), None, "object", dtype)
        raise _non_numeric(name, dtype)
    if isinstance(dtype, pd.SparseDtype):
        return column_arrays(pd.Series(np.asarray(arr.to_dense())), name)
    if isinstance(dtype, pd.DatetimeTZDtype):
        naive = pd.Series(arr).dt.tz_convert(None).to_numpy()
        return Column(naive, None, "numpy", dtype, dtype.tz)
    if isinstance(dtype, pd.ArrowDtype):
        return _arrow_column(arr, name, dtype)
    data = getattr(arr, "_data", None)
    mask = getattr(arr, "_mask", None)
    if isinstance(arr, pd.arrays.IntegerArray | pd.arrays.FloatingArray | pd.arrays.BooleanArray):
        if isinstance(data, np.ndarray) and isinstance(mask, np.ndarray):
            return Column(data, mask if np.count_nonzero(mask) else None, "masked", dtype)
        # fallback through public API (cannot tell NaN from NA here)
        miss = np.asarray(arr.isna())
        vals = arr.to_numpy(dtype=dtype.numpy_dtype, na_value=0)
        return Column(vals, miss if miss.any() else None, "masked", dtype)
    raise _non_numeric(name, dtype)


def to_pandas_array(
    values: np.ndarray, missing: np.ndarray | None, col: Column, empty: np.ndarray | None = None
) -> Any:
    """A 1-D core result as the array pandas would hold it for this column's host.

    ``empty`` marks results over no values: the host's missing value for nullable and
    Arrow hosts (as pandas gives NA there), the canonical NaN otherwise.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from nanaccess.pandas.dtypes import column_arrays, to_pandas_array
    >>> col = column_arrays(pd.Series([1, None], dtype="Int64"))
    >>> to_pandas_array(np.array([1.5, np.nan]), np.array([False, True]), col)
    <FloatingArray>
    [1.5, <NA>]
    Length: 2, dtype: Float64
    """
    values = np.asarray(values)
    if col.has_na:
        miss = np.zeros(values.shape, bool) if missing is None else np.asarray(missing).copy()
        if empty is not None:
            miss |= empty
        if values.dtype.kind == "O":
            if miss.any():
                values = values.copy()
                values[miss] = pd.NA
            return pd.array(values, dtype=object)
        if col.host == "masked" and values.dtype.kind in "fiub":
            vals = values
            if vals.dtype.kind == "f":
                if vals.dtype.itemsize < 4:
                    vals = vals.astype(np.float32)
                vals = np.where(miss, vals.dtype.type(0), vals) if miss.any() else vals
                return pd.arrays.FloatingArray(np.ascontiguousarray(vals), miss)
            if vals.dtype.kind == "b":
                return pd.arrays.BooleanArray(np.ascontiguousarray(vals), miss)
            return pd.arrays.IntegerArray(np.ascontiguousarray(vals), miss)
        if col.host == "arrow":
            import pyarrow as pa

            vals = values
            if vals.dtype.kind == "M":
                unit = np.datetime_data(vals.dtype)[0]
                t = pa.timestamp(unit, tz=col.tz)
                pa_arr = pa.array(vals.view(np.int64), type=pa.int64(), mask=miss).cast(t)
            elif vals.dtype.kind == "m":
                unit = np.datetime_data(vals.dtype)[0]
                pa_arr = pa.array(vals.view(np.int64), type=pa.int64(), mask=miss).cast(
                    pa.duration(unit))
            else:
                pa_arr = pa.array(vals, mask=miss, from_pandas=False)
            return pd.arrays.ArrowExtensionArray(pa_arr)
    if values.dtype.kind == "M":
        out = pd.array(values)
        if col.tz is not None:
            out = pd.Series(out).dt.tz_localize("UTC").dt.tz_convert(col.tz).array
        return out
    if values.dtype.kind == "m":
        return pd.array(values)
    return values


def to_scalar(value: Any, missing: bool, col: Column, empty: bool = False) -> Any:
    """A 0-d core result as the scalar a pandas Series reduction would return.

    NumPy scalars keep their dtype and bits (float32 stays float32); missing results are
    ``pd.NA`` for nullable/Arrow hosts (``NaT`` for datetimes, the canonical NaN for
    NumPy floats); datetimes become :class:`pandas.Timestamp` / ``Timedelta``.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from nanaccess.pandas.dtypes import column_arrays, to_scalar
    >>> to_scalar(np.array(2.5), False, column_arrays(pd.Series([1.0])))
    np.float64(2.5)
    >>> to_scalar(np.array(np.nan), True, column_arrays(pd.Series([1.0], dtype="Float64")))
    <NA>
    """
    v = np.asarray(value)[()] if isinstance(value, np.ndarray) else value
    if isinstance(v, np.datetime64) or isinstance(v, np.timedelta64):
        if missing or np.isnat(v):
            return pd.NaT
        if isinstance(v, np.datetime64):
            ts = pd.Timestamp(v)
            return ts.tz_localize("UTC").tz_convert(col.tz) if col.tz is not None else ts
        return pd.Timedelta(v)
    if (missing or empty) and col.has_na:
        return pd.NA
    if missing:
        return np.float64(np.nan)
    return v
