"""skew, kurt and sem from exact power sums, rounded once with integer arithmetic.

With ``T_k = sum(x**k) * 2**(1074 k)`` (exact ints) and ``n`` values, the central sums
scaled to integers are

* ``A2 = n T2 - T1**2``                               (``n M2`` in units)
* ``A3 = n**2 T3 - 3 n T1 T2 + 2 T1**3``              (``n**2 M3``)
* ``A4 = n**3 T4 - 4 n**2 T1 T3 + 6 n T1**2 T2 - 3 T1**4``  (``n**3 M4``)

so the biased skewness is ``g1 = A3 / A2**1.5`` and the biased excess kurtosis
``g2 = A4 / A2**2 - 3``: every scale factor cancels. pandas' bias-corrected forms
(scipy's ``bias=False``) are ``G1 = g1 sqrt(n (n-1)) / (n-2)`` and
``G2 = ((n**2 - 1) A4 / A2**2 - 3 (n-1)**2) / ((n-2)(n-3))``. kurt and squared skew are
rationals, rounded once by Python's correctly rounded ``int / int``; the skew is the
correctly rounded square root of its square (an integer square root with a sticky
bit). sem is ``sqrt(A2 / (n**2 (n - ddof)) ) * 2**-1074``, rounded the same way.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

__all__ = ["central", "skew_values", "kurt_values", "sem_values", "round_sqrt"]

_NAN = float("nan")


def central(n: int, t: list[int]) -> tuple[int, ...]:
    """``(A2, A3, A4)`` (as many as ``t`` allows) from ``n`` and ``[T1, T2, ...]``."""
    t1, t2 = t[0], t[1]
    a2 = n * t2 - t1 * t1
    out = [a2]
    if len(t) > 2:
        out.append(n * n * t[2] - 3 * n * t1 * t2 + 2 * t1 ** 3)
    if len(t) > 3:
        out.append(n ** 3 * t[3] - 4 * n * n * t1 * t[2] + 6 * n * t1 * t1 * t2 - 3 * t1 ** 4)
    return tuple(out)


def round_sqrt(num: int, den: int) -> float:
    """``sqrt(num / den)`` correctly rounded (``num >= 0``, ``den > 0``).

    Examples
    --------
    >>> round_sqrt(2, 1) == 2 ** 0.5
    True
    """
    if num == 0:
        return 0.0
    # scale so the integer root carries 60+ bits; the sticky bit keeps rounding exact
    k = max(0, (den.bit_length() - num.bit_length()) // 2 + 62)
    big = num << (2 * k)
    q, rem = divmod(big, den)
    r = math.isqrt(q)
    sticky = 1 if (rem or r * r != q) else 0
    try:
        return (2 * r + sticky) / (1 << (k + 1))
    except OverflowError:
        return math.inf


def _rat(num: int, den: int) -> float:
    try:
        return num / den
    except OverflowError:
        return math.inf if (num > 0) == (den > 0) else -math.inf


def skew_values(n: np.ndarray, t: list[np.ndarray], bias: bool) -> np.ndarray:
    """Skewness per cell (float64). Fewer than 3 values (``bias=False``) or 1 value
    give NaN; so do constant data (0 / 0: as pandas and scipy)."""
    out = np.empty(len(n), np.float64)
    for i, cnt in enumerate(np.asarray(n).tolist()):
        if cnt < (2 if bias else 3):
            out[i] = _NAN
            continue
        a2, a3 = central(cnt, [t[0][i], t[1][i], t[2][i]])
        if a2 == 0:
            out[i] = _NAN
            continue
        # g1**2 = A3**2 / A2**3; G1**2 = g1**2 n (n-1) / (n-2)**2
        num, den = a3 * a3, a2 ** 3
        if not bias:
            num, den = num * cnt * (cnt - 1), den * (cnt - 2) ** 2
        r = round_sqrt(num, den)
        out[i] = (-r if a3 < 0 else r) if a3 else 0.0
    return out


def kurt_values(n: np.ndarray, t: list[np.ndarray], bias: bool, fisher: bool) -> np.ndarray:
    """Kurtosis per cell (float64; excess kurtosis when ``fisher``). Fewer than 4
    values (``bias=False``) or 1 value give NaN; so do constant data (0 / 0: as pandas
    and scipy)."""
    out = np.empty(len(n), np.float64)
    for i, cnt in enumerate(np.asarray(n).tolist()):
        if cnt < (2 if bias else 4):
            out[i] = _NAN
            continue
        a2, _, a4 = central(cnt, [t[0][i], t[1][i], t[2][i], t[3][i]])
        if a2 == 0:
            out[i] = _NAN
            continue
        if bias:
            r = Fraction(a4, a2 * a2) - 3
        else:
            r = Fraction((cnt * cnt - 1) * a4, a2 * a2) - 3 * (cnt - 1) ** 2
            r /= (cnt - 2) * (cnt - 3)
        if not fisher:
            r += 3
        out[i] = _rat(r.numerator, r.denominator)
    return out


def sem_values(n: np.ndarray, t: list[np.ndarray], ddof: float) -> np.ndarray:
    """Standard error of the mean per cell: ``sqrt(var_ddof / n)``, correctly rounded;
    NaN where ``n - ddof <= 0``."""
    d = Fraction(ddof)
    out = np.empty(len(n), np.float64)
    for i, cnt in enumerate(np.asarray(n).tolist()):
        dof = cnt - d
        if cnt == 0 or dof <= 0:
            out[i] = _NAN
            continue
        a2, = central(cnt, [t[0][i], t[1][i]])
        # var / n = A2 / (n**2 (n - ddof)) * 2**-2148
        den = Fraction(cnt * cnt) * dof * (1 << (2 * 1074))
        r = Fraction(a2) / den
        out[i] = round_sqrt(r.numerator, r.denominator)
    return out
