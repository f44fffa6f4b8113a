"""``DataArray.nanstats`` and ``Dataset.nanstats``: xarray adapters of the core.

The functions here map dims to axes and back, as xarray's own reductions do
(``Variable.reduce`` keeps names, coords and ``keep_attrs`` exactly as
``DataArray.median`` would); the numbers come from :mod:`nanaccess.core` for NumPy
data and from :mod:`nanaccess.dask.array` for dask data (lazy, exact). The
accessors only delegate to the public functions :func:`reduce` and :func:`quantile`.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from .. import _labels
from .._labels import Relabeller, fmt_label, restate
from ..errors import NaNError
from ..options import NanPolicy, resolve_policy
from ._common import holds_numbers as _holds_numbers
from ._common import is_dask as _is_dask
from ._common import keep_attrs as _keep_attrs
from ._common import variable_relabel as _relabel_for
from ._common import variable_subject
from ._xr_internals import from_temp_dataset, replace_with_new_dims, to_temp_dataset

__all__ = [
    "reduce",
    "quantile",
    "nan_report",
    "DataArrayNanStats",
    "DatasetNanStats",
    "ORDER_STATS",
    "MOMENT_STATS",
]

ORDER_STATS = ("median", "median_low", "median_high", "quantile", "min", "max")
MOMENT_STATS = ("mean", "var", "std", "sum", "count")
# xarray's own reductions drop non-numeric variables of a Dataset for these
_NUMERIC_ONLY = {"median", "median_low", "median_high", "quantile", "mean", "var", "std",
                 "sum"}


# ---------------------------------------------------------------------------------
# array level: NumPy core or dask
# ---------------------------------------------------------------------------------


def array_stat(
    data: Any,
    stat: str,
    axis: int | tuple[int, ...] | None,
    *,
    q: Any = None,
    method: str = "linear",
    ddof: int = 0,
    policy: NanPolicy,
    relabel: Relabeller | None = None,
    keepdims: bool = False,
) -> Any:
    """One statistic of a NumPy or dask array (dask stays lazy).

    Examples
    --------
    >>> import numpy as np
    >>> float(array_stat(np.array([1.0, np.nan, 3.0]), "median", None, policy="omit"))
    2.0
    """
    policy = resolve_policy(policy)
    if _is_dask(data):
        from ..dask.array import dask_moment_stat, dask_order_stat

        if stat in MOMENT_STATS:
            return dask_moment_stat(data, stat, axis=axis, ddof=ddof, policy=policy,
                                    keepdims=keepdims, relabel=relabel)
        return dask_order_stat(data, stat, q=q, method=method, axis=axis, policy=policy,
                               keepdims=keepdims, relabel=relabel)
    data = np.asarray(data)
    try:
        if stat in MOMENT_STATS:
            from ..core.moments import moment_stat

            values, _missing = moment_stat(data, stat, axis=axis, ddof=ddof, policy=policy,
                                           keepdims=keepdims)
        else:
            from ..core.select import order_stat

            values, _missing = order_stat(data, stat, q=q, method=method, axis=axis,
                                          policy=policy, keepdims=keepdims)
    except NaNError as err:
        if relabel is None:
            raise
        raise relabel(err) from None
    except (TypeError, OverflowError) as err:
        if relabel is None or relabel.subject == variable_subject(None):
            raise
        raise restate(err, relabel.subject) from None
    return values




# ---------------------------------------------------------------------------------
# Dataset level (a DataArray goes through a temporary Dataset, as in xarray)
# ---------------------------------------------------------------------------------


def _parse_dims(dim: Any, all_dims: Iterable[Hashable]) -> set[Hashable]:
    all_dims = list(all_dims)
    if dim is None or dim is ...:
        return set(all_dims)
    dims = {dim} if isinstance(dim, str) or not isinstance(dim, Iterable) else set(dim)
    missing = dims - set(all_dims)
    if missing:
        raise ValueError(
            f"Dimensions {tuple(missing)} not found in data dimensions {tuple(all_dims)}"
        )
    return dims








def _dataset_reduce(
    ds: xr.Dataset,
    stat: str,
    dim: Any,
    *,
    keep_attrs: bool | None,
    policy: NanPolicy,
    ddof: int = 0,
    numeric_only: bool | None = None,
    names: dict[Hashable, Hashable] | None = None,
) -> xr.Dataset:
    """xarray's ``Dataset.reduce`` loop with a nanaccess statistic per variable."""
    dims = _parse_dims(dim, ds.dims)
    keep = _keep_attrs(keep_attrs)
    if numeric_only is None:
        numeric_only = stat in _NUMERIC_ONLY
    variables: dict[Hashable, xr.Variable] = {}
    for name, var in ds.variables.items():
        reduce_dims = [d for d in var.dims if d in dims]
        if name in ds.coords:
            if not reduce_dims:
                variables[name] = var
            continue
        if not reduce_dims and var.ndim:
            variables[name] = var
            continue
        if numeric_only and not (names or _holds_numbers(var)):
            # a DataArray (names given) is the data itself: never dropped
            continue
        label = (names or {}).get(name, name)
        relabel = _relabel_for(label, var, ds.indexes)
        if not var.ndim:
            # a 0-d variable is a reduction of one value (NaN checks included)
            value = array_stat(var.data, stat, None, ddof=ddof, policy=policy,
                               relabel=relabel)
            variables[name] = xr.Variable((), value, attrs=var.attrs if keep else None)
            continue

        def func(data, axis=None, _relabel=relabel, **_kw):
            return array_stat(data, stat, axis, ddof=ddof, policy=policy, relabel=_relabel)

        single = None if len(reduce_dims) == var.ndim and var.ndim != 1 else reduce_dims
        variables[name] = var.reduce(func, dim=single, keep_attrs=keep)
    coord_names = {k for k in ds.coords if k in variables}
    indexes = {k: v for k, v in ds.xindexes.items() if k in variables}
    attrs = ds.attrs if keep else None
    return replace_with_new_dims(ds, variables, coord_names=coord_names, attrs=attrs,
                                     indexes=indexes)


