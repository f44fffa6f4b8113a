"""skew, kurt, sem and prod (issue 23): Fraction references under every policy."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
import scipy.stats as st
from hypothesis import given, settings
from hypothesis import strategies as hs

import nanaccess as na
from nanaccess import options
from nanaccess.core import _numba
from nanaccess.core.grouped import grouped_reduce
from nanaccess.core.higher import grouped_higher, higher_stat
from nanaccess.core.higher.finish import round_sqrt
from nanaccess.core.higher.powers import power_sums
from nanaccess.core.reduce import reduce
from nanaccess.options import NanPolicy

ENGINES = ("numpy", "auto")

NEEDS_NUMBA = pytest.mark.skipif(not _numba.AVAILABLE, reason="numba not installed or disabled")



def _central(xs: list[Fraction]) -> tuple[int, Fraction, Fraction, Fraction]:
    n = len(xs)
    mu = sum(xs) / n
    return (n, sum((v - mu) ** 2 for v in xs), sum((v - mu) ** 3 for v in xs),
            sum((v - mu) ** 4 for v in xs))


def _sqrt_frac(r: Fraction) -> float:
    return round_sqrt(r.numerator, r.denominator)


def ref(stat: str, vals, **p) -> float:
    """The exact real value, rounded once (independent of the engine's formulas)."""
    xs = [Fraction(float(v)) for v in vals]
    if stat == "prod":
        r = math.prod(xs, start=Fraction(1))
        try:
            return float(r)
        except OverflowError:
            return math.inf if r > 0 else -math.inf
    n = len(xs)
    if stat == "sem":
        ddof = Fraction(p.get("ddof", 1))
        if n == 0 or n - ddof <= 0:
            return math.nan
        _, m2, _, _ = _central(xs)
        return _sqrt_frac(m2 / (n - ddof) / n)
    bias = p.get("bias", False)
    need = (2 if bias else 3) if stat == "skew" else (2 if bias else 4)
    if n < need:
        return math.nan
    n, m2, m3, m4 = _central(xs)
    if m2 == 0:
        return math.nan  # 0 / 0, as pandas 3.1 and scipy
    if stat == "skew":
        g1sq = (m3 / n) ** 2 / (m2 / n) ** 3
        if not bias:
            g1sq = g1sq * n * (n - 1) / (n - 2) ** 2
        v = _sqrt_frac(g1sq)
        return -v if m3 < 0 else (v if m3 else 0.0)
    g2 = (m4 / n) / (m2 / n) ** 2 - 3
    if not bias:
        g2 = ((n + 1) * g2 + 6) * Fraction(n - 1, (n - 2) * (n - 3))
    if not p.get("fisher", True):
        g2 += 3
    return float(g2)


def ulps(a: float, b: float) -> float:
    if math.isnan(a) and math.isnan(b):
        return 0
    if a == b:
        return 0
    return abs(a - b) / math.ulp(max(abs(a), abs(b)))


@pytest.fixture(params=ENGINES)
def engine(request):
    with options.option_context(engine=request.param):
        yield request.param


DATA = [
    [1.0, 2.0, 4.0, 8.0, 3.0],
    [1e9 + 1, 1e9 + 2, 1e9 + 4, 1e9 - 3, 1e9 + 0.5],  # large offset, unit spread
    [0.1] * 7,  # constant
    [1e-300, 3e-300, -2e-300, 5e-310, 7e-301],  # tiny and subnormal: the limb terms
    [1e250, -3e251, 2e252, 1.0, 5.5],  # huge: the limb terms
    list(np.random.default_rng(3).normal(size=200)),  # the compiled rows
    list(np.random.default_rng(4).standard_cauchy(size=90) * 1e6),
]


@pytest.mark.parametrize("vals", DATA, ids=range(len(DATA)))
@pytest.mark.parametrize("stat,params", [
    ("skew", {}), ("skew", {"bias": True}), ("kurt", {}), ("kurt", {"bias": True}),
    ("kurt", {"fisher": False}), ("sem", {}), ("sem", {"ddof": 0}), ("sem", {"ddof": 2.5}),
    ("prod", {}),
])
def test_fraction_reference(engine, vals, stat, params):
    x = np.array(vals)
    got = float(higher_stat(x, stat, policy="raise", **params)[0])
    exp = ref(stat, vals, **params)
    if stat in ("prod", "kurt", "sem"):  # correctly rounded
        assert got == exp or (math.isnan(got) and math.isnan(exp)), (got, exp)
    else:
        assert ulps(got, exp) <= 1, (got, exp)


def test_pandas_and_scipy_agree_on_nan_free_data():
    rng = np.random.default_rng(0)
    x = rng.gamma(2.0, size=500)
    s = pd.Series(x)
    assert ulps(na.skew(x), s.skew()) < 64
    assert ulps(na.kurt(x), s.kurt()) < 64
    assert ulps(na.sem(x), s.sem()) < 8
    assert ulps(na.skew(x, bias=True), st.skew(x)) < 64
    assert ulps(na.kurt(x, bias=True, fisher=False), st.kurtosis(x, fisher=False)) < 64
    assert ulps(na.sem(x, ddof=0), st.sem(x, ddof=0)) < 8
    y = rng.uniform(0.5, 1.5, size=300)
    assert ulps(na.prod(y), np.prod(y)) < 300


def test_large_offset_keeps_every_digit():
    # float formulas lose the skew of values near 1e9 with unit spread; the exact
    # power sums do not
    base = np.array([0.0, 1.0, 3.0, 7.0, 2.0, 2.5])
    a = na.skew(base + 1e9)
    b = na.skew(base)
    assert ulps(a, ref("skew", base + 1e9)) <= 1
    assert abs(a - b) < 1e-6  # the shift itself changes the data by rounding only


@pytest.mark.parametrize("stat", ["skew", "kurt", "sem", "prod"])
def test_policies(stat):
    x = np.array([1.0, 2.0, np.nan, 4.0, 8.0, 3.0])
    clean = [1.0, 2.0, 4.0, 8.0, 3.0]
    assert float(higher_stat(x, stat, policy="omit")[0]) == ref(stat, clean)
    with pytest.raises(na.NaNError, match="position 2"):
        higher_stat(x, stat, policy="raise")
    # propagate and the ordering policies: the NaN greatest under totalOrder, as stored
    nan_pos = na.make_nan(7)
    nan_neg = -na.make_nan(9)
    y = np.array([1.0, nan_neg, 2.0, nan_pos, 3.0, 4.0])
    for pol in ("propagate", "smallest", "largest", "totalorder"):
        r = higher_stat(y, stat, policy=pol)[0]
        assert np.asarray(r).view(np.int64) == np.float64(nan_pos).view(np.int64), pol
    z = np.array([1.0, nan_neg, 2.0, 3.0])  # only a negative NaN: kept bit for bit
    r = higher_stat(z, stat, policy="propagate")[0]
    assert np.asarray(r).view(np.int64) == np.float64(nan_neg).view(np.int64)


def test_signaling_nan_raises():
    snan = np.array([0x7FF0000000000001], np.int64).view(np.float64)[0]
    x = np.array([1.0, snan, 2.0])
    with pytest.raises(na.SignalingNaNError):
        higher_stat(x, "skew", policy="omit")


def test_arithmetic_nans_are_nans():
    with np.errstate(invalid="ignore"):
        x = np.array([1.0, np.inf - np.inf, 2.0, 5.0, np.float64(0) / 0])
    assert float(higher_stat(x, "sem", policy="omit")[0]) == ref("sem", [1.0, 2.0, 5.0])


def test_missing_values_masked_and_nullable():
    x = np.array([1.0, 2.0, 99.0, 4.0, 8.0])
    m = np.array([False, False, True, False, False])
    assert float(higher_stat(x, "kurt", policy="omit", missing=m)[0]) == \
        ref("kurt", [1.0, 2.0, 4.0, 8.0])
    v, miss = higher_stat(x, "kurt", policy="propagate", missing=m)
    assert miss and np.isnan(v)
    s = pd.Series([1, 2, None, 4, 8, 3], dtype="Int64")
    assert s.nanstats.skew(nan_policy="omit") == ref("skew", [1, 2, 4, 8, 3])
    assert s.nanstats.skew(nan_policy="propagate") is pd.NA


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int64, np.int32, np.uint8, bool])
def test_dtypes(dtype):
    vals = [1, 0, 3, 1, 1, 2, 0]
    x = np.array(vals, dtype=dtype)
    for stat in ("skew", "kurt", "sem", "prod"):
        got = higher_stat(x, stat, policy="raise")[0]
        exp = ref(stat, [float(v) for v in x.astype(np.float64)])
        if np.dtype(dtype).kind == "f" and np.dtype(dtype).itemsize < 8:
            assert got.dtype == dtype
            assert got == np.asarray(exp).astype(dtype) or math.isnan(exp)
        else:
            assert got.dtype == np.float64 and (got == exp or math.isnan(exp)), stat


