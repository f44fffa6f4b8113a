"""Exact power sums ``T_k = sum(x**k) * 2**(1074*k)`` (Python ints) per row or group.

Every finite float64 is ``X * 2**-1074`` with an integer ``X``, so ``x**k`` is an
integer multiple of ``2**(-1074*k)`` and the power sums are integers in those units.
They are computed without rounding in two ways, both feeding terms ``mant * 2**exp``
to the digit engine of :mod:`nanaccess.core.exactsum.digits` (``np.bincount`` on
base ``2**26`` limbs, no loop per element, row or group):

*Float terms (the usual case).* When every nonzero ``|x|`` of the data lies in
``[2**-200, 2**250]``, Dekker's TwoProduct (Veltkamp splitting) writes ``x**2`` as 2,
``x**3`` as 4 and ``x**4`` as 6 doubles whose sum is exact: no product underflows
below ``2**-1074`` nor overflows in that range.

*Limb terms (any range).* The 53-bit mantissa is cut into five 13-bit limbs; the
powers of the limb polynomial have coefficients below ``2**60``, each an exact term.

With numba, :mod:`nanaccess.core._numba.powers` accumulates the same float terms into
the exponent-indexed tables of the exact sums (rows and groups in one pass; a segment
holding a value outside the float-term range goes to the digit engine); the NumPy
engine stays the reference (the tests compare both with Fraction sums).
"""

from __future__ import annotations

from typing import cast

import numpy as np

from .. import _numba as nb
from ..exactsum.compiled import _ints
from ..exactsum.digits import W, float_terms, normalize

__all__ = ["power_sums", "power_terms", "SCALE", "float_terms_ok"]

SCALE = 1074
_SPLIT = 134217729.0  # 2**27 + 1: Veltkamp's splitter for float64
_LO, _HI = 2.0 ** -200, 2.0 ** 250
_LIMB = 13
_NLIMB = 5
_BIN_CHUNK = 1 << 26
_MIN_SIZE = 256  # fewer values: the NumPy engine (no compile for tiny data)


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c = _SPLIT * a
    hi = c - (c - a)
    return hi, a - hi


