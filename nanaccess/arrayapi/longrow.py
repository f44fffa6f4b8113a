"""Order statistics of one long row by sample selection: one fused pass on the device.

A strided sample of the row's totalOrder keys, sorted, estimates where the wanted
ranks lie (and how many NaNs each sign has); its keys a safe margin either side
become a bracket ``lo <= key <= hi``. One pass (:func:`scan`: a CUDA kernel for CuPy,
standard operations elsewhere) then counts the NaNs, keeps the greatest NaN key,
counts the keys below, at and above the bracket's ends and gathers the keys strictly
inside it (about 1 % of the row). With the exact counts the policy's ranks become
ranks in key order; each falls on ``lo``, on ``hi`` or inside, where a sort of the
gathered keys reads it. A rank outside the bracket (a sample that misled: periodic
data) returns None and the caller's general selection answers; nothing is guessed.

As in :mod:`.order`, the device only moves keys: the host's NumPy core
(:func:`~nanaccess.core.plan.rank_plan`, ``Placed``, ``combine``, ``finish``) makes
the values, so the bits are the NumPy engine's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.bits import FloatLayout, layout_of
from ..core.keys import keys_to_float
from ..core.plan import RankPlan, combine, rank_plan
from ..core.policy import RULES, finish
from ..core.select import Placed
from ..options import NanPolicy
from ._shim import bits_view, from_numpy, library, np_dtype, to_numpy
from .common import float_keys

__all__ = ["long_row_order", "scan_reference", "SAMPLE", "STATS"]

#: sample size (keys sorted on the device to place the bracket)
SAMPLE = 1 << 18
#: statistics served (min/max/argmin/argmax take the general path)
STATS = frozenset({"median", "median_low", "median_high", "quantile"})


@dataclass
class Counts:
    """What :func:`scan` found: keys ``lt`` below ``lo``, ``eqlo`` equal to it,
    ``mid`` strictly inside, ``eqhi`` equal to ``hi``, ``gt`` above; NaNs by sign,
    signaling NaNs and the greatest NaN key (``int_min`` when none)."""

    lt: int
    eqlo: int
    mid: int
    eqhi: int
    gt: int
    nneg: int
    npos: int
    nsig: int
    nanmax: int

    @classmethod
    def of(cls, c: np.ndarray) -> Counts:
        c = [int(v) for v in c]
        return cls(c[0], c[1], c[4], c[2], c[3], c[5], c[6], c[7], c[8])


def scan_reference(bits: Any, xp: Any, lay: FloatLayout, lo: int, hi: int
                   ) -> tuple[np.ndarray, Any]:
    """The scan in standard operations (the reference of the CUDA kernel): the nine
    counters of :data:`._cupy_scan.NCOUNTS` and the keys inside ``(lo, hi)``."""
    keys = float_keys(bits, lay)
    inf_bits = lay.exp_mask
    mag = bits & lay.int_max
    nan = mag > inf_bits
    neg = bits < 0

    def count(m: Any) -> int:
        return int(to_numpy(xp.sum(xp.astype(m, xp.int64))))

    inside = (keys > lo) & (keys < hi)
    nanmax = lay.int_min
    if count(nan):
        nanmax = int(to_numpy(xp.max(xp.where(nan, keys, xp.full_like(keys, lay.int_min)))))
    counts = np.array([count(keys < lo), count(keys == lo), count((keys == hi) & (keys != lo)),
                       count(keys > hi), count(inside), count(nan & neg), count(nan & ~neg),
                       count(nan & ((bits & lay.quiet_bit) == 0)), nanmax], dtype=np.int64)
    return counts, keys[inside]


def scan(bits: Any, xp: Any, lay: FloatLayout, lo: int, hi: int, cap: int
         ) -> tuple[Counts, Any]:
    """:class:`Counts` and the keys inside ``(lo, hi)`` (device, unordered)."""
    if library(bits) == "cupy":
        from ._cupy_scan import scan as cupy_scan

        got = cupy_scan(bits, lo, hi, cap)
        if got is not None:
            c = Counts.of(got[0])
            if c.mid > cap:  # more inside than the buffer held: once more, sized
                got = cupy_scan(bits, lo, hi, c.mid)
                if got is None:
                    return scan_reference_counts(bits, xp, lay, lo, hi)
                c = Counts.of(got[0])
            return c, got[1][:c.mid]
    return scan_reference_counts(bits, xp, lay, lo, hi)


def scan_reference_counts(bits: Any, xp: Any, lay: Any, lo: Any, hi: Any) -> tuple[Counts, Any]:
    c, mid = scan_reference(bits, xp, lay, lo, hi)
    return Counts.of(c), mid


@dataclass
class Ranks:
    """The policy's plan for one row and its ranks in the natural key order."""

    placed: Placed
    plan: RankPlan
    natural: np.ndarray  # (K,) ranks among all n keys, NaNs where totalOrder puts them


