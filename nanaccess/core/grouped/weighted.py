"""Grouped weighted statistics (issue 13): every group at once, no loop per group.

The policy on data and weights is :func:`nanaccess.core.weighted.prepare`'s, applied
once to all pairs. The groups are then laid out as rows of the weighted row engines
(:mod:`nanaccess.core.weighted.order`, :mod:`nanaccess.core.weighted.moments`): rows
ordered by group code, groups bucketed by size class (``2**(k-1) < size <= 2**k``),
each class one zero-weight-padded ``(groups, 2**k)`` block (padding at most 2x, one
engine call per class, about ``log2(n)`` calls). Every choice those engines make is
per row and ignores zero weights, so each group gives the bits of its own ungrouped
weighted statistic. "propagate" gives each group its own greatest NaN.

Order statistics of float data go to a compiled kernel when numba is chosen
(:mod:`nanaccess.core.weighted.compiled`: a counting sort by group, then per group a
weighted quickselect deciding on float sums only where the exact cumulative weights
would decide the same), with the same bits. The
weighted mean and sum of float data go through the certified compiled sums
(:mod:`nanaccess.core.weighted.certified`: one pass, no blocks); only the groups they
do not certify take the blocks.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from ... import _stats
from ...errors import TotalWeightError
from .. import _numba
from ..interp import validate_q
from ..keys import keys_to_float
from ..moments import result_dtype
from ..policy import RULES
from ..weighted.certified import certified_sums, eligible
from ..weighted.compiled import compiled_order, use_compiled
from ..weighted.moments import total_doubt, weighted_moment, weighted_tails, weights_kind_of
from ..weighted.order import weighted_order
from ..weighted.prepare import KMIN, Prepared, prepare
from .common import radix_argsort_codes

__all__ = ["grouped_weighted", "grouped_weighted_columns", "GROUPED_WEIGHTED", "size_blocks"]

#: statistics the grouped weighted engine computes
GROUPED_WEIGHTED = _stats.WEIGHTED


def size_blocks(codes: np.ndarray, ngroups: int) -> Iterator[tuple[np.ndarray, np.ndarray,
                                                                   np.ndarray]]:
    """Yield ``(group ids, (g, width) positions into codes, valid mask)`` per size
    class; groups without rows come as one block of width 1 with nothing valid."""
    counts = np.bincount(codes, minlength=ngroups).astype(np.int64)
    order = radix_argsort_codes(codes, ngroups) if codes.size else np.zeros(0, np.intp)
    sc = codes[order]
    starts = np.cumsum(counts) - counts
    pos = np.arange(sc.size, dtype=np.int64) - starts[sc]
    cls = np.full(ngroups, -1, np.int64)
    nz = counts > 0
    cls[nz] = np.ceil(np.log2(counts[nz])).astype(np.int64)
    cls[nz] += np.left_shift(1, cls[nz]) < counts[nz]  # guard log2's rounding
    row_in_class = np.zeros(ngroups, np.int64)
    for c in np.unique(cls):  # one pass per size class (about log2(n)), not per group
        gids = np.flatnonzero(cls == c)
        if c < 0:
            yield gids, np.zeros((gids.size, 1), np.int64), np.zeros((gids.size, 1), bool)
            continue
        row_in_class[gids] = np.arange(gids.size)
        width = 1 << int(c)
        idx = np.zeros((gids.size, width), np.int64)
        valid = np.zeros((gids.size, width), bool)
        sel = np.flatnonzero(cls[sc] == c)
        r = row_in_class[sc[sel]]
        idx[r, pos[sel]] = order[sel]
        valid[r, pos[sel]] = True
        yield gids, idx, valid


def _group_tails(p: Prepared, codes: np.ndarray, ngroups: int) -> Any:
    """Per group: (has a propagated NaN, that NaN, holds a propagated missing)."""
    nan_rows = nan_values = miss_rows = None
    if p.prop_keys is not None:
        best = np.full(ngroups, KMIN, np.int64)
        np.maximum.at(best, codes, p.prop_keys[0])
        nan_rows = best > KMIN
        nan_values = keys_to_float(best, np.dtype(np.float64))
    if p.prop_miss is not None:
        gm = np.zeros(ngroups, bool)
        gm[codes[p.prop_miss[0]]] = True
        miss_rows = gm if nan_rows is None else (gm & ~nan_rows)
    return nan_rows, nan_values, miss_rows


def _block(p: Prepared, tails: Any, gids: Any, idx: Any, valid: Any) -> Prepared:
    """The block's groups as prepared rows (padding: weight 0, no NaN, not missing)."""
    if p.x.size == 0:  # only groups without rows: one zero-weight pad each
        x = np.zeros(idx.shape, p.x.dtype)
        return Prepared(p.red, x, np.zeros(idx.shape), None, None, None, None, None,
                        np.zeros(gids.size, np.int64))
    x = p.x[0][idx]
    w = np.where(valid, p.w[0][idx], 0.0)
    nan = None if p.nan is None else (p.nan[0][idx] & valid)
    miss = None if p.miss is None else (p.miss[0][idx] & valid)
    nan_rows, nan_values, miss_rows = (None if t is None else t[gids] for t in tails)
    return Prepared(p.red, x, w, miss, nan, nan_rows, nan_values, miss_rows,
                    np.zeros(gids.size, np.int64))


