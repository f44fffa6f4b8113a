"""Cumulative statistics within groups: ``df.groupby(k).nanstats.cumsum()``.

The rows of each group, in their order, become one row of a padded matrix; the
statistic runs along the rows (:func:`.scan.cumulative`: a running statistic never
looks ahead, so the padding after a group's last value changes nothing) and the
results return to the rows' places ("omit" sums and extremes of floats run instead
in one compiled pass with a state per group). Groups are padded in buckets of similar length
(lengths within a factor of two), so the padding stays below the data's size and the
work is a loop over buckets, never over groups. The policy's errors are raised first
by the grouped scan, naming the group and the row.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...options import NanPolicy, resolve_policy
from .. import _numba as nb
from ..grouped.common import scan
from ..policy import RULES
from .prefix import signaling_args
from .scan import cumulative

__all__ = ["grouped_cumulative"]


def _fits(x: np.ndarray, stat: str, policy: NanPolicy, miss: np.ndarray | None) -> bool:
    """Whether :func:`_one_pass` serves (it then flags signaling NaNs itself)."""
    rules = RULES[policy]
    return not (miss is not None or x.dtype.kind != "f" or not rules.removes
                or rules.orders_nans or stat not in ("cumsum", "cummax", "cummin")
                or not x.dtype.isnative or x.dtype.itemsize < 4  # numba: no float16
                or (stat == "cumsum" and x.dtype != np.float64)
                or nb.choose_engine(size=x.size, min_size=64) != "numba")


def _one_pass(x: np.ndarray, codes: np.ndarray, ngroups: int, stat: str,
              sig: np.ndarray) -> np.ndarray | None:
    """"omit" on float data without missing values (:func:`_fits`): ``cumsum``
    (float64), ``cummax``, ``cummin`` in one compiled pass over the rows with a state
    per group (no sort); None when numba fails or a group needs the exact reference.
    ``sig[0]`` is set when a signaling NaN was passed over (the caller raises)."""
    v = np.ascontiguousarray(x)
    out = np.empty_like(v)
    try:
        k = nb.kernels("cumulative")
        if stat == "cumsum":
            bad = np.zeros(max(ngroups, 1), np.int64)
            k["grouped_prefix"](v, codes, ngroups, out, bad, *signaling_args(v, sig))
            if bad.any():
                return None
        else:
            k["grouped_extreme"](v, codes, ngroups, out, stat == "cummax",
                                 *signaling_args(v, sig))
    except Exception as err:  # numba failed: the NumPy engine, from now on
        nb.fallback(err)
        return None
    return out


def grouped_cumulative(x: Any, codes: Any, ngroups: int, stat: str, *,
                       policy: NanPolicy | str | None = None,
                       missing: Any = None) -> tuple[np.ndarray, np.ndarray | None]:
    """``stat`` running within each group of the 1-D ``x`` (rows of code -1: NaN, or
    missing for a nullable column): ``(values, missing)`` of ``x``'s length.

    Examples
    --------
    >>> x = np.array([1.0, 10.0, np.nan, 2.0, 20.0])
    >>> grouped_cumulative(x, np.array([0, 1, 0, 0, 1]), 2, "cumsum", policy="omit")[0]
    array([ 1., 10., nan,  3., 30.])
    """
    policy = resolve_policy(policy)
    x = np.asarray(x)
    codes = np.asarray(codes).astype(np.intp, copy=False)
    miss = None if missing is None else np.asarray(missing, bool)
    fused = _fits(x, stat, policy, miss)  # "omit": the compiled pass flags signaling NaNs
    if not fused:
        scan(x[:, None], codes, policy, None if miss is None else miss[:, None], True)
    else:
        sig = np.zeros(1, np.int64)
        fast = _one_pass(x, codes, ngroups, stat, sig)
        if fast is None or sig[0]:
            scan(x[:, None], codes, policy, None, True)  # raises a signaling NaN
        if fast is not None:
            return fast, None
    n = x.size
    ingroup = codes >= 0
    order = np.argsort(np.where(ingroup, codes, ngroups), kind="stable")
    order = order[:np.count_nonzero(ingroup)]
    g = codes[order]
    sizes = np.bincount(g, minlength=ngroups)
    starts = np.concatenate([[0], np.cumsum(sizes)])
    rank = np.arange(order.size) - starts[g]
    out = None
    out_miss = np.zeros(n, bool) if miss is not None else None
    # buckets of groups whose lengths share a power of two: bounded padding
    bucket = np.zeros(ngroups, np.int64)
    bucket[:] = np.ceil(np.log2(np.maximum(sizes, 1))).astype(np.int64)
    for b in np.unique(bucket[sizes > 0]).tolist():  # at most log2(n) buckets
        grp = np.flatnonzero((bucket == b) & (sizes > 0))
        width = int(sizes[grp].max())
        slot = np.full(ngroups, -1, np.int64)
        slot[grp] = np.arange(grp.size)
        sel = slot[g] >= 0
        rows_at = slot[g[sel]]
        cols_at = rank[sel]
        src = order[sel]
        pad = np.zeros((grp.size, width), x.dtype)
        pad[rows_at, cols_at] = x[src]
        pmiss = np.ones((grp.size, width), bool)  # the padding is missing (never read)
        pmiss[rows_at, cols_at] = False if miss is None else miss[src]
        # the scan above raised what "raise" refuses; the padding must not raise
        run = NanPolicy.OMIT if policy == NanPolicy.RAISE else policy
        vals, vmiss = cumulative(pad, stat, axis=1, policy=run, missing=pmiss)
        if out is None:
            out = np.full(n, np.nan, vals.dtype if vals.dtype.kind == "f" else np.float64)
            if vals.dtype.kind in "iu" and ingroup.all():
                out = np.zeros(n, vals.dtype)
        if out.dtype != vals.dtype and out.dtype.kind != "f":
            out = out.astype(np.float64)
        out[src] = vals[rows_at, cols_at]
        if out_miss is not None and vmiss is not None:
            out_miss[src] = vmiss[rows_at, cols_at]
    if out is None:
        out = np.full(n, np.nan)
    if out_miss is not None:
        out_miss |= ~ingroup
        if not out_miss.any():
            out_miss = None
    return out, out_miss