def plan_ranks(stat: str, policy: NanPolicy, n: int, nneg: int, npos: int, q: Any,
               method: str) -> Ranks:
    """Ranks of ``stat`` for a row of ``n`` keys holding ``nneg`` / ``npos`` NaNs: the
    rules of :func:`.order.order_xp` (dropped NaNs below and above the numbers, so a
    number's rank is offset by the negative NaNs)."""
    r = RULES[policy]
    zero = np.zeros(1, np.int64)
    nnan = nneg + npos
    offset = 0
    if not r.orders_nans:
        placed = Placed(None, np.array([n - nnan], np.int64), zero, None)
        offset = nneg
    elif r.nan_rank in ("first", "last") and nnan:
        placed = Placed(None, np.array([n], np.int64), zero, None, policy,
                         np.array([nneg], np.int64), np.array([npos], np.int64))
    else:
        placed = Placed(None, np.array([n], np.int64), zero, None)
    plan = rank_plan(stat, placed.m, q, method)
    natural = placed.key_ranks(plan.ranks)[:, 0] + offset
    return Ranks(placed, plan, natural)


def _sample(x1: Any, xp: Any, lay: FloatLayout, n: int) -> tuple[Any, int, int, int]:
    """Sorted keys of a strided sample, its size and its NaN counts by sign."""
    step = max(1, n // SAMPLE)
    part = x1[::step]
    keys = xp.sort(float_keys(bits_view(part, xp), lay))
    s = int(keys.shape[0])
    first, last = lay.int_min + lay.nan_per_sign, lay.int_max - lay.nan_per_sign
    ends = from_numpy(np.array([first, last], dtype=lay.int_dtype), like=keys)
    cut = to_numpy(xp.searchsorted(keys, ends, side="left")).astype(np.int64)
    past = to_numpy(xp.searchsorted(keys, ends[1:], side="right")).astype(np.int64)
    return keys, s, int(cut[0]), s - int(past[0])


def _bracket(keys: Any, xp: Any, s: int, n: int, natural: np.ndarray, lay: FloatLayout
             ) -> tuple[int, int, int]:
    """``(lo, hi, expected keys inside)`` around the estimated ranks ``natural``."""
    pos = natural.astype(np.float64) * (s / n)
    margin = math.ceil(2.5 * math.sqrt(s)) + 64  # >= 5 sigma of a sample rank's error
    i_lo = int(math.floor(pos.min())) - margin
    i_hi = int(math.ceil(pos.max())) + margin
    idx = np.clip(np.array([i_lo, i_hi]), 0, s - 1)
    got = to_numpy(xp.take(keys, from_numpy(idx.astype(np.int64), like=keys), axis=0))
    got = got.astype(np.int64)
    lo = lay.int_min if i_lo <= 0 else int(got[0])
    hi = lay.int_max if i_hi >= s - 1 else int(got[1])
    expected = int((min(i_hi, s - 1) - max(i_lo, 0) + 1) * (n / s))
    return lo, hi, expected


def long_row_order(x1: Any, xp: Any, stat: str, policy: NanPolicy, q: Any, method: str
                   ) -> tuple[np.ndarray, bool] | None:
    """``(values (K,), raises)`` of ``stat`` of the 1-D float row ``x1`` with the bits
    of :func:`.order.order_xp`; ``raises`` says the policy raises here (the caller
    lets the NumPy core name the position). None when a rank fell outside the
    bracket (the caller's general selection answers)."""
    dtype = np_dtype(x1).newbyteorder("=")
    lay = layout_of(dtype)
    r = RULES[policy]
    n = int(x1.shape[0])
    skeys, s, sneg, spos = _sample(x1, xp, lay, n)
    est = plan_ranks(stat, policy, n, round(sneg * n / s), round(spos * n / s), q, method)
    lo, hi, expected = _bracket(skeys, xp, s, n, est.natural, lay)
    c, mid = scan(bits_view(x1, xp), xp, lay, lo, hi, 2 * expected + 4096)
    nnan = c.nneg + c.npos
    if nnan and (r.nan_raises or (c.nsig and not r.signaling_allowed)):
        return np.empty(0, dtype), True
    if r.propagates and nnan:  # the row's greatest NaN, as stored
        pv = keys_to_float(np.array([c.nanmax], dtype=lay.int_dtype), dtype)
        k = 1 if q is None or np.ndim(q) == 0 else int(np.size(q))
        return np.repeat(pv, k), False
    ranks = plan_ranks(stat, policy, n, c.nneg, c.npos, q, method)
    empty = ranks.placed.m == 0
    want = ranks.natural
    if empty.any():
        want = np.zeros_like(want)
        sel = np.zeros(want.shape, dtype=lay.int_dtype)
    else:
        start_mid, start_hi = c.lt + c.eqlo, c.lt + c.eqlo + c.mid
        if (want < c.lt).any() or (want >= start_hi + c.eqhi).any():
            return None  # the sample misled: outside the bracket
        inside = (want >= start_mid) & (want < start_hi)
        sel = np.where(want < start_mid, lo, hi).astype(lay.int_dtype)
        if inside.any():
            ordered = xp.sort(mid)
            idx = from_numpy((want[inside] - start_mid).astype(np.int64), like=mid)
            sel[inside] = to_numpy(xp.take(ordered, idx, axis=0))
    nq = ranks.plan.lo.shape[0]
    sel = sel.reshape(-1, 1)
    a = ranks.placed.values(sel[:nq], dtype)
    vals = combine(ranks.plan, a, None if ranks.plan.mode == "pick"
                   else ranks.placed.values(sel[nq:], dtype))
    if empty.any():
        vals, _ = finish(vals, stat, empty=empty[None, :])
    return np.asarray(vals).reshape(-1), False
