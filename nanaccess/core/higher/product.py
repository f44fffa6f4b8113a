"""The correctly rounded product of float64 values per group.

Every finite nonzero value is ``(-1)**s * M * 2**E`` with an odd integer ``M``; the
product is ``(-1)**sum(s) * prod(M) * 2**sum(E)``. ``prod(M)`` is formed by a product
tree (pairs of neighbours within a group, one level at a time, vectorised over all
groups on object arrays of Python ints) whose partial products are truncated to
``P`` bits as an interval ``[lo, hi]`` (floor and ceiling): when both ends round to
the same float64, that float is the correctly rounded product; otherwise ``P`` is
doubled. Odd mantissas make every partial product no longer than the exact one, so
once ``P`` reaches the exact product's length nothing is truncated and ties are
decided exactly. With numba, certified double-double products answer first (the lane kernel of
:mod:`nanaccess.core._numba.products_fused`, then :mod:`nanaccess.core._numba.products`
for segments holding zeros, infinities or subnormals; groups gathered by a counting
sort) and only the groups they cannot certify go to the tree. Zeros, infinities and
signs follow IEEE multiplication (``0 * inf`` is NaN); a product beyond the float64
range is ``+-inf`` and one below it rounds to a subnormal or ``+-0.0``, as correct
rounding does.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from .. import _numba as nb
from ..exactsum.digits import float_terms

__all__ = ["group_products", "row_products"]

_P0 = 128
_MIN_SIZE = 256  # fewer values: the exact tree (no compile for tiny data)


def _to_float(m: int, k: int) -> float:
    """``m * 2**k`` correctly rounded (overflow: inf)."""
    try:
        return float(m << k) if k >= 0 else m / (1 << -k)
    except OverflowError:
        return float("inf")


def _trunc(v: np.ndarray, up: bool, p: int) -> tuple[np.ndarray, np.ndarray]:
    """Truncate each int of ``v`` to ``p`` bits (floor, or ceiling when ``up``): the
    kept ints and the shifts dropped."""
    bl = np.frompyfunc(int.bit_length, 1, 1)(v).astype(np.int64)
    sh = np.maximum(bl - p, 0)
    shifts = np.array([1 << int(s) for s in sh.tolist()], dtype=object)
    if up:
        return -((-v) // shifts), sh
    return v // shifts, sh


def _tree(m: np.ndarray, gid: np.ndarray, ngroups: int, p: int | None) -> Any:
    """Per group ``(lo, hi, shift)`` with ``lo * 2**shift <= prod(m) <= hi * 2**shift``
    (``p`` None: exact). ``gid`` sorted."""
    lo = m.astype(object)
    hi = lo.copy()
    shift = np.zeros(m.size, np.int64)
    g = gid
    while True:
        starts = np.r_[True, g[1:] != g[:-1]]
        rank = np.arange(g.size) - np.maximum.accumulate(np.where(starts, np.arange(g.size), 0))
        first = (rank % 2 == 0)
        nxt_same = np.r_[g[1:] == g[:-1], False]
        pair = first & nxt_same
        if not pair.any():
            break
        i = np.flatnonzero(pair)
        single = first & ~nxt_same
        j = np.flatnonzero(single)
        keep = np.sort(np.r_[i, j])
        plo, phi = lo.copy(), hi.copy()
        plo[i] = lo[i] * lo[i + 1]
        phi[i] = hi[i] * hi[i + 1]
        psh = shift.copy()
        psh[i] = shift[i] + shift[i + 1]
        lo, hi, shift, g = plo[keep], phi[keep], psh[keep], g[keep]
        if p is not None:
            lo, s1 = _trunc(lo, False, p)
            hi, s2 = _trunc(hi, True, p)
            # keep one shift for both ends: widen the end truncated less
            s = np.maximum(s1, s2)
            d1 = s - s1
            d2 = s - s2
            lo = lo // np.array([1 << int(d) for d in d1.tolist()], dtype=object)
            hi = -((-hi) // np.array([1 << int(d) for d in d2.tolist()], dtype=object))
            shift = shift + s
    out_lo = np.ones(ngroups, dtype=object)
    out_hi = np.ones(ngroups, dtype=object)
    out_sh = np.zeros(ngroups, np.int64)
    out_lo[g] = lo
    out_hi[g] = hi
    out_sh[g] = shift
    return out_lo, out_hi, out_sh


def group_products(vals: np.ndarray, gid: np.ndarray, ngroups: int) -> np.ndarray:
    """Correctly rounded product of float64 ``vals`` per group (``gid`` in
    ``[0, ngroups)``; an empty group gives 1.0). NaN-free input.

    Examples
    --------
    >>> import numpy as np
    >>> group_products(np.array([0.1, 0.2, 3.0, -2.0]), np.array([0, 0, 0, 1]), 2)
    array([ 0.06, -2.  ])
    """
    vals = np.asarray(vals, np.float64)
    gid = np.asarray(gid, np.int64)
    got = _compiled(vals, gid, ngroups)
    if got is not None:
        res, flagged = got
        if flagged.any():  # not certified: the exact tree decides those groups
            redo = np.flatnonzero(flagged)
            sel = np.isin(gid, redo)
            res[redo] = _exact_products(vals[sel], np.searchsorted(redo, gid[sel]), redo.size)
        return cast("np.ndarray", res)
    return _exact_products(vals, gid, ngroups)


def row_products(rows: np.ndarray, keep: np.ndarray | None = None) -> np.ndarray:
    """Correctly rounded product of each row of the float64 ``(cells, n)`` ``rows``
    (NaN-free where ``keep``, the values taken, None: all): the segments are the rows,
    no group codes built.

    Examples
    --------
    >>> row_products(np.array([[0.1, 0.2], [3.0, -2.0]]))
    array([ 0.02, -6.  ])
    """
    ncells, n = rows.shape
    got = None
    if nb.choose_engine(size=rows.size, min_size=_MIN_SIZE) == "numba":
        v = np.ascontiguousarray(rows, np.float64).reshape(-1)
        k = np.ones(v.size, bool) if keep is None else \
            np.ascontiguousarray(keep, bool).reshape(-1)
        got = _segments(v, np.arange(ncells + 1, dtype=np.int64) * n, ncells, k)
    if got is None:
        if keep is not None:  # a value left out multiplies by 1
            rows = np.where(keep, rows, 1.0)
        return group_products(rows.reshape(-1), np.repeat(np.arange(ncells, dtype=np.int64),
                                                           n), ncells)
    res, flagged = got
    if flagged.any():  # not certified: the exact tree decides those rows
        redo = np.flatnonzero(flagged)
        sub = rows[redo] if keep is None else np.where(keep[redo], rows[redo], 1.0)
        res[redo] = _exact_products(sub.reshape(-1), np.repeat(
            np.arange(redo.size, dtype=np.int64), n), redo.size)
    return cast("np.ndarray", res)


def _compiled(vals: np.ndarray, gid: np.ndarray, ngroups: int) -> Any:
    """``(products, flagged)`` by the certified compiled kernels, or None (NumPy)."""
    if nb.choose_engine(size=vals.size, min_size=_MIN_SIZE) != "numba":
        return None
    if gid.size < 2 or bool((gid[1:] >= gid[:-1]).all()):  # rows: already in order
        v, starts = np.ascontiguousarray(vals), np.searchsorted(gid, np.arange(ngroups + 1))
    else:  # a counting sort by group (no argsort)
        try:
            v, starts = nb.kernels("central_fused")["bucket"](
                np.ascontiguousarray(vals, np.float64), np.ascontiguousarray(gid, np.int64),
                ngroups,
            )
        except Exception as err:  # numba failed: the NumPy engine, from now on
            nb.fallback(err)
            return None
    return _segments(v, starts, ngroups)


def _segments(v: np.ndarray, starts: np.ndarray, ngroups: int,
              keep: np.ndarray | None = None) -> Any:
    """``(products, flagged)`` of the segments ``v[starts[s]:starts[s+1]]`` (the values
    ``keep`` marks), or None (no compiled engine): the lane kernel first
    (:mod:`.._numba.products_fused`), the segments it leaves open (special factors,
    uncertain roundings) by :mod:`.._numba.products`."""
    out = np.empty(ngroups, np.float64)
    flags = np.zeros(ngroups, np.int64)
    k = np.ones(v.size, bool) if keep is None else keep
    starts = np.ascontiguousarray(starts, np.int64)
    try:
        nb.kernels("products_fused")["products"](v.view(np.uint64), k, starts, out, flags)
        if flags.any():
            redo = np.flatnonzero(flags)
            lens = starts[redo + 1] - starts[redo]
            sub = np.zeros(redo.size + 1, np.int64)
            np.cumsum(lens, out=sub[1:])
            # the values of the open segments, gathered (ranges built without a loop)
            idx = np.repeat(starts[redo] - sub[:-1], lens) + np.arange(sub[-1])
            o2 = np.empty(redo.size, np.float64)
            f2 = np.zeros(redo.size, np.int64)
            nb.kernels("products")["products"](
                np.ascontiguousarray(v[idx]).view(np.uint64), k[idx], sub, o2, f2
            )
            out[redo] = o2
            flags[redo] = f2
    except Exception as err:  # numba failed: the NumPy engine, from now on
        nb.fallback(err)
        return None
    return out, flags != 0


def _exact_products(vals: np.ndarray, gid: np.ndarray, ngroups: int) -> np.ndarray:
    """The exact product tree (the reference engine)."""
    neg = np.zeros(ngroups, np.int64)
    np.add.at(neg, gid, np.signbit(vals).astype(np.int64))
    zero = np.zeros(ngroups, bool)
    inf = np.zeros(ngroups, bool)
    zero[gid[vals == 0]] = True
    inf[gid[np.isinf(vals)]] = True
    fin = np.isfinite(vals) & (vals != 0)
    m, e = float_terms(vals[fin])
    g = gid[fin]
    m = np.abs(m)
    tz = np.zeros(m.size, np.int64)  # strip trailing zeros: odd mantissas
    low = m & -m
    tz = np.frexp(low.astype(np.float64))[1].astype(np.int64) - 1
    m = m >> tz
    esum = np.zeros(ngroups, np.int64)
    np.add.at(esum, g, e + tz)
    order = np.argsort(g, kind="stable")
    m, g = m[order], g[order]
    res = np.empty(ngroups, np.float64)
    todo = np.arange(ngroups)
    p: int | None = _P0
    while todo.size:
        sel = np.isin(g, todo)
        lo, hi, sh = _tree(m[sel], g[sel], ngroups, p)
        left = []
        for k in todo.tolist():
            a = _to_float(int(lo[k]), int(sh[k] + esum[k]))
            b = _to_float(int(hi[k]), int(sh[k] + esum[k]))
            if a == b or p is None:
                res[k] = a
            else:
                left.append(k)
        todo = np.array(left, np.int64)
        p = None if p is None or p >= 1 << 16 else 4 * p
    res = np.where(zero, 0.0, res)
    res = np.where(inf, np.inf, res)
    res = np.where(neg % 2 == 1, -res, res)
    return np.where(zero & inf, np.nan, res)  # 0 * inf: the canonical NaN