def grouped_weighted(x: Any, codes: Any, ngroups: int, stat: str, weights: Any, *, policy: Any,
                     missing: np.ndarray | None = None,
                     weights_missing: np.ndarray | None = None, q: Any = None,
                     method: str = "linear", ddof: float | None = None,
                     engine: str | None = None, weights_kind: str = "frequency") -> Any:
    """Weighted ``stat`` of every group of the 1-D ``x`` (``codes``: group per value,
    -1 ignored).

    Returns ``(values, missing, count)``: values ``(ngroups,)`` (``(*q.shape,
    ngroups)`` for a quantile sequence), ``missing`` None or a bool array of that
    shape, ``count`` the pairs each group saw. Each group's values are the bits of
    the ungrouped weighted statistic of its pairs (an integer weighted ``sum`` is
    int64 when every weight is an integer, else float64 for every group).

    Examples
    --------
    >>> from nanaccess.options import NanPolicy
    >>> x = np.array([1.0, 2.0, 3.0, 10.0, 20.0])
    >>> grouped_weighted(x, [0, 0, 0, 1, 1], 2, "median", [1, 1, 5, 1, 3],
    ...                  policy=NanPolicy.RAISE)[0]
    array([ 3., 20.])
    >>> grouped_weighted(x, [0, 0, 0, 1, 1], 2, "mean", [1, 1, 2, 1, 3],
    ...                  policy=NanPolicy.RAISE)[0]
    array([ 2.25, 17.5 ])
    """
    if stat not in GROUPED_WEIGHTED:
        raise TypeError(f"grouped weighted statistics are {', '.join(GROUPED_WEIGHTED)}; "
                        f"got {stat!r}")
    kind = weights_kind_of(stat, {"weights_kind": weights_kind})
    if ddof is None:  # the table's default (sem: 1)
        ddof = next((q.default for q in _stats.get(stat).params if q.name == "ddof"), 0)
    x = np.asarray(x)
    codes = np.asarray(codes, dtype=np.int64)
    if x.ndim != 1 or codes.shape != x.shape:
        raise ValueError("grouped weights need 1-D data and one code per value")
    w = np.broadcast_to(np.asarray(weights), x.shape)
    if codes.size and codes.min() < 0:  # rows of no group are ignored entirely, their
        keep = codes >= 0  # weights too (one reduction when every row has a group)
        x, codes, w = x[keep], codes[keep], w[keep]
        missing = None if missing is None else np.broadcast_to(missing, keep.shape)[keep]
        weights_missing = None if weights_missing is None else \
            np.broadcast_to(weights_missing, keep.shape)[keep]
    if x.dtype.kind in "cOUSV" or (x.dtype.kind == "f" and x.dtype.itemsize > 8):
        raise TypeError(f"weighted {stat} needs float, int or bool data, got dtype {x.dtype}")
    order = _stats.get(stat).family == "order"
    # the compiled order layout skips the dropped pairs itself: no zeroed copy of w
    p = prepare(x, w, axis=None, policy=policy, missing=missing,
                weights_missing=weights_missing, defer_drop=order)
    lead: tuple[int, ...] = ()
    qa = None
    if stat in _stats.TAKES_Q:
        if q is None:
            raise TypeError("quantile needs q")
        qa = validate_q(q)
        lead = qa.shape
    tails = _group_tails(p, codes, ngroups)
    vals = res_miss = count = None
    if order and use_compiled(p, engine):
        try:
            vals, res_miss, count = compiled_order(p, codes, ngroups, stat, policy, qa, method,
                                                   tails)
        except Exception as exc:  # a broken numba install: NumPy from here on
            _numba.fallback(exc, engine)
    if vals is None:
        p = p.applied()
    if vals is None and not order and kind == "frequency" and \
            eligible(p, stat, engine, ddof=ddof):
        vals, res_miss = _certified_engine(p, codes, ngroups, stat, policy, ddof, tails,
                                           engine)
    if vals is None:
        vals, res_miss = _blocks_engine(p, codes, ngroups, stat, policy, qa, method, ddof,
                                        tails, order, kind)
    if count is None or not RULES[policy].removes:  # (the kernel counts positive weights)
        with np.errstate(invalid="ignore"):
            seen = (p.w[0] > 0) if RULES[policy].removes else (np.asarray(w) != 0)
        count = np.bincount(codes, weights=seen, minlength=ngroups).astype(np.int64)
    shape = lead + (ngroups,)
    if res_miss is not None and not res_miss.any():
        res_miss = None
    return vals.reshape(shape), None if res_miss is None else \
        np.broadcast_to(res_miss, vals.shape).reshape(shape), count


