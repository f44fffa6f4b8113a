"""The certified fast path of exact sums, means and variances (numba,
:mod:`nanaccess.core._numba.compensated` and ``compensated_var``): a compensated sum
with a proven error bound answers where the bound proves its rounding; the exact
engine takes the rest.

Each entry returns per cell (a row, a column, a group) the float64 value, a
``certified`` mask and the kernel's counts and NaN flags, or None when numba does
not serve the call. A certified value is the correctly rounded sum, mean or
variance, equal to the exact engine's bits by construction; the callers run the
exact engine on the cells not certified (zeros, infinities, NaN, ties and near-ties, heavy
cancellation, subnormal results). :func:`stats` counts both outcomes (for tests).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import _stats
from .. import _numba as nb

__all__ = ["certified_1d", "certified_1d_skipnan", "extracted_1d", "certified_rows",
           "certified_var_rows", "certified_var_1d", "certified_var_groups",
           "certified_cols", "certified_groups", "uncertified_groups", "stats", "reset_stats",
           "MODE_ALL", "MODE_MASK", "MODE_SKIPNAN", "F_NAN", "F_SNAN"]

MODE_ALL, MODE_MASK, MODE_SKIPNAN = 0, 1, 2
F_NAN, F_SNAN = 1, 2
#: inputs with fewer elements stay with the exact engines (as the compiled exact sums)
MIN_SIZE = 65
_MAX_COUNT = 1 << 33  # m * u < 1e-6 in the kernel's bound
_DUMMY2 = np.ones((1, 1), dtype=bool)
_F64 = np.dtype(np.float64)
_DUMMY_BITS2 = np.zeros((1, 1), dtype=np.uint64)
_STATS = {"certified": 0, "fallback": 0}


def stats() -> dict[str, int]:
    """How many cells the certified path answered, and how many it left to the
    exact engine, since :func:`reset_stats` (tests read it: a fallback really ran)."""
    return dict(_STATS)


def reset_stats() -> None:
    """Zero the counters of :func:`stats`."""
    _STATS["certified"] = _STATS["fallback"] = 0


def _kernels() -> Any:
    return nb.kernels("compensated")


def _count(ok: np.ndarray) -> None:
    """Add the cells certified and not certified to :func:`stats`."""
    k = int(np.count_nonzero(ok))
    _STATS["certified"] += k
    _STATS["fallback"] += ok.size - k


def _run_var(kind: str, *args: Any) -> Any:
    """Run variance kernel ``kind`` (it certifies itself; its last four arguments are
    its outputs): (values, ok, counts, flags), or None."""
    out, ok, counts, flags = args[-4:]
    try:
        nb.kernels("compensated_var")[kind](*args)
    except Exception as err:  # numba failed: the NumPy engine, from now on
        nb.fallback(err)
        return None
    _count(ok)
    return out, ok, counts, flags


def _operand(x: np.ndarray) -> np.ndarray:
    """float32/64 stay (the kernels widen each value exactly); float16 widens."""
    return x if x.dtype in (np.float64, np.float32) else x.astype(np.float64)


def _bits(x: np.ndarray, mode: int, dummy: np.ndarray) -> np.ndarray:
    return x.view(np.uint64) if mode == MODE_SKIPNAN else dummy


def _certify(s: Any, c: Any, b: Any, y: Any, counts: Any, stat: str) -> Any:
    out = np.empty(s.shape[0])
    ok = np.empty(s.shape[0], dtype=bool)
    from .._numba.compensated import LANES

    _kernels()["certify_kernel"](s, c, b, y, counts, stat in _stats.MEANS, LANES, out, ok)
    _count(ok)
    return out, ok


def _zeros(m: int) -> Any:
    """The kernels' outputs: s, c, b, the smallest nonzero magnitude, counts, flags."""
    return (np.zeros(m), np.zeros(m), np.zeros(m), np.full(m, np.inf), np.zeros(m, np.int64),
            np.zeros(m, np.int64))


def _run(kind: str, stat: str, *args: Any) -> Any:
    """Run kernel ``kind`` then certify: (values, ok, counts, flags), or None."""
    s, c, b, y, counts, flags = args[-6:]
    try:
        _kernels()[kind](*args)
        out, ok = _certify(s, c, b, y, counts, stat)
    except Exception as err:  # numba failed: the NumPy engine, from now on
        nb.fallback(err)
        return None
    return out, ok, counts, flags


