"""pandas' ``agg`` forms on the accessors: a name, a list, a dict and named aggregation.

``df.nanstats.agg(...)``, ``s.nanstats.agg(...)`` and ``gb.nanstats.agg(...)`` accept
what pandas' own ``agg`` accepts and lay the results out as pandas does; every single
statistic is the accessor's own method (so policies, errors and dtypes are those of
the single statistics). ``gb.nanstats.transform(...)`` broadcasts a grouped statistic
back to the rows, as ``GroupBy.transform``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from .. import _stats
from ._nanagg import NanAgg

__all__ = [
    "frame_agg",
    "label_of",
    "named_aggregation",
    "one_statistic",
    "series_agg",
]


def label_of(func: Any) -> str:
    """The label pandas gives a function in an ``agg`` result."""
    return func if isinstance(func, str) else getattr(func, "__name__", repr(func))


def named_aggregation(kwargs: dict[str, Any]) -> tuple[dict[str, tuple[Any, Any]], dict[Any, Any]]:
    """Split ``**kwargs`` into named aggregations (``name=(column, func)`` or
    ``pd.NamedAgg``) and the keywords meant for every statistic."""
    named = {k: (v.column, v.aggfunc) if isinstance(v, pd.NamedAgg) else tuple(v)
             for k, v in kwargs.items()
             if isinstance(v, pd.NamedAgg) or (isinstance(v, tuple) and len(v) == 2)}
    return named, {k: v for k, v in kwargs.items() if k not in named}


def one_statistic(acc: Any, func: Any, kwargs: dict[str, Any], where: str) -> Any:
    """``acc.<func>(**kwargs)`` for a statistic name or a :mod:`nanaccess.agg` callable,
    passing each statistic only the keywords it takes."""
    if isinstance(func, NanAgg):
        return getattr(acc, func.stat)(**func.kwargs)
    method = getattr(acc, func, None) if isinstance(func, str) else None
    if method is None or func not in _stats.STATISTICS:
        names = ", ".join(n for n in _stats.STATISTICS if hasattr(acc, n))
        raise ValueError(f"{where} takes names of statistics ({names}) or nanaccess.agg "
                         f"callables, got {func!r}")
    takes = inspect.signature(method).parameters
    return method(**{k: v for k, v in kwargs.items() if k in takes})


def check_keywords(acc: Any, funcs: list[Any], kwargs: dict[str, Any], where: str) -> None:
    """A keyword that no requested statistic takes is a TypeError (pandas passes
    unknown keywords on to the function, which then fails less clearly)."""
    taken = {k for f in funcs if isinstance(f, str) and hasattr(acc, f)
             for k in inspect.signature(getattr(acc, f)).parameters}
    unknown = sorted(set(kwargs) - taken)
    if unknown and all(isinstance(f, str) for f in funcs):
        raise TypeError(f"{where}: no statistic of {funcs} takes {unknown}")


def _flat(spec: Any) -> list[Any]:
    if isinstance(spec, str) or callable(spec):
        return [spec]
    values = spec.values() if isinstance(spec, Mapping) else spec
    return [g for f in values for g in (f if isinstance(f, list | tuple) else [f])]


def series_agg(acc: Any, func: Any, kwargs: dict[str, Any]) -> Any:
    """``s.nanstats.agg``: a name gives the statistic itself; a list a Series indexed
    by the names; a dict ``{label: func}`` a Series indexed by its labels."""
    if func is None:
        raise TypeError("agg needs func: a statistic name, a list of them or a dict")
    check_keywords(acc, _flat(func), kwargs, "agg")
    if isinstance(func, str) or callable(func):
        return one_statistic(acc, func, kwargs, "agg")
    pairs = list(func.items()) if isinstance(func, Mapping) else \
        [(label_of(f), f) for f in func]
    values = [one_statistic(acc, f, kwargs, "agg") for _, f in pairs]
    return pd.Series(values, index=pd.Index([k for k, _ in pairs]), name=acc._obj.name,
                     dtype=_common_dtype(values))


def frame_agg(acc: Any, func: Any, kwargs: dict[str, Any], column_acc: Callable[[Any], Any]
              ) -> Any:
    """``df.nanstats.agg``: as ``DataFrame.agg`` (axis 0).

    ``column_acc(label)`` gives the Series accessor of one column (for dict and named
    forms, which apply statistics to chosen columns).
    """
    named, kwargs = named_aggregation(kwargs)
    if func is None and named:  # rows named by the keywords, columns as used
        cells = {name: (col, f) for name, (col, f) in named.items()}
        return _cells_frame(cells, kwargs, column_acc)
    if func is None:
        raise TypeError("agg needs func: a statistic name, a list of them, a dict of "
                        "columns, or named aggregations (name=(column, statistic))")
    check_keywords(acc, _flat(func), kwargs, "agg")
    if isinstance(func, str) or callable(func):
        return one_statistic(acc, func, kwargs, "agg")
    if not isinstance(func, Mapping):  # a list: one row per statistic
        rows = {label_of(f): one_statistic(acc, f, kwargs, "agg") for f in func}
        return _stacked_rows(rows)
    missing = [c for c in func if c not in acc._obj.columns]
    if missing:
        raise KeyError(f"agg: column(s) {missing} do not exist")
    if all(isinstance(f, str) or callable(f) for f in func.values()):
        values = [one_statistic(column_acc(c), f, kwargs, "agg") for c, f in func.items()]
        return pd.Series(values, index=pd.Index(list(func)), dtype=_common_dtype(values))
    cells = {}
    for col, fs in func.items():
        for f in (fs if isinstance(fs, list | tuple) else [fs]):
            cells[(label_of(f), col)] = (col, f)
    return _cells_frame(cells, kwargs, column_acc, keyed=True)


def _stacked_rows(rows: dict[str, Any]) -> pd.DataFrame:
    """Per-column results (Series on the same columns) as one row each; built by
    position, so duplicate column labels stay (pandas keeps them too)."""
    results = list(rows.values())
    if not all(isinstance(r, pd.Series) for r in results):
        bad = next(k for k, r in rows.items() if not isinstance(r, pd.Series))
        raise ValueError(f"agg with a list needs one value per column from each statistic; "
                         f"{bad!r} gives a {type(rows[bad]).__name__}")
    columns = results[0].index
    out = pd.DataFrame({j: [r.iloc[j] for r in results] for j in range(len(columns))},
                       index=pd.Index(list(rows)))
    out.columns = columns
    return out


def _cells_frame(cells: dict[Any, tuple[Any, Any]], kwargs: dict[str, Any],
                 column_acc: Callable[[Any], Any], keyed: bool = False) -> pd.DataFrame:
    """A frame of single statistics: rows by statistic (or name), columns by column,
    missing where a column was not asked for that statistic (as pandas)."""
    data: dict[Any, dict[Any, Any]] = {}
    rows: list[Any] = []
    for key, (col, f) in cells.items():
        row = key[0] if keyed else key
        if row not in rows:
            rows.append(row)
        data.setdefault(col, {})[row] = one_statistic(column_acc(col), f, kwargs, "agg")
    return pd.DataFrame({c: pd.Series(v, dtype=_common_dtype(list(v.values())))
                         for c, v in data.items()}).reindex(rows)


def _common_dtype(values: list[Any]) -> Any:
    """float64 for numbers (as pandas lays out mixed results), else object."""
    if all(isinstance(v, int | float | np.number) and not isinstance(v, bool | np.bool_)
           for v in values):
        return None if all(isinstance(v, int | np.integer) for v in values) else np.float64
    return object


def broadcast_to_rows(result: Any, codes: np.ndarray, index: pd.Index,
                      keys: list[Any]) -> Any:
    """A grouped result (one row per group, in group order) as one row per input row,
    rows without a group (dropped keys) missing, as ``GroupBy.transform``."""
    if isinstance(result, pd.DataFrame):
        result = result.drop(columns=[k for k in keys if k in result.columns])
    taken = result.iloc[np.where(codes < 0, 0, codes)] if len(result) else result
    if len(result) == 0 and len(codes):
        taken = result.reindex(range(len(codes)))
    taken.index = index
    dropped = codes < 0
    if dropped.any():
        cond = dropped if taken.ndim == 1 else np.broadcast_to(dropped[:, None], taken.shape)
        taken = taken.mask(cond)
    return taken
