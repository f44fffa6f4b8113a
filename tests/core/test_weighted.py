"""Weighted statistics engine (issue 13): frequency weights under every policy.

The defining property: for integer weights every statistic and every quantile method
equals the unweighted statistic of the data with each value repeated its weight
times, bit for bit. Then: NumPy's weighted "inverted_cdf", exact means and variances
against Fraction arithmetic, permutation invariance of (value, weight) pairs, inputs
never modified, real weights at the ends (q=0 is the min, q=1 the max).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nanaccess.core.grouped import HAVE_NUMBA
from nanaccess.core.grouped.weighted import grouped_weighted
from nanaccess.core.interp import METHODS
from nanaccess.core.reduce import reduce
from nanaccess.core.weighted import WEIGHTED, align_weights
from nanaccess.errors import TotalWeightError
from nanaccess.options import NanPolicy, option_context

POLICIES = [p for p in NanPolicy]
ORDER = ("median", "median_low", "median_high")
MOMENTS = ("mean", "sum", "var", "std")


def _bits(v) -> bytes:
    a = np.asarray(v)
    return a.dtype.str.encode() + a.tobytes()


def _same(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind == "f" and b.dtype.kind == "f":
        return a.dtype == b.dtype and _bits(a) == _bits(b)
    return a.dtype == b.dtype and np.array_equal(a, b)


def _run(x, stat, w, policy, **kw):
    return reduce(x, stat, policy=policy, weights=w, **kw)


def _plain(x, stat, policy, **kw):
    return reduce(x, stat, policy=policy, **kw)


values = st.sampled_from([0.0, -0.0, 1.0, -1.0, 2.5, 3.0, 1e300, -7.25, 0.1, np.inf, -np.inf,
                          5e-324])
nan_values = st.sampled_from([np.nan, -np.nan])


@st.composite
def data_and_weights(draw, nans: bool):
    n = draw(st.integers(1, 9))
    pool = st.one_of(values, nan_values) if nans else values
    x = np.array(draw(st.lists(pool, min_size=n, max_size=n)), dtype=np.float64)
    w = np.array(draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)), dtype=np.int64)
    return x, w


def _expected(x, w, stat, policy, **kw):
    rep = np.repeat(x, w)
    return _plain(rep, stat, policy, **kw).values


@settings(max_examples=150, deadline=None)
@given(data_and_weights(nans=True), st.sampled_from(POLICIES[1:]),
       st.sampled_from(ORDER + MOMENTS))
def test_integer_weights_repeat_the_data(xw, policy, stat):
    x, w = xw
    if stat in MOMENTS and np.isinf(x[w > 0]).any():
        x = np.where(np.isinf(x), 1.0, x)
    kw = {"ddof": 1} if stat in ("var", "std") else {}
    want = _expected(x, w, stat, policy, **kw)
    got = _run(x, stat, w, policy, **kw).values
    assert _same(got, want), (x, w, got, want)


@settings(max_examples=150, deadline=None)
@given(data_and_weights(nans=True), st.sampled_from(POLICIES[1:]), st.sampled_from(METHODS),
       st.lists(st.sampled_from([0.0, 0.1, 0.25, 1 / 3, 0.5, 0.7, 0.9, 1.0]), min_size=1,
                max_size=3))
def test_every_quantile_method_repeats_the_data(xw, policy, method, q):
    x, w = xw
    want = _expected(x, w, "quantile", policy, q=q, method=method)
    got = _run(x, "quantile", w, policy, q=q, method=method).values
    assert _same(got, want), (x, w, method, q, got, want)


@pytest.mark.parametrize("dtype", ["float32", "float16", "int64", "int8", "bool"])
@pytest.mark.parametrize("stat", ORDER + MOMENTS + ("quantile",))
def test_repetition_for_other_dtypes(dtype, stat):
    rng = np.random.default_rng(5)
    x = (rng.normal(size=(4, 11)) * 10).astype(dtype)
    w = rng.integers(0, 4, size=(4, 11))
    w[:, 0] = 1
    kw = {"q": [0.2, 0.5, 0.9], "method": "hazen"} if stat == "quantile" else {}
    got = _run(x, stat, w, NanPolicy.RAISE, axis=1, **kw).values
    for r in range(4):
        want = _plain(np.repeat(x[r], w[r]), stat, NanPolicy.RAISE, **kw).values
        assert _same(got[..., r], want), (stat, r)


def test_rows_are_independent_and_axis_moves():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(3, 5, 7))
    w = rng.integers(0, 3, size=(3, 5, 7)).astype(float)
    for axis in (0, 1, 2, (0, 2)):
        got = reduce(x, "median", weights=w, axis=axis, policy=NanPolicy.OMIT).values
        xm = np.moveaxis(x, np.atleast_1d(axis), -1 - np.arange(len(np.atleast_1d(axis))))
        wm = np.moveaxis(w, np.atleast_1d(axis), -1 - np.arange(len(np.atleast_1d(axis))))
        k = len(np.atleast_1d(axis))
        xr = xm.reshape(xm.shape[:-k] + (-1,))
        wr = wm.reshape(wm.shape[:-k] + (-1,)).astype(int)
        want = np.empty(xr.shape[:-1])
        for idx in np.ndindex(*xr.shape[:-1]):
            want[idx] = reduce(np.repeat(xr[idx], wr[idx]), "median",
                               policy=NanPolicy.OMIT).values
        assert np.array_equal(got, want, equal_nan=True), axis


# ------------------------------------------------------------------- against numpy


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 30), st.integers(0, 2**32 - 1))
def test_inverted_cdf_equals_numpy_weighted(n, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n).round(1)
    w = rng.uniform(0.01, 3.0, size=n)
    q = np.array([0.01, 0.1, 0.3, 0.5, 0.77, 0.99, 1.0])
    got = reduce(x, "quantile", q=q, method="inverted_cdf", weights=w,
                 policy=NanPolicy.OMIT).values
    want = np.quantile(x, q, weights=w, method="inverted_cdf")
    assert np.array_equal(got, want)


def test_inverted_cdf_equals_numpy_along_an_axis():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(6, 40))
    w = rng.integers(1, 5, size=40).astype(float)
    got = reduce(x, "quantile", q=[0.25, 0.5], method="inverted_cdf", axis=1, weights=w,
                 policy=NanPolicy.RAISE).values
    want = np.quantile(x, [0.25, 0.5], axis=1, weights=np.broadcast_to(w, x.shape),
                       method="inverted_cdf")
    assert np.array_equal(got, want)


# ------------------------------------------------------------------ exact moments


def _frac_mean(x, w):
    s = sum(Fraction(float(k)) * Fraction(float(v)) for v, k in zip(x, w, strict=True))
    return s / sum(Fraction(float(k)) for k in w)


_ENGINES = ["numpy", pytest.param("numba", marks=pytest.mark.skipif(
    not HAVE_NUMBA, reason="numba not installed"))]


@pytest.mark.parametrize("engine", _ENGINES)  # numba: the certified path of mean / sum
@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.floats(-1e200, 1e200, allow_subnormal=True),
                          st.floats(1e-200, 1e200)), min_size=1, max_size=12))
def test_weighted_mean_and_sum_are_exactly_rounded(engine, pairs):
    x = np.array([p[0] for p in pairs])
    w = np.array([p[1] for p in pairs])
    with option_context(engine=engine):
        mean = reduce(x, "mean", weights=w, policy=NanPolicy.RAISE).values
        total = reduce(x, "sum", weights=w, policy=NanPolicy.RAISE).values
    m = _frac_mean(x, w)
    assert float(mean) == float(m) or (m == 0 and float(mean) == 0)
    s = sum(Fraction(float(k)) * Fraction(float(v)) for v, k in zip(x, w, strict=True))
    try:
        want_s = float(s)
    except OverflowError:
        want_s = math.inf if s > 0 else -math.inf
    assert float(total) == want_s or (s == 0 and float(total) == 0)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.floats(-1e6, 1e6), st.floats(0.01, 100.0)), min_size=2,
                max_size=10), st.sampled_from([0, 1, 0.5]))
def test_weighted_var_is_exact(pairs, ddof):
    x = [p[0] for p in pairs]
    w = [p[1] for p in pairs]
    fx, fw = [Fraction(v) for v in x], [Fraction(k) for k in w]
    total = sum(fw)
    mu = sum(a * b for a, b in zip(fx, fw, strict=True)) / total
    dof = total - Fraction(ddof)
    if ddof > 0 and dof < 1 and any(k != int(k) for k in fw):
        # issue 23: fractional frequency weights leaving less than one unit beyond ddof
        # are not counts; they raise instead of a meaningless divisor (was NaN or huge)
        with pytest.raises(TotalWeightError):
            reduce(np.array(x), "var", weights=np.array(w), ddof=ddof,
                   policy=NanPolicy.RAISE)
        return
    got = reduce(np.array(x), "var", weights=np.array(w), ddof=ddof,
                 policy=NanPolicy.RAISE).values
    if dof <= 0:
        assert np.isnan(got)
        return
    want = sum(k * (v - mu) ** 2 for v, k in zip(fx, fw, strict=True)) / dof
    assert float(got) == float(want)


def test_moments_outside_the_fast_range_are_exact():
    x = np.array([1e300, -1e300, 3.0, 1e-310])
    w = np.array([1e10, 1e10, 1e-300, 2.0])
    got = reduce(x, "mean", weights=w, policy=NanPolicy.RAISE).values
    assert float(got) == float(_frac_mean(x, w))
    big = np.array([2**62, 3, -(2**61)], dtype=np.int64)
    got = reduce(big, "sum", weights=np.array([1, 2, 2]), policy=NanPolicy.RAISE).values
    assert got.dtype == np.int64 and int(got) == 2**62 + 6 - 2**62
    with pytest.raises(OverflowError):
        reduce(big, "sum", weights=np.array([4, 0, 0]), policy=NanPolicy.RAISE)


def test_moment_specials():
    r = NanPolicy.RAISE
    assert reduce(np.array([np.inf, 1.0]), "mean", weights=[1, 2], policy=r).values == np.inf
    both = reduce(np.array([np.inf, -np.inf]), "sum", weights=[1, 2], policy=r).values
    assert _bits(both) == _bits(np.float64(np.nan))  # the canonical NaN
    # an infinity of weight zero is dropped
    assert reduce(np.array([np.inf, 1.0]), "mean", weights=[0, 2], policy=r).values == 1.0
    neg = reduce(np.array([-0.0, -0.0]), "sum", weights=[1.5, 2], policy=r).values
    assert np.signbit(neg) and neg == 0
    # issue 23: fractional weights with sum(w) - ddof <= 0 were NaN; they are not counts,
    # so they raise now (weights_kind="reliability" takes them); integer ones stay NaN
    with pytest.raises(TotalWeightError):
        reduce(np.array([1.0, 2.0]), "var", weights=[0.5, 0.25], ddof=1, policy=r)
    assert np.isnan(reduce(np.array([1.0, 2.0]), "var", weights=[1, 0], ddof=1,
                           policy=r).values)


# ------------------------------------------------------------- invariance, inputs


@pytest.mark.parametrize("engine", _ENGINES)
@settings(max_examples=100, deadline=None)
@given(data_and_weights(nans=True), st.sampled_from(POLICIES[1:]),
       st.sampled_from(WEIGHTED), st.integers(0, 2**32 - 1))
def test_permuting_pairs_keeps_every_bit(engine, xw, policy, stat, seed):
    x, wi = xw
    rng = np.random.default_rng(seed)
    w = wi * rng.choice([0.3, 1.7, 2.0, 1e-9, 3.5], size=wi.size)
    kw = {"q": [0.1, 0.5, 0.9], "method": str(rng.choice(METHODS))} if stat == "quantile" \
        else {}
    perm = rng.permutation(x.size)
    def run(xs, ws):
        try:
            return _bits(reduce(xs, stat, weights=ws, policy=policy, **kw).values)
        except TotalWeightError:  # sem (ddof=1) of fractional weights below 2 in total
            return "total weight"

    with option_context(engine=engine):
        a, b = run(x, w), run(x[perm], w[perm])
    assert a == b


def test_tiny_and_huge_weights_in_one_row_stay_permutation_invariant():
    rng = np.random.default_rng(3)
    x = np.repeat(rng.normal(size=20), 3)
    w = rng.choice([1e-300, 1e300, 0.1, 3.0], size=x.size)
    base = reduce(x, "quantile", q=[0.2, 0.5], weights=w, policy=NanPolicy.RAISE).values
    for _ in range(5):
        p = rng.permutation(x.size)
        got = reduce(x[p], "quantile", q=[0.2, 0.5], weights=w[p],
                     policy=NanPolicy.RAISE).values
        assert _bits(got) == _bits(base)


@pytest.mark.parametrize("engine", _ENGINES)
@pytest.mark.parametrize("stat", WEIGHTED)
def test_inputs_are_never_modified(stat, engine):
    x = np.array([[3.0, np.nan, 1.0, 2.0], [0.0, 5.0, np.nan, -1.0]])
    w = np.array([[1.0, np.nan, 0.0, 2.0], [1.0, 1.0, 3.0, np.nan]])
    xc, wc = x.copy(), w.copy()
    x.flags.writeable = False
    w.flags.writeable = False
    kw = {"q": 0.3} if stat == "quantile" else {}
    with option_context(engine=engine):
        reduce(x, stat, weights=w, axis=1, policy=NanPolicy.OMIT, **kw)
        grouped_weighted(x[0], np.array([0, 1, 0, 1]), 2, stat, w[0], policy=NanPolicy.OMIT,
                         **kw)
    assert _bits(x) == _bits(xc) and _bits(w) == _bits(wc)


@pytest.mark.parametrize("method", METHODS)
def test_real_weights_reach_the_ends(method):
    rng = np.random.default_rng(4)
    x = rng.normal(size=30)
    w = rng.uniform(0.05, 0.9, size=30)
    w[x.argmin()] = 0.0  # a zero weight drops the value
    ends = reduce(x, "quantile", q=[0.0, 1.0], method=method, weights=w,
                  policy=NanPolicy.RAISE).values
    if method != "inverted_cdf":
        assert ends[0] == np.min(x[w > 0])
    assert ends[1] == np.max(x)
    mid = reduce(x, "quantile", q=[0.5], method=method, weights=w,
                 policy=NanPolicy.RAISE).values
    assert np.min(x[w > 0]) <= mid[0] <= np.max(x)


def test_median_low_high_pick_elements_and_bracket_the_median():
    rng = np.random.default_rng(6)
    x = rng.normal(size=(5, 17)).astype(np.float32)
    w = rng.uniform(0, 2, size=(5, 17))
    lo = reduce(x, "median_low", weights=w, axis=1, policy=NanPolicy.RAISE).values
    hi = reduce(x, "median_high", weights=w, axis=1, policy=NanPolicy.RAISE).values
    med = reduce(x, "median", weights=w, axis=1, policy=NanPolicy.RAISE).values
    assert lo.dtype == np.float32 and hi.dtype == np.float32
    assert all(v in x[i] for i, v in enumerate(lo)) and all(v in x[i] for i, v in enumerate(hi))
    assert (lo <= med).all() and (med <= hi).all()


# ------------------------------------------------------------------------ shapes


def test_weight_shapes():
    x = np.arange(12.0).reshape(3, 4)
    assert align_weights([1, 2, 3, 4], x.shape, 1).shape == (3, 4)
    col = align_weights([1, 2, 3], x.shape, 0)
    assert col.shape == (3, 4) and (col[:, 0] == [1, 2, 3]).all()
    with pytest.raises(ValueError, match="axis 0 of length 3"):
        align_weights([1, 2, 3, 4], x.shape, 0)
    with pytest.raises(ValueError, match="do not broadcast"):
        align_weights(np.ones((2, 4)), x.shape, None)
    got = reduce(x, "mean", weights=[1, 0, 0], axis=0, keepdims=True,
                 policy=NanPolicy.RAISE).values
    assert got.shape == (1, 4) and (got == x[:1]).all()


def test_count_is_the_pairs_seen():
    x = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, 6.0]])
    r = reduce(x, "median", weights=[[1, 1, 0], [2, 0, 1]], axis=1, policy=NanPolicy.OMIT)
    assert r.count.tolist() == [1, 2]


def _exact_inverted_cdf(x, w, q):
    """The element whose exact cumulative weight (sorted by value) first reaches the
    float reach ``W q`` (``W`` the correctly rounded total), with Fractions."""
    order = np.argsort(x, kind="stable")
    total = float(sum(Fraction(float(v)) for v in w))
    s = Fraction(total * q)
    c = Fraction(0)
    for i in order:
        c += Fraction(float(w[i]))
        if w[i] > 0 and c >= s:
            return x[i]
    return x[order[-1]]


@pytest.mark.parametrize("engine", ["numpy", pytest.param("numba", marks=pytest.mark.skipif(
    not HAVE_NUMBA, reason="numba not installed"))])
@pytest.mark.parametrize("seed", range(4))
def test_wide_weights_take_two_exact_limbs(seed, engine):
    # powers of two from 2**-40 to 2**40 over 1000 values: too wide for one int64
    # limb, exact in two (every cumulative weight a function of the multiset)
    rng = np.random.default_rng(seed)
    x = rng.normal(size=1000)
    w = np.exp2(rng.integers(-40, 41, size=1000).astype(float))
    for q in (0.1, 0.5, 0.77):
        with option_context(engine=engine):
            got = reduce(x, "quantile", q=q, method="inverted_cdf", weights=w,
                         policy=NanPolicy.RAISE).values
        assert float(got) == _exact_inverted_cdf(x, w, q)


def test_each_row_decides_its_own_cumulative_weights():
    # integer, real (two limbs) and very wide (float64 sums) rows in one array: every
    # row equals the same row reduced alone
    rng = np.random.default_rng(5)
    x = rng.normal(size=(3, 300)).round(1)
    w = np.stack([rng.integers(0, 5, 300).astype(float), rng.random(300),
                  rng.random(300) * np.exp2(rng.integers(-200, 200, 300))])
    for stat, kw in (("median", {}), ("quantile", {"q": [0.3, 0.9], "method": "weibull"})):
        both = reduce(x, stat, axis=1, weights=w, policy=NanPolicy.RAISE, **kw).values
        for r in range(3):
            alone = reduce(x[r], stat, weights=w[r], policy=NanPolicy.RAISE, **kw).values
            assert _bits(alone) == _bits(np.ascontiguousarray(both[..., r]))
