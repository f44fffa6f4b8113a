"""Reductions of xarray objects: dims to axes, the core's numbers, labels back.

The functions here map dims to axes and back, as xarray's own ``Dataset.reduce`` does
(names, coords, ``keep_attrs`` and ``keepdims`` exactly as ``DataArray.median``
would keep them); the numbers come from the one core entry point
:func:`nanaccess.core.reduce.reduce` for NumPy data and from
:func:`nanaccess.dask.reduce.dask_reduce` for dask data (lazy, exact). A DataArray
goes through a temporary one-variable Dataset, as in xarray. The accessors' ``_reduce``
hooks call :func:`reduce`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from .. import _stats
from .._boundary import host_of
from .._hostkit import without_weights_kind
from .._labels import name_overflow, restate
from ..core.reduce import reduce as core_reduce
from ..errors import NaNError, TotalWeightError
from ..options import NanPolicy, resolve_policy
from ..typing import NanPolicyArg
from ._common import (
    holds_numbers,
    is_dask,
    labelled_errors,
    variable_relabel,
    variable_subject,
)
from ._common import keep_attrs as resolve_keep_attrs
from ._xr_internals import from_temp_dataset, replace_with_new_dims, to_temp_dataset
from .weighted import (
    VariableWeights,
    aligned_weights,
    check_weighted,
    variable_weights,
)

__all__ = ["reduce", "quantile", "nan_report", "array_stat", "arg_reduce"]


# ---------------------------------------------------------------------------------
# array level: NumPy core or dask
# ---------------------------------------------------------------------------------


def array_stat(
    data: Any,
    stat: str,
    axis: int | tuple[int, ...] | None,
    *,
    policy: NanPolicy,
    relabel: Callable[[NaNError], NaNError] | None = None,
    keepdims: bool = False,
    weights: VariableWeights | None = None,
    **params: Any,
) -> Any:
    """One statistic of a NumPy or dask array (dask stays lazy), errors relabelled;
    ``weights`` through the weighted core (lazy where data or weights are dask), the
    in-memory path's errors labelled.

    Examples
    --------
    >>> import numpy as np
    >>> float(array_stat(np.array([1.0, np.nan, 3.0]), "median", None, policy="omit"))
    2.0
    """
    policy = resolve_policy(policy)
    if weights is not None and (is_dask(data) or is_dask(weights.values)):
        # lazy and bit-equal to the in-memory weighted path; its errors are raised when
        # computed, with the global count and first position
        from ..dask.typed_dask import from_array
        from ..dask.weighted import dask_weighted

        return dask_weighted(data if is_dask(data) else from_array(np.asarray(data)), stat,
                             weights.values, axis=axis, policy=policy, keepdims=keepdims,
                             relabel=relabel, relabel_weights=weights.labeller(), **params)
    if weights is not None:
        def data_only(err: NaNError) -> NaNError:
            # the weights' errors are labelled by the weights' coordinates below
            return err if err.subject == "weights" or relabel is None else relabel(err)

        try:
            with labelled_errors(data_only):
                return core_reduce(np.asarray(data), stat, axis=axis, policy=policy,
                                   keepdims=keepdims, weights=weights.values,
                                   weights_missing=weights.missing, **params).values
        except TotalWeightError as err:  # names the variable
            subject = getattr(relabel, "subject", None)
            if subject is None:
                raise
            raise err.relabel(subject) from None
        except ValueError as err:
            new = weights.relabel(err)
            if new is err:
                raise
            raise new from None
    if is_dask(data):
        from ..dask.reduce import dask_reduce

        return dask_reduce(data, stat, axis=axis, policy=policy, keepdims=keepdims,
                           relabel=relabel, **params)
    with labelled_errors(relabel):
        if host_of(data) == "arrayapi":  # CuPy-backed xarray: computed on the device,
            from ..arrayapi import reduce_xp  # a CuPy result (docs/gpu.md)

            return reduce_xp(data, stat, axis=axis, policy=policy, keepdims=keepdims,
                             **params)
        return core_reduce(np.asarray(data), stat, axis=axis, policy=policy,
                           keepdims=keepdims, **params).values


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


def _variable_stat(var: xr.Variable, stat: str, reduce_dims: Sequence[Hashable], *,
                   keep: bool, keepdims: bool, policy: NanPolicy, relabel: Any,
                   params: dict[str, Any], weights: Any = None,
                   name: Hashable | None = None,
                   indexes: Any = None) -> xr.Variable:
    """``stat`` of one variable over ``reduce_dims`` (all of a 0-d variable)."""
    axes = tuple(var.get_axis_num(d) for d in reduce_dims)
    vw = None
    if weights is not None:
        check_weighted(stat)
        vw = variable_weights(weights, var, name, indexes or {})
    try:
        values = array_stat(var.data, stat, axes if var.ndim else None, policy=policy,
                            relabel=relabel, keepdims=keepdims, weights=vw, **params)
    except OverflowError as err:  # an exact integer sum: name the kept coordinates
        if not hasattr(err, "lead"):
            raise
        raise _overflow_at(err, var, reduce_dims, relabel) from None
    dims = var.dims if keepdims else tuple(d for d in var.dims if d not in reduce_dims)
    if np.ndim(values) > len(dims):  # quantile dims come first, as in xarray
        dims = ("quantile",) + dims
    return xr.Variable(dims, values, attrs=var.attrs if keep else None)


def _overflow_at(err: Any, var: xr.Variable, reduce_dims: Sequence[Hashable],
                 relabel: Any) -> Exception:
    """``err`` (the core's ``SumOverflowError``: ``row`` of the kept axes, possibly
    flattened) naming the variable and the kept coordinates (:func:`name_overflow`)."""
    kept = [i for i, d in enumerate(var.dims) if d not in reduce_dims]
    shape = tuple(var.shape[i] for i in kept)
    if not kept or math.prod(err.lead) != math.prod(shape):
        return name_overflow(err, relabel)
    position = tuple(int(i) for i in np.unravel_index(err.row, shape))
    return name_overflow(err, relabel, position, kept)


def _dataset_reduce(
    ds: xr.Dataset,
    stat: str,
    dim: Any,
    *,
    keep_attrs: bool | None,
    keepdims: bool,
    policy: NanPolicy,
    names: dict[Hashable, Hashable] | None = None,
    params: dict[str, Any],
    weights: Any = None,
) -> xr.Dataset:
    """xarray's ``Dataset.reduce`` loop with a nanaccess statistic per variable."""
    dims = _parse_dims(dim, ds.dims)
    keep = resolve_keep_attrs(keep_attrs)
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
        if not (names or holds_numbers(var)):
            # strings (and other objects that are not numbers) are left out, never
            # raised on, whatever the statistic (decision 16); a DataArray (names
            # given) is the data itself: never dropped
            continue
        label = (names or {}).get(name, name)
        relabel = variable_relabel(label, var, ds.indexes)
        variables[name] = _variable_stat(var, stat, reduce_dims, keep=keep,
                                         keepdims=keepdims, policy=policy, relabel=relabel,
                                         params=params, weights=weights, name=label,
                                         indexes=ds.indexes)
    coord_names = {k for k in ds.coords if k in variables}
    indexes = {k: v for k, v in ds.xindexes.items() if k in variables}
    out = replace_with_new_dims(ds, variables, coord_names=coord_names,
                                attrs=ds.attrs if keep else None, indexes=indexes)
    if "q" in params:
        out = out.assign_coords(quantile=np.asarray(params["q"], dtype=np.float64))
    return out


