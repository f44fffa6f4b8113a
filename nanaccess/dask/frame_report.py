"""``describe`` and ``nan_report`` of dask Series / DataFrames: lazy, as the pandas ones.

The counts are merged from one report per partition (``distinct_payloads`` from the
union of the partitions' payload sets); the statistic rows of describe come from the
exact lazy statistics of :mod:`nanaccess.dask.frame_reduce` under "omit" unless a
policy is passed (describe shows the NaNs: it does not raise by default). Results are
lazy pandas objects equal to the in-memory accessor's.
"""

from __future__ import annotations

from typing import Any, cast

import dask.dataframe as dd
import numpy as np
import pandas as pd

from .._describe import COUNT_ROWS, describe_policy, pct_label, percentiles, row_labels
from ..core.chunked import REPORT_KEYS, classify_object, float_masks, report_array
from ..pandas.dtypes import column_arrays
from .frame_reduce import series_stat
from .typed_dask import delayed

__all__ = ["series_report", "series_describe", "frame_report", "frame_describe"]


def _partition_report(part: pd.Series) -> tuple[dict[str, int], set[Any]]:
    """(counts of :func:`nanaccess.nan_report`, set of the NaN payloads) of a partition."""
    col = column_arrays(part)
    counts = report_array(col.values, col.missing)
    a = col.values
    if a.dtype.kind == "f":
        nan, _, _, payload = float_masks(a)
        if col.missing is not None:
            nan &= ~col.missing
        return counts, set(np.unique(payload[nan]).tolist())
    if a.dtype.kind == "O":
        return counts, {c[2] for c in map(classify_object, a.tolist()) if c[0] == "nan"}
    return counts, set()


def _merge(parts: list[tuple[dict[str, int], set[Any]]]) -> dict[str, int]:
    total = {k: sum(p[0][k] for p in parts) for k in REPORT_KEYS}
    total["distinct_payloads"] = len(set().union(*(p[1] for p in parts)))
    return total


def _report(s: dd.Series) -> Any:
    """The merged report of a dask Series (a Delayed dict)."""
    parts = [delayed(_partition_report)(p) for p in s.to_delayed()]
    return delayed(_merge)(parts)


def series_report(s: dd.Series) -> dd.Series:
    """``s.nanstats.nan_report()``: a lazy int64 Series indexed by the report keys."""
    meta = pd.Series(dtype=np.int64, name=s.name)
    return cast("dd.Series",
           dd.from_delayed([delayed(_report_series)(_report(s), name=s.name)],
                           meta=meta, verify_meta=False))


def _report_series(rep: dict[str, int], *, name: Any) -> pd.Series:
    return pd.Series(rep, name=name, dtype=np.int64)


def _report_frame(*reps: dict[str, int], cols: list[Any]) -> pd.DataFrame:
    return pd.DataFrame([[r[k] for k in REPORT_KEYS] for r in reps], index=cols,
                        columns=list(REPORT_KEYS), dtype=np.int64)


def frame_report(ddf: dd.DataFrame) -> dd.DataFrame:
    """``ddf.nanstats.nan_report()``: one row per column, the keys as columns (lazy)."""
    cols = list(ddf.columns)
    meta = pd.DataFrame({k: pd.Series(dtype=np.int64) for k in REPORT_KEYS})
    reps = [_report(ddf[c]) for c in cols]
    return cast("dd.DataFrame",
           dd.from_delayed([delayed(_report_frame)(*reps, cols=cols)], meta=meta,
                           verify_meta=False))


def _describe_parts(s: dd.Series, ps: Any, nan_policy: Any) -> list[Any]:
    policy = describe_policy(nan_policy)
    qs = percentiles(ps)
    return [_report(s), series_stat(s, "mean", nan_policy=policy),
            series_stat(s, "std", nan_policy=policy),
            series_stat(s, "min", nan_policy=policy),
            series_stat(s, "quantile", q=qs, nan_policy=policy),
            series_stat(s, "max", nan_policy=policy)]


def _describe_values(ps: Any, rep: dict[str, int], mean: Any, std: Any, lo: Any, qv: Any,
                     hi: Any) -> list[float]:
    qs = percentiles(ps)
    rows = dict(zip(COUNT_ROWS, (rep["numbers"], rep["nan"], rep["missing"]), strict=True))
    rows.update(mean=mean, std=std, min=lo, max=hi)
    rows.update({pct_label(q): v for q, v in zip(qs, np.asarray(qv).tolist(), strict=True)})
    out = []
    for row in row_labels(ps):
        v = np.asarray(rows[row])[()]
        out.append(np.nan if v is pd.NA or v is None else float(v))
    return out


def series_describe(s: dd.Series, ps: Any, nan_policy: Any) -> dd.Series:
    """``s.nanstats.describe()``: a lazy float64 Series, the rows of every host."""
    meta = pd.Series(dtype=np.float64, name=s.name)
    parts = _describe_parts(s, ps, nan_policy)
    return cast("dd.Series",
           dd.from_delayed([delayed(_describe_series)(*parts, ps=ps, name=s.name)],
                           meta=meta, verify_meta=False))


def _describe_series(*parts: Any, ps: Any, name: Any) -> pd.Series:
    return pd.Series(_describe_values(ps, *parts), index=row_labels(ps), name=name,
                     dtype=np.float64)


def _describe_frame(*flat: Any, ps: Any, cols: list[Any], sizes: list[Any]) -> pd.DataFrame:
    out, i = {}, 0
    for c, n in zip(cols, sizes, strict=True):
        out[c] = _describe_values(ps, *flat[i:i + n])
        i += n
    return pd.DataFrame(out, index=row_labels(ps), dtype=np.float64)


def frame_describe(ddf: dd.DataFrame, ps: Any, nan_policy: Any) -> dd.DataFrame:
    """``ddf.nanstats.describe()``: the numeric columns, a lazy float64 table."""
    cols = [c for c in ddf.columns if pd.api.types.is_numeric_dtype(ddf[c].dtype)
            and not pd.api.types.is_bool_dtype(ddf[c].dtype)]
    if not cols:
        raise TypeError("describe needs at least one numeric column")
    parts = [_describe_parts(ddf[c], ps, nan_policy) for c in cols]
    sizes = [len(p) for p in parts]
    meta = pd.DataFrame({c: pd.Series(dtype=np.float64) for c in cols})
    flat = [x for p in parts for x in p]
    task = delayed(_describe_frame)(*flat, ps=ps, cols=cols, sizes=sizes)
    return cast("dd.DataFrame", dd.from_delayed([task], meta=meta, verify_meta=False))
