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
from typing import Any

import numpy as np

from .. import _stats
from ..options import NanPolicy
from .axes import normalize_axis
from .higher import higher_stat
from .moments import moment_stat
from .policy import RULES
from .select import order_stat
from .spread import MAD_NORMAL_SCALE, divide_by_scale, iqr, mad, object_kinds
from .weighted import weighted_stat

__all__ = ["Reduced", "reduce", "count_left", "divide_by_scale", "MAD_NORMAL_SCALE"]


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
        return self.count == 0


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
    entry = _stats.get(stat)
    unknown = set(params) - set(entry.param_names)
    if unknown:
        raise TypeError(f"{stat}() got unexpected keyword(s) {sorted(unknown)}")
    common = dict(axis=axis, policy=policy, missing=missing, keepdims=keepdims)
    if weights is not None:
        values, miss, count = weighted_stat(x, stat, weights, weights_missing=weights_missing,
                                            **common, **params)
        out = Reduced(values, miss, x, missing, axis, policy, keepdims)
        out.__dict__["count"] = count  # positive weights left (the cached property's slot)
        return out
    if entry.family in ("order", "arg"):
        values, miss = order_stat(x, stat, **common, **params)
    elif entry.family in ("moment", "count"):
        values, miss = moment_stat(x, stat, **common, **params)
    elif entry.family == "higher":
        values, miss = higher_stat(x, stat, **common, **params)
    elif stat == "iqr":
        values, miss = iqr(x, **common, **params)
    else:
        values, miss = mad(x, **common, **params)
    return Reduced(values, miss, x, missing, axis, policy, keepdims)