def _variable_quantile(var: xr.Variable, q: np.ndarray, dims: Sequence[Hashable], *,
                       method: str, keep_attrs: bool, policy: NanPolicy,
                       relabel: Relabeller) -> xr.Variable:
    axes = tuple(var.get_axis_num(d) for d in dims)
    kept = tuple(d for d in var.dims if d not in dims)
    values = array_stat(var.data, "quantile", axes, q=q, method=method, policy=policy,
                        relabel=relabel)
    new_dims = kept if q.ndim == 0 else ("quantile",) + kept
    return xr.Variable(new_dims, values, attrs=var.attrs if keep_attrs else None)


def _dataset_quantile(ds: xr.Dataset, q: Any, dim: Any, *, method: str,
                      keep_attrs: bool | None, policy: NanPolicy,
                      numeric_only: bool = False,
                      names: dict[Hashable, Hashable] | None = None) -> xr.Dataset:
    """xarray's ``Dataset.quantile`` loop with the exact nanaccess quantile."""
    dims = _parse_dims(dim, ds.dims)
    qarr = np.asarray(q, dtype=np.float64)
    if qarr.ndim > 1:
        raise ValueError(f"q must be a scalar or 1-D, got shape {qarr.shape}")
    keep = _keep_attrs(keep_attrs)
    variables: dict[Hashable, xr.Variable] = {}
    for name, var in ds.variables.items():
        reduce_dims = [d for d in var.dims if d in dims]
        if reduce_dims or not var.dims:
            if name not in ds.coords and (not numeric_only or names or _holds_numbers(var)):
                label = (names or {}).get(name, name)
                variables[name] = _variable_quantile(
                    var, qarr, reduce_dims, method=method, keep_attrs=keep, policy=policy,
                    relabel=_relabel_for(label, var, ds.indexes))
        else:
            variables[name] = var
    coord_names = {k for k in ds.coords if k in variables}
    indexes = {k: v for k, v in ds.xindexes.items() if k in variables}
    attrs = ds.attrs if keep else None
    new = replace_with_new_dims(ds, variables, coord_names=coord_names, attrs=attrs,
                                    indexes=indexes)
    return new.assign_coords(quantile=qarr)