def _usable(x: np.ndarray, n: int, stat: str, mode: int) -> bool:
    if stat not in _stats.LINEAR or n > _MAX_COUNT or x.dtype.kind != "f":
        return False
    if nb.choose_engine(size=x.size, min_size=MIN_SIZE) != "numba":
        return False
    # a conversion would quiet signaling NaNs: NaNs are found in the data's own bits
    return not (mode == MODE_SKIPNAN and x.dtype != np.float64)


def certified_1d(x: np.ndarray, stat: str) -> float | None:
    """The certified sum or mean of a 1-D contiguous float64 array, or None (not
    proven, or numba does not serve the call): the lean entry, one kernel call."""
    if stat not in _stats.LINEAR or x.size > _MAX_COUNT \
            or nb.choose_engine(size=x.size, min_size=MIN_SIZE) != "numba":
        return None
    try:
        val, ok = nb.kernels("compensated")["one_kernel"](x, stat in _stats.MEANS)
    except Exception as err:  # numba failed: the NumPy engine, from now on
        nb.fallback(err)
        return None
    _STATS["certified" if ok else "fallback"] += 1
    return val if ok else None


def certified_1d_skipnan(x: np.ndarray, stat: str) -> tuple[float, bool, int, int] | None:
    """``(value, certified, count, flags)`` of the sum or mean of the values of a 1-D
    contiguous float64 array that are not NaN (NaNs counted out and flagged ``F_NAN``,
    ``F_SNAN``), or None (numba does not serve the call): one kernel call, no arrays."""
    if stat not in _stats.LINEAR or x.size > _MAX_COUNT \
            or x.dtype is not _F64 and x.dtype != _F64 or not x.flags.c_contiguous \
            or nb.choose_engine(size=x.size, min_size=MIN_SIZE) != "numba":
        return None
    try:
        val, ok, count, flags = nb.kernels("compensated")["one_skipnan_kernel"](
            x, x.view(np.uint64), stat in _stats.MEANS)
    except Exception as err:  # numba failed: the NumPy engine, from now on
        nb.fallback(err)
        return None
    _STATS["certified" if ok else "fallback"] += 1
    return val, bool(ok), int(count), int(flags)


def extracted_1d(x: np.ndarray, stat: str, count: int) -> float | None:
    """The sum or mean (over ``count`` values) of a 1-D contiguous float64 array by
    error-free extraction (:mod:`nanaccess.core._numba.extract_sum`; NaNs read as 0),
    or None (not proven, or numba does not serve the call): the second certified pass
    of a row the compensated one refused (deep cancellation)."""
    if stat not in _stats.LINEAR or x.size > _MAX_COUNT or x.dtype != _F64 \
            or not x.flags.c_contiguous \
            or nb.choose_engine(size=x.size, min_size=MIN_SIZE) != "numba":
        return None
    try:
        val, ok = nb.kernels("extract_sum")["extract_one_kernel"](x, count,
                                                                  stat in _stats.MEANS)
    except Exception as err:  # numba failed: the NumPy engine, from now on
        nb.fallback(err)
        return None
    _STATS["certified" if ok else "fallback"] += 1
    return float(val) if ok else None


def certified_rows(x2: np.ndarray, w2: np.ndarray | None, stat: str, *,
                   skipnan: bool = False) -> Any:
    """Certified per-row ``stat`` ("sum" or "mean") of C-order ``(rows, n)`` floats.

    Parameters
    ----------
    x2 : numpy.ndarray
        float16/32/64 rows (float64 only with ``skipnan``).
    w2 : numpy.ndarray of bool or None
        Selection (as the exact engine's ``where``); None: every value.
    stat : str
    skipnan : bool
        Leave NaNs out, counting them (flags ``F_NAN``, ``F_SNAN`` per row).

    Returns
    -------
    (values, certified, counts, flags) or None
        float64 values valid where ``certified``.
    """
    mode = MODE_SKIPNAN if skipnan else MODE_ALL if w2 is None else MODE_MASK
    if not _usable(x2, x2.shape[1], stat, mode):
        return None
    x = np.ascontiguousarray(_operand(x2))
    mask = _DUMMY2 if w2 is None else np.ascontiguousarray(w2)
    return _run("rows_kernel", stat, x, mask, _bits(x, mode, _DUMMY_BITS2), mode,
                *_zeros(x.shape[0]))


