"""Exact pair sums ``Sx, Sy, Sxx, Syy, Sxy`` as Python ints, for many pairs and segments.

The tables of :mod:`nanaccess.core._numba.bivariate` (read its docstring for the
layout): the compiled kernel fills them where numba serves, :func:`numpy_tables`
(the reference, vectorised with :func:`numpy.bincount` on row blocks small enough for
float64 weights to stay exact) everywhere else; both give the same integers.
:func:`table_ints` turns a table into the exact sum it stands for.

Columns are float64 here (float16/32 and ints up to ``2**53`` convert exactly); the
caller sends other integer columns to :func:`object_sums`, exact with Python ints.
"""

from __future__ import annotations

from typing import Any, NamedTuple, cast

import numpy as np

from .. import _numba as nb

__all__ = ["Segments", "PairTables", "exponent_bounds", "pair_tables", "numpy_tables", "table_ints",
           "object_sums"]

_BIN_ROWS = 1 << 14  # rows per bincount block: 3 products < 2**38 each, 2**14 rows < 2**53
_MIN_COMPILED = 4096  # rows x pairs below which NumPy answers (no compilation)
_PARALLEL = 1 << 20  # rows x pairs from which the cells run on numba's threads


def _const(name: str) -> int:
    """A layout constant of the compiled kernels (``CHUNK``, ``LIMB``, ``TABLES`` of
    :mod:`nanaccess.core._numba.bivariate`, imported on first use)."""
    return cast("int", getattr(nb.module("bivariate"), name))


class Segments(NamedTuple):
    """Rows cut into segments (groups): segment ``g`` is
    ``rows[starts[g]:starts[g+1]]`` (``rows`` None: the row numbers themselves)."""

    starts: np.ndarray
    rows: np.ndarray | None

    @classmethod
    def whole(cls, n: int) -> Segments:
        return cls(np.array([0, n], dtype=np.int64), None)


class PairTables(NamedTuple):
    """Exact sums per (segment, pair): ``tabs[g, p, t]`` the table of sum ``t`` (X, Y,
    XX, YY, XY), ``counts`` the rows summed, ``inf`` an infinity met, ``lbase`` the
    binary unit of the linear tables (products: ``2 * lbase``)."""

    tabs: np.ndarray
    counts: np.ndarray
    inf: np.ndarray
    lbase: int
    extra: np.ndarray | None = None

    def ints(self) -> np.ndarray:
        """The exact sums as Python ints, shape ``(G, P, 5)`` (object)."""
        out = table_ints(self.tabs)
        return out if self.extra is None else out + self.extra


def _lbase(bits: np.ndarray, valid: np.ndarray, use: str) -> tuple[int, int]:
    """(smallest exponent of a nonzero finite valid value, largest exponent)."""
    if use == "numba":
        out = np.zeros((bits.shape[0], 2), np.int64)
        nb.kernels("bivariate")["exp_range"](bits, valid, out)
        have = out[:, 0] <= out[:, 1]
        if not have.any():
            return 0, 0
        return int(out[have, 0].min()), int(out[have, 1].max())
    biased = (bits >> 52) & 0x7FF
    live = valid & (biased != 0x7FF) & ((bits & 0x7FFFFFFFFFFFFFFF) != 0)
    if not live.any():
        return 0, 0
    e = np.maximum(biased[live], 1) - 1075
    return int(e.min()), int(e.max())


def exponent_bounds(vals: np.ndarray, valid: np.ndarray, engine: str | None = None
                    ) -> tuple[int, int]:
    """(smallest, largest) exponent ``e`` (value ``m * 2**e``, ``m < 2**53``) of the
    nonzero finite valid values of ``(K, n)`` float64 columns; (0, 0) for none."""
    bits = np.ascontiguousarray(vals, dtype=np.float64).view(np.int64)
    valid = np.ascontiguousarray(valid, dtype=bool)
    use = nb.choose_engine(engine, size=bits.size, min_size=_MIN_COMPILED, warm="bivariate")
    if use == "numba":
        try:
            return _lbase(bits, valid, use)
        except Exception as err:  # numba failed: NumPy from now on
            nb.fallback(err, engine)
    return _lbase(bits, valid, "numpy")


