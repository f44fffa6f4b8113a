"""sort / argsort / rank on keys (spec section 5): stable, bit-preserving.

What a policy means for a sort is read off :data:`nanaccess.core.policy.RULES`
(``can_sort``, ``nan_rank``, ``removes``); the errors come from
:func:`nanaccess.core.policy.raise_for` through the scan.
"""

from __future__ import annotations

import decimal
from typing import Any, cast

import numpy as np

from ..options import NanPolicy, resolve_policy
from .axes import Reduction
from .classify import values_and_missing
from .keys import float_keys, integer_keys, remap_keys
from .nanscan import scan_rows
from .objects import classify_object, object_order_stat, object_sort_keys
from .policy import RULES, raise_missing
from .select import check_orderable, keys_to_values

__all__ = ["sort_keys", "sort", "argsort", "rank", "SORT_DEFAULT", "RANK_DEFAULT"]

RANK_METHODS = ("average", "min", "max", "first", "dense")


#: the default policy of sort / argsort / sort_values (spec section 5): every NaN after
#: every number whatever its sign (x86 makes 0/0 negative), NaNs among themselves in
#: totalOrder, as NumPy, pandas and polars place them
SORT_DEFAULT = NanPolicy.LARGEST
#: the default policy of rank: a NaN ranks NaN (pandas' na_option="keep")
RANK_DEFAULT = NanPolicy.OMIT


def sort_policy(policy: Any, missing: np.ndarray | None = None, *,
                default: NanPolicy = SORT_DEFAULT) -> NanPolicy:
    """The resolved policy of a sort (None: ``default``, "largest" for sorts, "omit"
    for ranks; the ``nan_policy`` option does not govern them); a ``ValueError`` for a
    policy that cannot sort. ``missing`` (e.g. a masked array's mask) is checked
    first: a masked entry is missing, and "raise" says so (sorts keep no mask)."""
    policy = resolve_policy(default if policy is None else policy)
    if missing is not None:
        raise_missing(missing, policy)
    if not RULES[policy].can_sort:
        raise ValueError(
            f'nan_policy="{policy.value}" has no meaning for a sort; use "totalorder", '
            '"smallest", "largest", "omit" (1-D) or "raise"'
        )
    return cast("NanPolicy", policy)


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


def _split(data: Any, missing: np.ndarray | None) -> tuple[np.ndarray, np.ndarray | None, Any]:
    """(values, missing, masked) of sortable data: masked slots and NaT are missing
    (sorted last or dropped, never read as NaN); ``masked`` is the masked array a
    sort result is rebuilt as (None otherwise). Host arrays (pandas' nullable and
    Arrow columns) are split and rebuilt by :mod:`nanaccess.api`, not here."""
    masked = data if isinstance(data, np.ma.MaskedArray) else None
    vals, missing = values_and_missing(data, missing)
    x = _as_array(vals)
    if x.dtype.kind in "mM":
        nat = np.isnat(x)
        if nat.any():
            missing = nat if missing is None else (missing | nat)
    if missing is not None and missing.shape != x.shape:
        missing = np.broadcast_to(missing, x.shape)
    return x, missing, masked


def _prepare(data: Any, axis: Any, policy: Any, missing: Any) -> Any:
    x, missing, masked = _split(data, missing)
    check_orderable(x.dtype)
    policy = sort_policy(policy, missing)
    if RULES[policy].removes and x.ndim > 1 and axis is not None:
        raise ValueError('nan_policy="omit" drops values, so it sorts 1-D data only; '
                         'use "largest" to put NaNs last')
    if axis is None or x.ndim == 0:
        x = x.ravel()
        missing = None if missing is None else missing.ravel()
        axis = -1
    return x, axis, policy, missing, masked


def _filled(x: np.ndarray, missing: np.ndarray) -> np.ndarray:
    """x with its missing slots set to zero (their bits are never read)."""
    x = x.copy()
    x[missing] = None if x.dtype.kind == "O" else 0
    return x


def _missing_last_order(x: np.ndarray, axis: int, policy: NanPolicy,
                        missing: np.ndarray) -> np.ndarray:
    """Stable order with every missing slot after the values (dropped under "omit")."""
    removes = RULES[policy].removes
    if x.dtype.kind == "O" or x.ndim == 1:
        pos = np.flatnonzero(~missing)
        order = pos[_order(x[pos], -1, policy)]
        return order if removes else np.concatenate([order, np.flatnonzero(missing)])
    k = sort_keys(_filled(x, missing), policy)
    return np.lexsort((k, missing), axis=axis)


