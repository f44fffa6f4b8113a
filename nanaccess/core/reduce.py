"""The one core entry point for reductions: ``reduce(x, stat, ...)``.

Adapters (pandas, xarray, dask DataFrame, the plain functions) call :func:`reduce`
and nothing below it; it reads the statistics table to pick the engine
(:mod:`.select` for order and arg statistics, :mod:`.moments` for moments and
counts) and composes the ``spread`` statistics (iqr, mad) from order statistics, so
every host that reduces gets them. As flox's ``groupby_reduce``, the result carries
the count of values each output saw, so no adapter counts again.

The spread statistics and their NaN rules live in :mod:`nanaccess.core.spread`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, cast

import numpy as np

from .. import _stats
from ..options import NanPolicy
from ._numba import one_request
from .axes import normalize_axis
from .bits import any_signaling
from .compose import compose, not_served
from .exactsum.narrow import narrow_scalar
from .higher import higher_stat
from .interp import METHODS, validate_q
from .moments import moment_stat
from .policy import RULES
from .select import order_stat
from .small import (
    LEAN_MOMENTS,
    MEDIANS,
    MOMENTS,
    ORDERS,
    SMALL_ARRAY,
    array_moment,
    column_medians,
    int_mean,
    moment_small,
    order_small,
)
from .spread import (
    MAD_NORMAL_SCALE,
    check_rng,
    check_scale,
    deviations,
    divide_by_scale,
    object_kinds,
)
from .weighted import weighted_stat

__all__ = ["Reduced", "reduce", "reduce_whole", "count_left", "divide_by_scale", "MAD_NORMAL_SCALE",
           "FlatShape", "check_params", "result_dtype"]


def check_params(stat: str, dtype: Any, **params: Any) -> _stats.Statistic:
    """The checks :func:`reduce` makes of ``stat``'s parameters and the input dtype,
    without data (lazy hosts run them when they build a graph); the table entry.

    Examples
    --------
    >>> check_params("quantile", np.float64, q=0.5).name
    'quantile'
    >>> check_params("var", "datetime64[ns]")
    Traceback (most recent call last):
    TypeError: var of datetime64 data is not defined
    """
    entry = _stats.get(stat)
    unknown = set(params) - set(entry.param_names)
    if unknown:
        raise TypeError(f"{stat}() got unexpected keyword(s) {sorted(unknown)}")
    dt = np.dtype(dtype)
    if dt.kind not in "fiubmMO":
        raise TypeError(f"{stat} needs numeric data, got dtype {dt}")
    if dt.kind == "M" and stat in _stats.DATETIME_REFUSED:
        raise TypeError(f"{stat} of datetime64 data is not defined")
    if entry.kernel_family == "higher" and dt.kind not in "fiub":  # exact power sums
        raise TypeError(f"{stat} needs float, int or bool data, got dtype {dt}")
    for p in entry.params:
        if p.required and params.get(p.name) is None:
            raise TypeError(f"{stat} needs {p.name}")
    if params.get("q") is not None:
        validate_q(params["q"])
    if params.get("method", "linear") not in METHODS:
        raise ValueError(f"unknown quantile method {params['method']!r}; expected one of "
                         f"{METHODS}")
    if "ddof" in params:
        float(params["ddof"])
    if "rng" in params:
        check_rng(params["rng"])
    if "scale" in params:
        check_scale(params["scale"])
    return entry


def result_dtype(stat: str, dtype: Any, **params: Any) -> np.dtype:
    """The checked parameters' result dtype (:func:`nanaccess._stats.result_dtype`)."""
    check_params(stat, dtype, **params)
    return _stats.result_dtype(stat, dtype, **params)


#: each statistic's own parameter names
_PARAMS = {name: frozenset(s.param_names) for name, s in _stats.STATISTICS.items()}


