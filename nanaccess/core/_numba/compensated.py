"""Certified compensated sums: a fast path in front of the exact engine.

Each output cell (a row, a column, a group) is accumulated with Ogita, Rump and
Oishi's ``Sum2`` (SIAM J. Sci. Comput. 26(6), 2005): the error-free transformation
TwoSum turns ``s + x`` into a rounded sum ``s'`` and its exact error ``e``; the errors
are added up in ``c`` and their magnitudes in ``b``, the count beside. A handful of
flops per value, in independent lanes (several per row; the cells themselves when a
leading axis is reduced; the groups in a scatter), so LLVM vectorises it.

Certification (:func:`certify_kernel`). Every TwoSum step is exact (additions never
lose bits to underflow; an overflow makes ``s`` infinite and is not certified), so
the exact sum is ``S = s + sum(e_k)`` over ``K <= n + lanes`` errors (a value left
out, a NaN in the skipping modes, is added as 0: exact, no error, so ``n`` counts the
values taken). ``c`` is their floating-point sum in some order (a tree of depth below
``K``), so ``|c - sum(e_k)| <= gamma_K * sum|e_k|`` (Higham, Accuracy and Stability,
(4.4); ``gamma_K = K*u / (1 - K*u)``, ``u = 2**-53``), and the computed ``b`` (a sum
of nonnegative terms) is at least ``sum|e_k| / (1 + gamma_K)``. With ``(hi, lo) =
TwoSum(s, c)``, ``hi + lo = s + c`` exactly, so ``|hi + lo - S| <= gamma_K * (1 +
gamma_K) * b``. This is the bound of ORO's proof of
Prop. 4.5 before its last step (``sum|e_k| <= gamma_{n-1} sum|x_i|``), which is far
too loose at ``n = 1e6``; the computed ``sum|e_k|`` is typically ``u * n * |s|``. The
bound used is ``E = 2 * m*u * b + 2**-1072`` with ``m = n + lanes + 2 >= K`` and
``m*u < 1e-6``: then ``gamma_K * (1 + gamma_K) <= 1.000003 * K*u``, the factor 2 covers
the two roundings of ``E`` itself and the absolute term their underflow. ``S`` lies
in ``[hi + lo - E, hi + lo + E]``.

*Blocks* (:func:`_row`, every value of a row). The ``K*u`` above is the length of the
chain of roundings an error goes through in ``c``. ``_row`` cuts it: after each block
of ``BLOCK`` positions the lanes' ``c`` are summed to ``cb`` (the block's errors
``E_t`` within ``gamma_{BLOCK/LANES + LANES + 1}`` times their magnitudes), reset, and
``cb`` is added to lane 0 as a value (TwoSum; its error opens the next block's chain,
its magnitude goes into ``b``). Exactly ``sum(s_j) + sum(e_k) = sum(x) + sum(cb_t)``,
so ``S = sum(s_j) + (the errors not flushed) + sum(E_t - cb_t)``, and an error not
flushed goes through at most ``BLOCK/LANES + 2`` additions in its lane and ``2*LANES``
as the lanes are combined: ``|hi + lo - S| <= gamma_DEPTH * (1 + gamma_K) * b`` with
``DEPTH = BLOCK/LANES + 2*LANES + 2`` (290). :func:`_combine` scales such a row's ``b``
by ``DEPTH / m`` (rounded up by ``SCALE_SLACK``), so ``E`` above reads ``2*DEPTH*u*b``
(a million values cancelling to ``1e-9`` of their size certify). The NaN-skipping and
masked loops are not cut (a faster loop): there ``m = n + lanes + 2`` stays.

* sum: ``hi`` is the correctly rounded ``S`` when that whole interval lies strictly
  inside ``hi``'s rounding interval, ``|lo| + E < h/2`` (``h`` the smaller spacing next
  to ``|hi|``; strict, so a tie is never certified; checked with a relative margin
  of ``1e-7`` that covers the rounding of the test).
* mean: the candidate ``q = fl(hi/n) + fl((hi - fl(hi/n)*n + lo) / n)`` (the residual
  exact by Dekker's TwoProduct with a Veltkamp split, while ``q`` and ``hi`` stay away
  from under/overflow); ``hi - q*n = d1 - d2`` exactly (``d1 = hi - fl(q*n)``, exact by
  Sterbenz, and ``d2`` the TwoProduct error), computed with two roundings, at most
  ``3u(|d1| + |d2| + |lo|)``; ``q`` is the correctly rounded ``S/n`` when
  ``|hi - q*n + lo| + slack + E < n * h_q / 2`` (``h_q`` the smaller spacing at ``|q|``).
  A sum beyond that range (``|hi| > 2**990`` or ``< 2**-960``) is scaled by ``2**-100``
  or ``2**100`` first: exact for ``hi``; ``lo`` and ``E`` may round when scaled down,
  which the absolute term ``2**-1072`` added to ``E`` covers; the smallest magnitude
  scaled below ``2**-1000`` turns the tie test off. The certified mean of the scaled
  sum, scaled back, is the mean when it is a normal float (rounding commutes with
  exact scaling), so wide-range data stay on this path.

* ties and near-ties: every summed value is a multiple of ``Q``, the ulp of the
  smallest nonzero one, and so is ``S``; when ``E < Q/2`` (and ``|hi| >= `` that value,
  so ``hi`` is a multiple of ``Q`` too), ``S - hi`` is the one multiple of ``Q`` nearest
  ``lo``: ``S`` is known exactly as ``hi + lo_x``, and an exact tie is rounded
  half-even (for the mean, ``S - q*n`` is then an exact TwoSum pair compared with half
  the spacing on its side times ``n``). Small groups of ordinary data meet ties often.

Anything else is not certified: ``hi == 0`` (signed zeros), a non-finite ``s``, ``c``
or ``b`` (NaN, infinities, overflow), subnormal results, counts beyond ``1e-6/u``. The
caller then runs the exact engine, which owns those cases; a certified value equals
the exact engine's correctly rounded value by construction.

Kernels (compiled through :mod:`nanaccess.core._numba`, family ``"compensated"``):
``rows_kernel`` (rows of a C-order ``(rows, n)`` array), ``cols_kernel`` (the leading
axis of a C-order ``(n, cells)`` array, no transpose), ``grouped_kernel`` (a scatter by
group code); each fills ``s, c, b``, the smallest nonzero magnitude, the count and
the NaN flags per cell, and ``certify_kernel`` turns them into values and a certified
mask. ``one_kernel`` does both for one 1-D array (the lean entry of small inputs);
``compact_kernel`` gathers the rows of the groups left to the exact kernel.
The variance kernels build on these in :mod:`.compensated_var`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import bind, jit, register

__all__ = ["LANES", "F_NAN", "F_SNAN", "MODE_ALL", "MODE_MASK", "MODE_SKIPNAN", "build"]

prange = range  # numba's prange once compiled (bound by build)

#: independent accumulators per row (two AVX-512 vectors)
LANES = 16
#: positions per block of a row (errors flushed, module docstring)
BLOCK = 4096
DEPTH = BLOCK // LANES + 2 * LANES + 2
SCALE_SLACK = 1.0 + 2.0 ** -40  # covers the roundings of b * (DEPTH / m)
MODE_ALL = 0  # every value
MODE_MASK = 1  # values where the mask is True
MODE_SKIPNAN = 2  # values that are not NaN (NaNs counted and flagged, not summed)
F_NAN = 1  # a NaN was skipped
F_SNAN = 2  # one of the skipped NaNs is signaling
U = 2.0 ** -53
MAX_MU = 1e-6  # m * u beyond this: not certified
TINY = 2.0 ** -1072  # covers the underflow of the bound's own roundings
_NORMAL_MIN = 2.0 ** -1022
MEAN_LO = 2.0 ** -960  # |hi| and |q| inside these: TwoProduct's split is exact
MEAN_HI = 2.0 ** 990
_EXACT_MIN = 2.0 ** -1000  # half a spacing of |hi| above this is a normal float
VELTKAMP = 134217729.0  # 2**27 + 1
MARGIN = 1.0000001  # relative margin of the certification tests
ABS = np.uint64(0x7FFFFFFFFFFFFFFF)
INF_BITS = np.uint64(0x7FF0000000000000)
QUIET = np.uint64(1 << 51)
PEEK = 4096  # values looked at for a NaN before a NaN-skipping row picks its loop


def lane_add(s: Any, c: Any, b: Any, x: Any) -> Any:  # pragma: no cover - compiled
    """One Sum2 step: TwoSum of ``s + x``, its error into ``c`` and ``|error|`` into
    ``b``."""
    t = s + x
    z = t - s
    e = (s - (t - z)) + (x - z)
    return t, c + e, b + abs(e)


def _flush(lanes_s: np.ndarray, lanes_c: np.ndarray, lanes_b: np.ndarray) -> None:
    # pragma: no cover - compiled
    """End a block: its errors, summed over the lanes, become a value of lane 0
    (module docstring, "blocks"); the lanes' ``c`` start again from zero."""
    cb = 0.0
    for j in range(LANES):
        cb += lanes_c[j]
        lanes_c[j] = 0.0
    lanes_s[0], lanes_c[0], lanes_b[0] = lane_add(lanes_s[0], 0.0, lanes_b[0], cb)