def test_big_ints_are_exact():
    x = np.array([2**62 + 1, 3, -(2**61), 5, 7], dtype=np.int64)
    xs = [Fraction(int(v)) for v in x]
    assert higher_stat(x, "prod", policy="raise")[0] == float(math.prod(xs))
    _, m2, _, _ = _central(xs)
    assert higher_stat(x, "sem", policy="raise")[0] == _sqrt_frac(m2 / 4 / 5)


def test_prod_ieee_cases():
    assert na.prod([1e200, 1e200, 1e-200]) == 1e200  # no intermediate overflow
    assert na.prod([1e200, 1e200]) == math.inf
    assert na.prod([-1e200, 1e200]) == -math.inf
    assert na.prod([1e-200, 1e-200]) == 0.0
    assert math.copysign(1, na.prod([-1e-200, 1e-200])) == -1
    assert na.prod([1e-300, 1e-15]) == ref("prod", [1e-300, 1e-15])  # subnormal result
    assert math.isnan(na.prod([0.0, math.inf]))
    assert na.prod([math.inf, -2.0]) == -math.inf
    assert math.copysign(1, na.prod([-0.0, 3.0])) == -1
    assert na.prod(np.array([], np.float64)) == 1.0
    # a tie, decided exactly: (1 + 2**-52) * (1 + 2**-52) is 1 + 2**-51 + 2**-104
    a = 1 + 2.0 ** -52
    assert na.prod([a, a]) == ref("prod", [a, a])


