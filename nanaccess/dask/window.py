"""Rolling windows on dask DataFrames: ``ddf.rolling(w).nanstats.<stat>(...)``, lazy.

Each partition is extended by the rows its windows reach into its neighbours
(``map_overlap``: ``before``/``after`` rows, or a time span for a time-based window)
and reduced by the pandas window accessor (:class:`nanaccess.pandas.window.NanWindow`);
dask trims the borrowed rows. Every output window lies whole inside its extended
partition, so each value is exactly the plain statistic of its window under the
policy (the pandas accessor's contract), whatever the partitioning; errors name the
window's label and the NaN's label as on pandas.

The accessor is put on dask's ``Rolling`` class by :func:`register_window_accessor`
(no public registry for it, as for pandas' windows).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..pandas._generated_window import WindowStatsMixin

__all__ = ["NanDaskWindow", "register_window_accessor", "overlap_of"]


def overlap_of(window: Any, center: bool) -> tuple[Any, Any]:
    """(rows or span before, rows after) each output's window reaches: an integer
    window ``w`` reaches ``w - 1`` rows (centered: ``w - 1 - (w - 1) // 2`` before and
    ``(w - 1) // 2`` after, as pandas centers); a time window (``"7D"``) its span back.

    Examples
    --------
    >>> overlap_of(5, False), overlap_of(5, True), overlap_of(4, True)
    ((4, 0), (2, 2), (2, 1))
    """
    if isinstance(window, int):
        if window < 0:
            raise ValueError("window must be an integer 0 or greater")
        ahead = (window - 1) // 2 if center and window > 0 else 0
        return max(window - 1 - ahead, 0), ahead
    if center:
        raise NotImplementedError("a centered time-based window on a dask DataFrame is "
                                  "not supported; use an integer window")
    return pd.Timedelta(pd.tseries.frequencies.to_offset(window)), 0


def _chunk(part: Any, window: Any, min_periods: Any, center: bool, stat: str,
           kwargs: dict[str, Any]) -> Any:
    """One extended partition through the pandas window accessor."""
    return part.rolling(window, min_periods=min_periods, center=center).nanstats._reduce(
        stat, **kwargs)


class NanDaskWindow(WindowStatsMixin):
    """NaN-explicit statistics of a dask DataFrame / Series window (lazy).

    Examples
    --------
    >>> import numpy as np, pandas as pd, dask.dataframe as dd
    >>> import nanaccess.dask.window as w
    >>> w.register_window_accessor()
    >>> s = dd.from_pandas(pd.Series([1.0, np.nan, 3.0, 4.0, 8.0]), npartitions=2)
    >>> s.rolling(2, min_periods=1).nanstats.median(nan_policy="omit").compute().tolist()
    [1.0, 1.0, 3.0, 3.5, 6.0]
    """

    def __init__(self, rolling: Any) -> None:
        self._rolling = rolling

    def _reduce(self, stat: str, **kwargs: Any) -> Any:
        r = self._rolling
        if getattr(r, "groupby_kwargs", None) is not None:
            raise NotImplementedError("groupby(...).rolling(...).nanstats is not supported "
                                      "on dask DataFrames")
        if getattr(r, "win_type", None) is not None:
            raise NotImplementedError("weighted windows (win_type) are not supported")
        obj, window, center = r.obj, r.window, bool(r.center)
        before, after = overlap_of(window, center)
        args = (window, r.min_periods, center, stat, kwargs)
        meta = _chunk(obj._meta, *args)  # the result's columns and dtypes, lazily
        return obj.map_overlap(_chunk, before, after, *args, meta=meta)


def register_window_accessor(name: str = "nanstats") -> None:
    """Put :class:`NanDaskWindow` as ``name`` on dask's ``Rolling`` (idempotent)."""
    import dask.dataframe as dd

    rolling = type(dd.from_pandas(pd.Series([0.0]), npartitions=1).rolling(1))

    def accessor(self: Any) -> NanDaskWindow:
        return NanDaskWindow(self)

    accessor.__doc__ = NanDaskWindow.__doc__
    setattr(rolling, name, property(accessor))
