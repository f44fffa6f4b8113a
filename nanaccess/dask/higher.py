"""Lazy, exact skew, kurt, sem and prod of dask arrays (issue 23).

skew, kurt and sem are a tree reduction (:func:`dask.array.reduction`) of exact
per-row power sums (:func:`nanaccess.core.higher.cells.cell_sums`: Python ints that
add exactly across chunks), rounded once at the end, so the result equals the
in-memory core's bit for bit whatever the chunks. prod gathers each row's NaN-free values
through the same tree (an exact product has no bounded partial) and multiplies them
exactly at the end. Policy errors
come from the same tally check as the moments (:func:`.tally.policy_check`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from typing import Any

import dask.array as da
import numpy as np

from ..core.chunked import (
    KMAX,
    RULES,
    Reduction,
    canonical_nan,
    cell_sums,
    cell_values,
    check_params,
    finish_cells,
    float_keys,
    keys_to_float,
    layout_of,
    normalize_axis,
    scan_rows,
)
from ..errors import NaNError
from ..options import NanPolicy, resolve_policy
from .final import check_then, core_reduce, out_dtype, per_block_core, whole_axes
from .tally import policy_check
from .typed_dask import blockwise, reduction

__all__ = ["dask_higher_stat"]


class _PowerPart:
    """Exact, mergeable partials of one row: count, power sums, flags (``+`` merges)."""

    __slots__ = ("count", "t", "bad", "nnan", "nmiss", "maxnan")

    def __init__(self, count: Any, t: Any, bad: Any, nnan: Any, nmiss: Any, maxnan: Any) -> None:
        self.count, self.t, self.bad = count, t, bad
        self.nnan, self.nmiss, self.maxnan = nnan, nmiss, maxnan

    def __add__(self, o: _PowerPart) -> _PowerPart:
        mx = o.maxnan if self.maxnan is None else (
            self.maxnan if o.maxnan is None else max(self.maxnan, o.maxnan))
        if self.count < 0:  # prod: the values themselves (an exact product has no
            # bounded partial), concatenated
            t = [np.concatenate([self.t[0], o.t[0]])]
        else:
            t = [a + b for a, b in zip(self.t, o.t, strict=True)]
        return _PowerPart(self.count + o.count if self.count >= 0 else -1, t,
                          self.bad or o.bad, self.nnan + o.nnan, self.nmiss + o.nmiss, mx)

    def __reduce__(self) -> Any:
        return (_PowerPart, tuple(getattr(self, k) for k in self.__slots__))


def _chunk(b: Any, axis: Any = None, keepdims: Any = True, *, kmax: Any) -> Any:
    """Per-row exact partials of one block (object array, reduced axes of length 1)."""
    b = np.asarray(b)
    if b.dtype.kind == "b":
        b = b.astype(np.int64)
    red = Reduction.of(b, axis)
    sc = scan_rows(b, red, NanPolicy.TOTALORDER)  # classification only: never raises
    rows = red.as_rows(b)
    keep = None if sc.removed is None else ~sc.removed
    nrows = red.rows
    gid = np.repeat(np.arange(nrows, dtype=np.int64), rows.shape[1])
    vals = rows.reshape(-1)
    if keep is not None:
        vals, gid = vals[keep.reshape(-1)], gid[keep.reshape(-1)]
    if kmax == 0:  # prod: keep the values of each row
        cut = np.searchsorted(gid, np.arange(1, nrows))
        t = [list(np.split(vals, cut))]
        counts, bad = np.full(nrows, -1, np.int64), np.zeros(nrows, bool)
    else:
        counts, t, bad = cell_sums(vals, gid, nrows, kmax)
    maxnan = [None] * nrows
    if sc.nan is not None:
        k = float_keys(rows)
        best = np.where(sc.nan, k, k.dtype.type(np.iinfo(k.dtype).min)).max(axis=1)
        maxnan = [int(v) if n else None for v, n in zip(best.tolist(), sc.nnan.tolist(),
                                                       strict=True)]
    out = np.empty(nrows, dtype=object)
    for r in range(nrows):  # one record per output cell of the block
        parts = [tk[r] if kmax == 0 else int(tk[r]) for tk in t]
        out[r] = _PowerPart(int(counts[r]), parts, bool(bad[r]), int(sc.nnan[r]),
                            int(sc.nmiss[r]), maxnan[r])
    return red.finish(out, True)


def _combine(parts: Any, axis: Any = None, keepdims: Any = True) -> Any:
    return np.add.reduce(np.asarray(parts, dtype=object), axis=axis, keepdims=True)


def _finish(parts: Any, axis: Any = None, keepdims: Any = False, *, stat: Any, params: Any,
            policy: Any, dtype: Any) -> Any:
    """Round merged partials as :func:`nanaccess.core.higher.higher_stat` does."""
    merged = np.add.reduce(np.asarray(parts, dtype=object), axis=axis, keepdims=keepdims)
    if not isinstance(merged, np.ndarray):
        box = np.empty((), dtype=object)
        box[()] = merged
        merged = box
    shape = merged.shape
    flat = merged.reshape(-1).tolist()
    counts = np.array([p.count for p in flat], np.int64)
    if stat == "prod":
        vals = np.concatenate([p.t[0] for p in flat]) if flat else np.empty(0)
        gid = np.repeat(np.arange(len(flat)), [p.t[0].size for p in flat])
        vals = cell_values(vals, gid, len(flat), "prod", {})
        return _policy_tail(vals, flat, shape, stat, policy, dtype)
    t = []
    for k in range(KMAX[stat]):
        col = np.empty(len(flat), dtype=object)
        col[:] = [p.t[k] for p in flat]
        t.append(col)
    vals = finish_cells(stat, counts, t, np.array([p.bad for p in flat], bool), params)
    return _policy_tail(vals, flat, shape, stat, policy, dtype)


def _policy_tail(vals: Any, flat: Any, shape: Any, stat: Any, policy: Any, dtype: Any) -> Any:
    """The input's float dtype, then the propagated NaN or missing value."""
    native = dtype.newbyteorder("=")
    if dtype.kind == "f" and dtype.itemsize != 8:
        vals = vals.astype(native)
    if not RULES[policy].removes:
        nnan = np.array([p.nnan for p in flat], np.int64)
        nmiss = np.array([p.nmiss for p in flat], np.int64)
        has = nnan > 0
        if dtype.kind == "f" and has.any():
            lay = layout_of(native)
            best = np.array([p.maxnan if p.maxnan is not None else 0 for p in flat],
                            dtype=lay.int_dtype)
            vals = np.where(has, keys_to_float(best, native).astype(vals.dtype), vals)
        mrow = (nmiss > 0) & ~has
        if mrow.any():
            vals = np.where(mrow, canonical_nan(vals.dtype), vals)
    return np.asarray(vals).reshape(shape)