def _on_dataset(obj: xr.DataArray | xr.Dataset, fn: Callable[..., xr.Dataset],
                **kwargs: Any) -> xr.DataArray | xr.Dataset:
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
    nan_policy: NanPolicyArg = None,
    keep_attrs: bool | None = None,
    keepdims: bool = False,
    numeric_only: bool | None = None,
    weights: Any = None,
    **params: Any,
) -> xr.DataArray | xr.Dataset:
    """Reduce an xarray object with a nanaccess statistic, labels kept as xarray does.

    Parameters
    ----------
    obj : DataArray or Dataset
        NumPy- or dask-backed (dask stays lazy).
    stat : str
        A statistic of :data:`nanaccess._stats.STATISTICS` (argmin / argmax: see
        :func:`arg_reduce`).
    dim : str, sequence of str or None
        Dimension(s) to reduce; ``None`` reduces all.
    nan_policy : str, optional
        The NaN policy (default: ``nanaccess.get_options()["nan_policy"]``).
    keep_attrs : bool, optional
        Keep ``attrs``; ``None`` follows xarray's default.
    keepdims : bool, default False
        Keep the reduced dimensions with length one.
    weights : DataArray or array_like, optional
        Frequency weights of the weighted statistics (:mod:`.weighted`): a DataArray
        broadcast by dimension names (coordinates equal to the data's), or an array of
        a DataArray's shape; NumPy- or dask-backed (then lazy, bit-equal to the
        in-memory result).
    numeric_only : bool, optional
        Accepted for xarray's signature: a Dataset's variables that do not hold
        numbers (strings) are always left out, never raised on (decision 16).
    **params
        The statistic's own parameters (``q``, ``method``, ``ddof`` (default 0, as
        xarray), ``rng``, ``scale``); any other keyword raises TypeError.

    Returns
    -------
    DataArray or Dataset

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> da = xr.DataArray([[1.0, np.nan], [3.0, 4.0]], dims=("x", "y"), name="v")
    >>> reduce(da, "median", "x", nan_policy="omit").values
    array([2., 4.])
    >>> reduce(da, "iqr", "x", nan_policy="omit", keepdims=True).values
    array([[1., 0.]])
    """
    entry = _stats.get(stat)
    if entry.family == "arg":
        raise ValueError(f"{stat} gives positions: use arg_reduce")
    params = without_weights_kind(weights, params)
    unknown = set(params) - set(entry.param_names) - (
        {"weights_kind"} if entry.weights_kind else set())
    if unknown:
        raise TypeError(f"{stat}() got unexpected keyword(s) {sorted(unknown)}")
    if "q" in entry.param_names:
        if "q" not in params:
            raise TypeError("quantile() needs q")
        if np.ndim(params["q"]) > 1:
            raise ValueError(f"q must be a scalar or 1-D, got shape {np.shape(params['q'])}")
        if keepdims:
            raise TypeError("quantile() does not take keepdims (as xarray's quantile)")
    policy = resolve_policy(nan_policy)
    if weights is not None:
        check_weighted(stat)
        weights = aligned_weights(obj, weights)
    return _on_dataset(obj, _dataset_reduce, stat=stat, dim=dim, keep_attrs=keep_attrs,
                       keepdims=bool(keepdims), policy=policy,
                       params=params, weights=weights)


