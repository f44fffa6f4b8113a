"""One polars column through the core, and core results back into polars.

polars stores null (missing) apart from NaN and keeps every float's bits, so a column
maps onto the core's ``(values, missing)`` pair without loss: the values are the
column's own buffer (``fill_null`` only where nulls sit, which keeps every other bit),
the missing mask is ``is_null``. Results come back in polars' types: a null for a
missing result, picks in the column's dtype (ints stay ints, float32 stays float32,
a NaN's payload kept), temporal results in the column's time unit and time zone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from .._labels import IndexLocation, relabel, restate, subject
from ..errors import NaNError

__all__ = ["PolarsColumn", "column_of", "relabelled", "to_scalar", "to_series"]


@dataclass(frozen=True)
class PolarsColumn:
    """The core's view of one polars column."""

    name: str
    values: np.ndarray
    missing: np.ndarray | None
    dtype: Any  # the polars dtype, to rebuild results

    @property
    def has_nulls(self) -> bool:
        return self.missing is not None


def column_of(s: pl.Series) -> PolarsColumn:
    """``(values, missing)`` of a polars Series (TypeError for data with no numbers).

    Numbers keep their bits (no NaN is made from a null, no null from a NaN);
    Decimal columns take the exact object path (Python ``Decimal`` values), temporal
    columns their NumPy datetime64/timedelta64 form (NaT is missing).
    """
    dt = s.dtype
    nulls = s.null_count()
    missing = s.is_null().to_numpy() if nulls else None
    if dt.is_float() or dt.is_integer() or dt == pl.Boolean:
        filled = s.fill_null(False if dt == pl.Boolean else 0) if nulls else s
        return PolarsColumn(s.name, filled.to_numpy(), missing, dt)
    if dt.is_temporal() and dt != pl.Time:
        values = s.to_numpy()
        if values.dtype.kind not in "mM":  # Date: days as datetime64
            values = values.astype("datetime64[D]")
        return PolarsColumn(s.name, values, None, dt)
    if dt.is_decimal():
        return PolarsColumn(s.name, np.array(s.to_list(), dtype=object), missing, dt)
    raise TypeError(f"column {s.name!r} has non-numeric dtype {dt}; nanaccess statistics "
                    "need numbers")


def relabelled(err: NaNError, name: str, n: int, group: Any = None) -> NaNError:
    """A core error restated with the column and the row position (polars has no
    index: rows are named by position)."""
    return relabel(err, subject("column", name), IndexLocation(range(n)), group)


def type_error(name: str, err: Exception) -> Exception:
    return restate(err, subject("column", name))


def to_series(name: str, values: np.ndarray, missing: np.ndarray | None,
              dtype: Any) -> pl.Series:
    """Core result values as a polars Series: nulls where missing, the column's dtype
    kept for picks of the same kind, its time zone for datetimes."""
    values = np.asarray(values).reshape(-1)
    if values.dtype == object:
        out = pl.Series(name, values.tolist(), dtype=dtype if dtype.is_decimal() else None,
                        strict=False)
    elif values.dtype.kind in "mM":
        out = pl.Series(name, values)
        zone = getattr(dtype, "time_zone", None)
        if zone:
            out = out.dt.replace_time_zone("UTC").dt.convert_time_zone(zone)
        if getattr(dtype, "time_unit", None) and out.dtype != dtype:
            out = out.cast(dtype)
    else:
        out = pl.Series(name, values)
    if missing is not None:
        miss = np.broadcast_to(np.asarray(missing, dtype=bool), values.shape).reshape(-1)
        if miss.any():
            out = out.scatter(np.flatnonzero(miss), None)
    return out


def to_scalar(values: np.ndarray, missing: Any, dtype: Any) -> Any:
    """A 0-d core result as polars gives a scalar: None when missing, else the value as
    stored (a NumPy scalar for numbers, so a float32 pick or a NaN payload survives;
    ``datetime`` / ``timedelta`` / ``Decimal`` for those columns)."""
    if missing is not None and bool(np.asarray(missing).reshape(-1)[0]):
        return None
    value = np.asarray(values).reshape(-1)[0]
    if np.asarray(values).dtype.kind in "mMO":
        return to_series("", np.asarray(values).reshape(1), None, dtype).item()
    return value
