"""The grouped sort engine: order statistics of every group (one sort, no group loop).

Each column's values become integer keys (:mod:`nanaccess.core.keys`; remapped for
"smallest"/"largest"). The NumPy engine drops the rows that do not take part (code
-1, missing, and NaNs under "omit"/"propagate"), then orders the keys by (group code,
key) with one sort and gathers the wanted ranks at ``group start + rank``:

* when the key range and the code range fit in 63 bits together (all 8/16/32-bit
  data, ints and datetimes of moderate range, floats of one sign and a narrow range),
  one ``np.sort`` of a composite ``code << b | (key - min)`` (no index array);
* otherwise one ``np.argsort`` of the keys, then a stable counting (radix, 16 bits a
  pass) sort of the codes.

The numba engine (:mod:`nanaccess.core._numba.grouped`; chosen by
:func:`nanaccess.core._numba.choose_engine`, under "auto" for columns of at least
:data:`NUMBA_MIN_ROWS` rows) selects the same keys without filtering or sorting, so
both engines give the same bits. Under "omit" and "totalorder" it also skips the
separate NaN scan: its counting pass sorts the NaNs out itself and, under "omit",
counts the signaling ones (if any, the scan runs and raises).

Keys are inverted back to values, so picked results keep their exact bits; the ranks
and their combination come from :mod:`nanaccess.core.plan`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ... import _stats
from ...options import NanPolicy
from .. import _numba
from ..bits import layout_of
from ..keys import number_keys, remap_keys
from ..plan import combine, rank_plan
from ..policy import RULES, finish
from .common import (
    Rescan,
    greatest_nan,
    group_counts,
    keys_of,
    radix_argsort_codes,
    values_of_keys,
)

if TYPE_CHECKING:
    from .._numba.grouped import NumbaSelect

__all__ = ["order_column", "NUMBA_MIN_ROWS", "defer_scan"]

#: rows below which "auto" keeps the NumPy engine (as fast there, and needs no JIT)
NUMBA_MIN_ROWS = 50_000


def _engine(engine: str | None, n: int) -> str:
    return _numba.choose_engine(engine, size=n, min_size=NUMBA_MIN_ROWS)


def defer_scan(x2: np.ndarray, stat_is_order: bool, miss2: Any, policy: NanPolicy,
               engine: str | None) -> bool:
    """Whether the numba kernel finds the NaNs itself ("omit"/"totalorder" order
    statistics of float data without missing values), so the scan is deferred."""
    r = RULES[policy]  # NaNs dropped by key range ("omit") or ordinary keys ("totalorder")
    return (stat_is_order and x2.dtype.kind == "f" and miss2 is None
            and (r.removes or r.signaling_allowed)
            and _engine(engine, x2.shape[0]) == "numba")


def _numba_prepare(col: Any, miss: Any, codes: Any, ngroups: Any, policy: Any, scanned: Any,
                   extremes: Any = False) -> NumbaSelect:
    """The numba engine's first phase for one column (see
    :class:`~nanaccess.core._numba.grouped.NumbaSelect`).

    ``scanned`` False: the NaN scan was skipped, so under "omit" the signaling NaNs
    are counted here (under "totalorder" they are ordinary keys).
    """
    dt = col.dtype
    remap = dt.kind == "f" and RULES[policy].nan_rank in ("first", "last")
    if dt.kind == "f" and not remap and dt.isnative:
        bits, flip = col.view(layout_of(dt).int_dtype), True  # keys made on the fly
    else:
        bits, flip = keys_of(col), False
        if remap:
            remap_keys(bits, dt, policy)
    info = np.iinfo(bits.dtype)
    klo, khi = info.min, info.max
    slo, shi = klo, khi
    if dt.kind == "f" and RULES[policy].nan_rank is None:  # NaNs take no rank
        lay = layout_of(dt)
        klo, khi = number_keys(lay)  # every NaN is outside
        if not scanned:  # signaling NaN keys sit next to the infinities
            slo, shi = klo - lay.payload_mask, khi + lay.payload_mask
    if miss is not None:  # rare: drop the missing rows with one copy
        keep = ~miss
        bits, codes = bits[keep], codes[keep]
    nbg = _numba.module("grouped")
    select: NumbaSelect = nbg.NumbaSelect(
        bits, flip, codes, ngroups, klo, khi, slo, shi,
        _numba.parallel_ok(bits.shape[0], nbg.PARALLEL_MIN_ROWS), extremes=extremes)
    return select


def _numpy_rows(col: Any, nan: Any, miss: Any, codes: Any, policy: Any) -> Any:
    """The keys and codes of the rows that take part (the NumPy engine's input)."""
    keys = keys_of(col)
    if col.dtype.kind == "f" and RULES[policy].nan_rank in ("first", "last"):
        remap_keys(keys, col.dtype, policy)
    drop_nan = RULES[policy].nan_rank is None  # NaNs take no rank
    if miss is None and (nan is None or not drop_nan) and (codes.size == 0 or codes.min() >= 0):
        return keys, codes  # every row takes part: no copies
    include = codes >= 0
    if miss is not None:
        include &= ~miss
    if nan is not None and drop_nan:
        include &= ~nan
    return keys[include], codes[include]


def order_column(col: Any, nan: Any, miss: Any, codes: Any, ngroups: Any, stat: Any, q_arr: Any,
                 method: Any, policy: Any, engine: Any,
                 scanned: Any = True) -> Any:
    """One column's order statistic: ``(values (nq, ngroups), missing, holes)``
    (``holes``: see :func:`_tails`).

    ``scanned`` False: the NaN scan was deferred (``nan`` is None whatever the data),
    which only the numba engine handles; it raises :class:`Rescan` when the scan must
    run after all.
    """
    dt = col.dtype
    nb = None
    sorting = RULES[policy].missing_last
    # a min / max (no missing values ranked last): the counting pass keeps the extremes
    extremes = stat in _stats.EXTREMES and not (sorting and miss is not None)
    if _engine(engine, col.size) == "numba":
        try:
            nb = _numba_prepare(col, miss, codes, ngroups, policy, scanned, extremes)
        except Exception as exc:  # a broken numba install
            _numba.fallback(exc, engine)
    if not scanned and (nb is None or nb.signaling):
        raise Rescan
    if nb is not None:
        m = nb.counts
    else:
        kk, cc = _numpy_rows(col, nan, miss, codes, policy)
        m = np.bincount(cc, minlength=ngroups).astype(np.int64)
    nmiss = group_counts(codes, miss, ngroups)
    N = m + nmiss if sorting else m
    plan = rank_plan(stat, N, q_arr, method)
    lo, hi = plan.lo, plan.hi
    nq = lo.shape[0]
    empty = np.broadcast_to(N == 0, lo.shape)
    if sorting:
        # the rank falls among the missing (sorted last)
        res_miss = plan.reaches(m) & ~empty
    else:  # N == m: every rank of a group with values is a value's
        res_miss = np.zeros(lo.shape, bool)
    want = np.empty((ngroups, 2 * nq), np.int64)  # (ngroups, 2 nq), -1: no such rank
    want[:, :nq] = lo.T
    want[:, nq:] = hi.T
    if nb is None or sorting:  # (the numba kernel skips ranks >= count itself)
        np.putmask(want, want >= m[:, None], -1)
    got = None
    if nb is not None and nb.lo is not None:  # the extremes were kept: no selection
        got = np.repeat(nb.extreme(stat in _stats.RANK_MAX)[:, None], 2 * nq, axis=1)
    elif nb is not None:
        try:
            got = nb(want)
        except Exception as exc:  # a broken numba install: NumPy from here on
            _numba.fallback(exc, engine)
            if not scanned:
                raise Rescan from exc
            nb = None
            np.putmask(want, want >= m[:, None], -1)
            kk, cc = _numpy_rows(col, nan, miss, codes, policy)
    if got is None:
        if stat in _stats.EXTREMES and not sorting:
            got = np.repeat(_minmax_keys(kk, cc, ngroups, stat)[:, None], 2 * nq, axis=1)
        else:
            got = _select_numpy(kk, cc, m, want)
    ka, kb = got[:, :nq].T, got[:, nq:].T
    if nb is not None and nb.flip:  # the kernel returned the float bits
        a, b = ka.view(dt), kb.view(dt)
    else:
        a = values_of_keys(ka, dt, policy)
        b = values_of_keys(kb, dt, policy)
    vals = combine(plan, a, b)
    return _tails(vals, res_miss, empty, col, nan, codes, nmiss, ngroups, policy)


def _tails(vals: Any, res_miss: Any, empty: Any, col: Any, nan: Any, codes: Any, nmiss: Any,
           ngroups: Any, policy: Any) -> Any:
    """Empty groups and ranks among the missing get the empty fill; under "propagate"
    a group's greatest NaN, else its missing. ``(values, missing, holes)``: int and
    bool picks keep their dtype, and ``holes`` (None for float and time results, which
    hold their NaN / NaT) marks their results with no value, which hold 0."""
    has_nan = best = has_miss = None
    if RULES[policy].propagates:
        has_nan, best = greatest_nan(col, nan, codes, ngroups)
        has_miss = nmiss > 0
    flags = res_miss | empty
    keep = vals.dtype.kind not in "fmM"  # no NaN to fill with: the holes say where
    vals, pmiss = finish(vals, "median", empty=None if keep else flags,
                         nan_rows=None if has_nan is None else has_nan[None], nan_values=best,
                         missing_rows=None if has_miss is None else has_miss[None])
    miss = res_miss if pmiss is None else (res_miss | pmiss)
    if not keep:
        return vals, miss, None
    holes = flags | miss
    vals[holes] = 0
    return vals, miss, holes


def _minmax_keys(kk: Any, cc: Any, ngroups: Any, stat: Any) -> Any:
    info = np.iinfo(kk.dtype)
    if stat in _stats.RANK_MIN:
        out = np.full(ngroups, info.max, kk.dtype)
        np.minimum.at(out, cc, kk)
    else:
        out = np.full(ngroups, info.min, kk.dtype)
        np.maximum.at(out, cc, kk)
    return out


def _sorted_by_group(kk: np.ndarray, cc: np.ndarray, ngroups: int) -> np.ndarray:
    """The keys ordered by (code, key): one composite sort or argsort + radix on codes."""
    if kk.size == 0:
        return kk.copy()
    kmin = int(kk.min())
    span = int(kk.max()) - kmin
    bits = max(span.bit_length(), 1)
    cbits = max(ngroups - 1, 0).bit_length()
    if bits + cbits <= 63:
        comp = kk.astype(np.int64)
        comp -= np.int64(kmin) if kmin >= -(1 << 63) else comp.dtype.type(kmin)
        if cbits:
            comp |= cc.astype(np.int64) << np.int64(bits)
        comp.sort()
        if cbits:
            comp &= np.int64((1 << bits) - 1)
        comp += np.int64(kmin)
        return comp.astype(kk.dtype)
    got = _sorted_by_prefix(kk, cc, kmin, bits, cbits)
    if got is not None:
        return got
    perm = np.argsort(kk)
    return cast("np.ndarray", kk[perm[radix_argsort_codes(cc[perm], ngroups)]])


#: fewest key bits the prefix sort keeps (below, distinct keys would share a prefix often)
_PREFIX_MIN_BITS = 24


def _sorted_by_prefix(kk: np.ndarray, cc: np.ndarray, kmin: int, bits: int, cbits: int
                      ) -> np.ndarray | None:
    """The keys ordered by (code, key) when key and code do not fit one int64 (float
    keys span 64 bits): one sort of (code, the key's leading bits, row) packed in an
    int64 (NumPy's integer sort: a third of an argsort's cost) gives the rows' order;
    None when two distinct keys of a group share their leading bits (the order is then
    checked wrong: the caller's argsort decides) or too few key bits fit."""
    n = kk.size
    ibits = max(n - 1, 1).bit_length()
    kbits = 63 - cbits - ibits
    if kbits < _PREFIX_MIN_BITS:
        return None
    u64 = np.uint64
    rel = kk.astype(np.int64).view(u64) - u64(kmin % (1 << 64))  # key - kmin, exact
    comp = rel >> u64(bits - kbits)  # bits > kbits here: the leading kbits bits
    comp <<= u64(ibits)
    comp |= np.arange(n, dtype=u64)
    if cbits:
        comp |= cc.astype(u64) << u64(kbits + ibits)
    comp.sort()
    sk = kk[(comp & u64((1 << ibits) - 1)).astype(np.intp)]
    if cbits:
        same = (comp[1:] >> u64(kbits + ibits)) == (comp[:-1] >> u64(kbits + ibits))
        bad = (sk[1:] < sk[:-1]) & same
    else:
        bad = sk[1:] < sk[:-1]
    return None if bad.any() else sk


def _select_numpy(kk: Any, cc: Any, counts: Any, ranks: Any) -> Any:
    """Keys at ``ranks`` ((ngroups, r), -1 = unused) of each group's sorted keys."""
    ngroups = counts.size
    sk = _sorted_by_group(kk, cc, ngroups)
    starts = np.cumsum(counts) - counts
    valid = ranks >= 0
    idx = np.where(valid, starts[:, None] + ranks, 0)
    if sk.size == 0:
        return np.zeros(ranks.shape, kk.dtype)
    return np.where(valid, sk[np.minimum(idx, sk.size - 1)], kk.dtype.type(0))
