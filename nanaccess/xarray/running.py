"""``da.nanstats.cumsum(dim=)`` and ``da.nanstats.ewm(dim=, ...)``: running statistics
of DataArrays and Datasets (issue 23).

Each runs the core (:func:`nanaccess.core.cumulative.cumulative`,
:func:`nanaccess.core.ewm.ewm_stat`) along one dimension of every numeric variable
holding it and keeps the dims, coords and attrs. The cumulative statistics of a
dask-backed variable stay lazy (:mod:`nanaccess.dask.cumulative`: chunk by chunk with
an exact carry, bit-equal to the in-memory result) and so does ``ewm``
(:mod:`nanaccess.dask.ewm`: the double-double state travels from chunk to chunk).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

import numpy as np
import xarray as xr

from .._labels import CoordLocation, relabel, subject
from ..core.cumulative import cumulative
from ..core.ewm import ewm_stat
from ..errors import NaNError
from ..options import resolve_policy
from ..typing import NanPolicyArg

__all__ = ["RunningMixin"]


def _one(v: xr.DataArray, name: Hashable | None, dim: Hashable,
         run: Callable[[np.ndarray, int], np.ndarray],
         lazy: Callable[[Any, int], Any] | None = None) -> xr.DataArray:
    if type(v.data).__module__.startswith("dask"):
        if lazy is None:
            raise NotImplementedError("running statistics of dask-backed data: .load() first")
        return v.copy(data=lazy(v.data, v.get_axis_num(dim)))
    if not isinstance(v.data, np.ndarray) and not hasattr(v.data, "__array__"):
        raise NotImplementedError("running statistics need in-memory data: .load() first")
    ax = v.get_axis_num(dim)
    try:
        out = run(np.asarray(v.values), ax)
    except NaNError as err:
        loc = CoordLocation(v.dims, [v.indexes[d] if d in v.indexes else None
                                     for d in v.dims])
        raise relabel(err, subject("variable", name, unnamed="data"), loc) from None
    return v.copy(data=out)


def _apply(obj: Any, dim: Hashable | None, run: Callable[[np.ndarray, int], np.ndarray],
           lazy: Callable[[Any, int], Any] | None = None) -> Any:
    if isinstance(obj, xr.DataArray):
        d = dim if dim is not None else (obj.dims[0] if obj.ndim == 1 else None)
        if d is None:
            raise ValueError("dim= is required for a DataArray of more than one dimension")
        return _one(obj, obj.name, d, run, lazy)
    if dim is None:
        raise ValueError("dim= is required for a Dataset")
    out = obj.copy()
    for name, v in obj.data_vars.items():
        if dim in v.dims and v.dtype.kind in "fiub":
            out[name] = _one(v, name, dim, run, lazy)
    return out


class RunningMixin:
    """Cumulative and exponentially weighted statistics along one dimension."""

    _obj: Any

    def _cumulative(self, stat: str, dim: Hashable | None, nan_policy: Any) -> Any:
        policy = resolve_policy(nan_policy)

        def run(a: np.ndarray, ax: int) -> np.ndarray:
            vals, miss = cumulative(a, stat, axis=ax, policy=policy)
            return vals

        def lazy(a: Any, ax: int) -> Any:  # dask-backed: a chain of chunks, exact carry
            from ..dask.cumulative import array_cumulative

            return array_cumulative(a, stat, axis=ax, policy=policy)

        return _apply(self._obj, dim, run, lazy)

    def cumsum(self, dim: Hashable | None = None, *, nan_policy: NanPolicyArg = None) -> Any:
        """Cumulative sum along ``dim``, each prefix its exact sum rounded once.

        Parameters
        ----------
        dim : hashable, optional
            The dimension to run along (optional for 1-D data).
        nan_policy : str, optional
            As ``Series.nanstats.cumsum`` ("omit": a NaN stays, the sum skips it).

        Returns
        -------
        DataArray or Dataset
            The same dims, coords and attrs.

        Examples
        --------
        >>> import numpy as np, xarray as xr, nanaccess  # noqa: F401
        >>> da = xr.DataArray([0.1, 0.2, np.nan, 0.3], dims="t")
        >>> da.nanstats.cumsum("t", nan_policy="omit").values.tolist()
        [0.1, 0.30000000000000004, nan, 0.6]
        """
        return self._cumulative("cumsum", dim, nan_policy)

    def cumprod(self, dim: Hashable | None = None, *, nan_policy: NanPolicyArg = None) -> Any:
        """Cumulative product along ``dim`` (as :meth:`cumsum`; each step rounded).

        Parameters
        ----------
        dim : hashable, optional
        nan_policy : str, optional

        Returns
        -------
        DataArray or Dataset

        Examples
        --------
        >>> import xarray as xr, nanaccess  # noqa: F401
        >>> xr.DataArray([2.0, 3.0], dims="t").nanstats.cumprod().values.tolist()
        [2.0, 6.0]
        """
        return self._cumulative("cumprod", dim, nan_policy)

    def cummax(self, dim: Hashable | None = None, *, nan_policy: NanPolicyArg = None) -> Any:
        """Cumulative maximum along ``dim`` under the policy's order.

        Parameters
        ----------
        dim : hashable, optional
        nan_policy : str, optional

        Returns
        -------
        DataArray or Dataset

        Examples
        --------
        >>> import numpy as np, xarray as xr, nanaccess  # noqa: F401
        >>> da = xr.DataArray([1.0, np.nan, 3.0], dims="t")
        >>> da.nanstats.cummax(nan_policy="largest").values.tolist()
        [1.0, nan, nan]
        """
        return self._cumulative("cummax", dim, nan_policy)

    def cummin(self, dim: Hashable | None = None, *, nan_policy: NanPolicyArg = None) -> Any:
        """Cumulative minimum along ``dim`` under the policy's order.

        Parameters
        ----------
        dim : hashable, optional
        nan_policy : str, optional

        Returns
        -------
        DataArray or Dataset

        Examples
        --------
        >>> import numpy as np, xarray as xr, nanaccess  # noqa: F401
        >>> da = xr.DataArray([1.0, np.nan, 0.5], dims="t")
        >>> da.nanstats.cummin(nan_policy="omit").values.tolist()
        [1.0, nan, 0.5]
        """
        return self._cumulative("cummin", dim, nan_policy)

    def ewm(self, dim: Hashable | None = None, *, stat: str = "mean", com: float | None = None,
            span: float | None = None, halflife: float | None = None,
            alpha: float | None = None, adjust: bool = True, ignore_na: bool = True,
            min_periods: int = 0, bias: bool = False, nan_policy: NanPolicyArg = None) -> Any:
        """Exponentially weighted ``stat`` (mean, var, std) along ``dim``.

        The smoothing parameters are pandas' (exactly one of ``com``, ``span``,
        ``halflife``, ``alpha``; ``adjust``, ``min_periods``, ``bias``); "omit" skips
        NaNs (``ignore_na=True``, the default here, as xarray has no other form),
        "propagate" gives the first NaN from its position on, "raise" names it. The
        recurrences run in double-double arithmetic: no drift over long series.

        Parameters
        ----------
        dim : hashable, optional
        stat : {"mean", "var", "std"}
        com, span, halflife, alpha : float, optional
        adjust, ignore_na : bool
        min_periods : int
        bias : bool
        nan_policy : str, optional

        Returns
        -------
        DataArray or Dataset
            float64, the same dims, coords and attrs.

        Examples
        --------
        >>> import numpy as np, xarray as xr, nanaccess  # noqa: F401
        >>> da = xr.DataArray([1.0, np.nan, 3.0], dims="t")
        >>> da.nanstats.ewm("t", alpha=0.5, nan_policy="omit").values.tolist()
        [1.0, 1.0, 2.3333333333333335]
        """
        policy = resolve_policy(nan_policy)

        def run(a: np.ndarray, ax: int) -> np.ndarray:
            vals, _ = ewm_stat(a, stat, axis=ax, com=com, span=span, halflife=halflife,
                               alpha=alpha, adjust=adjust, ignore_na=ignore_na,
                               min_periods=min_periods, bias=bias, policy=policy)
            return vals

        def lazy(a: Any, ax: int) -> Any:  # dask-backed: chunks in order, exact state
            from ..dask.ewm import array_ewm

            return array_ewm(a, stat, axis=ax, com=com, span=span, halflife=halflife,
                             alpha=alpha, adjust=adjust, ignore_na=ignore_na,
                             min_periods=min_periods, bias=bias, policy=policy)

        return _apply(self._obj, dim, run, lazy)
