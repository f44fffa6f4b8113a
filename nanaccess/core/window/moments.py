"""The sliding engine of exact moving sums, means and variances (numba; see
:func:`nanaccess.core._numba.window_sums.moving_sum` and
:func:`nanaccess.core._numba.window_exact_var.moving_var`).

Each window's exact sum is kept as a Shewchuk expansion that values enter and leave
without rounding; every output rounds once (a mean divides with correct rounding), so
a window's result is a function of its values alone: a window of zeros after any
history sums to exactly 0.0, and each output equals :func:`nanaccess.core.reduce.reduce`
of its window bit for bit. Windows holding an infinity are answered from counts
(:func:`_infinite`); windows holding values outside ``[2**-960, 2**1000]`` from prefix
sums of exact integers (:func:`bigint_moment`) where many long windows hold them;
the rest the expansion does not serve (NaNs or missing values a non-removing policy
keeps, a few short windows) are handed back for the reference engine. Variances of
native float64 (and widened float32) data without missing values are first certified
on fixed bins (:func:`fused_moment`); the expansion computes the outputs not certified.
"""

from __future__ import annotations

import math
from typing import Any, cast

import numpy as np

from ..._stats import LINEAR, MEANS, ROOTS, SQUARES
from .._numba import module
from ..bits import any_signaling
from ..policy import RULES
from .bounds import FixedWindows
from .scan import Masks, window_counts

__all__ = ["slide_moment", "fused_moment", "MOMENTS", "moment_ok"]

#: the statistics this engine computes: the sum, mean and sum-of-squares kernel
#: families of the table (sums and means also on the fixed bins)
MOMENTS = LINEAR | SQUARES
#: at most this many reruns of the certified variance on finer bins (see _local_bins)
LOCAL_LEVELS = 3
#: columns shorter than this (several of them) take the sliding engine for variances
VAR_MIN_ROWS = 48


def moment_ok(stat: str, params: dict[str, Any]) -> bool:
    """Whether the sliding engine computes ``stat`` with ``params``: sums and means
    without parameters, var / std with a non-negative integer ``ddof``."""
    if stat in LINEAR:
        return not params
    if stat not in MOMENTS or set(params) - {"ddof"}:
        return False
    ddof = params.get("ddof", 0)
    return isinstance(ddof, int | np.integer) and not isinstance(ddof, bool) and ddof >= 0


