"""The sliding engine of exact moving sums and means (numba; see
:func:`nanaccess.core._numba.window.moving_sum`).

Each window's exact sum is kept as a Shewchuk expansion that values enter and leave
without rounding; every output rounds once (a mean divides with correct rounding), so
a window's result is a function of its values alone: a window of zeros after any
history sums to exactly 0.0, and each output equals :func:`nanaccess.core.reduce.reduce`
of its window bit for bit. Windows the expansion does not serve (infinities, values
outside ``[2**-960, 2**1000]``, NaNs or missing values a non-removing policy keeps)
are handed back for the reference engine.
"""

from __future__ import annotations

import numpy as np

from .._numba.window import moving_sum
from ..policy import RULES
from .scan import Masks, window_counts

__all__ = ["slide_moment", "MOMENTS"]

#: the statistics this engine computes
MOMENTS = ("sum", "mean")


def slide_moment(x2: np.ndarray, masks: Masks, start: np.ndarray, end: np.ndarray,
                 stat: str, policy) -> tuple[np.ndarray, np.ndarray]:
    """``(values (nout, ncols) float64, redo (nout, ncols) bool)``: ``redo`` marks the
    outputs the reference engine must compute."""
    nout, ncols = start.size, x2.shape[1]
    values = np.empty((nout, ncols), np.float64)
    redo = np.zeros((nout, ncols), bool)
    removes = RULES[policy].removes
    for c in range(ncols):
        col = x2[:, c]
        a = np.abs(col)
        with np.errstate(invalid="ignore"):
            odd = (a > 2.0 ** 1000) | ((a < 2.0 ** -960) & (a > 0))  # infinities too
        gone = None
        for mask in (masks.nan, masks.missing):
            if mask is not None:
                gone = mask[:, c] if gone is None else (gone | mask[:, c])
        take = ~odd if gone is None else ~odd & ~gone
        bad = window_counts(odd[:, None], start, end, 1)[:, 0] > 0
        if gone is not None and not removes:  # a kept NaN or missing value: reference
            bad |= window_counts(gone[:, None], start, end, 1)[:, 0] > 0
        out, flagged = moving_sum(col, take & ~np.isnan(col), start, end,
                                  mean=stat == "mean")
        negzero = take & (col == 0) & np.signbit(col)
        if negzero.any():  # -0.0 only when every value taking part is -0.0
            nz = window_counts(negzero[:, None], start, end, 1)[:, 0]
            cnt = window_counts(take[:, None], start, end, 1)[:, 0]
            out = np.where((nz == cnt) & (cnt > 0), -0.0, out)
        values[:, c] = out
        redo[:, c] = bad | flagged
    return values, redo