def _on_dataset(obj: xr.DataArray | xr.Dataset, fn, **kwargs):
    if isinstance(obj, xr.DataArray):
        if obj.dtype.kind not in "fiubmMOc":
            raise TypeError(f"{variable_subject(obj.name)} has non-numeric dtype {obj.dtype}")
        ds = to_temp_dataset(obj)
        names = {n: obj.name for n in ds.data_vars}
        return from_temp_dataset(obj, fn(ds, names=names, **kwargs))
    if isinstance(obj, xr.Dataset):
        return fn(obj, **kwargs)
    raise TypeError(f"expected an xarray DataArray or Dataset, got {type(obj).__name__}")


def reduce(
    obj: xr.DataArray | xr.Dataset,
    stat: str,
    dim: str | Sequence[Hashable] | None = None,
    *,
    nan_policy: NanPolicy | str | None = None,
    ddof: int = 0,
    keep_attrs: bool | None = None,
    numeric_only: bool | None = None,
) -> xr.DataArray | xr.Dataset:
    """Reduce an xarray object with a nanaccess statistic, labels kept as xarray does.

    Parameters
    ----------
    obj : DataArray or Dataset
        NumPy- or dask-backed (dask stays lazy).
    stat : str
        One of median, median_low, median_high, min, max, mean, var, std, sum, count.
    dim : str, sequence of str or None
        Dimension(s) to reduce; ``None`` reduces all.
    nan_policy : str, optional
        The NaN policy (default: ``nanaccess.get_options()["nan_policy"]``).
    ddof : int, default 0
        For var and std (0, as in xarray).
    keep_attrs : bool, optional
        Keep ``attrs``; ``None`` follows xarray's default.
    numeric_only : bool, optional
        For Datasets: drop non-numeric variables (``None``: as xarray's reduction of
        the same name).

    Returns
    -------
    DataArray or Dataset

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> da = xr.DataArray([[1.0, np.nan], [3.0, 4.0]], dims=("x", "y"), name="v")
    >>> reduce(da, "median", "x", nan_policy="omit").values
    array([2., 4.])
    """
    if stat not in ORDER_STATS + MOMENT_STATS or stat == "quantile":
        raise ValueError(f"unknown statistic {stat!r}")
    policy = resolve_policy(nan_policy)
    return _on_dataset(obj, _dataset_reduce, stat=stat, dim=dim, keep_attrs=keep_attrs,
                       policy=policy, ddof=ddof, numeric_only=numeric_only)


def quantile(
    obj: xr.DataArray | xr.Dataset,
    q: float | Sequence[float],
    dim: str | Sequence[Hashable] | None = None,
    *,
    method: str = "linear",
    nan_policy: NanPolicy | str | None = None,
    keep_attrs: bool | None = None,
    numeric_only: bool = False,
) -> xr.DataArray | xr.Dataset:
    """Exact quantile(s) of an xarray object; array ``q`` adds a leading ``quantile`` dim.

    Parameters
    ----------
    obj : DataArray or Dataset
    q : float or sequence of float
        In [0, 1].
    dim : str, sequence of str or None
        Dimension(s) to reduce.
    method : str, default "linear"
        As :func:`nanaccess.quantile`.
    nan_policy : str, optional
        The NaN policy.
    keep_attrs : bool, optional
        ``None`` follows xarray's default.
    numeric_only : bool, default False
        For Datasets, as :meth:`xarray.Dataset.quantile`.

    Returns
    -------
    DataArray or Dataset

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> da = xr.DataArray([1.0, 2.0, np.nan, 4.0], dims="t")
    >>> quantile(da, [0.0, 0.5], nan_policy="omit")
    <xarray.DataArray (quantile: 2)> Size: 16B
    array([1., 2.])
    Coordinates:
      * quantile  (quantile) float64 16B 0.0 0.5
    """
    policy = resolve_policy(nan_policy)
    return _on_dataset(obj, _dataset_quantile, q=q, dim=dim, method=method,
                       keep_attrs=keep_attrs, policy=policy, numeric_only=numeric_only)


