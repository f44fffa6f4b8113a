"""Exact moments (sum, mean, var, std, count) of array-API data.

The device reduces the data to exact integers in one pass (:mod:`.bins`, which also
counts the NaNs and flags infinities and all-``-0.0`` rows): the sum ``S`` of each
row's finite values (NaNs never enter a bin) and, for var/std, the sum ``Q`` of their squares, each
square first split exactly into three float64 terms (Veltkamp:
``x*x = xh*xh + 2*xh*xl + xl*xl``, every product exact for ``2**-480 <= |x| <=
2**480``; data outside that range go to the host). The host puts ``S``, ``Q``, the
counts and the IEEE flags into :class:`nanaccess.core.exactsum.ExactPartials` and
rounds once with the NumPy core's :func:`~nanaccess.core.exactsum.round_sum` /
``round_mean`` / ``round_var``: the bits of the CPU engines, whichever order the
device added in.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _stats
from ..core.axes import Reduction
from ..core.exactsum import ExactPartials, round_mean, round_sum, round_var
from ..core.exactsum.common import SCALE as _SCALE
from ..core.keys import keys_to_float
from ..core.moments import result_dtype
from ..core.policy import RULES
from ..options import NanPolicy
from ._shim import bits_view, np_dtype, to_numpy
from .bins import exact_ints, summarize
from .common import as_rows, per_row, survey
from .order import HostNeeded

__all__ = ["moment_xp"]

_SPLIT = float(2**27 + 1)  # Veltkamp's constant for binary64
_SQ_LO, _SQ_HI = 2.0**-480, 2.0**480


def _obj(values: list[int]) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _square_ints(x2: Any, xp: Any) -> list[int]:
    """Per row, the exact sum of squares of the finite values times ``2**2148``."""
    finite = xp.isfinite(x2)
    v = xp.where(finite, x2, xp.zeros_like(x2))  # no NaN is cast
    v = v if np_dtype(v) == np.float64 else xp.astype(v, xp.float64)
    mag = xp.abs(v)
    big = float(to_numpy(xp.max(mag)))
    small = float(to_numpy(xp.min(xp.where(mag > 0, mag, xp.full_like(mag, np.inf)))))
    if big > _SQ_HI or small < _SQ_LO:
        raise HostNeeded("squares beyond the exact split's range")
    t = v * _SPLIT  # one operation per kernel: nothing is fused or contracted
    xh = t - (t - v)
    xl = v - xh
    total = None
    for term in (xh * xh, (xh * xl) * 2.0, xl * xl):
        ints = exact_ints(bits_view(term, xp), xp)
        total = ints if total is None else [a + b for a, b in zip(total, ints, strict=True)]
    return [s << _SCALE for s in total]


def moment_xp(x: Any, xp: Any, stat: str, red: Reduction, policy: NanPolicy, *,
              ddof: float = 0, keepdims: bool = False
              ) -> tuple[np.ndarray, np.ndarray | None]:
    """``(values, None)`` with the bits of :func:`nanaccess.core.moments.moment_stat`
    for float32/float64 array-API data; :class:`HostNeeded` where the NumPy core must
    answer (errors, empty axes, squares out of the split's range)."""
    if red.n == 0:
        raise HostNeeded("empty reduction")
    r = RULES[policy]
    dtype = np_dtype(x).newbyteorder("=")
    x2 = as_rows(x, xp, red)
    sm = summarize(x2, xp)  # one pass: exact sums and the NaN counts
    has_nan = bool(sm.nnan.any())
    if has_nan and (r.nan_raises or (bool(sm.nsig.any()) and not r.signaling_allowed)):
        raise HostNeeded("the policy raises")  # the NumPy core names the position
    count = red.n - sm.nnan
    if stat in _stats.COUNTS:
        return red.finish(count, keepdims), None
    q = _obj(_square_ints(x2, xp)) if stat in _stats.SQUARES else None
    rows = x2.shape[0]
    p = ExactPartials(_obj(sm.s), q, count, sm.posinf, sm.neginf, np.zeros(rows, bool),
                      sm.negzero, False, False)
    if stat in _stats.SUMS:
        vals = round_sum(p)
    elif stat in _stats.MEANS:
        vals = round_mean(p)
    else:
        with np.errstate(invalid="ignore"):
            vals = round_var(p, ddof)
            if stat in _stats.ROOTS:
                vals = np.sqrt(vals)
    vals = result_dtype(np.asarray(vals).reshape(-1), dtype, stat)
    if r.moment_propagates and has_nan:  # the NaN greatest under totalOrder, as stored
        sv = survey(x2, xp)
        best = to_numpy(per_row(xp.max, xp.where(sv.nan, sv.keys, sv.lay.int_min), xp))
        pv = keys_to_float(best.astype(sv.lay.int_dtype), dtype)
        vals = np.where(sm.nnan > 0, pv.astype(vals.dtype), vals)
    return red.finish(vals, keepdims), None