@dataclass
class Reduced:
    """What :func:`reduce` returns.

    ``values``: an ndarray (0-d for a full reduction; quantile dimensions first);
    ``missing``: ``None`` or a bool array of ``values``' shape marking results that are
    the host's missing value; ``count``: int64 array of the reduced shape (no quantile
    dimension): how many values the statistic saw (numbers, plus NaN and missing
    values unless the policy removes them). ``count`` is computed on first use.
    """

    values: np.ndarray
    missing: np.ndarray | None
    _x: np.ndarray = field(repr=False)
    _in_missing: np.ndarray | None = field(repr=False)
    _axis: Any = field(repr=False)
    _policy: NanPolicy = field(repr=False)
    _keepdims: bool = field(repr=False, default=False)

    @cached_property
    def count(self) -> np.ndarray:
        return count_left(self._x, self._in_missing, self._policy, self._axis, self._keepdims)

    @property
    def empty(self) -> np.ndarray:
        """Outputs where nothing was left (bool, the reduced shape)."""
        return cast("np.ndarray", self.count == 0)


def count_left(x: np.ndarray, missing: np.ndarray | None, policy: NanPolicy,
               axis: Any = None, keepdims: bool = False) -> np.ndarray:
    """How many values a statistic sees along ``axis``: every value, or under a
    policy that removes (``"omit"``) only the numbers (NaN, NaT, missing and masked
    entries, and object NaN/missing values left out). int64, the reduced shape.

    Examples
    --------
    >>> count_left(np.array([[1.0, np.nan], [3.0, 4.0]]), None, NanPolicy.OMIT, axis=1)
    array([1, 2])
    """
    x = np.asarray(x)
    axes = normalize_axis(axis, x.ndim)
    n = 1
    for a in axes:
        n *= x.shape[a]
    shape = tuple(1 if a in axes else s for a, s in enumerate(x.shape)) if keepdims \
        else tuple(s for a, s in enumerate(x.shape) if a not in axes)
    kind = x.dtype.kind
    if not RULES[policy].removes or (missing is None and kind in "biu"):
        return np.full(shape, n, dtype=np.int64)
    if kind == "f":
        gone = np.isnan(x)
    elif kind in "mM":
        gone = np.isnat(x)
    elif kind == "O":
        gone = object_kinds(x) != "number"
    else:
        gone = None
    if missing is not None:
        miss = np.broadcast_to(np.asarray(missing, dtype=bool), x.shape)
        gone = miss if gone is None else (gone | miss)
    left = n - np.count_nonzero(gone, axis=axes or None, keepdims=keepdims)
    return np.asarray(left, dtype=np.int64).reshape(shape)


def reduce(
    x: Any,
    stat: str,
    *,
    axis: Any = None,
    policy: NanPolicy = NanPolicy.RAISE,
    missing: np.ndarray | None = None,
    keepdims: bool = False,
    weights: Any = None,
    weights_missing: np.ndarray | None = None,
    lean: bool = True,
    **params: Any,
) -> Reduced:
    """Reduce ``x`` along ``axis`` with statistic ``stat`` under a resolved ``policy``.

    Parameters
    ----------
    x : ndarray
        float16/32/64, int/uint, bool, datetime64/timedelta64 (NaT is missing) or
        object (the exact Python-object path).
    stat : str
        A name of :data:`nanaccess._stats.STATISTICS`.
    axis : None, int or tuple of int
    policy : NanPolicy
        Resolved by the caller's boundary.
    missing : bool ndarray, optional
        Missing entries (masked / nullable / Arrow nulls) of ``x``'s shape.
    keepdims : bool
    weights : array_like, optional
        Frequency weights (issue 13) for quantile, median, median_low, median_high,
        mean, sum, var and std: broadcastable to ``x``, or 1-D along a single
        ``axis``. Routed to :mod:`nanaccess.core.weighted`; the policy covers them.
    weights_missing : bool ndarray, optional
        Missing entries of ``weights`` (masked / nullable weights).
    lean : bool, default True
        Try the lean small-data paths first (:func:`lean_values`); False: the
        engines alone (the reference the lean paths are tested against).
    **params
        The statistic's own parameters (``q``, ``method``, ``ddof``, ``rng``,
        ``scale``), as listed in the table.

    Returns
    -------
    Reduced
        ``values``, ``missing`` and the lazily computed ``count``.

    Examples
    --------
    >>> r = reduce(np.array([1.0, np.nan, 3.0, 4.0]), "iqr", policy=NanPolicy.OMIT)
    >>> r.values, r.count
    (array(1.5), array(3))
    """
    x = np.asarray(x)
    takes = _PARAMS.get(stat)
    if params and (takes is None or not params.keys() <= takes) and not (
            weights is not None and stat in _stats.WEIGHTS_KINDS
            and params.keys() <= takes | {"weights_kind"}):
        entry = _stats.get(stat)  # an unknown statistic: its ValueError
        unknown = set(params) - set(entry.param_names)
        raise TypeError(f"{stat}() got unexpected keyword(s) {sorted(unknown)}")
    if lean and weights is None and not keepdims and takes is not None:
        # small data: no blocks, scans nor plans; missing slots (nullable data) that
        # the policy removes are dropped first, with one copy
        kept = x if missing is None else _unmasked(x, missing, axis, policy)
        got = None if kept is None else lean_values(kept, stat, axis, policy, params)
        if got is not None:
            if type(got) is not np.ndarray:
                got = np.asarray(got)
            out = Reduced(got, None, x, missing, axis, policy, False)
            if kept is not x:  # the count of what is left, from the 1-D copy
                out.__dict__["count"] = _count_kept(kept, policy)
            return out
    entry = _stats.get(stat)
    common = dict(axis=axis, policy=policy, missing=missing, keepdims=keepdims)
    with one_request():  # one kernel compiles in the background for this call, at most
        if weights is not None:
            values, miss, count = weighted_stat(x, stat, weights,
                                                weights_missing=weights_missing, **common,
                                                **params)
            out = Reduced(values, miss, x, missing, axis, policy, keepdims)
            out.__dict__["count"] = count  # positive weights left (the property's slot)
            return out
        if entry.compose is not None:
            values, miss = compose(entry, FlatShape(**common), x, **params)
        else:
            values, miss = _engine(entry)(x, stat, **common, **params)
    return Reduced(values, miss, x, missing, axis, policy, keepdims)


