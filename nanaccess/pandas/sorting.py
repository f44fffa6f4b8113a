"""``sort_values`` and ``rank`` of a pandas column on the core's sort keys.

What a policy means for a sort (which policies can sort, whether missing values
raise, are dropped or go last) is read from :mod:`nanaccess.core.sorting` and
:data:`nanaccess.core.policy.RULES`; this module only keeps pandas' layout: missing
values (masked, Arrow nulls, NaT) are left out of the ordering and placed last (or
dropped when the policy removes them), with a NaN rank.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
import pandas as pd

from .._conventions import check_na_option
from ..core import (
    RANK_DEFAULT,
    RULES,
    SORT_DEFAULT,
    Reduction,
    isnan,
    object_argsort,
    rank,
    scan_rows,
    sort_keys,
    sort_policy,
)
from ..errors import NaNError
from ..options import NanPolicy
from .columns import restated, type_error
from .dtypes import Column

__all__ = ["sort_order", "rank_values"]


def _missing(col: Column) -> np.ndarray | None:
    """Missing entries of a column: its mask and NaT (None when there are none)."""
    missing = col.missing
    if col.values.dtype.kind in "mM":
        nat = np.isnat(col.values)
        missing = nat if missing is None else (missing | nat)
    return missing if missing is not None and missing.any() else None


def _policy(col: Column, name: Any, index: pd.Index, nan_policy: Any,
            missing: np.ndarray | None, default: NanPolicy = SORT_DEFAULT) -> NanPolicy:
    try:
        return sort_policy(nan_policy, missing, default=default)
    except NaNError as err:
        raise restated(err, name, index, series=True) from None


def sort_order(
    col: Column, name: Any, index: pd.Index, nan_policy: Any, ascending: bool
) -> np.ndarray:
    """Positions that sort a column (missing values last, or dropped under "omit")."""
    missing = _missing(col)
    policy = _policy(col, name, index, nan_policy, missing)
    rules = RULES[policy]
    v = col.values
    pos = np.arange(v.size) if missing is None else np.flatnonzero(~missing)
    vv = v[pos]
    try:
        if vv.dtype.kind == "O":
            o = object_argsort(vv, policy, ascending=ascending)
        else:
            k = sort_keys(vv, policy)
            o = np.argsort(k if ascending else ~k, kind="stable")
            if rules.removes and vv.dtype.kind == "f":
                o = o[~np.isnan(vv[o])]
    except NaNError as err:
        raise restated(err, name, index, rows=pos, series=True) from None
    except TypeError as err:
        raise type_error(name, err, True) from None
    order = pos[o]
    if missing is not None and rules.missing_last:
        order = np.concatenate([order, np.flatnonzero(missing)])
    return cast("np.ndarray", order)


def rank_values(
    col: Column, name: Any, index: pd.Index, method: str, ascending: bool, pct: bool,
    nan_policy: Any, na_option: str | None = None,
) -> np.ndarray:
    """float64 ranks of a column; missing values get NaN (pandas' ``na_option="keep"``).

    ``na_option`` (pandas') places NaN and missing values itself, tied with each
    other: "keep" gives them a NaN rank, "top" / "bottom" the first / last ranks
    (:func:`nanaccess._conventions.check_na_option`).
    """
    check_na_option(na_option, nan_policy)
    if na_option is not None:
        return _pandas_na_rank(col, name, index, method, ascending, pct, na_option)
    missing = _missing(col)
    policy = _policy(col, name, index, nan_policy, missing, RANK_DEFAULT)
    v = col.values
    if RULES[policy].removes and v.dtype.kind == "f":
        # TODO(core.sorting.rank): a descending rank under "omit" ties -inf with the
        # NaNs it sets aside; until fixed, the NaNs are set aside here, after the
        # policy's checks on every value (a signaling NaN raises first)
        try:
            scan_rows(v, Reduction.of(v, None), policy)
        except NaNError as err:
            raise restated(err, name, index, series=True) from None
        nan = np.isnan(v)
        missing = nan if missing is None else (missing | nan)
    pos = np.arange(v.size) if missing is None else np.flatnonzero(~missing)
    out = np.full(v.size, np.nan)
    try:
        out[pos] = rank(v[pos], method=method, nan_policy=policy, ascending=ascending, pct=pct)
    except NaNError as err:
        raise restated(err, name, index, rows=pos, series=True) from None
    except TypeError as err:
        raise type_error(name, err, True) from None
    return out


def _pandas_na_rank(col: Column, name: Any, index: pd.Index, method: str, ascending: bool,
                    pct: bool, na_option: str) -> np.ndarray:
    """Ranks with pandas' ``na_option``: the numbers ranked (totalOrder keys), NaN and
    missing values one tied block before ("top") or after ("bottom") them."""
    v = col.values
    try:  # signaling NaNs raise, as under every policy that sets NaNs apart
        scan_rows(v, Reduction.of(v, None), NanPolicy.OMIT, missing=col.missing)
    except NaNError as err:
        raise restated(err, name, index, series=True) from None
    holes = np.asarray(isnan(v), dtype=bool) if v.dtype.kind in "fcO" else np.zeros(
        v.shape, bool)
    missing = _missing(col)
    if missing is not None:
        holes = holes | missing
    pos = np.flatnonzero(~holes)
    out = np.full(v.size, np.nan)
    try:
        out[pos] = rank(v[pos], method=method, nan_policy=NanPolicy.TOTALORDER,
                        ascending=ascending, pct=False)
    except TypeError as err:
        raise type_error(name, err, True) from None
    k = int(holes.sum())
    if na_option != "keep" and k:
        nv = v.size - k
        top = out[pos].max(initial=0) if method == "dense" else nv
        first = 0 if na_option == "top" else top  # ranks before the NaN block
        block = {"average": first + (k + 1) / 2, "min": first + 1, "max": first + k,
                 "dense": first + 1}
        if method == "first":
            out[holes] = first + 1 + np.arange(k)
        else:
            out[holes] = block[method]
        if na_option == "top":
            out[pos] += 1 if method == "dense" else k
    if pct:
        ranked = np.isfinite(out)
        denom = out[ranked].max(initial=0) if method == "dense" else int(ranked.sum())
        out = out / denom if denom else out
    return out
