"""An order statistic of a block over its leading axis, its NaN tally in the same pass.

A quantile over ``time`` of a ``(time, lat, lon)`` chunk is the hot case of the dask
order statistics (one task per chunk, the core dim whole). Each such task used to scan
its block twice before selecting (the policy tally of :func:`.final.block_record`,
then the core's own scan of its key buffer); here one pass over the block's raw bits
builds the ``(cells, time)`` key buffer, finds the NaNs (the tally: counts and first
positions, signaling ones apart) and moves them out of reach. The ranks are the core's
(:func:`nanaccess.core.plan.rank_plan` on each cell's count of numbers); cells with no
number (land in a climate grid) are left out of the rank windows, so the rows share a
narrow window and NumPy's SIMD partition selects them
(:func:`nanaccess.core._numba.rows.select_windows`, else the per-row selection); the
core's ``combine`` and ``finish`` make the values. Same keys, same ranks, same
combination: the result is the core's, bit for bit.

Served here: float32/float64 blocks reduced over axis 0 alone (strided chunks of a
larger array included) under "omit" or "raise", the order statistics but
argmin/argmax. Anything else goes to the core (:func:`.final.core_order`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _stats
from ..core.chunked import (
    NanTally,
    combine,
    finish,
    keys_to_values,
    layout_of,
    order_stat,
    rank_plan,
    validate_q,
)
from ..core.chunked import row_kernels as _rows
from ..options import NanPolicy

__all__ = ["leading_order", "leading_with_tally", "served"]

_POLICIES = (NanPolicy.OMIT, NanPolicy.RAISE)


def served(b: np.ndarray, axes: tuple[int, ...], stat: str, policy: NanPolicy) -> bool:
    """Whether :func:`leading_with_tally` computes this block itself."""
    return (tuple(axes) == (0,) and b.ndim >= 1 and b.dtype in (np.float32, np.float64)
            and b.dtype.isnative and b.shape[0] > 0 and policy in _POLICIES
            and stat in _stats.ORDER)


#: cells per step of :func:`_keys`: about this many keys, so the steps stay in cache
_STEP = 1 << 15


def _as3(b: np.ndarray) -> np.ndarray | None:
    """``b`` as an ``(n, p, r)`` view (no copy; a strided chunk of a larger array is
    fine), or None when its layout has no such view."""
    if b.ndim < 3:
        return b.reshape((b.shape[0],) + (1,) * (3 - b.ndim) + b.shape[1:])
    if b.ndim == 3:
        return b
    v = b.view()
    try:
        v.shape = (b.shape[0], -1, b.shape[-1])  # raises rather than copy
    except AttributeError:
        return None
    return v


def _keys(b: np.ndarray) -> tuple[np.ndarray, np.ndarray, NanTally]:
    """``(cells, n)`` totalOrder keys of ``b`` (one transposed copy), NaN keys set to
    the greatest key; each cell's count of numbers and the block's tally (positions
    flat, C order within ``b``). The copy, the NaN scan and the key map run in
    cache-sized steps of cells."""
    n = b.shape[0]
    lay = layout_of(b.dtype)
    it = lay.int_dtype
    src = _as3(b)
    if src is None:
        src = b.reshape(n, -1, b.shape[-1])  # a copy, for layouts with no such view
    p, r = src.shape[1], src.shape[2]
    moved = np.moveaxis(src.view(it), 0, -1)  # (p, r, n), strided
    keys3 = np.empty((p, r, n), dtype=it)
    imax, emax = it.type(lay.int_max), it.type(lay.exp_mask)
    ut = np.dtype(f"u{it.itemsize}")
    uquiet = ut.type(lay.quiet_bit - 1)
    shift = lay.bits - 1
    m = np.full(p * r, n, dtype=np.int64)
    counts = [0, 0]  # signaling, NaN
    firsts: list[list[int]] = [[], []]
    step = max(1, _STEP // max(1, r * n))
    tmp = np.empty((min(step, p) * r, n), dtype=it)
    nan = np.empty(tmp.shape, dtype=bool)
    for p0 in range(0, p, step):
        p1 = min(p, p0 + step)
        np.copyto(keys3[p0:p1], moved[p0:p1])
        flat = keys3[p0:p1].reshape(-1, n)
        k = flat.shape[0]
        t, bad = tmp[:k], nan[:k]
        np.bitwise_and(flat, imax, out=t)  # magnitudes: NaN above the infinities
        np.greater(t, emax, out=bad)
        any_nan = bool(bad.any())
        sig = None
        if any_nan:  # signaling: quiet bit clear, emax < mag < emax + quiet (unsigned)
            np.subtract(t, emax + 1, out=t)
            hit = t.view(ut) < uquiet
            if hit.any():
                sig = hit
        np.right_shift(flat, shift, out=t)
        np.bitwise_and(t, imax, out=t)
        np.bitwise_xor(flat, t, out=flat)
        if not any_nan:
            continue
        c0 = p0 * r
        rows = np.count_nonzero(bad, axis=1)
        m[c0:c0 + k] -= rows
        for j, (mask, per_row) in enumerate(((sig, None), (bad, rows))):
            if mask is None:
                continue
            c, first = _count_first(mask, per_row, c0, p * r)
            counts[j] += c
            if first is not None:
                firsts[j].append(first)
        np.copyto(flat, imax, where=bad)  # above every number: out of the ranks' reach
    tally = NanTally(counts[0], min(firsts[0]) if firsts[0] else None,
                     counts[1], min(firsts[1]) if firsts[1] else None)
    return keys3.reshape(-1, n), m, tally


def _count_first(mask: np.ndarray, per_row: np.ndarray | None, c0: int, cells: int
                 ) -> tuple[int, int | None]:
    """Count and first flat position (C order of the block: time major) of a step's
    ``(k, n)`` mask whose first cell is ``c0`` of ``cells`` (``per_row``: its counts
    per cell, when known)."""
    if per_row is None:
        per_row = np.count_nonzero(mask, axis=1)
    count = int(per_row.sum())
    if not count:
        return 0, None
    at0 = np.flatnonzero(mask[:, 0])
    if at0.size:  # a hit at the first time step: the first in time-major order
        return count, int(at0[0] + c0)
    rows = np.flatnonzero(per_row)
    t = mask[rows].argmax(axis=1)
    return count, int((t * cells + rows + c0).min())


def _select(keys: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    got = _rows.select_windows(keys, ranks)
    if got is not None:
        return got
    if _rows.select_rows is not None:
        return _rows.select_rows(keys, ranks)
    return _rows._select_rows_numpy(keys, ranks)


def leading_with_tally(b: np.ndarray, axes: tuple[int, ...], *, stat: str, q: Any,
                       method: str, policy: NanPolicy
                       ) -> tuple[NanTally, Callable[[], np.ndarray]]:
    """The block's tally and a function computing its values (call it only when the
    policy accepts the tally), as :func:`.final.core_order` would (``keepdims``)."""
    keys, m, tally = _keys(b)

    def values() -> np.ndarray:
        qarr = validate_q(q) if stat in _stats.TAKES_Q else None
        plan = rank_plan(stat, m, qarr, method)
        ranks = np.array(plan.ranks, dtype=np.int64)
        empty = m == 0
        if empty.any():  # no number: any rank (finish overwrites), one the others share
            ranks[:, empty] = ranks[:, ~empty].min(axis=1, keepdims=True) \
                if (~empty).any() else 0
        sel = _select(keys, ranks)
        nq = plan.lo.shape[0]
        a = keys_to_values(sel[:nq], b.dtype, NanPolicy.TOTALORDER)
        hi = None if plan.mode == "pick" else keys_to_values(sel[nq:], b.dtype,
                                                             NanPolicy.TOTALORDER)
        vals = combine(plan, a, hi)
        if empty.any():
            vals, _ = finish(vals, stat, empty=empty[None, :])
        lead = () if qarr is None or qarr.ndim == 0 else qarr.shape
        return np.asarray(vals).reshape(lead + (1,) + b.shape[1:])

    return tally, values


def leading_order(b: np.ndarray, axes: tuple[int, ...], *, stat: str, q: Any, method: str,
                  policy: NanPolicy) -> np.ndarray:
    """``core_order(b, axes, ...)``, from one pass over the block where :func:`served`
    (the tally is not checked here: :func:`.final.per_block_core` checks it).

    Examples
    --------
    >>> import numpy as np
    >>> from nanaccess.options import NanPolicy
    >>> b = np.array([[3.0, np.nan], [1.0, 5.0], [2.0, -0.0]])
    >>> leading_order(b, (0,), stat="median", q=None, method="linear",
    ...               policy=NanPolicy.OMIT).tolist()
    [[2.0, 2.5]]
    """
    if not served(b, axes, stat, policy):
        return core_order(b, axes, stat=stat, q=q, method=method, policy=policy)
    return leading_with_tally(b, axes, stat=stat, q=q, method=method, policy=policy)[1]()


def core_order(b: np.ndarray, axes: tuple[int, ...], *, stat: str, q: Any, method: str,
               policy: NanPolicy) -> np.ndarray:
    """The core's ``order_stat`` of one block (see :func:`.final.core_reduce`)."""
    return order_stat(b, stat, q=q, method=method, axis=axes, policy=policy,
                      keepdims=True)[0]
