"""The boundary of every statistic function (the idea of scipy's ``_axis_nan_policy``).

:func:`statistic` turns a signature-only function of :mod:`nanaccess.api` into a
statistic: :func:`call` refuses keywords the function does not take, resolves the
policy once, validates ``q``, normalises ``axis``, turns a masked array's mask into a
missing mask and hands array data to :func:`nanaccess.core.reduce.reduce`, lists to
:func:`nanaccess.core.iterable.reduce_iterable` (both try the lean small-data paths
first). Lists and other iterables follow the :mod:`statistics` module (Python
results, ``StatisticsError`` on empty data); pandas and xarray objects go to their
``.nanstats`` accessors; dask arrays to the lazy exact path; arrays of other
array-API libraries (CuPy, torch, JAX, ``array_api_strict``) to
:mod:`nanaccess.arrayapi`, on their device; ``weights=`` (:func:`weighted_call`) to
:mod:`nanaccess.core.weighted`.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import statistics
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, ParamSpec, TypeVar, cast

import numpy as np

from . import _stats
from ._docparams import add_sections
from ._hostkit import without_weights_kind
from ._labels import fmt_label, subject
from .core.axes import normalize_axis
from .core.interp import validate_q
from .core.iterable import (
    LEAN_LIST_STATS,
    LEAN_MOMENTS,
    LIST_RANKS,
    array_whole,
    list_array,
    list_median_lane,
    plain_moment,
    reduce_iterable,
)
from .core.reduce import reduce
from .errors import NaNError
from .options import NanPolicy, resolve_dask_passes, resolve_policy

__all__ = ["Axis", "statistic", "call", "host_of", "labelled_errors", "split_host"]

Axis = int | Sequence[int] | None


# ----------------------------------------------------------------------- dispatching


#: top-level modules of array types that go to :mod:`nanaccess.arrayapi`
_ARRAYAPI = frozenset({"cupy", "torch", "jax", "jaxlib", "array_api_strict"})


def host_of(data: Any) -> str:
    t = type(data)
    if t is list or t is tuple:  # the common cases first: this runs on every call
        return "iterable"
    if t is np.ndarray:
        return "array"
    mod = type(data).__module__.split(".")[0]
    if mod == "dask" and hasattr(data, "dask"):
        return "dask"
    if mod == "xarray":
        return "xarray"
    if mod == "pandas" and hasattr(data, "nanstats"):
        return "pandas"
    if isinstance(data, np.ma.MaskedArray):
        return "masked"
    if mod in _ARRAYAPI or hasattr(data, "__array_namespace__") and not isinstance(
            data, np.ndarray | np.generic):
        return "arrayapi"  # CuPy, torch, JAX, array_api_strict: nanaccess.arrayapi
    if isinstance(data, np.ndarray | np.generic) or hasattr(data, "__array__"):
        return "array"
    if isinstance(data, str | bytes):
        raise TypeError(f"expected numeric data, got {type(data).__name__}")
    if isinstance(data, Iterable):
        return "iterable"
    return "scalar"


def split_host(data: Any) -> tuple[np.ndarray, np.ndarray | None] | None:
    """``(values, missing)`` of a 1-D pandas object whose dtype is not NumPy's
    (nullable, Arrow, tz-aware, sparse), read by the pandas adapter; None for
    anything else. Passed to :func:`nanaccess.core.classify.values_and_missing` as its
    ``split`` (the core imports no adapter and holds no registry).

    Examples
    --------
    >>> import pandas as pd
    >>> split_host(pd.Series([1.0, None], dtype="Float64"))[1]
    array([False,  True])
    >>> split_host(np.array([1.0])) is None
    True
    """
    if type(data).__module__.split(".")[0] != "pandas" or getattr(data, "ndim", 0) != 1 \
            or isinstance(getattr(data, "dtype", None), np.dtype):
        return None
    from .pandas.dtypes import column_arrays  # only when a pandas object came in

    col = column_arrays(data)
    return col.values, col.missing



def _accessor_call(data: Any, name: str, axis: Axis, keepdims: bool, kwargs: dict[str, Any]) -> Any:
    """``data.nanstats.<name>(...)``: axis becomes xarray's dim; keepdims is passed
    only to a method that takes it (a TypeError otherwise, never dropped)."""
    method = getattr(data.nanstats, name)
    if axis is not None:
        if host_of(data) == "xarray":
            names = [axis] if isinstance(axis, str) else list(np.atleast_1d(
                np.asarray(axis, dtype=object)))
            if names and all(isinstance(a, str) for a in names):
                kwargs["dim"] = names  # dim names, as xarray users write them
            elif not hasattr(data, "ndim"):
                raise TypeError(f"axis= needs a DataArray; for a {type(data).__name__} "
                                "pass dim= (dimension names)")
            else:
                axes = normalize_axis(axis, data.ndim)
                kwargs["dim"] = [data.dims[a] for a in axes]
            if _stats.get(name).family == "arg" and len(kwargs.get("dim", ())) == 1 \
                    and not isinstance(axis, list | tuple):
                # one axis gives the array, as DataArray.argmin(axis=1); a list of dims
                # gives xarray's dict of arrays
                kwargs["dim"] = kwargs["dim"][0]
        else:
            kwargs["axis"] = axis
    if keepdims:
        if "keepdims" not in inspect.signature(method).parameters:
            raise TypeError(f"keepdims=True is not supported for {type(data).__name__} "
                            f"data ({name} keeps pandas' / xarray's shapes)")
        kwargs["keepdims"] = keepdims
    return method(**kwargs)


def _scalarize(v: np.ndarray) -> Any:
    return v[()] if isinstance(v, np.ndarray) and v.ndim == 0 else v


def _as_list(data: Any) -> list[Any]:
    """The iterable's elements, without copying a list (which is never modified)."""
    return data if type(data) is list else list(data)