def _certified_engine(p: Any, codes: Any, ngroups: Any, stat: Any, policy: Any, ddof: Any,
                      tails: Any, engine: Any) -> Any:
    """Weighted mean / sum / var / std of every group by the certified compiled sums
    (:mod:`nanaccess.core.weighted.certified`: one pass over the pairs, no blocks);
    the groups it does not certify go to :func:`_blocks_engine`. ``(None, None)``
    when numba fails."""
    fast = certified_sums(p.x[0], p.w[0], codes, ngroups, stat, engine, ddof=ddof)
    if fast is None:
        return None, None
    got, ok = fast
    doubt = total_doubt(np.bincount(codes, weights=p.w[0], minlength=ngroups), ddof, stat,
                        "frequency")
    if doubt is not None:  # the TotalWeightError check: on exact sums
        ok = ok & ~doubt
    gp = Prepared(p.red, p.x, p.w, None, None, *tails, np.zeros(ngroups, np.int64))
    vals, miss = weighted_tails(gp, result_dtype(got, p.x.dtype, stat), policy,
                        np.zeros(ngroups, bool), stat)
    miss = np.zeros(ngroups, bool) if miss is None else np.array(miss, bool)
    rest = np.flatnonzero(~ok)
    if rest.size:  # those groups alone, renumbered, through the exact engine
        renum = np.full(ngroups, -1, np.int64)
        renum[rest] = np.arange(rest.size)
        sel = renum[codes] >= 0
        part = Prepared(p.red, p.x[:, sel], p.w[:, sel],
                        None if p.miss is None else p.miss[:, sel],
                        None if p.nan is None else p.nan[:, sel], None, None, None,
                        np.zeros(1, np.int64))
        sub_tails = tuple(None if t is None else t[rest] for t in tails)
        try:
            v_rest, m_rest = _blocks_engine(part, renum[codes[sel]], rest.size, stat,
                                            policy, None, "linear", ddof, sub_tails, False)
        except TotalWeightError as err:  # the group's own code
            raise TotalWeightError(total=err.total, ddof=err.ddof,
                                   cell=int(rest[err.cell])) from None
        vals = vals.astype(np.result_type(vals.dtype, v_rest.dtype), copy=False)
        vals[rest] = v_rest
        miss[rest] = m_rest
    return vals, miss


