"""The NumPy sorted-windows engine: one order statistic of float windows while the
two-heap kernel compiles.

A first rolling median in a process with a cold numba cache would wait seconds for
:mod:`nanaccess.core._numba.window_heap` to compile. Where the windows are small
enough (:func:`sorted_ok`: at most :data:`MAX_ELEMENTS` window elements in all), this
engine serves the call with NumPy while the kernel compiles in the background
(:mod:`nanaccess.core._numba._background`), and gives the heap kernel's bits:

* each value becomes its totalOrder key (an integer whose order is IEEE 754's
  totalOrder: ``-0.0`` below ``+0.0``), NaNs the largest integer, so NaNs sort last
  and take no rank;
* each window's keys are gathered from a strided view of the keys (padded in front
  by as many NaN keys as the widest window, rows before a window's start masked the
  same way), sorted row-wise in blocks of :data:`BLOCK` elements, and the plan's ranks
  ``lo``/``hi`` by the window's count of numbers read off;
* the keys go back to values, and the midpoint and lerp are the kernels'
  (:func:`mid` and :func:`lerp` follow ``nb_mid`` / ``nb_lerp`` of
  :mod:`nanaccess.core._numba.window_fused` operation for operation, in the data's
  dtype).

The heap kernel picks the zero of rank ``lo`` by the count of sign-bit numbers in the
window, i.e. totalOrder's pick; the sorted keys give it directly. ``tests/core/
test_sorted_windows.py`` compares both engines bit for bit.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

__all__ = ["sorted_select", "sorted_ok", "mid", "lerp", "MAX_ELEMENTS", "BLOCK"]

#: the engine serves inputs with at most this many window elements (outputs x widest
#: window x columns): 2e5 rows, window 50 take 0.1 s; larger inputs compile the kernel
MAX_ELEMENTS = 40_000_000
#: window elements sorted at a time (bounds the memory: 8 bytes each, a few copies)
BLOCK = 1 << 20
MODE_PICK, MODE_MID, MODE_LERP = 0, 1, 2  # window_fused's MODE_*


def sorted_ok(nout: int, width: int, ncols: int) -> bool:
    """Whether the windows are small enough for this engine."""
    return nout * max(width, 1) * ncols <= MAX_ELEMENTS


def _keys(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """``(keys, is_nan, imax)``: totalOrder keys of a 1-D float array (signed ints of
    its width), NaNs the largest key."""
    it = np.dtype(f"i{x.dtype.itemsize}")
    imax = int(np.iinfo(it).max)
    b = x.view(it)
    k = b ^ ((b >> (8 * it.itemsize - 1)) & it.type(imax))
    nan = np.isnan(x)
    k[nan] = imax
    return k, nan, imax


def _values(k: np.ndarray, dt: np.dtype, imax: int) -> np.ndarray:
    """Keys back to values (the key map is its own inverse)."""
    it = k.dtype
    return cast("np.ndarray", (k ^ ((k >> (8 * it.itemsize - 1)) & it.type(imax))).view(dt))


def mid(a: np.ndarray, b: np.ndarray, half: np.generic, nanv: np.generic) -> np.ndarray:
    """``nb_mid`` of :mod:`nanaccess.core._numba.window_fused`, element-wise."""
    with np.errstate(all="ignore"):
        s = a + b
        out = s * half
        over = ~np.isfinite(s) & ~np.isnan(s) & np.isfinite(a) & np.isfinite(b)
        if over.any():
            out[over] = a[over] * half + b[over] * half
        out[np.isnan(out)] = nanv
    return cast("np.ndarray", out)


def lerp(
    a: np.ndarray, b: np.ndarray, t: np.ndarray, ft: np.ndarray, omt: np.ndarray, nanv: np.generic
) -> np.ndarray:
    """``nb_lerp`` of :mod:`nanaccess.core._numba.window_fused`, element-wise (``t``
    float64, ``ft``/``omt`` in the data's dtype)."""
    with np.errstate(all="ignore"):
        diff = b - a
        res = np.where(t >= 0.5, b - diff * omt, a + diff * ft)
        odd = ~np.isfinite(diff)
        if odd.any():
            fin = np.isfinite(a) & np.isfinite(b)
            res = np.where(odd & fin, a * omt + b * ft, res)
            res = np.where(odd & ~np.isfinite(a) & (a == b), a, res)
            res = np.where(odd & np.isnan(res), nanv, res)
        return np.where(t == 0, a, res)


def sorted_select(
    x2: np.ndarray,
    bounds: tuple[Any, ...],
    nout: int,
    lo_t: np.ndarray,
    hi_t: np.ndarray,
    w_t: np.ndarray,
    ft_t: np.ndarray,
    mode: int,
    minp: int,
) -> tuple[np.ndarray, np.ndarray, int]:
    """:func:`nanaccess.core._numba.window_heap.heap_select`'s result, by sorting.

    Parameters
    ----------
    x2 : ndarray
        ``(n, ncols)`` native float32/64 data (read, never written).
    bounds : tuple
        ``("fixed", e0, step, span)`` or ``("arrays", start, end)``, as
        ``heap_select`` takes them.
    nout : int
        The number of windows.
    lo_t, hi_t, w_t : ndarray
        The plan by count, ``(1, W + 1)`` (one quantile, ranks at most one apart).
    ft_t : ndarray
        ``weight_tables(w_t, x2.dtype)`` (the weights and ``1 - t`` in x's dtype).
    mode : int
        ``MODE_PICK``, ``MODE_MID`` or ``MODE_LERP``.
    minp : int
        Windows holding fewer numbers (or none) give NaN.

    Returns
    -------
    values : ndarray
        ``(nout, ncols)`` of x's dtype.
    count : ndarray
        ``(nout, ncols)`` int64, the numbers in each window.
    flags : int
        -1 when the bounds decrease somewhere (nothing valid), else bit 0: a NaN, bit
        1: a signaling NaN lies in a row some window holds (as the kernel's).

    Examples
    --------
    >>> from nanaccess.core.plan import rank_plan
    >>> from nanaccess.core._numba.window_fused import weight_tables
    >>> plan = rank_plan("median", np.arange(4))
    >>> w = np.broadcast_to(plan.weight, plan.lo.shape)
    >>> x = np.array([[3.0], [np.nan], [-0.0], [0.0], [-1.0]])
    >>> v, cnt, flags = sorted_select(x, ("fixed", 1, 1, 3), 5, plan.lo, plan.hi, w,
    ...                               weight_tables(w, x.dtype), 1, 0)
    >>> v[:, 0].tolist(), cnt[:, 0].tolist(), flags
    ([3.0, 3.0, 1.5, 0.0, -0.0], [1, 1, 2, 2, 3], 1)
    """
    dt = x2.dtype
    n, ncols = x2.shape
    if bounds[0] == "fixed":
        _, e0, step, span = bounds
        e = e0 + np.arange(nout, dtype=np.int64) * step
        end = np.clip(e, 0, n)
        start = np.minimum(np.clip(e - span, 0, None), end)
    else:
        start = np.asarray(bounds[1], np.int64)
        end = np.asarray(bounds[2], np.int64)
        if (np.diff(start) < 0).any() or (np.diff(end) < 0).any():
            return np.empty((nout, ncols), dt), np.zeros((nout, ncols), np.int64), -1
    width = int((end - start).max(initial=0))
    rows_per_block = max(BLOCK // max(width, 1), 1)
    it = np.dtype(f"i{dt.itemsize}")
    quiet = 1 << (np.finfo(dt).nmant - 1)
    nanv = np.array(int(np.array(np.inf, dt).view(it)) | quiet, it).view(dt)[()]
    half = dt.type(0.5)
    rt_lo, rt_hi = np.asarray(lo_t[0], np.int64), np.asarray(hi_t[0], np.int64)
    vals = np.empty((nout, ncols), dt)
    count = np.empty((nout, ncols), np.int64)
    reach = np.bincount(start, minlength=n + 1) - np.bincount(end, minlength=n + 1)
    covered = np.cumsum(reach[:n]) > 0  # the rows some window holds
    flags = 0
    short = (end - start) < width  # windows to mask in front
    col_t = np.arange(width, dtype=np.int64)
    for c in range(ncols):
        x = np.ascontiguousarray(x2[:, c])
        k, nan, imax = _keys(x)
        seen = nan & covered
        if seen.any():
            flags |= 1
            if ((x[seen].view(it) & it.type(quiet)) == 0).any():  # a signaling NaN
                flags |= 3
        numbers = np.concatenate([[0], np.cumsum(~nan, dtype=np.int64)])
        m = numbers[end] - numbers[start]
        count[:, c] = m
        if width == 0:
            vals[:, c] = nanv
            continue
        padded = np.concatenate([np.full(width, imax, it), k])
        view = sliding_window_view(padded, width)  # row j: rows j - width .. j - 1
        for i0 in range(0, nout, rows_per_block):
            i1 = min(i0 + rows_per_block, nout)
            block = view[end[i0:i1]]  # a copy: window i ends at end[i]
            if short[i0:i1].any():
                front = col_t[None, :] < (width - (end[i0:i1] - start[i0:i1]))[:, None]
                block[front] = imax
            block.sort(axis=1)
            mb = m[i0:i1]
            empty = (mb == 0) | (mb < minp)
            lo = np.where(empty, 0, rt_lo[mb])
            a = _values(np.take_along_axis(block, lo[:, None], 1)[:, 0], dt, imax)
            if mode == MODE_PICK:
                out = a
            else:
                hi = np.where(empty, 0, rt_hi[mb])
                b = _values(np.take_along_axis(block, hi[:, None], 1)[:, 0], dt, imax)
                same = hi == lo
                if mode == MODE_MID:
                    out = np.where(same, a, mid(a, b, half, nanv))
                else:
                    out = np.where(same, a, lerp(a, b, w_t[0, mb], ft_t[0, mb], ft_t[1, mb], nanv))
            vals[i0:i1, c] = np.where(empty, nanv, out)
    return vals, count, flags
