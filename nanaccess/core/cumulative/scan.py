"""Cumulative statistics along an axis under every ``nan_policy``.

``cumsum`` (each prefix its exact sum rounded once), ``cumprod``, ``cummax``,
``cummin`` and ``cumcount`` (how many values the policy counts so far). Policies:

* "omit" (pandas' ``skipna=True``): a NaN position keeps its NaN (bits as stored), a
  missing position stays missing, and the running value skips them;
* "propagate": from the first NaN on, the NaN greatest under totalOrder so far (its
  payload kept); from the first missing value on (no NaN yet), missing;
* "smallest" / "largest" / "totalorder": ``cummax`` / ``cummin`` place each NaN by
  the policy's order (payload kept; missing values sort after everything);
  ``cumsum`` / ``cumprod`` propagate as the moments do;
* "raise": ``NaNError`` naming the first NaN (signaling NaNs raise except under
  "totalorder").

No loop per element or row: prefix sums through :mod:`.prefix`, maxima on totalOrder
keys with ``np.maximum.accumulate``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...options import NanPolicy, resolve_policy
from ..axes import Reduction
from ..keys import float_keys, keys_to_float, remap_keys, unmap_keys
from ..nanscan import scan_rows
from ..policy import RULES
from .prefix import prefix_sums, skipnan_extreme, skipnan_prefix

__all__ = ["cumulative", "CUMULATIVE"]

CUMULATIVE = ("cumsum", "cumprod", "cummax", "cummin", "cumcount")


def _running_nan(rows: np.ndarray, nan: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(seen a NaN so far, the totalOrder-greatest NaN so far as a value) per position."""
    k = float_keys(rows)
    low = k.dtype.type(np.iinfo(k.dtype).min)
    best = np.maximum.accumulate(np.where(nan, k, low), axis=1)
    seen = np.logical_or.accumulate(nan, axis=1)
    return seen, keys_to_float(best, rows.dtype.newbyteorder("="))


def _sums(vals: np.ndarray, skipped: np.ndarray | None = None) -> np.ndarray:
    """Exact prefix sums of float rows (NaN-free; infinities counted apart);
    ``skipped``: positions whose (zeroed) value takes no part in the sign of a zero."""
    r, n = vals.shape
    v = vals.astype(np.float64)
    inf = np.isinf(v)
    out_inf = None
    if inf.any():
        pos = np.cumsum(v == np.inf, axis=1) > 0
        neg = np.cumsum(v == -np.inf, axis=1) > 0
        out_inf = np.where(pos & neg, np.nan, np.where(pos, np.inf, -np.inf))
        v = np.where(inf, 0.0, v)
        has = pos | neg
    out = prefix_sums(v.reshape(-1), np.arange(r + 1) * n).reshape(r, n)
    # a zero prefix is -0.0 only when every value so far is -0.0 (IEEE addition)
    nz = (v == 0) & np.signbit(v)
    if skipped is not None:
        nz |= skipped
    negzero = np.logical_and.accumulate(nz, axis=1)
    out = np.where((out == 0) & negzero, -0.0, out)
    if out_inf is not None:
        out = np.where(has, out_inf, out)
    return out


def _int_sums(rows: np.ndarray) -> np.ndarray:
    """Exact integer prefix sums (int64; an OverflowError naming the position rather
    than a wrapped value, as the moments)."""
    a = rows.astype(np.int64) if rows.dtype.kind == "b" else rows
    bound = np.abs(a.astype(np.float64)).sum(axis=1).max(initial=0)
    if bound < 2.0 ** 62:
        return np.cumsum(a, axis=1, dtype=np.int64)
    obj = np.cumsum(a.astype(object), axis=1)
    big = np.vectorize(lambda v: not -(2 ** 63) <= v < 2 ** 63, otypes=[bool])(obj)
    if big.any():
        r, c = np.argwhere(big)[0]
        raise OverflowError(f"cumsum does not fit int64 from position {int(c)} (row {int(r)})")
    return obj.astype(np.int64)