def _blocks_engine(p: Any, codes: Any, ngroups: Any, stat: Any, policy: Any, qa: Any, method: Any,
                   ddof: Any, tails: Any, order: Any,
                   kind: Any = "frequency") -> Any:
    """The NumPy engine: the row engines on size-class blocks of groups (a
    :class:`~nanaccess.errors.TotalWeightError` names the group's code as its cell)."""
    nq = 1 if qa is None else max(qa.size, 1)
    parts = []
    for gids, idx, valid in size_blocks(codes, ngroups):
        pb = _block(p, tails, gids, idx, valid)
        if order:
            v, m, _lead = weighted_order(pb, stat, policy, q=qa, method=method,
                                         engine="numpy")
        else:
            try:
                v, m = weighted_moment(pb, stat, policy, ddof=ddof, weights_kind=kind,
                                       engine="numpy")
            except TotalWeightError as err:
                raise TotalWeightError(total=err.total, ddof=err.ddof,
                                       cell=int(gids[err.cell])) from None
        parts.append((gids, v, m))
    if not parts:  # no groups at all
        dt = p.x.dtype if p.x.dtype.kind == "f" else np.float64
        return np.zeros((nq, 0) if order else (0,), dt), None
    dtype = np.result_type(*(v.dtype for _g, v, _m in parts))
    shape = (nq, ngroups) if order else (ngroups,)
    vals = np.empty(shape, dtype)
    miss = np.zeros(shape, bool)
    for gids, v, m in parts:
        vals[..., gids] = v
        if m is not None:
            miss[..., gids] = m
    return vals, miss


def grouped_weighted_columns(x: np.ndarray, codes: np.ndarray, ngroups: int, stat: str,
                             weights: Any, *, policy: Any, missing: Any = None,
                             weights_missing: Any = None,
                             engine: str | None = None, **params: Any) -> Any:
    """:func:`grouped_weighted` of every column of ``(n,)`` or ``(n, ncols)`` data
    (one loop over columns, not groups); ``weights`` (and ``weights_missing``) of
    shape ``(n,)`` (shared by the columns) or ``(n, ncols)``.

    Returns ``(values, missing, count)`` with the column last, as
    :func:`nanaccess.core.grouped.grouped_reduce`.
    """
    x = np.asarray(x)
    if x.ndim == 1:
        return grouped_weighted(x, codes, ngroups, stat, weights, policy=policy,
                                missing=missing, weights_missing=weights_missing,
                                engine=engine, **params)
    n, ncols = x.shape

    def column(a: Any, c: Any) -> Any:
        if a is None:
            return None
        a = np.asarray(a)
        if a.ndim == 1:
            return a
        return np.broadcast_to(a, (n, ncols))[:, c]

    w = np.asarray(weights)
    if w.ndim not in (1, 2) or w.shape[0] != n:
        raise ValueError(f"weights of shape {w.shape} do not fit data of shape {x.shape}: "
                         f"pass ({n},) or ({n}, {ncols})")
    outs = [grouped_weighted(x[:, c], codes, ngroups, stat, column(w, c), policy=policy,
                             missing=column(missing, c),
                             weights_missing=column(weights_missing, c), engine=engine,
                             **params) for c in range(ncols)]
    if not outs:
        lead = (np.size(params["q"]),) if np.ndim(params.get("q")) else ()
        return np.zeros(lead + (ngroups, 0)), None, np.zeros((ngroups, 0), np.int64)
    dtype = np.result_type(*(o[0].dtype for o in outs))
    vals = np.stack([o[0].astype(dtype, copy=False) for o in outs], axis=-1)
    miss = None
    if any(o[1] is not None for o in outs):
        miss = np.stack([np.zeros(o[0].shape, bool) if o[1] is None else o[1]
                         for o in outs], axis=-1)
    return vals, miss, np.stack([o[2] for o in outs], axis=-1)
