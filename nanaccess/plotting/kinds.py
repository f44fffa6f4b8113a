"""The kind of every element a plot draws: number, quiet NaN, negative NaN, signaling
NaN or missing (:func:`classify_kinds`), read from the bits of floats and the masks of
nullable, Arrow and object data."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..core.bits import as_bits, layout_of

__all__ = ["classify_kinds", "KIND_NAMES", "NUMBER", "QUIET", "NEGATIVE", "SIGNALING",
           "MISSING"]

#: Codes returned by :func:`classify_kinds`, in the order of the map's legend.
KIND_NAMES = ("number", "quiet NaN", "negative NaN", "signaling NaN", "missing")
NUMBER, QUIET, NEGATIVE, SIGNALING, MISSING = range(5)


def _values_and_missing(obj: Any) -> tuple[np.ndarray, np.ndarray]:
    """The raw values of a 1-D or N-D host object and a mask of its missing entries.

    Float values come back with their bits untouched; ``missing`` marks nulls of
    nullable / Arrow arrays, ``None``/``pd.NA`` in object arrays and ``NaT``.
    """
    if isinstance(obj, pd.Series | pd.Index):
        if isinstance(obj.dtype, np.dtype):  # plain NumPy data: the array itself
            return _array_values(obj.to_numpy(copy=False))
        if isinstance(obj.dtype, pd.ArrowDtype) or hasattr(obj.array, "_mask"):
            return _array_values(obj.array)
        # other extension types (tz-aware datetimes, categoricals, ...): NA is missing
        values = np.asarray(obj.astype(object))
        return values, np.asarray(obj.isna(), dtype=bool)
    if hasattr(obj, "variable") and hasattr(obj, "dims"):  # xarray.DataArray
        data = obj.data
        if hasattr(data, "compute") and not isinstance(data, np.ndarray):
            data = data.compute()
        return _array_values(np.asarray(data))
    if isinstance(obj, np.ma.MaskedArray):
        return np.asarray(obj.data), np.ma.getmaskarray(obj)
    return _array_values(np.asarray(obj))


def _array_values(arr: Any) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(arr, np.ndarray):
        if arr.dtype.kind in "mM":
            return arr, np.isnat(arr)
        if arr.dtype.kind == "O":
            miss = np.fromiter(
                (v is None or v is pd.NA or v is pd.NaT for v in arr.ravel().tolist()),
                dtype=bool,
                count=arr.size,
            ).reshape(arr.shape)
            return arr, miss
        return arr, np.zeros(arr.shape, dtype=bool)
    if hasattr(arr, "__arrow_array__"):  # ArrowExtensionArray: nulls beside NaNs
        import pyarrow as pa

        chunked = arr.__arrow_array__()
        pa_arr = chunked.combine_chunks() if isinstance(chunked, pa.ChunkedArray) else chunked
        valid = np.asarray(pa_arr.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
        if pa.types.is_floating(pa_arr.type):
            np_type = pa_arr.type.to_pandas_dtype()
            buf = np.frombuffer(pa_arr.buffers()[1], dtype=np_type)
            values = buf[pa_arr.offset : pa_arr.offset + len(pa_arr)]
        else:
            values = np.asarray(pa_arr.to_numpy(zero_copy_only=False))
        return values, ~valid
    if hasattr(arr, "_data") and hasattr(arr, "_mask"):  # pandas masked (nullable) arrays
        return np.asarray(arr._data), np.asarray(arr._mask, dtype=bool)
    values = np.asarray(arr, dtype=object)
    return _array_values(values)


def classify_kinds(obj: Any) -> np.ndarray:
    """Code every element as number, quiet NaN, negative NaN, signaling NaN or missing.

    Float arrays (float16/32/64) are classified on their bit patterns: NaN where the
    exponent is all ones and the mantissa non-zero, signaling where the quiet bit is
    clear, negative where the sign bit is set. A NaN that is both signaling and
    negative counts as signaling (the kind that raises).

    Parameters
    ----------
    obj : Series, DataFrame, DataArray, numpy.ndarray or array_like
        A DataFrame gives an ``(n_rows, n_columns)`` array.

    Returns
    -------
    numpy.ndarray of int8
        Codes indexing :data:`KIND_NAMES`: 0 number, 1 quiet NaN, 2 negative NaN,
        3 signaling NaN, 4 missing.

    Examples
    --------
    >>> from nanaccess.plotting import classify_kinds, KIND_NAMES
    >>> x = np.array([1.0, np.nan, -np.nan, np.inf])
    >>> x[3] = np.uint64(0x7FF0000000000001).view(np.float64)  # a signaling NaN
    >>> [KIND_NAMES[k] for k in classify_kinds(x)]
    ['number', 'quiet NaN', 'negative NaN', 'signaling NaN']
    >>> classify_kinds(pd.Series([1.5, None], dtype="Float64")).tolist()
    [0, 4]
    """
    if isinstance(obj, pd.DataFrame):
        if obj.shape[1] == 0:
            return np.zeros((obj.shape[0], 0), dtype=np.int8)
        return np.stack([classify_kinds(obj.iloc[:, j]) for j in range(obj.shape[1])], axis=1)
    values, missing = _values_and_missing(obj)
    codes = np.zeros(values.shape, dtype=np.int8)
    if values.dtype.kind == "f" and values.dtype.itemsize in (2, 4, 8):
        lay = layout_of(values.dtype)
        bits = as_bits(values)
        nan = np.isnan(values)
        codes[nan] = QUIET
        codes[nan & (bits < 0)] = NEGATIVE
        codes[nan & ((bits & lay.int_dtype.type(lay.quiet_bit)) == 0)] = SIGNALING
    elif values.dtype.kind == "O":
        flat = codes.reshape(-1)
        for i, v in enumerate(values.reshape(-1).tolist()):
            flat[i] = _object_kind(v)
    codes[missing] = MISSING
    return codes


def _object_kind(v: Any) -> int:
    from decimal import Decimal

    if v is None or v is pd.NA or v is pd.NaT:
        return MISSING
    if isinstance(v, Decimal):
        if v.is_snan():
            return SIGNALING
        if v.is_qnan():
            return NEGATIVE if v.is_signed() else QUIET
        return NUMBER
    if isinstance(v, float | np.floating) and v != v:
        return int(classify_kinds(np.asarray([v], dtype=np.asarray(v).dtype))[0])
    return NUMBER