def _dask_call(data: Any, stat: str, policy: NanPolicy, axis: Axis, keepdims: bool,
               params: dict[str, Any]) -> Any:
    # the dask_passes option is read once here, at the boundary, and passed down
    mod = importlib.import_module("nanaccess.dask.array")
    return mod.dask_reduce(data, stat, axis=axis, policy=policy, keepdims=keepdims,
                           dask_passes=resolve_dask_passes(None), **params)


def call(stat: str, data: Any, axis: Axis, nan_policy: Any, keepdims: bool,
         params: dict[str, Any], *, lean: bool = True) -> Any:
    """The boundary of every statistic function (see the module docstring);
    ``lean=False``: the caller already tried the lean lane of its list (NaN-free)
    or array (reduced whole, :func:`array_whole`)."""
    if lean and type(data) is list and nan_policy is None and stat in LEAN_LIST_STATS \
            and axis is None and not keepdims and params.get("weights") is None:
        out = list_median_lane(data, stat)
        if out is not None:
            return out
    host = host_of(data)
    params = without_weights_kind(params.get("weights"), params)
    if host == "arrayapi":  # on the data's device, same bits (nanaccess.arrayapi)
        from .arrayapi import arrayapi_call
        return arrayapi_call(stat, data, axis, nan_policy, keepdims, params)
    weights = params.pop("weights", None)
    if weights is not None:
        return weighted_call(stat, data, host, weights, axis, nan_policy, keepdims, params)
    if host in ("pandas", "xarray"):
        return _accessor_call(data, stat, axis, keepdims, {"nan_policy": nan_policy, **params})
    policy = resolve_policy(nan_policy)
    if host == "iterable":
        if axis is not None:
            raise TypeError("axis applies to arrays; got a plain iterable")
        if keepdims:
            raise TypeError("keepdims applies to arrays; got a plain iterable")
        return reduce_iterable(stat, _as_list(data), policy, params)
    if "q" in params:
        params["q"] = validate_q(params["q"])  # validated once, here
    if lean and host == "array" and axis is None and not keepdims:
        out = array_whole(stat, data, policy, params)
        if out is not None:
            return out
    if host == "dask":
        return _dask_call(data, stat, policy, axis, keepdims, params)
    missing = None
    if host == "masked":
        missing, data = np.ma.getmaskarray(data), np.ma.getdata(data)
    r = reduce(np.asarray(data), stat, axis=axis, policy=policy, missing=missing,
               keepdims=keepdims, **params)
    return _scalarize(_missing_as_nan(r.values, r.missing))


def _missing_as_nan(values: np.ndarray, missing: np.ndarray | None) -> np.ndarray:
    """A NumPy host's missing result is the canonical NaN (spec 2): an integer result
    the core marks missing (the sum of masked ints under "propagate") becomes float64
    NaN there, as the integer max of the same data already is."""
    if missing is None or not np.any(missing) or values.dtype.kind not in "iubf":
        return values
    out = values.astype(np.float64) if values.dtype.kind in "iub" else values.copy()
    out[np.broadcast_to(missing, out.shape)] = np.nan
    return out


_P = ParamSpec("_P")
_R = TypeVar("_R")


