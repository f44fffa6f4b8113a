"""Cumulative statistics one block at a time, with an exact carry between blocks.

:func:`carry_step` runs :func:`.scan.cumulative` on a block of rows with the state of
the blocks before it prepended as a few columns, and returns the block's result and
the state after it. The state is exact, so a chain of blocks gives the in-memory
result bit for bit (dask's lazy ``cumsum`` and friends):

* ``cumsum`` of floats: the exact sum so far as non-overlapping doubles (peeled off
  the exact sum by repeated correctly rounded sums, each of the remainder), then an
  infinity of each sign seen, then the totalOrder-greatest NaN seen (propagating
  policies); ``-0.0`` pads (the sum's neutral value, which also keeps the sign rule
  of a zero prefix). A prefix of the next block is then the exact sum of everything
  before it, rounded once.
* ``cumsum`` of ints, ``cumprod``, ``cummax``, ``cummin``: the running value (under
  "omit", the one at the last value taken; NaN when there is none yet), as the
  statistic's own recurrence continues from it.
* ``cumcount``: the count so far, added.

Missing values (nullable columns) travel as a mask beside the state.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import NaNError
from ...options import NanPolicy
from ..policy import RULES
from .prefix import prefix_sums
from .scan import cumulative

__all__ = ["carry_step", "out_dtype"]

Carry = tuple[np.ndarray, np.ndarray | None]


def out_dtype(dtype: Any, stat: str) -> np.dtype:
    """The dtype of ``stat``'s result for data of ``dtype``."""
    return cumulative(np.zeros((1, 1), dtype), stat, policy="omit")[0].dtype


def _exact_parts(v: np.ndarray) -> np.ndarray:
    """Rows of finite float64 values -> columns of non-overlapping doubles summing to
    each row's exact sum (``-0.0`` padded); ``+0.0`` first where that sum is zero but
    not every value is ``-0.0``."""
    r, n = v.shape
    parts: list[np.ndarray] = []
    cur = v
    for _ in range(64):  # each round takes 53 more bits of the exact sum
        if cur.shape[1] == 0:
            break
        starts = np.arange(r + 1, dtype=np.int64) * cur.shape[1]
        s = prefix_sums(np.ascontiguousarray(cur).reshape(-1), starts).reshape(cur.shape)[:, -1]
        if not parts:
            allneg = np.all((v == 0) & np.signbit(v), axis=1)
            s = np.where((s == 0) & ~allneg, 0.0, s)
            s = np.where((s == 0) & allneg, -0.0, s)
        elif not s.any():
            break
        else:
            s = np.where(s == 0, -0.0, s)  # a row already complete: the neutral pad
        parts.append(s)
        cur = np.concatenate([cur, -s[:, None]], axis=1)
    if not parts:
        return np.full((r, 1), -0.0)
    return np.stack(parts, axis=1)


def _sum_carry(rows: np.ndarray, miss: np.ndarray | None, policy: NanPolicy) -> Carry:
    v = rows.astype(np.float64)
    nan = np.isnan(v)
    if miss is not None:
        nan |= miss
    finite = np.where(np.isfinite(v) & ~nan, v, -0.0)
    cols = [_exact_parts(finite)]
    inf = np.where(np.any(v == np.inf, axis=1), np.inf, -0.0)
    ninf = np.where(np.any(v == -np.inf, axis=1), -np.inf, -0.0)
    cols += [inf[:, None], ninf[:, None]]
    carry_miss = None
    if not RULES[policy].removes:
        isnan = np.isnan(v) & (True if miss is None else ~miss)
        if isnan.any():
            # the greatest NaN so far: cumulative's own propagation, at the last position
            last = cumulative(np.where(isnan, v, 0.0).astype(rows.dtype), "cumsum",
                              policy=NanPolicy.PROPAGATE)[0][:, -1]
            cols.append(np.where(np.isnan(last), last, -0.0)[:, None])
        if miss is not None:
            seen = np.any(miss, axis=1)
            carry_miss = np.zeros((rows.shape[0], sum(c.shape[1] for c in cols) + 1), bool)
            carry_miss[:, -1] = seen
            cols.append(np.full((rows.shape[0], 1), -0.0))
    return np.concatenate(cols, axis=1), carry_miss  # float64: exact for every float


