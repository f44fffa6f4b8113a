"""The compiled engine of the weighted order statistics (float data, groups or one row).

Groups (and rows of at least ``_LONG_ROW`` pairs) go to
:mod:`nanaccess.core._numba.weighted_groups`: the kernel lays the pairs of positive
weight out by group as (key, weight) records with each group's exact total and
rounding bound, the positions come from :mod:`.positions` (vectorised over groups,
in chunks of :data:`_CHUNK` groups), the kernel selects the element at each reach
on float sums whose every decision is certain (the exact limbs otherwise), and the
values are combined and finished as in :mod:`.order`. Shorter rows go to the row
kernels of :mod:`nanaccess.core._numba.weighted` (exact limbs). Both find the same
elements as the NumPy engine (the smallest key whose cumulative weight reaches each
position, from the same exact pairs or float64 sums), so they give the same bits.
"""

from __future__ import annotations

import threading
from typing import Any, cast

import numpy as np

from ... import _stats
from .._numba import choose_engine, kernels
from ..bits import layout_of
from ..plan import PICK_METHODS
from ..policy import RULES, finish
from .cumulative import reach_units
from .exact_reach import exact_reaches
from .positions import combine_picks, median_positions, sort_keys, weighted_positions
from .prepare import Prepared

__all__ = ["compiled_order", "use_compiled", "NUMBA_MIN_SIZE"]

#: pairs below which "auto" keeps the NumPy engine
NUMBA_MIN_SIZE = 50_000
#: rows at least this long go through the group kernels rather than the row kernels
_LONG_ROW = 1 << 16
#: groups per chunk of the per-group NumPy work (float64 temporaries of 64 KiB)
_CHUNK = 8192
#: the records' scratch kept per thread between calls, up to this many bytes: a fresh
#: buffer is page-faulted (and zeroed by the OS) on every call, about a third of the
#: layout kernel's time at 10**6 pairs
_SCRATCH_MAX = 1 << 25
_SCRATCH = threading.local()


def _records(n: int) -> np.ndarray:
    """``(n, 2)`` int64 scratch for the (key, weight bits) records: this thread's kept
    buffer when it fits :data:`_SCRATCH_MAX` (nothing in it outlives a call of
    :func:`compiled_order`), else a new array."""
    if 16 * n > _SCRATCH_MAX:
        return np.empty((n, 2), np.int64)
    buf = getattr(_SCRATCH, "buf", None)
    if buf is None or buf.shape[0] < n:
        buf = _SCRATCH.buf = np.empty((max(n, 1024), 2), np.int64)
    return buf[:n]


def use_compiled(p: Prepared, engine: str | None = None, *, grouped: bool = True) -> bool:
    """The compiled engine takes float data without kept missing values, when
    :func:`nanaccess.core._numba.choose_engine` picks numba for its size (or its
    kernels, ``grouped`` or the rows', are compiled in this process already)."""
    if p.x.dtype.kind != "f" or p.miss is not None or p.x.dtype.itemsize > 8:
        return False
    warm = "weighted_groups" if grouped or p.x.shape[-1] >= _LONG_ROW else "weighted_rows"
    return choose_engine(engine, size=p.x.size, min_size=NUMBA_MIN_SIZE,
                         warm=warm) == "numba"


