"""The entry point of two-variable statistics: pairs of columns under a NaN policy.

:func:`pairwise` takes 1-D columns (and their missing masks), a list of column pairs
and optionally row segments (groups), and returns one covariance or correlation per
(segment, pair). The policy, read from :data:`nanaccess.core.policy.RULES`:

* errors first, through :func:`nanaccess.core.policy.raise_for` (signaling NaNs of
  every column, then NaNs, then missing values, column by column);
* ``removes`` ("omit"): each pair uses the rows where both values are numbers
  (pandas' pairwise-complete observations);
* ``moment_propagates`` for Pearson and covariance ("propagate" and the ordering
  policies): a NaN anywhere in either column makes the pair's result that NaN (the
  greatest under totalOrder: sign and payload kept); else a missing value makes it
  missing;
* Spearman and Kendall under an ordering policy rank NaNs (and missing values, last)
  where :func:`nanaccess.core.sorting.rank` puts them; under "propagate" as above.

Exactness: :mod:`.sums` gives the exact sums, :mod:`.rounding` rounds once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from ...options import NanPolicy
from ..bits import as_bits, layout_of
from ..keys import float_keys
from ..policy import RULES, NanTally, raise_for
from ..sorting import rank as core_rank
from .ranks import kendall_counts, subset_ranks
from .rounding import corr_from, cov_from, tau_from
from .sums import PairTables, Segments, exponent_bounds, object_sums, pair_tables

__all__ = ["METHODS", "Paired", "pairwise", "segments_of", "column_of", "raise_for_columns"]

METHODS = ("pearson", "spearman", "kendall")
_NAN = float("nan")


class Paired(NamedTuple):
    """Results per (segment, pair): ``values`` float64, ``missing`` bool (the host's
    missing value belongs there) or None, ``counts`` the rows each result used."""

    values: np.ndarray
    missing: np.ndarray | None
    counts: np.ndarray


def segments_of(codes: np.ndarray, ngroups: int) -> Segments:
    """Rows cut by group codes (``-1``: dropped), groups in code order."""
    codes = np.asarray(codes, dtype=np.int64)
    keep = np.flatnonzero(codes >= 0)
    order = keep[np.argsort(codes[keep], kind="stable")]
    cnt = np.bincount(codes[keep], minlength=ngroups)
    starts = np.zeros(ngroups + 1, np.int64)
    np.cumsum(cnt, out=starts[1:])
    return Segments(starts, order.astype(np.int64))


class _Col(NamedTuple):
    values: np.ndarray
    nan: np.ndarray | None  # NaNs (quiet and signaling), never missing
    missing: np.ndarray | None
    exact_float: bool  # float64 holds every value exactly


def _column(values: np.ndarray, missing: np.ndarray | None) -> _Col:
    v = np.asarray(values)
    if v.ndim != 1:
        raise ValueError("columns must be 1-D")
    if v.dtype.kind not in "fiub":
        raise TypeError(f"two-variable statistics need numbers, not dtype {v.dtype}")
    miss = None if missing is None else np.asarray(missing, dtype=bool)
    if miss is not None and not miss.any():
        miss = None
    nan = None
    if v.dtype.kind == "f":
        m = np.isnan(v)
        if miss is not None:
            m &= ~miss
        nan = m if m.any() else None
    exact = v.dtype.kind in "fb" or v.size == 0 or (
        int(np.abs(v.astype(np.float64)).max()) <= (1 << 53))
    return _Col(v, nan, miss, exact)


def _signaling(c: _Col) -> np.ndarray | None:
    if c.nan is None:
        return None
    lay = layout_of(c.values.dtype)
    at = np.flatnonzero(c.nan)
    quiet = (as_bits(c.values[at]) & lay.int_dtype.type(lay.quiet_bit)) != 0
    if quiet.all():
        return None
    out = np.zeros(c.values.size, bool)
    out[at[~quiet]] = True
    return out


def _raise(cols: list[_Col], used: list[int], policy: NanPolicy,
           subjects: Sequence[str] | None, locate: Callable[[int], str | None] | None
           ) -> None:
    """The policy's errors, kind by kind (signaling NaNs of every column first)."""
    for kind in RULES[policy].refused:
        for k in used:
            c = cols[k]
            mask = {"signaling": _signaling(c), "nan": c.nan, "missing": c.missing}[kind]
            if mask is not None and mask.any():
                tally = NanTally.from_masks(**{kind if kind != "signaling" else "nan": mask,
                                               **({"signaling": mask} if kind == "signaling"
                                                  else {})})
                raise_for(tally, policy, subject=subjects[k] if subjects else f"column {k}",
                          locate=locate)


