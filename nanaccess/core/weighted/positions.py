"""Where a weighted quantile sits: positions in the repeated data, and the element there.

Frequency weights: a value of integer weight ``w`` counts as ``w`` copies. The
unweighted formulas of :mod:`nanaccess.core.interp` run with ``n`` = the total weight
``W`` and give 0-based positions in the (virtual) repeated data; the element at
position ``p`` is the first in sorted order whose cumulative weight ``C`` reaches
``p + 1``. For integer weights this is exactly the element the repeated data holds
there, so every method equals the unweighted statistic of the repeated data. Real
weights extend it continuously, with two clamps that integer weights never notice:
a position at or below 0 is the first element of positive weight and one at or above
``W - 1`` the last. ``"inverted_cdf"`` uses the CDF itself (first ``C >= W q``),
which is :func:`numpy.quantile`'s weighted definition.

Positions are returned 1-based ("reach this cumulative weight"): 0 means the first
element of positive weight, ``W`` the last.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from ... import _stats
from ..interp import METHODS, virtual_index
from ..keys import float_keys, integer_keys, remap_keys
from ..plan import RankPlan, combine

__all__ = ["weighted_positions", "median_positions", "sort_keys", "combine_picks"]


def _integer_positions(vi: np.ndarray, total: np.ndarray, raw: np.ndarray | None = None) -> Any:
    """1-based reach of floor(vi) and floor(vi) + 1 with the clamps, and the weight.

    ``raw`` is the index before a method's rounding (lower/higher/nearest): at or
    above ``W - 1`` it is the last element even when the rounded index is not (a
    total weight that is not an integer), so q = 1 is the maximum for every method.
    """
    nm1 = total - 1
    above = (vi if raw is None else np.maximum(vi, raw)) >= nm1
    lo = np.floor(vi)
    t = np.where(above | (vi < 0), 0.0, vi - lo)
    s_lo = np.where(lo <= 0, 0.0, lo + 1)
    s_hi = np.where(lo + 1 >= nm1, total, lo + 2)
    s_lo = np.where(above, total, s_lo)
    s_hi = np.where(above, total, np.where(vi < 0, 0.0, s_hi))
    return s_lo, s_hi, t, above | (vi < 0)


def weighted_positions(total: np.ndarray, q: np.ndarray, method: str) -> Any:
    """Reaches ``s_lo``, ``s_hi`` ((Q, rows) float64, 1-based, see the module) and
    the weight ``t`` of ``hi`` for quantiles ``q`` of rows of total weight ``total``.

    The virtual index formulas are NumPy's (as :func:`interp.quantile_positions`,
    with ``n`` the total weight), so integer weights give the repeated data's ranks.
    """
    if method not in METHODS:
        raise ValueError(f"unknown quantile method {method!r}; expected one of {METHODS}")
    n = np.asarray(total, np.float64)[None, :]
    qq = np.asarray(q, np.float64).reshape(-1, 1)
    nm1 = n - 1
    if method == "inverted_cdf":
        s = np.broadcast_to(n * qq, (qq.shape[0], n.shape[1]))
        s = np.where(s <= 0, 0.0, np.minimum(s, n))
        return s, s, np.zeros(s.shape)
    if method == "closest_observation":
        index = n * qq - 1 - 0.5
        prev = np.floor(index)
        keep = ((index - prev) == 0) & ((prev % 2) == 1)
        rank = np.where(keep, prev, prev + 1)
        s = np.where(rank >= nm1, n, np.where(rank <= 0, 0.0, rank + 1))
        return s, s, np.zeros(s.shape)
    vi, raw = virtual_index(n, qq, method)
    s_lo, s_hi, t, clamped = _integer_positions(vi, n, raw)
    if method == "midpoint":
        t = np.where(t != 0, 0.5, 0.0)
    elif method == "averaged_inverted_cdf":
        # NumPy: weight 1 (a pick of hi) off the steps of the CDF, 1/2 on them
        inside = ~clamped
        step = inside & (t == 0)
        s_lo = np.where(inside & ~step, s_hi, s_lo)
        t = np.where(step, 0.5, 0.0)
    return s_lo, s_hi, t


def median_positions(total: np.ndarray, stat: str) -> Any:
    """Reaches and weight of ``median`` (the weighted quantile 0.5, linear),
    ``median_low`` (floor of the middle position) or ``median_high`` (its ceiling)."""
    if stat in _stats.MIDPOINT_MEDIANS:
        return weighted_positions(total, np.array([0.5]), "linear")
    n = np.asarray(total, np.float64)[None, :]
    mid = (n - 1) * 0.5
    vi = np.floor(mid) if stat in _stats.LOW_MEDIANS else np.ceil(mid)
    s_lo, _s_hi, _t, _c = _integer_positions(vi, n, mid)
    return s_lo, s_lo, np.zeros(s_lo.shape)


def sort_keys(p: Any, policy: Any) -> np.ndarray:
    """totalOrder keys of prepared data ``p`` (:class:`.prepare.Prepared`) under the
    policy's order: floats remapped, datetimes as int64, ints as they order."""
    x = p.x
    if x.dtype.kind == "f":
        return remap_keys(float_keys(x), x.dtype, policy)
    if x.dtype.kind in "mM":
        return cast("np.ndarray", x.view(np.int64))
    return integer_keys(x)


def combine_picks(stat: str, mode: str, a: np.ndarray, b: np.ndarray, t: np.ndarray) -> np.ndarray:
    """The rank plan's arithmetic on the picked neighbours. The median takes the
    unweighted median's midpoint where the weight is 1/2 (so integer weights give
    the repeated data's bits) and interpolates elsewhere (real weights)."""
    t = np.broadcast_to(t, a.shape)
    zeros = np.zeros(a.shape, np.int64)
    if mode == "pick":
        return combine(RankPlan(zeros, zeros, t, "pick"), a)
    lerped = combine(RankPlan(zeros, zeros, t, "lerp"), a, b)
    if stat not in _stats.MIDPOINT_MEDIANS:
        return lerped
    half = t == 0.5
    if not half.any():
        return lerped
    mid = combine(RankPlan(zeros, np.where(half, 1, 0), t, "mid"), a, b)
    return np.where(half, mid, lerped)