def pair_tables(vals: np.ndarray, valid: np.ndarray, pairs: np.ndarray, mode: int,
                segments: Segments | None = None, engine: str | None = None,
                bounds: tuple[int, int] | None = None) -> PairTables:
    """Exact sums of column pairs over their rows (see the module docstring).

    Parameters
    ----------
    vals : numpy.ndarray
        ``(K, n)`` float64 columns.
    valid : numpy.ndarray of bool
        ``(K, n)``: the values that take part.
    pairs : numpy.ndarray of int64
        ``(P, 2)`` column indices.
    mode : {0, 1, 2}
        As :mod:`nanaccess.core._numba.bivariate`.
    segments : Segments, optional
        Default: one segment of every row.
    engine : str, optional
        "numpy", "numba" or None (the option).
    bounds : (int, int), optional
        Smallest and largest exponent of the values (as :func:`exponent_bounds`),
        when the caller has them: calls sharing them share the unit ``lbase``.
    """
    vals = np.ascontiguousarray(vals, dtype=np.float64)
    bits = vals.view(np.int64)
    valid = np.ascontiguousarray(valid, dtype=bool)
    pairs = np.ascontiguousarray(pairs, dtype=np.int64).reshape(-1, 2)
    K, n = vals.shape
    seg = Segments.whole(n) if segments is None else segments
    G, P = seg.starts.size - 1, pairs.shape[0]
    counts = np.zeros((G, P), np.int64)
    flags = np.zeros((G, P), np.int64)
    use = nb.choose_engine(engine, size=n * max(P, 1), min_size=_MIN_COMPILED,
                           warm="bivariate")
    if use == "numba":
        try:
            lo, hi = _lbase(bits, valid, use) if bounds is None else bounds
        except Exception as err:  # numba failed: NumPy from now on
            nb.fallback(err, engine)
            use = "numpy"
    if use == "numpy":
        lo, hi = _lbase(bits, valid, use) if bounds is None else bounds
    width = 2 * (hi - lo) + 5 * _const("LIMB") + 2
    tabs = np.zeros((G, P, _const("TABLES"), width), np.int64)
    if use == "numba":
        try:
            name = "pair_tables_parallel" if nb.parallel_ok(n * P, _PARALLEL) and G * P > 1 \
                else "pair_tables"
            kern = nb.kernels("bivariate")[name]
            extra = _run(kern, bits, valid, seg, pairs, mode, lo, tabs, counts, flags)
            return PairTables(tabs, counts, flags != 0, lo, extra)
        except Exception as err:  # numba failed: NumPy from now on
            nb.fallback(err, engine)
            tabs[...] = 0
            counts[...] = 0
            flags[...] = 0
    extra = _run(numpy_tables, bits, valid, seg, pairs, mode, lo, tabs, counts, flags)
    return PairTables(tabs, counts, flags != 0, lo, extra)