def _greatest_nan(c: _Col, seg: Segments) -> np.ndarray | None:
    """Per segment, the totalOrder key (int64) of the column's greatest NaN, or
    int64 min where it has none; None when the column holds no NaN."""
    if c.nan is None:
        return None
    G = seg.starts.size - 1
    out = np.full(G, np.iinfo(np.int64).min, np.int64)
    keys = float_keys(c.values.astype(np.float64) if c.values.dtype != np.float64
                      else c.values).astype(np.int64)
    pos = np.empty(c.values.size, np.int64)
    pos[:] = -1
    rows = np.arange(c.values.size) if seg.rows is None else seg.rows
    seg_of = np.repeat(np.arange(G), np.diff(seg.starts))
    pos[rows] = seg_of
    hit = np.flatnonzero(c.nan & (pos >= 0))
    np.maximum.at(out, pos[hit], keys[hit])
    return out


def _any_missing(c: _Col, seg: Segments) -> np.ndarray | None:
    if c.missing is None:
        return None
    rows = np.arange(c.values.size) if seg.rows is None else seg.rows
    seg_of = np.repeat(np.arange(seg.starts.size - 1), np.diff(seg.starts))
    return np.bincount(seg_of[c.missing[rows]], minlength=seg.starts.size - 1) > 0