def certified_cols(x: np.ndarray, w: np.ndarray | None, stat: str, *,
                   skipnan: bool = False) -> Any:
    """Certified ``stat`` over the leading axis of a C-order ``(n, cells)`` array (no
    transpose: the cells are the vector lanes); as :func:`certified_rows` per cell."""
    mode = MODE_SKIPNAN if skipnan else MODE_ALL if w is None else MODE_MASK
    if not _usable(x, x.shape[0], stat, mode) or not x.flags.c_contiguous:
        return None
    x = _operand(x)
    mask = _DUMMY2 if w is None else np.ascontiguousarray(w)
    if mode == MODE_SKIPNAN:  # the plain loop first (faster), then the cells it left
        got = _run("cols_kernel", stat, x, mask, _DUMMY_BITS2, MODE_ALL, *_zeros(x.shape[1]))
        if got is None or got[1].all():
            return got
        bad = np.flatnonzero(~got[1])
        if 4 * bad.size <= got[1].size:  # few: their columns as rows, skipping NaNs
            _STATS["fallback"] -= bad.size  # counted again below
            sub = certified_rows(np.ascontiguousarray(x[:, bad].T), None, stat, skipnan=True)
            if sub is None:
                return None
            for full, part in zip(got, sub, strict=True):
                full[bad] = part
            return got
        _STATS["fallback"] -= bad.size  # counted again below
        _STATS["certified"] -= got[1].size - bad.size
    return _run("cols_kernel", stat, x, mask, _bits(x, mode, _DUMMY_BITS2), mode,
                *_zeros(x.shape[1]))


def certified_groups(vals: np.ndarray, include: np.ndarray | None, codes: np.ndarray,
                     ngroups: int, stat: str, *, skipnan: bool = False) -> Any:
    """Certified per-group ``stat`` of 1-D floats (``codes`` in ``[0, ngroups)``, -1:
    no group; ``include``: rows taking part); as :func:`certified_rows` per group."""
    mode = MODE_SKIPNAN if skipnan else MODE_ALL if include is None else MODE_MASK
    if not _usable(vals, vals.shape[0], stat, mode):
        return None
    x = np.ascontiguousarray(_operand(vals))
    mask = _DUMMY2[0] if include is None else np.ascontiguousarray(include)
    return _run("grouped_kernel", stat, x, mask, _bits(x, mode, _DUMMY_BITS2[0]), mode,
                np.ascontiguousarray(codes, dtype=np.int64), *_zeros(ngroups))


def uncertified_groups(vals: np.ndarray, include: np.ndarray | None, codes: np.ndarray,
                       ok: np.ndarray) -> Any:
    """The rows of the groups not certified, in one compiled pass: ``(values, include
    or None, codes renumbered 0..k-1, group ids)`` for the exact kernel."""
    bad = np.flatnonzero(~ok)
    x = np.ascontiguousarray(_operand(vals))
    n = x.shape[0]
    sub_vals = np.empty(n, x.dtype)
    sub_mask = np.empty(n if include is not None else 1, bool)
    sub_codes = np.empty(n, np.int64)
    codes = np.ascontiguousarray(codes, dtype=np.int64)
    try:
        m = _kernels()["compact_kernel"](
            x, _DUMMY2[0] if include is None else np.ascontiguousarray(include),
            include is not None, codes, ok, np.empty(ok.size, np.int64), sub_vals, sub_mask,
            sub_codes)
    except nb.NotReady:  # it compiles in the background: the same rows by NumPy
        renum = np.full(ok.size + 1, -1, np.int64)  # the last slot: code -1, no group
        renum[bad] = np.arange(bad.size)
        sel = np.flatnonzero(renum[codes] >= 0)
        return (x[sel], None if include is None else np.asarray(include, bool)[sel],
                renum[codes[sel]], bad)
    return (sub_vals[:m], None if include is None else sub_mask[:m], sub_codes[:m], bad)


