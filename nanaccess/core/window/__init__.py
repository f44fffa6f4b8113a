"""Windowed statistics: rolling, expanding and time-based windows on the core.

A window is one more reduction shape: output ``i`` reduces ``x[start[i]:end[i]]``
with the statistics table and the policy module, bit for bit as
:func:`nanaccess.core.reduce.reduce` does.

* :mod:`.bounds`: ``(start, end)`` of pandas' fixed, time-based and expanding windows
  and of contiguous groups (resample bins, coarsen blocks: :func:`segment_bounds`);
* :mod:`.reduce`: :func:`window_reduce` (values, missing, count, short) and the
  reference engine (the grouped engine over the expanded windows);
* :mod:`.order`: the sliding engine of order statistics (numba kernel in
  :mod:`nanaccess.core._numba`, modules ``window_*``);
* :mod:`.scan`: the policy's errors, naming the first offending window.
"""

from __future__ import annotations

from .bounds import (
    FixedWindows,
    expanding_bounds,
    fixed_bounds,
    fixed_windows,
    segment_bounds,
    time_bounds,
)
from .reduce import WindowReduced, window_reduce

__all__ = ["fixed_bounds", "fixed_windows", "FixedWindows", "time_bounds",
           "expanding_bounds", "segment_bounds", "window_reduce", "WindowReduced"]
