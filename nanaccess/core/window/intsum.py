"""Exact window sums of integer (and bool) data from prefix sums: ``O(n)`` for any
window shape, NumPy only.

Each value is split into two halves that cannot overflow a prefix sum
(``x = hi * 2**32 + lo``, ``0 <= lo < 2**32``), the halves' prefix sums are
differenced per window, the low half's carry moves into the high half, and the two
halves give the exact sum: an int64 (uint64 for unsigned data) where every window's
sum fits, else float64 for the whole column, each window's exact sum rounded once,
as pandas returns a float where an integer sum overflows. Missing values count as
zero; under a policy that keeps them, a window holding one is missing.

The reference engine (the grouped engine over the expanded windows) is the tested
reference: ``tests/core/test_window_intsum.py``.
"""

from __future__ import annotations

from typing import cast

import numpy as np

__all__ = ["int_window_sum", "MAX_ROWS"]

#: more rows than this could overflow the low half's prefix sums (2**31 * 2**32 = 2**63)
MAX_ROWS = 2**31 - 1
_LOW = np.int64(0xFFFFFFFF)
_HALF = 2.0 ** 32


def int_window_sum(x2: np.ndarray, miss2: np.ndarray | None, start: np.ndarray,
                   end: np.ndarray, keeps_missing: bool
                   ) -> tuple[np.ndarray, np.ndarray | None] | None:
    """``(sums (nout, ncols), missing or None)`` of every window ``x2[start:end]`` of
    integer or bool ``x2`` (``(n, ncols)``); None where it does not apply (more than
    :data:`MAX_ROWS` rows).

    ``keeps_missing``: the policy keeps missing values (the window's sum is then
    missing); otherwise they are left out.

    Examples
    --------
    >>> x = np.array([[2**62], [2**62], [-5], [1]], np.int64)
    >>> s, e = np.array([0, 0, 1, 2]), np.array([1, 2, 3, 4])
    >>> int_window_sum(x, None, s, e, False)[0].ravel().tolist()
    [4.611686018427388e+18, 9.223372036854776e+18, 4.611686018427388e+18, -4.0]
    >>> int_window_sum(x[2:], None, s[:2], e[:2], False)[0].ravel().tolist()
    [-5, -4]
    """
    n = x2.shape[0]
    if n > MAX_ROWS:
        return None
    unsigned = x2.dtype.kind == "u"
    v = x2.astype(np.uint64 if unsigned else np.int64, copy=True)
    if miss2 is not None:
        v[miss2] = 0
    # the halves as int64: lo in [0, 2**32); hi in [-2**31, 2**31) (signed) or
    # [0, 2**32) (unsigned): n of them sum without overflow
    lo = (v & np.array(0xFFFFFFFF, v.dtype)).astype(np.int64)
    hi = (v >> np.array(32, v.dtype)).astype(np.int64)
    s_lo = _window_diff(lo, start, end)
    s_hi = _window_diff(hi, start, end)
    s_hi += s_lo >> 32  # the carry of the low half (s_lo >= 0)
    s_lo &= _LOW
    top = 2**32 if unsigned else 2**31
    fits = (s_hi < top) & (s_hi >= (0 if unsigned else -top))
    if fits.all():
        if unsigned:
            out = (s_hi.astype(np.uint64) << np.uint64(32)) | s_lo.astype(np.uint64)
        else:
            out = (s_hi << 32) | s_lo  # s_hi << 32 has zero low bits: | adds s_lo
    else:
        out = _rounded(s_hi, s_lo)
    missing = None
    if keeps_missing and miss2 is not None and miss2.any():
        missing = _window_diff(miss2.astype(np.int64), start, end) > 0
        if missing.any():
            out[missing] = 0
        else:
            missing = None
    return out, missing


def _window_diff(a: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """``sum(a[start[i]:end[i]])`` per window and column (int64, exact: no overflow
    for the halves)."""
    c = np.zeros((a.shape[0] + 1, a.shape[1]), np.int64)
    np.cumsum(a, axis=0, out=c[1:])
    return cast("np.ndarray", c[end] - c[start])


def _rounded(s_hi: np.ndarray, s_lo: np.ndarray) -> np.ndarray:
    """``s_hi * 2**32 + s_lo`` rounded once to float64: both terms are exact doubles
    while ``|s_hi| <= 2**53`` (one correctly rounded addition); beyond (windows of
    more than 2**22 rows of huge values) through Python integers."""
    out = s_hi.astype(np.float64) * _HALF + s_lo.astype(np.float64)
    far = np.abs(s_hi) > 2**53
    if far.any():
        big = s_hi[far].astype(object) * 2**32 + s_lo[far].astype(object)
        out[far] = np.array([float(b) for b in big], np.float64)
    return out
