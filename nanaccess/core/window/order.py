"""The sliding engine of windowed order statistics (numba; see
:mod:`nanaccess.core._numba`, modules ``window_*``).

Per column: keys as the grouped engines make them (totalOrder, remapped for
"smallest"/"largest"), a mask of the elements that take part (numbers, plus NaNs
under the ordering policies; never missing values), prefix counts giving each
window's count, the ranks from :func:`nanaccess.core.plan.rank_plan`, one sliding
selection, then the keys back to values and the result tails of the policy module
(the same rules as :mod:`nanaccess.core.grouped.order`, so both engines give the
same bits). "propagate" selects each window's greatest NaN key with a second
sliding pass over the NaNs alone.

:func:`fused_order` is the common case in one kernel pass per column (float32/64
without missing values, NaNs absent or removed by the policy): no key, mask, count or
plan arrays of the data's size; the plan is a table over the possible counts. Its
kernel by shape: disjoint wide windows (segments) by selection, one quantile of
sliding windows on the two heaps (:mod:`nanaccess.core._numba.window_heap`: float
keys, 8-ary, signed zeros ordered by a count, the columns read in place; measured
faster than the sorted buffer from width 3; fixed windows need no bound arrays
there), else one sorted buffer. While the heap kernel compiles in the background
(a cold numba cache), windows small enough are served by the NumPy sorted-windows
engine (:mod:`.sorted_windows`, the same bits).
"""

from __future__ import annotations

from typing import cast

import numpy as np

from ...options import NanPolicy
from .._numba import NotReady, module
from ..bits import layout_of
from ..grouped.common import keys_of, values_of_keys
from ..keys import float_keys, keys_to_float, remap_keys
from ..plan import RankPlan, combine, rank_plan
from ..policy import RULES, finish
from .bounds import FixedWindows
from .scan import Masks, window_counts
from .sorted_windows import sorted_ok, sorted_select

__all__ = ["slide_order", "sliding_ok", "fused_order", "fused_ok", "mode_code", "SLIDING_KINDS"]

#: dtypes the sliding engine handles (objects use the reference engine)
SLIDING_KINDS = "fiubmM"