def reduce_whole(x: np.ndarray, stat: str, policy: NanPolicy, params: dict[str, Any]
                 ) -> Reduced | np.generic:
    """``stat`` of 1-D ndarray ``x`` reduced whole (a host's one-column call): the
    lean paths' value as a NumPy scalar, unboxed (no :class:`Reduced`, no 0-d array),
    when they serve it; else :func:`reduce`'s result (errors included).

    Examples
    --------
    >>> reduce_whole(np.array([3.0, np.nan, 1.0]), "median", NanPolicy.OMIT, {})
    np.float64(2.0)
    >>> reduce_whole(np.arange(5000.0), "median", NanPolicy.OMIT, {}).values  # large
    array(2499.5)
    """
    if type(x) is not np.ndarray:
        return reduce(x, stat, policy=policy, **params)
    if not params and stat in ORDERS:  # a median, min, max of one column: the lean door
        got = order_small(x, stat, policy)
    else:
        takes = _PARAMS.get(stat)
        got = (lean_values(x, stat, None, policy, params)
               if takes is not None and params.keys() <= takes else None)
    if got is not None:
        return cast("Reduced | np.generic", _unboxed(got))
    # the lean paths declined (a NaN under "raise", large data, ...): not tried again
    return reduce(x, stat, policy=policy, lean=False, **params)


def _unboxed(got: Any) -> Any:
    """A lean path's value as a NumPy scalar (a 0-d array unboxed)."""
    return got[()] if type(got) is np.ndarray else got


def lean_values(x: np.ndarray, stat: str, axis: Any, policy: NanPolicy,
                params: dict[str, Any]) -> Any:
    """The lean small-data paths of :mod:`.small`, tried first by :func:`reduce`: a
    small 1-D array reduced whole (order statistics under any policy, exact moments),
    every column's median of a small NaN-free float64 block; None: the engines decide
    (they own every error, so a NaN under "raise" goes there)."""
    if x.ndim == 1 and (axis is None or axis == 0 or axis == -1):
        if stat in ORDERS:
            q = params.get("q")
            return order_small(x, stat, policy, None if q is None else validate_q(q),
                               params.get("method", "linear"))
        if stat in LEAN_MOMENTS and params.keys() <= {"ddof"}:
            ddof = params.get("ddof", 0)
            got = _narrow_moment(x, stat, policy, ddof) if x.dtype.char in "fe" \
                else moment_small(x, stat, policy, ddof)
            if got is not None or params:
                return got
        if stat in _stats.MEANS and not params and x.dtype.kind in "iu":
            return int_mean(x)
        return array_moment(x, stat) if stat in MOMENTS and not params else None
    if x.ndim == 2 and axis == 0 and stat in MEDIANS and not params:
        return column_medians(x, stat)
    return None