def quantile(
    obj: xr.DataArray | xr.Dataset,
    q: float | Sequence[float],
    dim: str | Sequence[Hashable] | None = None,
    *,
    method: str = "linear",
    nan_policy: NanPolicyArg = None,
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
        NumPy's quantile methods.
    nan_policy : str, optional
    keep_attrs : bool, optional
    numeric_only : bool, default False
        Accepted for xarray's signature: variables that do not hold numbers are
        always left out.

    Returns
    -------
    DataArray or Dataset

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> da = xr.DataArray([1.0, np.nan, 2.0, 3.0], dims="t")
    >>> quantile(da, [0.0, 0.5], nan_policy="omit").values
    array([1., 2.])
    """
    return reduce(obj, "quantile", dim, q=q, method=method, nan_policy=nan_policy,
                  keep_attrs=keep_attrs, numeric_only=numeric_only)


def arg_reduce(obj: xr.DataArray, stat: str, dim: Hashable | None = None, *,
               nan_policy: NanPolicyArg = None) -> xr.DataArray | dict[Hashable, xr.DataArray]:
    """argmin / argmax of a DataArray: integer positions along ``dim`` (a flat index
    for ``dim=None``, as :meth:`xarray.DataArray.argmin` with ``axis=None``).

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> da = xr.DataArray([[3.0, np.nan], [1.0, 4.0]], dims=("x", "y"))
    >>> arg_reduce(da, "argmin", "x", nan_policy="omit").values
    array([1, 1])
    """
    policy = resolve_policy(nan_policy)
    if isinstance(dim, list | tuple):
        return _arg_reduce_dims(obj, stat, list(dim), policy)
    axis = None if dim is None else obj.get_axis_num(dim)
    relabel = variable_relabel(obj.name, obj.variable, obj.indexes)
    try:
        values = array_stat(np.asarray(obj.values), stat, axis, policy=policy, relabel=relabel)
    except TypeError as err:
        raise restate(err, variable_subject(obj.name)) from None
    if dim is None:
        return xr.DataArray(values, name=obj.name)
    return obj.isel({dim: 0}, drop=True).copy(data=values)


def _arg_reduce_dims(obj: xr.DataArray, stat: str, dims: list[Any], policy: NanPolicy
                     ) -> dict[Hashable, xr.DataArray]:
    """argmin / argmax over several dims, as xarray: a dict of DataArrays, one per
    dim, giving the position along that dim of the one extreme over all of them."""
    if len(set(dims)) != len(dims):
        raise ValueError(f"duplicate dims in {dims!r}")
    missing = [d for d in dims if d not in obj.dims]
    if missing:
        raise ValueError(f"{missing!r} not found in array dimensions {obj.dims!r}")
    kept = [d for d in obj.dims if d not in dims]
    moved = obj.transpose(*kept, *dims)
    sizes = [obj.sizes[d] for d in dims]
    flat = np.asarray(moved.values).reshape([obj.sizes[d] for d in kept] + [-1])
    relabel = variable_relabel(obj.name, obj.variable, obj.indexes)
    try:
        pos = array_stat(flat, stat, flat.ndim - 1, policy=policy, relabel=relabel)
    except TypeError as err:
        raise restate(err, variable_subject(obj.name)) from None
    template = moved.isel({d: 0 for d in dims}, drop=True)
    return {d: template.copy(data=np.asarray(i))
            for d, i in zip(dims, np.unravel_index(np.asarray(pos), sizes), strict=True)}


def nan_report(obj: xr.DataArray | xr.Dataset) -> pd.Series | pd.DataFrame:
    """Counts of numbers, NaNs by kind, infinities and missing values.

    A DataArray gives a Series, a Dataset a DataFrame with one row per data variable.
    Dask data is computed (the report is a small in-memory table).

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> r = nan_report(xr.DataArray([1.0, np.nan, np.inf], dims="x"))
    >>> int(r["nan"]), int(r["posinf"])
    (1, 1)
    """
    from ..core import nan_report as _report

    if isinstance(obj, xr.Dataset):
        rows = {name: _report(np.asarray(var.values)) for name, var in obj.data_vars.items()}
        return pd.DataFrame.from_dict(rows, orient="index")
    return pd.Series(_report(np.asarray(obj.values)), name=obj.name)
