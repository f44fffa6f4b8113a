"""``s.ewm(...).nanstats``: exponentially weighted statistics with an explicit policy.

Registered on pandas' ``ExponentialMovingWindow`` (and its GroupBy form, whose groups
run in one kernel pass over the rows sorted by group, labelled as pandas labels them) by
:func:`register_ewm_accessor`. The smoothing parameters are read from the ewm object's
public attributes (``com``, ``span``, ``halflife``, ``alpha``, ``times``, ``adjust``,
``ignore_na``, ``min_periods``); the statistic runs in
:func:`nanaccess.core.ewm.ewm_stat` (double-double recurrences, no drift).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .._hostkit import duration
from ..core.ewm import ewm_stat
from ..errors import NaNError
from ..options import resolve_policy
from ..typing import NanPolicyArg
from ._groupby_registry import grouper_info, register_window_accessor
from .columns import restated, type_error
from .dtypes import column_arrays

__all__ = ["NanEwm", "register_ewm_accessor"]


def _group_index(result_index: pd.Index, groups: np.ndarray, rows: pd.Index,
                 order: np.ndarray) -> pd.Index:
    """The group keys, then the original index (pandas' ``groupby().ewm()`` labels),
    built from codes: the keys and rows are not factorized again (that would cost more
    than the statistic)."""
    if isinstance(result_index, pd.MultiIndex):
        keys_nan = any((np.asarray(c) < 0).any() for c in result_index.codes)
    else:
        keys_nan = result_index.hasnans
    simple = not isinstance(rows, pd.MultiIndex) and rows.is_unique and not keys_nan
    if not simple:
        from .window_bounds import keyed_row_index  # the rolling GroupBy's labels

        return keyed_row_index(result_index, groups, rows.take(order))
    if isinstance(result_index, pd.MultiIndex):
        levels = list(result_index.levels)
        codes = [np.asarray(c)[groups] for c in result_index.codes]
        names = list(result_index.names)
    else:
        levels, codes, names = [result_index], [groups], [result_index.name]
    return pd.MultiIndex(levels=levels + [rows], codes=codes + [order],
                         names=names + [rows.name], verify_integrity=False)


def _grouped_error(err: NaNError, name: Any, rows: pd.Index, order: np.ndarray,
                   codes: np.ndarray, result_index: pd.Index, series: bool) -> NaNError:
    """A core error at a position of the group-sorted data, restated at its row and
    naming its group."""
    pos = err.position
    group = result_index[int(codes[order[int(pos[0])]])] if pos else None
    return restated(err, name, rows, rows=order, group=group, series=series)


def _params(w: Any) -> dict[str, Any]:
    times = getattr(w, "times", None)
    if isinstance(times, str):  # a column label, as pandas allows
        times = w.obj[times]
    if times is not None:
        times = np.asarray(times)
    halflife = duration(w.halflife) if times is not None else w.halflife
    return {"com": w.com, "span": w.span, "halflife": halflife, "alpha": w.alpha,
            "times": times, "adjust": bool(w.adjust), "ignore_na": bool(w.ignore_na),
            "min_periods": int(w.min_periods or 0)}


class NanEwm:
    """NaN-explicit exponentially weighted statistics of ``obj.ewm(...)``.

    Examples
    --------
    >>> import numpy as np, pandas as pd, nanaccess  # noqa: F401
    >>> s = pd.Series([1.0, np.nan, 3.0])
    >>> s.ewm(alpha=0.5, ignore_na=True).nanstats.mean(nan_policy="omit").tolist()
    [1.0, 1.0, 2.3333333333333335]
    >>> s.ewm(alpha=0.5).nanstats.mean(nan_policy="propagate").tolist()
    [1.0, nan, nan]

    Grouped, labelled as pandas' ``groupby().ewm()`` (the keys, then the index):

    >>> df = pd.DataFrame({"k": [1, 2, 1], "v": [1.0, 5.0, 3.0]})
    >>> df.groupby("k").ewm(alpha=0.5).nanstats.mean(nan_policy="raise")["v"].tolist()
    [1.0, 2.3333333333333335, 5.0]
    """

    def __init__(self, obj: Any) -> None:
        self._obj = obj

    def _run(self, stat: str, nan_policy: Any, bias: bool = False) -> pd.Series | pd.DataFrame:
        w = self._obj
        policy = resolve_policy(nan_policy)
        p = _params(w)
        obj = w.obj
        index = obj.index
        order = starts = None
        result_index = None
        grouper = getattr(w, "_grouper", None)
        if grouper is not None:  # groupby().ewm(): the groups in one pass, pandas' labels
            codes, ngroups, result_index = grouper_info(grouper)
            keep = np.flatnonzero(codes >= 0)
            kept = codes[keep]
            if ngroups <= 65535:  # NumPy's stable sort of 16-bit keys is a radix sort
                kept = kept.astype(np.uint16)
            order = keep[np.argsort(kept, kind="stable")]
            groups = codes[order]
            starts = np.searchsorted(groups, np.arange(ngroups + 1))
            index = _group_index(result_index, groups, obj.index, order)
            if p["times"] is not None:
                p["times"] = p["times"][order]
        is_series = isinstance(obj, pd.Series)
        cols = [obj] if is_series else [obj.iloc[:, i] for i in range(obj.shape[1])]
        out = {}
        for i, s in enumerate(cols):
            try:
                col = column_arrays(s)
            except TypeError as err:
                raise type_error(s.name, err, is_series) from None
            values, missing = col.values, col.missing
            if order is not None:
                values = values[order]
                missing = None if missing is None else missing[order]
            try:
                vals, miss = ewm_stat(values, stat, policy=policy, missing=missing,
                                      bias=bias, starts=starts, **p)
            except NaNError as err:
                if order is not None:
                    raise _grouped_error(err, s.name, obj.index, order, codes, result_index,
                                         is_series) from None
                raise restated(err, s.name, obj.index, series=is_series) from None
            if miss is not None:
                vals = pd.array(np.where(miss, 0.0, vals), dtype="Float64")
                vals[miss] = pd.NA
            out[i] = pd.Series(vals, index=index, name=s.name, copy=False)
        if is_series:
            return out[0]
        res = pd.DataFrame(out, index=index)
        res.columns = obj.columns
        return res

    def mean(self, *, nan_policy: NanPolicyArg = None) -> pd.Series | pd.DataFrame:
        """Exponentially weighted mean, as ``ewm(...).mean()`` with an explicit policy.

        "omit" skips NaN and missing values (their positions carry the running mean;
        the weights decay over them unless ``ignore_na=True``, as pandas);
        "propagate" gives the first NaN from its position on; "raise" raises
        ``NaNError`` naming it. The recurrence runs in double-double arithmetic: long
        series keep to the exact weighted mean within an ulp, constant data give the
        constant at every step.

        Parameters
        ----------
        nan_policy : str, optional
            See above; None: the current default.

        Returns
        -------
        Series or DataFrame
            float64, the labels of ``ewm(...).mean()``.

        Examples
        --------
        >>> import pandas as pd, nanaccess  # noqa: F401
        >>> pd.Series([0.1] * 4).ewm(span=3).nanstats.mean(nan_policy="raise").tolist()
        [0.1, 0.1, 0.1, 0.1]
        """
        return self._run("mean", nan_policy)

    def var(self, *, bias: bool = False, nan_policy: NanPolicyArg = None
            ) -> pd.Series | pd.DataFrame:
        """Exponentially weighted variance, as ``ewm(...).var(bias=)``.

        Parameters
        ----------
        bias : bool
            False (default): the bias-corrected variance, as pandas.
        nan_policy : str, optional
            As :meth:`mean`.

        Returns
        -------
        Series or DataFrame

        Examples
        --------
        >>> import pandas as pd, nanaccess  # noqa: F401
        >>> s = pd.Series([1.0, 2.0, 4.0])
        >>> s.ewm(alpha=0.5).nanstats.var(nan_policy="raise").round(6).tolist()
        [nan, 0.5, 2.5]
        """
        return self._run("var", nan_policy, bias)

    def std(self, *, bias: bool = False, nan_policy: NanPolicyArg = None
            ) -> pd.Series | pd.DataFrame:
        """Exponentially weighted standard deviation: the square root of :meth:`var`.

        Parameters
        ----------
        bias : bool
            As :meth:`var`.
        nan_policy : str, optional
            As :meth:`mean`.

        Returns
        -------
        Series or DataFrame

        Examples
        --------
        >>> import pandas as pd, nanaccess  # noqa: F401
        >>> s = pd.Series([1.0, 2.0, 4.0])
        >>> s.ewm(alpha=0.5).nanstats.std(nan_policy="raise").round(6).tolist()
        [nan, 0.707107, 1.581139]
        """
        return self._run("std", nan_policy, bias)


def register_ewm_accessor() -> None:
    """Put ``.nanstats`` on pandas' ``ExponentialMovingWindow``."""
    from pandas.api.typing import ExponentialMovingWindow

    register_window_accessor("nanstats", NanEwm, (ExponentialMovingWindow,))