def _two_product(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``a * b = p + e`` exactly (Dekker), barring underflow/overflow."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, e


def float_terms_ok(v: np.ndarray) -> bool:
    """Every nonzero finite ``|v|`` lies where the float terms are exact."""
    a = np.abs(v)
    nz = a[a != 0]
    return bool(nz.size == 0 or (nz.min() >= _LO and nz.max() <= _HI))


def float_power_terms(v: np.ndarray, k: int) -> np.ndarray:
    """Doubles whose exact sum is ``v**k`` (k = 1..4), stacked on a new last axis."""
    if k == 1:
        return v[..., None]
    p2, e2 = _two_product(v, v)
    if k == 2:
        return np.stack([p2, e2], axis=-1)
    if k == 3:
        a, b = _two_product(v, p2)
        c, d = _two_product(v, e2)
        return np.stack([a, b, c, d], axis=-1)
    a, b = _two_product(p2, p2)
    c, d = _two_product(p2, e2)
    f, g = _two_product(e2, e2)
    return np.stack([a, b, 2.0 * c, 2.0 * d, f, g], axis=-1)


def _limbs(m: np.ndarray) -> np.ndarray:
    """|mantissa| < 2**53 -> five 13-bit limbs on a new last axis (low first)."""
    return np.stack([(m >> (_LIMB * j)) & ((1 << _LIMB) - 1) for j in range(_NLIMB)], axis=-1)


def _poly_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    out = np.zeros(a.shape[:-1] + (a.shape[-1] + b.shape[-1] - 1,), np.int64)
    for j in range(b.shape[-1]):
        out[..., j:j + a.shape[-1]] += a * b[..., j:j + 1]
    return out


def limb_power_terms(v: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Exact terms ``(mant, exp)`` of ``v**k`` for any finite float64 ``v`` (last axis:
    the terms of one value; every mant below ``2**60``)."""
    m, e = float_terms(v)
    sign = np.sign(m) if k % 2 else np.ones_like(m)
    limbs = _limbs(np.abs(m))
    p = limbs
    for _ in range(k - 1):
        p = _poly_mul(p, limbs)
    slots = np.arange(p.shape[-1], dtype=np.int64) * _LIMB
    return p * sign[..., None], k * e[..., None] + slots


def _group_ints(mant: np.ndarray, exp: np.ndarray, gid: np.ndarray, ngroups: int,
                mbits: int, scale: int) -> np.ndarray:
    """Exact ``sum(mant * 2**exp) * 2**scale`` per group as Python ints (object array).

    ``mant``, ``exp``, ``gid`` are 1-D of one length; ``exp + scale >= 0`` wherever
    ``mant != 0``. Limbs are bincounted per (digit, group) as the row engine does, the
    carries run over digit positions (vectorised over groups), and the ints are built
    by Horner's rule over digit positions on an object array.
    """
    out = np.zeros(ngroups, dtype=object)
    live = mant != 0
    if not live.any():
        return out
    mant, exp, gid = mant[live], exp[live], gid[live]
    base = np.full(ngroups, np.iinfo(np.int64).max, np.int64)
    np.minimum.at(base, gid, exp)
    base = np.where(base == np.iinfo(np.int64).max, 0, base)
    rel = exp - base[gid]
    pos = rel // W
    r = rel - pos * W
    nl = -(-(mbits + W - 1) // W)
    n = mant.size
    head = -(-(min(n, _BIN_CHUNK).bit_length() + (n // _BIN_CHUNK + 1).bit_length() + 2) // W)
    P = int(pos.max()) + nl + head + 1
    dig = np.zeros(P * ngroups, np.int64)
    for c0 in range(0, n, _BIN_CHUNK):
        sl = slice(c0, min(n, c0 + _BIN_CHUNK))
        a = np.abs(mant[sl])
        neg = mant[sl] < 0
        rc = r[sl]
        idx = pos[sl] * ngroups + gid[sl]
        lo = W - rc
        limb = (a & ((np.int64(1) << lo) - 1)) << rc
        rest = a >> lo
        for j in range(nl):
            if j:
                limb = rest & ((1 << W) - 1)
                rest = rest >> W
                idx = idx + ngroups
            w = np.where(neg, -limb, limb).astype(np.float64)
            dig += np.bincount(idx, weights=w, minlength=P * ngroups).astype(np.int64)
    dig = dig.reshape(P, ngroups)
    negs = normalize(dig)
    top = np.flatnonzero(dig.any(axis=1))
    v = np.zeros(ngroups, dtype=object)
    for j in range(int(top.max()), -1, -1) if top.size else ():
        v = v * (1 << W) + dig[j].astype(object)
    shift = base + scale
    if (shift < 0).any():  # pragma: no cover - every term is a multiple of 2**-scale
        raise AssertionError("internal error: power sum below the fixed scale")
    v = v * np.array([1 << int(s) for s in shift.tolist()], dtype=object)
    return cast("np.ndarray", np.where(negs, -v, v))


def power_terms(vals: np.ndarray, gid: np.ndarray, k: int,
                float_ok: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Flat exact terms of ``vals**k``: ``(mant, exp, gid, mant bits)``."""
    if float_ok:
        t = float_power_terms(vals, k)
        m, e = float_terms(t.reshape(-1))
        return m, e, np.repeat(gid, t.shape[-1]), 53
    m, e = limb_power_terms(vals, k)
    return m.reshape(-1), e.reshape(-1), np.repeat(gid, m.shape[-1]), 60


def compiled_power_sums(vals: np.ndarray, starts: np.ndarray,
                        kmax: int) -> tuple[list[np.ndarray], np.ndarray] | None:
    """``([T_1..T_kmax], flagged)`` of the segments ``vals[starts[s]:starts[s+1]]`` by
    the compiled kernel (:mod:`nanaccess.core._numba.powers`); ``flagged`` segments hold
    a value outside its exact range (their sums are not computed). None: no numba."""
    if not vals.size or nb.choose_engine(size=vals.size, min_size=_MIN_SIZE) != "numba":
        return None
    from .._numba.exact import ND

    nseg = starts.size - 1
    try:
        kern = nb.kernels("powers")["segments"]
        v = np.ascontiguousarray(vals, dtype=np.float64)
        out = np.zeros((nseg, kmax, ND + 2), np.int64)
        sneg = np.zeros((nseg, kmax), np.bool_)
        flags = np.zeros(nseg, np.int64)
        tabs = np.zeros((kmax, 4096 * 8), np.uint64)
        digs = np.zeros((kmax, ND + 2), np.int64)
        rngs = np.tile(np.array([ND, -1], np.int64), (kmax, 1))
        kern(v, v.view(np.uint64), np.ascontiguousarray(starts, np.int64), kmax, out, sneg,
             flags, tabs, digs, rngs)
    except Exception as err:  # numba failed: the NumPy engine, from now on
        nb.fallback(err)
        return None
    t = []
    for k in range(kmax):
        col = np.empty(nseg, dtype=object)
        col[:] = _ints(out[:, k, :], sneg[:, k], k * SCALE)
        t.append(col)
    return t, flags != 0


def power_sums(vals: np.ndarray, gid: np.ndarray | None, ngroups: int, kmax: int,
               *, rows: np.ndarray | None = None) -> list[np.ndarray]:
    """``[T_1, ..., T_kmax]``: exact power sums per group, ``T_k = sum(x**k) * 2**(1074 k)``.

    Parameters
    ----------
    vals : ndarray of float64
        Finite values (1-D, with ``gid``), or ``None`` when ``rows`` is given.
    gid : ndarray of int64 or None
        Group of each value, in ``[0, ngroups)``.
    rows : ndarray of float64, optional
        ``(ngroups, n)`` finite rows instead (zeros for excluded values: they add
        nothing to a power sum); the compiled kernel may take them.

    Examples
    --------
    >>> import numpy as np
    >>> t = power_sums(np.array([0.5, 1.0, 2.0]), np.zeros(3, np.int64), 1, 2)
    >>> [int(v[0]) / 2 ** (1074 * k) for k, v in enumerate(t, 1)]
    [3.5, 5.25]
    """
    gid = cast("np.ndarray", gid)  # None only with ``rows``, which set it here
    if rows is not None:
        n = rows.shape[1]
        ngroups = rows.shape[0]
        vals = rows.reshape(-1)
        gid = np.repeat(np.arange(ngroups, dtype=np.int64), n)
        got = compiled_power_sums(vals, np.arange(ngroups + 1) * n, kmax)
    elif gid.size < 2 or bool((gid[1:] >= gid[:-1]).all()):
        got = compiled_power_sums(vals, np.searchsorted(gid, np.arange(ngroups + 1)), kmax)
    else:
        order = np.argsort(gid, kind="stable")
        starts = np.searchsorted(gid[order], np.arange(ngroups + 1))
        got = compiled_power_sums(vals[order], starts, kmax)
    if got is not None:
        t, flagged = got
        if flagged.any():  # values beyond the kernel's exact range: the digit engine
            redo = np.flatnonzero(flagged)
            sel = np.isin(gid, redo)
            sub = _numpy_sums(vals[sel], np.searchsorted(redo, gid[sel]), redo.size, kmax)
            for k in range(kmax):
                t[k][redo] = sub[k]
        return t
    return _numpy_sums(vals, gid, ngroups, kmax)


def _numpy_sums(vals: np.ndarray, gid: np.ndarray, ngroups: int, kmax: int) -> list[np.ndarray]:
    """The NumPy engine (the reference): float or limb terms through the digit engine."""
    ok = float_terms_ok(vals)
    out = []
    for k in range(1, kmax + 1):
        m, e, g, mb = power_terms(vals, gid, k, ok)
        out.append(_group_ints(m, e, g, ngroups, mb, k * SCALE))
    return out
