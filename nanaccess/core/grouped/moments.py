"""Grouped moments (mean / var / std / sum / count), correctly rounded, no group loop.

mean / var / std / sum use :mod:`nanaccess.core.exactsum` (so they equal the
ungrouped core bit for bit and never depend on row order). Groups are shaped for it
without a loop per group: rows are ordered by group code, groups are bucketed by size
class (``2**(k-1) < size <= 2**k``) and each class becomes one zero-padded
``(groups, 2**k)`` block with a ``where`` mask (padding is at most 2x the data; one
call per size class, about ``log2(n)`` calls). float16/32 results are rounded from the
float64 result to the input dtype.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from ... import _stats
from ...options import NanPolicy
from ..exactsum import exact_mean, exact_sum, exact_var
from ..exactsum.certified import (
    F_NAN,
    F_SNAN,
    certified_groups,
    certified_var_groups,
    uncertified_groups,
)
from ..exactsum.common import SumOverflowError
from ..exactsum.compiled import compiled_groups
from ..moments import result_dtype
from ..moments import temporal_mean as _temporal_mean
from ..policy import RULES, empty_value, finish
from .common import greatest_nan, group_counts, radix_argsort_codes

__all__ = ["moment_column", "certified_columns"]

_F64 = np.dtype(np.float64)


def _size_blocks(vals: np.ndarray, cc: np.ndarray, counts: np.ndarray
                 ) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Yield (group ids, padded (g, width) values, where mask) per group-size class."""
    ngroups = counts.size
    order = radix_argsort_codes(cc, ngroups) if cc.size else np.zeros(0, np.intp)
    sv = vals[order]
    sc = cc[order]
    starts = np.cumsum(counts) - counts
    pos = np.arange(sc.size, dtype=np.int64) - starts[sc]
    cls = np.zeros(ngroups, np.int64)
    nz = counts > 0
    cls[nz] = np.ceil(np.log2(counts[nz])).astype(np.int64)
    # guard against log2 rounding: make sure 2**cls >= count
    cls[nz] += (np.left_shift(1, cls[nz]) < counts[nz])
    row_in_class = np.zeros(ngroups, np.int64)
    for c in np.unique(cls[nz]):  # one pass per size class (about log2(n)), not per group
        gids = np.flatnonzero(nz & (cls == c))
        row_in_class[gids] = np.arange(gids.size)
        width = 1 << int(c)
        block = np.zeros((gids.size, width), dtype=vals.dtype)
        where = np.zeros((gids.size, width), dtype=bool)
        sel = np.flatnonzero(cls[sc] == c)
        r = row_in_class[sc[sel]]
        block[r, pos[sel]] = sv[sel]
        where[r, pos[sel]] = True
        yield gids, block, where


def _numpy_column(col: Any, nan: Any, miss: Any, codes: Any, ngroups: Any, stat: Any,
                  ddof: Any) -> Any:
    """The NumPy engine: (values, counts) by size-class blocks of the exact sums."""
    dt = col.dtype
    include = codes >= 0
    if nan is not None:
        include &= ~nan
    if miss is not None:
        include &= ~miss
    vals = col[include]
    cc = codes[include]
    counts = np.bincount(cc, minlength=ngroups).astype(np.int64)
    if stat in _stats.COUNTS:
        return None, counts
    work = vals.view(np.int64) if dt.kind in "mM" else vals
    if dt.kind == "f" and dt != np.float64:
        work = work.astype(np.float64)  # exact: every float16/32 is a float64
    temporal_mean = stat in _stats.MEANS and dt.kind in "mM"
    if stat in _stats.SUMS:
        # exact sums of unsigned data are uint64 (as NumPy / pandas), of other ints int64
        out = np.zeros(ngroups, np.uint64 if work.dtype.kind == "u" else
                       np.int64 if work.dtype.kind in "ib" else np.float64)
    elif temporal_mean:  # exact integers truncated toward zero; NaT for empty groups
        out = np.full(ngroups, np.iinfo(np.int64).min, np.int64)
    else:
        out = np.full(ngroups, empty_value(_F64, stat), np.float64)
    for gids, block, where in _size_blocks(work, cc, counts):
        if stat in _stats.SUMS:
            try:
                out[gids] = exact_sum(block, where=where)
            except SumOverflowError as err:  # name the group (its code), not the row
                err.group = int(np.asarray(gids).reshape(-1)[err.row])
                raise
        elif temporal_mean:
            out[gids] = _temporal_mean(block, where)
        elif stat in _stats.MEANS:
            out[gids] = exact_mean(block, where=where)
        else:
            v = exact_var(block, ddof=ddof, where=where)
            out[gids] = np.sqrt(v) if stat in _stats.ROOTS else v
    return out, counts


def moment_column(col: Any, nan: Any, miss: Any, codes: Any, ngroups: Any, stat: Any, ddof: Any,
                  policy: NanPolicy, *,
                  counts_out: list[Any] | None = None) -> Any:
    """One column's moment statistic: ``(values (ngroups,), missing (ngroups,))``;
    its per-group counts of the values taken are appended to ``counts_out``."""
    dt = col.dtype
    got = None
    if stat not in _stats.COUNTS and dt.kind == "f":
        sel = None
        for m in (nan, miss):
            if m is not None:
                sel = ~m if sel is None else sel & ~m
        got = compiled_groups(col, sel, codes, ngroups,
                              "var" if stat in _stats.SQUARES else stat, ddof)
    if got is not None:
        out, counts = _compiled_finish(*got, stat)
    else:
        out, counts = _numpy_column(col, nan, miss, codes, ngroups, stat, ddof)
    if counts_out is not None:
        counts_out.append(counts)
    return _finish(out, counts, col, nan, miss, codes, ngroups, stat, ddof, policy)


