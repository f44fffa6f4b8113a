"""skew, kurt, sem and prod under every ``nan_policy``: rows (``reduce``) and groups.

The policy works as for the moments (:mod:`nanaccess.core.moments`): "omit" removes
NaN and missing values; "propagate" and the ordering policies give the NaN greatest
under totalOrder, as stored (else the missing value when one is present); "raise"
raises naming the first; signaling NaNs raise except under "totalorder". The values
themselves come from :mod:`.cells` (exact power sums or an exact product).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...options import NanPolicy, resolve_policy
from ..axes import Reduction
from ..classify import canonical_nan
from ..grouped.common import greatest_nan, group_counts, scan
from ..keys import float_keys, keys_to_float
from ..nanscan import scan_rows
from ..policy import RULES, finish
from .cells import HIGHER, big_ints, cell_values, check_params
from .certified import CERTIFIED, certified_groups_nan, certified_rows_nan

__all__ = ["higher_stat", "grouped_higher", "HIGHER_STATS"]

HIGHER_STATS = tuple(HIGHER)


def _check(x: np.ndarray, stat: str) -> np.ndarray:
    kind = x.dtype.kind
    if kind == "b":
        return x.astype(np.int64)
    if kind == "f" and x.dtype.itemsize not in (2, 4, 8):
        raise TypeError(f"dtype {x.dtype}: convert to float64")
    if kind not in "fiu":
        raise TypeError(f"{stat} needs float, int or bool data, got dtype {x.dtype}"
                        f"{_first_other(x)}")
    return x


def _out_dtype(vals: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """float inputs keep their float dtype (as pandas); ints give float64."""
    if dtype.kind == "f" and dtype.itemsize != 8:
        with np.errstate(over="ignore"):
            return vals.astype(dtype.newbyteorder("="))
    return vals


def higher_stat(x: Any, stat: str, *, axis: Any = None, policy: NanPolicy | str | None = None,
                missing: np.ndarray | None = None, keepdims: bool = False,
                **params: Any) -> tuple[np.ndarray, np.ndarray | None]:
    """``stat`` of ``x`` along ``axis`` under ``policy``: ``(values, missing)``.

    Examples
    --------
    >>> higher_stat(np.array([1.0, 2.0, np.nan, 4.0, 8.0]), "kurt", policy="omit")[0]
    array(0.7576...)
    >>> higher_stat(np.array([0.1] * 10), "prod", policy="raise")[0]
    array(1.e-10)
    """
    x = np.asarray(x)
    policy = resolve_policy(policy)
    if stat not in HIGHER:
        raise ValueError(f"unknown statistic {stat!r}; expected one of {HIGHER_STATS}")
    check_params(stat, params)
    dtype = x.dtype
    x = _check(x, stat)
    red = Reduction.of(x, axis)
    if missing is None and stat in CERTIFIED and x.dtype.kind in "fiu" and x.size:
        lean = _lean(x, red, stat, policy, params)
        if lean is not None:
            return red.finish(_out_dtype(lean, dtype), keepdims), None
    sc = scan_rows(x, red, policy, missing)
    rows = red.as_rows(x)
    removed = sc.removed
    keep = None if removed is None else ~removed
    vals = cell_values(None, None, rows.shape[0], stat, params, rows=rows, rows_keep=keep)
    vals = _out_dtype(vals, dtype)
    res_missing = None
    if RULES[policy].moment_propagates:
        if sc.nan is not None:
            k = float_keys(rows)
            best = np.where(sc.nan, k, k.dtype.type(np.iinfo(k.dtype).min)).max(axis=1)
            pv = keys_to_float(best, rows.dtype.newbyteorder("="))
            vals = np.where(sc.nnan > 0, pv.astype(vals.dtype), vals)
        if sc.missing is not None:
            mrow = (sc.nmiss > 0) & (sc.nnan == 0)
            if mrow.any():
                res_missing = mrow
                vals = np.where(mrow, canonical_nan(vals.dtype), vals)
    out = red.finish(vals, keepdims)
    return out, None if res_missing is None else red.finish(res_missing, keepdims)


def _lean(x: np.ndarray, red: Reduction, stat: str, policy: NanPolicy,
          params: dict[str, Any]) -> np.ndarray | None:
    """The values of every row by the certified kernel that leaves the NaNs out
    itself (no policy scan, no mask), or None where that is not the answer: a row it
    does not certify, or NaNs the policy does not silently drop (an error, a
    propagated NaN: the full path decides). Bit for bit the full path's values."""
    rows = red.as_rows(x)
    if rows.dtype.kind in "iu":  # no NaN; every integer an exact double, or the full path
        if big_ints(rows):
            return None
        if rows.dtype != np.int64:
            rows = rows.astype(np.float64)
    got = certified_rows_nan(rows, stat, check_params(stat, params))
    if got is None:
        return None
    vals, ok, cnt, sig = got
    if not ok.all():
        return None
    if (cnt < rows.shape[1]).any() and not RULES[policy].drops_silently(True, sig):
        return None
    return vals