def slide_order(
    x2: np.ndarray,
    masks: Masks,
    start: np.ndarray,
    end: np.ndarray,
    stat: str,
    policy: NanPolicy,
    q_arr: np.ndarray | None,
    method: str,
    compiled: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """``(values (nq, nout, ncols), missing, holes)`` of an order statistic of every
    window (every column in one kernel call); integer picks keep their dtype, with
    ``holes`` (None or bool) marking the windows with no value (0 there)."""
    r = RULES[policy]
    dt = x2.dtype
    nout, ncols = start.size, x2.shape[1]
    nan, mis = masks.nan, masks.missing
    keys = keys_of(x2)
    if dt.kind == "f" and r.nan_rank in ("first", "last"):
        remap_keys(keys, dt, policy)
    take = np.ones(x2.shape, bool)
    if mis is not None:
        take &= ~mis
    if nan is not None and r.nan_rank is None:  # NaNs take no rank
        take &= ~nan
    m = window_counts(take, start, end, ncols)  # (nout, ncols)
    nmiss = window_counts(mis, start, end, ncols)
    sorting = r.missing_last
    N = m + nmiss if sorting else m
    flat = rank_plan(stat, N.ravel(), q_arr, method)
    shape = (flat.lo.shape[0], nout, ncols)
    plan = RankPlan(
        flat.lo.reshape(shape),
        flat.hi.reshape(shape),
        np.asarray(flat.weight).reshape(shape),
        flat.mode,
    )
    nq = plan.lo.shape[0]
    pick = plan.mode == "pick"  # one rank per quantile (hi is lo)
    want = np.empty((ncols, nout, nq if pick else 2 * nq), np.int64)
    want[..., :nq] = plan.lo.transpose(2, 1, 0)
    if not pick:
        want[..., nq:] = plan.hi.transpose(2, 1, 0)
    np.putmask(want, want >= m.T[..., None], -1)
    got = module("window_select").slide_select(keys.T, take.T, start, end, want,
                                               compiled=compiled)
    a = values_of_keys(np.ascontiguousarray(got[..., :nq].transpose(2, 1, 0)), dt, policy)
    b = (
        a
        if pick
        else values_of_keys(np.ascontiguousarray(got[..., nq:].transpose(2, 1, 0)), dt, policy)
    )
    vals = combine(plan, a, b)
    empty = np.broadcast_to(N == 0, plan.lo.shape)
    res_miss = plan.reaches(m) & ~empty if sorting else np.zeros(plan.lo.shape, bool)
    has_nan = best = has_miss = None
    if r.propagates:
        has_miss = nmiss > 0
        if nan is not None:
            nn = window_counts(nan, start, end, ncols)
            has_nan = nn > 0
            lay = layout_of(dt)
            top = module("window_select").slide_select(
                float_keys(x2).T, nan.T, start, end, (nn - 1).T[..., None], compiled=compiled
            )[..., 0].T
            best = keys_to_float(
                np.where(has_nan, top, lay.int_dtype.type(lay.int_min)), dt.newbyteorder("=")
            ).copy()
    flags = res_miss | empty
    holes = None
    if vals.dtype.kind in "iub":  # integer picks keep their dtype; no value: a hole
        holes = flags if flags.any() else None
        if holes is not None:
            vals = vals.copy()
            vals[holes] = 0
        flags = None
    vals, pmiss = finish(
        vals,
        "median",
        empty=flags,
        nan_rows=None if has_nan is None else has_nan[None],
        nan_values=None if best is None else best[None],
        missing_rows=None if has_miss is None else has_miss[None],
    )
    return vals, res_miss if pmiss is None else (res_miss | pmiss), holes


def sliding_ok(x2: np.ndarray, stat_family: str, monotone: bool) -> bool:
    """Whether the sliding engine applies (order statistics of native data over
    windows with non-decreasing bounds)."""
    return (
        stat_family == "order"
        and monotone
        and x2.dtype.kind in SLIDING_KINDS
        and (x2.dtype.kind != "f" or x2.dtype.itemsize in (2, 4, 8))
    )



def mode_code(mode: str) -> int:
    """The window kernels' code of a rank plan's mode ("pick", "mid" or "lerp").

    Examples
    --------
    >>> mode_code("pick"), mode_code("mid"), mode_code("lerp")
    (0, 1, 2)
    """
    return cast("int", getattr(module("window_fused"), f"MODE_{mode.upper()}"))

#: disjoint windows at least this wide are reduced by selection (no sliding)
SEGMENT_MIN = 64


def _disjoint(start: np.ndarray, end: np.ndarray) -> bool:
    """No window overlaps the next (segments, as resample / coarsen blocks)."""
    if start.size < 2:
        return True
    return bool(start[1] >= end[0]) and bool((start[1:] >= end[:-1]).all())


def fused_ok(x2: np.ndarray, miss2: np.ndarray | None) -> bool:
    """Whether :func:`fused_order` may serve this input: native float32/64 without
    missing values (the NaNs are judged by the kernel: :func:`fused_order`)."""
    dt = x2.dtype
    return (
        dt.kind == "f"
        and dt.itemsize in (4, 8)
        and dt.isnative
        and (miss2 is None or not miss2.any())
    )


def fused_order(
    x2: np.ndarray,
    start: np.ndarray | FixedWindows,
    end: np.ndarray | None,
    stat: str,
    policy: NanPolicy,
    q_arr: np.ndarray | None,
    method: str,
    compiled: bool = True,
    width: int | None = None,
    minp: int = 0,
) -> tuple[np.ndarray, np.ndarray, bool] | None:
    """``(values (nq, nout, ncols), count (nout, ncols), filled)`` of an order
    statistic of every window, NaNs taking no rank, in one compiled pass per column
    (see :func:`nanaccess.core._numba.window_fused.fused_select`), for inputs
    :func:`fused_ok` accepts; ``filled``: windows holding fewer than ``minp`` numbers
    are the empty fill already. None where this is not the policy's result (a window
    holds a NaN the policy keeps, or a signaling NaN it refuses: the general path
    then ranks or raises), the bounds are not monotone, or ``start`` is a
    :class:`.bounds.FixedWindows` (``end`` None) the two heaps do not serve (the
    caller then passes its arrays)."""
    r = RULES[policy]
    fixed = start if isinstance(start, FixedWindows) else None
    if width is None:  # the widest window (the caller may know it)
        width = fixed.width if fixed else int((end - start).max(initial=0))
    plan = rank_plan(stat, np.arange(width + 1), q_arr, method)  # by the window's count
    nq = plan.lo.shape[0]
    w_t = np.ascontiguousarray(np.broadcast_to(plan.weight, plan.lo.shape), np.float64)
    nout, ncols = (fixed.nout if fixed else start.size), x2.shape[1]
    # float keys: the heaps are faster than a buffer at any width
    heap = module("window_heap").heap_ok(plan.lo, plan.hi)
    if fixed and not heap:
        return None
    filled = False
    if heap and not (fixed is None and width >= SEGMENT_MIN and _disjoint(start, end)):
        # one quantile: the data as it lies in two 8-ary heaps, O(log w) a step
        bounds = ("fixed", fixed.e0, fixed.step, fixed.span) if fixed else ("arrays", start, end)
        small = sorted_ok(nout, width, ncols)
        try:  # a kernel still compiling: small windows by sorting (the same bits)
            v, count, seen = module("window_heap").heap_select(
                x2,
                bounds,
                nout,
                plan.lo,
                plan.hi,
                w_t,
                mode_code(plan.mode),
                minp,
                compiled=compiled,
                defer=small,
            )
        except NotReady:
            v, count, seen = sorted_select(
                x2,
                bounds,
                nout,
                plan.lo,
                plan.hi,
                w_t,
                module("window_fused").weight_tables(w_t, x2.dtype),
                mode_code(plan.mode),
                minp,
            )
        vals, filled = v[None], True
    else:
        xt = x2.T if ncols == 1 else np.ascontiguousarray(x2.T)  # each column contiguous
        out = np.empty((nq, ncols, nout), x2.dtype)
        cnt = np.empty((ncols, nout), np.int64)
        select = (
            module("window_segments").segment_select
            if width >= SEGMENT_MIN and _disjoint(start, end)
            else module("window_fused").fused_select
        )  # resample / coarsen blocks: selection, O(n); else one buffer
        seen = select(
            xt, start, end, plan.lo, plan.hi, w_t, mode_code(plan.mode), out, cnt,
            compiled=compiled
        )
        vals, count = out.transpose(0, 2, 1), cnt.T
    if seen < 0 or not r.drops_silently(bool(seen & 1), bool(seen & 2)):
        return None
    return vals, count, filled
