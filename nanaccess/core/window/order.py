"""The sliding engine of windowed order statistics (numba; see
:mod:`nanaccess.core._numba.window`).

Per column: keys as the grouped engines make them (totalOrder, remapped for
"smallest"/"largest"), a mask of the elements that take part (numbers, plus NaNs
under the ordering policies; never missing values), prefix counts giving each
window's count, the ranks from :func:`nanaccess.core.plan.rank_plan`, one sliding
selection, then the keys back to values and the result tails of the policy module
(the same rules as :mod:`nanaccess.core.grouped.order`, so both engines give the
same bits). "propagate" selects each window's greatest NaN key with a second
sliding pass over the NaNs alone.
"""

from __future__ import annotations

import numpy as np

from ...options import NanPolicy
from .._numba.window import slide_select
from ..bits import layout_of
from ..grouped.common import keys_of, values_of_keys
from ..keys import float_keys, keys_to_float, remap_keys
from ..plan import combine, rank_plan
from ..policy import RULES, finish
from .scan import Masks, window_counts

__all__ = ["slide_order", "sliding_ok", "SLIDING_KINDS"]

#: dtypes the sliding engine handles (objects use the reference engine)
SLIDING_KINDS = "fiubmM"


def slide_order(x2: np.ndarray, masks: Masks, start: np.ndarray, end: np.ndarray,
                stat: str, policy: NanPolicy, q_arr: np.ndarray | None, method: str,
                compiled: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """``(values (nq, nout, ncols), missing)`` of an order statistic of every window."""
    outs, miss = [], []
    for c in range(x2.shape[1]):
        col = x2[:, c]
        nan = None if masks.nan is None else masks.nan[:, c]
        mis = None if masks.missing is None else masks.missing[:, c]
        v, m = _column(col, nan, mis, start, end, stat, policy, q_arr, method, compiled)
        outs.append(v)
        miss.append(m)
    if len({o.dtype for o in outs}) > 1:
        outs = [o.astype(np.float64) for o in outs]
    if not outs:
        nq = 1 if q_arr is None else len(q_arr)
        return np.empty((nq, start.size, 0)), np.zeros((nq, start.size, 0), bool)
    return np.stack(outs, axis=-1), np.stack(miss, axis=-1)


def _column(col, nan, mis, start, end, stat, policy, q_arr, method, compiled):
    r = RULES[policy]
    dt = col.dtype
    keys = keys_of(col)
    if dt.kind == "f" and r.nan_rank in ("first", "last"):
        remap_keys(keys, dt, policy)
    take = np.ones(col.shape, bool)
    if mis is not None:
        take &= ~mis
    if nan is not None and r.nan_rank is None:  # NaNs take no rank
        take &= ~nan
    m = window_counts(take[:, None], start, end, 1)[:, 0]
    nmiss = window_counts(None if mis is None else mis[:, None], start, end, 1)[:, 0]
    sorting = r.missing_last
    N = m + nmiss if sorting else m
    plan = rank_plan(stat, N, q_arr, method)
    nq = plan.lo.shape[0]
    pick = plan.mode == "pick"  # one rank per quantile (hi is lo)
    want = np.empty((start.size, nq if pick else 2 * nq), np.int64)
    want[:, :nq] = plan.lo.T
    if not pick:
        want[:, nq:] = plan.hi.T
    np.putmask(want, want >= m[:, None], -1)
    got = slide_select(keys, take, start, end, want, compiled=compiled)
    a = values_of_keys(np.ascontiguousarray(got[:, :nq].T), dt, policy)
    b = a if pick else values_of_keys(np.ascontiguousarray(got[:, nq:].T), dt, policy)
    vals = combine(plan, a, b)
    empty = np.broadcast_to(N == 0, plan.lo.shape)
    res_miss = ((np.maximum(plan.lo, plan.hi) >= m[None]) & ~empty if sorting
                else np.zeros(plan.lo.shape, bool))
    has_nan = best = has_miss = None
    if r.propagates:
        has_miss = nmiss > 0
        if nan is not None:
            nn = window_counts(nan[:, None], start, end, 1)[:, 0]
            has_nan = nn > 0
            lay = layout_of(dt)
            top = slide_select(float_keys(col), nan, start, end, (nn - 1)[:, None],
                               compiled=compiled)[:, 0]
            best = keys_to_float(np.where(has_nan, top, lay.int_dtype.type(lay.int_min)),
                                 dt.newbyteorder("=")).copy()
    flags = res_miss | empty
    if vals.dtype.kind not in "fmM" and (flags.any() or (has_miss is not None
                                                         and has_miss.any())):
        vals = vals.astype(np.float64)
    vals, pmiss = finish(vals, "median", empty=flags,
                         nan_rows=None if has_nan is None else has_nan[None],
                         nan_values=None if best is None else best[None],
                         missing_rows=None if has_miss is None else has_miss[None])
    return vals, res_miss if pmiss is None else (res_miss | pmiss)


def sliding_ok(x2: np.ndarray, stat_family: str, monotone: bool) -> bool:
    """Whether the sliding engine applies (order statistics of native data over
    windows with non-decreasing bounds)."""
    return stat_family == "order" and monotone and x2.dtype.kind in SLIDING_KINDS \
        and (x2.dtype.kind != "f" or x2.dtype.itemsize in (2, 4, 8))

