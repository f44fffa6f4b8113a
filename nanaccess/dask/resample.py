"""``ddf.resample(rule).nanstats``: exact statistics per time bin of a dask DataFrame.

As dask's own resample (:mod:`dask.dataframe.tseries.resample`): the frame is
repartitioned at bin edges (its index must be a sorted DatetimeIndex with known
divisions), so every bin lies whole in one partition; each partition runs pandas'
``df.resample(rule).nanstats.<stat>`` and is reindexed to every bin of its range
(bins without rows are what pandas gives over nothing: NaN, 0 for ``sum`` and
``count``, 1 for ``prod``). The computed result equals pandas' on the whole frame,
labels (tz-aware bins included) and values; policy errors name column, bin and the
first offending row of the partition that raises (a bin never spans two).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .. import _stats
from ..options import get_options, option_context
from ._generated import DaskGroupByStatsMixin

__all__ = ["DaskNanResampler", "register_resample_accessor"]

_FILL: dict[str | None, int] = {"zero": 0, "one": 1}


def _all_bins(divisions: tuple[Any, ...], rule: Any, kwargs: dict[str, Any]) -> pd.DatetimeIndex:
    """Every bin label from the first to the last row, as pandas labels them on the
    whole frame (tz and DST transitions included): the bins of the two ends."""
    ends = pd.Series([0, 0], index=pd.DatetimeIndex([divisions[0], divisions[-1]]))
    return ends.resample(rule, **kwargs).size().index


def _partition(pdf: pd.DataFrame | pd.Series, *, outdivs: tuple[Any, ...], bins: pd.DatetimeIndex,
               rule: Any, kwargs: dict[str, Any],
               stat: str, kw: dict[str, Any], options: dict[str, Any],
               partition_info: dict[Any, Any] | None = None
               ) -> Any:
    """One partition's statistic per bin, reindexed to every bin of its range."""
    with option_context(**options):
        out = getattr(pdf.resample(rule, **kwargs).nanstats, stat)(**kw)
    if partition_info is None:  # dask's meta
        return out
    i = partition_info["number"]
    last = i == len(outdivs) - 2
    index = out.index.levels[0] if isinstance(out.index, pd.MultiIndex) else out.index
    lo, hi = pd.Timestamp(outdivs[i]), pd.Timestamp(outdivs[i + 1])
    mine = bins[(bins >= lo) & ((bins <= hi) if last else (bins < hi))]
    mine = mine.as_unit(index.unit).rename(index.name)
    if isinstance(out.index, pd.MultiIndex):  # list q: (bin, q)
        qs = pd.Index(np.atleast_1d(np.asarray(kw["q"], dtype=np.float64)))
        full: pd.Index = pd.MultiIndex.from_product([mine, qs], names=out.index.names)
    else:
        full = mine
    empty = _stats.get(stat).empty if stat in _stats.STATISTICS else None
    fill = _FILL.get(empty)
    return out.reindex(full) if fill is None else out.reindex(full, fill_value=fill)


class DaskNanResampler(DaskGroupByStatsMixin):
    """``ddf.resample(rule).nanstats``: exact statistics per bin, lazy.

    Examples
    --------
    >>> import numpy as np, pandas as pd, dask.dataframe as dd, nanaccess.dask
    >>> idx = pd.date_range("2024-01-01", periods=6, freq="12h", tz="UTC")
    >>> df = pd.DataFrame({"x": [1.0, np.nan, 3.0, 4.0, 5.0, 7.0]}, index=idx)
    >>> ddf = dd.from_pandas(df, npartitions=2)
    >>> ddf.resample("1D").nanstats.median(nan_policy="omit").compute()
                                 x
    2024-01-01 00:00:00+00:00  1.0
    2024-01-02 00:00:00+00:00  3.5
    2024-01-03 00:00:00+00:00  6.0
    """

    def __init__(self, resampler: Any) -> None:
        self._obj = resampler.obj
        self._rule = resampler.rule
        self._kwargs = dict(resampler.kwargs)

    def describe(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("describe per bin: compute the frame and use pandas' "
                                  "df.resample(rule).nanstats.describe()")

    def _reduce(self, stat: str, **kw: Any) -> Any:
        from dask.dataframe.tseries.resample import _resample_bin_and_out_divs

        obj = self._obj
        if not obj.known_divisions:
            raise ValueError("resample needs known divisions (a sorted DatetimeIndex, "
                             "e.g. set_index(..., sorted=True))")
        newdivs, outdivs = _resample_bin_and_out_divs(
            obj.divisions, self._rule, **{k: v for k, v in self._kwargs.items()
                                           if k in ("closed", "label")})
        parts = obj.repartition(divisions=list(newdivs), force=True)
        kwargs = dict(self._kwargs)
        # pandas' default origin is the first day of the *whole* index; each partition
        # would otherwise bin from its own first day (bins not dividing a day differ)
        offset = pd.tseries.frequencies.to_offset(self._rule)
        if isinstance(offset, pd.offsets.Tick) and not isinstance(offset, pd.offsets.Day):
            kwargs.setdefault("origin", pd.Timestamp(obj.divisions[0]).normalize())
        opts = dict(outdivs=tuple(outdivs), bins=_all_bins(obj.divisions, self._rule, kwargs),
                    rule=self._rule, kwargs=kwargs,
                    stat=stat, kw=kw, options=get_options())
        meta = _partition(obj._meta, **opts)
        return parts.map_partitions(_partition, meta=meta, clear_divisions=True,
                                    enforce_metadata=False, **opts)


class _ResampleAccessor:
    """Descriptor: ``ddf.resample(rule).nanstats`` is :class:`DaskNanResampler`."""

    def __get__(self, res: Any, owner: type[Any] | None = None) -> Any:
        return DaskNanResampler if res is None else DaskNanResampler(res)


def register_resample_accessor() -> None:
    """Set ``.nanstats`` on dask's Resampler (dask has no accessor registry for it)."""
    from dask.dataframe.tseries.resample import Resampler

    Resampler.nanstats = _ResampleAccessor()
