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


def _parts(x: Any, y: Any) -> list[tuple[Any, Any]] | None:
    """Aligned (x, y) blocks as delayed objects, in order: chunks of dask arrays
    (``y`` rechunked like ``x``) or partitions of dask Series of equal divisions."""
    import dask.array as da

    if hasattr(x, "divisions") and hasattr(y, "divisions"):  # dask Series
        if x.npartitions != y.npartitions or x.divisions != y.divisions:
            raise ValueError("dask Series must share their partitions (divisions)")
        return list(zip(x.to_delayed(), y.to_delayed(), strict=True))
    x, y = da.asarray(x), da.asarray(y)
    if x.ndim != 1 or y.ndim != 1 or x.shape[0] != y.shape[0]:
        raise ValueError(f"x and y must be 1-D of one length, not {x.shape} and {y.shape}")
    y = y.rechunk(x.chunks)
    return list(zip(x.to_delayed().ravel(), y.to_delayed().ravel(), strict=True))


def _chunk(x: Any, y: Any):
    if hasattr(x, "array"):  # a pandas partition: nullable data keeps NA apart
        from ..pandas.dtypes import column_arrays

        cx, cy = column_arrays(x, x.name), column_arrays(y, y.name)
        return pair_partial(cx.values, cy.values, cx.missing, cy.missing)
    return pair_partial(x, y)


def _merge(*parts):
    return reduce(merge_partials, parts)


def _finish(p, stat: str, policy: str, ddof: Any, min_periods: Any) -> np.ndarray:
    val, miss = finish_partial(p, stat, NanPolicy(policy), ddof=ddof, min_periods=min_periods)
    return np.float64(val)


def _whole(xs, ys, stat, method, policy, ddof, min_periods) -> np.ndarray:
    x = np.concatenate([np.asarray(v) for v in xs])
    y = np.concatenate([np.asarray(v) for v in ys])
    val, _ = corr_pair(x, y, stat=stat, method=method, ddof=ddof,
                       min_periods=min_periods, nan_policy=NanPolicy(policy),
                       subjects=["x", "y"])
    return np.float64(val)


def dask_pair(stat: str, x: Any, y: Any, *, method: str = "pearson", ddof: Any = 1,
              min_periods: Any = None, nan_policy: Any = None) -> Any:
    """A 0-d dask array: the covariance / correlation of two 1-D dask arrays (or two
    dask Series of the same partitions).

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
    blocks = _parts(x, y)
    if stat == "corr" and method != "pearson":
        task = dask.delayed(_whole)([b[0] for b in blocks], [b[1] for b in blocks], stat,
                                    method, policy, ddof, min_periods)
        return da.from_delayed(task, shape=(), dtype=np.float64)
    parts = [dask.delayed(_chunk)(xb, yb) for xb, yb in blocks]
    while len(parts) > 1:  # a tree of merges, 8 at a time
        parts = [dask.delayed(_merge)(*parts[i:i + 8]) for i in range(0, len(parts), 8)]
    task = dask.delayed(_finish)(parts[0], stat, policy, ddof, min_periods)
    return da.from_delayed(task, shape=(), dtype=np.float64)
