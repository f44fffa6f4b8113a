"""Lazy covariance and correlation of dask arrays (``nanaccess.cov`` / ``corr``).

Pearson and covariance: one task per chunk pair computes the exact partial sums
(:func:`nanaccess.core.bivariate.partials.pair_partial`, positions shifted to the
whole array), partials merge exactly as a tree and the last task rounds once: the
result equals the in-memory one bit for bit, and "raise" raises when computed, naming
the first position in the whole array. Spearman and Kendall need every value at once:
one task over the whole arrays (still lazy).
"""

from __future__ import annotations

from functools import reduce
from typing import Any

import numpy as np

from ..core.bivariate import corr_pair
from ..core.bivariate.partials import finish_partial, merge_partials, pair_partial
from ..options import NanPolicy, resolve_policy

__all__ = ["dask_pair"]


def _as_array(x: Any) -> Any:
    import dask.array as da

    if isinstance(x, da.Array):
        return x
    if hasattr(x, "to_dask_array"):  # dask Series
        return x.to_dask_array(lengths=True)
    return da.asarray(x)


def _chunk(x: np.ndarray, y: np.ndarray, offset: int):
    return pair_partial(x, y, offset=offset)


def _merge(*parts):
    return reduce(merge_partials, parts)


def _finish(p, stat: str, policy: str, ddof: Any, min_periods: Any) -> np.ndarray:
    val, miss = finish_partial(p, stat, NanPolicy(policy), ddof=ddof, min_periods=min_periods)
    return np.float64(val)


def _whole(x, y, stat, method, policy, ddof, min_periods) -> np.ndarray:
    val, _ = corr_pair(np.asarray(x), np.asarray(y), stat=stat, method=method, ddof=ddof,
                       min_periods=min_periods, nan_policy=NanPolicy(policy),
                       subjects=["x", "y"])
    return np.float64(val)


def dask_pair(stat: str, x: Any, y: Any, *, method: str = "pearson", ddof: Any = 1,
              min_periods: Any = None, nan_policy: Any = None) -> Any:
    """A 0-d dask array: the covariance / correlation of two 1-D dask arrays.

    Examples
    --------
    >>> import numpy as np, dask.array as da
    >>> x = da.from_array(np.array([1.0, 2.0, np.nan, 4.0]), chunks=2)
    >>> float(dask_pair("corr", x, 3 * x + 1e7, nan_policy="omit").compute())
    1.0
    """
    import dask
    import dask.array as da

    if y is None:
        raise ValueError("dask inputs need two 1-D arrays (x, y)")
    policy = resolve_policy(nan_policy).value
    x, y = _as_array(x), _as_array(y)
    if x.ndim != 1 or y.ndim != 1 or x.shape[0] != y.shape[0]:
        raise ValueError(f"x and y must be 1-D of one length, not {x.shape} and {y.shape}")
    y = y.rechunk(x.chunks)
    if stat == "corr" and method != "pearson":
        task = dask.delayed(_whole)(x, y, stat, method, policy, ddof, min_periods)
        return da.from_delayed(task, shape=(), dtype=np.float64)
    offsets = np.concatenate([[0], np.cumsum(x.chunks[0])[:-1]]).tolist()
    parts = [dask.delayed(_chunk)(xb, yb, off) for xb, yb, off in
             zip(x.to_delayed().ravel(), y.to_delayed().ravel(), offsets, strict=True)]
    while len(parts) > 1:  # a tree of merges, 8 at a time
        parts = [dask.delayed(_merge)(*parts[i:i + 8]) for i in range(0, len(parts), 8)]
    task = dask.delayed(_finish)(parts[0], stat, policy, ddof, min_periods)
    return da.from_delayed(task, shape=(), dtype=np.float64)