def pairwise(
    columns: Sequence[np.ndarray],
    pairs: np.ndarray,
    *,
    missing: Sequence[np.ndarray | None] | None = None,
    method: str = "pearson",
    stat: str = "corr",
    ddof: float = 1,
    min_periods: int | None = None,
    policy: NanPolicy = NanPolicy.OMIT,
    segments: Segments | None = None,
    subjects: Sequence[str] | None = None,
    locate: Callable[[int], str | None] | None = None,
    engine: str | None = None,
) -> Paired:
    """Covariance (``stat="cov"``) or correlation of column pairs, per segment.

    Parameters
    ----------
    columns : sequence of numpy.ndarray
        Equal-length 1-D columns (float, int, uint or bool).
    pairs : numpy.ndarray
        ``(P, 2)`` column indices.
    missing : sequence of (numpy.ndarray or None), optional
        Missing masks per column.
    method : {"pearson", "spearman", "kendall"}
        For ``stat="corr"``.
    stat : {"corr", "cov"}
    ddof : float
        Covariance divisor ``n - ddof``.
    min_periods : int, optional
        Fewest rows a result may use (pandas' meaning); fewer give NaN.
    policy : NanPolicy
    segments : Segments, optional
        Row segments (groups); default one segment of every row.
    subjects, locate
        Error labels: ``subjects[k]`` names column k, ``locate(row)`` a row.
    engine : str, optional

    Returns
    -------
    Paired
        Arrays of shape ``(G, P)``.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([1.0, 2.0, np.nan, 4.0])
    >>> y = 3 * x + 1e7
    >>> pairwise([x, y], np.array([[0, 1]])).values
    array([[1.]])
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, not {method!r}")
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    miss = list(missing) if missing is not None else [None] * len(columns)
    cols = [_column(v, m) for v, m in zip(columns, miss, strict=True)]
    n = cols[0].values.size if cols else 0
    if any(c.values.size != n for c in cols):
        raise ValueError("columns must have equal lengths")
    used = sorted(set(pairs.ravel().tolist()))
    _raise(cols, used, policy, subjects, locate)
    seg = Segments.whole(n) if segments is None else segments
    G, P = seg.starts.size - 1, pairs.shape[0]
    rules = RULES[policy]
    ranked = stat == "corr" and method != "pearson"
    propagate = not rules.removes and (rules.moment_propagates if not ranked
                                       else not rules.orders_nans)
    values = np.full((G, P), _NAN)
    res_missing = None
    counts = np.zeros((G, P), np.int64)
    todo = np.ones((G, P), bool)
    if propagate:
        keys = {k: _greatest_nan(cols[k], seg) for k in used}
        anym = {k: _any_missing(cols[k], seg) for k in used}
        nokey = np.iinfo(np.int64).min
        for p, (i, j) in enumerate(pairs.tolist()):
            ki = keys[i] if keys[i] is not None else np.full(G, nokey)
            kj = keys[j] if keys[j] is not None else np.full(G, nokey)
            k = np.maximum(ki, kj)
            has = k != nokey
            if has.any():
                nan_bits = _key_to_float64(k[has])
                values[has, p] = nan_bits
                todo[has, p] = False
            m = np.zeros(G, bool)
            for a in (anym[i], anym[j]):
                if a is not None:
                    m |= a
            m &= ~has
            if m.any():
                if res_missing is None:
                    res_missing = np.zeros((G, P), bool)
                res_missing[m, p] = True
                todo[m, p] = False
    removes = rules.removes
    valid = [_valid(c, removes) for c in cols]
    lo_rows = max(int(min_periods) if min_periods is not None else 1, 1)
    if ranked:
        _ranked(cols, valid, pairs, method, policy, seg, todo, values, counts, engine)
    else:
        _moments(cols, valid, pairs, stat, ddof, seg, todo, values, counts, engine)
    short = counts < lo_rows
    values[short & todo] = _NAN
    return Paired(values, res_missing, counts)


def _key_to_float64(keys: np.ndarray) -> np.ndarray:
    from ..keys import keys_to_float

    return keys_to_float(keys.astype(np.int64), np.dtype(np.float64)).copy()


def _valid(c: _Col, removes: bool) -> np.ndarray:
    """Rows a pair may use: numbers (omit), or every row (others: the pair is done
    before any NaN or missing value reaches the sums, or the ranks place them)."""
    v = np.ones(c.values.size, bool)
    if removes:
        if c.nan is not None:
            v &= ~c.nan
        if c.missing is not None:
            v &= ~c.missing
    return v


# ---------------------------------------------------------------- Pearson, covariance

def _moments(cols: Any, valid: Any, pairs: Any, stat: Any, ddof: Any, seg: Any, todo: Any,
             values: Any, counts: Any, engine: Any) -> None:
    fast = [i for i, c in enumerate(cols) if c.exact_float]
    plist = pairs.tolist()
    sel = [p for p, (i, j) in enumerate(plist) if i in fast and j in fast and todo[:, p].any()]
    if sel:
        _float_pairs(cols, valid, pairs[sel], sel, stat, ddof, seg, values, counts, todo,
                     engine)
    for p, (i, j) in enumerate(plist):  # integer columns beyond 2**53: Python ints
        if p in sel or not todo[:, p].any():
            continue
        for g in range(seg.starts.size - 1):
            rows = _rows(seg, g)
            both = rows[valid[i][rows] & valid[j][rows]]
            s = object_sums(cols[i].values[both], cols[j].values[both])
            counts[g, p] = both.size
            values[g, p] = _finish(stat, ddof, both.size, *s, shift=0)


def _rows(seg: Segments, g: int) -> np.ndarray:
    a, b = int(seg.starts[g]), int(seg.starts[g + 1])
    return np.arange(a, b) if seg.rows is None else seg.rows[a:b]


def _finish(stat: Any, ddof: Any, n: Any, sx: Any, sy: Any, sxx: Any, syy: Any, sxy: Any,
            shift: Any) -> float:
    """The one rounding from exact sums (``sx`` in units ``2**shift``, products in
    ``2**(2 shift)``)."""
    if n == 0:
        return _NAN
    cxy = n * sxy - sx * sy
    if stat == "cov":
        return cov_from(cxy, n, ddof, 2 * shift)
    return corr_from(cxy, n * sxx - sx * sx, n * syy - sy * sy)


def _float_pairs(cols: Any, valid: Any, pairs: Any, sel: Any, stat: Any, ddof: Any, seg: Any,
                 values: Any, counts: Any, todo: Any,
                 engine: Any) -> None:
    used = sorted(set(pairs.ravel().tolist()))
    where = {k: u for u, k in enumerate(used)}
    vals = np.empty((len(used), cols[0].values.size), np.float64)
    ok = np.empty(vals.shape, bool)
    for k in used:
        vals[where[k]] = cols[k].values
        ok[where[k]] = valid[k]
    local = np.array([[where[i], where[j]] for i, j in pairs.tolist()], np.int64)
    from .certified import matrix_shortcut  # the certified shortcut (numba engine)

    fast = matrix_shortcut(vals, ok, local, stat=stat, ddof=ddof, segments=seg, engine=engine)
    need = todo.copy()  # cells the exact path computes
    if fast is not None:
        fv, fg, fc = fast
        for q, p in enumerate(sel):
            values[fg[:, q], p] = fv[fg[:, q], q]
            counts[fg[:, q], p] = fc[fg[:, q], q]
            need[fg[:, q], p] = False  # certified: the exact path leaves these cells
        rest = np.flatnonzero(~fg.all(axis=0)).tolist()
        if not rest:
            return
        sel = [sel[q] for q in rest]
        local = local[rest]
    ints, cnt, inf, lo = _sums(vals, ok, local, seg, engine)
    for q, p in enumerate(sel):
        for g in range(seg.starts.size - 1):
            if not need[g, p]:
                continue
            counts[g, p] = cnt[g, q]
            values[g, p] = _NAN if inf[g, q] else _finish(stat, ddof, int(cnt[g, q]),
                                                          *ints[g, q], shift=lo)


def _sums(vals: Any, ok: Any, local: Any, seg: Any, engine: Any) -> Any:
    """Exact ``(X, Y, XX, YY, XY)`` per (segment, pair) as Python ints, the joint
    counts, infinity flags and the unit exponent. With at least as many pairs of two
    columns as columns (a matrix): column sums once (mode 2) and each pair's products
    with corrections for the rows only one side has (mode 1); otherwise, and for
    columns holding an infinity, each pair in full (mode 0)."""
    K = vals.shape[0]
    G = seg.starts.size - 1
    P = local.shape[0]
    bounds = exponent_bounds(vals, ok, engine)
    off = [p for p, (i, j) in enumerate(local.tolist()) if i != j]
    if len(off) < K and len(off) == P:  # few pairs of many columns: one pass each
        t = pair_tables(vals, ok, local, 0, seg, engine, bounds)
        return t.ints(), t.counts, t.inf, t.lbase
    diag = np.stack([np.arange(K), np.arange(K)], axis=1)
    col: PairTables = pair_tables(vals, ok, diag, 2, seg, engine, bounds)
    cints = col.ints()  # (G, K, 5)
    cinf = col.inf.any(axis=0)  # a column with an infinity in any segment: mode 0
    out = np.empty((G, P, 5), dtype=object)
    counts = np.zeros((G, P), np.int64)
    inf = np.zeros((G, P), bool)
    cross = [p for p in off if not (cinf[local[p, 0]] or cinf[local[p, 1]])]
    full = [p for p in off if p not in cross]
    for p, (i, j) in enumerate(local.tolist()):
        if i == j:
            x, xx = cints[:, i, 0], cints[:, i, 2]
            for t_, v in enumerate((x, x, xx, xx, xx)):
                out[:, p, t_] = v
            counts[:, p] = col.counts[:, i]
            inf[:, p] = col.inf[:, i]
    if cross:
        t = pair_tables(vals, ok, local[cross], 1, seg, engine, bounds)
        ti = t.ints()  # (G, len(cross), 5)
        for q, p in enumerate(cross):
            i, j = local[p]
            out[:, p, 0] = cints[:, i, 0] - ti[:, q, 0]
            out[:, p, 1] = cints[:, j, 0] - ti[:, q, 1]
            out[:, p, 2] = cints[:, i, 2] - ti[:, q, 2]
            out[:, p, 3] = cints[:, j, 2] - ti[:, q, 3]
            out[:, p, 4] = ti[:, q, 4]
            counts[:, p] = t.counts[:, q]
            inf[:, p] = t.inf[:, q]
    if full:
        t = pair_tables(vals, ok, local[full], 0, seg, engine, bounds)
        ti = t.ints()
        for q, p in enumerate(full):
            out[:, p, :] = ti[:, q, :]
            counts[:, p] = t.counts[:, q]
            inf[:, p] = t.inf[:, q]
    return out, counts, inf, col.lbase


# ------------------------------------------------------------------ Spearman, Kendall

def _ranked(cols: Any, valid: Any, pairs: Any, method: Any, policy: Any, seg: Any, todo: Any,
            values: Any, counts: Any, engine: Any) -> None:
    rules = RULES[policy]
    rank_policy = policy if rules.orders_nans else NanPolicy.OMIT
    G = seg.starts.size - 1
    for g in range(G):
        rows = _rows(seg, g)
        full = {}  # dense integer ranks of each column (-1: not ranked)
        perm = {}  # Kendall: each column's row order once, not a sort per pair
        once = method == "kendall" and rows.size >= _SORT_ONCE
        for k in sorted(set(pairs.ravel().tolist())):
            c = cols[k]
            if once and rank_policy is NanPolicy.OMIT and c.missing is None:
                full[k], perm[k] = _dense_order(c.values[rows])
                continue
            m = None if c.missing is None else c.missing[rows]
            r = core_rank(c.values[rows], method="dense", nan_policy=rank_policy, missing=m)
            full[k] = np.where(np.isnan(r), 0, r).astype(np.int64) - 1
            if once:
                perm[k] = np.argsort(full[k], kind="stable")
        jobs = []
        for p, (i, j) in enumerate(pairs.tolist()):
            if not todo[g, p]:
                continue
            member = valid[i][rows] & valid[j][rows]
            m = int(member.sum())
            counts[g, p] = m
            if m < 2:
                continue
            if i == j:  # a column against itself: 1 unless its ranks are all tied
                r = full[i][member]
                values[g, p] = 1.0 if r.min() != r.max() else _NAN
                continue
            jobs.append((p, full[i], full[j], member, m, perm.get(i)))
        for p, v in _run_jobs(_one_ranked, jobs, method, engine):
            values[g, p] = v


def _one_ranked(job: Any, method: Any, engine: Any) -> tuple[int, float]:
    """One pair's Spearman / Kendall from the columns' dense ranks and its rows."""
    p, ki, kj, member, m, perm = job
    if method == "spearman":
        ri = subset_ranks(ki, member).astype(np.float64)
        rj = subset_ranks(kj, member).astype(np.float64)
        t = pair_tables(np.stack([ri, rj]), np.ones((2, m), bool), np.array([[0, 1]]), 0,
                        None, engine)
        return p, _finish("corr", 0, m, *t.ints()[0, 0], shift=t.lbase)
    order = None
    if perm is not None:  # the pair's rows by x, from the column's order: O(n)
        order = (np.cumsum(member) - 1)[perm[member[perm]]]
    sc, tot, xt, yt = kendall_counts(ki[member], kj[member], engine, order=order)
    return p, tau_from(sc, tot, xt, yt)


#: rows from which Kendall sorts each column once (and each pair reuses the order)
_SORT_ONCE = 4096


def _dense_order(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(dense 0-based ranks, row order) of a column from one sort (NumPy's vectorised
    quicksort: the order among equal values does not matter, a pair whose x holds ties
    sorts its own rows): equal numbers (``-0.0`` and ``0.0`` too) share a rank; NaNs
    sort last, each apart (they are never members under "omit")."""
    order = np.argsort(v)
    sv = v[order]
    new = np.empty(sv.size, bool)
    new[:1] = True
    np.not_equal(sv[1:], sv[:-1], out=new[1:])
    dense = np.empty(sv.size, np.int64)
    dense[order] = np.cumsum(new) - 1
    return dense, order


#: pairs of at least this many rows are spread over threads (sorts and the compiled
#: inversion count release the GIL)
_THREAD_ROWS = 50_000


def _run_jobs(fn: Any, jobs: Any, method: Any, engine: Any) -> Any:
    """``fn`` over the jobs: on threads for large pairs on the main thread (never
    nested inside a dask worker's thread), else in turn."""
    import threading

    big = len(jobs) > 1 and min(j[4] for j in jobs) >= _THREAD_ROWS
    if not big or threading.current_thread() is not threading.main_thread():
        return [fn(j, method, engine) for j in jobs]
    import os
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=min(len(jobs), os.cpu_count() or 1)) as ex:
        return list(ex.map(lambda j: fn(j, method, engine), jobs))


#: the column record and the policy's errors of a pair of columns, for the modules
#: that run their own kernels on the same checks (partials, the moving shortcut)
column_of = _column
raise_for_columns = _raise