def _row(x: np.ndarray, mask: np.ndarray, bits: np.ndarray, r: Any, mode: Any, lanes_s: np.ndarray,
         lanes_c: np.ndarray, lanes_b: np.ndarray, lanes_y: np.ndarray, lanes_n: np.ndarray,
         lanes_f: np.ndarray) -> bool:
    # pragma: no cover - compiled
    """Accumulate row ``r`` into the lane arrays (zeroed here); every value (MODE_ALL)
    in blocks of ``BLOCK`` positions (module docstring): True when it did."""
    n = x.shape[1]
    for j in range(LANES):
        lanes_s[j] = 0.0
        lanes_c[j] = 0.0
        lanes_b[j] = 0.0
        lanes_y[j] = np.inf
        lanes_n[j] = 0
        lanes_f[j] = 0
    full = n - n % LANES
    if mode == MODE_ALL:
        for i0 in range(0, full, BLOCK):
            if i0 > 0:
                _flush(lanes_s, lanes_c, lanes_b)
            xs = x[r, i0:min(i0 + BLOCK, full)]
            for i in range(0, xs.shape[0], LANES):
                for j in range(LANES):
                    v = xs[i + j]
                    lanes_s[j], lanes_c[j], lanes_b[j] = lane_add(
                        lanes_s[j], lanes_c[j], lanes_b[j], v)
                    lanes_y[j] = min(lanes_y[j], abs(v) if v != 0.0 else np.inf)
        for i in range(full, n):
            j = i - full
            v = x[r, i]
            lanes_s[j], lanes_c[j], lanes_b[j] = lane_add(
                lanes_s[j], lanes_c[j], lanes_b[j], v)
            lanes_y[j] = min(lanes_y[j], abs(v) if v != 0.0 else np.inf)
        lanes_n[0] = n
        return True
    if mode == MODE_MASK:
        for i in range(0, n):
            j = i % LANES
            if mask[r, i]:
                v = x[r, i]
                lanes_s[j], lanes_c[j], lanes_b[j] = lane_add(
                    lanes_s[j], lanes_c[j], lanes_b[j], v)
                lanes_y[j] = min(lanes_y[j], abs(v) if v != 0.0 else np.inf)
                lanes_n[j] += 1
        return False
    for i in range(0, full, LANES):
        for j in range(LANES):
            b = bits[r, i + j] & ABS
            isn = b > INF_BITS
            v = 0.0 if isn else x[r, i + j]
            lanes_s[j], lanes_c[j], lanes_b[j] = lane_add(
                lanes_s[j], lanes_c[j], lanes_b[j], v)
            lanes_y[j] = min(lanes_y[j], abs(v) if v != 0.0 else np.inf)
            lanes_n[j] += np.int64(not isn)
            lanes_f[j] |= np.int64(isn) * (F_NAN | (F_SNAN * np.int64((b & QUIET) == 0)))
    for i in range(full, n):
        j = i - full
        b = bits[r, i] & ABS
        isn = b > INF_BITS
        v = 0.0 if isn else x[r, i]
        lanes_s[j], lanes_c[j], lanes_b[j] = lane_add(
            lanes_s[j], lanes_c[j], lanes_b[j], v)
        lanes_y[j] = min(lanes_y[j], abs(v) if v != 0.0 else np.inf)
        lanes_n[j] += np.int64(not isn)
        lanes_f[j] |= np.int64(isn) * (F_NAN | (F_SNAN * np.int64((b & QUIET) == 0)))
    return False


