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

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["fixed_bounds", "fixed_windows", "FixedWindows", "time_bounds",
           "expanding_bounds", "segment_bounds", "CLOSED", "is_monotone"]

CLOSED = ("right", "left", "both", "neither")


def _check_closed(closed: str | None, default: str) -> tuple[bool, bool]:
    """(left closed, right closed) of pandas' ``closed`` keyword."""
    closed = default if closed is None else closed
    if closed not in CLOSED:
        raise ValueError(f"closed must be one of {CLOSED}, got {closed!r}")
    return closed in ("left", "both"), closed in ("right", "both")


def _in_groups(n: int, groups: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(position of each row in its group, its group's first row, its group's length)
    of sorted group codes (rows of one group contiguous); one group without codes."""
    if groups is None:
        return np.arange(n, dtype=np.int64), np.zeros(n, np.int64), np.full(n, n, np.int64)
    g = np.asarray(groups, dtype=np.int64)
    if n > 1 and (np.diff(g) < 0).any():
        raise ValueError("groups must be sorted (each group's rows contiguous)")
    new = np.flatnonzero(np.r_[True, g[1:] != g[:-1]]) if n else np.zeros(0, np.int64)
    lengths = np.diff(np.r_[new, n])
    first = np.repeat(new, lengths)
    return np.arange(n, dtype=np.int64) - first, first, np.repeat(lengths, lengths)


def _fixed_args(window: int, closed: str | None, step: int | None
                ) -> tuple[int, bool, bool, int]:
    """A fixed window's ``(width, left closed, right closed, step)``, checked as pandas."""
    window = int(window)
    if window < 0:
        raise ValueError("window must be an integer 0 or greater")
    left_closed, right_closed = _check_closed(closed, "right")
    step = 1 if step is None else int(step)
    if step < 1:
        raise ValueError("step must be >= 1")
    return window, left_closed, right_closed, step


def fixed_bounds(n: int, window: int, *, center: bool = False, closed: str | None = None,
                 step: int | None = None, groups: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """Bounds of ``rolling(window)`` over ``n`` rows (pandas' ``FixedWindowIndexer``).

    ``groups``: sorted group codes of the rows (``groupby(...).rolling``): each
    group's rows get the windows of that group alone.

    Examples
    --------
    >>> fixed_bounds(4, 2)
    (array([0, 0, 1, 2]), array([1, 2, 3, 4]))
    >>> fixed_bounds(4, 3, center=True)
    (array([0, 0, 1, 2]), array([2, 3, 4, 4]))
    >>> fixed_bounds(4, 2, groups=[0, 0, 1, 1])
    (array([0, 0, 2, 2]), array([1, 2, 3, 4]))
    """
    window, left_closed, right_closed, step = _fixed_args(window, closed, step)
    if step > 1 and groups is not None:
        raise ValueError("step is not supported with groups")
    if groups is None:  # one group: scalar clips, in place (no per-row group arrays)
        return fixed_windows(n, window, center=center, closed=closed, step=step).arrays()
    offset = (window - 1) // 2 if (center or window == 0) else 0
    pos, first, length = _in_groups(n, groups)
    end = pos[::step] + 1 + offset
    start = end - window
    if left_closed:
        start -= 1
    if not right_closed:
        end -= 1
    length, first = length[::step], first[::step]
    start, end = np.clip(start, 0, length) + first, np.clip(end, 0, length) + first
    return np.minimum(start, end), end  # an empty window where pandas' end < start


@dataclass(frozen=True)
class FixedWindows:
    """Fixed windows over ``n`` rows as four numbers, without bound arrays.

    Output ``i`` (``0 <= i < nout``) reduces ``x[start:end]`` with ``end = e0 + i * step``
    and ``start = end - span``, both clipped to ``[0, n]`` (and ``start`` to at most
    ``end``). The compiled kernels compute each window's bounds from these numbers;
    :meth:`arrays` gives the ``(start, end)`` arrays the other engines read.
    """

    n: int
    e0: int
    step: int
    span: int

    @property
    def nout(self) -> int:
        """The number of windows (outputs)."""
        return -(-self.n // self.step)

    @property
    def width(self) -> int:
        """At least the widest window's length (a bound of the kernels' tables)."""
        return max(0, min(self.span, self.n))

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """``(start, end)`` int64 arrays of the windows (as :func:`fixed_bounds`)."""
        end = np.arange(self.e0, self.e0 + self.n, self.step, dtype=np.int64)
        start = end - self.span
        if self.e0 != 1 or self.span < 0:  # else end is already in [1, n]
            np.clip(end, 0, self.n, out=end)
        np.clip(start, 0, self.n, out=start)
        return np.minimum(start, end, out=start), end


def fixed_windows(n: int, window: int, *, center: bool = False, closed: str | None = None,
                  step: int | None = None) -> FixedWindows:
    """:func:`fixed_bounds` without groups as a :class:`FixedWindows` (no arrays).

    Examples
    --------
    >>> fixed_windows(4, 3, center=True).arrays()
    (array([0, 0, 1, 2]), array([2, 3, 4, 4]))
    """
    window, left_closed, right_closed, step = _fixed_args(window, closed, step)
    offset = (window - 1) // 2 if (center or window == 0) else 0
    shut = 0 if right_closed else 1
    return FixedWindows(int(n), 1 + offset - shut, step, window + left_closed - shut)


def expanding_bounds(n: int, groups: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """Bounds of ``expanding()`` over ``n`` rows: ``[0, i + 1)`` (from the group's
    first row with sorted ``groups``).

    Examples
    --------
    >>> expanding_bounds(3)
    (array([0, 0, 0]), array([1, 2, 3]))
    """
    if groups is None:  # one group: no positions or lengths to build
        return np.zeros(n, np.int64), np.arange(1, n + 1, dtype=np.int64)
    _, first, _ = _in_groups(n, groups)
    return first, np.arange(1, n + 1, dtype=np.int64)


def time_bounds(index: Any, window: Any, *, center: bool = False,
                closed: str | None = None, groups: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """Bounds of ``rolling(window)`` with a time offset (``"7D"``) over ``index``.

    ``index`` is a monotonic (increasing or decreasing) datetime64 / timedelta64 /
    integer array; ``window`` a length in its units (a timedelta64 or an integer in
    the index's unit; hosts parse their offset aliases first). Row ``i``'s window
    holds the rows whose time lies in ``(t_i - w, t_i]`` (``closed="right"``, the
    default), ``[t_i - w, t_i)``, ``[t_i - w, t_i]`` or ``(t_i - w, t_i)``; centered
    windows ``(t_i - w/2, t_i + w/2]`` likewise. As pandas, row ``i`` is counted by
    its position for the right end (repeated times included one by one). With sorted
    ``groups`` each group's rows (increasing times within the group) get the windows
    of that group alone.

    Every bound is a ``searchsorted``: on the times alone, or with groups on the
    composite key ``group * K + rank of the time`` (no loop per group).

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
    if groups is None and n and t[0] > t[-1]:
        t = -t  # a decreasing index: the same windows on the negated times
    pos, first, _ = _in_groups(n, groups)
    if n > 1 and ((np.diff(t) < 0) & (pos[1:] > 0)).any():
        raise ValueError("index must be monotonic for a time-based window")
    i = np.arange(n, dtype=np.int64)
    if center:  # bounds at t -/+ w/2: doubled times keep odd lengths exact
        t = 2 * t
        lo_q, hi_q = t - w - (2 if left_closed else 0), t + w
    else:
        lo_q, hi_q = t - w - (1 if left_closed else 0), t
    count = _counter(t, groups)
    start = count(lo_q, "right")  # rows with time <= the lower bound are out
    if center:
        end = count(hi_q, "right" if right_closed else "left")
    else:
        end = i + 1 if right_closed else count(hi_q, "left")
    start = np.maximum(np.minimum(start, i), first)
    return start.astype(np.int64), np.asarray(end, dtype=np.int64)


def _counter(t: np.ndarray, groups: Any) -> Any:
    """``count(v, side)``: for each row, the rows before its group plus those of its
    group whose time is ``<= v`` (side "right") or ``< v`` (side "left")."""
    if groups is None:
        return lambda v, side: np.searchsorted(t, v, side=side)
    g = np.asarray(groups, dtype=np.int64)
    u = np.unique(t)
    k = np.int64(u.size + 1)
    key = g * k + np.searchsorted(u, t, side="left")  # non-decreasing
    return lambda v, side: np.searchsorted(key, g * k + np.searchsorted(u, v, side=side),
                                           side="left")


def _window_length(window: Any, unit: str) -> int:
    """A time window (timedelta64, ``datetime.timedelta``; an int is in ``unit``) in
    ``unit``. Offset aliases such as ``"7D"`` are the host's: its adapter parses them
    (:func:`nanaccess._hostkit.window_length`), so the core imports no host library."""
    if isinstance(window, int | np.integer) and not isinstance(window, np.timedelta64):
        return int(window)  # already in the index's unit
    if isinstance(window, str):
        raise TypeError(f"a time window of the core is a timedelta64, got {window!r} "
                        "(host adapters parse offset aliases: nanaccess._hostkit.window_length)")
    to64 = getattr(window, "to_timedelta64", None)  # exact ns of host Timedelta types
    td = to64() if to64 is not None else np.timedelta64(window)
    if td.dtype == np.dtype("m8"):  # a generic unit: the index's
        return int(td.astype(np.int64))
    return int(td.astype("m8[ns]").astype(np.int64) // np.timedelta64(1, unit).astype(
        "m8[ns]").astype(np.int64))


def segment_bounds(codes: Any, ngroups: int) -> tuple[np.ndarray, np.ndarray]:
    """Bounds of contiguous groups (resample bins, coarsen blocks): group ``g`` is the
    rows of code ``g``, which must be non-decreasing apart from -1 (dropped) rows at
    either end; an empty group is an empty window.

    Examples
    --------
    >>> segment_bounds([-1, 0, 0, 2, 2, 2, -1], 3)
    (array([1, 3, 3]), array([3, 3, 6]))
    """
    c = np.asarray(codes, dtype=np.int64)
    n = c.size
    # the kept rows' span: the ends are usually kept (no scan), else the first and
    # last kept rows by argmax (it stops at the first True)
    first = 0 if not n or c[0] >= 0 else int(np.argmax(c >= 0))
    last = n if not n or c[-1] >= 0 else n - int(np.argmax(c[::-1] >= 0))
    if n and first == 0 and c[0] < 0:  # no row kept
        first = last = 0
    inner = c[first:last]
    # non-decreasing from a kept row: every row between is kept too (one pass of bools)
    if inner.size > 1 and (inner[1:] < inner[:-1]).any():
        raise ValueError("segment codes must be sorted, with dropped rows only at the ends")
    g = np.arange(ngroups + 1, dtype=np.int64)
    b = np.searchsorted(inner, g, side="left") + first
    return b[:-1], b[1:]


def is_monotone(start: np.ndarray, end: np.ndarray) -> bool:
    """Both ``start`` and ``end`` are non-decreasing (the sliding kernels' input)."""
    return bool((np.diff(start) >= 0).all() and (np.diff(end) >= 0).all())
