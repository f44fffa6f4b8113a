"""Order statistics on arrays: selection on totalOrder keys, never a float sort.

Per reduction: keys of the data go into one C-ordered ``(rows, n)`` buffer (the only
extra copy); one block-wise scan of the keys counts and checks the NaNs and moves
dropped ones out of reach ("omit"/"propagate"), while "smallest"/"largest" leave every
key in totalOrder and map the wanted ranks instead; ``np.partition`` selects the
ranks in place, and the selected keys are inverted to the exact stored bits.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from .. import _stats
from ..errors import NaNError
from ..options import NanPolicy, resolve_policy
from ._numba import rows as _rows
from .axes import Reduction
from .bits import layout_of
from .interp import validate_q
from .keys import float_keys, integer_keys, keys_to_float, number_keys, remap_keys, unmap_keys
from .nanscan import scan_rows
from .objects import object_rows_order_stat
from .plan import combine, rank_plan
from .policy import RULES, finish

__all__ = ["order_stat", "ORDER_STATS", "check_orderable", "key_dtype", "keys_to_values",
           "build_keys"]

ORDER_STATS = _stats.names("order", "arg")
# below this many distinct ranks a multi-kth partition beats a full sort of the rows
_MAX_KTH = 32
# along an axis, rows are reduced in chunks of about this many elements (8 MiB keys)
_ROW_CHUNK = 1 << 20


def check_orderable(dtype: np.dtype, what: str = "data") -> None:
    """TypeError for dtypes with no order (complex, strings, longdouble, void)."""
    kind = dtype.kind
    if kind == "c":
        raise TypeError(f"{what} is complex ({dtype}): complex numbers have no order")
    if kind == "f" and dtype.itemsize not in (2, 4, 8):
        raise TypeError(
            f"{what} has dtype {dtype}: only float16/32/64 have a bit-exact path; "
            "convert to float64 or to an object array of Decimals"
        )
    if kind not in "fiubmMO":
        raise TypeError(f"{what} has non-numeric dtype {dtype}")


def key_dtype(dtype: np.dtype) -> np.dtype:
    """dtype of the keys of ``dtype`` data."""
    kind = dtype.kind
    if kind == "f":
        return layout_of(dtype).int_dtype
    if kind == "b":
        return np.dtype(np.int8)
    if kind in "mM":
        return np.dtype(np.int64)
    if kind == "u":
        return np.dtype(f"i{min(dtype.itemsize * 2, 8)}")
    return dtype.newbyteorder("=")


def build_keys(x: np.ndarray, red: Reduction) -> np.ndarray:
    """``(rows, n)`` keys of x in a fresh C-ordered buffer (the single extra copy)."""
    buf, rows = red.empty_rows(key_dtype(x.dtype))
    moved = red.moved(x)
    if x.dtype.kind == "f":
        float_keys(moved, out=buf)
    else:
        integer_keys(moved, out=buf)
    return rows


def keys_to_values(k: np.ndarray, dtype: np.dtype, policy: NanPolicy) -> np.ndarray:
    """Invert :func:`build_keys` (+ policy remap) to values of ``dtype`` (native order)."""
    kind = dtype.kind
    native = dtype.newbyteorder("=")
    if kind == "f":
        return keys_to_float(unmap_keys(k, native, policy), native)
    if kind in "mM":
        return k.astype(np.int64).view(native)
    if kind == "u" and dtype.itemsize == 8:
        return cast("np.ndarray", np.bitwise_xor(k, np.int64(-(1 << 63))).view(np.uint64))
    return k.astype(native)


def _int_limits(dtype: np.dtype) -> tuple[int, int]:
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


# per-row selection when a block has at most this many rows of at least this length
_FEW_ROWS = 16
_LONG_ROW = 1 << 14


def _partition_at(keys: np.ndarray, kth: list[int], lo: int, hi: int) -> None:
    """Partition ``keys[:, lo:hi]`` so every rank in ``kth`` (sorted) is in place.

    Middle rank first, then each side on its own segment: about 2n work for any
    number of ranks, where one ``np.partition`` call with all of them costs ~3n.
    """
    if not kth:
        return
    mid = len(kth) // 2
    k = kth[mid]
    keys[:, lo:hi].partition(k - lo, axis=1)
    _partition_at(keys, kth[:mid], lo, k)
    _partition_at(keys, kth[mid + 1:], k + 1, hi)


def _gather(keys: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    """Keys at ``ranks`` ((K, rows) ints) of each row, selecting in place on ``keys``."""
    rows, n = keys.shape
    if n == 0:
        return np.zeros(ranks.shape, dtype=keys.dtype)
    uniform = rows == 1 or bool((ranks == ranks[:, :1]).all())
    if uniform:
        kth = np.unique(ranks[:, 0])
        if kth.size == 2 and kth[1] == kth[0] + 1 and kth[1] > 0:
            # one partition, then the max of the lower part (the even-median trick)
            keys.partition(kth[1], axis=1)
            upper = keys[:, kth[1]]
            lower = keys[:, : kth[1]].max(axis=1)
            return np.where(ranks == kth[1], upper[None, :], lower[None, :])
        _partition_at(keys, kth.tolist(), 0, n)
        return keys[:, ranks[:, 0]].T
    if rows <= _FEW_ROWS and n >= _LONG_ROW:
        # a few long rows (a DataFrame's columns): each row on its own takes the uniform
        # path above (one SIMD partition + a max for an even median), where the shared
        # rank window costs a second partition of half of every row
        return np.concatenate([_gather(keys[r:r + 1], ranks[:, r:r + 1]) for r in range(rows)],
                              axis=1)
    if _rows.select_rows is not None:
        # compiled per-row quickselect (numba), when installed; same bits by construction
        return _rows.select_rows(keys, ranks)
    got = _rows.select_windows(keys, ranks)  # NumPy: ranks in a narrow shared window
    if got is not None:
        return got
    kth = np.unique(ranks)
    if kth.size <= _MAX_KTH:
        keys.partition(kth, axis=1)
    else:
        keys.sort(axis=1)
    return np.take_along_axis(keys, ranks.T, axis=1).T


class Placed:
    """Keys ready for selection, and how policy ranks map to ranks in key order."""

    __slots__ = ("keys", "m", "tail", "prop", "order", "nneg", "npos")

    def __init__(self, keys: Any, m: Any, tail: Any, prop: Any, order: Any = None, nneg: Any = None,
                 npos: Any = None) -> None:
        self.keys, self.m, self.tail, self.prop = keys, m, tail, prop
        # "smallest"/"largest" with NaNs: the NaN keys stay where totalOrder puts them
        # (negative NaNs below -inf, positive above +inf, missing on top) and the
        # wanted ranks are mapped instead, so no key is rewritten
        self.order, self.nneg, self.npos = order, nneg, npos

    def key_ranks(self, r: np.ndarray) -> np.ndarray:
        """Ranks ``r`` ((K, rows), in the policy's order) as ranks in key order."""
        if self.order is None:
            return r
        nneg, npos = self.nneg[None, :], self.npos[None, :]
        num = self.m[None, :] - self.tail[None, :] - nneg - npos  # the numbers
        if RULES[self.order].nan_rank == "last":  # numbers, NaNs, missing
            return np.where(r < num, r + nneg, np.where(r < num + nneg, r - num, r))
        nan = nneg + npos  # smallest: NaNs, numbers, missing
        return np.where(r < nneg, r, np.where(r < nan, r + num,
                                              np.where(r < nan + num, r - npos, r)))

    def values(self, sel: np.ndarray, dtype: np.dtype) -> np.ndarray:
        return keys_to_values(np.array(sel, copy=True), dtype, NanPolicy.TOTALORDER)


def _place(x: Any, red: Reduction, policy: NanPolicy, missing: Any, fill_low: bool) -> Any:
    """Build keys, check the policy, and move NaN/missing keys where the policy puts
    them. NaNs are handled block by block during the scan: no positions are kept."""
    keys = build_keys(x, red)
    kd = keys.dtype
    kmin, kmax = _int_limits(kd)
    n = red.n
    r = RULES[policy]
    drop = not r.orders_nans
    # dropped values go where the statistic cannot pick them; kept missing values last
    fill = kd.type(kmin if fill_low and drop else kmax)
    # propagate: the greatest NaN key of each row, read at the NaN positions only
    prop = np.full(red.rows, kmin, dtype=kd) if r.propagates else None
    # "smallest"/"largest" keep totalOrder keys and count the negative NaNs instead
    count_neg = r.nan_rank in ("first", "last")
    nneg = np.zeros(red.rows, dtype=np.int64)
    first_number = kd.type(number_keys(layout_of(x.dtype))[0]) if x.dtype.kind == "f" else None

    def visit(start: int, blk: np.ndarray, idx: np.ndarray, nk: np.ndarray) -> None:
        if prop is not None:
            if red.rows == 1:
                prop[0] = max(prop[0], nk.max())
            else:
                np.maximum.at(prop, (idx + start) // n, nk)
        if drop:
            blk[idx] = fill
        elif count_neg:
            neg = nk < first_number
            if red.rows == 1:
                nneg[0] += np.count_nonzero(neg)
            else:
                nneg[:] += np.bincount((idx[neg] + start) // n, minlength=red.rows)

    sc = scan_rows(x, red, policy, missing, keys=keys, visit=visit)
    if prop is not None and not sc.has_nan:
        prop = None
    if sc.missing is not None:
        keys[sc.missing] = fill
    if drop:
        m = n - sc.nnan - sc.nmiss
        return sc, Placed(keys, m, np.zeros_like(m), prop)
    m = np.full(red.rows, n, dtype=np.int64)
    if count_neg and sc.has_nan:
        return sc, Placed(keys, m, sc.nmiss, prop, policy, nneg, sc.nnan - nneg)
    return sc, Placed(keys, m, sc.nmiss, prop)


def order_stat(
    x: Any,
    stat: str,
    *,
    q: Any = None,
    method: str = "linear",
    axis: int | tuple[int, ...] | None = None,
    policy: NanPolicy | str | None = NanPolicy.RAISE,
    missing: np.ndarray | None = None,
    keepdims: bool = False,
    _chunked: bool = True,
) -> tuple[np.ndarray, np.ndarray | None]:
    """Order statistic ``stat`` of ``x`` along ``axis`` under ``policy``.

    See ``docs/dev/architecture.md`` for the contract. Returns ``(values, missing)``.
    Along an axis of a large array the rows are reduced in chunks of about
    ``_ROW_CHUNK`` elements (each row on its own is the same computation).

    Examples
    --------
    >>> from nanaccess.core.select import order_stat
    >>> order_stat(np.array([np.nan, 1, 2, 3, 4]), "median", policy="omit")[0]
    array(2.5)
    """
    x = np.asarray(x)
    policy = resolve_policy(policy)
    if stat not in ORDER_STATS:
        raise ValueError(f"unknown order statistic {stat!r}; expected one of {ORDER_STATS}")
    check_orderable(x.dtype)
    if x.dtype.kind == "O":
        return cast("tuple[np.ndarray, np.ndarray | None]",
               object_rows_order_stat(x, stat, q=q, method=method, axis=axis, policy=policy,
                                      missing=missing, keepdims=keepdims))
    red = Reduction.of(x, axis)
    if stat in _stats.ARG:
        return cast("tuple[np.ndarray, np.ndarray | None]",
               _arg(x, red, stat, policy, missing, keepdims))
    if _chunked and red.rows > 1 and x.size > _ROW_CHUNK and red.out_shape:
        try:
            return cast("tuple[np.ndarray, np.ndarray | None]",
                   _by_row_chunks(x, red, stat, q=q, method=method, policy=policy,
                                  missing=missing, keepdims=keepdims))
        except NaNError:
            pass  # the whole array again: the error then names its position in x

    q_arr = None
    if stat in _stats.TAKES_Q:
        if q is None:
            raise TypeError("quantile needs q")
        q_arr = validate_q(q)
    r = RULES[policy]
    sc, placed = _place(x, red, policy, missing, fill_low=stat in _stats.RANK_MAX)
    keys, m, tail, prop = placed.keys, placed.m, placed.tail, placed.prop
    if prop is not None and bool((sc.nnan > 0).all()):
        # every row propagates a NaN: nothing to select
        pv = keys_to_float(prop.copy(), x.dtype.newbyteorder("="))
        lead = () if q_arr is None or q_arr.ndim == 0 else q_arr.shape
        vals = np.broadcast_to(pv, (int(np.prod(lead, dtype=np.int64)), red.rows))
        return red.finish(np.ascontiguousarray(vals), keepdims, lead), None
    fast = placed.order is None  # min/max read off the keys, no selection
    plan = rank_plan(stat, m, q_arr, method)
    if fast and stat in _stats.EXTREMES:
        if red.n:
            low = stat in _stats.RANK_MIN
            sel_lo = (keys.min(axis=1) if low else keys.max(axis=1))[None, :]
        else:
            sel_lo = np.zeros_like(plan.lo, dtype=keys.dtype)
        sel_hi = sel_lo
    else:
        nq = plan.lo.shape[0]
        sel = _gather(keys, placed.key_ranks(plan.ranks))
        sel_lo, sel_hi = sel[:nq], sel[nq:]
    a = placed.values(sel_lo, x.dtype)
    vals = combine(plan, a, None if plan.mode == "pick" else placed.values(sel_hi, x.dtype))

    # the result tails: missing at a kept missing rank, or (propagate) in a row
    # with missing values and no NaN; nothing left; a propagated NaN
    missing_rows = None
    if tail.any():
        missing_rows = plan.reaches(m - tail)  # a used rank among the missing
    if r.propagates and sc.missing is not None:
        missing_rows = ((sc.nmiss > 0) & (sc.nnan == 0))[None, :]
    empty = m == 0
    nan_rows = nan_values = None
    if prop is not None:
        nan_rows = (sc.nnan > 0)[None, :]
        nan_values = keys_to_float(prop.copy(), x.dtype.newbyteorder("="))[None, :]
    if missing_rows is not None and not missing_rows.any():
        missing_rows = None
    res_missing = None
    if empty.any() or missing_rows is not None or nan_rows is not None:
        if vals.dtype.kind not in "fmM" and (empty.any() or missing_rows is not None):
            vals = vals.astype(np.float64)  # an int result gets a NaN fill
        vals, res_missing = finish(vals, stat, empty=empty[None, :], nan_rows=nan_rows,
                                   nan_values=nan_values, missing_rows=missing_rows)

    lead = () if q_arr is None or q_arr.ndim == 0 else q_arr.shape
    out = red.finish(vals, keepdims, lead)
    miss_out = None if res_missing is None else red.finish(res_missing, keepdims, lead)
    return out, miss_out


def _by_row_chunks(x: Any, red: Reduction, stat: str, *, q: Any, method: Any, policy: Any,
                   missing: Any, keepdims: Any) -> Any:
    """:func:`order_stat` over chunks of rows along the first kept axis.

    A fresh key buffer the size of the data costs page faults on every call; chunks
    of ``_ROW_CHUNK`` keys reuse the allocator's memory and stay near the cache, and
    the extra memory is a chunk, not a copy.
    """
    xm = red.moved(x)
    mm = None if missing is None else red.moved(np.broadcast_to(missing, x.shape))
    nred = len(red.axes)
    axes = tuple(range(xm.ndim - nred, xm.ndim))
    first = xm.shape[0]
    step = max(1, _ROW_CHUNK // max(1, (red.rows // first) * red.n))
    vals, miss = [], []
    for i in range(0, first, step):
        v, m = order_stat(xm[i:i + step], stat, q=q, method=method, axis=axes,
                          policy=policy, missing=None if mm is None else mm[i:i + step],
                          _chunked=False)
        vals.append(v)
        miss.append(m)
    lead = np.ndim(vals[0]) - (len(red.out_shape))
    if len({v.dtype for v in vals}) > 1:  # an int chunk made float64 by an empty row
        vals = [v.astype(np.float64) for v in vals]
    out = np.concatenate(vals, axis=lead)
    res_missing = None
    if any(m is not None and m.any() for m in miss):
        res_missing = np.concatenate(
            [np.zeros(v.shape, bool) if m is None else m for v, m in
             zip(vals, miss, strict=True)], axis=lead)
    if keepdims:
        shape = out.shape[:lead] + red.keep_shape
        out = out.reshape(shape)
        res_missing = None if res_missing is None else res_missing.reshape(shape)
    return out, res_missing


def _arg(x: Any, red: Reduction, stat: str, policy: NanPolicy, missing: Any, keepdims: bool) -> Any:
    """argmin / argmax: index (in the reduced axes, flattened as numpy) of the first
    element holding the selected key; missing values never count."""
    fill_low = stat in _stats.RANK_MAX
    sc, placed = _place(x, red, policy, missing, fill_low)
    keys, m, prop = placed.keys, placed.m, placed.prop
    if placed.order is not None:
        # smallest/largest keep totalOrder keys (see Placed): remap them all here
        remap_keys(keys, x.dtype.newbyteorder("="), placed.order)
    if RULES[policy].orders_nans and sc.missing is not None:
        kmin, kmax = _int_limits(keys.dtype)
        keys[sc.missing] = kmin if fill_low else kmax
        m = m - sc.nmiss
    none_left = m == 0
    if prop is not None:
        none_left &= sc.nnan == 0  # all-NaN rows point at their propagating NaN
    if none_left.any() or red.n == 0:
        row = int(np.flatnonzero(none_left)[0]) if red.n else 0
        raise ValueError(
            f"attempt to get {stat} of an empty sequence (row {row} has no values "
            f"left under nan_policy={policy.value!r})"
        )
    idx = keys.argmax(axis=1) if fill_low else keys.argmin(axis=1)
    if prop is not None:
        # propagate: point at the NaN that propagates
        hit = np.argmax(build_keys(x, red) == prop[:, None], axis=1)
        idx = np.where(sc.nnan > 0, hit, idx)
    return red.finish(idx.astype(np.intp), keepdims), None