def statistic(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """Make ``fn`` (its signature and docstring; the body is never run) a statistic
    function: the keywords it declares go through :func:`call`, anything else is a
    TypeError naming the function."""
    stat = fn.__name__
    params = list(inspect.signature(fn).parameters.values())[1:]
    positional = [p.name for p in params if p.kind is p.POSITIONAL_OR_KEYWORD]
    defaults = {p.name: p.default for p in params if p.default is not p.empty}
    allowed = frozenset(p.name for p in params)
    positional_set = frozenset(positional)
    # the statistic's own parameters when the caller passes only data (the common call)
    bare = None if positional else {
        k: v for k, v in defaults.items() if k not in ("axis", "nan_policy", "keepdims")}
    lean_list = bare is not None and stat in LEAN_LIST_STATS  # the list lane, before call()
    ranks = LIST_RANKS.get(stat)
    # a plain small float64 array's moment needs no policy (core/iterable.plain_moment)
    lean_moment = bare is not None and stat in LEAN_MOMENTS
    ddof = bare.get("ddof", 0) if bare is not None else 0
    # the parameters call() hands array_whole for a bare call (weights None, the
    # default weights_kind dropped): an array with only a nan_policy goes there at once
    whole = None if bare is None or bare.get("weights_kind", "frequency") != "frequency" \
        else {k: v for k, v in bare.items() if k not in ("weights", "weights_kind")}
    add_sections(fn)  # Parameters and Returns from the signature and the table

    @functools.wraps(fn)
    def wrapper(data: Any, *args: Any, **kwargs: Any) -> Any:
        if type(data) is list and lean_list and not args:
            if not kwargs:  # the common case
                out = list_median_lane(data, stat, None, ranks)
                if out is not None:
                    return out
                return call(stat, data, None, None, False, dict(bare), lean=False)
            if len(kwargs) == 1 and "nan_policy" in kwargs:  # a policy, nothing else
                nan_policy = kwargs["nan_policy"]
                out = list_median_lane(data, stat, resolve_policy(nan_policy), ranks)
                if out is not None:
                    return out
                return call(stat, data, None, nan_policy, False, dict(bare), lean=False)
        if type(data) is np.ndarray and whole is not None and not args \
                and len(kwargs) == 1 and "nan_policy" in kwargs:
            nan_policy = kwargs["nan_policy"]
            out = array_whole(stat, data, resolve_policy(nan_policy), dict(whole))
            if out is not None:
                return out
            return call(stat, data, None, nan_policy, False, dict(bare), lean=False)
        if not args and not kwargs and bare is not None:
            if lean_moment and type(data) is np.ndarray:
                out = plain_moment(data, stat, ddof)
                if out is not None:
                    return out
            return call(stat, data, None, None, False, dict(bare))
        if args:
            if len(args) > len(positional):
                raise TypeError(f"{stat}() takes {len(positional) + 1} positional "
                                f"argument(s) but {len(args) + 1} were given")
            kwargs.update(zip(positional, args, strict=False))
        if not allowed.issuperset(kwargs):
            bad = sorted(set(kwargs) - allowed)
            raise TypeError(f"{stat}() got an unexpected keyword argument {bad[0]!r}")
        kw = {**defaults, **kwargs}
        if positional and not kw.keys() >= positional_set:
            first = next(p for p in positional if p not in kw)
            raise TypeError(f"{stat}() missing required argument {first!r}")
        axis = kw.pop("axis", None)
        nan_policy = kw.pop("nan_policy", None)
        keepdims = kw.pop("keepdims", False)
        return call(stat, data, axis, nan_policy, keepdims, kw)

    return cast(Callable[_P, _R], wrapper)  # the declared signature is the contract


# ------------------------------------------------------------------ plain iterables


# ------------------------------------------------------------------ weights=


def weighted_call(stat: str, data: Any, host: str, weights: Any, axis: Axis,
                   nan_policy: Any, keepdims: bool, params: dict[str, Any]) -> Any:
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
        arr = list_array(vals)
        r = reduce(arr, stat, policy=policy, weights=weights, weights_missing=w_missing,
                   **params)
        if not r.count.all() and stat not in _stats.SUMS:  # nothing left, as the statistics module
            raise statistics.StatisticsError(f"no weighted {stat} for empty data")
        return r.values.tolist() if r.values.ndim else r.values.item()
    if host == "masked":
        missing, data = np.ma.getmaskarray(data), np.ma.getdata(data)
    r = reduce(np.asarray(data), stat, axis=axis, policy=policy, missing=missing,
               keepdims=keepdims, weights=weights, weights_missing=w_missing, **params)
    return _scalarize(r.values)


@contextmanager
def labelled_errors(data: Any) -> Iterator[None]:
    """Restate core errors on a pandas Series with its index label."""
    try:
        yield
    except NaNError as err:
        index = getattr(data, "index", None)
        ndim = getattr(data, "ndim", 0)
        if index is None or err.position is None or ndim not in (1, 2):
            raise
        pos = err.position
        if ndim == 2:  # a DataFrame read row-major (np.asarray(df).ravel())
            flat = int(np.ravel_multi_index(pos, data.shape) if len(pos) == 2 else pos[0])
            row, col = divmod(flat, data.shape[1])
            what = subject("column", data.columns[col])
        else:
            row = int(pos[0] if isinstance(pos, tuple) else pos)
            what = subject("column", getattr(data, "name", None), unnamed="data")
        raise err.relabel(what, f"index {fmt_label(index[row])}") from None