def _lanes() -> Any:  # pragma: no cover - compiled
    """The lane arrays of :func:`_row`: s, c, b, y (float64), count, flags (int64)."""
    return (np.zeros(LANES), np.zeros(LANES), np.zeros(LANES), np.zeros(LANES),
            np.zeros(LANES, np.int64), np.zeros(LANES, np.int64))


def _combine(lanes_s: np.ndarray, lanes_c: np.ndarray, lanes_b: np.ndarray, lanes_y: np.ndarray,
             lanes_n: np.ndarray, lanes_f: np.ndarray,
             blocked: Any) -> Any:  # pragma: no cover - compiled
    """``(s, c, b, y, count, flags)`` of the lanes of a row, combined by TwoSum; a row
    summed in blocks has ``b`` scaled by ``DEPTH / m`` (module docstring)."""
    s, c, b, y, n, f = lanes_s[0], lanes_c[0], lanes_b[0], lanes_y[0], lanes_n[0], lanes_f[0]
    for j in range(1, LANES):
        s, c, b = lane_add(s, c + lanes_c[j], b + lanes_b[j], lanes_s[j])
        y = min(y, lanes_y[j])
        n += lanes_n[j]
        f |= lanes_f[j]
    m = np.float64(n + LANES + 2)
    if blocked and m > DEPTH:
        b = b * (DEPTH / m) * SCALE_SLACK
    return s, c, b, y, n, f


