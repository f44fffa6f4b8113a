"""The certified fast path of skew, kurt and sem (:mod:`nanaccess.core._numba.central_moments`).

Each cell's statistic is computed from double-double central power sums with a
rigorous error bound; where the bound proves the correctly rounded result, that
result is returned, and the cells it cannot decide (``ok`` False: ties, exact zeros,
extreme ranges, huge counts) go to the exact power sums of :mod:`.powers`. A
certified value is the correctly rounded exact value, so both paths give the same
bits. Without numba (or below a size threshold) every cell takes the exact path.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _numba as nb

__all__ = ["certified_rows", "certified_rows_nan", "certified_groups",
           "certified_groups_nan", "CERTIFIED"]

#: the statistics with a certified front pass, and the power sums each needs
CERTIFIED = {"skew": 3, "kurt": 4, "sem": 2}
_CODE = {"skew": 0, "kurt": 1, "sem": 2}
_MIN_SIZE = 256
_SEGMENT = 64  # mean values per cell from which groups take the one-pass kernel
#: float itemsize -> (its bits' dtype, every bit but the sign, the bits of +infinity,
#: the quiet bit of a NaN)
_BITS = {8: (np.uint64, np.uint64(0x7FFFFFFFFFFFFFFF), np.uint64(0x7FF0000000000000),
             np.uint64(1 << 51)),
         4: (np.uint32, np.uint32(0x7FFFFFFF), np.uint32(0x7F800000), np.uint32(1 << 22))}


def _args(stat: str, p: dict[Any, Any]) -> tuple[Any, ...]:
    return (
        CERTIFIED[stat],
        _CODE[stat],
        bool(p.get("bias", False)),
        bool(p.get("fisher", True)),
        float(p.get("ddof", 1)),
    )


def certified_rows(
    rows: np.ndarray, keep: np.ndarray | None, stat: str, p: dict[Any, Any]
) -> tuple[np.ndarray, np.ndarray] | None:
    """``(values, ok)`` per row of the float64 ``(cells, n)`` ``rows`` (``keep``: the
    values taken, or None for all), or None (no compiled engine)."""
    if stat not in CERTIFIED or nb.choose_engine(size=rows.size, min_size=_MIN_SIZE) != "numba":
        return None
    x = np.ascontiguousarray(rows, np.float64)
    k = np.ones(x.shape, np.bool_) if keep is None else np.ascontiguousarray(keep, np.bool_)
    out = np.empty(x.shape[0], np.float64)
    ok = np.zeros(x.shape[0], np.bool_)
    args = _args(stat, p)
    try:
        nb.kernels("central_fused")["rows"](x, k, *args, out, ok)
        if not ok.all():  # rows the one-pass kernel leaves open: the two-pass kernel
            redo = np.flatnonzero(~ok)
            o2 = np.empty(redo.size, np.float64)
            k2 = np.zeros(redo.size, np.bool_)
            nb.kernels("central_moments")["rows"](
                np.ascontiguousarray(x[redo]), np.ascontiguousarray(k[redo]), *args, o2, k2
            )
            out[redo] = o2
            ok[redo] = k2
    except Exception as err:  # numba failed: the exact engine, from now on
        nb.fallback(err)
        return None
    return out, ok


def certified_rows_nan(
    rows: np.ndarray, stat: str, p: dict[Any, Any]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool] | None:
    """``(values, ok, counts, signaling)`` per row of the float32, float64 or int64
    (exact doubles) ``(cells, n)`` ``rows`` with their NaNs left out (no mask: the
    kernel tests each value): ``counts`` the values each row took (-1 where ``ok`` is
    False), ``signaling`` whether a NaN of ``rows`` is signaling (looked for only when
    some row left NaNs out). None: no compiled engine. A row ``ok`` has the value
    :func:`certified_rows` gives with the NaNs' ``keep`` False, bit for bit."""
    if (stat not in CERTIFIED or rows.dtype not in (np.float32, np.float64, np.int64)
            or nb.choose_engine(size=rows.size, min_size=_MIN_SIZE) != "numba"):
        return None
    x = np.ascontiguousarray(rows)
    out = np.empty(x.shape[0], np.float64)
    ok = np.zeros(x.shape[0], np.bool_)
    cnt = np.empty(x.shape[0], np.int64)
    try:
        kern = nb.kernels("central_fused")
        # float32: a float64 copy (the kernel's lanes do not vectorise on float32; the
        # signaling bits are read off the float32 data below); int64 (every value an
        # exact double: the caller's check) as stored
        xk = np.ascontiguousarray(x, np.float64) if x.dtype == np.float32 else x
        kern["rows_nan"](xk, *_args(stat, p), out, ok, cnt)
        sig = False
        if ok.all() and (cnt < x.shape[1]).any():
            u, *consts = _BITS[x.dtype.itemsize]
            sig = bool(kern["signaling"](x.reshape(-1).view(u), *consts))
    except Exception as err:  # numba failed: the exact engine, from now on
        nb.fallback(err)
        return None
    return out, ok, cnt, sig