def _narrow_moment(x: np.ndarray, stat: str, policy: NanPolicy, ddof: float
                   ) -> np.floating[Any] | None:
    """:func:`moment_small` of 1-D float32/16 ``x``: of its exact float64 copy (the
    NaNs that ``policy`` drops silently left out first), rounded once to ``x``'s dtype
    where that is the exact value's single rounding
    (:func:`~nanaccess.core.exactsum.narrow.narrow_scalar`); else None (the engines
    round the hard cells from the exact value)."""
    if not x.dtype.isnative:
        return None
    nan = np.isnan(x)
    if nan.any():
        if not RULES[policy].drops_silently(True, any_signaling(x[nan])):
            return None
        x = x[~nan]
    got = moment_small(x.astype(np.float64), stat, policy, ddof) if x.size else None
    return None if got is None else narrow_scalar(float(got), x.dtype, stat in _stats.ROOTS)


def _unmasked(x: np.ndarray, missing: Any, axis: Any, policy: NanPolicy
              ) -> np.ndarray | None:
    """The values of small 1-D ``x`` not marked ``missing`` (one copy) when ``policy``
    removes missing values and ``x`` is reduced whole, for :func:`lean_values`; else
    None (the engines decide, as they do when nothing is left)."""
    if x.ndim != 1 or not 0 < x.size <= SMALL_ARRAY or not RULES[policy].removes \
            or not (axis is None or axis == 0 or axis == -1):
        return None
    miss = np.asarray(missing)
    if miss.dtype != np.bool_ or miss.shape != x.shape:
        return None
    kept = x[~miss]
    return kept if kept.size else None


def _count_kept(kept: np.ndarray, policy: NanPolicy) -> np.ndarray:
    """:func:`count_left` of the 1-D values :func:`_unmasked` kept (a policy that
    removes: the numbers among them), without its axis and shape steps."""
    kind = kept.dtype.kind
    if kind in "iub":
        return np.array(kept.size, dtype=np.int64)
    if kind == "f":
        return np.array(kept.size - np.count_nonzero(np.isnan(kept)), dtype=np.int64)
    return count_left(kept, None, policy)


def _engine(entry: _stats.Statistic) -> Any:
    """The in-memory engine of a statistic's family."""
    if entry.family in ("order", "arg"):
        return order_stat
    if entry.family in _stats.MOMENT_FAMILIES:
        return moment_stat
    if entry.kernel_family == "higher":  # exact power sums and products (issue 23)
        return higher_stat
    raise not_served(entry.name, "flat")


@dataclass
class FlatShape:
    """The flat core as a :class:`nanaccess.core.compose.Shape`: a reduction along
    ``axis`` of one array."""

    axis: Any
    policy: NanPolicy
    missing: np.ndarray | None
    keepdims: bool
    name: str = "flat"
    recipes: frozenset[Any] = frozenset({"difference", "deviation", "ratio"})

    def stat(self, name: Any, x: Any, *, center: Any = False, **params: Any) -> Any:
        entry = _stats.get(name)
        return _engine(entry)(x, name, axis=self.axis, policy=self.policy,
                              missing=self.missing,
                              keepdims=True if center else self.keepdims, **params)

    def deviations(self, x: Any, center: Any) -> Any:
        dev, undefined = deviations(x, center)
        if undefined is not None:
            undefined = undefined.any(axis=normalize_axis(self.axis, x.ndim),
                                      keepdims=self.keepdims)
        return dev, undefined

    def count(self, x: Any) -> Any:
        return count_left(x, self.missing, self.policy, self.axis, self.keepdims)

    def each(self, fn: Any, *arrays: Any, dtype: Any, drop_lead: Any = False, **kw: Any) -> Any:
        return fn(*arrays, **kw)

    def center_missing(self, cmiss: Any) -> Any:
        if cmiss is None or not cmiss.any():
            return None
        return cmiss if self.keepdims else np.squeeze(
            cmiss, axis=normalize_axis(self.axis, cmiss.ndim))


