"""The boundary of ``weights=`` (issue 13): the weighted engine
(:mod:`nanaccess.core.weighted`) on arrays, masked arrays and iterables, the lazy
engine (:mod:`nanaccess.dask.weighted`) on dask arrays, and the accessors'
``weights=`` on pandas and xarray data; the policy covers the weights. Called by
:func:`nanaccess._boundary.call`."""

from __future__ import annotations

import statistics
from typing import Any

import numpy as np

from ._boundary import Axis, _accessor_call, _as_list, _scalarize
from .core.floatlist import float_list_array
from .core.interp import validate_q
from .core.reduce import reduce
from .options import resolve_policy

__all__ = ["weighted_call"]


def weighted_call(stat: str, data: Any, host: str, weights: Any, axis: Axis,
                   nan_policy: Any, keepdims: bool, params: dict) -> Any:
    """``weights=`` given: the weighted engine (:mod:`nanaccess.core.weighted`) on
    arrays, masked arrays and iterables of floats, :mod:`nanaccess.dask.weighted` on
    dask arrays (lazy), ``data.nanstats.<stat>(weights=...)`` on pandas / xarray
    data; the policy covers the weights."""
    if host in ("pandas", "xarray"):
        return _accessor_call(data, stat, axis, keepdims,
                              {"nan_policy": nan_policy, "weights": weights, **params})
    policy = resolve_policy(nan_policy)
    if "q" in params:
        validate_q(params["q"])
    if host == "dask":
        import dask.array as da

        if not isinstance(data, da.Array):
            raise TypeError(f"{stat}(weights=...) takes dask arrays; got "
                            f"{type(data).__name__} (use its nanstats accessor)")
        from .dask.weighted import dask_weighted  # the lazy weighted engine, on demand

        return dask_weighted(data, stat, weights, axis=axis, policy=policy,
                             keepdims=keepdims, **params)
    w_missing = None
    if isinstance(weights, np.ma.MaskedArray):
        w_missing, weights = np.ma.getmaskarray(weights), np.ma.getdata(weights)
    missing = None
    if host == "iterable":
        if axis is not None or keepdims:
            raise TypeError("axis and keepdims apply to arrays; got a plain iterable")
        vals = _as_list(data)
        arr = float_list_array(vals)
        if arr is None:
            arr = np.asarray(vals)
        r = reduce(arr, stat, policy=policy, weights=weights, weights_missing=w_missing,
                   **params)
        if not r.count.all() and stat != "sum":  # nothing left, as the statistics module
            raise statistics.StatisticsError(f"no weighted {stat} for empty data")
        return r.values.tolist() if r.values.ndim else r.values.item()
    if host == "masked":
        missing, data = np.ma.getmaskarray(data), np.ma.getdata(data)
    r = reduce(np.asarray(data), stat, axis=axis, policy=policy, missing=missing,
               keepdims=keepdims, weights=weights, weights_missing=w_missing, **params)
    return _scalarize(r.values)