def _extremes(rows: np.ndarray, keep: np.ndarray | None, stat: str,
              policy: NanPolicy) -> np.ndarray:
    """Running max/min on the policy's keys (payloads kept); ``keep``: positions that
    take part (the others hold the running value of those before them)."""
    kind = rows.dtype.kind
    if kind == "f":
        k = remap_keys(float_keys(rows), rows.dtype, policy)
    else:
        k = rows
    info = np.iinfo(k.dtype)
    fill = k.dtype.type(info.min if stat == "cummax" else info.max)
    if keep is not None:
        k = np.where(keep, k, fill)
    acc = np.maximum if stat == "cummax" else np.minimum
    out = acc.accumulate(k, axis=1)
    if kind == "f":
        return keys_to_float(unmap_keys(out, rows.dtype, policy), rows.dtype.newbyteorder("="))
    return out


def cumulative(x: Any, stat: str, *, axis: int = -1, policy: NanPolicy | str | None = None,
               missing: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """``stat`` running along ``axis`` of ``x``: ``(values, missing)`` of ``x``'s shape.

    Parameters
    ----------
    x : array_like
        float16/32/64, int/uint or bool data.
    stat : {"cumsum", "cumprod", "cummax", "cummin", "cumcount"}
    axis : int
        The axis to run along.
    policy : NanPolicy or str
        See the module docstring (None: the current default).
    missing : ndarray of bool, optional
        Missing entries (nullable / masked) of ``x``'s shape.

    Returns
    -------
    values : ndarray
        Floats keep their dtype (float32 prefix sums are the float64 correctly rounded
        ones, rounded to float32); ints and bools give int64 (``cumcount``: int64);
        ``cumprod`` of ints is exact int64 or an ``OverflowError``.
    missing : ndarray of bool or None
        Positions whose result is missing.

    Examples
    --------
    >>> cumulative(np.array([0.1] * 10), "cumsum", policy="raise")[0][-1]
    np.float64(1.0)
    >>> cumulative(np.array([1.0, np.nan, 3.0]), "cumsum", policy="omit")[0]
    array([ 1., nan,  4.])
    >>> cumulative(np.array([1.0, np.nan, 3.0]), "cummax", policy="smallest")[0]
    array([1., 1., 3.])
    """
    x = np.asarray(x)
    policy = resolve_policy(policy)
    if stat not in CUMULATIVE:
        raise ValueError(f"unknown cumulative statistic {stat!r}; expected one of {CUMULATIVE}")
    kind = x.dtype.kind
    if kind not in "fiub" or (kind == "f" and x.dtype.itemsize not in (2, 4, 8)):
        raise TypeError(f"{stat} needs float, int or bool data, got dtype {x.dtype}")
    if x.ndim == 0:
        x = x.reshape(1)
        if missing is not None:
            missing = np.asarray(missing).reshape(1)
    ax = axis % x.ndim
    xm = np.moveaxis(x, ax, -1)
    mm = None if missing is None else np.moveaxis(np.asarray(missing, bool), ax, -1)
    shape = xm.shape
    rows = xm.reshape(-1, shape[-1]) if shape[-1] else xm.reshape(-1, 0)
    miss = None if mm is None else mm.reshape(rows.shape)
    if miss is not None and not miss.any():
        miss = None
    rules = RULES[policy]
    mask = None if mm is None else np.asarray(missing, bool)
    omit_fast = kind == "f" and miss is None and rules.removes and not rules.orders_nans
    # "omit" on float64 (cummax / cummin: float32 too): the compiled pass flags a
    # signaling NaN itself, so no separate scan reads the data first
    fused = omit_fast and rows.dtype.isnative and (
        (stat in ("cummax", "cummin") and rows.dtype.itemsize in (4, 8))
        or (stat == "cumsum" and rows.dtype.itemsize == 8))
    if not fused:  # the policy's errors (raise, signaling NaNs), positions in x's shape
        scan_rows(x, Reduction.of(x, ax), policy, mask)
    if omit_fast:
        fast = None  # "omit": one compiled pass, NaNs kept in place (no NaN mask made)
        sig = np.zeros(1, np.int64)
        if stat == "cumsum" and rows.dtype.isnative and rows.dtype.itemsize in (4, 8):
            # float32: the float64 correctly rounded prefixes, rounded to float32 (quiet
            # NaNs keep their bits through the round trip; signaling ones raised above)
            fast = skipnan_prefix(rows.astype(np.float64, copy=False), sig)
            if fast is not None:
                fast = fast.astype(rows.dtype, copy=False)
        elif stat in ("cummax", "cummin") and rows.dtype.isnative and rows.dtype.itemsize > 2:
            # (numba has no float16)
            fast = skipnan_extreme(rows, stat, sig)
        if fused and (fast is None or sig[0]):
            scan_rows(x, Reduction.of(x, ax), policy, mask)  # raises a signaling NaN
        if fast is not None:
            return np.moveaxis(fast.reshape(shape), -1, ax), None
    nan = np.isnan(rows) if kind == "f" else None
    if nan is not None and not nan.any():
        nan = None
    gone = nan if miss is None else (miss if nan is None else nan | miss)

    if stat == "cumcount":
        counted = np.ones(rows.shape, np.int64) if not rules.removes or gone is None \
            else (~gone).astype(np.int64)
        out = np.cumsum(counted, axis=1)
        return np.moveaxis(out.reshape(shape), -1, ax), None

    ordered = rules.orders_nans and stat in ("cummax", "cummin")
    if stat in ("cummax", "cummin"):
        keep = None if ordered else (None if gone is None else ~gone)
        if ordered and miss is not None:
            keep = ~miss
        if kind == "f" and keep is not None and not ordered:
            clean = np.where(keep, rows, rows.dtype.type(0))
            out = _extremes(clean, keep, stat, policy)
            # before the first kept value there is no running value: NaN (missing)
            started = np.logical_or.accumulate(keep, axis=1)
            out = np.where(started, out, np.nan)
        else:
            out = _extremes(rows, keep, stat, policy)
    elif stat == "cumsum":
        if kind == "f":
            out = _sums(np.where(gone, 0.0, rows) if gone is not None else rows, gone)
            out = out.astype(rows.dtype.newbyteorder("="), copy=False)
        else:
            out = _int_sums(np.where(miss, 0, rows) if miss is not None else rows)
    else:  # cumprod: NumPy's running product (each step rounded), identities skipped
        if kind == "f":
            out = np.cumprod(np.where(gone, 1.0, rows) if gone is not None else rows, axis=1)
        else:
            obj = np.cumprod((np.where(miss, 1, rows) if miss is not None else rows)
                             .astype(object), axis=1)
            try:
                out = obj.astype(np.int64)
            except OverflowError:
                raise OverflowError("cumprod does not fit int64") from None
    res_miss = None
    if rules.removes or ordered:
        if nan is not None and not ordered:
            out = np.where(nan, rows, out)  # a NaN position keeps its NaN, as stored
        if miss is not None:
            res_miss = miss.copy()
            if ordered and stat == "cummax":
                res_miss = np.logical_or.accumulate(miss, axis=1)
    else:  # propagate (and the ordering policies for sums and products)
        if nan is not None:
            seen, best = _running_nan(rows, nan)
            if out.dtype.kind != "f":
                out = out.astype(np.float64)
            out = np.where(seen, best.astype(out.dtype), out)
        else:
            seen = np.zeros(rows.shape, bool)
        if miss is not None:
            res_miss = np.logical_or.accumulate(miss, axis=1) & ~seen
    if res_miss is not None and out.dtype.kind == "f":
        out = np.where(res_miss, np.nan, out)
    out = np.moveaxis(out.reshape(shape), -1, ax)
    if res_miss is not None:
        res_miss = np.moveaxis(res_miss.reshape(shape), -1, ax)
        if not res_miss.any():
            res_miss = None
    return out, res_miss
