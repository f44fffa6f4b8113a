"""Grouped statistics of dask DataFrames (``ddf.nanstats.groupby(k)``), exact as pandas.

Rows are shuffled so that every group lands whole in one partition, then each
partition runs the in-memory grouped kernel (``pdf.groupby(by).nanstats.<stat>``).
Every function shipped to the workers lives at module level here, so unpickling it
imports nanaccess (which registers the pandas accessors) on a fresh worker process.

Policy errors name what pandas names on the same data: the first column (in column
order) holding a refused value, its first offending row in the *original* row order,
that row's group and the count of offending values of the group. Each input partition
reports its first offending row and the per-group counts of offending values
(:func:`_partition_offenders`); :func:`group_check` takes them in partition order (the
first partition holding one names the row, its offset added; the counts of that group
are summed over all partitions) and raises before any partition's kernel runs.
"""

from __future__ import annotations

from typing import Any

import dask.dataframe as dd
import numpy as np
import pandas as pd

from .. import _stats
from .._labels import IndexLocation, relabel, subject
from ..core.chunked import RULES, NanTally, raise_for
from ..errors import NaNError
from ..options import NanPolicy, get_options, option_context, resolve_policy
from ..pandas._nanagg import NanAgg
from ..pandas.dtypes import column_arrays, is_numeric_column
from .tally import signaling_mask
from .typed_dask import delayed

__all__ = ["groupby_stat", "grouped_partition", "group_check"]


def _keys(by: Any) -> list[Any]:
    return list(by) if isinstance(by, list | tuple) else [by]


def _value_columns(pdf: pd.DataFrame, by: Any, numeric_only: bool) -> list[Any]:
    keys = _keys(by)
    cols = [c for c in pdf.columns if c not in keys]
    if numeric_only:
        cols = [c for c in cols if is_numeric_column(pdf[c].dtype)]
    return cols


def _offending(s: pd.Series) -> dict[str, np.ndarray]:
    """Masks of the signaling NaNs, NaNs and missing values of a column (as the core's
    grouped scan sees them: a nullable column's missing slots are not NaNs)."""
    col = column_arrays(s, s.name)
    v, miss = col.values, col.missing
    out: dict[str, np.ndarray] = {}
    if v.dtype.kind == "f":
        nan, sig = signaling_mask(v)
        if miss is not None:
            nan &= ~miss
            sig &= ~miss
        out["nan"], out["signaling"] = nan, sig
    elif v.dtype.kind in "mM":
        miss = np.isnat(v) if miss is None else miss | np.isnat(v)
    if miss is not None:
        out["missing"] = np.asarray(miss, dtype=bool)
    return out


def _partition_offenders(pdf: pd.DataFrame, *, by: Any, dropna: bool, kinds: tuple[Any, ...],
                         numeric_only: bool) -> tuple[int, dict[Any, Any]]:
    """(length, {(column, kind): (first position, its key, {key: count})}) of one
    input partition; rows whose key is missing are left out when ``dropna``."""
    keys = _keys(by)
    kf = pdf[keys]
    in_group = ~kf.isna().any(axis=1).to_numpy() if dropna else np.ones(len(pdf), bool)
    found: dict[Any, Any] = {}
    for c in _value_columns(pdf, by, numeric_only):
        try:
            masks = _offending(pdf[c])
        except TypeError:  # a column the kernel refuses: its own error, not ours
            continue
        for kind in kinds:
            m = masks.get(kind)
            if m is None:
                continue
            m = m & in_group
            if not m.any():
                continue
            pos = int(np.flatnonzero(m)[0])
            counts = kf[m].value_counts(dropna=False)
            found[(c, kind)] = (pos, pdf.index[pos], _label(kf.iloc[pos], keys),
                                {_label(k, keys): int(n) for k, n in counts.items()})
    return len(pdf), found


def _label(row: Any, keys: list[Any]) -> Any:
    """A group label as pandas' result index holds it (a tuple for several keys)."""
    vals = tuple(row) if isinstance(row, tuple | pd.Series) else (row,)
    return vals if len(keys) > 1 else vals[0]


def group_check(infos: list[Any], *, columns: list[Any], policy: NanPolicy | None = None,
                policies: dict[Any, Any] | None = None) -> bool:
    """Merge the partitions' offenders in partition order; raise as pandas would.

    Columns are checked in order and, per column, the refused kinds of its policies
    (``policies[column]``, in the order its statistics run; else ``policy``) in each
    policy's order; the first offending row is the global first (partition offsets
    added), and the count is that of its group over all partitions.
    """
    offset = 0
    starts = []
    for length, _ in infos:
        starts.append(offset)
        offset += length
    for c in columns:
        for pol in (policies or {}).get(c, [policy] if policy is not None else []):
            _raise_first(infos, starts, offset, c, pol)
    return True


def _raise_first(infos: list[Any], starts: list[Any], total: int, c: Any,
                 policy: NanPolicy) -> None:
    for kind in RULES[policy].refused:
        hits = [(start, found[(c, kind)]) for start, (_, found) in zip(starts, infos,
                                                                      strict=True)
                if (c, kind) in found]
        if not hits:
            continue
        start, (pos, index_label, group, _) = hits[0]
        count = sum(h[3].get(group, 0) for _, h in hits)
        tally = NanTally(**{kind: count, f"first_{kind}": start + pos})
        try:
            raise_for(tally, policy, shape=(total,))
        except NaNError as err:
            raise relabel(err, subject("column", c),
                          IndexLocation({start + pos: index_label}), group) from None


