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

import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd

from .. import _stats
from .._labels import SubjectOnly, fmt_label, subject
from ..core.chunked import NanTally, raise_for
from ..options import NanPolicy, resolve_dask_passes, resolve_policy
from ..typing import NanPolicyArg
from .frame_groupby import groupby_stat
from .reduce import dask_reduce
from .tally import signaling_mask
from .typed_dask import delayed, from_delayed

__all__ = ["SERIES_STATS", "frame_stat", "groupby_stat", "series_stat"]

#: what a dask Series / DataFrame column reduces to (arg statistics have no meaning
#: over a whole column of unknown partition lengths)
SERIES_STATS = tuple(n for n in _stats.REDUCTIONS if n not in _stats.ARG)


def _partition_info(part: pd.Series) -> tuple[int, NanTally, dict[int, Any]]:
    """(length, :class:`NanTally` with positions in the partition, {position: label})."""
    values = np.asarray(part.to_numpy())
    if values.dtype.kind == "f":
        nan, sig = signaling_mask(values)
        tally = NanTally.from_masks(nan=nan, signaling=sig)
    elif values.dtype.kind in "mM":
        tally = NanTally.from_masks(missing=np.isnat(values))
    else:
        tally = NanTally()
    firsts = (tally.first_signaling, tally.first_nan, tally.first_missing)
    labels = {p: part.index[p] for p in firsts if p is not None}
    return len(values), tally, labels


def _check_series(infos: list[Any], policy: NanPolicy, column: Any) -> np.ndarray:
    """Merge the partition tallies in order; raise as the core would, with labels."""
    total = NanTally()
    labels: dict[int, Any] = {}
    offset = 0
    for length, tally, labs in infos:
        total = total.merge(tally.offset(offset))
        labels.update({offset + p: lab for p, lab in labs.items()})
        offset += length
    raise_for(total, policy, subject=subject("column", column, unnamed="data"),
              locate=lambda p: f"index {fmt_label(labels[p])}")
    return np.ones(1, dtype=bool)


def _series_check(s: dd.Series, policy: NanPolicy) -> da.Array | None:
    if s.dtype.kind not in "fmM":
        return None
    parts = [delayed(_partition_info)(p) for p in s.to_delayed()]
    chk = delayed(_check_series)(parts, policy, s.name)
    return from_delayed(chk, shape=(1,), dtype=bool)


def series_stat(
    s: dd.Series,
    stat: str,
    *,
    q: float | Sequence[float] | None = None,
    method: str = "linear",
    ddof: float = 1,
    nan_policy: NanPolicyArg = None,
    **params: Any,
) -> da.Array:
    """One statistic of a dask Series, lazy (a 0-d dask array, or 1-D for list ``q``).

    ``stat`` is one of :data:`SERIES_STATS`; ``q``, ``method``, ``ddof`` (1 as
    pandas) and ``params`` (``rng``, ``scale``) go to the statistic if it takes them.
    Policy errors are raised at compute time, naming the column and the index label of
    the first offending value.

    Examples
    --------
    >>> import numpy as np, pandas as pd, dask.dataframe as dd
    >>> s = dd.from_pandas(pd.Series([4.0, np.nan, 1.0, 3.0, 2.0]), npartitions=2)
    >>> float(series_stat(s, "median", nan_policy="omit").compute())
    2.5
    >>> float(series_stat(s, "iqr", nan_policy="omit").compute())
    1.5
    """
    if stat not in SERIES_STATS:
        raise ValueError(f"unknown statistic {stat!r}; expected one of {SERIES_STATS}")
    policy = resolve_policy(nan_policy)
    takes = _stats.get(stat).param_names
    unknown = set(params) - set(takes)
    if unknown:
        raise TypeError(f"{stat}() got unexpected keyword(s) {sorted(unknown)}")
    kw = {k: v for k, v in {"q": q, "method": method, "ddof": ddof, **params}.items()
          if k in takes}
    if not isinstance(s.dtype, np.dtype):
        return _extension_stat(s, stat, policy, kw)
    # unknown partition lengths are fine: every pass is a tree reduction
    # the column's policy errors come from its own check; the relabeller only names the
    # column in errors that carry no position (an integer sum past int64)
    return dask_reduce(s.to_dask_array(), stat, policy=policy, check=_series_check(s, policy),
                       relabel=SubjectOnly(subject("column", s.name, unnamed="data")),
                       dask_passes=resolve_dask_passes(None), **kw)


def _extension_stat(s: dd.Series, stat: str, policy: NanPolicy, kw: dict[str, Any]) -> da.Array:
    """A nullable / Arrow column (its missing slots kept apart from NaN, ``pd.NA``
    results): the partitions' values are gathered in one task that runs the in-memory
    accessor, so the result equals pandas' exactly. Lazy; partition lengths may be
    unknown (the dask array engines take no missing mask, and ``to_dask_array`` of
    an extension dtype has unknown chunks)."""
    q = kw.get("q")
    shape = (len(np.atleast_1d(q)),) if q is not None and np.ndim(q) > 0 else ()
    task = delayed(_extension_run)(*s.to_delayed(), meta=s._meta, stat=stat,
                                        policy=policy, kw=kw, shape=shape)
    return from_delayed(task, shape=shape, dtype=object)


def _extension_run(*parts: pd.Series, meta: pd.Series, stat: str, policy: NanPolicy,
                   kw: dict[str, Any], shape: tuple[Any, ...]) -> np.ndarray:
    """The in-memory accessor on the gathered partitions of an extension column."""
    whole = pd.concat(parts) if parts else meta
    r = getattr(whole.nanstats, stat)(nan_policy=policy, **kw)
    out = np.empty(shape, dtype=object)
    out[...] = list(r) if shape else r
    return out


def frame_stat(ddf: dd.DataFrame, stat: str, numeric_only: bool, **kw: Any) -> Any:
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
    # object results (nullable / Arrow columns): object meta would become strings
    ext = any(r.dtype == object for r in results)
    meta: pd.DataFrame | pd.Series
    if list_q:
        meta = pd.DataFrame({c: pd.Series(dtype="Float64" if r.dtype == object else r.dtype)
                             for c, r in
                             zip(cols, results, strict=True)})
    elif ext:
        meta = pd.Series(dtype="Float64")
    else:
        meta = pd.Series(dtype=np.result_type(*[r.dtype for r in results]) if results
                         else float)
    dtype = np.result_type(*[r.dtype for r in results]) if results else np.dtype(float)
    assembled = delayed(_assemble)(*results, cols=cols, q=q if list_q else None,
                                      ext=ext, dtype=dtype)
    return dd.from_delayed([assembled], meta=meta, verify_meta=False)


def _assemble(*values: Any, cols: list[Any], q: Any, ext: bool, dtype: np.dtype) -> Any:
    """The columns' results as pandas lays them out (a DataFrame indexed by a list q)."""
    if q is not None:
        return pd.DataFrame({c: pd.array(list(v)) if v.dtype == object else np.asarray(v)
                             for c, v in zip(cols, values, strict=True)},
                            index=pd.Index(np.asarray(q, dtype=float)))
    vals = [np.asarray(v)[()] for v in values]
    if ext:  # pd.NA results of nullable / Arrow columns: pandas' own inference
        return pd.Series(pd.array(vals), index=pd.Index(cols))
    return pd.Series(vals, index=pd.Index(cols), dtype=dtype)