def _order(x: np.ndarray, axis: int, policy: NanPolicy) -> np.ndarray:
    if x.dtype.kind == "O":
        return object_argsort(x, policy)
    order = np.argsort(sort_keys(x, policy), axis=axis, kind="stable")
    if RULES[policy].removes and x.dtype.kind == "f":
        order = order[~np.isnan(x[order])]
    return order


def object_argsort(x: np.ndarray, policy: NanPolicy, ascending: bool = True) -> np.ndarray:
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
            missing: np.ndarray | None = None) -> Any:
    """Array core of :func:`nanaccess.argsort` (documented there); ``missing``: a
    mask of missing entries (checked against the policy, see :func:`sort_policy`).
    Missing entries (masked, nullable / Arrow slots, NaT) come last, or are dropped
    under a policy that removes values. A dask array gives a lazy dask array."""
    x, axis, policy, missing, _ = _prepare(data, axis, nan_policy, missing)
    if missing is not None:
        return _missing_last_order(x, axis, policy, missing)
    return _order(x, axis, policy)


def sort(data: Any, *, axis: int | None = -1, nan_policy: str | None = None,
         missing: np.ndarray | None = None) -> Any:
    """Array core of :func:`nanaccess.sort` (documented there); ``missing`` as
    :func:`argsort`. A masked array comes back masked (missing last); a dask array a
    lazy dask array."""
    x, axis, policy, missing, masked = _prepare(data, axis, nan_policy, missing)
    if missing is not None or masked is not None:
        miss = np.zeros(x.shape, bool) if missing is None else missing
        order = (_missing_last_order(x, axis, policy, miss) if missing is not None
                 else _order(x, axis, policy))
        if x.ndim == 1:
            vals, m = x[order], miss[order]
        else:
            vals = np.take_along_axis(x, order, axis=axis)
            m = np.take_along_axis(miss, order, axis=axis)
        if masked is not None:
            return np.ma.MaskedArray(vals, mask=m)
        return vals  # NaT: missing, and representable in the values
    if x.dtype.kind == "O":
        return x[object_argsort(x, policy)]
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
    x, missing, _ = _split(data, missing)
    check_orderable(x.dtype)
    policy = sort_policy(nan_policy, missing, default=RANK_DEFAULT)
    if x.ndim == 0:
        x = x.reshape(1)
        missing = None if missing is None else missing.reshape(1)
    if x.size == 0:
        return np.zeros(x.shape, dtype=np.float64)
    xm = np.moveaxis(x, axis, -1)
    miss = None if missing is None else np.moveaxis(missing, axis, -1)
    removes = RULES[policy].removes
    if xm.dtype.kind == "O":
        if xm.ndim != 1:
            raise ValueError("object arrays are ranked 1-D only")
        if miss is not None:
            xm = _filled(xm, miss)  # None: the object path's missing value
        return _object_rank(xm, policy, method, ascending, pct)
    k = sort_keys(xm if miss is None else _filled(xm, miss), policy)
    omit = removes and xm.dtype.kind == "f"
    nan = np.isnan(xm) if omit else np.zeros(xm.shape, bool)
    if miss is not None:
        nan = nan & ~miss
    # last: ordered after every value, in their own tie group (missing always; NaN when
    # the policy omits it); dropped: given a NaN rank
    last = nan if miss is None else (nan | miss)
    drop = last if removes else nan
    if not ascending:
        k = ~k  # bitwise not reverses the integer order, one-to-one
    k2 = k.reshape(-1, k.shape[-1]) if k.ndim else k.reshape(1, 1)
    order = np.argsort(k2, axis=1, kind="stable")
    gone = None
    if last.any():
        # order by (last, key): NaNs / missing after every number, never tied with one
        n2 = last.reshape(k2.shape)
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
    r: np.ndarray
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
    if drop.any():
        out[drop] = np.nan
    if pct:
        if drop.any():
            cnt = np.maximum((~drop).sum(axis=-1, keepdims=True), 1)
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
    order = object_argsort(x, NanPolicy.LARGEST if removes else policy)
    if removes:
        object_argsort(x, policy)  # the policy's errors
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