def _run(kern: Any, bits: Any, valid: Any, seg: Any, pairs: Any, mode: Any, lo: Any, tabs: Any,
         counts: Any, flags: Any) -> Any:
    """Run the kernel (or its reference); a segment longer than CHUNK rows (rare) is
    run in blocks whose tables become Python ints at once (an entry never holds more
    than CHUNK rows' products). Returns those ints per (segment, pair, table), or None."""
    starts = seg.starts
    rows = np.zeros(1, np.int64) if seg.rows is None else seg.rows
    chunk = _const("CHUNK")
    if int(np.diff(starts).max(initial=0)) <= chunk:
        kern(bits, valid, rows, seg.rows is not None, starts, pairs, mode, lo, 2 * lo, tabs,
             counts, flags)
        return None
    extra = np.zeros(tabs.shape[:-1], dtype=object)
    for g in range(starts.size - 1):
        for a in range(int(starts[g]), int(starts[g + 1]), chunk):
            b = min(a + chunk, int(starts[g + 1]))
            part = np.zeros((1,) + tabs.shape[1:], np.int64)
            c = np.zeros((1, counts.shape[1]), np.int64)
            f = np.zeros_like(c)
            kern(bits, valid, rows, seg.rows is not None, np.array([a, b], np.int64), pairs,
                 mode, lo, 2 * lo, part, c, f)
            extra[g] += table_ints(part[0])
            counts[g] += c[0]
            flags[g] |= f[0]
    return extra


def numpy_tables(bits: Any, valid: Any, rowmap: Any, use_rows: Any, starts: Any, pairs: Any,
                 mode: Any, lo: Any, plo: Any, tabs: Any, counts: Any,
                 flags: Any) -> None:
    """The NumPy reference of the kernel (same arguments; same tables, counts, flags)."""
    K = bits.shape[0]
    for g in range(starts.size - 1):
        a, b = int(starts[g]), int(starts[g + 1])
        rows = rowmap[a:b] if use_rows else np.arange(a, b)
        for p, (i, j) in enumerate(pairs.tolist()):
            assert 0 <= i < K and 0 <= j < K
            vi, vj = valid[i, rows], valid[j, rows]
            if mode == 2:
                sel = rows[vi]
                ok = _finite(bits[i, sel])
                counts[g, p] += int(ok.sum())
                flags[g, p] |= int(not ok.all())
                _side(tabs[g, p], 0, bits[i, sel[ok]], lo)
                continue
            both = rows[vi & vj]
            ok = _finite(bits[i, both]) & _finite(bits[j, both])
            counts[g, p] += int(ok.sum())
            flags[g, p] |= int(not ok.all())
            both = both[ok]
            _product(tabs[g, p, 4], bits[i, both], bits[j, both], 2 * lo)
            if mode == 0:
                _side(tabs[g, p], 0, bits[i, both], lo)
                _side(tabs[g, p], 1, bits[j, both], lo)
            else:
                _side(tabs[g, p], 0, bits[i, rows[vi & ~vj]], lo)
                _side(tabs[g, p], 1, bits[j, rows[vj & ~vi]], lo)


def _finite(b: np.ndarray) -> np.ndarray:
    return cast("np.ndarray", ((b >> 52) & 0x7FF) != 0x7FF)


def _parts(b: np.ndarray, lo: int) -> Any:
    biased = (b >> 52) & 0x7FF
    m = (b & 0xFFFFFFFFFFFFF) | ((biased > 0).astype(np.int64) << 52)
    e = np.maximum(np.maximum(biased, 1) - 1075, lo)  # a zero's exponent is any
    limb = _const("LIMB")
    mask = (1 << limb) - 1
    return b < 0, e, [m & mask, (m >> limb) & mask, m >> (2 * limb)]


