"""``grouped_reduce``: the grouped counterpart of :func:`nanaccess.core.reduce.reduce`.

One entry point for every statistic of :data:`nanaccess._stats.GROUPED`, returning
the values, the missing mask and the count of values each group saw (so adapters do
not count again). The composed statistics (iqr, mad) are built by
:mod:`nanaccess.core.compose` over :class:`GroupedShape`: grouped order statistics,
and for deviations every row's distance from its own group's center (one vectorised
pass with the codes; a NaN keeps its own bits).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, cast

import numpy as np

from ... import _stats
from ...options import NanPolicy
from ..compose import compose
from ..policy import RULES
from ..spread import deviations, object_kinds
from .common import widen
from .entry import grouped_stat

__all__ = ["GroupedReduced", "grouped_reduce", "count_in_groups", "GroupedShape"]

_MOMENTS = frozenset(_stats.names("moment", "count"))


@dataclass
class GroupedReduced:
    """What :func:`grouped_reduce` returns (as :class:`nanaccess.core.reduce.Reduced`).

    ``exact``: ``(ngroups,)`` or ``(ngroups, ncols)``, with a leading quantile axis for
    an array ``q``: the results in the dtype the statistic keeps, so int and bool
    picks (min, max, median_low / median_high, the quantile methods that pick an
    element) keep the input's dtype and bits; ``holes``: None or a bool array of its
    shape marking the int / bool results with no value (a group with nothing left, a
    rank among the missing values), which hold 0 there; ``missing``: None or a bool
    array of that shape marking results that are the host's missing value;
    ``values``: the results as NumPy hosts hold them (pandas' NumPy columns, xarray):
    ``exact`` itself, or, with holes, float64 with the canonical NaN in each hole
    (:func:`nanaccess.core.grouped.common.widen`); ``count``: int64 ``(ngroups,)`` or
    ``(ngroups, ncols)``: how many values each group saw (numbers, plus NaN and
    missing values unless the policy removes them), computed on first use.

    Each adapter turns ``exact`` and ``holes`` into its host's convention in one
    place: a nullable (``pd.NA``) host masks the holes and keeps the integers.
    """

    exact: np.ndarray
    missing: np.ndarray | None
    holes: np.ndarray | None
    _x: np.ndarray = field(repr=False)
    _codes: np.ndarray = field(repr=False)
    _ngroups: int = field(repr=False)
    _in_missing: np.ndarray | None = field(repr=False)
    _policy: NanPolicy = field(repr=False)

    @cached_property
    def values(self) -> np.ndarray:
        return widen(self.exact, self.holes)

    @cached_property
    def count(self) -> np.ndarray:
        return count_in_groups(self._x, self._codes, self._ngroups, self._in_missing,
                               self._policy)

    @property
    def empty(self) -> np.ndarray:
        """Groups (and columns) where nothing was left (bool, the count's shape)."""
        return cast("np.ndarray", self.count == 0)


def count_in_groups(x: Any, codes: Any, ngroups: int, missing: Any = None,
                    policy: NanPolicy = NanPolicy.OMIT) -> np.ndarray:
    """How many values of each group a statistic sees under ``policy`` (numbers, plus
    NaN and missing values unless the policy removes them); rows of code -1 count
    nowhere. ``(ngroups,)`` for 1-D ``x``, ``(ngroups, ncols)`` for 2-D."""
    x = np.asarray(x)
    codes = np.asarray(codes, dtype=np.intp)
    if x.ndim == 1 and missing is None and x.dtype.kind in "fiub":
        return _count_1d(x, codes, ngroups, RULES[policy].removes)
    x2 = x[:, None] if x.ndim == 1 else x
    ncols = x2.shape[1]
    if RULES[policy].removes:
        keep = np.ones(x2.shape, bool) if missing is None else ~np.asarray(missing, bool).reshape(
            x2.shape)
        if x2.dtype.kind == "f":
            keep &= ~np.isnan(x2)
        elif x2.dtype.kind in "mM":
            keep &= ~np.isnat(x2)
        elif x2.dtype.kind == "O":
            keep &= object_kinds(x2) == "number"
        keep &= (codes >= 0)[:, None]
        slot = codes[:, None] * ncols + np.arange(ncols)
        out = np.bincount(slot[keep], minlength=ngroups * ncols).reshape(ngroups, ncols)
    else:
        per = np.bincount(codes[codes >= 0], minlength=ngroups)
        out = np.repeat(per[:, None], ncols, axis=1)
    out = out.astype(np.int64)
    return out[:, 0] if x.ndim == 1 else out


def _count_1d(x: np.ndarray, codes: np.ndarray, ngroups: int, removes: bool) -> np.ndarray:
    """:func:`count_in_groups` of a 1-D numeric column with nothing missing: the rows
    per group, less the NaNs (few, counted apart) when the policy removes them."""
    grouped = codes if codes.min(initial=0) >= 0 else codes[codes >= 0]
    out = np.bincount(grouped, minlength=ngroups).astype(np.int64)
    if removes and x.dtype.kind == "f":
        with np.errstate(all="ignore"):
            maybe = x.size and np.isnan(np.add.reduce(x))
        if maybe:
            nc = codes[np.isnan(x)]
            out -= np.bincount(nc[nc >= 0], minlength=ngroups)
    return out


def grouped_reduce(
    x: Any,
    codes: Any,
    ngroups: int,
    stat: str,
    *,
    policy: NanPolicy,
    missing: Any = None,
    engine: str | None = None,
    weights: Any = None,
    weights_missing: Any = None,
    **params: Any,
) -> GroupedReduced:
    """Reduce every group of ``x`` with ``stat`` under a resolved ``policy``.

    Signature: ``grouped_reduce(x, codes, ngroups, stat, *, policy, missing=None,
    engine=None, weights=None, weights_missing=None, **params) ->
    GroupedReduced(exact, missing, holes; values, count)``.

    Parameters
    ----------
    x : numpy.ndarray
        ``(n,)`` or ``(n, ncols)`` (the columns share one grouping): float16/32/64,
        int/uint, bool, datetime64/timedelta64 (NaT is missing) or object.
    codes : array_like of int
        ``(n,)`` group code of each row in ``[0, ngroups)``, or -1 (the row belongs to
        no group and is ignored entirely).
    ngroups : int
        Number of groups.
    stat : str
        A name of :data:`nanaccess._stats.GROUPED`: median, median_low, median_high,
        quantile, min, max, mean, var, std, sum, count, iqr, mad.
    policy : NanPolicy
        Resolved by the caller's boundary. ``count`` follows it too (a signaling NaN
        raises except under "totalorder"; "totalorder" counts the numbers without
        raising).
    missing : numpy.ndarray of bool, optional
        Missing entries of ``x``'s shape (masked / nullable / Arrow nulls).
    engine : {None, "auto", "numpy", "numba"}
        None reads the ``engine`` option (:func:`nanaccess.core._numba.choose_engine`).
    weights : array_like, optional
        Frequency weights (issue 13) for the statistics of
        :data:`nanaccess._stats.WEIGHTED`: ``(n,)`` (shared by the columns) or
        ``(n, ncols)``. The policy covers them; each group's result is the bits of its
        ungrouped weighted statistic (:mod:`nanaccess.core.grouped.weighted`), and
        ``count`` the pairs each group saw.
    weights_missing : numpy.ndarray of bool, optional
        Missing entries of ``weights`` (masked / nullable weights).
    **params
        The statistic's own parameters, as listed in the table: ``q`` and ``method``
        (quantile), ``ddof`` (var, std), ``rng`` and ``method`` (iqr), ``scale`` (mad).

    Returns
    -------
    GroupedReduced
        ``exact`` (int picks in their dtype) and its ``holes``, ``values`` (as NumPy
        hosts hold them), ``missing`` (None or bool) and the lazy ``count`` per group.

    Raises
    ------
    NaNError, SignalingNaNError
        With ``.position``, ``.group`` (the group code) and ``.count``.
    TypeError
        An unknown parameter, or unsupported data.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([1.0, 5.0, np.nan, 2.0, 4.0, 3.0, 9.0])
    >>> codes = np.array([0, 1, 0, 0, 1, 1, -1])
    >>> r = grouped_reduce(x, codes, 2, "iqr", policy=NanPolicy.OMIT)
    >>> r.values.tolist(), r.count.tolist()
    ([0.5, 1.0], [2, 3])
    >>> grouped_reduce(x, codes, 2, "mad", policy=NanPolicy.OMIT).values.tolist()
    [0.5, 1.0]
    >>> big = np.array([2**62 + 1, 7])  # group 1 is empty: a hole, the ints kept
    >>> r = grouped_reduce(big, np.array([0, 2]), 3, "max", policy=NanPolicy.OMIT)
    >>> r.exact.tolist(), r.holes.tolist(), r.values.dtype.name
    ([4611686018427387905, 0, 7], [False, True, False], 'float64')
    """
    entry = _stats.get(stat)
    if stat not in _stats.GROUPED:
        raise ValueError(f"{stat!r} has no grouped engine; expected one of "
                         f"{', '.join(_stats.GROUPED)}")
    unknown = set(params) - set(entry.param_names)
    if weights is not None and entry.weights_kind:
        unknown.discard("weights_kind")
    if unknown:
        raise TypeError(f"{stat}() got unexpected keyword(s) {sorted(unknown)}")
    x = np.asarray(x)
    codes = np.asarray(codes)
    if weights is not None:
        return cast("GroupedReduced",
               _weighted(x, codes, ngroups, stat, weights, weights_missing, policy=policy,
                         missing=missing, engine=engine, **params))
    common = dict(policy=policy, missing=missing, engine=engine)
    if entry.kernel_family == "higher":
        from ..higher import grouped_higher  # skew, kurt, sem, prod (issue 23)

        values, miss = grouped_higher(x, codes, ngroups, stat, policy=policy, missing=missing,
                                      **params)
        return GroupedReduced(values, miss, None, x, codes, int(ngroups), missing, policy)
    if entry.compose is not None:
        values, miss = compose(entry, GroupedShape(codes, int(ngroups), **common), x, **params)
    elif stat in _MOMENTS and RULES[policy].removes and x.ndim in (1, 2):
        # the moment engine counts the values it takes: reuse its counts
        counts: list[np.ndarray] = []
        values, miss = grouped_stat(x, codes, ngroups, stat, **common, counts_out=counts,
                                    **params)
        out = GroupedReduced(values, miss, None, x, codes, int(ngroups), missing, policy)
        ncols = 1 if x.ndim == 1 else x.shape[1]
        if len(counts) == ncols and ncols:
            cnt = np.stack(counts, axis=-1).astype(np.int64, copy=False)
            out.__dict__["count"] = cnt[:, 0] if x.ndim == 1 else cnt
        return out
    else:
        holes: list[np.ndarray | None] = []
        values, miss = grouped_stat(x, codes, ngroups, stat, **common, holes_out=holes,
                                    **params)
        return GroupedReduced(values, miss, holes[0], x, codes, int(ngroups), missing, policy)
    return GroupedReduced(values, miss, None, x, codes, int(ngroups), missing, policy)


def _weighted(x: Any, codes: Any, ngroups: Any, stat: Any, weights: Any, weights_missing: Any, *,
              policy: Any, missing: Any, engine: Any,
              **params: Any) -> Any:
    """``weights=`` given: the grouped weighted engine; the count is the pairs seen."""
    from .weighted import grouped_weighted_columns  # the weighted engine, on demand

    if stat not in _stats.WEIGHTED:
        raise TypeError(f"{stat}() takes no weights; weighted statistics are "
                        f"{', '.join(_stats.WEIGHTED)}")
    if codes.shape != (x.shape[0] if x.ndim else 0,) or x.ndim not in (1, 2):
        raise ValueError(f"grouped weights need 1-D or 2-D data and one code per row; got "
                         f"data {x.shape} and codes {codes.shape}")
    codes = codes.astype(np.int64, copy=False)
    if codes.size and (codes.max() >= ngroups or codes.min() < -1):
        raise ValueError(f"codes must lie in [-1, {ngroups}); got values outside")
    values, miss, count = grouped_weighted_columns(
        x, codes, int(ngroups), stat, weights, policy=policy, missing=missing,
        weights_missing=weights_missing, engine=engine, **params)
    out = GroupedReduced(values, miss, None, x, codes, int(ngroups), missing, policy)
    out.__dict__["count"] = count  # the pairs seen (the cached property's slot)
    return out


@dataclass
class GroupedShape:
    """The grouped engine as a :class:`nanaccess.core.compose.Shape`: one output per
    group of ``codes`` (rows of code -1 belong to none)."""

    codes: np.ndarray
    ngroups: int
    policy: NanPolicy
    missing: Any
    engine: str | None
    name: str = "grouped"
    recipes: frozenset[Any] = frozenset({"difference", "deviation", "ratio"})

    def stat(self, name: Any, x: Any, *, center: Any = False, **params: Any) -> Any:
        return grouped_stat(x, self.codes, self.ngroups, name, policy=self.policy,
                            missing=self.missing, engine=self.engine, **params)

    def deviations(self, x: Any, center: Any) -> Any:
        codes = np.asarray(self.codes, dtype=np.intp)
        # each row's deviation from its own group's center (rows of no group: ignored)
        rows = center[np.maximum(codes, 0)] if self.ngroups else np.zeros(x.shape,
                                                                          center.dtype)
        dev, undefined = deviations(x, rows)
        if undefined is not None:  # inf - inf in a group: that group's result is NaN
            undefined = count_in_groups(undefined, codes, self.ngroups,
                                        missing=~undefined) > 0
        return dev, undefined

    def count(self, x: Any) -> Any:
        return count_in_groups(x, self.codes, self.ngroups, self.missing, self.policy)

    def each(self, fn: Any, *arrays: Any, dtype: Any, drop_lead: Any = False, **kw: Any) -> Any:
        return fn(*arrays, **kw)

    def center_missing(self, cmiss: Any) -> Any:
        return cmiss