def _lanes_nan(lanes_s: np.ndarray) -> Any:  # pragma: no cover - compiled
    """Did a lane's sum become NaN (a NaN, or infinities of both signs)?"""
    for j in range(LANES):
        if lanes_s[j] != lanes_s[j]:
            return True
    return False


def _skipnan_row(x: np.ndarray, mask: Any, bits: Any, r: Any, lanes_s: Any, lanes_c: Any,
                 lanes_b: Any, lanes_y: Any, lanes_n: Any, lanes_f: Any) -> bool:
    # pragma: no cover - compiled
    """Row ``r`` leaving NaNs out, in one pass when the row's first block holds a NaN
    (the NaN-skipping loop), else the plain loop first (faster) and the NaN-skipping
    one again only if the lanes end as NaN (a NaN late in the row); as :func:`_row`,
    True when the plain loop's blocks served."""
    n, p0, p1, p2, p3 = min(PEEK, x.shape[1]), 0.0, 0.0, 0.0, 0.0
    for i in range(0, n - n % 4, 4):  # four chains of additions: none waits on another
        p0, p1 = p0 + x[r, i] * 0.0, p1 + x[r, i + 1] * 0.0
        p2, p3 = p2 + x[r, i + 2] * 0.0, p3 + x[r, i + 3] * 0.0
    for i in range(n - n % 4, n):
        p0 += x[r, i] * 0.0  # NaN exactly when a NaN or an infinity is there
    if (p0 + p1) + (p2 + p3) == 0.0:
        _row(x, mask, bits, r, MODE_ALL, lanes_s, lanes_c, lanes_b, lanes_y, lanes_n, lanes_f)
        if not _lanes_nan(lanes_s):
            return True
    return _row(x, mask, bits, r, MODE_SKIPNAN, lanes_s, lanes_c, lanes_b, lanes_y, lanes_n,
                lanes_f)


def rows_kernel(x: np.ndarray, mask: Any, bits: Any, mode: Any, s_out: np.ndarray,
                c_out: np.ndarray, b_out: np.ndarray, y_out: np.ndarray, counts: np.ndarray,
                flags: np.ndarray) -> None:
    # pragma: no cover - compiled
    """Sum2 accumulators of each row of the C-order ``(rows, n)`` float array ``x``
    (``mask``: ``(rows, n)`` bool for MODE_MASK; ``bits``: ``x``'s uint64 view for
    MODE_SKIPNAN); the lanes are combined by TwoSum (errors into ``c``)."""
    rows = x.shape[0]
    lanes_s, lanes_c, lanes_b, lanes_y, lanes_n, lanes_f = _lanes()
    for r in range(rows):
        if mode == MODE_SKIPNAN:
            blocked = _skipnan_row(x, mask, bits, r, lanes_s, lanes_c, lanes_b, lanes_y,
                                   lanes_n, lanes_f)
        else:
            blocked = _row(x, mask, bits, r, mode, lanes_s, lanes_c, lanes_b, lanes_y, lanes_n,
                           lanes_f)
        s, c, a, y, cnt, fl = _combine(lanes_s, lanes_c, lanes_b, lanes_y, lanes_n, lanes_f,
                                       blocked)
        s_out[r] = s
        c_out[r] = c
        b_out[r] = a
        y_out[r] = y
        counts[r] = cnt
        flags[r] = fl


