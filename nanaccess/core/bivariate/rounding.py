"""The one rounding step of two-variable statistics: exact integers in, one float out.

Covariance and Pearson's r are functions of the exact co-moments
``C_xy = n*Sxy - Sx*Sy``, ``C_xx``, ``C_yy`` (Python ints, in one binary unit). Each
result is rounded once, half-even, from the exact rational:

* covariance ``C_xy / (n (n - ddof))``: Python's ``int / int`` is correctly rounded;
* ``r = C_xy / sqrt(C_xx C_yy)``: the correctly rounded square root of the exact
  rational ``C_xy**2 / (C_xx C_yy)`` (integer square root with a sticky bit), signed.
  Cauchy-Schwarz holds exactly for the integers, so ``|r| <= 1`` always and ``r`` is
  exactly ``+-1`` when the data are exactly collinear.
"""

from __future__ import annotations

import math
from fractions import Fraction

__all__ = ["ratio", "sqrt_ratio", "corr_from", "cov_from", "tau_from"]

_NAN = float("nan")


def ratio(num: int, den: int, shift: int = 0) -> float:
    """``num * 2**shift / den`` correctly rounded (``den > 0``); beyond the float64
    range, the infinity of its sign (as correct rounding gives)."""
    try:
        if shift >= 0:
            return (num << shift) / den
        return num / (den << -shift)
    except OverflowError:
        return math.inf if num > 0 else -math.inf


def sqrt_ratio(num: int, den: int) -> float:
    """``sqrt(num / den)`` correctly rounded, half-even (``num >= 0``, ``den > 0``).

    Examples
    --------
    >>> sqrt_ratio(2, 1) == 2 ** 0.5
    True
    >>> sqrt_ratio(9, 16)
    0.75
    """
    if num == 0:
        return 0.0
    # scale by 4**s so the integer root has at least 55 bits
    s = max(0, (110 - (num.bit_length() - den.bit_length())) // 2 + 1)
    a, rem = divmod(num << (2 * s), den)
    q = math.isqrt(a)
    sticky = rem != 0 or q * q != a
    extra = q.bit_length() - 53
    if extra > 0:
        low = q & ((1 << extra) - 1)
        q >>= extra
        half = 1 << (extra - 1)
        if low > half or (low == half and (sticky or q & 1)):
            q += 1
    else:  # pragma: no cover - s guarantees 55 bits
        extra = 0
    return math.ldexp(q, extra - s)


def corr_from(cxy: int, cxx: int, cyy: int) -> float:
    """Pearson's r from exact co-moments (NaN where a variance is zero).

    Examples
    --------
    >>> corr_from(6, 3, 12)
    1.0
    >>> corr_from(-1, 1, 4)
    -0.5
    """
    if cxx <= 0 or cyy <= 0:
        return _NAN
    r = sqrt_ratio(cxy * cxy, cxx * cyy)
    return -r if cxy < 0 else r


def cov_from(cxy: int, n: int, ddof: float, shift: int) -> float:
    """Covariance ``cxy * 2**shift / (n (n - ddof))`` correctly rounded; NaN when
    ``n - ddof <= 0``."""
    d = Fraction(ddof)
    if n - d <= 0:
        return _NAN
    den = n * (n - d)
    return ratio(cxy * den.denominator, den.numerator, shift)


def tau_from(s: int, tot: int, xtie: int, ytie: int) -> float:
    """Kendall's tau-b ``s / sqrt((tot - xtie) (tot - ytie))``, correctly rounded.

    Examples
    --------
    >>> tau_from(3, 3, 0, 0)
    1.0
    """
    a, b = tot - xtie, tot - ytie
    if a <= 0 or b <= 0:
        return _NAN
    r = sqrt_ratio(s * s, a * b)
    return -r if s < 0 else r
