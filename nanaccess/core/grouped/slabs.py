"""Order statistics of few groups over many columns: each group's rows as one slab.

The sort engine (:mod:`.order`) runs column by column: for a block of a grid (time x
thousands of cells) that is one Python step and one counting sort per column. Here
the group codes, which every column shares, are ordered once; groups of equal size
are gathered together (one ``take`` along the rows, for all columns at once) into
``(groups, size, columns)`` slabs, and each slab is reduced along its rows by the
ungrouped engine (:func:`nanaccess.core.select.order_stat`: keys in the input's
width, the per-row selection kernel). Each group's result is therefore its own
ungrouped statistic, bit for bit, by construction; the policy's errors were raised
before, by the grouped scan (:func:`.common.scan`), so they name the same group and
position as the sort engine.

A Python step per batch of equal-size groups, not per group or column: batches hold
at most :data:`SLAB_ELEMS` values (or one group), which bounds the extra memory to a
fraction of the input.
"""

from __future__ import annotations

from contextlib import nullcontext

import numpy as np

from ...options import NanPolicy, option_context
from ..policy import empty_value
from ..select import order_stat

__all__ = ["slab_batches", "order_slabs", "SLAB_MIN_COLS", "SLAB_ELEMS"]

#: columns from which the slab engine may serve a grouped order statistic
SLAB_MIN_COLS = 16
#: values gathered per batch (one group at least): 1 Mi values, 4 MB of float32, a small
#: fixed scratch beside a dask task's block (larger batches measured no faster)
SLAB_ELEMS = 1 << 20


def slab_batches(codes: np.ndarray, ngroups: int, ncols: int
                 ) -> tuple[np.ndarray, list[np.ndarray]] | None:
    """``(rows ordered by group, batches of group ids of one size)``, or None when the
    batches would outnumber the columns (the column engine then takes fewer steps).

    Every group of a batch has the same number of rows (groups without rows are in no
    batch); a batch gathers at most :data:`SLAB_ELEMS` values, or one group.
    """
    grouped = codes >= 0
    cc = codes if grouped.all() else codes[grouped]
    counts = np.bincount(cc, minlength=ngroups)
    sizes = np.unique(counts[counts > 0])
    per_batch = np.maximum(1, SLAB_ELEMS // np.maximum(sizes * ncols, 1))
    nbatch = 0
    by_size = []
    for s, k in zip(sizes.tolist(), per_batch.tolist(), strict=True):  # a step per size
        gs = np.flatnonzero(counts == s)
        by_size.append((gs, k))
        nbatch += -(-gs.size // k)
        if nbatch > ncols:
            return None
    order = np.argsort(codes, kind="stable")  # the rows of code -1 come first
    order = order[order.size - cc.size:]
    batches = [gs[i:i + k] for gs, k in by_size for i in range(0, gs.size, k)]
    return order, batches


def order_slabs(x2: np.ndarray, codes: np.ndarray, ngroups: int, stat: str,
                q_arr: np.ndarray | None, method: str, policy: NanPolicy,
                engine: str | None, plan: tuple[np.ndarray, list[np.ndarray]]
                ) -> tuple[np.ndarray, np.ndarray]:
    """``stat`` of every group and column of ``x2`` (rows, columns) with nothing
    missing, already scanned: ``(values (nq, ngroups, ncols), missing, holes)``
    (``holes``: None, or the empty groups of int / bool picks, which hold 0).

    ``plan`` is :func:`slab_batches`' answer.
    """
    order, batches = plan
    counts = np.bincount(codes[codes >= 0], minlength=ngroups)
    starts = np.cumsum(counts) - counts  # each group's rows within ``order``
    ncols = x2.shape[1]
    q = None if q_arr is None else q_arr
    parts: list[tuple[np.ndarray, np.ndarray]] = []
    ctx = option_context(engine=engine) if engine is not None else nullcontext()
    with ctx:
        for gs in batches:
            s = int(counts[gs[0]])
            rows = (starts[gs][:, None] + np.arange(s)).ravel()
            slab = x2.take(order[rows], axis=0).reshape(gs.size, s, ncols)
            v, _ = order_stat(slab, stat, q=q, method=method, axis=1, policy=policy)
            parts.append((gs, v if q is not None else v[None]))
    nq = 1 if q_arr is None else q_arr.size
    dtypes = {v.dtype for _, v in parts}
    empty = counts == 0
    if len(dtypes) > 1:
        dtypes = {np.dtype(np.float64)}
    dt = dtypes.pop() if dtypes else (x2.dtype if x2.dtype.kind in "fmM" else
                                      np.dtype(np.float64))
    values = np.empty((nq, ngroups, ncols), dt)
    holes = None
    if empty.any():
        if dt.kind in "fmM":
            values[:, empty] = empty_value(dt, stat)
        else:  # int picks keep their dtype: the empty groups are holes (as the engine)
            values[:, empty] = 0
            holes = np.zeros(values.shape, bool)
            holes[:, empty] = True
    for gs, v in parts:
        values[:, gs] = v
    return values, np.zeros(values.shape, bool), holes
