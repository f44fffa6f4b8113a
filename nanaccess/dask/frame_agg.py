"""pandas' ``agg`` forms on dask DataFrames, with :mod:`nanaccess.agg` callables.

* ``ddf.groupby(k).agg(na.agg.median(nan_policy="raise"))``: dask's own ``aggregate``
  maps a callable to its ``__name__`` and then runs *its* ``median`` / ``mean`` (no
  policy, not exact). :func:`register_groupby_agg` wraps dask's GroupBy ``aggregate``
  so that a spec holding a ``nanaccess.agg`` callable runs nanaccess instead: rows are
  shuffled so each group sits whole in one partition and each partition runs the
  in-memory grouped engine (:func:`nanaccess.dask.frame_groupby.groupby_stat`), so
  results are exact and policy errors name column, group and the first offending row
  as pandas would. A spec that mixes nanaccess callables with dask's own names
  ("sum", "max") runs pandas' ``agg`` on each shuffled partition (each name keeps
  pandas' meaning). Specs without nanaccess callables are dask's, untouched.
* ``ddf.nanstats.agg(...)`` / ``s.nanstats.agg(...)`` (dask DataFrames have no
  ``agg`` of their own): the forms of ``df.nanstats.agg``, lazy, each statistic the
  dask accessor's own exact statistic; the layout is pandas' (it is built by the same
  code, :mod:`nanaccess.pandas.agg_forms`, over the computed results). Each
  statistic's policy error names its column and the index label of the first
  offending value; when several columns would raise, which one is reported depends
  on which task dask finishes first.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from typing import Any

import dask.dataframe as dd
import numpy as np
import pandas as pd

from ..options import get_options, option_context
from ..pandas._nanagg import NanAgg
from ..pandas.agg_forms import frame_agg, series_agg
from .typed_dask import delayed

__all__ = ["lazy_frame_agg", "lazy_series_agg", "register_groupby_agg"]

#: dask's own keywords of ``GroupBy.aggregate`` (not pandas' named aggregations)
_DASK_KEYWORDS = ("split_every", "split_out", "shuffle_method")


def _funcs(arg: Any, kwargs: Mapping[str, Any]) -> list[Any]:
    """Every function of an ``agg`` spec (name, callable, list, dict, named tuples)."""
    out: list[Any] = []

    def walk(f: Any) -> None:
        if isinstance(f, Mapping):
            for v in f.values():
                walk(v)
        elif isinstance(f, list | tuple):
            for v in f:
                walk(v)
        elif f is not None:
            out.append(f)

    walk(arg)
    for v in kwargs.values():
        if isinstance(v, pd.NamedAgg):
            out.append(v.aggfunc)
        elif isinstance(v, tuple) and len(v) == 2:
            out.append(v[1])
    return out


def _wrap_aggregate(original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def aggregate(self: Any, arg: Any = None, *args: Any, **kwargs: Any) -> Any:
        named = {k: v for k, v in kwargs.items() if k not in _DASK_KEYWORDS}
        funcs = _funcs(arg, named)
        if args or not any(isinstance(f, NanAgg) for f in funcs):
            return original(self, arg, *args, **kwargs)
        gb = self.nanstats  # the same frame, keys, dropna and column selection
        if all(isinstance(f, NanAgg) for f in funcs):
            return gb.agg(arg, **named)
        return gb._reduce("pandas_agg", func=arg, **named)

    return aggregate


def register_groupby_agg(classes: set[type[Any]]) -> None:
    """Wrap ``aggregate`` / ``agg`` of dask's GroupBy classes (once)."""
    for cls in classes:
        original = cls.aggregate
        if getattr(original, "_nanaccess", False):
            continue
        wrapped = _wrap_aggregate(original)
        wrapped._nanaccess = True  # type: ignore[attr-defined]
        cls.aggregate = wrapped
        cls.agg = wrapped


# -- ungrouped: ddf.nanstats.agg / s.nanstats.agg ------------------------------------


