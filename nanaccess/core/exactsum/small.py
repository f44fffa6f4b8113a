"""Small inputs (at most ``numpy_var.SMALL`` elements in total).

There a few dozen NumPy calls cost far more than the data: Python integers are exact
and ``int / int`` is correctly rounded, so this path gives the same bits as the
vectorised engine (the tests check both against Fraction).
"""

from __future__ import annotations

import math
from typing import Any, cast

import numpy as np

from ... import _stats
from .common import CANONICAL_NAN, I64_MAX, SCALE, SumOverflowError, idiv


class _Row:
    __slots__ = ("s", "q", "count", "posinf", "neginf", "nan", "negzero")

    def __init__(self, row: list[Any], is_float: bool, squares: bool) -> None:
        self.s = self.q = 0
        self.count = len(row)
        self.posinf = self.neginf = self.nan = False
        self.negzero = is_float and bool(row)
        for v in row:
            if is_float:
                if v != v:
                    self.nan = True
                    continue
                if v in (math.inf, -math.inf):
                    self.posinf |= v > 0
                    self.neginf |= v < 0
                    continue
                if self.negzero and not (v == 0 and math.copysign(1.0, v) < 0):
                    self.negzero = False
                num, den = v.as_integer_ratio()
                k = num << (SCALE + 1 - den.bit_length())
            else:
                k = int(v)
            self.s += k
            if squares:
                self.q += k * k


def _small_rows(x2: Any, w2: Any) -> list[list[Any]]:
    vals = x2.tolist()
    if w2 is None:
        return cast("list[list[Any]]", vals)
    return [
        [v for v, k in zip(row, sel, strict=True) if k]
        for row, sel in zip(vals, w2.tolist(), strict=True)
    ]


def small_stat(x2: Any, w2: Any, lead: Any, kind: str, stat: str, ddof: float = 0) -> np.ndarray:
    is_float = kind == "float"
    scale = SCALE if is_float else 0
    out = []
    for r, row in enumerate(_small_rows(x2, w2)):
        a = _Row(row, is_float, stat in ("sumsq", "var"))
        n = a.count
        if a.nan or (a.posinf and a.neginf and stat != "sumsq"):
            out.append(CANONICAL_NAN)
        elif stat in _stats.SUMS and not is_float:
            if not -(1 << 63) <= a.s <= I64_MAX:
                raise SumOverflowError(r, lead, a.s)
            out.append(a.s)
        elif stat in _stats.VARIANCES:
            if a.posinf or a.neginf or n - ddof <= 0:
                out.append(CANONICAL_NAN)
                continue
            num = n * a.q - a.s * a.s
            if float(ddof) == int(ddof):
                out.append(idiv(num, (n * (n - int(ddof))) << (2 * scale)))
            else:
                out.append(idiv(num, (n * n) << (2 * scale)) * n / (n - ddof))
        elif a.posinf or a.neginf:
            out.append(math.inf if stat == "sumsq" or a.posinf else -math.inf)
        elif stat == "sumsq":
            out.append(idiv(a.q, 1 << (2 * scale)))
        elif stat in _stats.MEANS and n == 0:
            out.append(CANONICAL_NAN)
        elif a.s == 0:
            out.append(-0.0 if a.negzero else 0.0)
        else:
            out.append(idiv(a.s, (n if stat in _stats.MEANS else 1) << scale))
    dtype = np.int64 if (stat in _stats.SUMS and not is_float) else np.float64
    return np.array(out, dtype=dtype).reshape(lead)
