"""Moving covariance and correlation: ``s.rolling(w).nanstats.corr(other) / cov(other)``.

Each window's value comes from the exact sums of its own rows (a segment of
:func:`nanaccess.core.bivariate.pairwise`), rounded once: no running sums, so no
drift, and ``|r| <= 1`` at every step. Windows are pandas' own (fixed, time-based,
expanding; :func:`nanaccess.pandas.window_bounds.window_bounds`).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any, cast

import numpy as np
import pandas as pd

from .._labels import IndexLocation
from ..core.bivariate import pairwise
from ..options import resolve_policy
from .bivariate import _values
from .columns import subject_of
from .dtypes import Column, column_arrays
from .window_bounds import window_bounds

__all__ = ["WindowBivariate", "window_pairs"]


_WINDOW_BLOCK = 1 << 22  # window rows gathered per kernel call (memory bound)


def window_pairs(x: Column, y: Column, start: np.ndarray, end: np.ndarray, *,
                 stat: str, ddof: int, min_periods: int, policy: Any,
                 names: Sequence[Hashable], index: pd.Index, series: bool,
                 order: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """Per window ``[start[i], end[i])`` (rows in ``order``), the exact covariance or
    Pearson correlation of ``x`` and ``y`` over the window's complete pairs: each
    window from its own values (no running sums, so no drift), ``|r| <= 1``."""
    from ..core.bivariate import Segments

    xv, yv = x.values, y.values
    xm, ym = x.missing, y.missing
    if order is not None:
        xv, yv = xv[order], yv[order]
        xm = None if xm is None else xm[order]
        ym = None if ym is None else ym[order]
    start = np.asarray(start, np.int64)
    end = np.maximum(np.asarray(end, np.int64), start)
    nwin = start.size
    missing = None
    loc = IndexLocation(index, order)
    subjects = [subject_of(n, series=series) for n in names]
    from ..core.bivariate.window_checked import checked_window_shortcut

    fast = checked_window_shortcut(xv, yv, xm, ym, start, end, stat, ddof, min_periods,
                                   policy, subjects, loc)
    if fast is not None:  # the certified windows; the others below
        values, todo = fast[0], np.flatnonzero(~fast[1])
    else:
        values, todo = np.full(nwin, np.nan), np.arange(nwin)
    a = 0
    lens = end[todo] - start[todo]
    while a < todo.size:  # blocks of windows whose rows fit the block
        csum = np.cumsum(lens[a:])
        b = a + max(1, int(np.searchsorted(csum, _WINDOW_BLOCK, side="right")))
        b = min(b, todo.size)
        ln = lens[a:b]
        starts = np.zeros(b - a + 1, np.int64)
        np.cumsum(ln, out=starts[1:])
        rows = np.repeat(start[todo[a:b]] - starts[:-1], ln) + np.arange(int(starts[-1]))
        res = pairwise([xv, yv], np.array([[0, 1]]), missing=[xm, ym], stat=stat, ddof=ddof,
                       min_periods=min_periods, policy=policy,
                       segments=Segments(starts, rows.astype(np.int64)),
                       subjects=subjects, locate=lambda flat: loc((flat,)))
        values[todo[a:b]] = res.values[:, 0]
        if res.missing is not None:
            if missing is None:
                missing = np.zeros(nwin, bool)
            missing[todo[a:b]] = res.missing[:, 0]
        a = b
    return values, missing


class WindowBivariate:
    """``s.rolling(w).nanstats.corr(other) / cov(other)`` and expanding windows."""

    _obj: Any

    def corr(self, other: Any = None, pairwise: bool | None = None, ddof: int = 1, *,
             nan_policy: Any = None) -> pd.Series | pd.DataFrame:
        """Moving correlation with ``other``, as ``Rolling.corr``: each window's
        Pearson r rounded once from its exact sums (no drift, ``|r| <= 1`` at every
        step, exactly ``+-1`` on collinear windows).

        Parameters
        ----------
        other : pandas.Series or pandas.DataFrame
            Aligned on the index; a DataFrame pairs columns of the same label.
        pairwise : bool, optional
            Every pair of columns (pandas' layout: rows by window label and column of
            ``other``); the default for a DataFrame without ``other``.
        ddof : int, default 1
            Accepted as pandas does (r does not depend on it).
        nan_policy : str, optional
            "omit": each window's complete pairs (pandas); "propagate": a window
            holding a NaN gives it. Default: the option.

        Returns
        -------
        pandas.Series or pandas.DataFrame

        Examples
        --------
        >>> import pandas as pd, nanaccess  # noqa: F401
        >>> x = pd.Series([1.0, 2.0, 3.0, 5.0])
        >>> x.rolling(2).nanstats.corr(3 * x + 1e7, nan_policy="omit").tolist()
        [nan, 1.0, 1.0, 1.0]
        """
        return cast("pd.Series | pd.DataFrame",
               self._pairs("corr", other, pairwise, ddof, nan_policy))

    def cov(self, other: Any = None, pairwise: bool | None = None, ddof: int = 1, *,
            nan_policy: Any = None) -> pd.Series | pd.DataFrame:
        """Moving covariance with ``other``, as ``Rolling.cov``, correctly rounded per
        window from exact sums.

        Parameters
        ----------
        other : pandas.Series or pandas.DataFrame
        pairwise : bool, optional
            As :meth:`corr`.
        ddof : int, default 1
        nan_policy : str, optional

        Returns
        -------
        pandas.Series or pandas.DataFrame

        Examples
        --------
        >>> import pandas as pd, nanaccess  # noqa: F401
        >>> x = pd.Series([1.0, 2.0, 4.0])
        >>> x.expanding().nanstats.cov(x, nan_policy="omit").tolist()
        [nan, 0.5, 2.333333333333333]
        """
        return cast("pd.Series | pd.DataFrame",
               self._pairs("cov", other, pairwise, ddof, nan_policy))

    def _pairs(self, stat: Any, other: Any, pairwise: Any, ddof: Any, nan_policy: Any) -> Any:
        from ._groupby_registry import window_parts

        parts = window_parts(self._obj)
        obj = parts["obj"]
        policy = resolve_policy(nan_policy)
        # pandas: a DataFrame without other, or pairwise=True, gives every pair
        every = isinstance(obj, pd.DataFrame) and (pairwise or (other is None and
                                                                pairwise is None))
        same = other is None
        other = obj if other is None else other
        if every and isinstance(other, pd.Series):
            other = other.to_frame()
        left, right = obj.align(other, join="inner", axis=0)
        if len(left) != len(obj) or not left.index.equals(obj.index):
            raise ValueError("other must hold the window's index labels")
        order, index, start, end, min_periods = window_bounds(parts, left)
        if end is None:
            start, end = start.arrays()
        mp = max(int(min_periods or 1), 1)
        kw = {"stat": stat, "ddof": ddof, "min_periods": mp, "policy": policy}
        if every:
            return _every_pair(left, right, same, start, end, index, kw, order)
        if isinstance(left, pd.Series) and isinstance(right, pd.Series):
            pairs_ = [(left, right, left.name)]
        elif isinstance(left, pd.DataFrame) and isinstance(right, pd.Series):
            pairs_ = [(left[c], right, c) for c in left.columns]
        elif isinstance(left, pd.DataFrame):
            common = [c for c in left.columns if c in right.columns]
            pairs_ = [(left[c], right[c], c) for c in common]
        else:
            pairs_ = [(left, right[c], c) for c in right.columns]
        out = {}
        for a, b, label in pairs_:
            ca, cb = column_arrays(a, a.name), column_arrays(b, b.name)
            vals, miss = window_pairs(ca, cb, start, end, stat=stat, ddof=ddof,
                                      min_periods=mp, policy=policy,
                                      names=[a.name, b.name], index=left.index,
                                      series=isinstance(obj, pd.Series), order=order)
            out[label] = _values(vals, miss, ca.has_na or cb.has_na)
        if len(pairs_) == 1 and isinstance(obj, pd.Series) and isinstance(right, pd.Series):
            # the values are this call's own array: no copy (pandas 3 copies by default)
            return pd.Series(out[pairs_[0][2]], index=index, name=obj.name, copy=False)
        frame = pd.DataFrame({i: v for i, v in enumerate(out.values())}, index=index)
        frame.columns = pd.Index(list(out))
        return frame


def _every_pair(left: pd.DataFrame, right: pd.DataFrame, same: bool, start: np.ndarray,
                end: np.ndarray, index: pd.Index, kw: dict[str, Any],
                order: np.ndarray | None = None) -> pd.DataFrame:
    """pandas' pairwise layout: rows (window label, column of ``right``; a grouped
    window's label is (group, label)), columns those of ``left``; a frame against
    itself computes each pair once."""
    lc = [column_arrays(left.iloc[:, i], left.columns[i]) for i in range(left.shape[1])]
    rc = lc if same else [column_arrays(right.iloc[:, j], right.columns[j])
                          for j in range(right.shape[1])]
    nwin, k, k2 = len(index), len(lc), len(rc)
    out = np.full((nwin, k2, k), np.nan)
    miss = np.zeros((nwin, k2, k), bool)
    for j in range(k2):
        for i in range(k):
            if same and i > j:  # mirrored below
                continue
            vals, m = window_pairs(lc[i], rc[j], start, end,
                                   names=[left.columns[i], right.columns[j]],
                                   index=left.index, series=False, order=order, **kw)
            out[:, j, i] = vals
            if m is not None:
                miss[:, j, i] = m
    if same:
        low = np.tril_indices(k, -1)  # (i > j): the pair (j, i) computed above
        out[:, low[1], low[0]] = out[:, low[0], low[1]]
        miss[:, low[1], low[0]] = miss[:, low[0], low[1]]
    out[miss] = np.nan
    rep = index.repeat(k2)
    levels = ([rep.get_level_values(i) for i in range(rep.nlevels)]
              if isinstance(rep, pd.MultiIndex) else [rep])
    rows = pd.MultiIndex.from_arrays(
        [*levels, right.columns.take(np.tile(np.arange(k2), nwin))],
        names=[*index.names, None])
    return pd.DataFrame(out.reshape(nwin * k2, k), index=rows, columns=left.columns)