def cols_kernel(x: np.ndarray, mask: np.ndarray, bits: np.ndarray, mode: Any, s_out: np.ndarray,
                c_out: np.ndarray, b_out: np.ndarray, y_out: np.ndarray, counts: np.ndarray,
                flags: np.ndarray) -> None:
    # pragma: no cover - compiled
    """Sum2 accumulators of each column of the C-order ``(n, cells)`` array ``x`` (a
    leading axis reduced in place: the cells are the lanes); outputs zeroed by the
    caller."""
    n, m = x.shape
    if mode == MODE_ALL:
        # four rows per pass over the cells: each cell still adds its rows in order (the
        # same bits), the accumulators are read and written a quarter as often
        n4 = n - n % 4
        for i in range(0, n4, 4):
            for j in range(m):
                v0 = x[i, j]
                v1 = x[i + 1, j]
                v2 = x[i + 2, j]
                v3 = x[i + 3, j]
                s, c, b = lane_add(s_out[j], c_out[j], b_out[j], v0)
                s, c, b = lane_add(s, c, b, v1)
                s, c, b = lane_add(s, c, b, v2)
                s_out[j], c_out[j], b_out[j] = lane_add(s, c, b, v3)
                y01 = min(abs(v0) if v0 != 0.0 else np.inf, abs(v1) if v1 != 0.0 else np.inf)
                y23 = min(abs(v2) if v2 != 0.0 else np.inf, abs(v3) if v3 != 0.0 else np.inf)
                y_out[j] = min(y_out[j], min(y01, y23))
        for i in range(n4, n):
            for j in range(m):
                v = x[i, j]
                s_out[j], c_out[j], b_out[j] = lane_add(s_out[j], c_out[j], b_out[j], v)
                y_out[j] = min(y_out[j], abs(v) if v != 0.0 else np.inf)
        for j in range(m):
            counts[j] = n
        return
    for i in range(n):
        if mode == MODE_MASK:
            for j in range(m):
                w = mask[i, j]
                v = x[i, j] if w else 0.0
                s_out[j], c_out[j], b_out[j] = lane_add(s_out[j], c_out[j], b_out[j], v)
                y_out[j] = min(y_out[j], abs(v) if v != 0.0 else np.inf)
                counts[j] += np.int64(w)
        else:
            for j in range(m):
                b = bits[i, j] & ABS
                isn = b > INF_BITS
                v = 0.0 if isn else x[i, j]
                s_out[j], c_out[j], b_out[j] = lane_add(s_out[j], c_out[j], b_out[j], v)
                y_out[j] = min(y_out[j], abs(v) if v != 0.0 else np.inf)
                counts[j] += np.int64(not isn)
                flags[j] |= np.int64(isn) * (F_NAN | (F_SNAN * np.int64((b & QUIET) == 0)))


