"""Window bounds: ``(start, end)`` int64 arrays, one pair per output, as pandas makes them.

Output ``i`` reduces ``x[start[i]:end[i]]``. The three shapes of pandas' windows:

* :func:`fixed_bounds`: ``rolling(window, center=, closed=, step=)`` with an integer
  window (pandas' ``FixedWindowIndexer``);
* :func:`time_bounds`: ``rolling("7D", center=, closed=)`` on a monotonic datetime-like
  index (pandas' ``VariableWindowIndexer``), computed with ``np.searchsorted`` (no loop
  per row);
* :func:`expanding_bounds`: ``expanding()``.

Every function returns non-decreasing ``start`` and ``end`` (what the sliding kernels
rely on); ``tests/core/test_window.py`` checks them against pandas' own windows.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["fixed_bounds", "time_bounds", "expanding_bounds", "CLOSED", "is_monotone"]

CLOSED = ("right", "left", "both", "neither")


def _check_closed(closed: str | None, default: str) -> tuple[bool, bool]:
    """(left closed, right closed) of pandas' ``closed`` keyword."""
    closed = default if closed is None else closed
    if closed not in CLOSED:
        raise ValueError(f"closed must be one of {CLOSED}, got {closed!r}")
    return closed in ("left", "both"), closed in ("right", "both")


def fixed_bounds(n: int, window: int, *, center: bool = False, closed: str | None = None,
                 step: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Bounds of ``rolling(window)`` over ``n`` rows (pandas' ``FixedWindowIndexer``).

    Examples
    --------
    >>> fixed_bounds(4, 2)
    (array([0, 0, 1, 2]), array([1, 2, 3, 4]))
    >>> fixed_bounds(4, 3, center=True)
    (array([0, 0, 1, 2]), array([2, 3, 4, 4]))
    """
    window = int(window)
    if window < 0:
        raise ValueError("window must be an integer 0 or greater")
    left_closed, right_closed = _check_closed(closed, "right")
    step = 1 if step is None else int(step)
    if step < 1:
        raise ValueError("step must be >= 1")
    offset = (window - 1) // 2 if (center or window == 0) else 0
    end = np.arange(1 + offset, n + 1 + offset, step, dtype=np.int64)
    start = end - window
    if left_closed:
        start -= 1
    if not right_closed:
        end -= 1
    start, end = np.clip(start, 0, n), np.clip(end, 0, n)
    return np.minimum(start, end), end  # an empty window where pandas' end < start


def expanding_bounds(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Bounds of ``expanding()`` over ``n`` rows: ``[0, i + 1)``.

    Examples
    --------
    >>> expanding_bounds(3)
    (array([0, 0, 0]), array([1, 2, 3]))
    """
    return np.zeros(n, np.int64), np.arange(1, n + 1, dtype=np.int64)


def time_bounds(index: Any, window: Any, *, center: bool = False,
                closed: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Bounds of ``rolling(window)`` with a time offset (``"7D"``) over ``index``.

    ``index`` is a monotonic (increasing or decreasing) datetime64 / timedelta64 /
    integer array; ``window`` a length in its units (a pandas offset, Timedelta or an
    integer of nanoseconds for datetime64[ns]). Row ``i``'s window holds the rows
    whose time lies in ``(t_i - w, t_i]`` (``closed="right"``, the default),
    ``[t_i - w, t_i)``, ``[t_i - w, t_i]`` or ``(t_i - w, t_i)``; centered windows
    ``(t_i - w/2, t_i + w/2]`` likewise. As pandas, row ``i`` is counted by its
    position for the right end (repeated times included one by one).

    Examples
    --------
    >>> t = np.array([0, 1, 2, 5, 6], dtype="datetime64[D]").astype("datetime64[ns]")
    >>> time_bounds(t, np.timedelta64(2, "D"))
    (array([0, 0, 1, 3, 3]), array([1, 2, 3, 4, 5]))
    """
    left_closed, right_closed = _check_closed(closed, "right")
    t = np.asarray(index)
    if t.dtype.kind in "mM":
        unit = np.datetime_data(t.dtype)[0]
        w = _window_length(window, unit)
        t = t.view(np.int64)
    else:
        w = int(window)
        t = t.astype(np.int64)
    n = t.size
    if w < 0:
        raise ValueError("window must be non-negative")
    if n and t[0] > t[-1]:  # a decreasing index: the same windows on the negated times
        t = -t
    if n > 1 and (np.diff(t) < 0).any():
        raise ValueError("index must be monotonic for a time-based window")
    i = np.arange(n, dtype=np.int64)
    if center:
        # bounds at t -/+ w/2: compare doubled times so odd lengths stay exact
        t2 = 2 * t
        start = np.searchsorted(t2, t2 - w - (2 if left_closed else 0), side="right")
        end = np.searchsorted(t2, t2 + w, side="right" if right_closed else "left")
    else:
        start = np.searchsorted(t, t - w - (1 if left_closed else 0), side="right")
        end = i + 1 if right_closed else np.searchsorted(t, t, side="left")
    start = np.minimum(start, i)
    if n:
        start[0] = 0
    return start.astype(np.int64), np.asarray(end, dtype=np.int64)


def _window_length(window: Any, unit: str) -> int:
    """A time window (offset alias, Timedelta, timedelta64, int nanoseconds) in ``unit``."""
    import pandas as pd

    if isinstance(window, int | np.integer) and not isinstance(window, np.timedelta64):
        td = pd.Timedelta(int(window), unit="ns")
    elif isinstance(window, str):
        off = pd.tseries.frequencies.to_offset(window)
        try:
            td = pd.Timedelta(off)
        except ValueError:
            raise ValueError(f"{window!r} is not a fixed frequency") from None
    else:
        td = pd.Timedelta(window)
    return int(td / pd.Timedelta(1, unit=unit)) if unit != "ns" else int(td.value)


def is_monotone(start: np.ndarray, end: np.ndarray) -> bool:
    """Both ``start`` and ``end`` are non-decreasing (the sliding kernels' input)."""
    return bool((np.diff(start) >= 0).all() and (np.diff(end) >= 0).all())
