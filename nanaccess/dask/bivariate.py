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

__all__ = ["DaskFrameBivariate", "DaskSeriesBivariate", "dask_frame", "dask_pair"]


def _parts(x: Any, y: Any) -> list[tuple[Any, Any]]:
    """Aligned (x, y) blocks as delayed objects, in order: chunks of dask arrays
    (``y`` rechunked like ``x``) or partitions of dask Series of equal divisions."""
    from .typed_dask import asarray

    if hasattr(x, "divisions") and hasattr(y, "divisions"):  # dask Series
        if x.npartitions != y.npartitions or x.divisions != y.divisions:
            raise ValueError("dask Series must share their partitions (divisions)")
        return list(zip(x.to_delayed(), y.to_delayed(), strict=True))
    x, y = asarray(x), asarray(y)
    if x.ndim != 1 or y.ndim != 1 or x.shape[0] != y.shape[0]:
        raise ValueError(f"x and y must be 1-D of one length, not {x.shape} and {y.shape}")
    y = y.rechunk(x.chunks)
    return list(zip(x.to_delayed().ravel(), y.to_delayed().ravel(), strict=True))


def _chunk(x: Any, y: Any) -> Any:
    if hasattr(x, "array"):  # a pandas partition: nullable data keeps NA apart
        from ..pandas.dtypes import column_arrays

        cx, cy = column_arrays(x, x.name), column_arrays(y, y.name)
        return pair_partial(cx.values, cy.values, cx.missing, cy.missing)
    return pair_partial(x, y)


def _merge(*parts: Any) -> Any:
    return reduce(merge_partials, parts)


def _finish(p: Any, stat: str, policy: str, ddof: Any, min_periods: Any) -> np.float64:
    val, miss = finish_partial(p, stat, NanPolicy(policy), ddof=ddof, min_periods=min_periods)
    return np.float64(val)


def _whole(xs: Any, ys: Any, stat: Any, method: Any, policy: Any, ddof: Any,
           min_periods: Any) -> np.float64:
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
    from .typed_dask import delayed, from_delayed

    if y is None:
        raise ValueError("dask inputs need two 1-D arrays (x, y)")
    policy = resolve_policy(nan_policy).value
    blocks = _parts(x, y)
    if stat == "corr" and method != "pearson":
        task = delayed(_whole)([b[0] for b in blocks], [b[1] for b in blocks], stat,
                                    method, policy, ddof, min_periods)
        return from_delayed(task, shape=(), dtype=np.float64)
    parts = [delayed(_chunk)(xb, yb) for xb, yb in blocks]
    while len(parts) > 1:  # a tree of merges, 8 at a time
        parts = [delayed(_merge)(*parts[i:i + 8]) for i in range(0, len(parts), 8)]
    task = delayed(_finish)(parts[0], stat, policy, ddof, min_periods)
    return from_delayed(task, shape=(), dtype=np.float64)


# ------------------------------------------------------------------ dask DataFrames

def _frame_partials(part: Any, numeric_only: bool) -> list[Any]:
    """The exact partials of every pair ``i <= j`` of one partition's columns."""
    from ..core.bivariate import all_pairs
    from ..pandas.bivariate import frame_columns

    _, cols = frame_columns(part, numeric_only)
    return [pair_partial(cols[i].values, cols[j].values, cols[i].missing, cols[j].missing)
            for i, j in all_pairs(len(cols)).tolist()]


def _merge_lists(*lists: list[Any]) -> list[Any]:
    return [reduce(merge_partials, ps) for ps in zip(*lists, strict=True)]


def _finish_frame(parts: list[Any], names: list[Any], stat: str, policy: str, ddof: Any,
                  min_periods: Any) -> Any:
    import pandas as pd

    from ..core.bivariate import all_pairs
    from ..pandas.columns import subject_of

    k = len(names)
    out = np.full((k, k), np.nan)
    for p, (i, j) in zip(parts, all_pairs(k).tolist(), strict=True):
        val, _ = finish_partial(p, stat, NanPolicy(policy), ddof=ddof, min_periods=min_periods,
                                subjects=(subject_of(names[i]), subject_of(names[j])))
        out[i, j] = out[j, i] = val
    return pd.DataFrame(out, index=pd.Index(names), columns=pd.Index(names))


def _whole_frame(parts: list[Any], stat: str, kw: dict[str, Any]) -> Any:
    import pandas as pd

    import nanaccess.pandas  # noqa: F401  (registers .nanstats)

    return getattr(pd.concat(parts).nanstats, stat)(**kw)


