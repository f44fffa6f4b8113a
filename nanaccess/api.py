"""The public functions: one entry per statistic, dispatching on the kind of input.

Every statistic function goes through one boundary (:func:`_statistic`, the idea of
scipy's ``_axis_nan_policy``): it refuses keywords the function does not take,
resolves the policy once, validates ``q``, normalises ``axis``, turns a masked
array's mask into a missing mask and hands array data to
:func:`nanaccess.core.reduce.reduce`. Lists and other iterables follow the
:mod:`statistics` module (Python results, ``StatisticsError`` on empty data);
pandas and xarray objects go to their ``.nanstats`` accessors; dask arrays to the
lazy exact path.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import statistics
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from . import _stats
from ._labels import fmt_label, subject
from .core import sorting as _sorting
from .core.axes import normalize_axis
from .core.floatlist import float_list_array
from .core.interp import validate_q
from .core.lists import MEDIANS, list_median
from .core.objects import object_moment_stat, object_order_stat
from .core.reduce import reduce
from .core.small import MOMENTS, array_median, array_moment, float_list_median
from .errors import NaNError
from .options import NanPolicy, resolve_policy

__all__ = [*_stats.names("order", "arg", "moment", "spread"), "quantiles", "sort",
           "argsort", "rank"]

Axis = int | Sequence[int] | None
_EMPTY_MSG = {
    "mean": "mean requires at least one data point",
    "var": "variance requires at least one data point",
    "std": "standard deviation requires at least one data point",
}


# ----------------------------------------------------------------------- dispatching


def _host(data: Any) -> str:
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
    if isinstance(data, np.ndarray | np.generic) or hasattr(data, "__array__"):
        return "array"
    if isinstance(data, str | bytes):
        raise TypeError(f"expected numeric data, got {type(data).__name__}")
    if isinstance(data, Iterable):
        return "iterable"
    return "scalar"


def _accessor_call(data: Any, name: str, axis: Axis, keepdims: bool, kwargs: dict) -> Any:
    """``data.nanstats.<name>(...)``: axis becomes xarray's dim; keepdims is passed
    only to a method that takes it (a TypeError otherwise, never dropped)."""
    method = getattr(data.nanstats, name)
    if axis is not None:
        if _host(data) == "xarray":
            axes = normalize_axis(axis, data.ndim)
            kwargs["dim"] = [data.dims[a] for a in axes]
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


def _as_list(data: Any) -> list:
    """The iterable's elements, without copying a list (which is never modified)."""
    return data if type(data) is list else list(data)


def _dask_call(data: Any, stat: str, policy: NanPolicy, axis: Axis, keepdims: bool,
               params: dict) -> Any:
    mod = importlib.import_module("nanaccess.dask.array")
    fn = getattr(mod, "dask_reduce", None)
    if fn is not None:
        return fn(data, stat, axis=axis, policy=policy, keepdims=keepdims, **params)
    family = _stats.get(stat).family
    if family in ("order", "arg"):
        return mod.dask_order_stat(data, stat, axis=axis, policy=policy, keepdims=keepdims,
                                   **params)
    if family == "moment":
        return mod.dask_moment_stat(data, stat, axis=axis, policy=policy, keepdims=keepdims,
                                    ddof=params.get("ddof", 0))
    raise TypeError(f"{stat} of a dask array needs nanaccess.dask.array.dask_reduce")


