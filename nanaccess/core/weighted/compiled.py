"""The compiled engine of the weighted order statistics (float data, groups or one row).

Drives :mod:`nanaccess.core._numba.weighted`: the kernel lays the pairs of positive
weight out by group with their exact limbs and totals, the positions come from
:mod:`.positions` (vectorised over groups), the kernel selects the element at each
reach, and the values are combined and finished as in :mod:`.order`. It finds the
same elements as the NumPy engine (the smallest key whose cumulative weight reaches
each position, from the same exact pairs or float64 sums), so it gives the same bits.
"""

from __future__ import annotations

import numpy as np

from .._numba import choose_engine, kernels
from .._numba import weighted as _kernels  # noqa: F401 - registers the kernels
from ..plan import PICK_METHODS
from ..policy import RULES, finish
from .cumulative import reach_units
from .order import _combine, _sort_keys
from .positions import median_positions, weighted_positions
from .prepare import Prepared

__all__ = ["compiled_order", "use_compiled", "NUMBA_MIN_SIZE"]

#: pairs below which "auto" keeps the NumPy engine
NUMBA_MIN_SIZE = 50_000


def use_compiled(p: Prepared, engine: str | None = None) -> bool:
    """The compiled engine takes float data without kept missing values, when
    :func:`nanaccess.core._numba.choose_engine` picks numba for its size."""
    if p.x.dtype.kind != "f" or p.miss is not None or p.x.dtype.itemsize > 8:
        return False
    return choose_engine(engine, size=p.x.size, min_size=NUMBA_MIN_SIZE) == "numba"


def compiled_order(p: Prepared, codes: np.ndarray | None, ngroups: int, stat: str, policy,
                   qa, method: str, tails):
    """Weighted ``stat`` of every group of the prepared single row ``p`` (float data,
    no kept missing values); ``codes`` None: every row of ``p`` is a group. ``tails``:
    per group (NaN rows, NaN values, missing rows) or Nones. Returns ``(values (Q,
    ngroups), missing or None, pairs of positive weight per group)``."""
    nb = kernels("weighted")
    x = p.x.reshape(-1)
    w = np.ascontiguousarray(p.w, np.float64).reshape(-1)
    if codes is None:
        rows, n = p.x.shape
        codes = np.repeat(np.arange(rows, dtype=np.int64), n)
    flip = x.dtype == np.float64 and x.dtype.isnative and \
        RULES[policy].nan_rank not in ("first", "last")
    if flip:  # totalOrder keys made from the bits inside the kernel
        keys = np.ascontiguousarray(x).view(np.int64)
    else:
        keys = _sort_keys(p, policy).reshape(-1).astype(np.int64, copy=False)
    k, hi, lo, cf, src, starts, L, B, exact, last_h, last_l, total, counts = nb["prepare"](
        keys, flip, w, np.asarray(codes, np.int64), int(ngroups))
    if stat == "quantile":
        s_lo, s_hi, t = weighted_positions(total, np.asarray(qa, np.float64).ravel(), method)
        mode = "pick" if method in PICK_METHODS else "lerp"
    else:
        s_lo, s_hi, t = median_positions(total, stat)
        mode = "lerp" if stat == "median" else "pick"

    same = (s_hi is s_lo) or bool(np.array_equal(s_hi, s_lo))
    s = s_lo if same else np.concatenate([s_lo, s_hi])  # one resumable selection
    with np.errstate(invalid="ignore", over="ignore"):
        th, tl = reach_units(s, L, B, last_h, last_l)
    tf = np.where(s <= 0, np.nextafter(0.0, 1.0), np.minimum(s, total[None, :]))
    idx = nb["select"](k, hi, lo, cf, src, starts, B, exact, last_h, last_l,
                       np.ascontiguousarray(th),
                       np.ascontiguousarray(tl), np.ascontiguousarray(tf))
    nq = s_lo.shape[0]
    i_lo, i_hi = (idx, idx) if same else (idx[:nq], idx[nq:])
    a = x[np.maximum(i_lo, 0)] if x.size else np.zeros(i_lo.shape, x.dtype)
    b = x[np.maximum(i_hi, 0)] if x.size else a
    vals = _combine(stat, mode, a, b, t)
    empty = total == 0
    nan_rows, nan_values, miss_rows = (None if v is None else v[None, :] for v in tails)
    if miss_rows is not None and not miss_rows.any():
        miss_rows = None
    if nan_rows is not None and not nan_rows.any():
        nan_rows = nan_values = None
    res_miss = None
    if empty.any() or miss_rows is not None or nan_rows is not None:
        vals, res_miss = finish(vals, stat, empty=empty[None, :], nan_rows=nan_rows,
                                nan_values=nan_values, missing_rows=miss_rows)
    return vals, res_miss, counts
