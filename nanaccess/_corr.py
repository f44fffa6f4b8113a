"""The plain functions ``nanaccess.cov`` and ``nanaccess.corr``.

Arrays go to :func:`nanaccess.core.bivariate.pairwise`; pandas objects to their
``.nanstats`` accessors; xarray DataArrays to :func:`nanaccess.xarray.bivariate.corr`
(as :func:`xarray.corr`); dask arrays stay lazy (:mod:`nanaccess.dask.bivariate`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._boundary import host_of
from .core.bivariate import corr_matrix, corr_pair
from .core.classify import values_and_missing
from .options import resolve_policy
from .typing import NanPolicyArg

__all__ = ["corr", "cov"]


def corr(x: Any, y: Any = None, *, method: str = "pearson", min_periods: int | None = None,
         dim: Any = None, rowvar: bool = False, nan_policy: NanPolicyArg = None) -> Any:
    """Correlation of two variables, or the matrix of the columns of one 2-D input.

    Pearson's r is rounded once from exact sums, so ``|r| <= 1`` always and ``r`` is
    exactly ``+-1`` for exactly collinear data (any two distinct points, ``x`` against
    ``3*x + 1e7``); Spearman's from exact average ranks; Kendall's tau-b from exact
    pair counts in O(n log n).

    Parameters
    ----------
    x : array-like, pandas Series / DataFrame, xarray DataArray or dask array
    y : array-like, optional
        The second variable (same length as ``x``); omitted: ``x`` is 2-D and every
        pair of its columns (rows with ``rowvar=True``, as :func:`numpy.corrcoef`)
        is correlated.
    method : {"pearson", "spearman", "kendall"}, default "pearson"
    min_periods : int, optional
        Fewest (pairwise complete) observations a result may use.
    dim : str or sequence of str, optional
        xarray only: the dimensions to reduce (as :func:`xarray.corr`).
    rowvar : bool, default False
        2-D arrays: rows are the variables (NumPy's convention) instead of columns.
    nan_policy : {"raise", "propagate", "omit", "smallest", "largest", "totalorder"}, optional
        "omit": each pair uses the observations where both values are numbers
        (pairwise complete, as pandas); "propagate": a NaN in either variable gives
        that NaN (the greatest under totalOrder); the ordering policies rank NaNs
        for Spearman and Kendall and propagate for Pearson. Default: the option.

    Returns
    -------
    float, numpy.ndarray or the host's object

    Examples
    --------
    >>> import numpy as np
    >>> import nanaccess as na
    >>> x = np.array([1.0, 2.0, np.nan, 4.0])
    >>> na.corr(x, 3 * x + 1e7, nan_policy="omit")
    1.0
    >>> na.corr([1.0, 2.0, 3.0], [1.0, 3.0, 2.0], method="kendall", nan_policy="omit")
    0.3333333333333333
    """
    return _dispatch("corr", x, y, method=method, ddof=1, min_periods=min_periods, dim=dim,
                     rowvar=rowvar, nan_policy=nan_policy)


def cov(x: Any, y: Any = None, *, ddof: int = 1, min_periods: int | None = None,
        dim: Any = None, rowvar: bool = False, nan_policy: NanPolicyArg = None) -> Any:
    """Covariance of two variables (or the matrix of a 2-D input's columns), correctly
    rounded from exact sums.

    Parameters
    ----------
    x : array-like, pandas Series / DataFrame, xarray DataArray or dask array
    y : array-like, optional
        As :func:`corr`.
    ddof : int, default 1
        Divisor ``n - ddof``, as :func:`numpy.cov`, pandas and :func:`xarray.cov`.
    min_periods : int, optional
    dim : str or sequence of str, optional
        xarray only.
    rowvar : bool, default False
        As :func:`corr`.
    nan_policy : str, optional
        As :func:`corr` (Pearson).

    Returns
    -------
    float, numpy.ndarray or the host's object

    Examples
    --------
    >>> import nanaccess as na
    >>> na.cov([1.0, 2.0, 3.0], [1.0, 2.0, 4.0], nan_policy="omit")
    1.5
    """
    return _dispatch("cov", x, y, method="pearson", ddof=ddof, min_periods=min_periods,
                     dim=dim, rowvar=rowvar, nan_policy=nan_policy)


def _dispatch(stat: str, x: Any, y: Any, *, method: str, ddof: Any, min_periods: Any,
              dim: Any, rowvar: bool, nan_policy: Any) -> Any:
    host = host_of(x)
    kw: dict[str, Any] = {"min_periods": min_periods, "nan_policy": nan_policy}
    if host == "xarray":
        from .xarray.bivariate import bivariate

        return bivariate(stat, x, y, dim=dim, method=method, ddof=ddof, **kw)
    if dim is not None:
        raise TypeError("dim= is for xarray objects")
    if host == "pandas":
        acc = x.nanstats
        if y is None or hasattr(x, "columns"):
            if y is not None:
                return acc.corrwith(y, method=method, **kw) if stat == "corr" else \
                    _frame_cov_with(x, y, ddof, **kw)
            return acc.corr(method=method, **kw) if stat == "corr" else \
                acc.cov(ddof=ddof, **kw)
        return acc.corr(y, method=method, **kw) if stat == "corr" else \
            acc.cov(y, ddof=ddof, **kw)
    if host == "dask" or host_of(y) == "dask":
        from .dask.bivariate import dask_pair

        return dask_pair(stat, x, y, method=method, ddof=ddof, **kw)
    policy = resolve_policy(nan_policy)
    xv, xm = _values(x, host)
    xv = np.asarray(xv)
    if y is None:
        if xv.ndim != 2:
            raise ValueError(f"one input must be 2-D (variables as columns), not {xv.ndim}-D")
        if rowvar:
            xv = xv.T
            xm = None if xm is None else xm.T
        vals, miss = corr_matrix(xv, stat=stat, method=method, ddof=ddof,
                                 min_periods=min_periods, nan_policy=policy, missing=xm)
        if miss is not None:
            vals = vals.copy()
            vals[miss] = np.nan
        return vals
    yv, ym = _values(y, host_of(y))
    yv = np.asarray(yv)
    val, undefined = corr_pair(xv.ravel() if xv.ndim == 0 else xv, yv, stat=stat, method=method,
                               ddof=ddof, min_periods=min_periods, nan_policy=policy,
                               missing_x=xm, missing_y=ym, subjects=["x", "y"])
    return float("nan") if undefined else val


def _values(data: Any, host: str) -> tuple[np.ndarray, np.ndarray | None]:
    """(values, missing) of an array-like; in a list, ``None`` is missing (other values
    are read as float64 when the list mixes types)."""
    if host != "iterable":
        v, m = values_and_missing(data)
        return np.asarray(v), m
    arr = np.asarray(data)
    if arr.dtype != object:
        return arr, None
    flat = arr.ravel().tolist()
    miss = np.array([_is_missing(v) for v in flat], bool).reshape(arr.shape)
    try:
        vals = np.array([np.nan if m else float(v) for v, m in zip(flat, miss.ravel(),
                                                                   strict=True)],
                        np.float64).reshape(arr.shape)
    except (TypeError, ValueError) as err:
        raise TypeError(f"covariance and correlation need numbers: {err}") from None
    return vals, (miss if miss.any() else None)


def _is_missing(v: Any) -> bool:
    return v is None or type(v).__name__ in ("NAType", "NaTType")


def _frame_cov_with(x: Any, y: Any, ddof: Any, **kw: Any) -> Any:
    raise TypeError("cov of a DataFrame with a second argument is not defined; use "
                    "df.nanstats.cov() or Series.nanstats.cov(other)")