def certified_groups_nan(
    vals: np.ndarray, codes: np.ndarray, ncells: int, stat: str, p: dict[Any, Any]
) -> tuple[np.ndarray, np.ndarray, int, bool] | None:
    """``(values, ok, NaNs left out, any of them signaling)`` per cell of the float32
    or float64 1-D ``vals`` (``codes`` their cells, -1: not in any) with their NaNs
    left out by the counting sort itself (no policy scan, no mask), or None (no
    compiled engine, or cells too small on average for the one-pass kernel). A cell
    ``ok`` has the value :func:`certified_groups` gives it with the NaNs removed."""
    if (stat not in CERTIFIED or vals.dtype not in (np.float32, np.float64)
            or vals.size < _SEGMENT * ncells
            or nb.choose_engine(size=vals.size, min_size=_MIN_SIZE) != "numba"):
        return None
    v = np.ascontiguousarray(vals)
    u, *consts = _BITS[v.dtype.itemsize]
    try:
        kern = nb.kernels("central_fused")
        sv, starts, nnan, sig = kern["bucket_nan"](v, v.view(u), *consts,
                                                   np.ascontiguousarray(codes, np.int64), ncells)
        out = np.empty(ncells, np.float64)
        ok = np.zeros(ncells, np.bool_)
        kern["segments"](sv, starts, *_args(stat, p), out, ok)
    except Exception as err:  # numba failed: the exact engine, from now on
        nb.fallback(err)
        return None
    return out, ok, int(nnan), bool(sig)


def certified_groups(
    vals: np.ndarray, gid: np.ndarray, ncells: int, stat: str, p: dict[Any, Any]
) -> tuple[np.ndarray, np.ndarray] | None:
    """``(values, ok)`` per cell of the NaN-free 1-D ``vals`` (``gid`` their cells, -1:
    left out), or None (no compiled engine).

    Cells of ``_SEGMENT`` values or more on average: a counting sort gathers each
    cell's values (float32 read as they are, no converted copy) and the one-pass
    kernel takes each cell as a row; the cells it leaves open, and every cell of
    smaller groups, go to the two-pass scatter kernel."""
    if stat not in CERTIFIED or nb.choose_engine(size=vals.size, min_size=_MIN_SIZE) != "numba":
        return None
    args = _args(stat, p)
    g = np.ascontiguousarray(gid, np.int64)
    try:
        if vals.size >= _SEGMENT * ncells:
            kern = nb.kernels("central_fused")
            v = vals if vals.dtype in (np.float32, np.float64) else vals.astype(np.float64)
            sv, starts = kern["bucket"](np.ascontiguousarray(v), g, ncells)
            out = np.empty(ncells, np.float64)
            ok = np.zeros(ncells, np.bool_)
            kern["segments"](sv, starts, *args, out, ok)
            if ok.all():
                return out, ok
            # the cells left open: the scatter kernel over them alone
            g = np.where(ok[np.maximum(g, 0)], -1, g)
        else:
            out = np.empty(ncells, np.float64)
            ok = np.zeros(ncells, np.bool_)
        o2 = np.empty(ncells, np.float64)
        k2 = np.zeros(ncells, np.bool_)
        nb.kernels("central_moments")["grouped"](
            np.ascontiguousarray(vals, np.float64), g, *args, o2, k2
        )
    except Exception as err:  # numba failed: the exact engine, from now on
        nb.fallback(err)
        return None
    redo = ~ok
    out[redo] = o2[redo]
    ok[redo] = k2[redo]
    return out, ok
