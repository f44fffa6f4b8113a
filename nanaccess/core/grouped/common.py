"""What the grouped engines share: the NaN scan (raising through the policy module),
keys and their inverse, per-group counts, the propagated NaN, the code sort."""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from ...options import NanPolicy
from ..bits import layout_of
from ..keys import float_keys, integer_keys, keys_to_float, unmap_keys
from ..policy import RULES, NanTally, empty_value, raise_for

__all__ = ["scan", "keys_of", "values_of_keys", "group_counts", "greatest_nan",
           "radix_argsort_codes", "raise_in_group", "Rescan", "widen"]


class Rescan(Exception):
    """A column met what the deferred NaN scan must report: scan (and raise) now."""


def widen(values: np.ndarray, holes: np.ndarray | None) -> np.ndarray:
    """Int / bool picks with ``holes`` (results with no value) as NumPy hosts hold
    them: float64 with the canonical NaN in each hole, as pandas and xarray give an
    int column's empty group (the picks round to float64 then); else ``values``.

    Examples
    --------
    >>> widen(np.array([3, 0, 2]), np.array([False, True, False]))
    array([ 3., nan,  2.])
    """
    if holes is None or values.dtype.kind in "fmMO" or not holes.any():
        return values
    out = values.astype(np.float64)
    out[holes] = empty_value(out.dtype, "median")
    return out


def raise_in_group(mask: np.ndarray, codes: np.ndarray, one_d: bool, policy: NanPolicy,
                   kind: str) -> None:
    """Raise what ``policy`` has for the first ``mask`` entry (C order), counting the
    offending entries of its group and column; ``kind``: "signaling", "nan" or
    "missing" (a :class:`~nanaccess.core.policy.NanTally` field)."""
    n, ncols = mask.shape
    flat = int(np.flatnonzero(mask.ravel())[0])
    row, col = divmod(flat, ncols)
    g = int(codes[row])
    count = int(np.count_nonzero(mask[codes == g, col]))
    tally = NanTally(**{kind: count, f"first_{kind}": flat})
    raise_for(tally, policy, shape=(n,) if one_d else (n, ncols), subject=f"group {g}",
              group=g)


def scan(
    x2: np.ndarray,
    codes: np.ndarray,
    policy: NanPolicy,
    miss2: np.ndarray | None,
    one_d: bool,
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """(nan mask, missing mask) restricted to grouped rows; raises the policy errors
    (signaling NaNs, then NaNs, then missing values: the contract's order)."""
    in_group = (codes >= 0)[:, None]
    everyone = not codes.size or int(codes.min()) >= 0  # no row outside every group
    nan = None
    if x2.dtype.kind == "f":
        with np.errstate(all="ignore"):
            maybe = x2.size and np.isnan(np.add.reduce(x2, axis=None))
        if maybe:
            nan = np.isnan(x2)
            if not everyone:
                nan &= in_group
            if miss2 is not None:
                nan &= ~miss2
            if not nan.any():
                nan = None
    miss = None
    if miss2 is not None:
        miss = miss2 & in_group
        if not miss.any():
            miss = None
    r = RULES[policy]
    if nan is not None and not r.signaling_allowed:
        lay = layout_of(x2.dtype)
        bits = x2.view(lay.int_dtype.newbyteorder(x2.dtype.byteorder))
        # the NaNs' bits only (NaNs are few; the data is not)
        at = np.divmod(np.flatnonzero(nan), nan.shape[1])
        quiet = (bits[at] & lay.int_dtype.type(lay.quiet_bit)) != 0
        if not quiet.all():
            sig = np.zeros(nan.shape, bool)
            sig[at[0][~quiet], at[1][~quiet]] = True
            raise_in_group(sig, codes, one_d, policy, "signaling")
    if nan is not None and r.nan_raises:
        raise_in_group(nan, codes, one_d, policy, "nan")
    if miss is not None and r.missing_raises:
        raise_in_group(miss, codes, one_d, policy, "missing")
    return nan, miss


def keys_of(col: np.ndarray) -> np.ndarray:
    """Integer keys of a column (totalOrder keys of floats)."""
    if col.dtype.kind == "f":
        return float_keys(col)
    return integer_keys(col)


def values_of_keys(k: np.ndarray, dt: np.dtype, policy: NanPolicy) -> np.ndarray:
    """Invert :func:`keys_of` (after any remap) to values of ``dt`` (native order)."""
    if dt.kind == "f":
        if RULES[policy].nan_rank in ("first", "last"):
            k = unmap_keys(k.copy(), dt, policy)
        return keys_to_float(k, dt)
    nat = dt.newbyteorder("=")
    if dt.kind == "b":
        return k.astype(bool)
    if dt.kind in "mM":
        return k.astype(np.int64).view(nat)
    if dt.kind == "u" and dt.itemsize == 8:
        return cast("np.ndarray", np.bitwise_xor(k, np.int64(-(1 << 63))).view(np.uint64))
    return k.astype(nat)


def group_counts(codes: np.ndarray, mask: np.ndarray | None, ngroups: int) -> np.ndarray:
    """How many rows of each group ``mask`` marks (int64; zeros without a mask)."""
    if mask is None:
        return np.zeros(ngroups, np.int64)
    return np.bincount(codes[mask], minlength=ngroups).astype(np.int64)


def greatest_nan(col: Any, nan: Any, codes: Any, ngroups: Any) -> Any:
    """(has NaN per group, the group's greatest NaN under totalOrder as a value)."""
    if nan is None:
        return None, None
    k = float_keys(col[nan])
    g = codes[nan]
    lay = layout_of(col.dtype)
    best = np.full(ngroups, lay.int_min, dtype=lay.int_dtype)
    np.maximum.at(best, g, k)
    has = np.bincount(g, minlength=ngroups) > 0
    return has, keys_to_float(best, col.dtype).copy()


def radix_argsort_codes(cc: np.ndarray, ngroups: int) -> np.ndarray:
    """Stable argsort of non-negative codes: LSD radix with 16 bits a pass."""
    if ngroups <= 1 << 16:
        return np.argsort(cc.astype(np.uint16), kind="stable")
    order = np.argsort((cc & 0xFFFF).astype(np.uint16), kind="stable")
    shift = 16
    while (ngroups - 1) >> shift:
        digit = ((cc[order] >> shift) & 0xFFFF).astype(np.uint16)
        order = order[np.argsort(digit, kind="stable")]
        shift += 16
    return order
