"""The certified fast path of the weighted mean and sum (rows or groups).

:mod:`nanaccess.core._numba.weighted_moments` sums ``w x`` and ``w`` per group in
double-double arithmetic with error bounds and certifies the correctly rounded ratio;
the groups it certifies get exactly the bits of the exact engine
(:mod:`.moments`), the others go to the exact engine. Compiled only (numba); the
exact engine stays the reference and the fallback.
"""

from __future__ import annotations

import numpy as np

from .. import _numba
from .._numba import choose_engine, kernels
from .._numba import weighted_moments as _kernels  # noqa: F401 - registers the kernels
from .prepare import Prepared

__all__ = ["eligible", "certified_sums", "MIN_SIZE"]

#: pairs below which "auto" keeps the exact engine alone (compiling costs more)
MIN_SIZE = 20_000


def eligible(p: Prepared, stat: str, engine: str | None = None) -> bool:
    """Whether the fast path may try ``stat`` on ``p``: mean or sum of float data
    (mean of bool / int data within ``2**53`` too), no kept missing values, and the
    compiled engine chosen for the size."""
    if stat not in ("mean", "sum") or p.miss is not None:
        return False
    kind = p.x.dtype.kind
    if kind == "f":
        if p.x.dtype.itemsize > 8:
            return False
    elif not (stat == "mean" and kind in "biu"):
        return False  # an integer weighted sum may be exact int64: the exact engine's
    elif kind in "iu" and p.x.size and np.abs(p.x.astype(np.float64)).max() >= 2.0 ** 53:
        return False
    return choose_engine(engine, size=p.x.size, min_size=MIN_SIZE) == "numba"


def certified_sums(x: np.ndarray, w: np.ndarray, codes: np.ndarray | None, ngroups: int,
                   stat: str, engine: str | None = None, *, row: int = 0
                   ) -> tuple[np.ndarray, np.ndarray] | None:
    """Per group (``codes``; -1 ignored; or ``row`` > 0: consecutive runs of ``row``
    pairs): ``(float64 values, certified)`` of the weighted ``stat`` ("mean" or
    "sum") of the 1-D pairs ``x``, ``w`` (weights 0 for dropped pairs); None when
    numba fails (NumPy serves from then on)."""
    codes = np.zeros(0, np.int64) if codes is None else np.ascontiguousarray(codes, np.int64)
    try:
        return kernels("weighted_moments")["group_moments"](
            np.ascontiguousarray(x, np.float64).reshape(-1),
            np.ascontiguousarray(w, np.float64).reshape(-1), codes, int(ngroups),
            stat == "sum", int(row))
    except Exception as exc:  # a broken numba install: the exact engine from here on
        _numba.fallback(exc, engine)
        return None


def certified_rows(p: Prepared, stat: str, engine: str | None = None
                   ) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`certified_sums` with every row of ``p`` a group (None: not eligible)."""
    if not eligible(p, stat, engine):
        return None
    rows, n = p.w.shape
    if n == 0:
        return None
    return certified_sums(p.x, p.w, None, rows, stat, engine, row=n)
