"""sort / argsort / rank on keys (spec section 5): stable, bit-preserving.

What a policy means for a sort is read off :data:`nanaccess.core.policy.RULES`
(``can_sort``, ``nan_rank``, ``removes``); the errors come from
:func:`nanaccess.core.policy.raise_for` through the scan.
"""

from __future__ import annotations

import decimal
from typing import Any

import numpy as np

from ..options import NanPolicy, resolve_policy
from .axes import Reduction
from .classify import scan_rows
from .keys import float_keys, integer_keys, remap_keys
from .objects import classify_object, object_order_stat, object_sort_keys
from .policy import RULES, raise_missing
from .select import check_orderable, keys_to_values

__all__ = ["sort_keys", "sort", "argsort", "rank"]

RANK_METHODS = ("average", "min", "max", "first", "dense")


def sort_policy(policy: Any, missing: np.ndarray | None = None) -> NanPolicy:
    """The resolved policy of a sort (default "totalorder"); a ``ValueError`` for a
    policy that cannot sort. ``missing`` (e.g. a masked array's mask) is checked
    first: a masked entry is missing, and "raise" says so (sorts keep no mask)."""
    policy = resolve_policy(NanPolicy.TOTALORDER if policy is None else policy)
    if missing is not None:
        raise_missing(missing, policy)
    if not RULES[policy].can_sort:
        raise ValueError(
            f'nan_policy="{policy.value}" has no meaning for a sort; use "totalorder", '
            '"smallest", "largest", "omit" (1-D) or "raise"'
        )
    return policy


def sort_keys(x: np.ndarray, policy: NanPolicy) -> np.ndarray:
    """Keys of x (same shape) ordering it as ``policy`` says; checks the policy."""
    red = Reduction.of(x, None)
    scan_rows(x, red, policy)  # the policy's errors
    k = float_keys(x) if x.dtype.kind == "f" else integer_keys(x)  # a fresh array
    if x.dtype.kind == "f":
        r = RULES[policy]
        # a policy that removes NaNs orders them last; callers drop them
        remap_keys(k, x.dtype.newbyteorder("="), NanPolicy.LARGEST if r.removes else policy)
    return k


def _as_array(data: Any) -> np.ndarray:
    """np.asarray, or a 1-D object array for ragged / mixed iterables."""
    try:
        return np.asarray(data)
    except ValueError:
        vals = list(data)
        out = np.empty(len(vals), dtype=object)
        out[:] = vals
        return out


def _prepare(data: Any, axis, policy, missing):
    x = _as_array(data)
    check_orderable(x.dtype)
    policy = sort_policy(policy, missing)
    if RULES[policy].removes and x.ndim > 1 and axis is not None:
        raise ValueError('nan_policy="omit" drops values, so it sorts 1-D data only; '
                         'use "largest" to put NaNs last')
    if axis is None or x.ndim == 0:
        x = x.ravel()
        axis = -1
    if x.dtype.kind in "mM":
        raise_missing(np.isnat(x), policy)
    return x, axis, policy


def _object_argsort(x: np.ndarray, policy: NanPolicy, ascending: bool = True) -> np.ndarray:
    """Stable argsort of a 1-D object array by the object path's order keys.

    ``ascending=False`` reverses the order, ties kept in input order (stable).
    """
    if x.ndim != 1:
        raise ValueError("object arrays are sorted 1-D only")
    vals = x.tolist()
    r = RULES[policy]
    if r.nan_raises or r.removes:
        # raises for NaN/missing under "raise" and for signaling NaNs, as the stats do
        if vals:
            object_order_stat(vals, "min", policy=policy)
    keys = object_sort_keys(vals, policy)
    with decimal.localcontext() as ctx:
        ctx.traps[decimal.FloatOperation] = False
        order = sorted(range(len(vals)), key=keys.__getitem__, reverse=not ascending)
    if r.removes:
        order = [i for i in order if classify_object(vals[i])[0] == "number"]
    return np.array(order, dtype=np.intp)


def argsort(data: Any, *, axis: int | None = -1, nan_policy: str | None = None,
            missing: np.ndarray | None = None) -> np.ndarray:
    """Array core of :func:`nanaccess.argsort` (documented there); ``missing``: a
    mask of missing entries (checked against the policy, see :func:`sort_policy`)."""
    x, axis, policy = _prepare(data, axis, nan_policy, missing)
    if x.dtype.kind == "O":
        return _object_argsort(x, policy)
    k = sort_keys(x, policy)
    order = np.argsort(k, axis=axis, kind="stable")
    if RULES[policy].removes and x.dtype.kind == "f":
        order = order[~np.isnan(x[order])]
    return order


def sort(data: Any, *, axis: int | None = -1, nan_policy: str | None = None,
         missing: np.ndarray | None = None) -> np.ndarray:
    """Array core of :func:`nanaccess.sort` (documented there); ``missing`` as
    :func:`argsort`."""
    x, axis, policy = _prepare(data, axis, nan_policy, missing)
    if x.dtype.kind == "O":
        return x[_object_argsort(x, policy)]
    k = sort_keys(x, policy)
    k.sort(axis=axis)
    removes = RULES[policy].removes
    if x.dtype.kind == "f":
        out = keys_to_values(k, x.dtype, NanPolicy.LARGEST if removes else policy)
        if removes:
            out = out[~np.isnan(out)]
        return out
    return keys_to_values(k, x.dtype, policy)


