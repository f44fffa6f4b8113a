"""Window statistics: ``obj.rolling(...).nanstats``, ``obj.expanding().nanstats`` and
``df.groupby(k).rolling(...).nanstats``.

The window parameters are pandas' own (read by
:func:`nanaccess.pandas._groupby_registry.window_parts`); the bounds come from
:mod:`nanaccess.core.window.bounds` (fixed, time-based, expanding, per group) or from
a custom ``BaseIndexer``; every column goes through
:func:`nanaccess.core.window.window_reduce`, so each window's value is exactly the
plain statistic of its values under the policy. Results are labelled as pandas' own
window methods label them (index, ``step``, columns, name, the group levels of a
GroupBy window). ``s.resample(...).nanstats`` is the GroupBy accessor
(:class:`nanaccess.pandas.groupby.NanGroupBy`): a resample is a grouped reduction.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .. import _stats
from .._hostkit import undefined_spread
from .._labels import IndexLocation, fmt_label
from ..core.window import window_reduce
from ..errors import NaNError
from ..options import NanPolicy, resolve_policy
from ._generated_window import WindowStatsMixin
from ._groupby_registry import window_parts
from .columns import empty_is_missing, subject_of, type_error
from .dtypes import column_arrays, is_numeric_column, to_pandas_array
from .window_bivariate import WindowBivariate
from .window_bounds import time_values, window_bounds

__all__ = ["NanWindow", "window_bounds", "time_values"]


class NanWindow(WindowBivariate, WindowStatsMixin):
    """NaN-explicit statistics of a pandas window (``obj.rolling(...).nanstats``).

    Examples
    --------
    >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
    >>> s = pd.Series([1.0, np.nan, 3.0, 4.0])
    >>> s.rolling(2, min_periods=1).nanstats.median(nan_policy="omit").tolist()
    [1.0, 1.0, 3.0, 3.5]
    >>> s.rolling(2).nanstats.median(nan_policy="propagate").tolist()
    [nan, nan, nan, 3.5]
    """

    def __init__(self, obj: Any) -> None:
        self._obj = obj

    def _reduce(self, stat: str, *, nan_policy: Any = None, numeric_only: bool = False,
                engine: str | None = None, **params: Any) -> pd.Series | pd.DataFrame:
        """The hook of every generated statistic: one result per window and column."""
        parts = window_parts(self._obj)
        count = stat in _stats.COUNTS
        # a count takes no policy: "totalorder" counts the numbers, raising for nothing,
        # and min_periods counts every row (as pandas' count)
        policy = NanPolicy.TOTALORDER if count else resolve_policy(nan_policy)
        obj = parts["obj"]
        is_series = isinstance(obj, pd.Series)
        order, index, start, end, min_periods = window_bounds(parts, obj)
        cols = [obj] if is_series else [obj.iloc[:, i] for i in range(obj.shape[1])]
        names = [obj.name] if is_series else list(obj.columns)
        q: Any = params.get("q")  # None, a float or a sequence of floats
        nq = len(np.atleast_1d(q)) if stat in _stats.QUANTILES and np.ndim(q) > 0 else None
        on = parts["on"] if not is_series else None
        # (column position, key, array): a list, so duplicate column names all stay
        out_cols: list[tuple[int, Any, Any]] = []
        for pos, (name, s) in enumerate(zip(names, cols, strict=True)):
            if on is not None and name == on:
                out_cols.append((pos, name, _on_column(s, order, index)))
                continue
            if numeric_only and not is_numeric_column(s.dtype):
                continue
            try:
                col = column_arrays(s, name)
            except TypeError as err:
                raise TypeError(str(err)) from None
            values = col.values if order is None else col.values[order]
            miss = col.missing if (col.missing is None or order is None) else \
                col.missing[order]
            try:
                red = window_reduce(values, start, end, stat, policy=policy, missing=miss,
                                    min_periods=min_periods, engine=engine, **params)
            except NaNError as err:
                raise _restated(err, name, obj.index, order, index, is_series) from None
            except TypeError as err:
                raise type_error(name, err, is_series) from None
            vals, vmiss = _host_values(red, col, count)
            empty = red.short
            if col.host in ("masked", "arrow") and empty_is_missing(stat):
                # nothing left, or too few values for the ddof: pd.NA, as the
                # statistic of the same rows gives (issue 25 class 15)
                empty = red.empty | undefined_spread(red.count, stat, params)
            if nq is None:
                out_cols.append((pos, name, to_pandas_array(
                    vals, vmiss, col, np.broadcast_to(empty, vals.shape))))
            else:
                for j, qj in enumerate(np.atleast_1d(q)):
                    out_cols.append((pos, (name, float(qj)), to_pandas_array(
                        vals[j], None if vmiss is None else vmiss[j], col, empty)))
        out = _assemble(out_cols, index, obj, is_series, nq, q)
        if not parts["as_index"] and parts["grouper"] is not None:
            # pandas' as_index=False: the group keys become columns, the rows keep
            # pandas' own index (BaseWindowGroupBy._apply's reset_index)
            out = out.reset_index(level=list(range(index.nlevels - obj.index.nlevels)))
        return out


def _host_values(red: Any, col: Any, count: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """(values, missing) of a window result as this column's host holds them.

    Integer picks and exact integer sums stay integers (as the non-window paths
    keep them): on a nullable or Arrow column always (a result with no value is
    missing), on a NumPy column where every window has a value (else float64 with
    NaN, pandas' window result). Bool results are float64 on a NumPy column (pandas'
    window result), as counts are (pandas' ``count``); floats, datetimes and objects
    as they are (picked floats keep their dtype and bits)."""
    exact, holes = (None, None) if count else (red.exact, red.holes)
    if exact is not None and col.has_na and col.host in ("masked", "arrow"):
        if holes is None:
            return exact, red.missing
        return exact, holes if red.missing is None else (holes | red.missing)
    if exact is not None and exact.dtype.kind in "iu" and holes is None:
        return exact, red.missing
    values = red.values
    if values.dtype.kind in "iub":
        values = values.astype(np.float64)
    return values, red.missing


def _on_column(s: pd.Series, order: np.ndarray | None, index: pd.Index) -> Any:
    """The ``on`` column of a time-based window, as pandas puts it back."""
    return s.array if order is None else s.array.take(order)


def _assemble(out_cols: list[tuple[int, Any, Any]], index: pd.Index, obj: Any,
              is_series: bool, nq: int | None, q: Any) -> pd.Series | pd.DataFrame:
    """The result of ``(column position, key, array)`` triples, labelled as pandas."""
    if is_series and nq is None:
        # fresh arrays of the engine: no copy
        return pd.Series(out_cols[0][2], index=index, name=obj.name, copy=False)
    frame = pd.DataFrame(dict(enumerate(a for _, _, a in out_cols)), index=index)
    if is_series:
        frame.columns = pd.Index(np.asarray(np.atleast_1d(q), np.float64))
    elif nq is None:  # the kept columns' own labels (duplicates and dtype kept)
        frame.columns = obj.columns[[pos for pos, _, _ in out_cols]]
    else:
        frame.columns = pd.MultiIndex.from_tuples([key for _, key, _ in out_cols])
    return frame


def _restated(err: NaNError, name: Any, rows: pd.Index, order: np.ndarray | None,
              result_index: pd.Index, series: bool) -> NaNError:
    """A core error naming the column, the window's label and the NaN's label."""
    pos = err.position
    row = None if not pos else int(pos[0])
    if row is not None and order is not None:
        row = int(order[row])
    location = None if row is None else IndexLocation(rows)((row,))
    label = result_index[int(err.group)] if err.group is not None else None
    subject = subject_of(name, series=series)
    if label is not None:
        subject = f"{subject} in window {fmt_label(label)}"
    return err.relabel(subject, location, group=label)
