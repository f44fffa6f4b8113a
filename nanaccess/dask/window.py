"""Rolling windows on dask DataFrames: ``ddf.rolling(w).nanstats.<stat>(...)`` and
``ddf.groupby(k).rolling("7D").nanstats.<stat>(...)``, lazy.

Each partition is extended by the rows its windows reach into its neighbours
(``map_overlap``: ``before``/``after`` rows, or a time span for a time-based window)
and reduced by the pandas window accessor (:class:`nanaccess.pandas.window.NanWindow`);
dask trims the borrowed rows. Every output window lies whole inside its extended
partition, so each value is exactly the plain statistic of its window under the
policy (the pandas accessor's contract), whatever the partitioning; errors name the
window's label and the NaN's label as on pandas.

* A centered time window ``(t - w/2, t + w/2]`` borrows ``w`` back and ``w/2`` ahead.
  dask takes the rows ahead from the next partition alone and raises
  ``NotImplementedError`` ("Partition size is less than overlapping window size")
  where that partition spans less time: repartition then.
* ``ddf.groupby(k).rolling(w)`` is dask's groupby-rolling (a time-based window, as
  dask documents it): each extended partition is grouped, the result is labelled
  ``(key, index)`` and ordered by the index, as dask's own groupby-rolling
  statistics. An integer window is refused: a group's earlier rows may lie further
  back than any fixed number of borrowed rows, so a window could be cut short.

The accessor is put on dask's ``Rolling`` class by :func:`register_window_accessor`
(no public registry for it, as for pandas' windows).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..options import get_options, option_context
from ..pandas._generated_window import WindowStatsMixin

__all__ = ["NanDaskWindow", "register_window_accessor", "overlap_of"]


def overlap_of(window: Any, center: bool) -> tuple[Any, Any]:
    """(rows or span before, rows or span after) each output's window reaches: an
    integer window ``w`` reaches ``w - 1`` rows (centered: ``w - 1 - (w - 1) // 2``
    before and ``(w - 1) // 2`` after, as pandas centers); a time window (``"7D"``)
    its span back (centered: the span back and half of it, plus one nanosecond, ahead:
    dask takes the rows strictly before the partition's last time plus ``after``).

    Examples
    --------
    >>> overlap_of(5, False), overlap_of(5, True), overlap_of(4, True)
    ((4, 0), (2, 2), (2, 1))
    >>> overlap_of("2D", True)
    (Timedelta('2 days 00:00:00'), Timedelta('1 days 00:00:00.000000001'))
    """
    if isinstance(window, int):
        if window < 0:
            raise ValueError("window must be an integer 0 or greater")
        ahead = (window - 1) // 2 if center and window > 0 else 0
        return max(window - 1 - ahead, 0), ahead
    span = pd.Timedelta(pd.tseries.frequencies.to_offset(window))
    if not center:
        return span, 0
    return span, pd.Timedelta(span.value // 2 + 1, unit="ns")


def _chunk(part: Any, window: Any, min_periods: Any, center: bool, stat: str,
           kwargs: dict[str, Any], groupby: dict[str, Any] | None = None,
           columns: Any = None, options: dict[str, Any] | None = None) -> Any:
    """One extended partition through the pandas window accessor (grouped first, and
    ordered by the index as dask's groupby-rolling, when ``groupby`` is given), under
    ``options``: the nanaccess options in force when the graph was built."""
    if options is not None:
        with option_context(**options):
            return _chunk(part, window, min_periods, center, stat, kwargs, groupby, columns)
    if groupby is None:
        return _numpy_ints_as_floats(part.rolling(
            window, min_periods=min_periods, center=center).nanstats._reduce(stat, **kwargs))
    g = part.groupby(**groupby)
    if columns is not None:
        g = g[columns]
    out = g.rolling(window, min_periods=min_periods, center=center).nanstats._reduce(
        stat, **kwargs)
    return _numpy_ints_as_floats(out.sort_index(level=-1))


def _numpy_ints_as_floats(out: Any) -> Any:
    """NumPy integer result columns as float64 (pandas' and dask's window dtype).

    On pandas an integer pick or sum stays int64 where every window has a value; a
    partition cannot know whether another partition's windows do, so every partition
    (and the meta) gives float64 and the partitions agree. Nullable columns keep
    their integers (a window without a value is ``<NA>`` in any partition)."""
    if isinstance(out, pd.Series):
        return out.astype(np.float64) if out.dtype.kind in "iu" and isinstance(
            out.dtype, np.dtype) else out
    ints = [c for c, dt in out.dtypes.items() if isinstance(dt, np.dtype) and dt.kind in "iu"]
    return out.astype(dict.fromkeys(ints, np.float64)) if ints else out


def _groupby_of(r: Any) -> tuple[dict[str, Any] | None, Any]:
    """(pandas groupby keywords or None, selected columns) of a dask groupby-rolling."""
    kw = getattr(r, "groupby_kwargs", None)
    if kw is None:
        return None, None
    if isinstance(r.window, int):
        raise NotImplementedError(
            "groupby(...).rolling(...).nanstats on a dask DataFrame needs a time-based "
            "window (an offset such as '7D', as dask's groupby-rolling documents): with "
            "an integer window a group's earlier rows may lie beyond the rows a "
            "partition borrows")
    return {k: v for k, v in kw.items() if v is not None}, getattr(r, "groupby_slice",
                                                                     None)


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
        if getattr(r, "win_type", None) is not None:
            raise NotImplementedError("weighted windows (win_type) are not supported")
        groupby, columns = _groupby_of(r)
        obj, window, center = r.obj, r.window, bool(r.center)
        before, after = overlap_of(window, center)
        # the options are read now, when the graph is built (docs/dask.md), not when
        # and where a partition is computed
        args = (window, r.min_periods, center, stat, kwargs, groupby, columns,
                get_options())
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
