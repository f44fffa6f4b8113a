"""Correctly rounded prefix sums: every ``cumsum`` position is its exact sum rounded once.

*Reference (NumPy).* Each value ``m * 2**e`` is cut into three base ``2**26`` limbs at
digit positions relative to the segment's smallest exponent; the limbs form a dense
``(digits, values)`` matrix whose running sum along the values (``np.cumsum``, exact
in int64) holds every prefix's exact sum as unnormalised digits; the carries run over
digit positions (vectorised over prefixes) and each prefix is rounded half-even by
the digit engine of :mod:`nanaccess.core.exactsum.digits`. Blocks of columns carry the
running digits, so memory stays bounded.

*Compiled (numba).* :mod:`nanaccess.core._numba.cumulative` carries a triple-double
running sum with a proven error bound and certifies each prefix (both ends of the
bound round to one double); a segment with a prefix it cannot certify is summed by
the reference.

The values arrive finite (the caller zeroes what it skips and counts infinities
apart); the sign of a zero prefix is the caller's business too.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _numba as nb
from ..exactsum.digits import W, float_terms, normalize, round_digits

__all__ = ["exact_prefix", "prefix_sums", "signaling_args", "skipnan_extreme", "skipnan_prefix"]

_MASK = (1 << W) - 1
_BLOCK = 1 << 15
_MIN_SIZE = 64


def exact_prefix(v: np.ndarray, starts: np.ndarray | None = None) -> np.ndarray:
    """Correctly rounded prefix sums of finite float64 ``v`` (1-D), the reference;
    with ``starts``, restarting at each segment start (one pass for every segment: a
    segment's prefix is the running digits less those before its start, exactly).

    Examples
    --------
    >>> exact_prefix(np.array([0.1] * 10))[-1]
    np.float64(1.0)
    >>> float(exact_prefix(np.array([1e100, 1.0, -1e100]))[-1])
    1.0
    """
    v = np.ascontiguousarray(v, dtype=np.float64)
    n = v.size
    out = np.zeros(n, np.float64)
    if n == 0:
        return out
    m, e = float_terms(v)
    live = m != 0
    if not live.any():
        return out
    base = int(e[live].min())
    rel = np.where(live, e - base, 0)
    pos = rel // W
    r = rel - pos * W
    a = np.abs(m)
    sign = np.where(m < 0, -1, 1)
    lo_bits = W - r
    limbs = [((a & ((np.int64(1) << lo_bits) - 1)) << r) * sign]
    rest = a >> lo_bits
    limbs.append((rest & _MASK) * sign)
    limbs.append((rest >> W) * sign)
    head = -(-(n.bit_length() + 2) // W) + 1
    P = int(pos.max()) + 3 + head
    carry = np.zeros(P, np.int64)
    seg_base = np.zeros(P, np.int64)  # running digits before the current segment
    first = np.zeros(n, bool)
    if starts is not None:
        first[np.asarray(starts[:-1])[np.asarray(starts[:-1]) < n]] = True
    for c0 in range(0, n, _BLOCK):
        c1 = min(n, c0 + _BLOCK)
        w = c1 - c0
        d = np.zeros((P, w), np.int64)
        cols = np.arange(w)
        for j, limb in enumerate(limbs):
            d[pos[c0:c1] + j, cols] += limb[c0:c1]
        np.cumsum(d, axis=1, out=d)
        d += carry[:, None]
        prev = np.concatenate([carry[:, None], d[:, :-1]], axis=1)
        carry = d[:, -1].copy()
        if starts is not None:
            f = first[c0:c1]
            seg = np.cumsum(f)  # 0: the segment running in from the last block
            bases = np.concatenate([seg_base[:, None], prev[:, f]], axis=1)
            d -= bases[:, seg]
            seg_base = bases[:, -1].copy()
        neg = normalize(d)
        out[c0:c1] = round_digits(d, np.full(w, base, np.int64), neg)
    return out


def prefix_sums(v: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Correctly rounded prefix sums restarting at each segment ``[starts[s],
    starts[s+1])`` of finite float64 ``v``: the compiled certified kernel where numba
    serves, the reference for the segments it cannot certify (and without numba)."""
    v = np.ascontiguousarray(v, dtype=np.float64)
    out = None
    if v.size >= _MIN_SIZE and nb.choose_engine(size=v.size, min_size=_MIN_SIZE) == "numba":
        try:
            out = np.empty(v.size, np.float64)
            bad = np.zeros(starts.size - 1, np.int64)
            nb.kernels("cumulative")["prefix"](v, np.asarray(starts, np.int64), out, bad,
                                               False, *signaling_args(v, None))
        except Exception as err:  # numba failed: the NumPy engine, from now on
            nb.fallback(err)
            out = None
    if out is None:
        out = np.empty(v.size, np.float64)
        bad = np.ones(starts.size - 1, np.int64)
    redo = np.flatnonzero(bad)
    if redo.size == bad.size:
        return exact_prefix(v, starts)
    for s in redo.tolist():  # the rare segments the kernel could not certify
        out[starts[s]:starts[s + 1]] = exact_prefix(v[starts[s]:starts[s + 1]])
    return out


def signaling_args(v: np.ndarray, sig: np.ndarray | None) -> tuple[Any, ...]:
    """The kernels' signaling-NaN arguments: ``v`` as ints, its quiet bit, the flag."""
    lay = {2: (np.int16, 9), 4: (np.int32, 22), 8: (np.int64, 51)}[v.dtype.itemsize]
    return (v.view(lay[0]), 1 << lay[1], np.zeros(1, np.int64) if sig is None else sig)


def skipnan_prefix(rows: np.ndarray, sig: np.ndarray | None = None) -> np.ndarray | None:
    """Prefix sums of float64 rows skipping NaNs (each keeps its place and bits), in one
    compiled pass; None when numba does not serve or a row needs more (an infinity, a
    sum the triple-double cannot hold exactly): the general path decides. ``sig`` (one
    int64): set to 1 when a signaling NaN was passed over (the caller raises)."""
    if rows.size < _MIN_SIZE or nb.choose_engine(size=rows.size, min_size=_MIN_SIZE) != "numba":
        return None
    r, n = rows.shape
    v = np.ascontiguousarray(rows, dtype=np.float64).reshape(-1)
    out = np.empty(v.size, np.float64)
    bad = np.zeros(r, np.int64)
    try:
        nb.kernels("cumulative")["prefix"](v, np.arange(r + 1, dtype=np.int64) * n, out, bad,
                                           True, *signaling_args(v, sig))
    except Exception as err:  # numba failed: the NumPy engine, from now on
        nb.fallback(err)
        return None
    return None if bad.any() else out.reshape(r, n)


def skipnan_extreme(rows: np.ndarray, stat: str,
                    sig: np.ndarray | None = None) -> np.ndarray | None:
    """Running max / min of float rows skipping NaNs (each keeps its place and bits;
    ``-0.0 < +0.0``), in one compiled pass; None when numba does not serve. ``sig``:
    as :func:`skipnan_prefix`'s."""
    if rows.size < _MIN_SIZE or nb.choose_engine(size=rows.size, min_size=_MIN_SIZE) != "numba":
        return None
    r, n = rows.shape
    v = np.ascontiguousarray(rows).reshape(-1)
    out = np.empty_like(v)
    try:
        nb.kernels("cumulative")["extreme"](v, np.arange(r + 1, dtype=np.int64) * n, out,
                                            stat == "cummax", *signaling_args(v, sig))
    except Exception as err:  # numba failed: the NumPy engine, from now on
        nb.fallback(err)
        return None
    return out.reshape(r, n)