def compiled_order(p: Prepared, codes: np.ndarray | None, ngroups: int, stat: str, policy: Any,
                   qa: Any, method: str, tails: Any) -> Any:
    """Weighted ``stat`` of every group of the prepared single row ``p`` (float data,
    no kept missing values); ``codes`` None: every row of ``p`` is a group. ``tails``:
    per group (NaN rows, NaN values, missing rows) or Nones. Returns ``(values (Q,
    ngroups), missing or None, pairs of positive weight per group)``."""
    if codes is None:
        p = p.applied()
        rows, n = p.x.shape
        if n < _LONG_ROW:
            return _rows_order(p, stat, policy, qa, method, tails)
        # long rows: the group kernels (one pass to lay out, no second load per row)
        codes = np.repeat(np.arange(rows, dtype=np.int64), n)
    nb = kernels("weighted_groups")
    x = p.x.reshape(-1)
    w = np.ascontiguousarray(p.w, np.float64).reshape(-1)
    rule = RULES[policy]
    flip = x.dtype == np.float64 and x.dtype.isnative and \
        rule.nan_rank not in ("first", "last")
    # narrower floats widen exactly to float64 (same order): the keyed layout too, when
    # no NaN can be picked (widening would quiet a signaling NaN's bits)
    wide = not flip and x.dtype != np.float64 and not rule.orders_nans
    if flip or wide:  # totalOrder keys made from the bits inside the kernel
        keys = (np.ascontiguousarray(x) if flip else x.astype(np.float64)).view(np.int64)
        flip = True
    else:
        keys = sort_keys(p, policy).reshape(-1).astype(np.int64, copy=False)
    n = w.shape[0]  # scratch from NumPy: huge pages, fewer page faults (see the kernel)
    rec = _records(n)  # (key, weight bits) records: one write stream per group
    drop = np.zeros(0, np.bool_) if p.drop is None else p.drop.reshape(-1)
    cf, src, starts, L, B, exact, err, last_h, last_l, total, counts = nb["prepare"](
        keys, flip, w, drop, np.asarray(codes, np.int64), int(ngroups), rec,
        np.empty(0 if flip else n, np.int64), np.empty(0))
    dt = x.dtype.newbyteorder("=")  # native, as the NumPy engine's results
    kern = (rec, cf, src, starts, L, B, exact, err, last_h, last_l, total)
    parts = []
    for c0 in range(0, ngroups, _CHUNK) if ngroups else (0,):
        g = slice(c0, min(c0 + _CHUNK, ngroups))
        parts.append(_chunk(nb, kern, g, x, flip, wide, dt, stat, qa, method,
                            tuple(None if v is None else v[g] for v in tails)))
    if len(parts) == 1:
        return (*parts[0], counts)
    vals = np.concatenate([v for v, _m in parts], axis=-1)
    res_miss = None
    if any(m is not None for _v, m in parts):
        res_miss = np.concatenate([np.zeros(v.shape, bool) if m is None else m
                                   for v, m in parts], axis=-1)
    return vals, res_miss, counts


def _chunk(nb: Any, kern: Any, g: Any, x: Any, flip: Any, wide: Any, dt: Any, stat: Any, qa: Any,
           method: Any, tails: Any) -> Any:
    """Positions, targets, selection and finish of the groups ``g`` (a slice of at
    most :data:`_CHUNK`: the per-group temporaries stay small, in cache and off fresh
    pages). Returns ``(values, missing or None)`` of those groups."""
    rec, cf, src, starts, L, B, exact, err, last_h, last_l, total = kern
    L, B, exact, err, last_h, last_l, total = (
        a[g] for a in (L, B, exact, err, last_h, last_l, total))
    s_lo, s_hi, t, mode = _positions(total, stat, qa, method)
    same, t, th, tl, tf = _targets(s_lo, s_hi, t, (stat, qa, method), L, B, last_h, last_l,
                                   total, exact)
    idx = nb["select"](rec, cf, src, starts[g.start:g.stop + 1], L, B, exact, err, last_h,
                       last_l, total, th, tl, tf, flip)
    nq = s_lo.shape[0]
    i_lo, i_hi = (idx, idx) if same else (idx[:nq], idx[nq:])
    if flip:  # the kernels returned keys: their float64 values (empty groups: -0.0)
        a, b = _unkey(i_lo), _unkey(i_hi)
        if wide:  # back to the data's dtype, exactly: the values of x[index]
            a, b = a.astype(dt), b.astype(dt)
    else:
        a = x[np.maximum(i_lo, 0)] if x.size else np.zeros(i_lo.shape, x.dtype)
        b = x[np.maximum(i_hi, 0)] if x.size else a
        a, b = a.astype(dt, copy=False), b.astype(dt, copy=False)
    return _finish(stat, mode, a, b, t, total, tails)


def _unkey(keys: np.ndarray) -> np.ndarray:
    """float64 values of the kernels' totalOrder keys (the inverse of the flip)."""
    keys = np.asarray(keys, np.int64)
    return cast("np.ndarray",
           (keys ^ ((keys >> 63) & np.int64(0x7FFFFFFFFFFFFFFF))).view(np.float64))


def _positions(total: Any, stat: Any, qa: Any, method: Any) -> Any:
    """Reaches and weights of the statistic (:mod:`.positions`) and the plan's mode."""
    if stat in _stats.TAKES_Q:
        s_lo, s_hi, t = weighted_positions(total, np.asarray(qa, np.float64).ravel(), method)
        return s_lo, s_hi, t, "pick" if method in PICK_METHODS else "lerp"
    s_lo, s_hi, t = median_positions(total, stat)
    return s_lo, s_hi, t, "lerp" if stat in _stats.MIDPOINT_MEDIANS else "pick"


