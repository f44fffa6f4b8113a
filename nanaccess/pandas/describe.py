"""``describe`` of pandas objects: the rows of :mod:`nanaccess._describe`, labelled.

describe exists to show the NaNs, so by itself it does not raise: it reports the counts
of every kind (numbers, NaN, missing) and computes its statistics under "omit" unless
a ``nan_policy`` is passed or the user chose one other than "raise" with ``set_options`` /
``option_context`` (:func:`nanaccess._describe.describe_policy`). Columns are chosen as
pandas' ``describe`` chooses them (``include`` / ``exclude``); a column that holds no
numbers (strings, categories) has its counts and NaN statistics. The GroupBy form
computes every row for all groups at once with the grouped engine (one pass per
statistic, no loop per group).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._describe import describe_policy, describe_values, pct_label, percentiles, row_labels
from .._labels import fmt_label
from ..errors import NaNError
from ..options import NanPolicy
from .columns import (
    column_reduce,
    holds_numbers,
    report,
    restated,
    subject_of,
    type_error,
)
from .dtypes import Column, column_arrays, is_numeric_column, to_scalar

__all__ = ["describe_policy", "describe_column", "describe_frame", "describe_groups"]




def _counts_only(col: Column, name: Hashable, ps: Sequence[float] | None) -> pd.Series:
    """describe of a column that holds no numbers: its counts, NaN statistics."""
    rep = report(col)
    rows = row_labels(ps)
    values = np.full(len(rows), np.nan)
    values[:3] = [rep["numbers"], rep["nan"], rep["missing"]]
    return pd.Series(values, index=rows, name=name, dtype=np.float64)


def describe_column(col: Column, name: Any, index: pd.Index, policy: NanPolicy,
                    ps: Any) -> pd.Series:
    """describe's rows (:mod:`nanaccess._describe`) of one column, errors relabelled."""
    try:
        rows = describe_values(col.values, col.missing, policy, ps,
                               subject=f"column {fmt_label(name)}")
    except NaNError as err:
        raise restated(err, name, index, series=True) from None
    except TypeError as err:
        raise type_error(name, err, True) from None
    if col.values.dtype.kind in "mM":
        if col.values.dtype.kind == "M":
            rows.pop("std")  # pandas describes datetimes without a std row
        return _temporal_rows(col, name, index, policy, ps, rows)
    return pd.Series(list(rows.values()), index=list(rows), name=name, dtype=np.float64)


def _temporal_rows(col: Column, name: Any, index: pd.Index, policy: NanPolicy, ps: Any,
                   rows: dict[Any, Any]) -> pd.Series:
    """describe of datetimes / timedeltas as pandas shows them: Timestamps (in the
    column's time zone) and Timedeltas, exact (the statistics are taken again in the
    data's own dtype: the float rows of :mod:`nanaccess._describe` round them)."""
    stats: dict[str, tuple[str, dict[Any, Any]]] = {"mean": ("mean", {}), "std": ("std",
                                                                                  {"ddof": 1}),
                                          "min": ("min", {}), "max": ("max", {})}
    stats.update({pct_label(p): ("quantile", {"q": p}) for p in percentiles(ps)})
    out: list[Any] = []
    for row, v in rows.items():
        if row not in stats:
            out.append(int(v))  # the counts
            continue
        stat, kw = stats[row]
        red, _ = column_reduce(col, name, index, stat, policy, series=True, **kw)
        m = red.missing is not None and bool(np.asarray(red.missing))
        out.append(to_scalar(red.values, m or bool(red.empty), col))
    return pd.Series(out, index=list(rows), name=name, dtype=object)


def _selected(df: pd.DataFrame, include: Any, exclude: Any) -> list[int]:
    """Positions of the columns describe shows, as pandas 3's ``describe`` picks them:
    by default ``select_dtypes(include=[np.number, "datetime"])`` (numbers, timedeltas
    and tz-naive datetimes: pandas leaves tz-aware ones out) and object columns
    holding numbers (data to nanaccess), every column when there is none;
    ``include="all"`` every column; else ``select_dtypes`` (a ValueError when nothing
    matches, as pandas)."""
    if include is None and exclude is None:
        keep = [i for i in range(df.shape[1])
                if df.iloc[:, [i]].select_dtypes(include=[np.number, "datetime"]).shape[1]
                or holds_numbers(df.iloc[:, i])]
        return keep or list(range(df.shape[1]))
    if isinstance(include, str) and include == "all":
        if exclude is not None:
            raise ValueError("exclude must be None when include is 'all'")
        return list(range(df.shape[1]))
    # per column (duplicate names stay apart); select_dtypes validates the dtypes
    keep = [i for i in range(df.shape[1])
            if df.iloc[:, [i]].select_dtypes(include=include, exclude=exclude).shape[1]]
    if not keep:
        raise ValueError("No columns match the specified include or exclude data types")
    return keep


def _row_order(parts: list[pd.Series]) -> list[str]:
    """The rows of the table as pandas orders them: the shortest column's rows first
    (a datetime column has no std), then the rows the longer ones add, in order."""
    names: list[str] = []
    for rows in sorted((list(p.index) for p in parts), key=len):
        names += [r for r in rows if r not in names]
    return names


