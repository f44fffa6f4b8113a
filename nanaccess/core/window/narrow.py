"""Window sums and means of datetime64/timedelta64 data and window moments of
float16 data from exact integer prefix sums: ``O(n)``, NumPy only.

Temporal (NaT is missing): the int64 values' prefix sums in two 32-bit halves
(:mod:`.intsum`), the exact sum per window, and the mean ``trunc(S / n)`` divided
limb by limb, as :func:`nanaccess.core.moments.temporal_mean` (NumPy and pandas
truncate toward zero).

float16: every float16 is an integer number of ``2**-24``; the sums are exact
integers (:mod:`.intsum`, :func:`.moments.bigint_moment`), rounded once to float64.
float64 -> float16 then rounds again, which is the single correct rounding unless
the float64 lies exactly on a float16 midpoint (rounding is monotone and float64
holds every float16 midpoint: a value strictly between two midpoints rounds to a
float64 in the same interval); those windows (and any the integers do not serve)
go back to the caller (``redo``).
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from ..._stats import MEANS, ROOTS, SQUARES, SUMS
from ..bits import layout_of
from ..keys import float_keys, keys_to_float
from ..policy import RULES
from .intsum import MAX_ROWS, _window_diff, int_window_sum
from .moments import moment_ok
from .scan import window_counts

__all__ = ["narrow_moment", "temporal_window_moment", "half_window_moment"]

_NAT = np.iinfo(np.int64).min
_SCALE = 2.0 ** 24


def narrow_moment(x2: Any, masks: Any, start: Any, end: Any, stat: Any, policy: Any,
                  params: Any) -> Any:
    """``(values, missing or None, redo)`` of a window sum or mean of datetime64 /
    timedelta64 data (:func:`temporal_window_moment`) or a sum, mean, var or std of
    float16 data (:func:`half_window_moment`); ``redo``: windows the caller takes to
    the reference engine (holding a NaN or missing value the policy keeps, an
    infinity; see the functions). None: not served here."""
    kind = x2.dtype.kind
    if kind in "mM" and (stat in MEANS or (stat in SUMS and kind == "m")):
        gone = np.isnat(x2)
        if masks.missing is not None:
            gone = gone | masks.missing
        return temporal_window_moment(x2, gone, start, end, stat,
                                      not RULES[policy].removes)
    if x2.dtype != np.float16 or not moment_ok(stat, params):
        return None
    bad = ~np.isfinite(x2)
    gone = None
    for mask in (masks.nan, masks.missing):
        if mask is not None:
            gone = mask if gone is None else (gone | mask)
    take = ~bad if masks.missing is None else (~bad & ~masks.missing)
    values, redo = half_window_moment(x2, take, start, end, stat,
                                      int(params.get("ddof", 0)))
    ncols = x2.shape[1]
    if RULES[policy].removes:  # infinities only: NaNs and missing values are left out
        hard = bad if gone is None else (bad & ~gone)
    elif masks.nan is not None and masks.missing is None:
        # a window holding a NaN the policy keeps is that NaN (the greatest NaN key, as
        # the plain reductions pick it); windows with an infinity too: the reference
        nan_in = window_counts(masks.nan, start, end, ncols) > 0
        values = np.where(nan_in, window_top_nan(x2, masks.nan, start, end), values)
        hard = bad & ~masks.nan
        redo = redo & ~nan_in
    else:
        hard = bad if gone is None else (bad | gone)
    redo = redo | (window_counts(hard, start, end, ncols) > 0)
    return values, None, redo


def window_top_nan(x2: np.ndarray, nan: np.ndarray, start: np.ndarray,
                   end: np.ndarray) -> np.ndarray:
    """The NaN of greatest totalOrder key in each window (x2's dtype, ``(nout,
    ncols)``; windows without a NaN: arbitrary), from a sparse table of maxima of the
    NaN keys (``O(n log w)``, NumPy): the levels ``2**k`` hold ``max(keys[i:i + 2**k])``
    and a window of length ``L`` is the larger of two overlapping ``2**floor(log2 L)``
    blocks."""
    lay = layout_of(x2.dtype)
    n = x2.shape[0]
    if not n:
        return np.full((start.size, x2.shape[1]), np.nan, x2.dtype)
    keys = np.where(nan, float_keys(x2), lay.int_dtype.type(lay.int_min))
    length = np.maximum(end - start, 1)
    level = np.floor(np.log2(length)).astype(np.int64)
    out = np.empty((start.size, x2.shape[1]), keys.dtype)
    table = keys
    for k in range(int(level.max(initial=0)) + 1):
        rows = np.flatnonzero(level == k)
        if rows.size:
            a = np.minimum(start[rows], n - 1)
            b = np.clip(end[rows] - (1 << k), 0, n - 1)
            out[rows] = np.maximum(table[a], table[b])
        if table.shape[0] > (1 << k):
            table = np.maximum(table[:-(1 << k)], table[1 << k:])
    return keys_to_float(out, x2.dtype)


def temporal_window_moment(x2: Any, gone: Any, start: Any, end: Any, stat: Any,
                           keeps_missing: Any) -> Any:
    """``(values (nout, ncols) of x2's dtype, missing or None, redo (nout, ncols))``
    of a window ``sum`` (timedelta) or ``mean``; ``gone``: NaT or missing entries
    (bool, x2's shape); ``redo``: windows left to the reference engine (sums past
    int64: it raises as the plain sum). A window with nothing left sums to 0, its
    mean is NaT. None: not served (too many rows).

    Examples
    --------
    >>> x = np.array([[7], [-2], [-1]], "m8[ns]")
    >>> s, e = np.array([0, 1, 0]), np.array([2, 3, 0])
    >>> v, miss, redo = temporal_window_moment(x, np.isnat(x), s, e, "mean", False)
    >>> v.ravel().astype(np.int64).tolist()  # trunc(5 / 2), trunc(-3 / 2), nothing
    [2, -1, -9223372036854775808]
    """
    if x2.shape[0] > MAX_ROWS:
        return None
    v = x2.view(np.int64).copy()
    v[gone] = 0
    k = _window_diff(gone.astype(np.int64), start, end)
    n = (end - start)[:, None] - k
    hit = (k > 0) if keeps_missing else np.zeros(k.shape, bool)
    redo = np.zeros(k.shape, bool)
    if stat in SUMS:
        got = int_window_sum(v, None, start, end, False)
        s = got[0]
        if s.dtype.kind == "f":  # past int64: the reference engine
            redo |= True
            s = np.zeros(s.shape, np.int64)
        out = s
    else:
        lo = v & np.int64(0xFFFFFFFF)
        hi = v >> 32
        s_lo = _window_diff(lo, start, end)
        s_hi = _window_diff(hi, start, end)
        s_hi += s_lo >> 32
        s_lo &= np.int64(0xFFFFFFFF)
        d = np.maximum(n, 1)
        q1 = s_hi // d  # floor(S / d) limb by limb (S = s_hi * 2**32 + s_lo)
        r1 = s_hi - q1 * d
        rem = (r1 << 32) + s_lo
        q0 = rem // d
        out = (q1 << 32) + q0
        out = out + ((s_hi < 0) & (rem - q0 * d != 0))  # toward zero
    # nothing left: a sum of nothing is 0, a mean NaT (as the plain reductions)
    out = np.where(hit | ((n == 0) & (stat in MEANS)), _NAT, np.where(n == 0, 0, out))
    return out.view(x2.dtype), (hit if hit.any() else None), redo


def half_window_moment(x2: Any, take: Any, start: Any, end: Any, stat: Any, ddof: Any) -> Any:
    """``(values float16 (nout, ncols), redo)`` of a window sum, mean, var or std of
    float16 ``x2`` over the values ``take`` marks (finite, not removed); ``redo``:
    windows the caller gives the reference engine (a float64 on a float16 midpoint,
    not the exact mean); windows with no value taking part, or too few for ``ddof``,
    are NaN (the plain reductions' canonical NaN)."""
    from .moments import bigint_moment

    ints = np.where(take, x2.astype(np.float64) * _SCALE, 0.0).astype(np.int64)  # exact
    if stat in SUMS and x2.shape[0] <= MAX_ROWS:
        wide = int_window_sum(ints, None, start, end, False)[0]
        wide = wide.astype(np.float64) / _SCALE  # exact below 2**53 (else past float16)
        served = np.ones(wide.shape, bool)
    else:
        rows = np.arange(start.size)
        wide, served = bigint_moment(ints, take, start, end, rows,
                                     "var" if stat in ROOTS else stat, ddof)  # rooted here
        wide = wide / (_SCALE * _SCALE if stat in SQUARES else _SCALE)  # exact
        if stat in ROOTS:
            np.sqrt(wide, out=wide)
    with np.errstate(over="ignore"):
        out = wide.astype(np.float16)
    if stat in SUMS:  # the float64 is the exact sum (or past float16): one rounding
        return out, ~served
    out[~served] = np.nan  # nothing taking part, or too few for ddof
    mid = _on_midpoint(wide, out) & served
    if stat in MEANS and mid.any():  # a mean exactly on a midpoint rounded only once
        mid &= ~_exact_mean(ints, take, start, end, wide, mid)
    return out, mid


def _exact_mean(ints: Any, take: Any, start: Any, end: Any, wide: Any, mid: Any) -> Any:
    """Where ``wide`` (a mean on a float16 midpoint ``M * 2**-25``) is the window's
    exact mean ``S / k * 2**-24``: ``2 S == M k`` in Python integers, for the
    midpoint windows only."""
    exact = np.zeros(mid.shape, bool)
    if ints.shape[0] > MAX_ROWS:
        return exact
    r, c = np.nonzero(mid)
    sums = int_window_sum(ints, None, start[r], end[r], False)[0][np.arange(r.size), c]
    if sums.dtype.kind == "f":  # past int64: not a float16 mean anyway
        return exact
    k = _window_diff(take.astype(np.int64), start[r], end[r])[np.arange(r.size), c]
    m = (wide[r, c] * 2.0 ** 25).astype(np.int64)  # below 2**41: exact
    exact[r, c] = sums.astype(object) * 2 == m.astype(object) * k.astype(object)
    return exact


def _on_midpoint(wide: np.ndarray, half: np.ndarray) -> np.ndarray:
    """float64 values lying exactly halfway between two float16 (double rounding
    could then differ from the single correct rounding)."""
    h = half.astype(np.float64)
    fin = np.isfinite(h)
    with np.errstate(over="ignore"):
        up = np.nextafter(half, np.float16(np.inf)).astype(np.float64)
        dn = np.nextafter(half, np.float16(-np.inf)).astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        mid = (wide == (h + up) / 2) | (wide == (h + dn) / 2)
    # the top of the range rounds to inf: 65520 is the midpoint past float16's max
    return cast("np.ndarray", (mid & fin) | (np.abs(wide) == 65520.0))
