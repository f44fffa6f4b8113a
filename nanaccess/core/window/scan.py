"""The NaN scan of windowed statistics: what the policy forbids, in the first window.

One vectorised pass per kind (signaling NaN, NaN, missing: the contract's order):
prefix counts of the kind give each window's count, the first window holding one is
found with ``argmax``, and :func:`nanaccess.core.policy.raise_for` raises naming the
output (``err.group``) and the element's position in ``x`` (``err.position``).
Adapters relabel both (the window's label, the NaN's label).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np

from ...options import NanPolicy
from ..bits import layout_of
from ..policy import RULES, NanTally, raise_for
from ..spread import object_kinds

__all__ = ["Masks", "masks_of", "check", "window_counts"]


@dataclass(frozen=True)
class Masks:
    """``(n, ncols)`` masks of NaNs (quiet and signaling), signaling NaNs and missing
    values (None: none there). NaNs never overlap missing entries."""

    nan: np.ndarray | None
    signaling: np.ndarray | None
    missing: np.ndarray | None


def masks_of(x2: np.ndarray, miss2: np.ndarray | None) -> Masks:
    """The :class:`Masks` of 2-D native data (NaT is missing)."""
    kind = x2.dtype.kind
    nan = sig = None
    if kind == "f":
        nan = np.isnan(x2)
        if miss2 is not None:
            nan &= ~miss2
        if nan.any():
            lay = layout_of(x2.dtype)
            bits = x2.view(lay.int_dtype.newbyteorder(x2.dtype.byteorder))
            sig = nan & ((bits & lay.int_dtype.type(lay.quiet_bit)) == 0)
            sig = sig if sig.any() else None
        else:
            nan = None
    elif kind in "mM":
        nat = np.isnat(x2)
        if nat.any():
            miss2 = nat if miss2 is None else (miss2 | nat)
    elif kind == "O":
        kinds = object_kinds(x2)
        nan = kinds == "nan"
        if miss2 is not None:
            nan &= ~miss2
        gone = kinds == "missing"
        miss2 = gone if miss2 is None else (miss2 | gone)
        nan = nan if nan.any() else None
    if miss2 is not None and not miss2.any():
        miss2 = None
    return Masks(nan, sig, miss2)


def window_counts(mask: np.ndarray | None, start: np.ndarray, end: np.ndarray,
                  ncols: int) -> np.ndarray:
    """How many ``mask`` entries each window holds: int64 ``(nout, ncols)``."""
    if mask is None:
        return np.zeros((start.size, ncols), np.int64)
    if ncols == 1:  # one column: a contiguous 1-D prefix sum
        c1 = np.zeros(mask.shape[0] + 1, np.int64)
        np.cumsum(mask.ravel(), out=c1[1:])
        return cast("np.ndarray", (c1[end] - c1[start])[:, None])
    c = np.zeros((mask.shape[0] + 1, ncols), np.int64)
    np.cumsum(mask, axis=0, out=c[1:])
    return cast("np.ndarray", c[end] - c[start])


def check(m: Masks, start: np.ndarray, end: np.ndarray, policy: NanPolicy,
          shape: tuple[int, ...]) -> None:
    """Raise what ``policy`` has for the first window holding a forbidden value.

    ``shape`` is the data's shape ((n,) or (n, ncols)): the error's ``position``
    indexes it; ``group`` is the output (window) number.
    """
    for kind in RULES[policy].refused:
        mask = getattr(m, kind)
        if mask is None:
            continue
        ncols = mask.shape[1]
        per = window_counts(mask, start, end, ncols)
        hit = per > 0
        if not hit.any():
            continue
        i, col = divmod(int(np.argmax(hit.ravel())), ncols)
        row = int(start[i]) + int(np.argmax(mask[start[i]:end[i], col]))
        flat = row * ncols + col if len(shape) > 1 else row
        tally = NanTally(**{kind: int(per[i, col]), f"first_{kind}": flat})
        raise_for(tally, policy, shape=shape, subject=f"window {i}", group=i)