def nan_report(obj: xr.DataArray | xr.Dataset) -> pd.Series | pd.DataFrame:
    """Counts of the kinds of values (see :func:`nanaccess.nan_report`).

    A DataArray gives a Series, a Dataset a DataFrame with one row per data variable.
    Dask data is computed (the report is a small in-memory table).

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> r = nan_report(xr.DataArray([1.0, np.nan, np.inf], dims="x"))
    >>> int(r["nan"]), int(r["posinf"])
    (1, 1)
    """
    from ..core.classify import nan_report as _report

    if isinstance(obj, xr.Dataset):
        rows = {name: _report(np.asarray(var.values)) for name, var in obj.data_vars.items()}
        return pd.DataFrame.from_dict(rows, orient="index")
    return pd.Series(_report(np.asarray(obj.values)), name=obj.name)


# ---------------------------------------------------------------------------------
# accessors
# ---------------------------------------------------------------------------------


class _NanStatsBase:
    _obj: Any

    def __init__(self, obj: Any) -> None:
        self._obj = obj

    def _red(self, stat, dim, nan_policy, keep_attrs, **kw):
        return reduce(self._obj, stat, dim, nan_policy=nan_policy, keep_attrs=keep_attrs, **kw)

    def median(self, dim=None, *, nan_policy=None, keep_attrs=None):
        """Exact median over ``dim``: :func:`nanaccess.xarray.reduce` with "median".

        Examples
        --------
        >>> import numpy as np, xarray as xr, nanaccess.xarray
        >>> da = xr.DataArray([1.0, np.nan, 2.0, 7.0], dims="t")
        >>> float(da.nanstats.median(nan_policy="omit"))
        2.0
        """
        return self._red("median", dim, nan_policy, keep_attrs)

    def median_low(self, dim=None, *, nan_policy=None, keep_attrs=None):
        """Low median (an element of the data) over ``dim``.

        Examples
        --------
        >>> import xarray as xr, nanaccess.xarray
        >>> float(xr.DataArray([1.0, 2.0, 3.0, 4.0], dims="t").nanstats.median_low())
        2.0
        """
        return self._red("median_low", dim, nan_policy, keep_attrs)

    def median_high(self, dim=None, *, nan_policy=None, keep_attrs=None):
        """High median (an element of the data) over ``dim``.

        Examples
        --------
        >>> import xarray as xr, nanaccess.xarray
        >>> float(xr.DataArray([1.0, 2.0, 3.0, 4.0], dims="t").nanstats.median_high())
        3.0
        """
        return self._red("median_high", dim, nan_policy, keep_attrs)

    def min(self, dim=None, *, nan_policy=None, keep_attrs=None):
        """Minimum over ``dim`` (by the policy's total order).

        Examples
        --------
        >>> import numpy as np, xarray as xr, nanaccess.xarray
        >>> da = xr.DataArray([3.0, -0.0, 0.0], dims="t")
        >>> float(da.nanstats.min())
        -0.0
        """
        return self._red("min", dim, nan_policy, keep_attrs)

    def max(self, dim=None, *, nan_policy=None, keep_attrs=None):
        """Maximum over ``dim`` (by the policy's total order).

        Examples
        --------
        >>> import numpy as np, xarray as xr, nanaccess.xarray
        >>> da = xr.DataArray([3.0, np.nan, 5.0], dims="t")
        >>> float(da.nanstats.max(nan_policy="omit"))
        5.0
        """
        return self._red("max", dim, nan_policy, keep_attrs)

    def mean(self, dim=None, *, nan_policy=None, keep_attrs=None):
        """Correctly rounded mean over ``dim``.

        Examples
        --------
        >>> import numpy as np, xarray as xr, nanaccess.xarray
        >>> float(xr.DataArray([1.0, np.nan, 2.0], dims="t").nanstats.mean(nan_policy="omit"))
        1.5
        """
        return self._red("mean", dim, nan_policy, keep_attrs)

    def sum(self, dim=None, *, nan_policy=None, keep_attrs=None):
        """Correctly rounded sum over ``dim`` (0 over nothing, as xarray).

        Examples
        --------
        >>> import numpy as np, xarray as xr, nanaccess.xarray
        >>> float(xr.DataArray([1e16, 1.0, -1e16], dims="t").nanstats.sum())
        1.0
        """
        return self._red("sum", dim, nan_policy, keep_attrs)

    def var(self, dim=None, *, ddof=0, nan_policy=None, keep_attrs=None):
        """Variance over ``dim`` (``ddof=0`` as in xarray).

        Examples
        --------
        >>> import xarray as xr, nanaccess.xarray
        >>> float(xr.DataArray([1.0, 2.0, 3.0, 4.0], dims="t").nanstats.var())
        1.25
        """
        return self._red("var", dim, nan_policy, keep_attrs, ddof=ddof)

    def std(self, dim=None, *, ddof=0, nan_policy=None, keep_attrs=None):
        """Standard deviation over ``dim`` (``ddof=0`` as in xarray).

        Examples
        --------
        >>> import xarray as xr, nanaccess.xarray
        >>> float(xr.DataArray([1.0, 3.0], dims="t").nanstats.std())
        1.0
        """
        return self._red("std", dim, nan_policy, keep_attrs, ddof=ddof)

    def count(self, dim=None, *, nan_policy="omit", keep_attrs=None):
        """Number of values the policy keeps over ``dim``.

        Examples
        --------
        >>> import numpy as np, xarray as xr, nanaccess.xarray
        >>> int(xr.DataArray([1.0, np.nan, 2.0], dims="t").nanstats.count())
        2
        """
        return self._red("count", dim, nan_policy, keep_attrs)

    def quantile(self, q, dim=None, *, method="linear", nan_policy=None, keep_attrs=None):
        """Exact quantile(s); a sequence ``q`` adds a ``quantile`` dimension first.

        Examples
        --------
        >>> import numpy as np, xarray as xr, nanaccess.xarray
        >>> da = xr.DataArray([1.0, np.nan, 2.0, 3.0], dims="t")
        >>> da.nanstats.quantile([0.5, 1.0], nan_policy="omit").values
        array([2., 3.])
        """
        return quantile(self._obj, q, dim, method=method, nan_policy=nan_policy,
                        keep_attrs=keep_attrs)

    def describe(self, dim=None, *, nan_policy=None, ddof=1):
        """Summary statistics along ``dim`` under the policy, as pandas' ``describe``.

        Adds a ``statistic`` dimension: count (numbers), nan, mean, std (``ddof=1`` as
        pandas' describe), min, 25%, 50%, 75%, max.

        Examples
        --------
        >>> import numpy as np, xarray as xr, nanaccess.xarray
        >>> da = xr.DataArray([1.0, np.nan, 2.0, 3.0], dims="t", name="v")
        >>> d = da.nanstats.describe(nan_policy="omit")
        >>> d.sel(statistic=["count", "nan", "50%"]).values
        array([3., 1., 2.])
        """
        return self._relabelled(lambda: self._describe(dim, nan_policy, ddof))

    def _describe(self, dim, nan_policy, ddof):
        obj = self._obj
        nan = xr.apply_ufunc(lambda a: np.asarray(_isnan_any(a)), obj, dask="allowed")
        parts = {
            "count": self.count(dim, nan_policy="omit"),
            "nan": nan.sum(dim),
            "mean": self.mean(dim, nan_policy=nan_policy),
            "std": self.std(dim, ddof=ddof, nan_policy=nan_policy),
            "min": self.min(dim, nan_policy=nan_policy),
        }
        qs = self.quantile([0.25, 0.5, 0.75], dim, nan_policy=nan_policy)
        for q, label in zip((0.25, 0.5, 0.75), ("25%", "50%", "75%"), strict=True):
            parts[label] = qs.sel(quantile=q, drop=True)
        parts["max"] = self.max(dim, nan_policy=nan_policy)
        cast = {k: v.astype(np.float64) for k, v in parts.items()}
        out = xr.concat(list(cast.values()), dim="statistic", coords="minimal",
                        compat="override", join="override")
        return out.assign_coords(statistic=list(cast))

    def sortby(self, variables=None, ascending=True, *, nan_policy="totalorder"):
        """Reorder along the dimension of 1-D ``variables`` by their values, as
        :meth:`xarray.DataArray.sortby`, under an explicit ``nan_policy`` (default
        "totalorder": -NaN first, +NaN last, -0.0 before +0.0; "smallest"/"largest" put
        every NaN first/last). Ties keep their order (stable); with several keys the
        first is the primary one, as in xarray. ``ascending=False`` reverses the whole
        order (so under "totalorder" +NaN comes first).

        Examples
        --------
        >>> import numpy as np, xarray as xr, nanaccess.xarray
        >>> da = xr.DataArray([3.0, np.nan, 1.0], dims="t", coords={"t": [10, 20, 30]})
        >>> da.nanstats.sortby(da, nan_policy="smallest").t.values
        array([20, 30, 10])
        """
        from ..api import argsort

        obj = self._obj
        resolve_policy(nan_policy)
        if variables is None:  # a 1-D DataArray sorts by its own values
            if not isinstance(obj, xr.DataArray) or obj.ndim != 1:
                raise ValueError("sortby needs `variables` unless the object is a 1-D "
                                 "DataArray (which then sorts by its own values)")
            variables = obj
        keys = variables if isinstance(variables, list) else [variables]
        keys = [obj[k] if isinstance(k, str) else k for k in keys]
        dims = {k.dims for k in keys}
        if len(dims) != 1 or len(next(iter(dims))) != 1:
            raise ValueError("sortby keys must be 1-D and share one dimension")
        dim = keys[0].dims[0]
        # stable sorts from the last key to the first: the first key is the primary
        # one, as in xarray's sortby
        order = np.arange(obj.sizes[dim])
        for key in keys[::-1]:
            vals = np.asarray(key.values)[order]
            order = order[self._relabelled(lambda v=vals: argsort(v, nan_policy=nan_policy),
                                           name=key.name)]
        if not ascending:
            order = order[::-1]
        return obj.isel({dim: order})

    def _relabelled(self, fn, name=None):
        """Run ``fn``; restate NaN/Type/OverflowErrors naming the variable."""
        name = getattr(self._obj, "name", None) if name is None else name
        try:
            return fn()
        except NaNError as err:
            if name is None:
                raise
            raise _labels.relabel(err, variable_subject(name)) from None
        except (TypeError, OverflowError) as err:
            if name is None or fmt_label(name) in str(err):
                raise
            raise restate(err, variable_subject(name)) from None

    def nan_report(self):
        """Counts of numbers, NaNs by kind, infinities and missing values.

        Examples
        --------
        >>> import numpy as np, xarray as xr, nanaccess.xarray
        >>> int(xr.DataArray([1.0, np.nan], dims="t").nanstats.nan_report()["nan"])
        1
        """
        return nan_report(self._obj)

    def groupby(self, group, **kwargs):
        """Grouped statistics: ``da.nanstats.groupby("time.month").median(...)``.

        Parameters
        ----------
        group : str, DataArray or mapping
            As :meth:`xarray.DataArray.groupby`.

        Examples
        --------
        >>> import numpy as np, pandas as pd, xarray as xr, nanaccess.xarray
        >>> t = pd.date_range("2024-01-30", periods=4)
        >>> da = xr.DataArray([1.0, np.nan, 3.0, 5.0], dims="time", coords={"time": t})
        >>> da.nanstats.groupby("time.month").median(nan_policy="omit").values
        array([1., 4.])
        """
        from .groupby import NanGroupBy, factorized_groupby

        fast = None if kwargs else factorized_groupby(self._obj, group)
        return NanGroupBy(self._obj, fast or self._obj.groupby(group, **kwargs))

    def resample(self, indexer=None, **kwargs):
        """Resampled statistics: ``da.nanstats.resample(time="1D").median(...)``.

        Examples
        --------
        >>> import numpy as np, pandas as pd, xarray as xr, nanaccess.xarray
        >>> t = pd.date_range("2024-01-01", periods=4, freq="12h")
        >>> da = xr.DataArray([1.0, np.nan, 3.0, 5.0], dims="time", coords={"time": t})
        >>> da.nanstats.resample(time="1D").max(nan_policy="omit").values
        array([1., 5.])
        """
        from .groupby import NanGroupBy

        return NanGroupBy(self._obj, self._obj.resample(indexer, **kwargs), resample=True)