def dask_higher_stat(x: da.Array, stat: str, *, axis: Any = None,
                     policy: NanPolicy | str | None = None, keepdims: bool = False,
                     relabel: Callable[[NaNError], NaNError] | None = None,
                     check: da.Array | None = None, **params: Any) -> da.Array:
    """Lazy skew / kurt / sem / prod of a dask array, equal to the core bit for bit.

    Examples
    --------
    >>> import numpy as np, dask.array as da
    >>> x = da.from_array(np.array([1.0, 2.0, np.nan, 4.0, 8.0]), chunks=2)
    >>> float(dask_higher_stat(x, "skew", policy="omit").compute())
    1.1376243669576889
    """
    policy = resolve_policy(policy)
    params = {k: v for k, v in check_params(stat, params).items() if k in params}
    axes = normalize_axis(axis, x.ndim)
    res_dtype = out_dtype(x, stat, axes, **params)
    info = policy_check(x, policy, check)
    if x.ndim == 0:
        x = whole_axes(x, axes)
        fn = partial(core_reduce, stat=stat, policy=policy, params=params)
        return per_block_core(x, fn, axes, keepdims, res_dtype, (), info, policy, relabel)
    res = reduction(
        x, partial(_chunk, kmax=KMAX.get(stat, 0)),
        partial(_finish, stat=stat, params=check_params(stat, params), policy=policy,
                dtype=x.dtype),
        combine=_combine, axis=axes, keepdims=keepdims, dtype=object, concatenate=True,
        meta=np.empty((0,) * (x.ndim if keepdims else x.ndim - len(axes)), dtype=object),
    )
    shape = tuple(0 if math.isnan(s) else int(s) for s in x.shape)
    ri = tuple(f"r{i}" for i in range(res.ndim))
    args: list[Any] = [res, ri]
    if info is not None:
        args += [info, ("info",)]
    return blockwise(check_then, ri, *args, dtype=res_dtype, concatenate=True,
                        meta=np.empty((0,) * res.ndim, dtype=res_dtype),
                        policy=policy, shape=shape, relabel=relabel, dtype_out=res_dtype)