def _targets(s_lo: Any, s_hi: Any, t: Any, what: Any, L: Any, B: Any, last_h: Any, last_l: Any,
             total: Any, exact: Any) -> Any:
    """Exact target pairs and float targets of the reaches ``s_lo`` and ``s_hi`` (one
    resumable selection: stacked unless equal; see :mod:`.order`), with the groups
    whose float total misleads replaced by :func:`.exact_reach.exact_reaches` (``what``:
    stat, q, method). The float targets only when a group is not exact (else ``s``:
    never read). Returns ``(same, t, th, tl, tf)``."""
    stat, qa, method = what
    linear = stat in _stats.MIDPOINT_MEDIANS  # the median's rank rule is linear's
    over = exact_reaches(stat, qa, "linear" if linear else method, L, B, last_h, last_l,
                         total, exact)
    same = (s_hi is s_lo) or bool(np.array_equal(s_hi, s_lo))
    if over is not None:
        rows, th_lo, tl_lo, th_hi, tl_hi, ex_t = over
        t = np.array(np.broadcast_to(t, s_lo.shape))
        t[:, rows] = ex_t
        same = same and bool(np.array_equal(th_lo, th_hi) and np.array_equal(tl_lo, tl_hi))
    s = s_lo if same else np.concatenate([s_lo, s_hi])
    with np.errstate(invalid="ignore", over="ignore"):
        th, tl = reach_units(s, L, B, last_h, last_l)
    if over is not None:
        nq = s_lo.shape[0]
        th[:nq, rows], tl[:nq, rows] = th_lo, tl_lo
        if not same:
            th[nq:, rows], tl[nq:, rows] = th_hi, tl_hi
    tf = s if exact.all() else \
        np.where(s <= 0, np.nextafter(0.0, 1.0), np.minimum(s, total[None, :]))
    return same, t, np.ascontiguousarray(th), np.ascontiguousarray(tl), \
        np.ascontiguousarray(tf)


def _rows_order(p: Prepared, stat: Any, policy: Any, qa: Any, method: Any, tails: Any) -> Any:
    """Every row of ``p`` a group: the row kernels, with scratch of one row (no
    counting sort, no copies of the whole data beyond a contiguous layout)."""
    nb = kernels("weighted_rows")
    x2 = np.ascontiguousarray(p.x)
    w2 = np.ascontiguousarray(p.w, np.float64)
    dt = x2.dtype
    if dt.kind == "f" and dt.isnative and RULES[policy].nan_rank not in ("first", "last"):
        lay = layout_of(dt)
        keys = x2.view(lay.int_dtype)  # flipped to totalOrder keys inside the kernel
        fm, sh = lay.int_max, lay.bits - 1
    else:
        keys = np.ascontiguousarray(sort_keys(p, policy), np.int64)
        fm, sh = 0, 63
    L, B, exact, last_h, last_l, total, counts = nb["totals"](keys, fm, sh, w2)
    s_lo, s_hi, t, mode = _positions(total, stat, qa, method)
    same, t, th, tl, tf = _targets(s_lo, s_hi, t, (stat, qa, method), L, B, last_h, last_l,
                                   total, exact)
    idx = nb["select"](keys, fm, sh, w2, L, B, exact, last_h, last_l, th, tl, tf)
    nq = s_lo.shape[0]
    i_lo, i_hi = (idx, idx) if same else (idx[:nq], idx[nq:])
    rows = np.arange(x2.shape[0])[None, :]
    a = x2[rows, np.maximum(i_lo, 0)]
    b = a if same else x2[rows, np.maximum(i_hi, 0)]
    vals, res_miss = _finish(stat, mode, a, b, t, total, tails)
    return vals, res_miss, counts


def _finish(stat: Any, mode: Any, a: Any, b: Any, t: Any, total: Any, tails: Any) -> Any:
    """Combine the picked neighbours; empty groups, propagated NaNs and missing."""
    vals = combine_picks(stat, mode, a, b, t)
    empty = total == 0
    nan_rows, nan_values, miss_rows = (None if v is None else v[None, :] for v in tails)
    if miss_rows is not None and not miss_rows.any():
        miss_rows = None
    if nan_rows is not None and not nan_rows.any():
        nan_rows = nan_values = None
    res_miss = None
    if empty.any() or miss_rows is not None or nan_rows is not None:
        vals, res_miss = finish(vals, stat, empty=empty[None, :], nan_rows=nan_rows,
                                nan_values=nan_values, missing_rows=miss_rows)
    return vals, res_miss
