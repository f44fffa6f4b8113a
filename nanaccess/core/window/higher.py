"""Rolling and expanding skew and kurt: certified per window, exact where needed.

:func:`slide_higher` serves float columns whose windows move forward
(:func:`.bounds.is_monotone` not required: every window reads two prefix rows) with
the prefix double-double power sums of :mod:`nanaccess.core._numba.window_powers`;
each window whose error bound proves the correctly rounded value gets it, the others
(and, under the policies that keep NaN, windows holding a NaN or missing value) are
handed back for the reference engine, so every window equals the plain statistic of
its values bit for bit.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...options import NanPolicy
from .. import _numba
from ..higher.cells import check_params
from ..policy import RULES
from .scan import Masks, window_counts

__all__ = ["slide_higher", "HIGHER_WINDOWED"]

#: the statistics served here
HIGHER_WINDOWED = ("skew", "kurt")
_CODE = {"skew": 0, "kurt": 1}


def _centre(col: np.ndarray, take: np.ndarray) -> tuple[float, float, float, int] | None:
    """``(c, f1, f2, E)``: a centre and a scaling ``f1 f2 = 2**-E`` bringing the
    largest ``|x - c|`` of the finite values taken near 1; None when there are none."""
    v = col[take]
    v = v[np.isfinite(v)]
    if not v.size:
        return None
    c = math.fsum(v.tolist()) / v.size if v.size < 4096 else float(np.mean(v))
    lo, hi = float(v.min()), float(v.max())
    c = min(max(c, lo), hi)
    m = max(hi - c, c - lo)
    if not (0.0 < m < math.inf):
        m = 1.0
    ex = math.frexp(m)[1]
    a = -ex // 2
    return c, math.ldexp(1.0, a), math.ldexp(1.0, -ex - a), ex


def slide_higher(x2: np.ndarray, masks: Masks, start: np.ndarray, end: np.ndarray,
                 stat: str, policy: NanPolicy, params: dict[str, Any], engine: str | None = None,
                 pairs: int = 0, min_pairs: int = 0,
                 ) -> tuple[np.ndarray, None, np.ndarray] | None:
    """``(values (nout, ncols), None, redo)`` of every window, ``redo`` marking the
    windows left to the reference engine; None when this engine does not serve the
    call (another statistic or dtype, or the NumPy engine: ``pairs`` (output,
    element) pairs below the sliding threshold under "auto")."""
    exact_ints = x2.dtype.kind in "iu" and (not x2.size or (
        int(x2.max()) <= 2 ** 53 and (x2.dtype.kind == "u" or int(x2.min()) >= -2 ** 53)))
    if stat not in HIGHER_WINDOWED or not (x2.dtype in (np.float64, np.float32) or
                                           exact_ints) or \
            not x2.dtype.isnative or _numba.choose_engine(
                engine, size=pairs, min_size=min_pairs) != "numba":
        return None
    p = check_params(stat, params)
    try:
        kern = _numba.kernels("window_powers")
    except Exception as exc:  # numba missing or broken: the reference engine
        _numba.fallback(exc, engine)
        return None
    n, ncols = x2.shape
    gone = None
    for mask in (masks.nan, masks.missing):
        if mask is not None:
            gone = mask if gone is None else (gone | mask)
    with np.errstate(invalid="ignore"):
        wide = x2.astype(np.float64, copy=False)
    s = np.ascontiguousarray(start, np.int64)
    e = np.ascontiguousarray(end, np.int64)
    values = np.empty((s.size, ncols), np.float64)
    redo = np.zeros((s.size, ncols), bool)
    ph = np.empty((n + 1, 4))
    pl = np.empty((n + 1, 4))
    pg = np.empty((n + 1, 2))
    cnt = np.empty(n + 1, np.int64)
    ninf = np.empty(n + 1, np.int64)
    for j in range(ncols):
        col = np.ascontiguousarray(wide[:, j])
        take = np.ones(n, bool) if gone is None else ~gone[:, j]
        got = _centre(col, take)
        c, f1, f2, ex = got if got is not None else (0.0, 1.0, 1.0, 0)
        for a in (ph, pl, pg):
            a[0] = 0.0
        cnt[0] = 0
        ninf[0] = 0
        ok = np.zeros(s.size, np.bool_)
        try:
            kern["prefix"](col, take, c, f1, f2, ph, pl, pg, cnt, ninf)
            kern["windows"](ph, pl, pg, cnt, ninf, s, e, _CODE[stat], bool(p["bias"]),
                            bool(p.get("fisher", True)), 0.0, ex, values[:, j], ok)
        except Exception as exc:  # a broken numba install: the reference engine
            _numba.fallback(exc, engine)
            return None
        redo[:, j] = ~ok
    if gone is not None and not RULES[policy].removes:
        redo |= window_counts(gone, s, e, ncols) > 0
    if x2.dtype == np.float32:  # float32 keeps its dtype; integers give float64
        with np.errstate(over="ignore"):
            values = values.astype(x2.dtype)
    return values, None, redo