def _compiled_finish(out: Any, counts: Any, stat: Any) -> Any:
    """The compiled engines' float64 ``(values, counts)`` as the NumPy engine's."""
    if stat in _stats.MEANS:
        out = np.where(counts == 0, empty_value(_F64, stat), out)
    if stat in _stats.ROOTS:
        with np.errstate(invalid="ignore"):
            out = np.sqrt(out)
    return out, counts


def _finish(out: Any, counts: Any, col: Any, nan: Any, miss: Any, codes: Any, ngroups: Any,
            stat: Any, ddof: Any, policy: Any) -> Any:
    """Empty groups, the input dtype and the policy's NaN or missing value."""
    dt = col.dtype
    if stat in _stats.COUNTS:
        return counts, np.zeros(counts.shape, bool)
    if stat in _stats.SQUARES:
        out = np.where(counts - ddof <= 0, empty_value(_F64, stat), out)
    if dt.kind == "f" and dt != np.float64:
        nanout = np.isnan(out)
        out = out.astype(dt)
        out[nanout] = empty_value(dt.newbyteorder("="), "mean")  # canonical NaN (sum too)
    if dt.kind in "mM" and stat in _stats.LINEAR:
        nat = np.isnan(out) if out.dtype.kind == "f" else (out == np.iinfo(np.int64).min)
        ints = np.round(np.where(nat, 0, out)).astype(np.int64) if out.dtype.kind == "f" else out
        fill = np.array("NaT", dtype=dt.newbyteorder("="))
        out = np.where(nat, fill, ints.view(fill.dtype))
    elif dt.kind in "mM" and stat in _stats.ROOTS:
        out = result_dtype(out, dt, stat)  # a duration in the data's unit, as the flat core
    if RULES[policy].removes:
        return out, np.zeros(ngroups, bool)
    # a NaN propagates (the group's greatest under totalOrder), else a missing value
    has_nan, best = greatest_nan(col, nan, codes, ngroups)
    has_miss = group_counts(codes, miss, ngroups) > 0
    if has_miss.any() and out.dtype.kind in "iub":
        out = out.astype(np.float64)
    out, res_miss = finish(out, "mean", nan_rows=has_nan, nan_values=best,
                           missing_rows=has_miss)
    return out, np.zeros(ngroups, bool) if res_miss is None else res_miss


def certified_columns(x2: np.ndarray, codes: np.ndarray, ngroups: int, stat: str,
                      policy: NanPolicy, counts_out: list[Any] | None = None, *,
                      ddof: float | None = None) -> Any:
    """``sum`` / ``mean`` (and ``var`` / ``std`` when the caller passes ``ddof``) of
    every float64 column with no NaN scan first, or None.

    The certified kernel skips the NaNs itself and flags the groups that held one
    (a signaling one among them); when ``policy`` drops those silently, its values
    are the answer (the groups it cannot certify go to the exact engine, their NaNs
    left out). Otherwise (an error, a propagated NaN) None: the caller scans and
    reduces as before, so errors and propagated bits come from that one path.
    Returns ``(values, missing)`` with the column last, as the column loop's.
    ``ddof`` None: variances are not taken here (the caller did not say its ``ddof``).
    """
    var = stat in _stats.SQUARES
    if (stat not in _stats.LINEAR and not (var and ddof is not None)) or x2.dtype != _F64:
        return None
    kind = "var" if var else stat  # what the kernels compute; std is its square root
    ddof = 0 if ddof is None else ddof
    rules = RULES[policy]
    refuses_nan = not rules.drops_silently(True, False)
    outs, all_counts = [], []
    for c in range(x2.shape[1]):  # columns, not groups
        col = x2[:, c]
        if refuses_nan:  # a NaN would be refused after the kernel's pass: look first
            with np.errstate(all="ignore"):
                if np.isnan(np.add.reduce(col)):
                    return None
        got = certified_var_groups(col, None, codes, ngroups, ddof, skipnan=True) if var \
            else certified_groups(col, None, codes, ngroups, stat, skipnan=True)
        if got is None:
            return None
        out, ok, counts, flags = got
        held = (flags & F_NAN) != 0
        if not rules.drops_silently(bool(held.any()), bool((flags & F_SNAN).any())):
            return None
        if not ok.all():
            sv, _, sc, bad = uncertified_groups(col, None, codes, ok)
            snan = np.isnan(sv) if held[bad].any() else None
            sub = compiled_groups(sv, None if snan is None else ~snan, sc, bad.size, kind,
                                  ddof)
            if sub is None:
                sub = _numpy_column(sv, snan, None, sc, bad.size, kind, ddof)
            out[bad], counts[bad] = sub
        out, counts = _compiled_finish(out, counts, stat)
        all_counts.append(counts)
        # no NaN reaches the result: dropped (the policy removes them) or none held
        outs.append(_finish(out, counts, col, None, None, codes, ngroups, stat, ddof, policy))
    if counts_out is not None:
        counts_out.extend(all_counts)
    if not outs:
        return None
    return np.stack([o[0] for o in outs], axis=-1), np.stack([o[1] for o in outs], axis=-1)