def dask_frame(stat: str, ddf: Any, *, method: str = "pearson", ddof: Any = 1,
               min_periods: Any = None, numeric_only: bool = False,
               nan_policy: Any = None) -> Any:
    """A lazy dask DataFrame: the covariance / correlation matrix of the columns of a
    dask DataFrame, as ``ddf.cov()`` / ``ddf.corr()``, equal bit for bit to the
    in-memory ``df.nanstats`` result (exact partials per partition and pair, merged
    as a tree; Spearman and Kendall: one task over the whole frame).

    Examples
    --------
    >>> import numpy as np, pandas as pd, dask.dataframe as dd
    >>> df = pd.DataFrame({"a": [1.0, 2.0, np.nan, 4.0], "b": [3.0, 5.0, 1.0, 9.0]})
    >>> ddf = dd.from_pandas(df, npartitions=2)
    >>> dask_frame("corr", ddf, nan_policy="omit").compute().loc["a", "b"]
    np.float64(1.0)
    """
    import dask.dataframe as dd
    import pandas as pd

    from ..pandas.bivariate import frame_columns
    from .typed_dask import delayed

    policy = resolve_policy(nan_policy).value
    names, _ = frame_columns(ddf._meta, numeric_only)
    meta = pd.DataFrame(np.empty((0, len(names))), columns=pd.Index(names))
    blocks = ddf.to_delayed()
    if stat == "corr" and method != "pearson":
        kw = {"method": method, "min_periods": 1 if min_periods is None else min_periods,
              "numeric_only": numeric_only, "nan_policy": policy}
        task = delayed(_whole_frame)(blocks, stat, kw)
        return dd.from_delayed([task], meta=meta, verify_meta=False)
    parts = [delayed(_frame_partials)(b, numeric_only) for b in blocks]
    while len(parts) > 1:  # a tree of merges, 8 at a time
        parts = [delayed(_merge_lists)(*parts[i:i + 8]) for i in range(0, len(parts), 8)]
    task = delayed(_finish_frame)(parts[0], names, stat, policy, ddof, min_periods)
    return dd.from_delayed([task], meta=meta, verify_meta=False)


class DaskSeriesBivariate:
    """``dask Series.nanstats.corr(other)`` / ``cov(other)``: lazy dask Scalars."""

    _obj: Any

    def corr(self, other: Any, method: str = "pearson", min_periods: int | None = None, *,
             nan_policy: Any = None) -> Any:
        """Correlation with ``other`` (a dask Series of the same partitions), as
        ``Series.corr``, exact (see :meth:`pandas.Series.nanstats.corr`).

        Parameters
        ----------
        other : dask.dataframe.Series
        method : {"pearson", "spearman", "kendall"}
        min_periods : int, optional
        nan_policy : str, optional

        Returns
        -------
        dask Scalar

        Examples
        --------
        >>> import numpy as np, pandas as pd, dask.dataframe as dd, nanaccess.dask
        >>> s = dd.from_pandas(pd.Series([1.0, 2.0, np.nan, 4.0]), npartitions=2)
        >>> float(s.nanstats.corr(3 * s + 1e7, nan_policy="omit").compute())
        1.0
        """
        from .scalars import scalar as _scalar

        return _scalar(dask_pair("corr", self._obj, other, method=method,
                                 min_periods=min_periods, nan_policy=nan_policy))

    def cov(self, other: Any, min_periods: int | None = None, ddof: int = 1, *,
            nan_policy: Any = None) -> Any:
        """Covariance with ``other``, as ``Series.cov``, correctly rounded.

        Parameters
        ----------
        other : dask.dataframe.Series
        min_periods : int, optional
        ddof : int, default 1
        nan_policy : str, optional

        Returns
        -------
        dask Scalar

        Examples
        --------
        >>> import pandas as pd, dask.dataframe as dd, nanaccess.dask
        >>> s = dd.from_pandas(pd.Series([1.0, 2.0, 4.0]), npartitions=2)
        >>> float(s.nanstats.cov(s, nan_policy="omit").compute())
        2.333333333333333
        """
        from .scalars import scalar as _scalar

        return _scalar(dask_pair("cov", self._obj, other, ddof=ddof, min_periods=min_periods,
                                 nan_policy=nan_policy))


class DaskFrameBivariate:
    """``ddf.nanstats.corr()`` / ``cov()``: lazy matrices (:func:`dask_frame`)."""

    _obj: Any

    def corr(self, method: str = "pearson", min_periods: int = 1, numeric_only: bool = False,
             *, nan_policy: Any = None) -> Any:
        """Pairwise correlation of columns, as ``DataFrame.corr``, lazy and exact.

        Parameters
        ----------
        method : {"pearson", "spearman", "kendall"}, default "pearson"
        min_periods : int, default 1
        numeric_only : bool, default False
        nan_policy : str, optional

        Returns
        -------
        dask.dataframe.DataFrame

        Examples
        --------
        >>> import numpy as np, pandas as pd, dask.dataframe as dd, nanaccess.dask
        >>> df = pd.DataFrame({"a": [1.0, 2.0, np.nan, 4.0], "b": [2.0, 4.0, 1.0, 8.0]})
        >>> dd.from_pandas(df, npartitions=2).nanstats.corr(nan_policy="omit").compute()
             a    b
        a  1.0  1.0
        b  1.0  1.0
        """
        return dask_frame("corr", self._obj, method=method, min_periods=min_periods,
                          numeric_only=numeric_only, nan_policy=nan_policy)

    def cov(self, min_periods: int | None = None, ddof: int = 1, numeric_only: bool = False,
            *, nan_policy: Any = None) -> Any:
        """Pairwise covariance of columns, as ``DataFrame.cov``, lazy, correctly rounded.

        Parameters
        ----------
        min_periods : int, optional
        ddof : int, default 1
        numeric_only : bool, default False
        nan_policy : str, optional

        Returns
        -------
        dask.dataframe.DataFrame

        Examples
        --------
        >>> import pandas as pd, dask.dataframe as dd, nanaccess.dask
        >>> df = pd.DataFrame({"a": [1.0, 2.0, 4.0], "b": [1.0, 0.0, 2.0]})
        >>> dd.from_pandas(df, npartitions=2).nanstats.cov(nan_policy="omit").compute()
                  a    b
        a  2.333333  1.0
        b  1.000000  1.0
        """
        return dask_frame("cov", self._obj, ddof=ddof, min_periods=min_periods,
                          numeric_only=numeric_only, nan_policy=nan_policy)