def grouped_partition(pdf: pd.DataFrame, checked: Any = True, *, by: Any, dropna: bool,
                      stat: str, kw: dict[str, Any], options: dict[str, Any] | None = None) -> Any:
    """The in-memory grouped kernel on one (shuffled) partition: ``stat`` names a
    method of the pandas GroupBy accessor (a statistic, "describe", "nan_report" or
    "agg"); ``checked`` is the result of :func:`group_check` (a dependency: the check
    raises first); ``options``: the nanaccess options in force when the graph was
    built (``get_options()``), in force again here, whenever and wherever it runs."""
    plain = pdf.groupby(by, sort=True, dropna=dropna)
    # "pandas_agg": pandas' own agg (a spec mixing nanaccess.agg callables with
    # pandas' names, each keeping its pandas meaning)
    gb = plain if stat == "pandas_agg" else plain.nanstats
    method = "agg" if stat == "pandas_agg" else stat
    if options is None:
        return getattr(gb, method)(**kw)
    with option_context(**options):
        return getattr(gb, method)(**kw)


def _statistic_policy(f: Any, kw: dict[str, Any]) -> NanPolicy | None:
    """The policy one statistic of an agg spec runs under (None: no check here)."""
    if isinstance(f, NanAgg):
        if f.kwargs.get("skipna") is not None:
            return None
        stat, pol = f.stat, f.kwargs.get("nan_policy")
    elif isinstance(f, str) and f in _stats.REDUCTIONS:
        stat, pol = f, kw.get("nan_policy")
    else:
        return None
    if _stats.get(stat).family == "count":
        return NanPolicy.TOTALORDER
    return resolve_policy(pol)


def _agg_policies(func: Any, kw: dict[str, Any], cols: list[Any]) -> dict[Any, Any] | None:
    """{column: [policy of each statistic, in the order they run]} of an agg spec,
    or None where the partitions' own errors must speak (skipna, named forms)."""
    if kw.get("skipna") is not None:
        return None
    if isinstance(func, dict):
        plan = [(c, f if isinstance(f, list | tuple) else [f]) for c, f in func.items()]
    elif func is None:
        return None
    else:
        fs = list(func) if isinstance(func, list | tuple) else [func]
        plan = [(c, fs) for c in cols]
    out: dict[Any, Any] = {}
    for c, fs in plan:
        pols = [_statistic_policy(f, kw) for f in fs]
        if any(p is None for p in pols):
            return None
        out[c] = pols
    return out


def _check(ddf: dd.DataFrame, by: Any, dropna: bool, stat: str, kw: dict[str, Any]) -> Any:
    """The delayed :func:`group_check` of ``ddf`` (None when nothing can raise)."""
    policies = None
    if stat == "agg":
        cols = _value_columns(ddf._meta, by, bool(kw.get("numeric_only", False)))
        policies = _agg_policies(kw.get("func"), kw, cols)
        if policies is None:
            return None
        policy = NanPolicy.TOTALORDER
    elif stat in _stats.REDUCTIONS:
        count = stat in _stats.COUNTS
        policy = NanPolicy.TOTALORDER if count else resolve_policy(kw.get("nan_policy"))
    else:  # describe / nan_report report the NaNs (describe's rows omit them)
        return None
    every = [policy] if policies is None else [p for ps in policies.values() for p in ps]
    kinds = tuple(dict.fromkeys(k for p in every for k in RULES[p].refused))
    numeric_only = bool(kw.get("numeric_only", False))
    cols = _value_columns(ddf._meta, by, numeric_only)
    if policies is not None:
        cols = [c for c in policies if c in cols]
    if not kinds or not any(ddf._meta[c].dtype.kind in "fmMO"
                            or not isinstance(ddf._meta[c].dtype, np.dtype) for c in cols):
        return None
    parts = [delayed(_partition_offenders)(p, by=by, dropna=dropna, kinds=kinds,
                                                numeric_only=numeric_only)
             for p in ddf.to_delayed()]
    return delayed(group_check)(parts, columns=cols, policy=policy, policies=policies)


def groupby_stat(ddf: dd.DataFrame, by: Any, dropna: bool, stat: str, **kw: Any) -> Any:
    """One statistic per group: shuffle so each group lands whole in one partition,
    then the in-memory grouped kernel per partition (lazy; exact as pandas; errors as
    pandas names them, see the module docstring).

    Examples
    --------
    >>> import pandas as pd, dask.dataframe as dd
    >>> ddf = dd.from_pandas(pd.DataFrame({"k": [1, 1], "x": [1.0, 3.0]}), npartitions=1)
    >>> float(groupby_stat(ddf, "k", True, "mean").compute()["x"].iloc[0])
    2.0
    """
    # the options are read now, when the graph is built (docs/dask.md), not when and
    # where a partition is computed
    opts = dict(by=by, dropna=dropna, stat=stat, kw=kw, options=get_options())
    meta = grouped_partition(ddf._meta, **opts)
    check = _check(ddf, by, dropna, stat, kw)
    shuffled = ddf.shuffle(on=by)
    if check is None:
        return shuffled.map_partitions(grouped_partition, meta=meta, **opts)
    return shuffled.map_partitions(grouped_partition, check, meta=meta, **opts)
