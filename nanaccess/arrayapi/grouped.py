"""Grouped order statistics of array-API data: one sort by (group, key) on the device.

float32 keys and the group codes fit one int64 (codes in the high 32 bits), so one
sort orders every group; float64 keys take two (by key, then a stable sort by code).
In the sorted keys each group is a segment found by :func:`searchsorted`; within it
negative NaNs come first and positive NaNs last (totalOrder), so the policy's ranks
map to positions with counts alone, and only the selected keys reach the host, where
the NumPy core's :func:`~nanaccess.core.plan.rank_plan`, ``combine`` and ``finish``
make the values (the bits of :func:`nanaccess.core.grouped.grouped_reduce`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _stats
from ..core.bits import layout_of
from ..core.grouped import grouped_reduce
from ..core.interp import validate_q
from ..core.keys import keys_to_float
from ..core.plan import combine, rank_plan
from ..core.policy import RULES, finish
from ..core.select import Placed
from ..options import NanPolicy, resolve_policy
from ._shim import from_numpy, namespace, np_dtype, to_numpy
from .common import DEVICE_DTYPES, survey
from .order import HostNeeded

__all__ = ["grouped_order_xp", "sort_by_group"]

_ORDER = frozenset(s for s in _stats.names("order") if s in _stats.GROUPED)


def sort_by_group(keys: Any, codes: Any, xp: Any, ngroups: int, width: int) -> tuple[Any, Any]:
    """``(keys, codes)`` sorted by group code, then by key (codes < 0 last)."""
    codes = xp.astype(codes, xp.int64)
    codes = xp.where(codes < 0, xp.full_like(codes, ngroups), codes)
    if width == 32:
        composite = codes * (1 << 32) + (xp.astype(keys, xp.int64) + (1 << 31))
        composite = xp.sort(composite)
        return xp.astype((composite & 0xFFFFFFFF) - (1 << 31), xp.int32), composite >> 32
    gbits = int(ngroups).bit_length()
    if gbits <= 24:
        return _sort_by_prefix(keys, codes, xp, gbits)
    return _sort_two_passes(keys, codes, xp, ngroups)


def _sort_two_passes(keys: Any, codes: Any, xp: Any, ngroups: int) -> tuple[Any, Any]:
    """By key, then a stable sort by code: exact for any keys and codes."""
    order = xp.argsort(keys)
    c1 = xp.take(codes, order, axis=0)
    narrow = xp.astype(c1, xp.int32) if ngroups < 2**31 - 1 else c1  # fewer radix passes
    o2 = xp.argsort(narrow, stable=True)
    return xp.take(xp.take(keys, order, axis=0), o2, axis=0), xp.take(c1, o2, axis=0)


def _sort_by_prefix(keys: Any, codes: Any, xp: Any, gbits: int) -> tuple[Any, Any]:
    """One sort of ``code << p | top p bits of the key`` (``p = 63 - gbits``), then the
    runs of equal composites (keys differing only in their dropped low bits, or equal:
    NaNs of one payload, ties) sorted exactly by the two-pass sort of that subset."""
    p = 63 - gbits
    composite = (codes << p) | ((keys >> (64 - p)) + (1 << (p - 1)))
    order = xp.argsort(composite)
    comp = xp.take(composite, order, axis=0)
    out = xp.take(keys, order, axis=0)
    gcodes = comp >> p
    n = comp.shape[0]
    if n < 2:
        return out, gcodes
    same = comp[1:] == comp[:-1]
    if not bool(to_numpy(xp.any(same))):
        return out, gcodes
    edge = xp.zeros_like(same[:1])  # on the data's device (torch: not the CPU)
    tied = xp.concat([same, edge]) | xp.concat([edge, same])
    idx = xp.nonzero(tied)[0]
    sub = xp.take(out, idx, axis=0)
    # each run is one composite: sort the subset by key, then stably by composite
    o1 = xp.argsort(sub)
    o2 = xp.argsort(xp.take(xp.take(comp, idx, axis=0), o1, axis=0), stable=True)
    fixed = xp.take(xp.take(sub, o1, axis=0), o2, axis=0)
    return _scatter(out, idx, fixed, xp), gcodes


def _scatter(dest: Any, idx: Any, values: Any, xp: Any) -> Any:
    """``dest`` (a fresh array) with ``values`` at the sorted positions ``idx``; where
    the library's arrays take no integer-array assignment (``array_api_strict``,
    JAX), a new array made by a sorted search."""
    try:
        dest[idx] = values
        return dest
    except (TypeError, NotImplementedError, IndexError, ValueError):
        pos = xp.arange(dest.shape[0], dtype=idx.dtype)
        at = xp.searchsorted(idx, pos)
        at = xp.where(at < idx.shape[0], at, xp.zeros_like(at))
        hit = xp.take(idx, at, axis=0) == pos
        return xp.where(hit, xp.take(values, at, axis=0), dest)


def _segment_counts(flag: Any, xp: Any, starts: np.ndarray, ends: np.ndarray,
                    like: Any) -> np.ndarray:
    """How many ``flag`` entries each segment ``[starts, ends)`` holds."""
    c = xp.cumulative_sum(xp.astype(flag, xp.int64), include_initial=True)
    idx = from_numpy(np.concatenate([starts, ends]), like=like)
    got = to_numpy(xp.take(c, idx, axis=0)).astype(np.int64)
    return got[starts.size:] - got[:starts.size]


def grouped_order_xp(x: Any, codes: Any, ngroups: int, stat: str, *,
                     policy: NanPolicy | str | None = None, q: Any = None,
                     method: str = "linear") -> Any:
    """Per-group order statistic of 1-D array-API ``x`` grouped by ``codes``.

    The values of :func:`nanaccess.core.grouped.grouped_reduce` (``.values``: the
    quantiles first, then the groups; NaN for a group with nothing left), as an array of
    ``x``'s namespace on its device, bit for bit.

    Parameters
    ----------
    x : array
        1-D float32/float64 data of a library implementing the array API standard
        (other dtypes: the NumPy core on the host).
    codes : array
        1-D integer group codes in ``[0, ngroups)``; negative codes drop the row.
    ngroups : int
    stat : {"median", "median_low", "median_high", "quantile", "min", "max"}
    policy : nan_policy, optional
    q, method : as :func:`nanaccess.quantile`.

    Examples
    --------
    >>> import array_api_strict as xp
    >>> x = xp.asarray([1.0, 5.0, float("nan"), 2.0, 4.0])
    >>> g = xp.asarray([0, 0, 0, 1, 1])
    >>> grouped_order_xp(x, g, 2, "median", policy="omit")
    Array([3., 3.], dtype=array_api_strict.float64)
    """
    policy = resolve_policy(policy)
    if stat not in _ORDER:
        raise ValueError(f"{stat!r} is not a grouped order statistic; expected one of "
                         f"{sorted(_ORDER)}")
    params = {"q": q, "method": method} if stat in _stats.QUANTILES else {}
    try:
        values = _grouped(x, codes, ngroups, stat, policy, q, method)
    except HostNeeded:
        values = grouped_reduce(to_numpy(x), to_numpy(codes), ngroups, stat, policy=policy,
                                **params).values
    return from_numpy(np.asarray(values), like=x)


def _grouped(x: Any, codes: Any, ngroups: Any, stat: Any, policy: Any, q: Any,
             method: Any) -> np.ndarray:
    xp = namespace(x)
    dtype = np_dtype(x).newbyteorder("=")
    if dtype not in DEVICE_DTYPES or x.ndim != 1 or ngroups == 0:
        raise HostNeeded("the NumPy core")
    r = RULES[policy]
    sv = survey(xp.reshape(x, (1, -1)), xp)
    if sv.has_nan and (r.nan_raises or (sv.signaling and not r.signaling_allowed)):
        raise HostNeeded("the policy raises")
    lay = layout_of(dtype)
    keys, gcodes = sort_by_group(xp.reshape(sv.keys, (-1,)), codes, xp, ngroups, lay.bits)
    groups = from_numpy(np.arange(ngroups, dtype=np.int64), like=x)
    starts = to_numpy(xp.searchsorted(gcodes, groups)).astype(np.int64)
    ends = to_numpy(xp.searchsorted(gcodes, groups, side="right")).astype(np.int64)
    cnt = ends - starts
    zero = np.zeros(ngroups, np.int64)
    nneg = npos = zero
    if sv.has_nan:
        first, last = lay.int_min + lay.nan_per_sign, lay.int_max - lay.nan_per_sign
        nneg = _segment_counts(keys < first, xp, starts, ends, x)
        npos = _segment_counts(keys > last, xp, starts, ends, x)
    q_arr = validate_q(q) if stat in _stats.QUANTILES else None
    prop = None
    if not r.orders_nans:  # omit / propagate: the numbers lie between the NaN blocks
        m = cnt - nneg - npos
        offset = starts + nneg
        placed = Placed(None, m, zero, None)
        if r.propagates and sv.has_nan:  # the greatest NaN: the last positive, else negative
            pick = np.where(npos > 0, ends - 1, starts + nneg - 1)
            prop = _take(keys, xp, np.where(nneg + npos > 0, pick, 0), x)
    else:
        m = cnt
        offset = starts
        placed = Placed(None, cnt, zero, None, policy, nneg, npos) \
            if r.nan_rank in ("first", "last") and sv.has_nan else Placed(None, cnt, zero, None)
    plan = rank_plan(stat, m, q_arr, method)
    ranks = placed.key_ranks(plan.ranks)
    nq = plan.lo.shape[0]
    empty = m == 0
    pos = np.where(empty[None, :], 0, offset[None, :] + ranks)
    sel = _take(keys, xp, pos.reshape(-1), x).reshape(pos.shape)
    a = placed.values(sel[:nq], dtype)
    vals = combine(plan, a, None if plan.mode == "pick" else placed.values(sel[nq:], dtype))
    nan_rows = nan_values = None
    if prop is not None:
        nan_rows = ((nneg + npos) > 0)[None, :]
        nan_values = keys_to_float(prop, dtype)[None, :]
    if empty.any() or nan_rows is not None:
        vals, _ = finish(vals, stat, empty=empty[None, :], nan_rows=nan_rows,
                         nan_values=nan_values)
    vals = vals.astype(np.float64) if vals.dtype.kind != "f" else vals
    if q_arr is None or q_arr.ndim == 0:
        return vals.reshape(ngroups)
    return vals.reshape(q_arr.shape + (ngroups,))  # quantiles first, as grouped_reduce


def _take(keys: Any, xp: Any, idx: np.ndarray, like: Any) -> np.ndarray:
    if keys.shape[0] == 0:
        return np.zeros(idx.shape, dtype=np_dtype(keys))
    return to_numpy(xp.take(keys, from_numpy(idx.astype(np.int64), like=like), axis=0))
