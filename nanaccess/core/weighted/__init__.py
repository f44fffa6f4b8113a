"""Weighted statistics (issue 13): frequency weights under every ``nan_policy``.

A weight says how many times a value counts: for integer weights every statistic
equals the unweighted statistic of the data with each value repeated its weight
times; real weights extend the same formulas continuously (cumulative weights in
place of ranks). The policy covers the weights too (see
:func:`nanaccess.core.policy.check_weights`).

Modules
-------
:mod:`.prepare`
    weights' shapes and checks, the policy on data and weights, the row layout.
:mod:`.positions`
    where each quantile method sits in the cumulative weights.
:mod:`.cumulative`
    exact cumulative weights per row in two int64 limbs.
:mod:`.order`
    quantile, median, median_low, median_high (sort keys carrying weights).
:mod:`.compiled`
    the same order statistics by a compiled weighted quickselect (numba), same bits.
:mod:`.moments`
    mean, sum, var, std, sem (exact, rounded once; frequency or reliability weights
    for the spread statistics, ``weights_kind``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import _stats
from ..interp import validate_q
from .moments import weighted_moment, weights_kind_of
from .order import weighted_order
from .prepare import Prepared, align_weights, prepare

__all__ = ["WEIGHTED", "weighted_stat", "prepare", "align_weights", "Prepared"]

#: the statistics that take ``weights=``
WEIGHTED = _stats.WEIGHTED


def weighted_stat(x: np.ndarray, stat: str, weights: Any, *, axis: Any = None, policy: Any,
                  missing: np.ndarray | None = None, keepdims: bool = False,
                  weights_missing: np.ndarray | None = None, **params: Any) -> Any:
    """Weighted ``stat`` of ``x`` along ``axis`` under a resolved ``policy``.

    Returns ``(values, missing, count)``: as :func:`nanaccess.core.select.order_stat`
    plus, per output, how many pairs the statistic saw (weight not zero; NaN and
    missing pairs too, unless the policy removes them).

    Examples
    --------
    >>> from nanaccess.options import NanPolicy
    >>> weighted_stat(np.array([1.0, 2.0, 3.0]), "median", [1, 1, 5],
    ...               policy=NanPolicy.RAISE)[0]
    array(3.)
    """
    if stat not in WEIGHTED:
        raise TypeError(f"{stat}() takes no weights; weighted statistics are "
                        f"{', '.join(WEIGHTED)}")
    entry = _stats.get(stat)
    kind = weights_kind_of(stat, params)
    x = np.asarray(x)
    if x.dtype.kind in "cOUSV" or (x.dtype.kind == "f" and x.dtype.itemsize > 8):
        raise TypeError(f"weighted {stat} needs float, int or bool data, got dtype {x.dtype}")
    p = prepare(x, weights, axis=axis, policy=policy, missing=missing,
                weights_missing=weights_missing)
    count = p.count
    if entry.family == "order":
        q = params.get("q")
        if stat in _stats.TAKES_Q:
            if q is None:
                raise TypeError("quantile needs q")
            q = validate_q(q)
        vals, miss, lead = weighted_order(p, stat, policy, q=q,
                                          method=params.get("method", "linear"))
    else:
        ddof = params.get("ddof", next((q.default for q in entry.params if q.name == "ddof"), 0))
        vals, miss = weighted_moment(p, stat, policy, ddof=ddof, weights_kind=kind)
        lead = ()
    red = p.red
    out = red.finish(np.asarray(vals), keepdims, lead)
    miss_out = None if miss is None else red.finish(
        np.broadcast_to(miss, np.shape(vals)), keepdims, lead)
    return out, miss_out, red.finish(count, keepdims)