def _is_temporal(dtype: Any) -> bool:
    """Datetimes (tz-aware too) and timedeltas, NumPy or Arrow."""
    return pd.api.types.is_datetime64_any_dtype(dtype) or pd.api.types.is_timedelta64_dtype(
        dtype)


def _is_data(s: pd.Series) -> bool:
    return is_numeric_column(s.dtype) or holds_numbers(s) or _is_temporal(s.dtype)


def describe_frame(df: pd.DataFrame, ps: Any, include: Any, exclude: Any,
                   nan_policy: Any) -> pd.DataFrame:
    """The describe table of a DataFrame (one column per described column)."""
    policy = describe_policy(nan_policy)
    if df.shape[1] == 0:
        raise ValueError("Cannot describe a DataFrame without columns")
    keep = _selected(df, include, exclude)
    parts = []
    for i in keep:
        s = df.iloc[:, i]
        name = df.columns[i]
        try:
            col = column_arrays(s, name)
        except TypeError:
            col = None
        if col is None or not _is_data(s):
            if col is None:  # strings, categories: counts of missing values only
                miss = s.isna().to_numpy()
                col = Column(np.zeros(len(s)), miss if miss.any() else None, "numpy",
                             np.dtype(np.float64))
            parts.append(_counts_only(col, name, ps))
        else:
            parts.append(describe_column(col, name, df.index, policy, ps))
    rows = _row_order(parts)
    out = pd.DataFrame({j: p.reindex(rows) for j, p in enumerate(parts)}, index=rows)
    if all(p.dtype == np.float64 for p in parts):
        out = out.astype(np.float64)
    out.columns = df.columns[keep]
    return out


def describe_groups(gb: Any, ps: Any, nan_policy: Any) -> pd.DataFrame:
    """``gb.nanstats.describe()``: one row per group, columns (column, row) as pandas'
    ``GroupBy.describe`` (flat rows for a SeriesGroupBy); every row is computed for
    all groups at once (one grouped pass per statistic and column)."""
    from ._groupby_registry import grouping_info, selected_obj

    if not getattr(gb, "as_index", True):
        raise ValueError("describe needs as_index=True (as pandas' GroupBy.describe)")
    policy = describe_policy(nan_policy)
    codes, ngroups, _ = grouping_info(gb)
    obj = selected_obj(gb)
    if isinstance(obj, pd.Series):
        return _describe_one(gb, obj, obj.name, codes, ngroups, policy, ps)
    # gb[[name]]: one column (a tuple label of MultiIndex columns included)
    tables = {name: _describe_one(gb[[name]], obj.iloc[:, j], name, codes, ngroups, policy,
                                  ps) for j, name in enumerate(obj.columns)}
    return pd.concat(tables, axis=1)


def _describe_one(sgb: Any, s: pd.Series, name: Any, codes: np.ndarray, ngroups: int,
                  policy: NanPolicy, ps: Any) -> pd.DataFrame:
    """The describe rows of one column for every group (groups x rows)."""
    qs = percentiles(ps)
    acc = sgb.nanstats
    row = "count"
    try:
        stats = {"count": acc.count(), "mean": acc.mean(nan_policy=policy),
                 "std": acc.std(nan_policy=policy), "min": acc.min(nan_policy=policy),
                 "max": acc.max(nan_policy=policy)}
        index = stats["count"].index
        qv = _floats(acc.quantile(qs, nan_policy=policy)).reshape(len(index), len(qs))
        ok = codes >= 0
        kinds = _kind_counts(column_arrays(s, name), codes[ok], ok, ngroups)
        blocks = {}
        for row in row_labels(ps):
            if row in kinds:
                blocks[row] = kinds[row]
            elif row in stats:
                blocks[row] = _floats(stats[row])
            else:
                blocks[row] = qv[:, [pct_label(q) for q in qs].index(row)]
    except OverflowError:
        # exact object results (huge ints) beyond float64: say where
        raise OverflowError(
            f"{subject_of(name)}: the {row} is too large for describe's float64 table; "
            "compute it with the statistic's own method for the exact value"
        ) from None
    return pd.DataFrame(blocks, index=index, dtype=np.float64)


def _floats(s: pd.Series | pd.DataFrame) -> np.ndarray:
    """float64 values of a one-column result (NA as NaN)."""
    if isinstance(s, pd.DataFrame):
        s = s.iloc[:, 0]
    return s.astype("float64").to_numpy(dtype=np.float64, na_value=np.nan)


def _kind_counts(col: Column, codes: np.ndarray, ok: np.ndarray, ngroups: int
                 ) -> dict[str, np.ndarray]:
    """NaN and missing counts per group (one bincount each)."""
    from ..core import isnan

    v = col.values
    nan = np.asarray(isnan(v), bool) if v.dtype.kind in "fO" else np.zeros(v.shape, bool)
    miss = np.zeros(v.shape, bool) if col.missing is None else col.missing
    if v.dtype.kind in "mM":
        miss = miss | np.isnat(v)
    nan = nan & ~miss
    return {
        "nan": np.bincount(codes, weights=nan[ok], minlength=ngroups).astype(np.float64),
        "missing": np.bincount(codes, weights=miss[ok], minlength=ngroups).astype(np.float64),
    }