def _product(tab: np.ndarray, b1: np.ndarray, b2: np.ndarray, pbase: int) -> None:
    n1, e1, a = _parts(b1, pbase // 2)
    n2, e2, c = _parts(b2, pbase // 2)
    sign = np.where(n1 != n2, -1, 1)
    k = e1 + e2 - pbase
    for s in range(5):
        t = sum((a[u] * c[s - u] for u in range(max(0, s - 2), min(2, s) + 1)),
                np.zeros_like(k))
        _scatter(tab, k + s * _const("LIMB"), sign * t)


def _side(tabs_gp: np.ndarray, side: int, b: np.ndarray, lo: int) -> None:
    ng, e, a = _parts(b, lo)
    sign = np.where(ng, -1, 1)
    for u in range(3):
        _scatter(tabs_gp[side], e - lo + u * _const("LIMB"), sign * a[u])
    _product(tabs_gp[side + 2], b, b, 2 * lo)


def _scatter(tab: np.ndarray, idx: np.ndarray, val: np.ndarray) -> None:
    """tab[idx] += val exactly (int64), in blocks where float64 bincount is exact."""
    for a in range(0, idx.size, _BIN_ROWS):
        tab += np.bincount(idx[a:a + _BIN_ROWS], weights=val[a:a + _BIN_ROWS].astype(np.float64),
                           minlength=tab.size)[: tab.size].astype(np.int64)


def table_ints(tabs: np.ndarray) -> np.ndarray:
    """Each table (last axis) as the exact Python int ``sum_k t[k] * 2**k`` (object
    array of the leading shape).

    Vectorised over tables: the entries are folded into 32-bit digits (an entry at bit
    ``k`` lands on digits ``k // 32`` and the next two, split as signed high and low
    halves), carries are propagated over the digits, and each table's digits become
    one int through :meth:`int.from_bytes` (the signed top digit added apart).
    """
    lead = tabs.shape[:-1]
    flat = tabs.reshape(-1, tabs.shape[-1])
    rows, w = flat.shape
    out = np.empty(rows, dtype=object)
    if rows == 0:
        return out.reshape(lead)
    ngrp = -(-w // 32)
    dig = np.zeros((rows, ngrp + 3), np.int64)
    if not _compiled_digits(flat, dig):
        _numpy_digits(flat, dig, ngrp)
    low = np.ascontiguousarray(dig[:, :-1]).astype("<u4").tobytes()
    width = 4 * (dig.shape[1] - 1)
    top = dig[:, -1].tolist()
    shift = 32 * (dig.shape[1] - 1)
    for i in range(rows):
        out[i] = int.from_bytes(low[i * width:(i + 1) * width], "little") + (top[i] << shift)
    return out.reshape(lead)


def _compiled_digits(flat: np.ndarray, dig: np.ndarray) -> bool:
    if nb.choose_engine(None, size=flat.size, min_size=1 << 16, warm="bivariate") != "numba":
        return False
    try:
        nb.kernels("bivariate")["table_digits"](np.ascontiguousarray(flat), dig)
        return True
    except Exception as err:  # numba failed: NumPy from now on
        nb.fallback(err)
        dig[...] = 0
        return False


def _numpy_digits(flat: np.ndarray, dig: np.ndarray, ngrp: int) -> None:
    """The NumPy reference of the compiled ``table_digits``."""
    rows = flat.shape[0]
    live = flat.any(axis=0)
    pad = np.zeros((32, rows, ngrp), np.int64)  # [bit in digit, table, digit]
    for k in np.flatnonzero(live).tolist():
        pad[k & 31, :, k >> 5] = flat[:, k]
    m32 = np.int64(0xFFFFFFFF)
    for r in range(32):
        if not live[r::32].any():
            continue
        v = pad[r]
        t0 = (v & m32) << r
        t1 = (v >> 32) << r
        dig[:, :ngrp] += t0 & m32
        dig[:, 1:ngrp + 1] += (t0 >> 32) + (t1 & m32)
        dig[:, 2:ngrp + 2] += t1 >> 32
    for j in range(dig.shape[1] - 1):
        c = dig[:, j] >> 32
        dig[:, j] -= c << 32
        dig[:, j + 1] += c


def object_sums(x: np.ndarray, y: np.ndarray) -> tuple[int, int, int, int, int]:
    """Exact ``(Sx, Sy, Sxx, Syy, Sxy)`` of integer arrays, as Python ints."""
    xs = [int(v) for v in x.tolist()]
    ys = [int(v) for v in y.tolist()]
    return (sum(xs), sum(ys), sum(v * v for v in xs), sum(v * v for v in ys),
            sum(a * b for a, b in zip(xs, ys, strict=True)))
