"""Compiled exact sums: the numba engine of :mod:`nanaccess.core.exactsum`.

Every finite float64 is ``m * 2**e`` with an integer ``m < 2**53``; the sum of a
segment (a row, a group) is accumulated *exactly* in two levels, as Neal's ``xsum``
"large" superaccumulator (arXiv:1505.05571):

* the hot loop adds each value's mantissa (as an unsigned integer) to a table entry
  indexed by its sign and exponent bits (4096 entries of uint64); eight tables, taken
  in turn, so consecutive values of equal exponent do not wait on one another, and
  interleaved (entry ``ix`` of table ``t`` at ``ix * 8 + t``: the eight entries of one
  exponent share a cache line; tables 32 KiB apart stalled on 4K aliasing). An
  entry takes at most 2048 mantissas before it could overflow, so every 16384 values
  the entries in the block's exponent range are flushed;
* a flush adds an entry (exact, < 2**64) at its exponent into a fixed-point integer of
  32-bit digits held in int64 (units of ``2**-1074``: every finite float64 is a
  multiple), which has room for any float64 sum; its live digit range is tracked so
  the final carry, rounding and division touch only the digits in use.

Means long-divide the fixed-point integer by the count; the variance is
``(n*Q - S*S) / (n * (n - ddof))`` with ``Q`` the exact sum of squares (each square
an exact sum of three products after a Veltkamp split, accumulated the same way, for
values in ``[2**-480, 2**480]``; rows with other values are flagged for the NumPy
engine). Every result is rounded once, half-even, from the exact quantity, so it
equals the NumPy engine bit for bit. Nothing here decides NaN policies: the caller
passes the ``where`` mask from its scan; infinities and NaNs that are selected are
flagged per row and resolved by the caller exactly as the NumPy engine does.

The kernels return float64 *bits* (int64) so the rounding never meets a float
operation; they compile on first use through :mod:`nanaccess.core._numba`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import bind, jit, register
from .exact_digits import (  # noqa: F401 - kernel globals, bound compiled by build
    DIGIT_HELPERS,
    ND,
    SCRATCH,
    add_chunk,
    add_shifted,
    bitlen,
    build_helpers,
    carry_digits,
    copy_up,
    divide_digits,
    finish,
    finish_mean,
    finish_sum,
    finish_var,
    magnitude_of,
    round_bits,
)

__all__ = ["ND", "SCRATCH", "build", "new_state"]

prange = range  # numba's prange once compiled (bound by build)

_NT = 8  # tables taken in turn (fewer stalls on a store to the entry just read)
_BLOCK = 2048 * _NT  # values per flush: an entry takes <= 2048 < 2**64 / 2**53 of them
_SHORT = 4096  # segments shorter than this use one table
_WIDE = 96  # a block spanning more binary exponents switches to per-entry counts
_VELTKAMP = 134217729.0  # 2**27 + 1
_SQ_LO = 1023 - 480  # biased exponents whose squares the Veltkamp split keeps exact
_SQ_HI = 1023 + 480

# flags per row (bit field)
F_POSINF = 1
F_NEGINF = 2
F_NAN = 4
F_RAW = 8  # squares out of the Veltkamp range: the NumPy engine takes the row
F_SNAN = 16  # with F_NAN: one of the NaNs is signaling (quiet bit clear)
_QUIET = 1 << 51


# ---------------------------------------------------------------------- hot loops

def _flush_entry(tabs: np.ndarray, ntab: Any, e: Any, dig: Any,
                 rng: Any) -> None:  # pragma: no cover - compiled
    sh = e - 1 if e > 0 else 0
    for t in range(e * _NT, e * _NT + ntab):
        v = tabs[t]
        if v != 0:
            add_chunk(dig, v, sh, False, rng)
            tabs[t] = 0
        v = tabs[t + 2048 * _NT]
        if v != 0:
            add_chunk(dig, v, sh, True, rng)
            tabs[t + 2048 * _NT] = 0


def _flush(tabs: Any, ntab: Any, emin: Any, emax: Any, dig: Any,
           rng: Any) -> None:  # pragma: no cover - compiled
    """Move the entries of biased exponents [emin, emax] and 0 (zeros and subnormals:
    never tracked) of both signs of the first ``ntab`` tables into dig."""
    _flush_entry(tabs, ntab, 0, dig, rng)
    for e in range(max(emin, 1), min(emax, 2046) + 1):
        _flush_entry(tabs, ntab, e, dig, rng)


def _add_value(tabs: np.ndarray, t: Any, b: Any) -> Any:  # pragma: no cover - compiled
    """Add one value's mantissa (bits ``b``) to its entry of table ``t`` (0 .. _NT-1);
    returns the biased exponent."""
    ix = np.int64(b >> np.uint64(52))
    e = ix & 2047
    tabs[ix * _NT + t] += (b & np.uint64(0xFFFFFFFFFFFFF)) | (np.uint64(e != 0) << np.uint64(52))
    return e


def _special(b: Any, flags: Any) -> Any:  # pragma: no cover - compiled
    """Flag an infinity or NaN (bits ``b``, exponent all ones)."""
    if (b & np.uint64(0xFFFFFFFFFFFFF)) != 0:
        if (b & np.uint64(_QUIET)) == 0:
            return flags | F_NAN | F_SNAN
        return flags | F_NAN
    if b >> np.uint64(63):
        return flags | F_NEGINF
    return flags | F_POSINF


def _plain_block(bits: np.ndarray, i: Any, j1: Any,
                 tabs: np.ndarray) -> Any:  # pragma: no cover - compiled
    """The hot loop (every value selected, no squares): the tables taken in turn;
    infinities and NaNs land in the exponent-2047 entries (cleared by the caller).
    Returns (min nonzero biased exponent, max biased exponent)."""
    # unsigned indices (no negative-index wrap code); e - 1 wraps for e == 0, so a
    # zero or subnormal never lowers emin
    umin = np.uint64(4095)
    umax = np.uint64(0)
    while i + _NT <= j1:
        for u in range(_NT):
            b = bits[np.uint64(i + u)]
            ix = b >> np.uint64(52)
            e = ix & np.uint64(2047)
            tabs[ix * np.uint64(_NT) + np.uint64(u)] += (
                (b & np.uint64(0xFFFFFFFFFFFFF)) | (np.uint64(e != 0) << np.uint64(52)))
            umin = min(umin, e - np.uint64(1))
            umax = max(umax, e)
        i += _NT
    emin = min(np.int64(umin) + 1, 2047)
    emax = np.int64(umax)
    u = 0
    while i < j1:  # the tail round the tables too: no entry takes more than its share
        e = _add_value(tabs, u, bits[i])
        emin = min(emin, e + (e == 0) * 2047)
        emax = max(emax, e)
        i += 1
        u += 1
    return emin, emax


def _sq_part(qtabs: np.ndarray, u: Any, p: Any) -> Any:  # pragma: no cover - compiled
    """Add the float64 ``p`` (a square's part) to table ``u`` of ``qtabs``; returns its
    biased exponent (unsigned)."""
    b = np.float64(p).view(np.uint64)
    ix = b >> np.uint64(52)
    e = ix & np.uint64(2047)
    qtabs[ix * np.uint64(_NT) + np.uint64(u)] += (
        (b & np.uint64(0xFFFFFFFFFFFFF)) | (np.uint64(e != 0) << np.uint64(52)))
    return e


def _sq_value(b: Any, u: Any, tabs: np.ndarray, qtabs: Any,
              acc: Any) -> Any:  # pragma: no cover - compiled
    """One value (bits ``b``) and its square's three Veltkamp parts into table ``u``;
    ``acc``: (smallest nonzero magnitude bits << 1, minus 1; max exponent; squares'
    smallest nonzero exponent minus 1; squares' max exponent), updated and returned."""
    mmin, umax, qlo, qhi = acc
    ix = b >> np.uint64(52)
    e = ix & np.uint64(2047)
    tabs[ix * np.uint64(_NT) + np.uint64(u)] += (
        (b & np.uint64(0xFFFFFFFFFFFFF)) | (np.uint64(e != 0) << np.uint64(52)))
    mmin = min(mmin, (b << np.uint64(1)) - np.uint64(1))  # zeros wrap: never the min
    umax = max(umax, e)
    x = np.uint64(b).view(np.float64)
    c = x * _VELTKAMP
    xh = c - (c - x)
    xl = x - xh
    f = _sq_part(qtabs, u, xh * xh)
    qhi = max(qhi, f)
    qlo = min(qlo, f - np.uint64(1))
    qlo = min(qlo, _sq_part(qtabs, u, 2.0 * xh * xl) - np.uint64(1))
    qlo = min(qlo, _sq_part(qtabs, u, xl * xl) - np.uint64(1))
    return mmin, umax, qlo, qhi


def _squares_block(bits: np.ndarray, i: Any, j1: Any, tabs: Any,
                   qtabs: Any) -> Any:  # pragma: no cover - compiled
    """The hot loop of the variance (every value selected): values and the parts of
    their squares, the tables taken in turn. Infinities, NaNs and values whose squares
    the split cannot take leave garbage the caller drops (exponent-2047 entries) or
    flags (F_RAW). Returns (emin, emax, qmin, qmax, low): ``low`` when a nonzero
    value lies below the split's range."""
    acc = (np.uint64(0xFFFFFFFFFFFFFFFF), np.uint64(0), np.uint64(4095), np.uint64(0))
    while i + _NT <= j1:
        for u in range(_NT):
            acc = _sq_value(bits[np.uint64(i + u)], u, tabs, qtabs, acc)
        i += _NT
    u = 0
    while i < j1:
        acc = _sq_value(bits[i], u, tabs, qtabs, acc)
        i += 1
        u += 1
    mmin, umax, qlo, qhi = acc
    nonzero = mmin != np.uint64(0xFFFFFFFFFFFFFFFF)
    mn = np.int64((mmin + np.uint64(1)) >> np.uint64(53))  # its biased exponent
    emin = max(mn, 1) if nonzero else 2047
    qmin = min(np.int64(qlo) + 1, 2047)
    return emin, np.int64(umax), qmin, np.int64(qhi), nonzero and mn < _SQ_LO


def _counted(bits: np.ndarray, i: Any, i1: Any, tabs: np.ndarray, cnt: np.ndarray, dig: Any,
             rng: Any) -> Any:  # pragma: no cover - compiled
    """Wide exponent ranges (Neal's large accumulator as published): one table, and a
    count per entry so an entry is flushed only after 2048 adds, and the whole table
    once at the end. Returns (the special flags, the number of NaNs)."""
    flags = 0
    nnan = 0
    seen = False  # an infinity or NaN entry filled up (its count restarted)
    for j in range(i, i1):
        b = bits[j]
        ix = np.int64(b >> np.uint64(52))
        tabs[ix * _NT] += (b & np.uint64(0xFFFFFFFFFFFFF)) | (np.uint64((ix & 2047) != 0)
                                                        << np.uint64(52))
        c = cnt[ix] - 1
        cnt[ix] = c
        if c == 0:
            cnt[ix] = 2048
            if (ix & 2047) == 2047:
                seen = True  # the rescan below finds them all
                tabs[ix * _NT] = 0
            else:
                _flush_one(tabs, ix, dig, rng)
    if seen or cnt[2047] != 2048 or cnt[4095] != 2048:
        for j in range(i, i1):
            b = bits[j]
            if (b & np.uint64(0x7FF0000000000000)) == np.uint64(0x7FF0000000000000):
                flags = _special(b, flags)
                nnan += (b & np.uint64(0xFFFFFFFFFFFFF)) != 0
    tabs[2047 * _NT] = 0
    tabs[4095 * _NT] = 0
    for ix in range(4096):
        if tabs[ix * _NT] != 0:
            _flush_one(tabs, ix, dig, rng)
        cnt[ix] = 2048
    return flags, nnan


def _flush_one(tabs: np.ndarray, ix: Any, dig: Any,
               rng: Any) -> None:  # pragma: no cover - compiled
    e = ix & 2047
    add_chunk(dig, tabs[ix * _NT], e - 1 if e > 0 else 0, ix >= 2048, rng)
    tabs[ix * _NT] = 0


def _masked_block(bits: np.ndarray, mask: np.ndarray, i: Any, j1: Any,
                  tabs: np.ndarray) -> Any:  # pragma: no cover - compiled
    """The hot loop with a selection mask, branch-free: an unselected value adds 0 to
    its entry and is not tracked. Returns (emin, emax, selected count)."""
    emin = 2047
    emax = 0
    count = 0
    while i + _NT <= j1:
        for u in range(_NT):
            b = bits[i + u]
            w = np.int64(mask[i + u])
            ix = np.int64(b >> np.uint64(52))
            e = ix & 2047
            m = (b & np.uint64(0xFFFFFFFFFFFFF)) | (np.uint64(e != 0) << np.uint64(52))
            tabs[ix * _NT + u] += m & (np.uint64(0) - np.uint64(w))
            es = e * w
            emin = min(emin, es + (es == 0) * 2047)
            emax = max(emax, es)
            count += w
        i += _NT
    u = 0
    while i < j1:  # the tail round the tables too: no entry takes more than its share
        b = bits[i]
        w = np.int64(mask[i])
        ix = np.int64(b >> np.uint64(52))
        e = ix & 2047
        m = (b & np.uint64(0xFFFFFFFFFFFFF)) | (np.uint64(e != 0) << np.uint64(52))
        tabs[ix * _NT + u] += m & (np.uint64(0) - np.uint64(w))
        es = e * w
        emin = min(emin, es + (es == 0) * 2047)
        emax = max(emax, es)
        count += w
        i += 1
        u += 1
    return emin, emax, count


def _segment(bits: np.ndarray, mask: np.ndarray, use_mask: Any, skipnan: Any, i0: Any, i1: Any,
             tabs: np.ndarray, cnt: Any, qtabs: np.ndarray, squares: Any, dig: Any, qdig: Any,
             rng: np.ndarray, qrng: np.ndarray) -> Any:  # pragma: no cover - compiled
    """Accumulate the values of bits ``bits[i0:i1]`` (selected by ``mask`` when
    ``use_mask``) exactly into ``dig`` (and their squares into ``qdig`` when
    ``squares``); returns (count, flags). NaNs never reach the sums (flagged); with
    ``skipnan`` they are not counted either (the sum of the other values)."""
    flags = 0
    count = 0
    emin = 2047
    emax = 0
    # short segments (small groups) use one table: fewer entries to flush
    ntab = _NT if i1 - i0 >= _SHORT else 1
    # <= 2048 adds per entry per flush (three squares' parts per value)
    block = (2048 // 3 if squares else 2048) * ntab
    plain = not use_mask and not squares and ntab == _NT
    fastmask = use_mask and not squares and ntab == _NT
    sqplain = not use_mask and squares and ntab == _NT
    i = i0
    while i < i1:
        j1 = min(i1, i + block)
        qmin = 2047
        qmax = 0
        if plain and emax - emin > _WIDE and i1 - i > _BLOCK:
            # the last block spread over many exponents: count per entry instead
            f, nnan = _counted(bits, i, i1, tabs, cnt, dig, rng)
            flags |= f
            count += i1 - i - (nnan if skipnan else 0)
            break
        if plain or fastmask or sqplain:
            low = False
            if plain:
                emin, emax = _plain_block(bits, i, j1, tabs)
                count += j1 - i
            elif sqplain:
                emin, emax, qmin, qmax, low = _squares_block(bits, i, j1, tabs, qtabs)
                count += j1 - i
            else:
                emin, emax, c = _masked_block(bits, mask, i, j1, tabs)
                count += c
            vmax = emax  # the largest exponent of a number (not inf / NaN)
            if emax == 2047:  # an infinity or NaN: flag it, drop the garbage entries
                vmax = 0
                for j in range(i, j1):
                    b = bits[j]
                    if plain or sqplain or mask[j]:
                        if (b & np.uint64(0x7FF0000000000000)) == np.uint64(
                                0x7FF0000000000000):
                            flags = _special(b, flags)
                            if skipnan and (b & np.uint64(0xFFFFFFFFFFFFF)) != 0:
                                count -= 1
                        else:
                            vmax = max(vmax, np.int64((b >> np.uint64(52)) & np.uint64(2047)))
                for t in range(_NT):
                    tabs[2047 * _NT + t] = 0
                    tabs[4095 * _NT + t] = 0
            if sqplain:
                if low or vmax > _SQ_HI:
                    flags |= F_RAW  # the NumPy engine takes the row
                for t in range(_NT):  # squares of inf / NaN / huge values: dropped
                    qtabs[2047 * _NT + t] = 0
                    qtabs[4095 * _NT + t] = 0
        else:
            emin = 2047
            emax = 0
            k = 0
            for j in range(i, j1):
                if use_mask and not mask[j]:
                    continue
                count += 1
                b = bits[j]
                if (b & np.uint64(0x7FF0000000000000)) == np.uint64(0x7FF0000000000000):
                    flags = _special(b, flags)
                    if skipnan and (b & np.uint64(0xFFFFFFFFFFFFF)) != 0:
                        count -= 1
                    continue
                e = _add_value(tabs, k, b)
                emin = min(emin, e + (e == 0) * 2047)  # zeros/subnormals: flushed always
                emax = max(emax, e)
                if squares:
                    if (e < _SQ_LO or e > _SQ_HI) and (b << np.uint64(1)) != 0:
                        flags |= F_RAW
                    else:
                        x = np.uint64(b).view(np.float64)
                        c = x * _VELTKAMP
                        xh = c - (c - x)
                        xl = x - xh
                        f = _add_value(qtabs, k, np.float64(xh * xh).view(np.uint64))
                        qmax = max(qmax, f)
                        qmin = min(qmin, f + (f == 0) * 2047)
                        f = _add_value(qtabs, k, np.float64(2.0 * xh * xl).view(np.uint64))
                        qmin = min(qmin, f + (f == 0) * 2047)
                        f = _add_value(qtabs, k, np.float64(xl * xl).view(np.uint64))
                        qmin = min(qmin, f + (f == 0) * 2047)
                k += 1
                if k == ntab:
                    k = 0
        _flush(tabs, ntab, emin, emax, dig, rng)
        if squares:  # the squares' parts: their own exponent range
            _flush(qtabs, ntab, qmin, qmax, qdig, qrng)
        i = j1
        if (j1 - i0) % (1 << 26) < block:  # keep every digit far from overflow
            if rng[0] <= rng[1]:
                rng[1] = carry_digits(dig, rng[0], rng[1]) + 1
            if squares and qrng[0] <= qrng[1]:
                qrng[1] = carry_digits(qdig, qrng[0], qrng[1]) + 1
    return count, flags


def new_state() -> Any:
    """The scratch state of the kernels: (tables, counts, square tables, digits, square
    digits, digit ranges, square digit ranges, scratch). The kernels leave it clean
    (tables and digits zero, counts full), so one state serves every call of a thread."""
    tabs = np.zeros(_NT * 4096, np.uint64)
    cnt = np.full(4096, 2048, np.int64)  # the counted mode's adds left per entry
    qtabs = np.zeros(_NT * 4096, np.uint64)
    dig = np.zeros(ND + 2, np.int64)
    qdig = np.zeros(ND + 2, np.int64)
    rng = np.array([ND, -1], np.int64)
    qrng = np.array([ND, -1], np.int64)
    scr = np.zeros(SCRATCH, np.int64)
    return tabs, cnt, qtabs, dig, qdig, rng, qrng, scr


# ------------------------------------------------------------------------- drivers

def rows_kernel(bits: np.ndarray, mask: np.ndarray, use_mask: Any, skipnan: Any, stat: Any,
                ddof: Any, out: np.ndarray, counts: np.ndarray, flags: np.ndarray, tabs: Any,
                cnt: Any,
                qtabs: Any, dig: Any, qdig: Any, rng: Any, qrng: Any,
                scr: Any) -> None:  # pragma: no cover - compiled
    """Per row of the (rows, n) float64 ``bits`` (uint64 view): the statistic's
    float64 bits into ``out``, the selected count and the special flags. With
    ``skipnan`` the statistic is that of the row's other values (NaNs flagged only)."""
    squares = stat == 2
    n = bits.shape[1]
    for r in range(bits.shape[0]):
        row = bits[r]
        mrow = mask[r] if use_mask else mask[0]
        c, f = _segment(row, mrow, use_mask, skipnan, 0, n, tabs, cnt, qtabs, squares, dig,
                        qdig, rng, qrng)
        counts[r] = c
        flags[r] = f
        if (f & ~(F_NAN | F_SNAN) if skipnan else f) != 0 or (squares and c - ddof <= 0):
            finish(0, dig, rng, qdig, qrng, c, ddof, scr)  # only clears: caller decides
            out[r] = 0
        else:
            out[r] = finish(stat, dig, rng, qdig, qrng, c, ddof, scr)


def grouped_kernel(bits: np.ndarray, mask: np.ndarray, use_mask: Any, codes: np.ndarray,
                   ngroups: Any, stat: Any, ddof: Any, out: np.ndarray, counts: np.ndarray,
                   flags: np.ndarray,
                   tabs: Any, cnt: Any, qtabs: Any, dig: Any, qdig: Any, rng: Any, qrng: Any,
                   scr: Any) -> None:  # pragma: no cover - compiled
    """Per group (``codes`` in [0, ngroups), -1 left out): the statistic's bits, count
    and flags. One pass counts, one scatters the selected values into per-group
    segments (a counting sort), then each segment is accumulated and finished."""
    n = bits.shape[0]
    for i in range(n):
        g = codes[i]
        if g >= 0 and (not use_mask or mask[i]):
            counts[g] += 1
    starts = np.empty(ngroups + 1, np.int64)
    starts[0] = 0
    for g in range(ngroups):
        starts[g + 1] = starts[g] + counts[g]
    buf = np.empty(max(starts[ngroups], 1), np.uint64)
    pos = starts[:ngroups].copy()
    for i in range(n):
        g = codes[i]
        if g >= 0 and (not use_mask or mask[i]):
            buf[pos[g]] = bits[i]
            pos[g] += 1
    squares = stat == 2
    for g in range(ngroups):
        c, f = _segment(buf, buf, False, False, starts[g], starts[g + 1], tabs, cnt, qtabs,
                        squares, dig, qdig, rng, qrng)
        flags[g] = f
        if f != 0 or c == 0 or (squares and c - ddof <= 0):
            finish(0, dig, rng, qdig, qrng, c, ddof, scr)
            out[g] = 0
        else:
            out[g] = finish(stat, dig, rng, qdig, qrng, c, ddof, scr)


def digits_kernel(bits: np.ndarray, mask: np.ndarray, use_mask: Any, squares: Any, sdig: np.ndarray,
                  qdig_out: np.ndarray, sneg: np.ndarray, counts: np.ndarray, flags: np.ndarray,
                  tabs: Any,
                  cnt: Any, qtabs: Any, dig: np.ndarray, qdig: np.ndarray, rng: np.ndarray,
                  qrng: np.ndarray, scr: Any) -> None:  # pragma: no cover - compiled
    """Per row: the exact sum (and sum of squares) as 32-bit magnitude digits in units
    of 2**-1074 (``sdig``/``qdig_out``, shape (rows, ND + 2)) and the sum's sign, for
    mergeable partials."""
    n = bits.shape[1]
    for r in range(bits.shape[0]):
        mrow = mask[r] if use_mask else mask[0]
        c, f = _segment(bits[r], mrow, use_mask, False, 0, n, tabs, cnt, qtabs, squares, dig,
                        qdig, rng, qrng)
        counts[r] = c
        flags[r] = f
        if rng[0] <= rng[1]:
            neg, _ = magnitude_of(dig, rng[0], rng[1])
            sneg[r] = neg
            sdig[r, :] = dig
            dig[:] = 0
        if squares and qrng[0] <= qrng[1]:
            magnitude_of(qdig, qrng[0], qrng[1])
            qdig_out[r, :] = qdig
            qdig[:] = 0
        rng[0] = ND
        rng[1] = -1
        qrng[0] = ND
        qrng[1] = -1


_HELPERS = ("_sq_part", "_sq_value", "_squares_block", "_flush_entry", "_flush",
            "_flush_one", "_counted", "_add_value", "_special", "_plain_block",
            "_masked_block", "_segment", *DIGIT_HELPERS)


def build() -> dict[str, Any]:
    """Compile the exact-sum kernels (the digit helpers compiled in their own module,
    :mod:`.exact_digits`, then bound here)."""
    bind(globals(), _HELPERS, build_helpers())
    return {"rows": jit(nogil=True)(rows_kernel),
            "grouped": jit(nogil=True)(grouped_kernel),
            "digits": jit(nogil=True)(digits_kernel)}


register("exact", build)
