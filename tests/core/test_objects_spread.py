"""The object path's part of iqr and mad (``nanaccess.core.objects.spread``).

Composed as :func:`nanaccess.core.reduce.reduce` composes them (two quantiles and a
difference; median, deviations, median, scale), the results must equal exact
references (statistics on Fractions) and scipy on float data.
"""

from __future__ import annotations

import math
import statistics
import struct
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
import scipy.stats
from hypothesis import given
from hypothesis import strategies as st

from nanaccess.core.objects import (
    CANONICAL_NAN,
    object_deviations,
    object_difference,
    object_order_stat,
    object_scale,
)
from nanaccess.core.select import order_stat

D = Decimal
F = Fraction
#: scale="normal" of scipy.stats.median_abs_deviation
MAD_NORMAL_SCALE = 0.6744897501960817


def bits64(x: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def f64(bits: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def obj(*values) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out


def iqr(values, rng=(25, 75), method="linear", policy="omit"):
    qs = object_order_stat(values, "quantile", q=[rng[0] / 100, rng[1] / 100],
                           method=method, policy=policy)
    return object_difference(obj(qs[1]), obj(qs[0]))[0]


def mad(values, scale=1.0, policy="omit"):
    center = object_order_stat(values, "median", policy=policy)
    dev, undefined = object_deviations(obj(*values), obj(center))
    assert undefined is None
    m = object_order_stat(dev.tolist(), "median", policy=policy)
    return m if scale == 1 else object_scale(obj(m), scale)[0]


def linear_quantile(sorted_values, q: float):
    """NumPy's "linear" quantile, exactly (h = (n - 1) q is exact for these q)."""
    h = (len(sorted_values) - 1) * q
    lo = math.floor(h)
    t = Fraction(h) - lo
    if t == 0:
        return sorted_values[lo]
    a, b = sorted_values[lo], sorted_values[lo + 1]
    return a + (b - a) * t


fractions = st.lists(
    st.fractions(min_value=-1000, max_value=1000, max_denominator=10**6), min_size=1,
    max_size=30,
)
floats = st.lists(st.floats(-1e300, 1e300, allow_nan=False), min_size=1, max_size=30)


@given(fractions)
def test_iqr_of_fractions_is_exact(data):
    s = sorted(data)
    want = linear_quantile(s, 0.75) - linear_quantile(s, 0.25)
    got = iqr(data)
    assert type(got) is Fraction and got == want


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-300)


@given(floats)
def test_iqr_of_floats_is_numpy_and_scipy(data):
    x = np.array(data)
    lo, hi = np.percentile(x, [25, 75])
    got = iqr(data)
    assert type(got) is float and got == hi - lo  # the zero's sign follows the total order
    # scipy >= 1.15 interpolates with its own formula: equal up to the last bits
    assert close(got, float(scipy.stats.iqr(x)))


@given(fractions)
def test_mad_of_fractions_is_exact(data):
    c = statistics.median(data)
    want = statistics.median([abs(v - c) for v in data])
    got = mad(data)
    assert type(got) is Fraction and got == want
    assert mad(data, scale=MAD_NORMAL_SCALE) == want / Fraction(MAD_NORMAL_SCALE)


@given(floats)
def test_mad_of_floats_is_numpy_and_scipy(data):
    x = np.array(data)
    got = mad(data)
    assert type(got) is float and got == np.median(np.abs(x - np.median(x)))
    assert close(got, float(scipy.stats.median_abs_deviation(x)))


def test_mad_and_iqr_of_ints_and_decimals():
    assert mad([1, 3, 8]) == 2 and type(mad([1, 3, 8])) is int
    assert iqr([1, 3, 8]) == 3.5
    dec = [D("1.5"), D("2"), D("7"), D("10")]
    assert str(iqr(dec)) == "5.875"
    assert str(mad(dec)) == "2.75"
    assert str(mad(dec, scale=2)) == "1.375"
    huge = [10**40, 10**40 + 1, 10**40 + 3]
    assert mad(huge) == 1  # no float rounding of the ints


def test_difference_is_exact_at_full_decimal_precision():
    got = object_difference(obj(D("1e30")), obj(D("1e-30")))[0]
    assert type(got) is Decimal and len(got.as_tuple().digits) == 60
    assert Fraction(got) == Fraction(10**30) - Fraction(1, 10**30)
    # Decimal with float / Fraction: through Fraction, exactly
    assert object_difference(obj(D("0.1")), obj(0.1))[0] == Fraction(D("0.1")) - Fraction(0.1)
    assert object_difference(obj(F(1, 3)), obj(D("1")))[0] == F(-2, 3)
    # a float difference beyond the float range: the exact Fraction
    big = object_difference(obj(1.7e308), obj(-1.7e308))[0]
    assert big == Fraction(1.7e308) * 2


def test_difference_nan_rules():
    snan = f64(0x7FF0000000000005)
    neg_q = f64(0xFFF8000000000007)
    got = object_difference(obj(snan, 1.0, neg_q, None, 1, D("-sNaN12")),
                            obj(1.0, snan, snan, 2, None, 3))
    assert bits64(got[0]) == 0x7FF8000000000005  # hi's NaN, quieted
    assert bits64(got[1]) == 0x7FF8000000000005  # lo's NaN, quieted
    assert bits64(got[2]) == 0xFFF8000000000007  # both NaN: hi's
    assert got[3] is None and got[4] is None
    assert str(got[5]) == "-NaN12" and got[5].is_qnan()
    inf = math.inf
    made = object_difference(obj(inf, D("Infinity"), D("Infinity"), 1.0),
                             obj(inf, D("Infinity"), 1.5, -inf))
    assert bits64(made[0]) == bits64(made[1]) == bits64(CANONICAL_NAN)
    assert made[2] == D("Infinity") and type(made[2]) is Decimal
    assert made[3] == inf


def test_deviations_nan_rules():
    snan = f64(0x7FF0000000000005)
    x = obj(1.0, snan, None, math.inf, 2.0)
    dev, undefined = object_deviations(x, obj(math.inf))
    assert dev[0] == math.inf
    assert bits64(dev[1]) == 0x7FF0000000000005  # a NaN of x keeps its bits
    assert dev[2] is None
    assert undefined.tolist() == [False, False, False, True, False]  # inf - inf
    assert dev[3] == 0
    dev, undefined = object_deviations(obj(1, F(1, 2)), obj(f64(0xFFF0000000000003)))
    assert [bits64(v) for v in dev] == [0xFFF8000000000003] * 2  # the center, quieted
    assert undefined is None
    dev, _ = object_deviations(obj(D("1.00000000000000000000000000001"), D(-3)), obj(D(0)))
    assert dev.tolist() == [D("1.00000000000000000000000000001"), D(3)]  # not rounded


def test_scale_keeps_exact_types():
    s = MAD_NORMAL_SCALE
    got = object_scale(obj(F(3), D(3), 3, 3.0, None, D("-Infinity"), D("sNaN1")), s)
    assert got[0] == F(3) / F(s)
    exact = Fraction(3) / Fraction(s)
    assert got[1] == D(exact.numerator) / D(exact.denominator)
    assert got[2] == 3 / s and got[3] == 3.0 / s
    assert got[4] is None
    assert got[5] == D("-Infinity")
    assert got[6].is_qnan() and str(got[6]) == "NaN1"


@pytest.mark.parametrize("policy", ["smallest", "largest", "totalorder"])
def test_placed_nans_compose(policy):
    # NaNs ranked by the policy: iqr over the policy's order, as the float path
    data = [1.0, 2.0, 3.0, float("nan"), 5.0]
    arr = np.array(data)
    q, _ = order_stat(arr, "quantile", q=[0.25, 0.75], policy=policy)
    want = q[1] - q[0]
    got = iqr(data, policy=policy)
    assert (math.isnan(got) and math.isnan(want)) or got == want
