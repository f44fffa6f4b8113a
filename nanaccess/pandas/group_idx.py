"""``gb.nanstats.idxmin()`` / ``idxmax()``: the index label of each group's extreme.

The extreme of every group comes from the grouped engine (one pass, the policy's
order, the element as stored); the label is that of the first row of the group
holding exactly that element (bit equality for floats, so a propagated NaN points
at the NaN it propagates): one vectorised pass over the rows
(``np.minimum.at`` of the row positions by group code), no loop per group.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .._labels import fmt_label
from ..core import RULES, isnan
from ..core.grouped import grouped_reduce
from ..errors import NaNError
from ..options import NanPolicy
from ._groupby_registry import grouping_info, selected_obj
from .columns import restated, subject_of, type_error
from .dtypes import column_arrays, is_numeric_column

__all__ = ["group_labels_of_extreme", "labels_of_extreme"]


def _first_rows(v: np.ndarray, miss: np.ndarray | None, codes: np.ndarray, ngroups: int,
                best: np.ndarray, best_missing: np.ndarray | None,
                drop_nan: bool) -> np.ndarray:
    """Per group, the first row position holding ``best[group]`` (``len(v)``: none);
    ``drop_nan``: NaN rows are no candidates (the policy removed them)."""
    n = v.shape[0]
    if not v.dtype.isnative:  # compare bits in the byte order of the extremes
        v = v.astype(v.dtype.newbyteorder("="))
    ok = codes >= 0
    if miss is not None:
        ok &= ~miss
    if drop_nan and v.dtype.kind in "fO":
        ok &= ~np.asarray(isnan(v), dtype=bool)
    c = np.where(ok, codes, 0)
    target = best[c]
    if v.dtype.kind == "f" and target.dtype == v.dtype:
        it = np.dtype(f"i{v.dtype.itemsize}")
        hit = v.view(it) == target.view(it)  # bits: a NaN finds itself
    elif v.dtype.kind in "mM":
        hit = v.view(np.int64) == target.astype(v.dtype).view(np.int64)
    else:
        with np.errstate(invalid="ignore"):
            hit = np.asarray(v == target, dtype=bool)
    hit &= ok
    if best_missing is not None:
        hit &= ~best_missing[c]
    pos = np.full(ngroups, n, np.int64)
    np.minimum.at(pos, codes[hit], np.flatnonzero(hit))
    return pos


def group_labels_of_extreme(gb: Any, which: str, policy: NanPolicy,
                            numeric_only: bool = False) -> pd.Series | pd.DataFrame:
    """The index label of each group's first ``which`` ("min" / "max") value, per
    column, labelled as pandas' ``GroupBy.idxmin`` / ``idxmax``; a group with no
    value to point at is a ValueError naming it (decision 7, as pandas)."""
    codes, ngroups, result_index = grouping_info(gb)
    obj = selected_obj(gb)
    is_series = isinstance(obj, pd.Series)
    cols = [obj] if is_series else [obj.iloc[:, i] for i in range(obj.shape[1])]
    names = [obj.name] if is_series else list(obj.columns)
    labels = obj.index
    out, kept = [], []
    for name, s in zip(names, cols, strict=True):
        if numeric_only and not is_numeric_column(s.dtype):
            continue
        try:
            col = column_arrays(s, name)
            red = grouped_reduce(col.values, codes, ngroups, which, policy=policy,
                                 missing=col.missing)
        except NaNError as err:
            raise restated(err, name, obj.index, group=result_index[err.group],
                           series=is_series) from None
        except TypeError as err:
            raise type_error(name, err, is_series) from None
        best = np.asarray(red.values).reshape(ngroups)
        bm = None if red.missing is None else np.asarray(red.missing).reshape(ngroups)
        pos = _first_rows(col.values, col.missing, np.asarray(codes, np.int64), ngroups,
                          best, bm, RULES[policy].removes)
        if (pos >= len(labels)).any():  # decision 7, as pandas: nothing to point at
            g = int(np.flatnonzero(pos >= len(labels))[0])
            raise ValueError(
                f"{subject_of(name, series=is_series)} in group "
                f"{fmt_label(result_index[g])} has no value to point at (empty, or only "
                f"NaN or missing values under nan_policy=\"{policy.value}\")")
        got = labels.take(pos)
        arr = got.tolist() if isinstance(got, pd.MultiIndex) else got
        out.append(pd.Series(arr, index=result_index, name=name))
        kept.append(name)
    if is_series:
        res: pd.Series | pd.DataFrame = out[0]
    else:
        res = pd.concat(out, axis=1) if out else pd.DataFrame(index=result_index)
        res.columns = pd.Index(kept) if len(set(kept)) == len(kept) else kept
    if not getattr(gb, "as_index", True):
        res = res.reset_index()
    return res


def labels_of_extreme(gb: Any, which: str, nan_policy: Any, skipna: Any,
                      numeric_only: bool) -> pd.Series | pd.DataFrame:
    """The accessor's ``idxmin`` / ``idxmax``: the policy (``skipna`` folded in, as
    the statistics take it), then :func:`group_labels_of_extreme`."""
    from .._conventions import skipna_policy
    from ..options import resolve_policy

    policy = resolve_policy(skipna_policy(skipna, nan_policy))
    return group_labels_of_extreme(gb, which, policy, numeric_only)