def test_empty_and_short():
    assert math.isnan(na.skew(np.array([1.0, 2.0])))
    assert not math.isnan(na.skew(np.array([1.0, 2.0]), bias=True))
    assert math.isnan(na.kurt(np.array([1.0, 2.0, 3.0])))
    assert math.isnan(na.sem(np.array([1.0])))
    assert na.sem(np.array([1.0]), ddof=0) == 0.0
    assert math.isnan(na.skew(np.array([1.0, np.inf, 2.0, 3.0])))


def test_axis_and_no_mutation(engine):
    rng = np.random.default_rng(5)
    x = rng.normal(size=(6, 80))
    x[2, 7] = np.nan
    before = x.copy()
    for stat in ("skew", "kurt", "sem", "prod"):
        r = higher_stat(x, stat, axis=1, policy="omit")[0]
        for i in range(6):
            row = x[i][~np.isnan(x[i])]
            exp = ref(stat, row)
            assert ulps(float(r[i]), exp) <= (1 if stat == "skew" else 0), (stat, i)
        r0 = higher_stat(x, stat, axis=0, policy="omit", keepdims=True)[0]
        assert r0.shape == (1, 80)
    np.testing.assert_array_equal(x.view(np.int64), before.view(np.int64))


@NEEDS_NUMBA
def test_power_sums_engines_agree():
    rng = np.random.default_rng(6)
    rows = rng.normal(size=(3, 100)) * 10.0 ** rng.integers(-5, 5, size=(3, 100))
    with options.option_context(engine="numpy"):
        a = power_sums(None, None, 3, 4, rows=rows)
    with options.option_context(engine="numba"):
        b = power_sums(None, None, 3, 4, rows=rows)
    for k, (ta, tb) in enumerate(zip(a, b, strict=True), 1):
        for r in range(3):
            exact = sum(Fraction(float(v)) ** k for v in rows[r]) * 2 ** (1074 * k)
            assert ta[r] == tb[r] == exact


