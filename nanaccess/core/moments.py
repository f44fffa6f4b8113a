"""Moment statistics (mean, var, std, sum, count) under every ``nan_policy``.

Sums are exact and rounded once (:mod:`nanaccess.core.exactsum`), so every result
is the same, bit for bit, for every permutation of the input. Under "propagate",
"smallest", "largest" and "totalorder" a row holding NaN gives the NaN that is
greatest under totalOrder, as stored (spec table and section 3).
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from .. import _stats
from ..options import NanPolicy, resolve_policy
from ._numba import choose_engine
from .axes import Reduction
from .bits import any_signaling
from .classify import canonical_nan
from .exactsum import exact_mean, exact_sum, exact_var
from .exactsum.axis import axis_moments
from .exactsum.certified import (
    F_NAN,
    F_SNAN,
    certified_1d_skipnan,
    certified_cols,
    certified_rows,
    certified_var_1d,
    extracted_1d,
)
from .exactsum.certified_numpy import certified_numpy_1d
from .exactsum.compiled import compiled_rows_skipnan
from .exactsum.narrow import round_narrow
from .keys import float_keys, keys_to_float
from .nanscan import scan_rows
from .objects import object_rows_moment_stat
from .policy import RULES

__all__ = ["moment_stat", "MOMENT_STATS"]

MOMENT_STATS = _stats.names("moment", "count")
_ONE_PASS = (np.dtype(np.float64), np.dtype(np.float32))  # native byte order only


def _check_dtype(dtype: np.dtype, stat: str) -> None:
    kind = dtype.kind
    if kind == "c":
        raise TypeError(f"complex data ({dtype}) is not supported by nanaccess")
    if kind == "f" and dtype.itemsize not in (2, 4, 8):
        raise TypeError(f"dtype {dtype}: convert to float64 or an object array of Decimals")
    if kind == "M" and stat in _stats.DATETIME_REFUSED:
        raise TypeError(f"{stat} of datetime64 data is not defined")
    if kind not in "fiubmMO":
        raise TypeError(f"{stat} needs numeric data, got dtype {dtype}")


def temporal_mean(rows: np.ndarray, where: np.ndarray | None) -> np.ndarray:
    """Mean of int64 (datetime/timedelta) rows in exact integers, truncated toward
    zero as NumPy's and pandas' timedelta means: ``trunc(S / n)`` of the exact row sum
    ``S`` (two int64 limbs, no float64 pass: every nanosecond of a present-day
    datetime64[ns] kept). Rows with nothing selected give NaT's integer."""
    from .exactsum.common import counts
    from .exactsum.digits import int_hilo

    x2 = rows.reshape(-1, rows.shape[-1]) if rows.ndim else rows.reshape(1, 1)
    w2 = None if where is None else np.broadcast_to(where, rows.shape).reshape(x2.shape)
    n = counts(x2, w2)
    hi, lo = int_hilo(x2, w2)  # S = hi * 2**32 + lo, 0 <= lo < 2**32
    nat = np.iinfo(np.int64).min
    if (n >= 1 << 31).any():  # remainders times 2**32 could pass int64: Python ints
        sums = [(int(h) << 32) + int(low) for h, low in zip(hi, lo, strict=True)]
        return temporal_mean_of_sums(sums, n.tolist()).reshape(rows.shape[:-1])
    d = np.maximum(n, 1)
    q1 = hi // d  # floor division of S by d in two steps, limb by limb
    r1 = hi - q1 * d
    rem = (r1 << 32) + lo
    q0 = rem // d
    mean = (q1 << 32) + q0  # floor(S / d): within int64, as the values are
    mean = mean + ((hi < 0) & (rem - q0 * d != 0))  # toward zero, as NumPy and pandas
    return np.where(n == 0, nat, mean).reshape(rows.shape[:-1])


