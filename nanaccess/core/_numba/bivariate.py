"""Compiled exact pair sums (the numba engine of :mod:`nanaccess.core.bivariate`).

Every finite float64 is ``m * 2**e`` with an integer ``|m| < 2**53``; cut ``m`` into
three 18-bit limbs and the product of two values is ``sum_(a,b) l_a * k_b * 2**(e + f +
18 (a + b))`` with every limb product below ``2**36``. The kernels add those integer
products, as int64, into *tables* indexed by their binary position (``e + f + 18 s``
minus a base): a table entry receives at most three products (``< 2**38``) per row, so
``2**24`` rows (:data:`CHUNK`, the caller's row block) can never overflow it. The
exact sum is then ``sum_k table[k] * 2**(base + k)``, a Python int the caller builds
from the few nonzero entries. Nothing is rounded here; the exact co-moments are
rounded once by :mod:`nanaccess.core.bivariate.rounding`.

Per pair ``(i, j)`` of columns and per segment of rows (a group; the whole column when
ungrouped) the tables are, in this order: ``X, Y, XX, YY, XY``. ``mode`` says which:

* 0 (full): all five over the rows where both values are valid;
* 1 (cross): ``XY`` over the joint rows; ``X``, ``XX`` over the rows where only ``x``
  is valid and ``Y``, ``YY`` where only ``y`` is (the caller subtracts these from
  the column sums of mode 2: one product per joint row instead of three);
* 2 (column, ``i == j``): ``X`` and ``XX`` over the valid rows of column ``i``.

``counts`` gets the joint rows (mode 2: the valid rows); ``flags`` bit 1 an infinity
among the rows summed (it is not added: the caller's result is NaN). Plain Python over
arrays (slow but valid), compiled through :mod:`nanaccess.core._numba` on first use.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import bind, jit, register

prange = range  # numba's prange once compiled (bound by build)

__all__ = ["CHUNK", "LIMB", "TABLES", "build", "pair_tables", "table_digits"]

#: rows per call: a table entry takes < 2**38 per row, so 2**24 rows stay below 2**62
CHUNK = 1 << 24
#: bits per limb of a mantissa
LIMB = 18
#: tables per (segment, pair): X, Y, XX, YY, XY
TABLES = 5
_LMASK = (1 << LIMB) - 1


def _split(b: Any) -> Any:  # pragma: no cover - compiled
    """float64 bits -> (negative, exponent, limb0, limb1, limb2, finite)."""
    biased = (b >> 52) & 0x7FF
    m = (b & 0xFFFFFFFFFFFFF) | (np.int64(biased > 0) << 52)
    e = max(biased, 1) - 1075
    return b < 0, e, m & _LMASK, (m >> LIMB) & _LMASK, m >> (2 * LIMB), biased != 0x7FF


def _add_linear(tab: np.ndarray, k: Any, neg: Any, a0: Any, a1: Any,
                a2: Any) -> None:  # pragma: no cover - compiled
    # unsigned indices: no negative-index wrap code in the hot loop (2x faster)
    u = np.uint64(k)
    if neg:
        tab[u] -= a0
        tab[u + np.uint64(LIMB)] -= a1
        tab[u + np.uint64(2 * LIMB)] -= a2
    else:
        tab[u] += a0
        tab[u + np.uint64(LIMB)] += a1
        tab[u + np.uint64(2 * LIMB)] += a2


def _add_product(tab: np.ndarray, k: Any, neg: Any, a0: Any, a1: Any, a2: Any, b0: Any, b1: Any,
                 b2: Any) -> None:  # pragma: no cover - compiled
    sg = np.int64(-1) if neg else np.int64(1)
    u = np.uint64(k)
    tab[u] += sg * (a0 * b0)
    tab[u + np.uint64(LIMB)] += sg * (a0 * b1 + a1 * b0)
    tab[u + np.uint64(2 * LIMB)] += sg * (a0 * b2 + a1 * b1 + a2 * b0)
    tab[u + np.uint64(3 * LIMB)] += sg * (a1 * b2 + a2 * b1)
    tab[u + np.uint64(4 * LIMB)] += sg * (a2 * b2)


def _one_side(tl: Any, tq: Any, b: Any, lbase: Any,
              pbase: Any) -> Any:  # pragma: no cover - compiled
    """Add a value's linear and square terms to tables ``tl`` and ``tq``."""
    ng, e, a0, a1, a2, fin = _split(b)
    if not fin:
        return False
    e = max(e, lbase)  # a zero's exponent: any (its limbs are zero)
    _add_linear(tl, e - lbase, ng, a0, a1, a2)
    _add_product(tq, 2 * e - pbase, False, a0, a1, a2, a0, a1, a2)
    return True


def _column(bi: np.ndarray, vi: np.ndarray, rows: np.ndarray, use_rows: Any, q0: Any, q1: Any,
            lbase: Any, pbase: Any, tx: Any, txx: Any) -> Any:  # pragma: no cover
    """Mode 2: X and XX over the valid rows; returns (count, infinity met)."""
    c = 0
    f = 0
    for q in range(q0, q1):
        r = rows[q] if use_rows else q
        if vi[r]:
            if _one_side(tx, txx, bi[r], lbase, pbase):
                c += 1
            else:
                f = 1
    return c, f


