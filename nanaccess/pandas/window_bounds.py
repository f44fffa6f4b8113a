"""The bounds of a pandas window (:func:`window_bounds`): pandas' own window
parameters turned into the core's ``start`` / ``end`` arrays (fixed, time-based,
expanding, per group of a GroupBy window, or a custom ``BaseIndexer``'s), with the
result's index. Shared by the window statistics (:mod:`.window`) and the moving
covariance and correlation (:mod:`.window_bivariate`)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .._hostkit import window_length
from ..core.window import (
    FixedWindows,
    expanding_bounds,
    fixed_bounds,
    fixed_windows,
    time_bounds,
)
from ._groupby_registry import grouper_info

__all__ = ["window_bounds", "time_values", "keyed_row_index"]


def window_bounds(parts: dict[str, Any], obj: Any) -> tuple[
        np.ndarray | None, pd.Index, np.ndarray | FixedWindows, np.ndarray | None, int]:
    """(row order or None, result index, start, end, min_periods) of a pandas window;
    fixed windows without groups are a :class:`~nanaccess.core.window.FixedWindows`
    (``end`` None).

    A GroupBy window reorders the rows group by group (``order``) and labels the
    result with the group keys before pandas' index, as pandas does.
    """
    n = len(obj)
    order = groups = None
    index = obj.index
    if parts["grouper"] is not None:
        codes, _, result_index = grouper_info(parts["grouper"])
        keep = np.flatnonzero(codes >= 0)
        order = keep[np.argsort(codes[keep], kind="stable")]
        groups = codes[order]
        index = keyed_row_index(result_index, groups, obj.index.take(order))
        n = order.size
    window, step = parts["window"], parts["step"]
    min_periods = parts["min_periods"]
    if parts["expanding"]:
        start, end = expanding_bounds(n, groups)
    elif parts["freq"]:
        times = time_values(parts["times"])
        if order is not None:
            times = times[order]
        start, end = time_bounds(times, window_length(window), center=parts["center"],
                                 closed=parts["closed"], groups=groups)
    elif isinstance(window, int | np.integer) and groups is None:  # bounded by the kernels
        start, end = fixed_windows(n, int(window), center=parts["center"],
                                   closed=parts["closed"], step=step), None
        if min_periods is None:
            min_periods = int(window)
    elif isinstance(window, int | np.integer):
        start, end = fixed_bounds(n, int(window), center=parts["center"],
                                  closed=parts["closed"], step=step, groups=groups)
        if min_periods is None:
            min_periods = int(window)
    else:  # a pandas BaseIndexer: its own bounds
        if groups is not None:
            raise NotImplementedError("a custom window indexer with groupby is not supported")
        start, end = window.get_window_bounds(num_values=n, min_periods=min_periods,
                                              center=parts["center"],
                                              closed=parts["closed"], step=step)
        start, end = np.asarray(start, np.int64), np.asarray(end, np.int64)
    if step not in (None, 1) and order is None:
        index = index[::step]
    return order, index, start, end, 0 if min_periods is None else int(min_periods)


def time_values(times: Any) -> np.ndarray:
    """The times of a time-based window as a datetime64 / timedelta64 array: a
    tz-aware index (or ``on`` column) as its UTC instants, as pandas' own windows
    measure it (wall-clock times would shift across a DST change); Arrow timestamps
    and durations as NumPy's."""
    idx = pd.Index(times)
    dt = idx.dtype
    if isinstance(dt, pd.ArrowDtype):
        kind = dt.kind
        idx = pd.DatetimeIndex(idx) if kind == "M" else pd.TimedeltaIndex(idx) \
            if kind == "m" else idx
        dt = idx.dtype
    if isinstance(dt, pd.DatetimeTZDtype):
        idx = idx.tz_convert(None)
    return np.asarray(idx)


def keyed_row_index(result_index: pd.Index, groups: np.ndarray, rows: pd.Index) -> pd.Index:
    """The group keys of each row, then pandas' own index (pandas' GroupBy windows)."""
    keys = result_index.take(groups)
    if isinstance(keys, pd.MultiIndex):
        arrays = [keys.get_level_values(i) for i in range(keys.nlevels)]
        names = list(keys.names)
    else:
        arrays, names = [keys], [keys.name]
    if isinstance(rows, pd.MultiIndex):
        arrays += [rows.get_level_values(i) for i in range(rows.nlevels)]
        names += list(rows.names)
    else:
        arrays.append(rows)
        names.append(rows.name)
    return pd.MultiIndex.from_arrays(arrays, names=names)