def temporal_mean_of_sums(sums: list[int], counts: list[int]) -> np.ndarray:
    """:func:`temporal_mean` from exact integer sums (Python ints) and counts: the
    merged partials of the dask path."""
    nat = np.iinfo(np.int64).min
    return np.array([nat if c == 0 else (s // c) + (1 if s < 0 and s % c else 0)
                     for s, c in zip(sums, counts, strict=True)], np.int64)


def result_dtype(vals: np.ndarray, dtype: np.dtype, stat: str) -> np.ndarray:
    """Cast exact float64/int64 results to NumPy's result dtype for ``dtype`` data:
    floats keep theirs; datetime/timedelta means and sums keep theirs (NaT where not
    finite); std of datetimes/timedeltas is a timedelta64 of the data's unit (as
    pandas); the timedelta variance (a squared unit) is float64."""
    kind = dtype.kind
    native = dtype.newbyteorder("=")
    if kind == "f":
        with np.errstate(over="ignore"):  # beyond the narrow range: an infinity
            return vals.astype(native)
    if kind in "mM" and stat in _stats.LINEAR:
        bad = ~np.isfinite(vals.astype(np.float64)) if vals.dtype.kind == "f" else None
        iv = np.rint(vals).astype(np.int64) if vals.dtype.kind == "f" else vals.astype(np.int64)
        if bad is not None and bad.any():
            iv[bad] = np.iinfo(np.int64).min
        return iv.view(native)
    if kind in "mM" and stat in _stats.ROOTS:
        # a spread of times is a duration in the data's unit, as pandas' Timedelta:
        # truncated toward zero as pandas casts it; NaT where not finite
        unit = np.datetime_data(native)[0]
        f = np.asarray(vals, dtype=np.float64)
        bad = ~np.isfinite(f)
        iv = np.trunc(np.where(bad, 0.0, f)).astype(np.int64)
        iv[bad] = np.iinfo(np.int64).min
        return iv.view(f"m8[{unit}]")
    if kind == "m":
        return vals.astype(np.float64)
    return vals


def _leading(x: np.ndarray, red: Reduction, stat: str,
             policy: NanPolicy) -> np.ndarray | None:
    """Sum or mean by the certified compensated kernels: over the leading axes of a
    C-order float32/64 array in place (the cells are the vector lanes, no transpose),
    or along rows of float32 data. The values when every cell is certified (float64:
    NaNs found in the same pass and left to the policy as in :func:`_one_pass`; cells
    not certified go to the exact kernel), else None (the general path)."""
    if stat not in _stats.LINEAR:
        return None
    skipnan = x.dtype == np.float64
    if red.axes and red.axes == tuple(range(len(red.axes))) and red.rows > 1 \
            and x.flags.c_contiguous:
        x2 = x.reshape(red.n, red.rows)
        got = certified_cols(x2, None, stat, skipnan=skipnan)
        cells = x2.T
    elif skipnan:
        return None  # float64 rows: the one-pass rows below
    else:  # float32 rows (a copy only where the general path copies too)
        cells = red.as_rows(x)
        got = certified_rows(cells, None, stat)
    if got is None:
        return None
    vals, ok, _, flags = got
    if skipnan:
        if not RULES[policy].drops_silently(bool((flags & F_NAN).any()),
                                            bool((flags & F_SNAN).any())):
            return None
        if not ok.all():
            bad = np.flatnonzero(~ok)
            sub = compiled_rows_skipnan(np.ascontiguousarray(x2[:, bad].T), stat)
            if sub is None:
                return None
            vals[bad] = sub[0]
    elif not ok.all():
        return None  # a NaN, an infinity, a zero, a tie: the general path decides
    return _narrowed(vals, result_dtype(vals, x.dtype, stat), stat, 0, cells, None)


def _narrowed(vals: np.ndarray, out: np.ndarray, stat: str, ddof: float,
              rows: np.ndarray, where: np.ndarray | None) -> np.ndarray:
    """float32/16 results rounded once from the exact value (not through float64):
    the cells of ``rows`` (selection ``where``) whose float64 value sits on a narrow
    midpoint are recomputed exactly (:mod:`nanaccess.core.exactsum.narrow`)."""
    if out.dtype.kind != "f" or out.dtype.itemsize >= 8 or vals.dtype != np.float64:
        return out

    def cell_rows(idx: Any) -> Any:
        with np.errstate(invalid="ignore"):  # a signaling NaN quieted: left out
            got = np.array(rows[idx], dtype=np.float64)
        if where is not None:
            got[~np.asarray(where)[idx]] = np.nan
        return got

    return round_narrow(vals, out, stat, ddof, cell_rows)


def _axis_pass(x: np.ndarray, red: Reduction, stat: str, ddof: float,
               policy: NanPolicy) -> np.ndarray | None:
    """float32/64 data reduced over a run of axes in place (float64: more than one
    cell; :func:`nanaccess.core.exactsum.axis.axis_moments`): the values when no cell
    holds a NaN or the policy removes them quietly, else None."""
    if not red.axes or x.ndim == 0 or (red.rows == 1 and x.dtype == np.float64):
        return None
    got = axis_moments(x, red.axes, red.out_shape, stat, ddof)
    if got is None:
        return None
    vals, nan, sig = got
    return vals if RULES[policy].drops_silently(nan, sig) else None


def _one_pass(x: np.ndarray, red: Reduction, stat: str, ddof: float,
              policy: NanPolicy) -> np.ndarray | None:
    """float32/64 data in one compiled pass that finds the NaNs while it sums (no
    scan): one float64 row by the lean kernel, a run of axes of a C/F array in place
    (:func:`_axis_pass`), else rows; the values when no cell holds a NaN or the policy
    removes them quietly; None (the scan and the general path decide, raise or
    propagate) otherwise."""
    if red.rows == 1 and x.dtype == np.float64 and x.flags.c_contiguous:
        return _one_row(x.reshape(-1), stat, ddof, policy)
    got = _axis_pass(x, red, stat, ddof, policy)
    if got is not None:
        return got
    got = _leading(x, red, stat, policy)
    if got is not None or x.dtype != np.float64:
        return got
    skip = compiled_rows_skipnan(red.as_rows(x), "var" if stat in _stats.ROOTS else stat, ddof)
    if skip is None:
        return None
    vals, nan, sig = skip
    if not RULES[policy].drops_silently(bool(nan.any()), bool(sig.any())):
        return None
    if stat in _stats.ROOTS:
        with np.errstate(invalid="ignore"):
            vals = np.sqrt(vals)
    return vals


def _one_row(row: np.ndarray, stat: str, ddof: float, policy: NanPolicy
             ) -> np.ndarray | None:
    """One contiguous float64 row by the lean certified kernel (one call, no arrays),
    the exact kernel alone where it refuses: the value when the row holds no NaN or
    the policy removes them quietly, else None (the scan and the general path)."""
    var = stat not in _stats.LINEAR
    got = certified_var_1d(row, ddof, skipnan=True) if var \
        else certified_1d_skipnan(row, stat)
    if got is None:
        return None
    val, ok, flags = got[0], got[1], got[-1]
    if not RULES[policy].drops_silently(bool(flags & F_NAN), bool(flags & F_SNAN)):
        return None
    if not ok and not var:  # deep cancellation: the extraction pass, then the exact kernel
        ext = extracted_1d(row, stat, got[2])
        ok = ext is not None
        val = ext if ext is not None else val
    if ok:
        vals = np.array([val])
    else:
        sub = compiled_rows_skipnan(row.reshape(1, -1), "var" if var else stat, ddof,
                                    certify=False)
        if sub is None:
            return None
        vals = sub[0]
    if stat in _stats.ROOTS:
        with np.errstate(invalid="ignore"):
            vals = np.sqrt(vals)
    return vals


def _numpy_certified(x: np.ndarray, red: Reduction, stat: str,
                     policy: NanPolicy) -> np.ndarray | None:
    """Without numba: the sum or mean of one float row by the NumPy engine's certified
    pass (:mod:`nanaccess.core.exactsum.certified_numpy`), before the NaN scan. A row
    whose plain sum is NaN is probed for NaNs (one pass); when the policy removes them
    quietly the certified pass runs on the other values (one compressing copy). A
    certified value saw no NaN and no infinity; None (the scan and the general path
    decide) otherwise."""
    if stat not in _stats.LINEAR or red.rows != 1 or choose_engine(size=x.size) != "numpy":
        return None
    row = red.as_rows(x)
    vals_in = row[0]
    with np.errstate(all="ignore"):
        probe = np.add.reduce(vals_in)
    if probe != probe:  # a NaN (or infinities of both signs): leave the NaNs out
        nan = np.isnan(vals_in)
        if not nan.any() or not RULES[policy].drops_silently(True, any_signaling(
                vals_in[nan])):
            return None
        vals_in = vals_in[~nan]
        row = vals_in.reshape(1, -1)
    val = certified_numpy_1d(vals_in, stat)
    if val is None:
        return None
    vals = np.array([val])
    return _narrowed(vals, result_dtype(vals, x.dtype, stat), stat, 0, row, None)


def moment_stat(
    x: Any,
    stat: str,
    *,
    axis: int | tuple[int, ...] | None = None,
    ddof: float = 0,
    policy: NanPolicy | str | None = NanPolicy.RAISE,
    missing: np.ndarray | None = None,
    keepdims: bool = False,
) -> tuple[np.ndarray, np.ndarray | None]:
    """Moment statistic ``stat`` of ``x`` along ``axis`` under ``policy``.

    Returns ``(values, missing)`` as :func:`nanaccess.core.select.order_stat`.

    Examples
    --------
    >>> from nanaccess.core.moments import moment_stat
    >>> moment_stat(np.array([1.0, np.nan, 3.0]), "mean", policy="omit")[0]
    array(2.)
    """
    x = np.asarray(x)
    policy = resolve_policy(policy)
    if stat not in MOMENT_STATS:
        raise ValueError(f"unknown moment statistic {stat!r}; expected one of {MOMENT_STATS}")
    _check_dtype(x.dtype, stat)
    if x.dtype.kind == "O":
        return cast("tuple[np.ndarray, np.ndarray | None]",
               object_rows_moment_stat(x, stat, ddof=ddof, axis=axis, policy=policy,
                                       missing=missing, keepdims=keepdims))
    red = Reduction.of(x, axis)
    if missing is None and x.dtype in _ONE_PASS and stat not in _stats.COUNTS:
        got = _one_pass(x, red, stat, ddof, policy)
        if got is None:
            got = _numpy_certified(x, red, stat, policy)
        if got is not None:
            return red.finish(got, keepdims), None
    sc = scan_rows(x, red, policy, missing)
    removed = sc.removed
    where = None if removed is None else ~removed
    count = red.n - sc.nnan - sc.nmiss
    if stat in _stats.COUNTS:
        return red.finish(count, keepdims), None

    kind = x.dtype.kind
    native = x.dtype.newbyteorder("=")
    rows = red.as_rows(x)
    if kind in "mM":
        rows = rows.view(np.int64)
    elif kind == "b":
        rows = rows.astype(np.int64)
    if stat in _stats.SUMS:
        vals = exact_sum(rows, where)
    elif stat in _stats.MEANS and kind in "mM":
        vals = temporal_mean(rows, where)
    elif stat in _stats.MEANS:
        vals = exact_mean(rows, where)
    else:
        with np.errstate(invalid="ignore"):
            vals = exact_var(rows, ddof, where)
            if stat in _stats.ROOTS:
                vals = np.sqrt(vals)
    vals = np.asarray(vals)
    if vals.ndim == 0:
        vals = vals.reshape(1)

    vals = _narrowed(vals, result_dtype(vals, x.dtype, stat), stat, ddof, rows, where)

    res_missing = None
    if RULES[policy].moment_propagates:
        if sc.nan is not None:
            # the NaN greatest under totalOrder, as stored
            k = float_keys(rows) if kind == "f" else None
            kmin = np.iinfo(k.dtype).min
            best = np.where(sc.nan, k, k.dtype.type(kmin)).max(axis=1)
            pv = keys_to_float(best, native)
            has = sc.nnan > 0
            vals = np.where(has, pv.astype(vals.dtype), vals)
        if sc.missing is not None:
            mrow = (sc.nmiss > 0) & (sc.nnan == 0)
            if mrow.any():
                res_missing = mrow
                if vals.dtype.kind == "f":
                    vals = np.where(mrow, canonical_nan(vals.dtype), vals)
                elif vals.dtype.kind in "mM":
                    vals = np.where(mrow, np.array("NaT", dtype=vals.dtype), vals)
    out = red.finish(vals, keepdims)
    return out, None if res_missing is None else red.finish(res_missing, keepdims)