def _isnan_any(a: Any) -> Any:
    from ..core.classify import isnan

    return isnan(a)


@xr.register_dataarray_accessor("nanstats")
class DataArrayNanStats(_NanStatsBase):
    """``DataArray.nanstats``: exact, NaN-explicit statistics (see the NaN semantics page).

    Examples
    --------
    >>> import numpy as np, xarray as xr, nanaccess.xarray
    >>> da = xr.DataArray([[1.0, np.nan], [3.0, 4.0]], dims=("x", "y"))
    >>> da.nanstats.median("x", nan_policy="omit").values
    array([2., 4.])
    """

    def argmin(self, dim=None, *, nan_policy=None):
        """Integer position of the smallest value along ``dim`` (flat index for
        ``dim=None``, as :meth:`xarray.DataArray.argmin` with ``axis=None``).

        Examples
        --------
        >>> import numpy as np, xarray as xr, nanaccess.xarray
        >>> da = xr.DataArray([[3.0, np.nan], [1.0, 4.0]], dims=("x", "y"))
        >>> da.nanstats.argmin("x", nan_policy="omit").values
        array([1, 1])
        """
        return self._arg("argmin", dim, nan_policy)

    def argmax(self, dim=None, *, nan_policy=None):
        """Integer position of the largest value along ``dim`` (see :meth:`argmin`).

        Examples
        --------
        >>> import numpy as np, xarray as xr, nanaccess.xarray
        >>> da = xr.DataArray([[3.0, np.nan], [1.0, 4.0]], dims=("x", "y"))
        >>> da.nanstats.argmax("x", nan_policy="largest").values
        array([0, 0])
        """
        return self._arg("argmax", dim, nan_policy)

    def _arg(self, stat, dim, nan_policy):
        from ..core.select import order_stat

        obj = self._obj
        policy = resolve_policy(nan_policy)
        relabel = _relabel_for(obj.name, obj.variable, obj.indexes)
        axis = None if dim is None else obj.get_axis_num(dim)
        try:
            values, _ = order_stat(np.asarray(obj.values), stat, axis=axis, policy=policy)
        except NaNError as err:
            raise relabel(err) from None
        except TypeError as err:
            raise restate(err, variable_subject(obj.name)) from None
        if dim is None:
            return xr.DataArray(values, name=obj.name)
        return obj.isel({dim: 0}, drop=True).copy(data=values)

    def plot_nan_map(self, ax=None):
        """Plot where the NaNs are (:func:`nanaccess.plotting.plot_nan_map`).

        Examples
        --------
        >>> import numpy as np, xarray as xr, nanaccess.xarray
        >>> da = xr.DataArray([[1.0, np.nan], [3.0, 4.0]], dims=("x", "y"))
        >>> callable(da.nanstats.plot_nan_map)
        True
        """
        from ..plotting import plot_nan_map

        return plot_nan_map(self._obj, ax=ax)


@xr.register_dataset_accessor("nanstats")
class DatasetNanStats(_NanStatsBase):
    """``Dataset.nanstats``: the statistics per data variable.

    Examples
    --------
    >>> import numpy as np, xarray as xr, nanaccess.xarray
    >>> ds = xr.Dataset({"a": ("t", [1.0, np.nan, 5.0])})
    >>> float(ds.nanstats.median(nan_policy="omit")["a"])
    3.0
    """
