"""The rank plan of an order statistic: which ranks to select and how to combine them.

Every selection engine (in-memory, grouped, dask, objects) asks :func:`rank_plan`
which ranks of the policy's order a statistic needs, selects the values at those
ranks its own way, and hands them to :func:`combine`. So "median of an even count is
the midpoint of ranks (n-1)//2 and n//2" is written once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, cast

import numpy as np

from .. import _stats
from .interp import PICK_METHODS, lerp, midpoint, quantile_positions

__all__ = ["RankPlan", "rank_plan", "median_ranks", "combine", "PICK_METHODS"]


Mode = Literal["pick", "mid", "lerp"]


@dataclass(frozen=True)
class RankPlan:
    """Ranks ``lo``/``hi`` (int64, ``(nq, rows)``) into each row's order, the weight
    of ``hi`` (float64, same shape; 0 = pick ``lo``) and how to combine them:
    ``"pick"`` (the element at ``lo``), ``"mid"`` (midpoint, exact-overflow-safe) or
    ``"lerp"`` (NumPy's linear interpolation with the spec's NaN rules)."""

    lo: np.ndarray
    hi: np.ndarray
    weight: np.ndarray
    mode: Mode

    def reaches(self, first: np.ndarray) -> np.ndarray:
        """Where the statistic uses a rank at or above ``first`` (per row): ``lo``
        there, or ``hi`` there with a non-zero weight (a weight of exactly zero picks
        ``lo`` alone). With ``first`` the first missing rank (missing values sort
        last), this marks the results that are missing."""
        first = np.asarray(first)[None, ...]
        return cast("np.ndarray", (self.lo >= first) | ((self.hi >= first) & (self.weight != 0)))

    @property
    def ranks(self) -> np.ndarray:
        """``lo`` and ``hi`` stacked (``(2 nq, rows)``): what to select."""
        return np.concatenate([self.lo, self.hi])


def rank_plan(stat: str, n: np.ndarray, q: np.ndarray | None = None,
              method: str = "linear") -> RankPlan:
    """The plan of ``stat`` for rows holding ``n`` ordered values each.

    Parameters
    ----------
    stat : {"median", "median_low", "median_high", "quantile", "min", "max"}
        Also "argmin" / "argmax" (the ranks of min / max).
    n : int array (rows,)
        Values in each row's order (after the policy removed what it removes).
    q : float array, optional
        Quantiles (flattened), for ``stat="quantile"``.
    method : str
        Quantile method (see :mod:`nanaccess.core.interp`).

    Rows with ``n == 0`` get ranks 0 (the caller fills them as empty).

    Examples
    --------
    >>> p = rank_plan("median", np.array([4, 5]))
    >>> p.lo.tolist(), p.hi.tolist(), p.mode
    ([[1, 2]], [[2, 2]], 'mid')
    """
    n = np.asarray(n, dtype=np.int64)
    last = np.maximum(n - 1, 0)
    if stat in _stats.TAKES_Q:
        if q is None:
            raise TypeError("quantile needs q")
        lo, hi, t = quantile_positions(n, np.asarray(q, np.float64).ravel(), method)
        # quantile "midpoint" is lerp with weight 0.5 (NumPy's formula), not median's mid
        return RankPlan(lo, hi, np.asarray(t), "pick" if method in PICK_METHODS else "lerp")
    # the table's rank rules
    if stat in _stats.RANK_MIN:
        lo = np.zeros((1, n.size), np.int64)
        return RankPlan(lo, lo, _zero(n), "pick")
    if stat in _stats.RANK_MAX:
        return RankPlan(last[None], last[None], _zero(n), "pick")
    lo, hi = (last >> 1)[None], np.minimum(n >> 1, last)[None]
    if stat in _stats.LOW_MEDIANS:
        return RankPlan(lo, lo, _zero(n), "pick")
    if stat in _stats.HIGH_MEDIANS:
        return RankPlan(hi, hi, _zero(n), "pick")
    if stat in _stats.MIDPOINT_MEDIANS:
        # an even count has two middle ranks: weight 0.5 each, else a pick
        return RankPlan(lo, hi, (lo != hi) * 0.5, "mid")
    raise ValueError(f"{stat!r} is not an order statistic")


def _zero(n: np.ndarray) -> np.ndarray:
    return np.zeros((1, n.size), np.float64)


def median_ranks(stat: str, n: int) -> tuple[int, int]:
    """``(lo, hi)`` of a median statistic of ``n >= 1`` values as Python ints: the
    scalar form of :func:`rank_plan` for the small fast paths (no array overhead).

    Examples
    --------
    >>> median_ranks("median", 4), median_ranks("median_low", 4), median_ranks("median_high", 5)
    ((1, 2), (1, 1), (2, 2))
    """
    lo, hi = (n - 1) >> 1, n >> 1
    if stat in _stats.LOW_MEDIANS:
        return lo, lo
    if stat in _stats.HIGH_MEDIANS:
        return hi, hi
    return lo, hi


def combine(plan: RankPlan, a: np.ndarray, b: np.ndarray | None = None) -> np.ndarray:
    """The statistic from the values ``a`` at ``plan.lo`` and ``b`` at ``plan.hi``.

    Picks return ``a`` as stored; midpoints and interpolations follow
    :mod:`nanaccess.core.interp` (a NaN neighbour gives that NaN, quieted); integer
    and bool inputs interpolate to float64 as NumPy.
    """
    if plan.mode == "pick":
        return a
    if plan.mode == "mid":
        vals = midpoint(a, b)
        vals = np.where(plan.lo == plan.hi, a.astype(vals.dtype), vals)
    else:
        vals = lerp(a, b, plan.weight)
    if a.dtype.kind not in "fmM":
        vals = vals.astype(np.float64)
    return vals