def rank(
    data: Any,
    *,
    axis: int = -1,
    method: str = "average",
    nan_policy: str | None = None,
    ascending: bool = True,
    pct: bool = False,
    missing: np.ndarray | None = None,
) -> np.ndarray:
    """Array core of :func:`nanaccess.rank` (documented there); ``missing`` as
    :func:`argsort`."""
    if method not in RANK_METHODS:
        raise ValueError(f"unknown rank method {method!r}; expected one of {RANK_METHODS}")
    x = _as_array(data)
    check_orderable(x.dtype)
    policy = sort_policy(nan_policy, missing)
    if x.ndim == 0:
        x = x.reshape(1)
    if x.size == 0:
        return np.zeros(x.shape, dtype=np.float64)
    xm = np.moveaxis(x, axis, -1)
    if xm.dtype.kind == "O":
        if xm.ndim != 1:
            raise ValueError("object arrays are ranked 1-D only")
        return _object_rank(xm, policy, method, ascending, pct)
    k = sort_keys(xm, policy)
    omit = RULES[policy].removes and xm.dtype.kind == "f"
    nan = np.isnan(xm) if omit else None
    if not ascending:
        k = ~k  # bitwise not reverses the integer order, one-to-one
        if omit and nan.any():
            k[nan] = np.iinfo(k.dtype).max  # omitted NaNs stay after every number
    k2 = k.reshape(-1, k.shape[-1]) if k.ndim else k.reshape(1, 1)
    order = np.argsort(k2, axis=1, kind="stable")
    gone = None
    if omit and not ascending and nan.any():
        # the reversed keys of -inf reach the integer maximum the omitted NaNs were
        # given: order by (NaN, key) so that the NaNs come after it, never tied with it
        n2 = nan.reshape(k2.shape)
        order = np.lexsort((k2, n2), axis=1)
        gone = np.take_along_axis(n2, order, axis=1)
    sk = np.take_along_axis(k2, order, axis=1)
    rows, n = sk.shape
    pos = np.broadcast_to(np.arange(n), (rows, n))
    new = np.ones((rows, n), dtype=bool)
    new[:, 1:] = sk[:, 1:] != sk[:, :-1]
    if gone is not None:
        new[:, 1:] |= gone[:, 1:] != gone[:, :-1]
    # first / last position of each tie group, per sorted position
    start = np.maximum.accumulate(np.where(new, pos, 0), axis=1)
    end_new = np.ones((rows, n), dtype=bool)
    end_new[:, :-1] = new[:, 1:]
    end = np.flip(np.minimum.accumulate(np.flip(np.where(end_new, pos, n), axis=1), axis=1),
                  axis=1)
    if method == "average":
        r = (start + end) / 2.0 + 1
    elif method == "min":
        r = start + 1.0
    elif method == "max":
        r = end + 1.0
    elif method == "first":
        r = pos + 1.0
    else:
        r = np.cumsum(new, axis=1).astype(np.float64)
    out = np.empty((rows, n), dtype=np.float64)
    np.put_along_axis(out, order, r, axis=1)
    out = out.reshape(k.shape)
    if omit and nan.any():
        out[nan] = np.nan
    if pct:
        if omit:
            cnt = np.maximum((~nan).sum(axis=-1, keepdims=True), 1)
        else:
            cnt = np.full(out.shape[:-1] + (1,), out.shape[-1])
        if method == "dense":
            with np.errstate(all="ignore"):
                cnt = np.fmax.reduce(out, axis=-1, keepdims=True)
        out = out / cnt
    return np.moveaxis(out, -1, axis)


def _object_rank(x: np.ndarray, policy: NanPolicy, method: str, ascending: bool,
                 pct: bool) -> np.ndarray:
    """Ranks of a 1-D object array (Decimal, Fraction, huge ints) on exact order keys."""
    vals = x.tolist()
    removes = RULES[policy].removes
    order = _object_argsort(x, NanPolicy.LARGEST if removes else policy)
    if removes:
        _object_argsort(x, policy)  # the policy's errors
        order = np.array([i for i in order if classify_object(vals[i])[0] == "number"],
                         dtype=np.intp)
    keys = object_sort_keys(vals, policy)
    sk = [keys[i] for i in order]
    if not ascending:
        order, sk = order[::-1], sk[::-1]
    n = len(order)
    out = np.full(len(vals), np.nan)
    if n == 0:
        return out
    new = np.ones(n, dtype=bool)
    new[1:] = [a != b for a, b in zip(sk[1:], sk[:-1], strict=True)]
    pos = np.arange(n)
    start = np.maximum.accumulate(np.where(new, pos, 0))
    end_new = np.ones(n, dtype=bool)
    end_new[:-1] = new[1:]
    end = np.minimum.accumulate(np.where(end_new, pos, n)[::-1])[::-1]
    r = {"average": (start + end) / 2.0 + 1, "min": start + 1.0, "max": end + 1.0,
         "first": pos + 1.0, "dense": np.cumsum(new).astype(np.float64)}[method]
    out[order] = r
    if pct:
        out = out / (r.max() if method == "dense" else n)
    return out
