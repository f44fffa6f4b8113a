"""Computations behind the dask Series/DataFrame/GroupBy ``.nanstats`` accessors.

Each column goes through the exact lazy selection or the exact moments of
:mod:`nanaccess.dask.array` (results equal the in-memory pandas accessor's, bit for
bit; partition lengths need not be known). The NaN/missing check of a column runs per
partition and raises at compute time naming the column and the index label of the
first offending value. :mod:`nanaccess.dask.dataframe` holds only the accessor classes,
which call the functions here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd

from ..core.bits import as_bits, layout_of
from ..errors import NaNError, SignalingNaNError
from ..options import NanPolicy, resolve_policy
from .array import dask_moment_stat, dask_order_stat

__all__ = ["frame_stat", "groupby_stat", "series_stat"]

_ORDER = ("median", "median_low", "median_high", "quantile", "min", "max")
_MOMENT = ("mean", "var", "std", "sum", "count")


def _partition_info(part: pd.Series) -> tuple[int, list[int], list[Any]]:
    """(length, [n_sig, n_nan, n_missing], [first label of each]) of one partition."""
    values = np.asarray(part.to_numpy())
    counts = [0, 0, 0]
    firsts: list[Any] = [None, None, None]
    masks: list[np.ndarray | None] = [None, None, None]
    if values.dtype.kind == "f":
        nan = np.isnan(values)
        lay = layout_of(values.dtype)
        masks[0] = nan & ((as_bits(values) & lay.int_dtype.type(lay.quiet_bit)) == 0)
        masks[1] = nan
    elif values.dtype.kind in "mM":
        masks[2] = np.isnat(values)
    for j, m in enumerate(masks):
        if m is not None and m.any():
            idx = np.flatnonzero(m)
            counts[j] = int(idx.size)
            firsts[j] = (int(idx[0]), part.index[idx[0]])
    return len(values), counts, firsts


def _check_series(infos: list, policy: NanPolicy, column: Any) -> np.ndarray:
    """Combine the partition infos in order; raise as the core would, with labels."""
    totals = [0, 0, 0]
    firsts: list[Any] = [None, None, None]
    offset = 0
    for length, counts, fs in infos:
        for j in range(3):
            totals[j] += counts[j]
            if firsts[j] is None and fs[j] is not None:
                firsts[j] = (offset + fs[j][0], fs[j][1])
        offset += length
    subject = "data" if column is None else f"column {column!r}"

    def where(j: int) -> str:
        return f"index {_label(firsts[j][1])}"

    nsig, nnan, nmiss = totals
    if nnan and nsig and policy is not NanPolicy.TOTALORDER:
        raise SignalingNaNError(count=nsig, position=(firsts[0][0],), subject=subject,
                                location=where(0))
    if policy is NanPolicy.RAISE and nnan:
        raise NaNError(count=nnan, kind="NaN", position=(firsts[1][0],), subject=subject,
                       location=where(1))
    if policy is NanPolicy.RAISE and nmiss:
        raise NaNError(count=nmiss, kind="missing", position=(firsts[2][0],),
                       subject=subject, location=where(2))
    return np.ones(1, dtype=bool)


def _label(value: Any) -> str:
    if isinstance(value, pd.Timestamp):
        return repr(value.strftime("%Y-%m-%d") if value == value.normalize()
                    else value.isoformat())
    if isinstance(value, np.generic):
        value = value.item()
    return repr(value)


def _series_check(s: dd.Series, policy: NanPolicy) -> da.Array | None:
    if s.dtype.kind not in "fmM":
        return None
    parts = [dask.delayed(_partition_info)(p) for p in s.to_delayed()]
    chk = dask.delayed(_check_series)(parts, policy, s.name)
    return da.from_delayed(chk, shape=(1,), dtype=bool)


def series_stat(
    s: dd.Series,
    stat: str,
    *,
    q: float | Sequence[float] | None = None,
    method: str = "linear",
    ddof: int = 1,
    nan_policy: NanPolicy | str | None = None,
) -> da.Array:
    """One statistic of a dask Series, lazy (a 0-d dask array, or 1-D for list ``q``).

    Examples
    --------
    >>> import numpy as np, pandas as pd, dask.dataframe as dd
    >>> s = dd.from_pandas(pd.Series([4.0, np.nan, 1.0, 3.0, 2.0]), npartitions=2)
    >>> float(series_stat(s, "median", nan_policy="omit").compute())
    2.5
    """
    policy = resolve_policy(nan_policy)
    x = s.to_dask_array()
    check = _series_check(s, policy)
    if stat in _ORDER:
        return dask_order_stat(x, stat, q=q, method=method, policy=policy, check=check)
    if stat in _MOMENT:
        # a tree reduction of exact partials (unknown partition lengths are fine)
        return dask_moment_stat(x, stat, ddof=ddof, policy=policy, check=check)
    raise ValueError(f"unknown statistic {stat!r}; expected one of {_ORDER + _MOMENT}")


def frame_stat(ddf: dd.DataFrame, stat: str, numeric_only: bool, **kw: Any):
    """One statistic of each column of a dask DataFrame: a lazy Series (list ``q``: a
    lazy DataFrame indexed by q). ``kw`` as :func:`series_stat`.

    Examples
    --------
    >>> import pandas as pd, dask.dataframe as dd
    >>> ddf = dd.from_pandas(pd.DataFrame({"a": [4.0, 1.0, 3.0]}), npartitions=2)
    >>> frame_stat(ddf, "median", False).compute().tolist()
    [3.0]
    """
    cols = [c for c in ddf.columns
            if not numeric_only or pd.api.types.is_numeric_dtype(ddf[c].dtype)]
    results = [series_stat(ddf[c], stat, **kw) for c in cols]
    q = kw.get("q")
    list_q = q is not None and np.ndim(q) > 0

    def assemble(*values):
        if list_q:
            return pd.DataFrame({c: np.asarray(v) for c, v in zip(cols, values, strict=True)},
                                index=pd.Index(np.asarray(q, dtype=float)))
        return pd.Series([np.asarray(v)[()] for v in values], index=pd.Index(cols),
                         dtype=np.result_type(*[r.dtype for r in results]) if results
                         else float)

    if list_q:
        meta = pd.DataFrame({c: pd.Series(dtype=r.dtype) for c, r in
                             zip(cols, results, strict=True)})
    else:
        meta = pd.Series(dtype=np.result_type(*[r.dtype for r in results]) if results
                         else float)
    delayed = dask.delayed(assemble)(*results)
    return dd.from_delayed([delayed], meta=meta, verify_meta=False)


def groupby_stat(ddf: dd.DataFrame, by: Any, dropna: bool, stat: str, **kw: Any) -> Any:
    """One statistic per group: shuffle so each group lands whole in one partition,
    then the in-memory grouped kernel per partition (lazy; exact as pandas).

    Examples
    --------
    >>> import pandas as pd, dask.dataframe as dd
    >>> ddf = dd.from_pandas(pd.DataFrame({"k": [1, 1], "x": [1.0, 3.0]}), npartitions=1)
    >>> float(groupby_stat(ddf, "k", True, "mean").compute()["x"].iloc[0])
    2.0
    """
    if stat == "quantile" and np.ndim(kw.get("q", 0.5)):
        raise ValueError("dask groupby quantile takes a scalar q")

    def per_partition(pdf: pd.DataFrame) -> Any:
        return getattr(pdf.groupby(by, sort=True, dropna=dropna).nanstats, stat)(**kw)

    meta = per_partition(ddf._meta)
    return ddf.shuffle(on=by).map_partitions(per_partition, meta=meta)
