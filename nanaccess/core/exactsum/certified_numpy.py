"""The certified fast path of the NumPy engine's 1-D exact sums and means.

Without numba, the exact engine (extraction front end plus digit engine) costs about
sixteen :func:`numpy.sum` passes. Most data do not need all of it: a float sum
with a proven error bound decides the correctly rounded result whenever the bound
puts the exact sum strictly inside one float's rounding interval. This module
computes such a sum with a few cache-resident NumPy passes and hands every other
case back (None): the caller then runs the exact engine, so the bits never depend
on which path answered.

How (Rump, Ogita and Oishi's error-free extraction, "AccSum", SIAM J. Sci. Comput.
31(1), 2008). The data are read in blocks of ``_R`` rows of ``_W`` values (512 KiB,
in cache). Per block, with ``a`` its largest magnitude (one max and one min pass),
``sigma = 2**k``, ``k = e + M``, ``a < 2**e`` and ``2**M >= _W + 2``:

* ``q = (sigma + x) - sigma`` is exact, a multiple of ``2**(k - 53)`` with
  ``|q| <= max(2**e, 2**(k - 53))`` (``k`` may be raised to ``_K_MIN``), so every
  partial sum of a row's ``q`` is exact (it stays below ``2**k``): the row sums of
  ``q`` are exact in any order;
* ``r = x - q`` is exact (the rounding error of ``sigma + x``), ``|r| <= 2**(k - 53)``;
  a row's float sum of ``r`` in any order makes at most ``_W - 1`` roundings, so it
  is off by at most ``gamma(_W - 1) * _W * 2**(k - 53) <= _W**2 * 2**(k - 106)``
  (additions stay exact when they underflow, so this holds for tiny data too).

With ``levels=2`` the remainders are extracted once more (``k`` becomes
``k - 53 + M``), which shrinks the bound by ``2**(53 - M)``, and a block whose last
remainders are all zero adds nothing to it. float16/32 data take two levels at once
(their sums are often exact, or exact ties); float64 data take one, and a second run
(reusing the first run's block scales and first-level sums) when the first cannot
decide but the sum is far enough from zero for the smaller bound.

The exact sum ``S`` is then the exact sum of the row sums plus an error below the
total bound ``B``. :func:`math.fsum` (correctly rounded) peels the row sums' exact
total into a few non-overlapping floats, so ``S`` lies within ``B`` of their sum.
Rounding is monotone: when both ends of that interval round to the same float, that
float is the correctly rounded ``S`` (for a mean, both ends are divided by the count
exactly, as Fractions, and rounded once). Zeros (``-0.0`` rules), subnormal and
overflowing results, NaN, infinities and values of ``2**1007`` or more are never
certified: the exact engine decides them.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from fractions import Fraction
from math import frexp, fsum, ldexp
from typing import Any

import numpy as np

from ... import _stats

__all__ = ["certified_numpy_1d", "stats", "reset_stats", "MIN_SIZE", "BLOCK"]

#: inputs with fewer elements stay with the exact engine (its Python-int path)
MIN_SIZE = 65
_W = 8192  # values per row: a row's float sum of remainders rounds at most _W - 1 times
_R = 8  # rows per block: _R * _W float64 (512 KiB) stay in L2 cache across the passes
#: values per block
BLOCK = _R * _W
_M = (_W + 1).bit_length()  # 2**_M >= _W + 2: a row's extracted parts sum exactly
_A_MAX = 2.0 ** (1021 - _M)  # 2**1007: sigma <= 2**1021, so sigma + x stays finite
_K_MIN = -900  # a larger sigma is always allowed: the bound terms never underflow
_NORMAL = 2.0**-1022
#: the bound is multiplied by this (1 + margin for its own float computation); the
#: tests set it to 0 to prove they see a wrong result, so it is read at every call
BOUND_SCALE = 1.0 + 2.0**-20
_STATS = {"certified": 0, "fallback": 0, "second_level": 0, "skipped": 0}
_LOCAL = threading.local()  # per thread: the last refused (buffer, statistic), buffers
_F64 = np.dtype(np.float64)


def stats() -> dict[str, int]:
    """Calls answered by the certified path, calls handed back to the exact engine,
    calls that needed the second extraction level and calls skipped because the same
    buffer was just refused, since :func:`reset_stats`."""
    return dict(_STATS)


def reset_stats() -> None:
    """Zero the counters of :func:`stats`."""
    for key in _STATS:
        _STATS[key] = 0


def _buffers() -> list[np.ndarray]:
    """This thread's three block buffers (1.5 MiB, kept: fresh ones would cost page
    faults on every call, as much as a pass)."""
    bufs = getattr(_LOCAL, "buffers", None)
    if bufs is None or bufs[0].shape != (_R, _W):
        bufs = _LOCAL.buffers = [np.empty((_R, _W)) for _ in range(3)]
    return bufs


def _pieces(x: np.ndarray, buf: np.ndarray) -> Iterator[np.ndarray]:
    """``(rows, width)`` float64 blocks covering ``x`` in order: views of a native
    contiguous float64 ``x``, else copies into ``buf`` (widening float16/32 exactly)."""
    n = x.size
    sb = _R * _W
    full = n // sb
    direct = x.dtype == _F64 and x.flags.c_contiguous
    flat = buf.reshape(-1)
    if direct and full:
        yield from x[: full * sb].reshape(full, _R, _W)
    elif full:
        for b in range(full):
            np.copyto(flat, x[b * sb:(b + 1) * sb])
            yield buf
    rest = n - full * sb
    rows = rest // _W
    tails = [(full * sb, rows, _W), (full * sb + rows * _W, 1, rest - rows * _W)]
    for start, r, w in tails:
        if r and w:
            if direct:
                yield x[start:start + r * w].reshape(r, w)
            else:
                part = flat[: r * w]
                np.copyto(part, x[start:start + r * w])
                yield part.reshape(r, w)


def _extract(x: np.ndarray, levels: int, zero_check: bool, prior: Any = None) -> Any:
    """One pass over ``x``: ``(firsts, rest, bound, r_zero, ks)`` with the exact row
    sums of the first level's parts, the row sums of the further levels' parts and
    of the remainders, the bound on those sums' total error, whether every remainder
    row summed to zero, and each block's first ``k``; None for NaN, infinities or
    huge values. ``zero_check``: a block whose remainders are all zero adds nothing
    to the bound (its sums are exact: narrow data, ties). ``prior``: ``(firsts, ks)``
    of an earlier pass over the same data, reused (no max/min, no first-level sums)."""
    buf, t_buf, u_buf = _buffers()
    add, sub, einsum = np.add, np.subtract, np.einsum
    vmax, vmin = np.maximum.reduce, np.minimum.reduce
    firsts, ks = ([], []) if prior is None else prior
    rest: list[np.ndarray] = []
    bound = 0.0
    r_zero = True
    full = (_R, _W)
    for i, X in enumerate(_pieces(x, buf)):
        rows, width = shape = X.shape
        m = (width + 1).bit_length()
        if prior is None:
            hi = float(vmax(X, axis=None))
            lo = -float(vmin(X, axis=None))
            a = hi if hi >= lo else lo
            if not a < _A_MAX:  # NaN, an infinity or beyond the extraction's range
                return None
            ks.append(k := max(frexp(a)[1] + m, _K_MIN))
        else:
            k = ks[i]
        T = t_buf if shape == full else t_buf[:rows, :width]
        sigma = ldexp(1.0, k)
        add(X, sigma, out=T)
        sub(T, sigma, out=T)
        # row sums: einsum is NumPy's fastest sum; any order is exact for the
        # extracted parts and within the bound for the remainders
        if prior is None:
            firsts.append(einsum("ij->i", T))
        sub(X, T, out=T)
        for _ in range(levels - 1):
            k = max(k - 53 + m, _K_MIN)
            sigma = ldexp(1.0, k)
            U = u_buf if shape == full else u_buf[:rows, :width]
            add(T, sigma, out=U)
            sub(U, sigma, out=U)
            rest.append(einsum("ij->i", U))
            sub(T, U, out=T)
        r_sums = einsum("ij->i", T)
        rest.append(r_sums)
        if (r_zero or zero_check) and not r_sums.any():
            if zero_check and not T.any():
                continue  # every remainder is zero: this block's sums are exact
        else:
            r_zero = False
        bound += ldexp(float(rows * width * width), k - 106)
    return firsts, rest, bound, r_zero, ks


def _interval(x: np.ndarray, levels: int, zero_check: bool, prior: Any = None) -> Any:
    """``(terms, B, r_zero, prior)``: the exact sum lies within ``B`` of the exact sum
    of the floats ``terms`` (non-overlapping, largest first; ``B == 0``: it is that
    sum); ``r_zero``: every remainder row summed to zero; ``prior``: what a second
    pass reuses. None when the data are not for this path or the row sums overflow."""
    got = _extract(x, levels, zero_check, prior)
    if got is None:
        return None
    firsts, rest, bound, r_zero, ks = got
    vals = np.concatenate(firsts + rest).tolist()
    terms: list[float] = []
    try:  # fsum rounds correctly: peel the exact total into floats until nothing is left
        while (s := fsum(vals)) != 0:
            terms.append(s)
            vals.append(-s)
    except OverflowError:
        return None
    return terms, bound * BOUND_SCALE, r_zero, (firsts, ks)


def _decide(terms: list[float], b: float, stat: str, n: int) -> float | None:
    """The one float every value within ``b`` of ``sum(terms)`` rounds to (divided by
    ``n`` for a mean), or None."""
    if not terms:
        return None  # a zero or a sum within the bound of zero: the exact engine
    try:
        if stat in _stats.SUMS:
            lo, hi = fsum([*terms, -b]), fsum([*terms, b])
        else:
            mid = sum(map(Fraction, terms))
            lo = float((mid - Fraction(b)) / n)
            hi = float((mid + Fraction(b)) / n) if b else lo
    except OverflowError:
        return None
    if lo != hi or not _NORMAL <= abs(lo) < np.inf:
        return None
    return lo


def certified_numpy_1d(x: np.ndarray, stat: str) -> float | None:
    """The correctly rounded sum or mean of the 1-D float array ``x``, or None.

    Parameters
    ----------
    x : numpy.ndarray
        1-D float16/32/64 data (any byte order or strides); never modified.
    stat : str
        "sum" or "mean".

    Returns
    -------
    float or None
        The exact sum (or sum / count) rounded once, half-even, as the exact engine
        gives it; None when the bound does not prove it (ties and near-ties, heavy
        cancellation, zero, subnormal or overflowing results), or the data hold NaN,
        infinities or magnitudes of ``2**1007`` or more, or fewer than
        :data:`MIN_SIZE` values: the exact engine decides those. A call right after a
        refusal of the same statistic on the same buffer (in this thread) returns None
        at once, so a pre-check followed by the exact engine does not run twice.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.full(1000, 0.1)
    >>> certified_numpy_1d(x, "sum"), float(np.sum(x))  # 1000 * 0.1000000000000000055...
    (100.0, 100.00000000000001)
    >>> certified_numpy_1d(np.array([1.0, -1.0] * 50), "sum") is None  # zero
    True
    """
    if stat not in _stats.LINEAR or x.ndim != 1 or x.dtype.kind != "f" \
            or x.size < MIN_SIZE:
        return None
    # a caller that tried this pass before its NaN scan calls the exact engine next on
    # the same buffer: a refusal is not repeated (skipping can never change a result)
    key = (x.__array_interface__["data"][0], x.size, x.strides, x.dtype.str, stat)
    if getattr(_LOCAL, "refused", None) == key:
        _LOCAL.refused = None
        _STATS["skipped"] += 1
        return None
    _LOCAL.refused = key
    narrow = x.dtype.itemsize < 8  # float16/32: exact sums and ties are common
    got = _interval(x, 2 if narrow else 1, narrow)
    if got is None:
        _STATS["fallback"] += 1
        return None
    terms, b, r_zero, prior = got
    val = _decide(terms, b, stat, x.size)
    # not proven: the second level shrinks the bound by 2**(53 - M) and drops the
    # blocks whose remainders vanish; worth a pass when the remainders may all be
    # zero (a tie of narrow data) or that smaller bound is well below the sum's ulp
    if val is None and not narrow and terms \
            and (r_zero or abs(terms[0]) > ldexp(b, 56 - (53 - _M))):
        _STATS["second_level"] += 1
        got = _interval(x, 2, True, prior)  # the first pass's scales and sums reused
        val = None if got is None else _decide(*got[:2], stat, x.size)
    _STATS["fallback" if val is None else "certified"] += 1
    if val is not None:
        _LOCAL.refused = None
    return val