def carry_step(block: np.ndarray, carry: Carry | None, stat: str, policy: NanPolicy, *,
               missing: np.ndarray | None = None, offset: int = 0
               ) -> tuple[np.ndarray, np.ndarray | None, Carry]:
    """``stat`` along the last axis of the 2-D ``block`` continuing from ``carry``
    (None: the first block): ``(values, missing, carry after the block)``.
    ``offset``: the block's first column in the whole array (for error positions).

    Examples
    --------
    >>> x = np.array([[1e100, 0.1, -1e100, 0.2, 0.3]])
    >>> a, _, c = carry_step(x[:, :2], None, "cumsum", NanPolicy.OMIT)
    >>> b, _, _ = carry_step(x[:, 2:], c, "cumsum", NanPolicy.OMIT)
    >>> b.tolist() == cumulative(x, "cumsum", policy="omit")[0][:, 2:].tolist()
    True
    """
    r, n = block.shape
    if stat == "cumcount":  # the count so far, added
        vals, _ = cumulative(block, stat, axis=1, policy=policy, missing=missing)
        if carry is not None:
            vals = vals + carry[0][:, -1:]
        return vals, None, (vals[:, -1:] if n else carry[0] if carry else vals, None)
    k = 0
    data, miss = block, missing
    if carry is not None:
        cv, cm = carry
        k = cv.shape[1]
        common = np.result_type(cv.dtype, block.dtype)  # the carry is never cut short
        data = np.concatenate([cv.astype(common, copy=False),
                               block.astype(common, copy=False)], axis=1)
        if cm is not None or missing is not None:
            cm = np.zeros(cv.shape, bool) if cm is None else cm
            mm = np.zeros(block.shape, bool) if missing is None else missing
            miss = np.concatenate([cm, mm], axis=1)
    try:
        vals, vmiss = cumulative(data, stat, axis=1, policy=policy, missing=miss)
    except NaNError as err:
        pos = err.position
        if pos is not None and len(pos) == 2:
            err.position = (int(pos[0]), int(pos[1]) - k + offset)
            err = err.relabel(err.subject)
        raise err from None
    want = out_dtype(block.dtype, stat)
    floated = vals.dtype.kind == "f" and want.kind != "f"  # ints meeting a NaN / missing
    if vals.dtype != want and not floated:
        vals = vals.astype(want)  # float32 sums: the float64 prefix rounded once more
    out, out_miss = vals[:, k:], None if vmiss is None else vmiss[:, k:]
    if stat == "cumsum" and block.dtype.kind == "f":
        return out, out_miss, _sum_carry(data, miss, policy)
    # the running value: the last output, or under "omit" the one at the last taken value
    rules = RULES[policy]
    ordered = rules.orders_nans and stat in ("cummax", "cummin")
    last = vals[:, -1:]
    lmiss = None if vmiss is None else vmiss[:, -1:]
    if rules.removes and not ordered and vals.dtype.kind == "f":
        gone = np.isnan(data) if data.dtype.kind == "f" else np.zeros(data.shape, bool)
        if miss is not None:
            gone |= miss
        taken = ~gone
        idx = data.shape[1] - 1 - np.argmax(taken[:, ::-1], axis=1)
        has = taken.any(axis=1)
        run = vals[np.arange(r), idx]
        if stat == "cumprod":  # (1, product); nothing yet: (1, 1); a NaN made by the
            # arithmetic (0 * inf) continues as one: (0, inf) makes it again
            made = has & np.isnan(run)
            first = np.where(made, 0.0, 1.0)
            second = np.where(made, np.inf, np.where(has, run, 1.0))
            last = np.stack([first, second], axis=1).astype(vals.dtype)
        else:
            last = np.where(has, run, np.nan)[:, None].astype(vals.dtype)
        lmiss = None
    elif vmiss is not None and rules.removes:
        lmiss = None
    return out, out_miss, (last, lmiss)
