"""The certified fast path of the weighted mean, sum, var and std (rows or groups).

:mod:`nanaccess.core._numba.weighted_moments` sums ``w x`` and ``w`` per group in
double-double arithmetic with error bounds and certifies the correctly rounded ratio;
:mod:`nanaccess.core._numba.weighted_var` does the same for ``sum(w x**2)`` too and
certifies the variance ``(W Q - S**2) / (W (W - ddof))``. The groups certified get
exactly the bits of the exact engine (:mod:`.moments`; the std is the square root of
the rounded variance, as there), the others go to the exact engine. Compiled only
(numba); the exact engine stays the reference and the fallback.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from ... import _stats
from .. import _numba
from .._numba import choose_engine, kernels
from .prepare import Prepared

__all__ = ["eligible", "certified_sums", "MIN_SIZE"]

#: pairs below which "auto" keeps the exact engine alone (compiling costs more)
MIN_SIZE = 20_000


_SPREAD = ("var", "std")


def _exact_float(v: Any) -> bool:
    """``v`` is a float64 exactly (the kernel takes ``ddof`` as one)."""
    try:
        return cast("bool", float(v) == v)
    except (TypeError, ValueError, OverflowError):
        return False


def eligible(p: Prepared, stat: str, engine: str | None = None, *,
             ddof: float | None = None) -> bool:
    """Whether the fast path may try ``stat`` on ``p``: mean or sum of float data
    (mean of bool / int data within ``2**53`` too; var and std, given their ``ddof``,
    as the mean), no kept missing values, and the compiled engine chosen for the
    size."""
    spread = stat in _SPREAD and ddof is not None and _exact_float(ddof)
    if not (stat in _stats.LINEAR or spread) or p.miss is not None:
        return False
    kind = p.x.dtype.kind
    if kind == "f":
        if p.x.dtype.itemsize > 8:
            return False
    elif not (stat not in _stats.SUMS and kind in "biu"):
        return False  # an integer weighted sum may be exact int64: the exact engine's
    elif kind in "iu" and p.x.size and np.abs(p.x.astype(np.float64)).max() >= 2.0 ** 53:
        return False
    return choose_engine(engine, size=p.x.size, min_size=MIN_SIZE) == "numba"


def certified_sums(x: np.ndarray, w: np.ndarray, codes: np.ndarray | None, ngroups: int,
                   stat: str, engine: str | None = None, *, row: int = 0,
                   ddof: float | None = None) -> tuple[np.ndarray, np.ndarray] | None:
    """Per group (``codes``; -1 ignored; or ``row`` > 0: consecutive runs of ``row``
    pairs): ``(float64 values, certified)`` of the weighted ``stat`` ("mean", "sum",
    or "var" / "std" with their ``ddof``) of the 1-D pairs ``x``, ``w`` (weights 0
    for dropped pairs); None when numba fails (NumPy serves from then on). A
    certified std is the square root of the certified variance (the exact engine's
    bits)."""
    codes = np.zeros(0, np.int64) if codes is None else np.ascontiguousarray(codes, np.int64)
    xs = np.ascontiguousarray(x, np.float64).reshape(-1)
    ws = np.ascontiguousarray(w, np.float64).reshape(-1)
    if stat in _SPREAD and ddof is None:
        raise TypeError(f"certified weighted {stat} needs its ddof")
    try:
        if stat in _SPREAD:
            got, ok = kernels("weighted_var")["group_var"](xs, ws, codes, int(ngroups),
                                                          float(ddof), int(row))
            if stat in _stats.ROOTS:
                got = np.sqrt(got)
            return got, ok
        return cast("tuple[np.ndarray, np.ndarray] | None",
               kernels("weighted_moments")["group_moments"](
            xs, ws, codes, int(ngroups), stat in _stats.SUMS, int(row)))
    except Exception as exc:  # a broken numba install: the exact engine from here on
        _numba.fallback(exc, engine)
        return None


def certified_rows(p: Prepared, stat: str, engine: str | None = None, *,
                   ddof: float | None = None) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`certified_sums` with every row of ``p`` a group (None: not eligible)."""
    if not eligible(p, stat, engine, ddof=ddof):
        return None
    rows, n = p.w.shape
    if n == 0:
        return None
    return certified_sums(p.x, p.w, None, rows, stat, engine, row=n, ddof=ddof)