def grouped_kernel(x: np.ndarray, mask: np.ndarray, bits: np.ndarray, mode: Any, codes: np.ndarray,
                   s_out: np.ndarray, c_out: np.ndarray, b_out: np.ndarray, y_out: np.ndarray,
                   counts: np.ndarray, flags: np.ndarray) -> None:
    # pragma: no cover - compiled
    """Sum2 accumulators per group (``codes[i]`` in ``[0, groups)``, -1: no group) of
    the 1-D array ``x``; outputs zeroed by the caller. A group's accumulators share
    one cache line while the rows are scattered (then unpacked)."""
    n = x.shape[0]
    acc = np.zeros((s_out.shape[0], 5))
    acc[:, 4] = np.inf
    for i in range(n):
        g = codes[i]
        if g < 0:
            continue
        if mode == MODE_MASK:
            if not mask[i]:
                continue
        elif mode == MODE_SKIPNAN:
            b = bits[i] & ABS
            if b > INF_BITS:
                flags[g] |= F_NAN | (F_SNAN * np.int64((b & QUIET) == 0))
                continue
        v = x[i]
        s = acc[g, 0]
        t = s + v
        z = t - s
        e = (s - (t - z)) + (v - z)
        acc[g, 0] = t
        acc[g, 1] += e
        acc[g, 2] += abs(e)
        acc[g, 3] += 1.0
        acc[g, 4] = min(acc[g, 4], abs(v) if v != 0.0 else np.inf)
    for g in range(s_out.shape[0]):
        s_out[g] = acc[g, 0]
        c_out[g] = acc[g, 1]
        b_out[g] = acc[g, 2]
        y_out[g] = acc[g, 4]
        counts[g] = np.int64(acc[g, 3])


def spacing_below(a: Any) -> Any:  # pragma: no cover - compiled
    """``a - nextafter(a, 0)`` of a positive normal float64 (exact: Sterbenz)."""
    b = np.int64(np.float64(a).view(np.int64))
    return a - np.int64(b - 1).view(np.float64)


def _split(a: Any) -> Any:  # pragma: no cover - compiled
    t = VELTKAMP * a
    hi = t - (t - a)
    return hi, a - hi


def two_prod_err(a: Any, b: Any, p: Any) -> Any:  # pragma: no cover - compiled
    """The exact error ``a*b - p`` of ``p = fl(a*b)`` (Dekker, no fma)."""
    ah, al = _split(a)
    bh, bl = _split(b)
    return ((ah * bh - p) + ah * bl + al * bh) + al * bl


def two_sum(a: Any, b: Any) -> Any:  # pragma: no cover - compiled
    """``a + b == s + e`` exactly (Knuth's TwoSum; :func:`lane_add` is the same
    step with the error's magnitude kept). Kernels elsewhere bind it (weighted)."""
    s = a + b
    z = s - a
    return s, (a - (s - z)) + (b - z)


def two_prod(a: Any, b: Any) -> Any:  # pragma: no cover - compiled
    """``a * b == p + e`` exactly (Dekker; no overflow or underflow inside)."""
    p = a * b
    return p, two_prod_err(a, b, p)


def _spacing_above(a: Any) -> Any:  # pragma: no cover - compiled
    """``nextafter(a, inf) - a`` of a positive finite float64."""
    b = np.int64(np.float64(a).view(np.int64))
    return np.int64(b + 1).view(np.float64) - a


def _quantum(y: Any) -> Any:  # pragma: no cover - compiled
    """The ulp of ``y > 0``: every float of magnitude ``>= y`` is a multiple of it."""
    e = (np.int64(np.float64(y).view(np.int64)) >> 52) & 0x7FF
    if e > 52:
        return np.int64((e - 52) << 52).view(np.float64)
    return np.int64(1 << ((e if e > 1 else 1) - 1)).view(np.float64)


def _even(a: Any, b: Any) -> Any:  # pragma: no cover - compiled
    """Of two neighbouring floats, the one with an even last mantissa bit."""
    return a if (np.int64(np.float64(a).view(np.int64)) & 1) == 0 else b


def _exact_lo(hi: Any, lo: Any, e: Any, y: Any) -> Any:  # pragma: no cover - compiled
    """``S - hi`` exactly, when the bound settles it, else NaN. Every summed value is a
    multiple of ``Q``, the ulp of the smallest nonzero one (``y``), so is ``S``; so is
    ``hi`` when ``|hi| >= y``; ``S - hi`` is then the one multiple of ``Q`` within
    ``e < Q/2`` of ``lo``."""
    if not (y < np.inf) or abs(hi) < y or abs(hi) < _EXACT_MIN:
        return np.nan
    q = _quantum(y)
    if not (e < 0.5 * q):
        return np.nan
    return np.rint(lo / q) * q  # lo / q and the product: powers of two, exact