def _call(stat: str, data: Any, axis: Axis, nan_policy: Any, keepdims: bool,
          params: dict) -> Any:
    """The boundary of every statistic function (see the module docstring)."""
    if type(data) is list and nan_policy is None and stat in MEDIANS and axis is None \
            and not keepdims and params.get("weights") is None:
        out = float_list_median(data, stat)  # NaN-free: no policy to resolve (core/small.py)
        if out is not None:
            return out
    host = _host(data)
    weights = params.pop("weights", None)
    if weights is not None:
        return _weighted_call(stat, data, host, weights, axis, nan_policy, keepdims, params)
    if host in ("pandas", "xarray"):
        return _accessor_call(data, stat, axis, keepdims, {"nan_policy": nan_policy, **params})
    policy = resolve_policy(nan_policy)
    if host == "iterable":
        if axis is not None:
            raise TypeError("axis applies to arrays; got a plain iterable")
        if keepdims:
            raise TypeError("keepdims applies to arrays; got a plain iterable")
        return _ITERABLE[_stats.get(stat).family](stat, _as_list(data), policy, params)
    if host == "array" and stat in MEDIANS and axis is None and not keepdims and not params:
        out = array_median(data, stat)  # small NaN-free float64 (core/small.py)
        if out is not None:
            return out
    if host == "array" and stat in MOMENTS and axis is None and not keepdims and not params:
        out = array_moment(data, stat)  # small finite float64, exact (core/small.py)
        if out is not None:
            return out
    if "q" in params:
        validate_q(params["q"])
    if host == "dask":
        return _dask_call(data, stat, policy, axis, keepdims, params)
    missing = None
    if host == "masked":
        missing, data = np.ma.getmaskarray(data), np.ma.getdata(data)
    r = reduce(np.asarray(data), stat, axis=axis, policy=policy, missing=missing,
               keepdims=keepdims, **params)
    return _scalarize(r.values)


def _weighted_call(stat: str, data: Any, host: str, weights: Any, axis: Axis,
                   nan_policy: Any, keepdims: bool, params: dict) -> Any:
    """``weights=`` given: the weighted engine (:mod:`nanaccess.core.weighted`) on
    arrays, masked arrays and iterables of floats; the policy covers the weights."""
    if host in ("pandas", "xarray", "dask"):
        raise TypeError(
            f"{stat}(weights=...) takes NumPy arrays and iterables; for {type(data).__name__} "
            "data pass its values (e.g. .to_numpy()) until the accessors take weights="
        )
    policy = resolve_policy(nan_policy)
    if "q" in params:
        validate_q(params["q"])
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


