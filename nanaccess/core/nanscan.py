"""The policy scan of a reduction: where the NaNs and missing values of ``x`` sit in
the ``(rows, n)`` layout the engines use (:class:`NanScan`), checked against the
policy once (:func:`scan_rows`), with the first offending position for the error and
the totalOrder keys of float rows made in the same pass (:func:`nan_key_blocks`).

A seam of :mod:`.classify` (which classifies values): this module decides what a
policy does with them before an engine runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, cast

import numpy as np

from ..options import NanPolicy
from .axes import Reduction
from .bits import as_bits, layout_of
from .classify import is_float_array
from .keys import number_keys
from .policy import RULES, NanTally, raise_for

__all__ = ["NanScan", "scan_rows", "nan_key_blocks", "nan_tally"]


class NanScan:
    """Where the NaNs and missing values of a reduction sit, in ``(rows, n)`` layout."""

    __slots__ = ("nan", "missing", "nnan", "nmiss")

    def __init__(self, nan: Any, missing: Any, nnan: Any, nmiss: Any) -> None:
        # bool (rows, n) NaN mask; None when there is no NaN or when the scan read
        # the keys block by block (then only the counts and the blocks are known)
        self.nan = nan
        self.missing = missing  # bool (rows, n), None when nothing is missing
        self.nnan = nnan  # int64 (rows,)
        self.nmiss = nmiss  # int64 (rows,)

    @property
    def has_nan(self) -> bool:
        return self.nan is not None or bool(self.nnan.any())

    @property
    def removed(self) -> np.ndarray | None:
        """bool mask of NaN or missing values (mask scans only)."""
        if self.nan is None:
            return cast("np.ndarray | None", self.missing)
        if self.missing is None:
            return cast("np.ndarray | None", self.nan)
        return cast("np.ndarray | None", self.nan | self.missing)


def _count_rows(mask: np.ndarray) -> np.ndarray:
    if mask.shape[0] == 1:
        return np.array([np.count_nonzero(mask)], dtype=np.int64)
    return cast("np.ndarray", np.count_nonzero(mask, axis=1).astype(np.int64))


def scan_rows(
    x: np.ndarray,
    red: Reduction,
    policy: NanPolicy,
    missing: np.ndarray | None = None,
    keys: np.ndarray | None = None,
    visit: Callable[..., None] | None = None,
) -> NanScan:
    """Find NaN / missing values of ``x`` in row layout and apply the policy's errors.

    ``keys`` (the ``(rows, n)`` totalOrder keys, when the caller has them) lets the
    scan read only the keys, one block at a time; ``visit(start, block, indices,
    nan_keys)`` is then called for every block holding NaNs (flat start in ``keys``, a
    writable view of the block, the NaNs' indices in it and their keys), and the scan
    keeps no positions.

    Raises
    ------
    SignalingNaNError
        A signaling NaN is present and the policy is not "totalorder".
    NaNError
        A NaN or missing value is present under "raise".
    """
    if keys is not None and x.dtype.kind == "f":
        return _scan_keys(x, red, policy, missing, keys, visit)
    nan = None
    if x.dtype.kind == "f" and x.size:
        buf, nan = red.empty_rows(bool)
        np.isnan(red.moved(x), out=buf)
        if not np.count_nonzero(nan):
            nan = None
    if x.dtype.kind in "mM":
        nat = np.isnat(x)
        if nat.any():
            missing = nat if missing is None else (missing | nat)
    miss_rows = None
    if missing is not None:
        missing = np.asarray(missing, dtype=bool)
        if missing.any():
            miss_rows = red.as_rows(missing)
            if nan is not None:
                nan &= ~miss_rows
                if not nan.any():
                    nan = None
    r = RULES[policy]
    if nan is not None and not r.signaling_allowed:
        lay = layout_of(x.dtype)
        bits = as_bits(red.as_rows(x))[nan]
        if r.nan_raises or (bits & lay.int_dtype.type(lay.quiet_bit) == 0).any():
            _raise_policy(x, policy, missing)
    if miss_rows is not None and r.missing_raises:
        _raise_policy(x, policy, missing)
    zeros = np.zeros(red.rows, dtype=np.int64)
    return NanScan(
        nan=nan,
        missing=miss_rows,
        nnan=_count_rows(nan) if nan is not None else zeros,
        nmiss=_count_rows(miss_rows) if miss_rows is not None else zeros,
    )


_SCAN_BLOCK = 1 << 15  # elements per block: NaN positions without a full-size mask


def nan_key_blocks(
    flat: np.ndarray, dtype: np.dtype, miss_flat: np.ndarray | None = None,
) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """Yield ``(start, block, local NaN indices)`` for the blocks of ``flat`` with NaNs.

    ``flat`` holds totalOrder keys of ``dtype`` data; NaN keys lie outside
    ``[INT_MIN + NPS, INT_MAX - NPS]``. ``block`` is a writable view of ``flat`` and
    missing positions (``miss_flat``) are not NaNs. The only scratch is two
    block-sized boolean buffers, reused for every block.
    """
    t = layout_of(dtype).int_dtype.type
    lo, hi = (t(k) for k in number_keys(layout_of(dtype)))
    size = min(_SCAN_BLOCK, flat.size)
    hit_buf, tmp_buf = np.empty(size, dtype=bool), np.empty(size, dtype=bool)
    for start in range(0, flat.size, _SCAN_BLOCK):
        blk = flat[start:start + _SCAN_BLOCK]
        hit, tmp = hit_buf[:blk.size], tmp_buf[:blk.size]
        np.less(blk, lo, out=hit)
        hit |= np.greater(blk, hi, out=tmp)
        if miss_flat is not None:
            hit &= ~np.asarray(miss_flat[start:start + _SCAN_BLOCK])
        if hit.any():
            yield start, blk, np.flatnonzero(hit)


def nan_tally(x: np.ndarray, missing: np.ndarray | None = None) -> NanTally:
    """The :class:`NanTally` of ``x`` (positions in its C order): NaNs, signaling
    NaNs, NaT and ``missing`` (a missing entry is never a NaN).

    Full-size masks: for the error path, not for the hot path.
    """
    miss = None if missing is None else np.asarray(missing, dtype=bool)
    if x.dtype.kind in "mM":
        nat = np.isnat(x)
        miss = nat if miss is None else (miss | nat)
    nan = sig = None
    if is_float_array(x):
        nan = np.isnan(x) if miss is None else (np.isnan(x) & ~miss)
        lay = layout_of(x.dtype)
        sig = nan & ((as_bits(x) & lay.int_dtype.type(lay.quiet_bit)) == 0)
    return NanTally.from_masks(nan=nan, signaling=sig, missing=miss)


def _raise_policy(x: Any, policy: NanPolicy, missing: Any) -> None:
    """Raise the error ``policy`` has for ``x`` (see :func:`policy.raise_for`)."""
    raise_for(nan_tally(x, missing), policy, shape=x.shape)


def _scan_keys(x: Any, red: Reduction, policy: NanPolicy, missing: Any, keys: np.ndarray,
               visit: Callable[..., None] | None) -> NanScan:
    """:func:`scan_rows` reading the NaNs off the ``(rows, n)`` totalOrder keys.

    Blocks of keys are scanned one at a time (:func:`nan_key_blocks`): the NaNs are
    counted per row, checked for the signaling bit, and handed to ``visit`` while the
    block is in cache. Nothing of full size is allocated (the spec's memory bound:
    one extra copy, the keys) and ``x`` is not read a second time.
    """
    lay = layout_of(x.dtype)
    t = lay.int_dtype.type
    rows, n = keys.shape
    flat = keys.reshape(-1)
    miss_rows = miss_flat = None
    if missing is not None:
        missing = np.asarray(missing, dtype=bool)
        if missing.any():
            miss_rows = red.as_rows(missing)
            miss_flat = miss_rows.reshape(-1)
    nnan = np.zeros(rows, dtype=np.int64)
    r = RULES[policy]
    for start, blk, idx in nan_key_blocks(flat, x.dtype, miss_flat):
        if r.nan_raises:
            _raise_policy(x, policy, missing)
        nk = blk[idx]
        if not r.signaling_allowed:
            bits = nk ^ ((nk >> (lay.bits - 1)) & t(lay.int_max))
            if (bits & t(lay.quiet_bit) == 0).any():
                _raise_policy(x, policy, missing)
        if rows == 1:
            nnan[0] += idx.size
        else:
            nnan += np.bincount((idx + start) // n, minlength=rows)
        if visit is not None:
            visit(start, blk, idx, nk)
    if miss_rows is not None and r.missing_raises:
        _raise_policy(x, policy, missing)
    return NanScan(
        nan=None,
        missing=miss_rows,
        nnan=nnan,
        nmiss=_count_rows(miss_rows) if miss_rows is not None else np.zeros(rows, np.int64),
    )
