"""The one door of array-API data: :func:`arrayapi_call` (from the boundary) and
:func:`reduce_xp` (statistic by statistic: the device engines or the host).

float32/float64 order and arg statistics, moments, iqr and mad run on the data's
device (:mod:`.order`, :mod:`.moments`); everything else (other dtypes, weights,
mad's NaN deviations outside "omit", errors to raise with the NumPy core's message
and position, empty axes) copies the data to the host, runs
:func:`nanaccess.core.reduce.reduce` and copies the result back. Either way the
result is an array of the caller's namespace, on the caller's device, with the bits
NumPy input gives.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _stats
from ..core.axes import Reduction, normalize_axis
from ..core.interp import validate_q
from ..core.policy import RULES
from ..core.reduce import reduce
from ..core.spread import check_rng, check_scale, difference, divide_by_scale
from ..options import NanPolicy, resolve_policy
from ._shim import from_numpy, namespace, np_dtype, to_numpy
from .common import DEVICE_DTYPES
from .moments import moment_xp
from .order import HostNeeded, arg_xp, order_xp

__all__ = ["reduce_xp", "arrayapi_call", "host_reduce"]


def host_reduce(x: Any, stat: str, *, axis: Any = None, policy: NanPolicy,
                keepdims: bool = False, **params: Any) -> np.ndarray:
    """The NumPy core on a host copy of ``x`` (the reference and the fallback)."""
    return reduce(to_numpy(x), stat, axis=axis, policy=policy, keepdims=keepdims,
                  **params).values


def reduce_xp(x: Any, stat: str, *, axis: Any = None, policy: NanPolicy = NanPolicy.RAISE,
              keepdims: bool = False, **params: Any) -> Any:
    """Statistic ``stat`` of array-API ``x`` along ``axis``: an array of ``x``'s
    namespace and device with the bits of :func:`nanaccess.core.reduce.reduce`.

    Examples
    --------
    >>> import array_api_strict as xp
    >>> reduce_xp(xp.asarray([1.0, float("nan"), 4.0]), "median", policy=NanPolicy.OMIT)
    Array(2.5, dtype=array_api_strict.float64)
    """
    entry = _stats.get(stat)
    unknown = set(params) - set(entry.param_names)
    if unknown:
        raise TypeError(f"{stat}() got unexpected keyword(s) {sorted(unknown)}")
    try:
        vals = _device(x, stat, entry, axis, policy, keepdims, params)
    except HostNeeded:
        vals = host_reduce(x, stat, axis=axis, policy=policy, keepdims=keepdims, **params)
    return from_numpy(np.asarray(vals), like=x)


def _device(x: Any, stat: Any, entry: Any, axis: Any, policy: Any, keepdims: Any,
            params: Any) -> np.ndarray:
    """The device engines by the table's kernel family and recipe; a statistic none
    of them serves (the higher family: skew, kurt, sem, prod) takes the host."""
    if np_dtype(x).newbyteorder("=") not in DEVICE_DTYPES:
        raise HostNeeded("a dtype of the NumPy core")
    family, recipe = entry.family, entry.compose.recipe if entry.compose else None
    if entry.kernel_family not in _stats.DEVICE_KERNELS \
            and recipe not in _stats.DEVICE_RECIPES:
        raise HostNeeded(f"{stat}: no device engine")
    xp = namespace(x)
    red = Reduction(tuple(x.shape), normalize_axis(axis, x.ndim))
    if family == "order":
        vals, _ = order_xp(x, xp, stat, red, policy, q=params.get("q"),
                           method=params.get("method", "linear"), keepdims=keepdims)
    elif family in _stats.MOMENT_FAMILIES:
        vals, _ = moment_xp(x, xp, stat, red, policy, ddof=params.get("ddof", 0),
                            keepdims=keepdims)
    elif recipe == "difference":  # iqr
        lo_p, hi_p = check_rng(params.get("rng", (25, 75)))
        qs, _ = order_xp(x, xp, "quantile", red, policy, q=[lo_p / 100, hi_p / 100],
                         method=params.get("method", "linear"), keepdims=keepdims)
        vals = np.asarray(difference(qs[1, ...], qs[0, ...]))
    elif recipe == "deviation":  # mad
        vals = _mad(x, xp, red, policy, check_scale(params.get("scale", 1.0)), keepdims)
    else:  # the arg kernel family (argmin, argmax)
        vals = arg_xp(x, xp, stat, red, policy, keepdims=keepdims)
    return vals


def _mad(x: Any, xp: Any, red: Any, policy: Any, scale: Any, keepdims: Any) -> np.ndarray:
    """mad on the device where the deviations need no NaN rule: ``|x - center|`` is
    one correctly rounded subtraction per element on any IEEE device; deviations that
    are NaN (NaN data, a NaN center, ``inf - inf``) take the host unless the policy
    drops every NaN and no ``inf - inf`` arose (then any NaN bits are dropped alike)."""
    center, _ = order_xp(x, xp, "median", red, policy, keepdims=True)
    c = from_numpy(center.reshape(red.keep_shape), like=x)
    with np.errstate(invalid="ignore", over="ignore"):  # NumPy-backed namespaces warn
        dev = xp.abs(x - c)
    bad = xp.isnan(dev)
    if bool(to_numpy(xp.any(bad))):
        undefined = bad & ~xp.isnan(x) & ~xp.isnan(c)
        if not RULES[policy].removes or bool(to_numpy(xp.any(undefined))):
            raise HostNeeded("deviations with the NaN rules of core.spread")
    vals, _ = order_xp(dev, xp, "median", red, policy, keepdims=keepdims)
    return np.asarray(divide_by_scale(vals, scale))


def arrayapi_call(stat: str, data: Any, axis: Any, nan_policy: Any, keepdims: bool,
                  params: dict[str, Any]) -> Any:
    """The boundary's door for array-API data (:func:`nanaccess._boundary.call`)."""
    policy = resolve_policy(nan_policy)
    if "q" in params:
        params["q"] = validate_q(params["q"])
    weights = params.pop("weights", None)
    if weights is not None:  # the weighted engine runs on the host
        vals = reduce(to_numpy(data), stat, axis=axis, policy=policy, keepdims=keepdims,
                      weights=to_numpy(weights) if hasattr(weights, "shape") else weights,
                      **params).values
        return from_numpy(np.asarray(vals), like=data)
    return reduce_xp(data, stat, axis=axis, policy=policy, keepdims=keepdims, **params)