def _certify_one(s: Any, c: Any, b: Any, y: Any, n: Any, mean: Any,
                 lanes: Any) -> Any:  # pragma: no cover - compiled
    """(value, certified) of one cell's accumulators (see the module docstring)."""
    m = np.float64(n + lanes + 2) * U
    if n <= 0 or m >= MAX_MU:
        return 0.0, False
    hi = s + c
    z = hi - s
    lo = (s - (hi - z)) + (c - z)
    e = 2.0 * m * b + TINY
    ahi = abs(hi)
    if not (ahi >= _NORMAL_MIN and ahi < np.inf and abs(lo) < np.inf and e < np.inf):
        return 0.0, False  # zero, subnormal, NaN, infinite or overflowed
    if not mean:
        if (abs(lo) + e) * MARGIN < 0.5 * spacing_below(ahi):
            return hi, True
        lx = _exact_lo(hi, lo, e, y)  # a tie or near-tie: settled when S is known
        if not (abs(lx) < np.inf):
            return 0.0, False
        if lx == 0.0:
            return hi, True
        h = _spacing_above(ahi) if (lx > 0) == (hi > 0) else spacing_below(ahi)
        if not (h < np.inf):
            return 0.0, False  # beyond the largest float: the exact engine rounds
        if abs(lx) < 0.5 * h:
            return hi, True
        if abs(lx) == 0.5 * h:  # an exact tie: half-even
            return _even(hi, hi + 2.0 * lx), True
        return 0.0, False
    if MEAN_LO <= ahi <= MEAN_HI:
        return _certify_mean(hi, lo, e, y, n)
    # beyond TwoProduct's range: the mean of the sum scaled by an exact power of two
    # (lo and e may round when scaled down: TINY covers that; a y scaled below the
    # exact range turns the tie test off), scaled back when that is exact
    sc = 2.0 ** -100 if ahi > MEAN_HI else 2.0 ** 100
    ys = y * sc
    q, ok = _certify_mean(hi * sc, lo * sc, e * sc + TINY, ys if ys >= _EXACT_MIN else np.inf,
                          n)
    q = q / sc
    if not ok or not (_NORMAL_MIN <= abs(q) < np.inf):
        return 0.0, False
    return q, True


def _certify_mean(hi: Any, lo: Any, e: Any, y: Any, n: Any) -> Any:  # pragma: no cover - compiled
    """(value, certified) of the mean of a cell whose sum is within ``e`` of ``hi +
    lo``, ``MEAN_LO <= |hi| <= MEAN_HI`` (see the module docstring)."""
    dn = np.float64(n)
    q = hi / dn
    p = q * dn
    num = ((hi - p) - two_prod_err(q, dn, p)) + lo  # (hi - q*n exact) + lo
    q += num / dn  # the candidate: fl(hi/n) is off by an ulp when lo tips it
    aq = abs(q)
    if not (aq >= MEAN_LO):
        return 0.0, False
    p = q * dn
    d1 = hi - p  # exact (Sterbenz: p is within a few ulps of hi)
    d2 = two_prod_err(q, dn, p)  # exact: q*n = p + d2
    num = (d1 - d2) + lo  # hi + lo - q*n, two roundings
    slack = 3.0 * U * (abs(d1) + abs(d2) + abs(lo))
    if (abs(num) + slack + e) * MARGIN < (0.5 * spacing_below(aq)) * dn / MARGIN:
        return q, True
    lx = _exact_lo(hi, lo, e, y)  # a tie or near-tie: settled when S is known
    if not (abs(lx) < np.inf):
        return 0.0, False
    r = d1 - d2  # hi - q*n: a multiple of ulp(q) below 2**36 ulps, exact
    nh = r + lx  # S - q*n = nh + nl exactly (TwoSum)
    z = nh - r
    nl = (r - (nh - z)) + (lx - z)
    if nh == 0.0:
        return q, True
    h = _spacing_above(aq) if (nh > 0) == (q > 0) else spacing_below(aq)
    t = 0.5 * h * dn  # exact: a power of two times n
    if abs(nh) < t:
        return q, True
    if abs(nh) == t:
        if nl == 0.0:  # S/n exactly halfway: half-even
            return _even(q, q + (h if nh > 0 else -h)), True
        if (nl > 0) != (nh > 0):  # |S - q*n| just below half a spacing
            return q, True
    return 0.0, False