def _joint(bi: np.ndarray, bj: np.ndarray, vi: np.ndarray, vj: np.ndarray, rows: np.ndarray,
           use_rows: Any, q0: Any, q1: Any, mode: Any, lbase: Any, pbase: Any, tx: Any, ty: Any,
           txx: Any, tyy: Any,
           txy: Any) -> Any:  # pragma: no cover - compiled
    """Modes 0 and 1 over rows ``q0:q1``; returns (joint count, infinity met)."""
    c = 0
    f = 0
    for q in range(q0, q1):
        r = rows[q] if use_rows else q
        ui = vi[r]
        uj = vj[r]
        if ui and uj:
            n1, e1, a0, a1, a2, f1 = _split(bi[r])
            n2, e2, b0, b1, b2, f2 = _split(bj[r])
            if not (f1 and f2):
                f = 1
                continue
            e1 = max(e1, lbase)
            e2 = max(e2, lbase)
            c += 1
            _add_product(txy, e1 + e2 - pbase, n1 != n2, a0, a1, a2, b0, b1, b2)
            if mode == 0:
                _add_linear(tx, e1 - lbase, n1, a0, a1, a2)
                _add_linear(ty, e2 - lbase, n2, b0, b1, b2)
                _add_product(txx, 2 * e1 - pbase, False, a0, a1, a2, a0, a1, a2)
                _add_product(tyy, 2 * e2 - pbase, False, b0, b1, b2, b0, b1, b2)
        elif mode == 1:
            if ui:
                _one_side(tx, txx, bi[r], lbase, pbase)
            elif uj:
                _one_side(ty, tyy, bj[r], lbase, pbase)
    return c, f


def exp_range(bits: np.ndarray, valid: np.ndarray,
              out: np.ndarray) -> None:  # pragma: no cover - compiled
    """``out[k] = (smallest, largest)`` exponent of the nonzero finite valid values of
    column k (``(1, 0)`` for none)."""
    for k in prange(bits.shape[0]):
        lo = 4096
        hi = -1
        for r in range(bits.shape[1]):
            if valid[k, r]:
                b = bits[k, r]
                biased = (b >> 52) & 0x7FF
                if biased != 0x7FF and (b & 0x7FFFFFFFFFFFFFFF) != 0:
                    e = max(biased, 1)
                    lo = min(lo, e)
                    hi = max(hi, e)
        out[k, 0] = lo - 1075
        out[k, 1] = hi - 1075


def pair_tables(bits: np.ndarray, valid: np.ndarray, rows: Any, use_rows: Any, starts: np.ndarray,
                pairs: np.ndarray, mode: Any, lbase: Any, pbase: Any, tabs: np.ndarray,
                counts: np.ndarray, flags: np.ndarray) -> None:  # pragma: no cover - compiled
    """Fill ``tabs[g, p, t, :]`` (int64, zeroed by the caller) for every segment ``g``
    (rows ``starts[g]:starts[g+1]``, through ``rows`` when ``use_rows``) and pair ``p``.

    ``bits``: (K, n) int64 views of float64 columns; ``valid``: (K, n) bool. Compiled
    twice: serial, and with ``prange`` over the (segment, pair) cells.
    """
    ng = starts.shape[0] - 1
    npairs = pairs.shape[0]
    for gp in prange(ng * npairs):
        g = gp // npairs
        p = gp - g * npairs
        i = pairs[p, 0]
        j = pairs[p, 1]
        t = tabs[g, p]
        if mode == 2:
            c, f = _column(bits[i], valid[i], rows, use_rows, starts[g], starts[g + 1],
                           lbase, pbase, t[0], t[2])
        else:
            c, f = _joint(bits[i], bits[j], valid[i], valid[j], rows, use_rows, starts[g],
                          starts[g + 1], mode, lbase, pbase, t[0], t[1], t[2], t[3], t[4])
        counts[g, p] += c
        flags[g, p] |= f


def table_digits(flat: np.ndarray, dig: np.ndarray) -> None:  # pragma: no cover - compiled
    """Fold each table row ``sum_k flat[r, k] * 2**k`` into 32-bit digits ``dig[r]``
    (int64; all but the last in [0, 2**32), the last signed), exactly."""
    m32 = np.int64(0xFFFFFFFF)
    for r in range(flat.shape[0]):
        d = dig[r]
        for k in range(flat.shape[1]):
            v = flat[r, k]
            if v == 0:
                continue
            j = k >> 5
            s = k & 31
            t0 = (v & m32) << s
            t1 = (v >> 32) << s
            d[j] += t0 & m32
            d[j + 1] += (t0 >> 32) + (t1 & m32)
            d[j + 2] += t1 >> 32
        for j in range(d.shape[0] - 1):
            c = d[j] >> 32
            d[j] -= c << 32
            d[j + 1] += c


_HELPERS = ("_split", "_add_linear", "_add_product", "_one_side", "_column", "_joint")


_INLINE = ("_split", "_add_linear", "_add_product", "_one_side")


def build() -> dict[str, Any]:
    """Compile the pair-table kernel (the per-value helpers inlined into the loops)."""
    ns = globals()
    for name in _INLINE:
        ns[name] = jit(nogil=True, inline="always")(ns[name])
    bind(ns, [h for h in _HELPERS if h not in _INLINE])
    return {"pair_tables": jit(nogil=True)(pair_tables),
            "pair_tables_parallel": jit(nogil=True, parallel=True)(pair_tables),
            "exp_range": jit(nogil=True)(exp_range),
            "table_digits": jit(nogil=True)(table_digits)}


register("bivariate", build)