def _statistic(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Make ``fn`` (its signature and docstring; the body is never run) a statistic
    function: the keywords it declares go through :func:`_call`, anything else is a
    TypeError naming the function."""
    stat = fn.__name__
    params = list(inspect.signature(fn).parameters.values())[1:]
    positional = [p.name for p in params if p.kind is p.POSITIONAL_OR_KEYWORD]
    defaults = {p.name: p.default for p in params if p.default is not p.empty}
    allowed = frozenset(p.name for p in params)
    # the statistic's own parameters when the caller passes only data (the common call)
    bare = None if positional else {
        k: v for k, v in defaults.items() if k not in ("axis", "nan_policy", "keepdims")}

    @functools.wraps(fn)
    def call(data: Any, *args: Any, **kwargs: Any) -> Any:
        if bare is not None and not args and not kwargs:
            return _call(stat, data, None, None, False, dict(bare))
        if args:
            if len(args) > len(positional):
                raise TypeError(f"{stat}() takes {len(positional) + 1} positional "
                                f"argument(s) but {len(args) + 1} were given")
            kwargs.update(zip(positional, args, strict=False))
        if not allowed.issuperset(kwargs):
            bad = sorted(set(kwargs) - allowed)
            raise TypeError(f"{stat}() got an unexpected keyword argument {bad[0]!r}")
        kw = {**defaults, **kwargs}
        missing_args = [p for p in positional if p not in kw]
        if missing_args:
            raise TypeError(f"{stat}() missing required argument {missing_args[0]!r}")
        axis = kw.pop("axis", None)
        nan_policy = kw.pop("nan_policy", None)
        keepdims = kw.pop("keepdims", False)
        return _call(stat, data, axis, nan_policy, keepdims, kw)

    return call


# ------------------------------------------------------------------ plain iterables


def _iterable_order(stat: str, vals: list, policy: NanPolicy, params: dict) -> Any:
    """statistics-module behaviour for plain iterables."""
    if stat in MEDIANS:
        # NaN-free short float lists (core/small.py), homogeneous lists (core/lists.py)
        out = float_list_median(vals, stat)
        if out is None:
            out = list_median(vals, stat)
        if out is not None:
            return out
    arr = float_list_array(vals)
    if arr is not None:
        r = reduce(arr, stat, policy=policy, **params)
        # a NaN result may mean nothing was left ("omit"): statistics raises then
        if np.isnan(r.values).any() and not r.count:
            raise statistics.StatisticsError(f"no {stat} for empty data")
        return r.values.tolist() if r.values.ndim else r.values.item()
    if not vals:
        raise statistics.StatisticsError(f"no {stat} for empty data")
    out = object_order_stat(vals, stat, policy=policy, statistics_compat=True, **params)
    if out is None and stat in ("argmin", "argmax"):
        # decision 6: an arg statistic never points at a missing value (as the array
        # path): missing values have no place in the order, so they are passed over
        return object_order_stat(vals, stat, policy=NanPolicy.OMIT, statistics_compat=True,
                                 **params)
    return out


def _iterable_moment(stat: str, vals: list, policy: NanPolicy, params: dict) -> Any:
    arr = float_list_array(vals)
    if arr is not None:
        r = reduce(arr, stat, policy=policy, **params)
        if stat in _EMPTY_MSG and not r.count:  # nothing left ("omit")
            raise statistics.StatisticsError(_EMPTY_MSG[stat])
        return r.values.item()
    if not vals:
        if stat == "sum":
            return 0
        raise statistics.StatisticsError(_EMPTY_MSG[stat])
    return object_moment_stat(vals, stat, policy=policy, statistics_compat=True, **params)


def _iterable_spread(stat: str, vals: list, policy: NanPolicy, params: dict) -> Any:
    """iqr / mad of an iterable: floats on the float64 path, anything else exactly on
    the object path (Fraction and Decimal results); nothing left is a
    ``StatisticsError`` as the statistics module's."""
    arr = float_list_array(vals)
    if arr is None:
        arr = np.empty(len(vals), dtype=object)
        arr[:] = vals
    r = reduce(arr, stat, policy=policy, **params)
    if not r.count:
        raise statistics.StatisticsError(f"no {stat} for empty data")
    if r.missing is not None and r.missing.any():
        return None  # a missing result ("propagate" over missing values), as median's
    return r.values.item()


_ITERABLE: dict[str, Callable[..., Any]] = {
    "order": _iterable_order,
    "arg": _iterable_order,
    "moment": _iterable_moment,
    "spread": _iterable_spread,
}


@contextmanager
def _labelled_errors(data: Any) -> Iterator[None]:
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


def _sort_args(data: Any) -> tuple[Any, np.ndarray | None]:
    """A masked array's data and mask (a masked entry is missing; the policy's rule
    for it lives in :func:`nanaccess.core.sorting.sort_policy`)."""
    if isinstance(data, np.ma.MaskedArray):
        mask = np.ma.getmaskarray(data)
        return data, (mask if mask.any() else None)
    return data, None


def sort(data: Any, *, axis: int | None = -1, nan_policy: str | None = None) -> np.ndarray:
    """A sorted copy of ``data``, every bit kept (NaN payloads, signed zeros).

    ``nan_policy`` defaults to "totalorder"; "smallest"/"largest" put NaNs first/last,
    "omit" drops them (1-D only), "raise" raises, "propagate" is a ``ValueError``.
    Object data (Decimal, Fraction, huge ints, mixtures) is ordered exactly.

    Examples
    --------
    >>> import nanaccess as na
    >>> na.sort(np.array([1.0, np.nan, -0.0, 0.0, -np.nan]))
    array([nan, -0.,  0.,  1., nan])
    >>> na.sort(np.array([2.0, np.nan, 1.0]), nan_policy="omit")
    array([1., 2.])
    """
    data, missing = _sort_args(data)
    with _labelled_errors(data):
        return _sorting.sort(data, axis=axis, nan_policy=nan_policy, missing=missing)


def argsort(data: Any, *, axis: int | None = -1, nan_policy: str | None = None) -> np.ndarray:
    """Indices that sort ``data`` under ``nan_policy`` (default "totalorder"), stably.

    Examples
    --------
    >>> import nanaccess as na
    >>> na.argsort(np.array([0.0, np.nan, -0.0, -np.inf]))
    array([3, 2, 0, 1])
    """
    data, missing = _sort_args(data)
    with _labelled_errors(data):
        return _sorting.argsort(data, axis=axis, nan_policy=nan_policy, missing=missing)


def rank(data: Any, *, axis: int = -1, method: str = "average", nan_policy: str | None = None,
         ascending: bool = True, pct: bool = False) -> np.ndarray:
    """Ranks (1-based, float64) as pandas' ``rank(method=...)``, on totalOrder keys.

    Under "omit" NaNs keep a NaN rank (pandas' ``na_option="keep"``); "smallest" and
    "largest" rank them first / last; "totalorder" ranks -0.0 below +0.0 and NaNs by
    sign and payload.

    Examples
    --------
    >>> import nanaccess as na
    >>> na.rank(np.array([3.0, np.nan, 1.0, 3.0]), nan_policy="omit")
    array([2.5, nan, 1. , 2.5])
    >>> na.rank(np.array([0.0, -0.0]))
    array([2., 1.])
    """
    data, missing = _sort_args(data)
    with _labelled_errors(data):
        return _sorting.rank(data, axis=axis, method=method, nan_policy=nan_policy,
                             ascending=ascending, pct=pct, missing=missing)


# ------------------------------------------------------------------ order statistics


@_statistic
def median(data: Any, *, axis: Axis = None, weights: Any = None,
           nan_policy: str | None = None,
           keepdims: bool = False) -> Any:
    """Median of ``data`` under an explicit ``nan_policy``.

    Parameters
    ----------
    data : iterable or array_like
        A list/iterable (any Python numbers: floats, ints of any size, Fraction,
        Decimal), a NumPy (or masked) array, a pandas/xarray object (delegates to its
        ``.nanstats`` accessor) or a dask array (lazy, exact).
    axis : None, int or tuple of ints
        Axes to reduce (arrays only). None reduces all.
    weights : array_like, optional
        Frequency weights (see :doc:`/weighted`): broadcastable to ``data``, or 1-D
        along a single ``axis``. A weight says how many times its value counts; the
        weighted median is the weighted ``quantile(0.5)``. The policy covers the
        weights: a NaN weight raises under "raise" (naming "weights"), drops the pair
        under "omit", gives NaN under "propagate" and is a ``ValueError`` under the
        ordering policies; negative or infinite weights are a ``ValueError``; zero
        weights drop their values.
    nan_policy : {"raise", "propagate", "omit", "smallest", "largest", "totalorder"}
        What NaNs mean; default from :func:`nanaccess.get_options` ("raise").
    keepdims : bool
        Keep reduced axes with length one (arrays only).

    Returns
    -------
    scalar or ndarray
        Plain iterables give the same value and type as :func:`statistics.median`
        on NaN-free data.

    Raises
    ------
    NaNError
        Under "raise" when a NaN or missing value is present.
    SignalingNaNError
        For a signaling NaN under every policy but "totalorder".
    statistics.StatisticsError
        Empty iterable (or nothing left under "omit").

    Examples
    --------
    >>> import nanaccess as na
    >>> nan = float("nan")
    >>> data = [nan, 1, 2, 3, 4]
    >>> na.median(data, nan_policy="omit"), na.median(data[::-1], nan_policy="omit")
    (2.5, 2.5)
    >>> na.median([nan] * 4 + [1, 2, 3, 4, 5, 6, 7], nan_policy="smallest")  # the stored int
    2
    >>> na.median([1.7e308, 1.7e308])
    1.7e+308
    >>> na.median(np.array([[1.0, np.nan], [3.0, 4.0]]), axis=1, nan_policy="omit")
    array([1. , 3.5])
    >>> na.median([1.0, 2.0, 3.0], weights=[1, 1, 5])  # as median([1, 2, 3, 3, 3, 3, 3])
    3.0
    """


@_statistic
def median_low(data: Any, *, axis: Axis = None, weights: Any = None,
               nan_policy: str | None = None,
               keepdims: bool = False) -> Any:
    """Low median: the smaller middle element, returned exactly as stored.

    Parameters as :func:`median`; with ``weights`` the element at the lower middle
    position of the repeated data.

    Examples
    --------
    >>> import nanaccess as na
    >>> na.median_low([1, 3, 5, 7])
    3
    >>> na.median_low(np.array([4.0, np.nan, 1.0]), nan_policy="largest")
    np.float64(4.0)
    """


@_statistic
def median_high(data: Any, *, axis: Axis = None, weights: Any = None,
                nan_policy: str | None = None,
                keepdims: bool = False) -> Any:
    """High median: the larger middle element, returned exactly as stored.

    Parameters as :func:`median`; with ``weights`` the element at the upper middle
    position of the repeated data.

    Examples
    --------
    >>> import nanaccess as na
    >>> na.median_high([1, 3, 5, 7])
    5
    """


@_statistic
def quantile(data: Any, q: Any, *, axis: Axis = None, method: str = "linear",
             weights: Any = None, nan_policy: str | None = None,
             keepdims: bool = False) -> Any:
    """Quantile(s) ``q`` in [0, 1], with NumPy's methods.

    Parameters
    ----------
    data : iterable or array_like
        As :func:`median`.
    q : float or sequence of floats
        For arrays a sequence puts its dimensions first, as :func:`numpy.quantile`;
        for iterables it gives a list.
    method : {"linear", "lower", "higher", "nearest", "midpoint", "inclusive", "exclusive"}
        As :func:`numpy.quantile` ("inclusive" = "linear", "exclusive" = "weibull").
        A weight of exactly zero is a pick: the quantile of ``[1, 2, inf]`` at 0.5 is 2.0.
    weights : array_like, optional
        Frequency weights, as :func:`median`: every method equals the unweighted
        quantile of the data repeated by integer weights, and "inverted_cdf" equals
        ``numpy.quantile(..., weights=w, method="inverted_cdf")``.
    axis, nan_policy, keepdims
        As :func:`median`.

    Examples
    --------
    >>> import nanaccess as na
    >>> na.quantile(np.array([1.0, 2.0, np.inf]), 0.5)
    np.float64(2.0)
    >>> na.quantile(np.array([1.0, 2.0, 3.0, 4.0, np.nan]), [0.25, 0.75], nan_policy="omit")
    array([1.75, 3.25])
    >>> na.quantile(np.array([1.0, 2.0, 3.0]), 0.5, weights=[3, 1, 1], method="inverted_cdf")
    np.float64(1.0)
    """


def quantiles(data: Any, *, n: int = 4, method: str = "exclusive",
              nan_policy: str | None = None) -> list:
    """Cut points dividing ``data`` into ``n`` intervals, as :func:`statistics.quantiles`.

    Examples
    --------
    >>> import nanaccess as na
    >>> na.quantiles([1, 2, 3, 4, 5, 6, 7, 8, float("nan")], n=4, nan_policy="omit")
    [2.25, 4.5, 6.75]
    """
    policy = resolve_policy(nan_policy)
    host = _host(data)
    if host == "iterable":
        vals = list(data)
    else:
        missing = None
        if host == "masked":
            missing = np.ma.getmaskarray(data).ravel()
            arr = np.ma.getdata(data).ravel()
        else:
            arr = np.asarray(data).ravel()
        if arr.dtype.kind == "f" or missing is not None:
            # the policy's checks on the bits: a conversion to Python floats would
            # quiet float16/float32 signaling NaNs
            with _labelled_errors(data):
                if arr.size:
                    reduce(arr, "min", policy=policy, missing=missing)
        vals = arr.tolist()
        if missing is not None and missing.any():
            vals = [None if m else v for v, m in zip(vals, missing.tolist(), strict=True)]
    with _labelled_errors(data):
        return object_order_stat(vals, "quantiles", n=n, method=method, policy=policy,
                                 statistics_compat=True)


@_statistic
def min(data: Any, *, axis: Axis = None, nan_policy: str | None = None,
        keepdims: bool = False) -> Any:  # noqa: A001 - numpy's name
    """Smallest value under the policy's order (-0.0 below +0.0), exactly as stored.

    Examples
    --------
    >>> import nanaccess as na
    >>> na.min([0.0, -0.0, 3.0])
    -0.0
    >>> na.min(np.array([2.0, np.nan]), nan_policy="smallest")
    np.float64(nan)
    """


@_statistic
def max(data: Any, *, axis: Axis = None, nan_policy: str | None = None,
        keepdims: bool = False) -> Any:  # noqa: A001 - numpy's name
    """Largest value under the policy's order, exactly as stored.

    Examples
    --------
    >>> import nanaccess as na
    >>> na.max(np.array([2.0, np.nan, 5.0]), nan_policy="omit")
    np.float64(5.0)
    """


@_statistic
def argmin(data: Any, *, axis: int | None = None, nan_policy: str | None = None) -> Any:
    """Index of the first smallest value (flat index for ``axis=None``, as NumPy).

    Examples
    --------
    >>> import nanaccess as na
    >>> na.argmin(np.array([3.0, np.nan, 1.0]), nan_policy="omit")
    np.int64(2)
    """


@_statistic
def argmax(data: Any, *, axis: int | None = None, nan_policy: str | None = None) -> Any:
    """Index of the first largest value (flat index for ``axis=None``, as NumPy).

    Examples
    --------
    >>> import nanaccess as na
    >>> na.argmax(np.array([3.0, np.nan, 1.0]), nan_policy="largest")
    np.int64(1)
    """


# ----------------------------------------------------------------- moment statistics


@_statistic
def mean(data: Any, *, axis: Axis = None, weights: Any = None,
         nan_policy: str | None = None,
         keepdims: bool = False) -> Any:
    """Arithmetic mean, computed from the exact sum and rounded once.

    So the result is the same for every order of the data, and equals
    :func:`statistics.mean` bit for bit on floats. With ``weights`` (frequency
    weights, as :func:`median`) it is ``sum(w x) / sum(w)`` from exact sums, rounded
    once: :func:`statistics.fmean` with weights, correctly rounded.

    Examples
    --------
    >>> import nanaccess as na
    >>> na.mean([1.0, float("nan"), 2.0], nan_policy="omit")
    1.5
    >>> na.mean([1e100, 1.0, -1e100])
    0.3333333333333333
    >>> na.mean([1.0, 2.0, 4.0], weights=[2, 1, 1])
    2.0
    """


@_statistic
def var(data: Any, *, axis: Axis = None, ddof: float = 0, weights: Any = None,
        nan_policy: str | None = None,
        keepdims: bool = False) -> Any:
    """Variance with ``ddof`` (default 0 as NumPy/xarray), exactly rounded.

    With ``weights`` (frequency weights, as :func:`median`):
    ``sum(w (x - m)**2) / (sum(w) - ddof)`` with ``m`` the exact weighted mean, so
    ``ddof`` subtracts from the total weight; exact, rounded once.

    Examples
    --------
    >>> import nanaccess as na
    >>> na.var([1.0, 2.0, 3.0, 4.0]), na.var([1.0, 2.0, 3.0, 4.0], ddof=1)
    (1.25, 1.6666666666666667)
    """


@_statistic
def std(data: Any, *, axis: Axis = None, ddof: float = 0, weights: Any = None,
        nan_policy: str | None = None,
        keepdims: bool = False) -> Any:
    """Standard deviation: the square root of :func:`var` (``weights`` as there).

    Examples
    --------
    >>> import nanaccess as na
    >>> na.std(np.array([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]))
    np.float64(2.0)
    """


@_statistic
def sum(data: Any, *, axis: Axis = None, weights: Any = None,  # noqa: A001
        nan_policy: str | None = None,
        keepdims: bool = False) -> Any:
    """Exact sum rounded once (as :func:`math.fsum`); ints are exact or raise OverflowError.

    With ``weights`` (frequency weights, as :func:`median`): the exact ``sum(w x)``
    rounded once (ints with integer weights stay exact ints).

    Examples
    --------
    >>> import nanaccess as na
    >>> na.sum([0.1] * 10)
    1.0
    >>> na.sum(np.array([1.0, np.nan]), nan_policy="omit")
    np.float64(1.0)
    """


# ----------------------------------------------------------------- spread statistics


@_statistic
def iqr(data: Any, *, axis: Axis = None, rng: tuple[float, float] = (25, 75),
        method: str = "linear", nan_policy: str | None = None,
        keepdims: bool = False) -> Any:
    """Interquartile range: the difference of two quantiles, as :func:`scipy.stats.iqr`.

    Parameters
    ----------
    data : iterable or array_like
        As :func:`median`.
    axis : None, int or tuple of ints
        Axes to reduce (arrays only). None reduces all.
    rng : tuple of two floats
        Percentiles (0-100) whose difference is returned; taken in increasing order,
        as scipy.
    method : str
        Quantile method, as :func:`quantile`.
    nan_policy : {"raise", "propagate", "omit", "smallest", "largest", "totalorder"}
        What NaNs mean; default from :func:`nanaccess.get_options` ("raise").
    keepdims : bool
        Keep reduced axes with length one (arrays only).

    Returns
    -------
    scalar or ndarray
        Floats keep their dtype (float32 stays float32); ints give float64;
        datetime64/timedelta64 give timedelta64; Fractions and Decimals stay exact.
        A NaN at either quantile makes the result that NaN, quieted.

    Raises
    ------
    NaNError
        Under "raise" when a NaN or missing value is present.
    SignalingNaNError
        For a signaling NaN under every policy but "totalorder".
    statistics.StatisticsError
        Empty iterable (or nothing left under "omit").

    Examples
    --------
    >>> import nanaccess as na
    >>> na.iqr([1.0, 2.0, 3.0, 4.0, float("nan")], nan_policy="omit")
    1.5
    >>> from fractions import Fraction
    >>> na.iqr([Fraction(1), Fraction(2), Fraction(4)])
    Fraction(3, 2)
    >>> na.iqr(np.array([[1.0, 5.0, 9.0], [2.0, np.nan, 4.0]]), axis=1, nan_policy="omit")
    array([4., 1.])
    """


@_statistic
def mad(data: Any, *, axis: Axis = None, scale: float | str = 1.0,
        nan_policy: str | None = None, keepdims: bool = False) -> Any:
    """Median absolute deviation, as :func:`scipy.stats.median_abs_deviation`.

    ``median(|x - median(x)|) / scale``, both medians under ``nan_policy``.

    Parameters
    ----------
    data : iterable or array_like
        As :func:`median`.
    axis : None, int or tuple of ints
        Axes to reduce (arrays only). None reduces all.
    scale : float or "normal"
        Divisor of the result; "normal" (0.67449...) makes it estimate the standard
        deviation of normal data.
    nan_policy : {"raise", "propagate", "omit", "smallest", "largest", "totalorder"}
        What NaNs mean; default from :func:`nanaccess.get_options` ("raise"). A NaN
        keeps its own bits as its deviation, so it ranks among the deviations as it
        ranks in the median.
    keepdims : bool
        Keep reduced axes with length one (arrays only).

    Returns
    -------
    scalar or ndarray
        Floats keep their dtype; ints give float64; Fractions and Decimals stay exact
        (up to the division by ``scale``).

    Raises
    ------
    NaNError
        Under "raise" when a NaN or missing value is present.
    SignalingNaNError
        For a signaling NaN under every policy but "totalorder".
    statistics.StatisticsError
        Empty iterable (or nothing left under "omit").

    Examples
    --------
    >>> import nanaccess as na
    >>> na.mad([1.0, 2.0, 3.0, 4.0, 100.0])
    1.0
    >>> na.mad(np.array([1.0, 2.0, np.nan, 4.0]), nan_policy="omit")
    np.float64(1.0)
    >>> round(na.mad([1.0, 2.0, 3.0, 4.0, 100.0], scale="normal"), 4)
    1.4826
    """