@settings(max_examples=40, deadline=None)
@given(hs.lists(hs.floats(allow_nan=False, allow_infinity=False, width=64,
                          min_value=-1e30, max_value=1e30), min_size=4, max_size=30),
       hs.randoms(use_true_random=False))
def test_permutation_invariance(vals, rnd):
    x = np.array(vals)
    y = x.copy()
    rnd.shuffle(y)
    for stat in ("skew", "kurt", "sem", "prod"):
        a = higher_stat(x, stat, policy="raise")[0]
        b = higher_stat(y, stat, policy="raise")[0]
        assert a.tobytes() == b.tobytes(), stat
        exp = ref(stat, vals)
        assert ulps(float(a), exp) <= (1 if stat == "skew" else 0), (stat, float(a), exp)


@pytest.mark.parametrize("stat", ["skew", "kurt", "sem", "prod"])
def test_grouped_equals_per_group(stat):
    rng = np.random.default_rng(7)
    x = rng.normal(size=(300, 2))
    x[rng.integers(0, 300, 20), rng.integers(0, 2, 20)] = np.nan
    codes = rng.integers(-1, 9, size=300)
    r = grouped_reduce(x, codes, 10, stat, policy=NanPolicy.OMIT)
    for g in range(10):
        for c in range(2):
            col = x[codes == g, c]
            exp = ref(stat, col[~np.isnan(col)])
            assert ulps(float(r.values[g, c]), exp) <= (1 if stat == "skew" else 0)
    p = grouped_higher(x[:, 0], codes, 10, stat, policy=NanPolicy.PROPAGATE)[0]
    has = np.array([np.isnan(x[codes == g, 0]).any() for g in range(10)])
    assert np.array_equal(np.isnan(p), has | np.isnan(r.values[:, 0]))
    with pytest.raises(na.NaNError, match="group"):
        grouped_higher(x, codes, 10, stat, policy=NanPolicy.RAISE)


def test_reduce_entry_counts():
    r = reduce(np.array([1.0, np.nan, 3.0, 4.0]), "skew", policy=NanPolicy.OMIT)
    assert r.count == 3


@NEEDS_NUMBA
def test_products_engines_agree():
    from nanaccess.core.higher.product import _exact_products, group_products

    rng = np.random.default_rng(8)
    v = rng.uniform(0.5, 2.0, size=2000) * np.where(rng.random(2000) < 0.5, -1, 1)
    v[::7] *= 2.0 ** rng.integers(-300, 300, size=v[::7].size)
    v[5] = 5e-324  # a subnormal factor
    g = rng.integers(0, 30, size=2000)
    with options.option_context(engine="numba"):
        a = group_products(v, g, 30)
    b = _exact_products(v, g, 30)
    assert a.tobytes() == b.tobytes()
    for k in (0, 7, 29):
        assert b[k] == ref("prod", v[g == k])


@NEEDS_NUMBA
def test_power_sums_beyond_the_kernel_range():
    rng = np.random.default_rng(9)
    x = rng.normal(size=600)
    x[10] = 1e-250  # outside [2**-200, 2**250]: that group goes to the digit engine
    g = np.repeat([0, 1], 300)
    with options.option_context(engine="numba"):
        t = power_sums(x, g, 2, 4)
    for k in range(1, 5):
        for grp in (0, 1):
            exact = sum(Fraction(float(v)) ** k for v in x[g == grp]) * 2 ** (1074 * k)
            assert t[k - 1][grp] == exact