def certified_var_rows(x2: np.ndarray, w2: np.ndarray | None, ddof: float, *,
                       skipnan: bool = False) -> Any:
    """Certified per-row variances ``(n*Q - S**2) / (n*(n - ddof))`` of C-order
    ``(rows, n)`` floats (the exact engine's definition, correctly rounded; see
    :func:`nanaccess.core._numba.compensated_var.var_rows_kernel` for the bound).

    Parameters
    ----------
    x2 : numpy.ndarray
        float16/32/64 rows (float64 only with ``skipnan``).
    w2 : numpy.ndarray of bool or None
        Selection; None: every value.
    ddof : float
        An integer value (else None: the exact engine applies a fractional ``ddof``).
    skipnan : bool
        Leave NaNs out, counting them (flags ``F_NAN``, ``F_SNAN`` per row).

    Returns
    -------
    (values, certified, counts, flags) or None
        float64 values valid where ``certified`` (never a zero, subnormal, non-finite
        value, a tie or near-tie, nor a row with ``n - ddof <= 0``).
    """
    mode = MODE_SKIPNAN if skipnan else MODE_ALL if w2 is None else MODE_MASK
    if float(ddof) != int(ddof) or abs(ddof) >= _MAX_COUNT \
            or not _usable(x2, x2.shape[1], "sum", mode):
        return None
    x = np.ascontiguousarray(_operand(x2))
    mask = _DUMMY2 if w2 is None else np.ascontiguousarray(w2)
    rows = x.shape[0]
    out = np.empty(rows)
    ok = np.empty(rows, dtype=bool)
    counts = np.zeros(rows, np.int64)
    flags = np.zeros(rows, np.int64)
    return _run_var("var_rows_kernel", x, mask, _bits(x, mode, _DUMMY_BITS2), mode,
                    int(ddof), out, ok, counts, flags)


def certified_var_1d(x: np.ndarray, ddof: float, *, skipnan: bool = False
                     ) -> tuple[float, bool, int] | None:
    """``(value, certified, flags)`` of the variance of a 1-D float64 array
    (:func:`certified_var_rows` of its one row; ``skipnan``: NaNs left out and flagged),
    or None (numba does not serve the call). The lean entry of small data: any size
    (one kernel call costs less than the NumPy engine's set-up even for ten values)."""
    if x.dtype != _F64 or x.ndim != 1 or float(ddof) != int(ddof) \
            or abs(ddof) >= _MAX_COUNT or x.size > _MAX_COUNT \
            or nb.choose_engine(size=x.size) != "numba":
        return None
    x = np.ascontiguousarray(x)
    try:
        val, ok, _, flags = nb.kernels("compensated_var")["var_one_kernel"](
            x, x.view(np.uint64), skipnan, int(ddof))
    except Exception as err:  # numba failed: the NumPy engine, from now on
        nb.fallback(err)
        return None
    _STATS["certified" if ok else "fallback"] += 1
    return float(val), bool(ok), int(flags)


def certified_var_groups(vals: np.ndarray, include: np.ndarray | None, codes: np.ndarray,
                         ngroups: int, ddof: float, *, skipnan: bool = False) -> Any:
    """Certified per-group variances of 1-D floats (``codes`` in ``[0, ngroups)``, -1:
    no group; ``include``: rows taking part); as :func:`certified_var_rows` per group."""
    mode = MODE_SKIPNAN if skipnan else MODE_ALL if include is None else MODE_MASK
    if float(ddof) != int(ddof) or abs(ddof) >= _MAX_COUNT \
            or not _usable(vals, vals.shape[0], "sum", mode):
        return None
    x = np.ascontiguousarray(_operand(vals))
    mask = _DUMMY2[0] if include is None else np.ascontiguousarray(include)
    out = np.empty(ngroups)
    ok = np.empty(ngroups, dtype=bool)
    counts = np.zeros(ngroups, np.int64)
    flags = np.zeros(ngroups, np.int64)
    return _run_var("var_grouped_kernel", x, mask, _bits(x, mode, _DUMMY_BITS2[0]), mode,
                    np.ascontiguousarray(codes, dtype=np.int64), int(ddof), out, ok, counts,
                    flags)