def _lean_groups(x: np.ndarray, codes: np.ndarray, ngroups: int, stat: str,
                 policy: NanPolicy, params: dict[str, Any]) -> np.ndarray | None:
    """The values of every group by the certified kernel whose counting sort leaves
    the NaNs out itself (no policy scan, no masks), or None where that is not the
    answer (a cell it does not certify, a signaling NaN): as :func:`_lean`."""
    got = certified_groups_nan(x, codes, ngroups, stat, check_params(stat, params))
    if got is None:
        return None
    vals, ok, nnan, sig = got
    if not ok.all() or (nnan and not RULES[policy].drops_silently(True, sig)):
        return None
    return vals


def grouped_higher(x: Any, codes: Any, ngroups: int, stat: str, *, policy: NanPolicy,
                   missing: Any = None, **params: Any) -> tuple[np.ndarray, np.ndarray | None]:
    """``stat`` of every group (rows of code -1 ignored) and column: ``(values,
    missing)`` of shape ``(ngroups,)`` or ``(ngroups, ncols)``; one vectorised pass
    over all groups and columns (each (group, column) pair is one cell).

    Examples
    --------
    >>> x = np.array([1.0, 5.0, np.nan, 2.0, 4.0, 3.0, 9.0])
    >>> grouped_higher(x, np.array([0, 1, 0, 0, 1, 1, 0]), 2, "sem",
    ...                policy=NanPolicy.OMIT)[0]
    array([2.51661148, 0.57735027])
    """
    policy = resolve_policy(policy)
    if stat not in HIGHER:
        raise ValueError(f"unknown statistic {stat!r}; expected one of {HIGHER_STATS}")
    check_params(stat, params)
    x = np.asarray(x)
    dtype = x.dtype
    x = _check(x, stat)
    one_d = x.ndim == 1
    x2 = x[:, None] if one_d else x
    codes = np.asarray(codes).astype(np.intp, copy=False)
    ngroups = int(ngroups)
    if codes.shape != (x2.shape[0],):
        raise ValueError(f"codes must have shape ({x2.shape[0]},), got {codes.shape}")
    if one_d and missing is None and RULES[policy].removes:
        lean = _lean_groups(x, codes, ngroups, stat, policy, params)
        if lean is not None:
            return _out_dtype(lean, dtype), None
    miss2 = None
    if missing is not None:
        miss2 = np.asarray(missing, bool).reshape(x2.shape)
        if not miss2.any():
            miss2 = None
    nan, miss = scan(x2, codes, policy, miss2, one_d)
    ncols = x2.shape[1]
    keep = np.broadcast_to((codes >= 0)[:, None], x2.shape).copy()
    for m in (nan, miss):
        if m is not None:
            keep &= ~m
    cell = codes[:, None] if ncols == 1 else codes[:, None] * ncols + np.arange(ncols)
    if x2.dtype.kind == "f":  # no gather: cell -1 leaves a value out
        vals = cell_values(x2.reshape(-1), np.where(keep, cell, -1).reshape(-1),
                           ngroups * ncols, stat, params)
    else:
        vals = cell_values(x2[keep], np.broadcast_to(cell, x2.shape)[keep],
                           ngroups * ncols, stat, params)
    vals = _out_dtype(vals, dtype).reshape(ngroups, ncols)
    vmiss = np.zeros((ngroups, ncols), bool)
    if not RULES[policy].removes:
        for c in range(ncols):  # columns, not groups
            col = x2[:, c]
            ncol = None if nan is None else nan[:, c]
            mcol = None if miss is None else miss[:, c]
            has_nan, best = greatest_nan(col, ncol, codes, ngroups)
            has_miss = group_counts(codes, mcol, ngroups) > 0
            out, rm = finish(vals[:, c], "mean", nan_rows=has_nan, nan_values=best,
                             missing_rows=has_miss)
            vals[:, c] = out
            if rm is not None:
                vmiss[:, c] = rm
    if one_d:
        return vals[:, 0], vmiss[:, 0] if vmiss.any() else None
    return vals, vmiss if vmiss.any() else None


def _first_other(x: np.ndarray) -> str:
    """``": str 'a' at position 3"`` for the first element of an object array that is
    not a number (the place a TypeError names), else ``""``."""
    if x.dtype != object:
        return ""
    for i, v in enumerate(x.ravel().tolist()):
        if not isinstance(v, int | float | np.number) or isinstance(v, complex):
            pos = np.unravel_index(i, x.shape) if x.ndim > 1 else i
            return f": {type(v).__name__} {v!r} at position {pos}"
    return ""
