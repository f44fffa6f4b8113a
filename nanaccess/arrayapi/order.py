"""Order statistics of array-API data: selection on totalOrder keys on the device.

The device builds the keys, counts the NaNs, moves dropped NaN keys out of reach and
selects the wanted ranks (a partition where the library has one, else a sort); only
the selected keys (a few per row) come to the host, where the NumPy core's own code
turns them into values: :func:`nanaccess.core.plan.rank_plan` says which ranks,
:class:`nanaccess.core.select.Placed` maps policy ranks to key ranks
("smallest"/"largest"), :func:`nanaccess.core.plan.combine` interpolates and
:func:`nanaccess.core.policy.finish` applies the result tails. So the bits are the
NumPy engine's by construction: the device only moves keys, it never computes a value.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from .. import _stats
from ..core.axes import Reduction
from ..core.interp import validate_q
from ..core.keys import keys_to_float
from ..core.plan import combine, rank_plan
from ..core.policy import RULES, finish
from ..core.select import Placed
from ..options import NanPolicy
from ._shim import bincount, from_numpy, library, np_dtype, partition, to_numpy
from .common import Survey, as_rows, per_row, survey
from .longrow import STATS, long_row_order

__all__ = ["order_xp", "arg_xp", "HostNeeded", "select_ranks"]


class HostNeeded(Exception):  # noqa: N818 - a signal, not an error
    """The device path declines (an error to raise with the NumPy core's message and
    position, or a case it does not cover); the caller runs the NumPy core."""


#: one row at least this long selects by a histogram of the keys' top 16 bits
HIST_MIN = 1 << 20
#: one row at least this long (median/quantile) selects by a sample and one fused
#: pass (:mod:`.longrow`) where the library has boolean-mask indexing
LONG_MIN = 1 << 20
_LONG_LIBS = frozenset({"cupy", "numpy", "strict", "torch"})
_BUCKETS = 1 << 16


def _hist_select(row: Any, xp: Any, kth: np.ndarray) -> np.ndarray | None:
    """Keys at the ranks ``kth`` of the 1-D keys ``row``, by a radix step: count the
    keys per value of their top 16 bits, then sort only the bucket(s) holding the
    ranks (a few thousand keys for most data, never more than the row). None where
    the library has no bincount."""
    if library(row) == "cupy":  # a CUDA kernel (cupy.bincount's global atomics crowd)
        from ._cupy_select import hist_select

        return hist_select(row, kth)
    width = np_dtype(row).itemsize * 8
    top = (row >> (width - 16)) + (_BUCKETS // 2)  # in [0, 2**16): the key order
    hist = bincount(xp.astype(top, xp.int64, copy=False), _BUCKETS)
    if hist is None:
        return None
    cum = np.cumsum(to_numpy(hist).astype(np.int64))
    out = np.empty(kth.size, dtype=np_dtype(row))
    i = 0
    while i < kth.size:
        lo_b = int(np.searchsorted(cum, kth[i], side="right"))
        j = i + 1  # ranks whose buckets are this one or the next share one pass
        while j < kth.size and int(np.searchsorted(cum, kth[j], side="right")) <= lo_b + 1:
            j += 1
        hi_b = int(np.searchsorted(cum, kth[j - 1], side="right"))
        before = int(cum[lo_b - 1]) if lo_b else 0
        cand = xp.sort(row[(top >= lo_b) & (top <= hi_b)])
        idx = from_numpy((kth[i:j] - before).astype(np.int64), like=row)
        out[i:j] = to_numpy(xp.take(cand, idx, axis=0))
        i = j
    return out


def select_ranks(keys: Any, xp: Any, ranks: np.ndarray) -> np.ndarray:
    """Keys at ``ranks`` ((K, rows) ints, NumPy) of each row of ``keys`` (rows, n),
    as NumPy. One long row: a histogram step (:func:`_hist_select`); one row or ranks
    shared by every row: partition at the distinct ranks (the even-median pair by one
    partition and a max); otherwise one sort."""
    rows, n = keys.shape
    if n == 0:
        return np.zeros(ranks.shape, dtype=np_dtype(keys))
    kth = np.unique(ranks[:, 0])
    if rows == 1 and n >= HIST_MIN and os.environ.get("NANACCESS_XP_HIST") != "0":
        got = _hist_select(xp.reshape(keys, (-1,)), xp, kth)
        if got is not None:
            return got[np.searchsorted(kth, ranks)]
    uniform = rows == 1 or bool((ranks == ranks[:, :1]).all())
    if uniform and kth.size <= 2:
        hi = int(kth[-1])
        part = partition(keys, hi)
        if part is not None:
            top = to_numpy(part[:, hi])
            if kth.size == 1:
                return np.broadcast_to(top[None, :], ranks.shape).copy()
            low = to_numpy(per_row(xp.max, part[:, :hi], xp))
            return np.where(ranks == hi, top[None, :], low[None, :])
    ordered = xp.sort(keys, axis=1)
    flat = xp.reshape(ordered, (-1,))
    idx = (np.arange(rows, dtype=np.int64)[None, :] * n + ranks).reshape(-1)
    got = to_numpy(xp.take(flat, from_numpy(idx, like=keys), axis=0))
    return got.reshape(ranks.shape)


def _extreme(keys: Any, xp: Any, stat: str) -> np.ndarray:
    low = stat in _stats.RANK_MIN
    return to_numpy(per_row(xp.min if low else xp.max, keys, xp))[None, :]


def order_xp(x: Any, xp: Any, stat: str, red: Reduction, policy: NanPolicy, *,
             q: Any = None, method: str = "linear", keepdims: bool = False
             ) -> tuple[np.ndarray, np.ndarray | None]:
    """``(values, missing)`` as NumPy arrays with the bits of
    :func:`nanaccess.core.select.order_stat` for float32/float64 array-API data;
    :class:`HostNeeded` where the NumPy core must answer (errors, empty axes)."""
    if red.n == 0:
        raise HostNeeded("empty reduction")
    dtype = np_dtype(x).newbyteorder("=")
    r = RULES[policy]
    q_arr = validate_q(q) if stat in _stats.QUANTILES else None
    lead = () if q_arr is None or q_arr.ndim == 0 else q_arr.shape
    if (stat in STATS and red.rows == 1 and red.n >= LONG_MIN and library(x) in _LONG_LIBS
            and os.environ.get("NANACCESS_XP_LONGROW") != "0"):
        got = long_row_order(xp.reshape(as_rows(x, xp, red), (-1,)), xp, stat, policy,
                             q_arr, method)
        if got is not None:
            if got[1]:
                raise HostNeeded("the policy raises")  # the NumPy core names the position
            return red.finish(got[0].reshape(-1, 1), keepdims, lead), None
    sv: Survey = survey(as_rows(x, xp, red), xp)
    if sv.has_nan and (r.nan_raises or (sv.signaling and not r.signaling_allowed)):
        raise HostNeeded("the policy raises")  # the NumPy core names the position
    keys, n, lay = sv.keys, red.n, sv.lay
    kmin, kmax = lay.int_min, lay.int_max
    drop = not r.orders_nans
    prop = None
    if r.propagates and sv.has_nan:  # the totalOrder-greatest NaN of each row
        prop = to_numpy(per_row(xp.max, xp.where(sv.nan, keys, kmin), xp))
        if bool((sv.nnan > 0).all()):
            pv = keys_to_float(prop.astype(lay.int_dtype), dtype)
            vals = np.broadcast_to(pv, (int(np.prod(lead, dtype=np.int64)), red.rows))
            return red.finish(np.ascontiguousarray(vals), keepdims, lead), None
    zero = np.zeros(red.rows, np.int64)
    if drop:
        if sv.has_nan:  # dropped NaNs go where the statistic cannot pick them
            keys = xp.where(sv.nan, kmin if stat in _stats.RANK_MAX else kmax, keys)
        placed = Placed(None, n - sv.nnan, zero, prop)
    elif r.nan_rank in ("first", "last") and sv.has_nan:
        first_number = kmin + lay.nan_per_sign
        nneg = to_numpy(per_row(xp.sum, xp.astype(sv.nan & (keys < first_number), xp.int64),
                                xp))
        placed = Placed(None, np.full(red.rows, n, np.int64), zero, prop, policy,
                         nneg.astype(np.int64), sv.nnan - nneg)
    else:
        placed = Placed(None, np.full(red.rows, n, np.int64), zero, prop)
    m = placed.m
    plan = rank_plan(stat, m, q_arr, method)
    if placed.order is None and stat in _stats.EXTREMES:
        sel_lo = sel_hi = _extreme(keys, xp, stat)
    else:
        nq = plan.lo.shape[0]
        sel = select_ranks(keys, xp, placed.key_ranks(plan.ranks))
        sel_lo, sel_hi = sel[:nq], sel[nq:]
    kd = lay.int_dtype
    a = placed.values(sel_lo.astype(kd), dtype)
    vals = combine(plan, a, None if plan.mode == "pick" else placed.values(sel_hi.astype(kd),
                                                                           dtype))
    empty = m == 0
    nan_rows = nan_values = None
    if prop is not None:
        nan_rows = (sv.nnan > 0)[None, :]
        nan_values = keys_to_float(prop.astype(kd), dtype)[None, :]
    res_missing = None
    if empty.any() or nan_rows is not None:
        vals, res_missing = finish(vals, stat, empty=empty[None, :], nan_rows=nan_rows,
                                   nan_values=nan_values)
    out = red.finish(vals, keepdims, lead)
    return out, None if res_missing is None else red.finish(res_missing, keepdims, lead)


def _remap(keys: Any, lay: Any, rank: str) -> Any:
    """:func:`nanaccess.core.keys.remap_keys` in standard operations: "largest"
    rotates the negative-NaN block above the numbers, "smallest" the positive one
    below them (two's-complement wrap-around, as the NumPy code)."""
    nps = lay.nan_per_sign
    lo, hi = lay.int_min + nps, lay.int_max - nps
    if rank == "last":
        neg_nan = keys < lo
        return xp_where3(neg_nan, keys - 2 * nps, keys <= hi, keys - nps, keys)
    pos_nan = keys > hi
    return xp_where3(pos_nan, keys + 2 * nps, keys >= lo, keys + nps, keys)


def xp_where3(c1: Any, a: Any, c2: Any, b: Any, other: Any) -> Any:
    """``a`` where ``c1``, else ``b`` where ``c2``, else ``other``."""
    from ._shim import namespace

    xp = namespace(other)
    return xp.where(c1, a, xp.where(c2, b, other))


def arg_xp(x: Any, xp: Any, stat: str, red: Reduction, policy: NanPolicy, *,
           keepdims: bool = False) -> np.ndarray:
    """argmin / argmax with the positions :func:`nanaccess.core.select.order_stat`
    gives (the first element holding the selected key); :class:`HostNeeded` for the
    errors (a row with nothing left, the policy's raises)."""
    if red.n == 0:
        raise HostNeeded("empty reduction")
    r = RULES[policy]
    sv: Survey = survey(as_rows(x, xp, red), xp)
    if sv.has_nan and (r.nan_raises or (sv.signaling and not r.signaling_allowed)):
        raise HostNeeded("the policy raises")
    keys, lay = sv.keys, sv.lay
    fill_low = stat in _stats.RANK_MAX
    if sv.has_nan and not r.orders_nans:
        left = red.n - sv.nnan
        if (left == 0).any() and not r.propagates:
            raise HostNeeded("a row with nothing left")  # the NumPy core's ValueError
        keys = xp.where(sv.nan, lay.int_min if fill_low else lay.int_max, keys)
    elif sv.has_nan and r.nan_rank in ("first", "last"):
        keys = _remap(keys, lay, r.nan_rank)
    idx = to_numpy(per_row(xp.argmax if fill_low else xp.argmin, keys, xp))
    idx = idx.astype(np.int64)
    if r.propagates and sv.has_nan:  # point at the NaN that propagates
        prop = per_row(xp.max, xp.where(sv.nan, sv.keys, lay.int_min), xp)
        hit = to_numpy(per_row(xp.argmax, xp.astype(sv.keys == prop[:, None], xp.int8), xp))
        idx = np.where(sv.nnan > 0, hit.astype(np.int64), idx)
    return red.finish(idx.astype(np.intp), keepdims)
