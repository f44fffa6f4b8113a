"""Mergeable exact partials of one pair (for dask: one per chunk, merged as a tree).

A partial holds the exact sums as Python ints in units ``2**lbase`` (products
``2**(2 lbase)``), the row count, an infinity flag, and what the policy needs: NaN
tallies (errors are raised when the merged partial is finished, with global
positions), the greatest NaN key of each side and whether a side had a missing value.
Merging shifts both to the smaller unit (exact) and adds; :func:`finish_partial` then
rounds once, so the result equals the in-memory one bit for bit.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ...options import NanPolicy
from ..keys import float_keys
from ..policy import RULES, NanTally, raise_for
from .pairwise import _column, _finish, _key_to_float64, _signaling
from .sums import object_sums, pair_tables

__all__ = ["PairPartial", "pair_partial", "merge_partials", "finish_partial"]

class PairPartial(NamedTuple):
    """Exact sums of one part of a pair (see the module docstring); ``rows`` counts
    every row of the part (NaN and missing included), so a following part's error
    positions shift by it when the two merge."""

    rows: int
    n: int
    lbase: int
    sums: tuple[int, int, int, int, int]
    inf: bool
    tallies: tuple[NanTally, NanTally]
    keys: tuple[int | None, int | None]
    missing: tuple[bool, bool]


def _tally(c: Any, offset: int) -> NanTally:
    sig = _signaling(c)
    return NanTally.from_masks(nan=c.nan, signaling=sig, missing=c.missing).offset(offset)


def _key(c: Any) -> int | None:
    if c.nan is None:
        return None
    k = float_keys(c.values.astype(np.float64))[c.nan]
    return int(k.max())


def pair_partial(x: np.ndarray, y: np.ndarray, mx: Any = None, my: Any = None, *,
                 offset: int = 0) -> PairPartial:
    """The partial of one chunk (``offset``: its first row, where known; parts merged
    in order shift the later one's positions by the earlier one's rows anyway)."""
    cx, cy = _column(np.asarray(x).ravel(), mx), _column(np.asarray(y).ravel(), my)
    vx = np.ones(cx.values.size, bool)
    vy = np.ones(cy.values.size, bool)
    # numbers only: under a policy that does not remove NaNs, a NaN or missing value
    # decides the result before the sums are read
    for v, c in ((vx, cx), (vy, cy)):
        for m in (c.nan, c.missing):
            if m is not None:
                v &= ~m
    tallies = (_tally(cx, offset), _tally(cy, offset))
    keys = (_key(cx), _key(cy))
    miss = (cx.missing is not None, cy.missing is not None)
    if cx.exact_float and cy.exact_float:
        t = pair_tables(np.stack([cx.values.astype(np.float64), cy.values.astype(np.float64)]),
                        np.stack([vx, vy]), np.array([[0, 1]]), 0)
        s = tuple(int(v) for v in t.ints()[0, 0])
        return PairPartial(cx.values.size, int(t.counts[0, 0]), t.lbase, s,
                           bool(t.inf[0, 0]), tallies, keys, miss)
    both = vx & vy
    s = object_sums(cx.values[both], cy.values[both])
    return PairPartial(cx.values.size, int(both.sum()), 0, s, False, tallies, keys, miss)


def _shift(s: tuple[int, ...], d: int) -> tuple[int, ...]:
    return (s[0] << d, s[1] << d, s[2] << 2 * d, s[3] << 2 * d, s[4] << 2 * d)


def _maxkey(a: int | None, b: int | None) -> int | None:
    return b if a is None else (a if b is None else max(a, b))


def merge_partials(a: PairPartial, b: PairPartial) -> PairPartial:
    """Both partials together, ``b``'s rows following ``a``'s (associative; the sums
    do not depend on the order, the error positions do)."""
    lo = min(a.lbase, b.lbase)
    sa, sb = _shift(a.sums, a.lbase - lo), _shift(b.sums, b.lbase - lo)
    shift = a.rows
    return PairPartial(a.rows + b.rows, a.n + b.n, lo,
                       tuple(p + q for p, q in zip(sa, sb, strict=True)), a.inf or b.inf,
                       (a.tallies[0].merge(b.tallies[0].offset(shift)),
                        a.tallies[1].merge(b.tallies[1].offset(shift))),
                       (_maxkey(a.keys[0], b.keys[0]), _maxkey(a.keys[1], b.keys[1])),
                       (a.missing[0] or b.missing[0], a.missing[1] or b.missing[1]))


def finish_partial(p: PairPartial, stat: str, policy: NanPolicy, *, ddof: float = 1,
                   min_periods: int | None = None,
                   subjects: tuple[str, str] = ("x", "y")) -> tuple[float, bool]:
    """``(value, missing)`` of a merged partial under ``policy`` (Pearson / cov)."""
    for kind in RULES[policy].refused:  # signaling of both sides first, then NaN, missing
        for t, subj in zip(p.tallies, subjects, strict=True):
            if getattr(t, kind):
                only = {"signaling": NanTally(signaling=t.signaling,
                                              first_signaling=t.first_signaling,
                                              nan=t.signaling, first_nan=t.first_signaling),
                        "nan": NanTally(nan=t.nan, first_nan=t.first_nan),
                        "missing": NanTally(missing=t.missing,
                                            first_missing=t.first_missing)}[kind]
                raise_for(only, policy, subject=subj)
    rules = RULES[policy]
    if not rules.removes and rules.moment_propagates:
        k = _maxkey(*p.keys)
        if k is not None:
            return float(_key_to_float64(np.array([k]))[0]), False
        if any(p.missing):
            return float("nan"), True
    if p.n < max(min_periods or 1, 1) or p.inf:
        return float("nan"), False
    return _finish(stat, ddof, p.n, *p.sums, shift=p.lbase), False