def certify_kernel(s_in: np.ndarray, c_in: np.ndarray, b_in: np.ndarray, y_in: np.ndarray,
                   counts: np.ndarray, mean: Any, lanes: Any, out: np.ndarray,
                   ok: np.ndarray) -> None:
    # pragma: no cover - compiled
    """Correctly rounded sums (``mean`` False) or means of the cells where the Sum2
    bound proves them: ``out`` and ``ok`` per cell (see the module docstring)."""
    for k in range(s_in.shape[0]):
        out[k], ok[k] = _certify_one(s_in[k], c_in[k], b_in[k], y_in[k], counts[k], mean,
                                     lanes)


def one_kernel(x: np.ndarray, mean: Any) -> Any:  # pragma: no cover - compiled
    """(value, certified) of the sum or mean of a 1-D float64 array: the lean entry
    of small and 1-D inputs (no output arrays)."""
    lanes_s, lanes_c, lanes_b, lanes_y, lanes_n, lanes_f = _lanes()
    x2 = x.reshape(1, x.shape[0])
    _row(x2, np.ones((1, 1), np.bool_), np.zeros((1, 1), np.uint64), 0, MODE_ALL, lanes_s,
         lanes_c, lanes_b, lanes_y, lanes_n, lanes_f)
    s, c, b, y, n, _ = _combine(lanes_s, lanes_c, lanes_b, lanes_y, lanes_n, lanes_f, True)
    return _certify_one(s, c, b, y, n, mean, LANES)


def one_skipnan_kernel(x: np.ndarray, bits: np.ndarray,
                       mean: Any) -> Any:  # pragma: no cover - compiled
    """(value, certified, count, flags) of the sum or mean of the values of a 1-D
    float64 array that are not NaN (``bits``: its uint64 view), the NaNs counted out
    and flagged (``F_NAN``, ``F_SNAN``): :func:`one_kernel` in ``MODE_SKIPNAN``."""
    lanes_s, lanes_c, lanes_b, lanes_y, lanes_n, lanes_f = _lanes()
    m = x.shape[0]
    blocked = _skipnan_row(x.reshape(1, m), np.ones((1, 1), np.bool_), bits.reshape(1, m), 0,
                           lanes_s, lanes_c, lanes_b, lanes_y, lanes_n, lanes_f)
    s, c, b, y, n, f = _combine(lanes_s, lanes_c, lanes_b, lanes_y, lanes_n, lanes_f, blocked)
    if n == 0:
        return 0.0, False, n, f
    val, ok = _certify_one(s, c, b, y, n, mean, LANES)
    return val, ok, n, f


def compact_kernel(vals: np.ndarray, mask: np.ndarray, use_mask: Any, codes: np.ndarray,
                   ok: np.ndarray, renum: np.ndarray, sub_vals: np.ndarray, sub_mask: np.ndarray,
                   sub_codes: np.ndarray) -> Any:
    # pragma: no cover - compiled
    """The rows of the groups not certified (``ok`` False), their groups renumbered
    ``0, 1, ...`` in ``renum``, into ``sub_*``; returns how many rows."""
    k = 0
    for g in range(ok.shape[0]):
        if ok[g]:
            renum[g] = -1
        else:
            renum[g] = k
            k += 1
    m = 0
    for i in range(vals.shape[0]):
        g = codes[i]
        if g >= 0 and renum[g] >= 0:
            sub_vals[m] = vals[i]
            sub_codes[m] = renum[g]
            if use_mask:
                sub_mask[m] = mask[i]
            m += 1
    return m


_HELPERS = ("lane_add", "_flush", "_row", "_lanes", "_combine", "_lanes_nan", "_skipnan_row",
            "_certify_mean", "_certify_one", "spacing_below", "_spacing_above",
            "_quantum", "_even", "_exact_lo", "_split", "two_prod_err", "two_sum", "two_prod")
_KERNELS = ("rows_kernel", "cols_kernel", "grouped_kernel", "certify_kernel",
            "compact_kernel", "one_kernel", "one_skipnan_kernel")


def build() -> dict[str, Any]:
    """Compile the helpers, then the kernels (called once by ``kernels``)."""
    bind(globals(), _HELPERS)
    return {name: jit(nogil=True)(globals()[name]) for name in _KERNELS}


register("compensated", build)
