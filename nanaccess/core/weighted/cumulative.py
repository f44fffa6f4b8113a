"""Exact cumulative weights in two int64 limbs, per row.

Every positive float64 weight is ``u * 2**L`` with an integer ``u``; with ``L`` the
lowest set bit among a row's weights, the row's weights are integers ``u < 2**span``.
Each ``u`` is split as ``hi * 2**B + lo`` with ``B = 62 - bits(count)`` (``count``:
the row's positive weights), so the cumulative sums of ``lo`` stay below ``2**62``;
those of ``hi`` do when ``span - B + bits(count) <= 62``. A row that fits is *exact*:
its cumulative weights are the pairs ``(H, Lo)`` (normalised: ``0 <= Lo < 2**B``),
compared lexicographically, a function of the multiset of weights only (any order
of summation gives the same pairs), so sorting, selecting and grouping all decide
the same ranks. Real weights in ``[0, 1)`` from a generator (53-bit mantissas) fit
for any practical length; only rows whose weights span more than about
``124 - 2 bits(count)`` bits do not (tiny next to huge): those are summed in float64
as NumPy's (:mod:`.order`).

Everything here depends on the row's own weights and count only (never on padding
or other rows), so a group gives the bits of the same values as a row of their own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import numpy as np

__all__ = ["Units", "units_of", "reach_units", "first_reaching_pairs", "bit_length"]

_BIG = 1 << 30


def bit_length(n: np.ndarray) -> np.ndarray:
    """``int.bit_length`` of non-negative int64 counts below ``2**53``, vectorised."""
    return np.frexp(np.asarray(n, np.float64))[1].astype(np.int64)


@dataclass
class Units:
    """Per row: the scale ``L``, the limb base ``B``, whether the row is exact, and
    the limbs ``hi``, ``lo`` (int64, the input's shape; zeros in inexact rows)."""

    L: np.ndarray
    B: np.ndarray
    exact: np.ndarray
    hi: np.ndarray
    lo: np.ndarray


def units_of(w: np.ndarray) -> Units:
    """Split ``(rows, n)`` non-negative finite float64 weights into exact limbs."""
    rows, n = w.shape
    pos = w > 0
    mant, exp = np.frexp(w)
    m = np.ldexp(mant, 53).astype(np.int64)  # 53-bit integer mantissas (0 for w == 0)
    low = m & -m  # the lowest set bit of each mantissa
    tz = np.frexp(low.astype(np.float64))[1] - 1
    lsb = np.where(pos, exp - 53 + tz, _BIG)
    top = np.where(pos, exp, -_BIG)
    if n:
        lo_bit, hi_bit = lsb.min(axis=1), top.max(axis=1)
    else:
        lo_bit, hi_bit = np.full(rows, _BIG), np.full(rows, -_BIG)
    cnt = np.count_nonzero(pos, axis=1)
    empty = cnt == 0
    L = np.where(empty, 0, lo_bit).astype(np.int64)
    span = np.where(empty, 0, hi_bit - L)
    nb = bit_length(cnt)
    B = 62 - nb
    exact = empty | (np.maximum(span - B, 0) + nb <= 62)
    if exact.all():
        u = np.ldexp(w, -L[:, None])
    else:
        u = np.where(exact[:, None], np.ldexp(w, -np.where(exact, L, 0)[:, None]), 0.0)
    h = np.floor(np.ldexp(u, -B[:, None]))
    lo = (u - np.ldexp(h, B[:, None])).astype(np.int64)
    return Units(L, B, exact, h.astype(np.int64), lo)


def cumulative_pairs(hi: np.ndarray, lo: np.ndarray, B: np.ndarray) -> Any:
    """Normalised cumulative pairs ``(H, Lo)`` along the last axis (rows' ``B``)."""
    ch = np.cumsum(hi, axis=-1)
    cl = np.cumsum(lo, axis=-1)
    b = B[:, None]
    return ch + (cl >> b), cl & ((np.int64(1) << b) - 1)


def pair_total(H: np.ndarray, Lo: np.ndarray, B: np.ndarray, L: np.ndarray) -> np.ndarray:
    """The float64 total weight of exact rows from their last pair (a fixed formula,
    exact for totals below ``2**53`` units)."""
    return cast("np.ndarray",
           np.ldexp(H.astype(np.float64), B + L) + np.ldexp(Lo.astype(np.float64), L))


def reach_units(s: np.ndarray, L: np.ndarray, B: np.ndarray, last_h: np.ndarray,
                last_l: np.ndarray) -> Any:
    """1-based float reaches ``s`` ((Q, rows)) as target pairs in the rows' units:
    ``ceil(s / 2**L)``, at least 1 (0 means the first positive weight), at most the
    row's total (a rounded total may lie one unit above the exact one)."""
    # int32 exponents: NumPy's ldexp loop for them is several times faster than int64's
    nL = (-np.asarray(L)).astype(np.int32)[None, :]
    Bi = np.asarray(B).astype(np.int32)[None, :]
    U = np.ceil(np.ldexp(s, nL))
    U = np.where(s <= 0, 1.0, U)
    th = np.floor(np.ldexp(U, -Bi))
    tl = U - np.ldexp(th, Bi)
    th = np.minimum(th, 2.0 ** 62).astype(np.int64)
    tl = tl.astype(np.int64)
    over = (th > last_h[None, :]) | ((th == last_h[None, :]) & (tl > last_l[None, :]))
    th = np.where(over, last_h[None, :], th)
    tl = np.where(over, last_l[None, :], tl)
    return th, tl


def first_reaching_pairs(H: np.ndarray, Lo: np.ndarray, th: np.ndarray,
                         tl: np.ndarray) -> np.ndarray:
    """Per row, the first index whose pair is >= the target pair ((Q, rows))."""
    out = np.empty(th.shape, np.int64)
    for i in range(th.shape[0]):  # one pass per quantile, vectorised over rows
        a, b = th[i][:, None], tl[i][:, None]
        out[i] = np.count_nonzero((H < a) | ((H == a) & (Lo < b)), axis=1)
    return out