class _Recorder:
    """Stands in for a dask ``.nanstats`` accessor while pandas' layout code runs.

    ``mode="meta"``: each statistic is called on the real accessor (the lazy result is
    kept in ``lazy``) and a non-empty stand-in of its computed value is returned, so the
    layout code yields the result's meta. ``mode="replay"``: the computed values are
    handed out in the same call order.
    """

    def __init__(self, acc: Any, lazy: list[Any], values: list[Any] | None = None,
                 kind: type[Any] | None = None, column: Any = None) -> None:
        self._acc, self._lazy, self._values = acc, lazy, values
        self._kind = type(acc) if kind is None else kind
        self._obj = acc._obj if acc is not None else _Named(column)

    def __getattr__(self, stat: str) -> Any:
        if stat.startswith("_"):
            raise AttributeError(stat)
        method = getattr(self._kind, stat, None)
        if method is None:
            raise AttributeError(stat)
        if self._values is not None:
            @functools.wraps(method)
            def replay(**kw: Any) -> Any:
                return self._values.pop(0)
            return replay

        takes = inspect.signature(method).parameters

        @functools.wraps(method)
        def record(**kw: Any) -> Any:
            # a nanaccess.agg callable carries its defaults (weights=None), which the
            # dask accessors may not take
            kw = {k: v for k, v in kw.items() if v is not None or k in takes}
            lazy = getattr(self._acc, stat)(**kw)
            self._lazy.append(lazy)
            return _stand_in(lazy)
        return record


class _Named:
    def __init__(self, name: Any) -> None:
        self.name = name


def _stand_in(lazy: Any) -> Any:
    """A non-empty pandas / NumPy value shaped as ``lazy`` computes."""
    meta = getattr(lazy, "_meta", None)
    if isinstance(meta, pd.Series | pd.DataFrame):
        return dd.utils.meta_nonempty(meta)
    dtype = getattr(lazy, "dtype", np.dtype(float))
    return np.dtype(dtype).type(1) if np.dtype(dtype).kind in "fiub" else pd.NA


def _lazy_agg(acc: Any, layout: Callable[..., Any], func: Any, kwargs: dict[str, Any]) -> Any:
    if isinstance(func, str) or callable(func):  # one statistic: the accessor's own
        lazy: list[Any] = []
        _ = layout(_Recorder(acc, lazy), func, kwargs)
        return lazy[0]
    lazy = []
    meta = layout(_Recorder(acc, lazy), func, kwargs)
    parts = [lz.to_delayed() for lz in lazy]  # a Scalar: one; a frame: its partitions
    task = delayed(_replay)(parts, kind=type(acc), layout=layout, func=func,
                                 kwargs=kwargs,
                                 columns=list(acc._obj.columns)
                                 if isinstance(acc._obj, dd.DataFrame) else [],
                                 name=getattr(acc._obj, "name", None),
                                 options=get_options())
    return dd.from_delayed([task], meta=meta.iloc[:0], verify_meta=False)


def _replay(values: list[Any], *, kind: type[Any], layout: Callable[..., Any], func: Any,
            kwargs: dict[str, Any], columns: list[Any], name: Any, options: dict[str, Any]) -> Any:
    values = [(pd.concat(v) if len(v) > 1 else v[0]) if isinstance(v, list) else v
              for v in values]
    values = [v[()] if isinstance(v, np.ndarray) and v.ndim == 0 else v for v in values]
    with option_context(**options):
        return layout(_Replayer(values, kind, columns, name), func, kwargs)


class _Replayer(_Recorder):
    """Hands out the computed values in the order :class:`_Recorder` met them."""

    def __init__(self, values: list[Any], kind: type[Any], columns: list[Any], name: Any) -> None:
        super().__init__(None, [], values, kind=kind, column=name)
        self._obj = pd.DataFrame(columns=columns) if columns else _Named(name)


def _frame_layout(acc: Any, func: Any, kwargs: dict[str, Any]) -> Any:
    def column_acc(c: Any) -> Any:
        if isinstance(acc, _Replayer):  # shares the value queue
            # the registered Series accessor class (dask's accessor registry hands it
            # out on the class): no import of .dataframe, which imports this module
            return _Replayer(acc._values, dd.Series.nanstats, [], c)
        return _Recorder(acc._obj[c].nanstats, acc._lazy)
    return frame_agg(acc, func, kwargs, column_acc)


def lazy_frame_agg(acc: Any, func: Any, kwargs: dict[str, Any]) -> Any:
    """``ddf.nanstats.agg``: lazy, laid out as ``df.nanstats.agg``."""
    return _lazy_agg(acc, _frame_layout, func, kwargs)


def lazy_series_agg(acc: Any, func: Any, kwargs: dict[str, Any]) -> Any:
    """``s.nanstats.agg``: lazy, laid out as ``s.nanstats.agg``."""
    return _lazy_agg(acc, series_agg, func, kwargs)