def slide_moment(x2: np.ndarray, masks: Masks, start: np.ndarray, end: np.ndarray,
                 stat: str, policy: Any, ddof: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``(values (nout, ncols) float64, redo (nout, ncols) bool)``: ``redo`` marks the
    outputs the reference engine must compute (every column in one kernel call)."""
    ncols = x2.shape[1]
    a = np.abs(x2)
    spread = stat in SQUARES
    exact = module("window_exact_var")
    lo_ok, hi_ok = (exact.LO_OK, exact.HI_OK) if spread else (2.0 ** -960, 2.0 ** 1000)
    gone = None
    for mask in (masks.nan, masks.missing):
        if mask is not None:
            gone = mask if gone is None else (gone | mask)
    with np.errstate(invalid="ignore"):
        inf = a == np.inf
        odd = (a > hi_ok) | ((a < lo_ok) & (a > 0))  # infinities too
    wide = odd & ~inf  # finite values outside the kernels' range
    if gone is not None:
        inf &= ~gone
        wide &= ~gone
    take = ~odd if gone is None else ~odd & ~gone
    take &= ~np.isnan(x2)
    redo = window_counts(wide, start, end, ncols) > 0
    kept = None
    if gone is not None and not RULES[policy].removes:  # a kept NaN or missing value
        kept = window_counts(gone, start, end, ncols) > 0
    if spread:
        out, flagged = exact.moving_var(x2.T, take.T, start, end, ddof)
    else:
        out, flagged = module("window_sums").moving_sum(x2.T, take.T, start, end,
                                                        mean=stat in MEANS)
    values, redo = out.T.copy(), redo | flagged.T
    if stat in ROOTS:
        with np.errstate(invalid="ignore"):
            np.sqrt(values, out=values)
    hit = _infinite(x2, inf, take, start, end, spread, ddof) if inf.any() else None
    left = redo if hit is None else redo & ~hit[0]
    if kept is not None:
        left = left & ~kept
    rows = np.flatnonzero(left.any(axis=1))
    if rows.size and int((end[rows] - start[rows]).sum()) >= BIGINT_MIN_RATIO * x2.shape[0]:
        # many long windows left (values of a very wide range, ties): exact integers
        got, served = bigint_moment(x2, take | wide, start, end, rows, stat, ddof)
        served &= left[rows]
        values[rows] = np.where(served, got, values[rows])
        redo[rows] &= ~served
    if not spread:
        negzero = take & (x2 == 0) & np.signbit(x2)
        if negzero.any():  # -0.0 only when every value taking part is -0.0
            nz = window_counts(negzero, start, end, ncols)
            cnt = window_counts(take | wide, start, end, ncols)
            values = np.where((nz == cnt) & (cnt > 0), -0.0, values)
    if hit is not None:
        mask, fill = hit
        values[mask] = fill[mask]
        redo &= ~mask
    if kept is not None:
        redo |= kept
    return values, redo


def _infinite(x2: np.ndarray, inf: np.ndarray, take: np.ndarray, start: np.ndarray,
              end: np.ndarray, spread: bool, ddof: int) -> tuple[np.ndarray, np.ndarray]:
    """``(windows holding an infinity, their values)`` from counts alone (O(n)): a
    sum or mean is +inf or -inf, or the canonical NaN where both signs meet
    (``inf - inf``, as the reduction gives it); a variance is the canonical NaN
    (``inf - inf`` in its deviations) where the window holds more than ``ddof``
    values (else left to the reference engine's rule)."""
    ncols = x2.shape[1]
    pos = window_counts(inf & (x2 > 0), start, end, ncols)
    neg = window_counts(inf & (x2 < 0), start, end, ncols)
    hit = (pos > 0) | (neg > 0)
    fill = np.full(hit.shape, np.nan)
    if spread:
        hit &= window_counts(take, start, end, ncols) + pos + neg > ddof
    else:
        fill[neg == 0] = np.inf
        fill[pos == 0] = -np.inf
        fill[(pos > 0) & (neg > 0)] = np.nan
    return hit, fill


def fused_moment(x2: np.ndarray, start: np.ndarray | FixedWindows, end: np.ndarray | None,
                 stat: str, policy: Any, ddof: int = 0, source: np.ndarray | None = None
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None] | None:
    """``(values, count, redo or None)`` (each ``(nout, ncols)``) of an exact moving sum,
    mean, var or std of native float64 data without missing values, one compiled pass
    per column: sums and means on two fixed bins
    (:func:`nanaccess.core._numba.window_sums.binned_sum`), variances certified
    (:func:`nanaccess.core._numba.window_var.binned_var`; the outputs it leaves go to
    the exact expansion kernel here); None where the kernels do not apply or a window
    holds a NaN the policy does not remove. ``start`` may be a
    :class:`.bounds.FixedWindows` (``end`` None). ``redo``: outputs for the reference
    engine. ``source``: the data before widening, for its signaling NaNs (a widened
    float32 sNaN is quiet); None: ``x2``. A column holding a signaling NaN goes the
    general way, whose scan raises naming the window."""
    removes = RULES[policy].removes
    nout = start.nout if end is None else start.size
    ncols = x2.shape[1]
    spread = stat in SQUARES
    if spread and ncols > 1 and x2.shape[0] < VAR_MIN_ROWS:
        return None  # many short columns: the expansion's one call beats a call each
    values = np.empty((nout, ncols), np.float64)
    count = np.empty((nout, ncols), np.int64)
    redo = np.zeros((nout, ncols), bool)
    extent = np.zeros(2)
    flags = 0
    for c in range(ncols):
        col = np.ascontiguousarray(x2[:, c])
        if spread:
            got = module("window_var").binned_var(col, start, end, ddof, values[:, c],
                                                  count[:, c], redo[:, c], extent=extent)
        else:
            got = module("window_sums").binned_sum(col, start, end, values[:, c],
                                                   count[:, c], redo[:, c], mean=stat in MEANS)
        if got < 0 or (got & 1 and not removes):
            return None
        if got & 1:  # a NaN entered: a signaling one is refused under every policy
            if not spread and source is None and got & 8:
                signaling = bool(got & 4)  # the sums' pass saw every NaN's bits
            else:
                src = (x2 if source is None else source)[:, c]
                signaling = any_signaling(src[np.isnan(src)])
            if signaling:
                return None
        got &= 3
        if spread and got & 2:
            got &= ~2
            if _exact_var(col, start, end, ddof, values[:, c], redo[:, c], extent):
                got |= 2
        flags |= got
    if stat in ROOTS:
        with np.errstate(invalid="ignore"):
            np.sqrt(values, out=values)
    return values, count, (redo if flags & 2 else None)


def _exact_var(col: np.ndarray, start: Any, end: Any, ddof: int, values: np.ndarray,
               redo: np.ndarray, extent: np.ndarray) -> bool:
    """The outputs ``redo`` marks (not certified): certified again on bins sized to
    the values those windows hold (:func:`_local_bins`), then from the exact expansion
    kernel, which slides over the windows left only; ``redo`` keeps what it leaves too
    (windows holding values outside its range, ``extent`` the data's largest and
    smallest nonzero magnitude): True if any."""
    rows = np.flatnonzero(redo)
    if end is None:  # FixedWindows: the rows' bounds only
        e = start.e0 + rows * start.step
        s = np.clip(e - start.span, 0, start.n)
        e = np.clip(e, 0, start.n)
        s, e = np.minimum(s, e), e
    else:
        s, e = start[rows], end[rows]
    big = extent[0]
    levels = LOCAL_LEVELS if rows.size * 64 >= redo.size else 0  # few: ties, exact is cheap
    for _ in range(levels):  # bursts of several sizes: one level each
        got = _local_bins(col, s, e, ddof, big)
        if got is None:
            break
        out, left, big = got
        values[rows] = out
        redo[rows] = left
        rows, s, e = rows[left], s[left], e[left]
        if not rows.size:
            return False
    take = ~np.isnan(col)
    odd = None
    exact = module("window_exact_var")
    hi_ok, lo_ok = exact.HI_OK, exact.LO_OK
    if not (extent[0] <= hi_ok and extent[1] >= lo_ok):
        with np.errstate(invalid="ignore"):
            a = np.abs(col)
            odd = (a > hi_ok) | ((a < lo_ok) & (a > 0))
        take &= ~odd
    out, flagged = exact.moving_var(col[None], take[None], s, e, ddof)
    values[rows] = out[0]
    redo[rows] = flagged[0]
    if odd is not None:
        redo[rows] |= window_counts(odd[:, None], s, e, 1)[:, 0] > 0
    return bool(redo.any())


def _local_bins(col: np.ndarray, s: np.ndarray, e: np.ndarray, ddof: int,
                big: float) -> tuple[np.ndarray, np.ndarray, float] | None:
    """``(values, still not certified, their largest magnitude)`` of the windows
    ``[s, e)`` certified on bins
    sized to the values they hold: the first bins are sized to the whole column, so
    a burst of huge values elsewhere (or a wide range) leaves the other windows to
    the exact kernel. None when those values are not much smaller (no finer bins)."""
    n = col.size
    edges = np.bincount(s, minlength=n + 1) - np.bincount(e, minlength=n + 1)
    sub = np.where(np.cumsum(edges[:n]) > 0, col, np.nan)  # the values in some window
    with np.errstate(invalid="ignore"):
        top = np.fmax.reduce(np.abs(sub)) if n else np.nan
    if not top * 2.0 ** 16 < big:
        return None
    out = np.zeros(s.size)
    cnt = np.zeros(s.size, np.int64)
    bad = np.zeros(s.size, bool)
    if module("window_var").binned_var(sub, s, e, ddof, out, cnt, bad) < 0:
        return None
    return out, bad, float(top)


#: the exact integer path serves the windows left over when they hold at least this
#: many values per row of the column in all (fewer: the reference engine is cheaper)
BIGINT_MIN_RATIO = 4


def _divide(num: int, den: int) -> float:
    """``num / den`` of Python integers rounded once (CPython's true division), an
    infinity where that rounds past the largest double (IEEE 754 overflow)."""
    try:
        return num / den
    except OverflowError:
        return math.inf if (num > 0) == (den > 0) else -math.inf


_DIVIDE = np.frompyfunc(_divide, 2, 1)


def _exact_ints(col: np.ndarray) -> np.ndarray:
    """Each finite double of ``col`` as the exact Python integer ``v * 2**1074``
    (object array): every double is an integer number of 2**-1074."""
    m, e = np.frexp(col)
    mant = (m * 2.0 ** 53).astype(np.int64)  # exact: 53 bits
    shift = e.astype(np.int64) + (1074 - 53)
    up = np.maximum(shift, 0).astype(object)
    down = np.maximum(-shift, 0).astype(object)  # subnormals: their low bits are zero
    return cast("np.ndarray", (mant.astype(object) << up) >> down)


def bigint_moment(x2: np.ndarray, take: np.ndarray, start: np.ndarray, end: np.ndarray,
                  rows: np.ndarray, stat: str, ddof: int) -> tuple[np.ndarray, np.ndarray]:
    """``(values (len(rows), ncols), served)``: the exactly rounded sum, mean or
    variance of the windows ``rows`` from prefix sums of exact integers (every
    finite double is an integer number of 2**-1074; Python's integer division rounds
    correctly), for any magnitudes: O(n) integer operations a column, whatever the
    widths. Integer data (any magnitude) are their own exact integers. ``take``: the
    values that take part (finite, not removed); ``served``: False where a window's
    count leaves the result to the reference engine (nothing taking part; ``ddof`` or
    fewer values for a variance)."""
    n, ncols = x2.shape
    integer = x2.dtype.kind in "iub"
    unit = 0 if integer else 1074  # the exact integers count units of 2**-unit
    s, e = start[rows], end[rows]
    values = np.zeros((rows.size, ncols), np.float64)
    served = np.zeros((rows.size, ncols), bool)
    spread = stat in SQUARES
    for c in range(ncols):
        t = take[:, c]
        if integer:
            ints = np.where(t, x2[:, c], 0).astype(object)
        else:
            ints = _exact_ints(np.where(t, x2[:, c], 0.0))
        ps = np.zeros(n + 1, dtype=object)
        ps[0] = 0
        ps[1:] = np.cumsum(ints)
        cnt = np.zeros(n + 1, np.int64)
        np.cumsum(t, out=cnt[1:])
        k = cnt[e] - cnt[s]
        total = ps[e] - ps[s]
        ok = k > (ddof if spread else 0)
        if not ok.any():
            continue
        kk = k[ok].astype(object)
        if spread:
            pq = np.zeros(n + 1, dtype=object)
            pq[0] = 0
            pq[1:] = np.cumsum(ints * ints)
            sq = (pq[e] - pq[s])[ok]
            sm = total[ok]
            num = kk * sq - sm * sm  # n Q - S S, in units of 2**-(2 unit)
            den = kk * (kk - ddof) * (1 << (2 * unit))
        else:
            num = total[ok]
            den = (kk if stat in MEANS else np.ones(kk.size, dtype=object)) * (1 << unit)
        values[ok, c] = _DIVIDE(num, den).astype(np.float64)
        served[ok, c] = True
    if stat in ROOTS:
        np.sqrt(values, out=values)
    return values, served
