"""Covariance and correlation of xarray DataArrays, as :func:`xarray.cov` / :func:`xarray.corr`.

The two arrays are aligned (inner join) and broadcast as xarray does; the reduced
dimensions become one axis of length ``L`` and every other cell a segment of ``L``
rows of :func:`nanaccess.core.bivariate.pairwise` (all cells in one vectorised call).
Errors name the variable and the coordinates of the first offending value. Dask-backed
arrays are loaded (the lazy path is for dask arrays through :func:`nanaccess.corr`).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import xarray as xr

from .._labels import CoordLocation, subject
from ..core.bivariate import METHODS, Segments, pairwise
from ..options import resolve_policy

__all__ = ["bivariate", "DataArrayBivariate"]


def _dims(dim: Any, dims: Sequence[Hashable]) -> list[Hashable]:
    if dim is None or dim is ...:
        return list(dims)
    want = [dim] if isinstance(dim, str) or not isinstance(dim, Sequence) else list(dim)
    missing = [d for d in want if d not in dims]
    if missing:
        raise ValueError(f"dimensions {missing} not found in the arrays' dimensions "
                         f"{tuple(dims)}")
    return want


def bivariate(stat: str, a: Any, b: Any, *, dim: Any = None, method: str = "pearson",
              ddof: int = 1, min_periods: int | None = None,
              nan_policy: Any = None) -> xr.DataArray:
    """``xr.cov(a, b, dim, ddof)`` / ``xr.corr(a, b, dim)``, exact, under a policy.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> a = xr.DataArray([1.0, 2.0, np.nan, 4.0], dims="time")
    >>> bivariate("corr", a, 3 * a + 1e7, dim="time", nan_policy="omit").item()
    1.0
    """
    if not isinstance(a, xr.DataArray) or not isinstance(b, xr.DataArray):
        raise TypeError("corr/cov take two xarray.DataArray objects")
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, not {method!r}")
    policy = resolve_policy(nan_policy)
    a, b = xr.align(a, b, join="inner", copy=False)
    a, b = xr.broadcast(a, b)
    red = _dims(dim, a.dims)
    keep = [d for d in a.dims if d not in red]
    a = a.transpose(*keep, *red)
    b = b.transpose(*keep, *red)
    shape = tuple(a.sizes[d] for d in keep)
    m = int(np.prod(shape, dtype=np.int64))
    length = int(np.prod([a.sizes[d] for d in red], dtype=np.int64))
    av = np.asarray(a.values).reshape(-1)
    bv = np.asarray(b.values).reshape(-1)
    seg = Segments(np.arange(m + 1, dtype=np.int64) * length, None)
    dims_all = [*keep, *red]
    labels = [a.indexes[d] if d in a.indexes else None for d in dims_all]
    loc = CoordLocation(dims_all, labels)
    full = a.shape

    def locate(flat: int) -> str | None:
        return loc(tuple(int(i) for i in np.unravel_index(flat, full)))

    res = pairwise([av, bv], np.array([[0, 1]]), method=method, stat=stat, ddof=ddof,
                   min_periods=min_periods, policy=policy, segments=seg if m != 1 or keep
                   else None,
                   subjects=[subject("variable", a.name, unnamed="da_a"),
                             subject("variable", b.name, unnamed="da_b")],
                   locate=locate)
    vals = res.values[:, 0].copy()
    if res.missing is not None:
        vals[res.missing[:, 0]] = np.nan
    coords = {k: v for k, v in a.coords.items() if not set(v.dims) & set(red)}
    return xr.DataArray(vals.reshape(shape), dims=keep, coords=coords)


class DataArrayBivariate:
    """``da.nanstats.corr(other, dim=)`` / ``cov(other, dim=, ddof=)``."""

    _obj: xr.DataArray

    def corr(self, other: xr.DataArray, dim: Any = None, *, method: str = "pearson",
             min_periods: int | None = None, nan_policy: Any = None) -> xr.DataArray:
        """Correlation with ``other`` over ``dim``, as :func:`xarray.corr`, exact.

        Parameters
        ----------
        other : xarray.DataArray
        dim : str or sequence of str, optional
            Dimensions to reduce (default all).
        method : {"pearson", "spearman", "kendall"}
        min_periods : int, optional
        nan_policy : str, optional

        Returns
        -------
        xarray.DataArray

        Examples
        --------
        >>> import xarray as xr, nanaccess  # noqa: F401
        >>> a = xr.DataArray([1.0, 2.0, 3.0], dims="t")
        >>> a.nanstats.corr(-a, nan_policy="omit").item()
        -1.0
        """
        return bivariate("corr", self._obj, other, dim=dim, method=method,
                         min_periods=min_periods, nan_policy=nan_policy)

    def cov(self, other: xr.DataArray, dim: Any = None, *, ddof: int = 1,
            min_periods: int | None = None, nan_policy: Any = None) -> xr.DataArray:
        """Covariance with ``other`` over ``dim``, as :func:`xarray.cov`, correctly
        rounded.

        Parameters
        ----------
        other : xarray.DataArray
        dim : str or sequence of str, optional
        ddof : int, default 1
        min_periods : int, optional
        nan_policy : str, optional

        Returns
        -------
        xarray.DataArray

        Examples
        --------
        >>> import xarray as xr, nanaccess  # noqa: F401
        >>> a = xr.DataArray([1.0, 2.0, 3.0], dims="t")
        >>> a.nanstats.cov(2 * a, nan_policy="omit").item()
        2.0
        """
        return bivariate("cov", self._obj, other, dim=dim, ddof=ddof,
                         min_periods=min_periods, nan_policy=nan_policy)
