"""Certified sums of rows longer than a block (core/_numba/compensated.py, "Blocks"):
the Sum2 error accumulator is flushed every ``BLOCK`` values, so the bound's factor is
the error chain depth, not the row length, and cancelling data (issue 30) certify.
Every certified value against ``math.fsum`` / Fraction (the correctly rounded value),
adversarial cancellation (``x, -x`` pairs, ``1e308`` mixes, subnormals, ties), both
engines bit for bit, every NaN policy, float32 and float64, 1-D and rows."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nanaccess as na
from nanaccess.core import _numba as NB
from nanaccess.core.exactsum import certified
from nanaccess.core.moments import moment_stat
from nanaccess.options import option_context

NEEDS_NUMBA = pytest.mark.skipif(not NB.AVAILABLE, reason="numba not installed or disabled")
POLICIES = ["raise", "propagate", "omit", "smallest", "largest", "totalorder"]
BLOCK = 4096


def _bits(a) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(a, dtype=np.float64)).reshape(-1).view(np.int64)


def _exact(x: np.ndarray) -> Fraction:
    return sum((Fraction(float(a)) for a in x if a == a), Fraction(0))


def _ref(x: np.ndarray, stat: str) -> float:
    """The correctly rounded sum (math.fsum, checked against Fraction) or mean."""
    s = _exact(x)
    if stat == "sum":
        try:
            got = math.fsum(float(a) for a in x if a == a)
        except OverflowError:  # fsum's partials overflow on 1e308 mixes
            return float(s)
        assert got == float(s)
        return got
    return float(s / int(np.count_nonzero(x == x)))


def _round32(q: Fraction) -> np.float32:
    """``q`` rounded once to float32, half-even (the float32 neighbours of its float64
    rounding, compared exactly; a zero is +0.0)."""
    f = np.float32(float(q))
    cands = [np.nextafter(f, np.float32(-np.inf)), f, np.nextafter(f, np.float32(np.inf))]
    dist = [abs(Fraction(float(c)) - q) for c in cands]
    best = min(dist)
    ties = [c for c, d in zip(cands, dist, strict=True) if d == best]
    got = ties[0] if len(ties) == 1 else next(c for c in ties if c.view(np.int32) % 2 == 0)
    return np.float32(got + np.float32(0.0))


def _cancelling(rng: np.random.Generator, n: int, kind: str) -> np.ndarray:
    """``n`` values (and their negatives) shuffled, with a small residue: ``kind``
    picks the values' scale and the residue."""
    if kind == "normal":
        y, extra = rng.standard_normal(n), [1e-3, 2.0 ** -60]
    elif kind in ("deep", "deeper"):  # near the bound: the blocks decide
        y = rng.standard_normal(n)
        extra = [rng.uniform(1, 2) * (3e-7 if kind == "deep" else 1e-9), 2.0 ** -90]
    elif kind == "huge":  # 1e308 mixed with ordinary values
        y = rng.standard_normal(n) * np.where(rng.random(n) < 0.1, 1e307, 1.0)
        extra = [3.0, 1e-20]
    elif kind == "subnormal":
        y = rng.integers(-2**52, 2**52, n) * 2.0 ** -1074
        extra = [2.0 ** -1074, 5 * 2.0 ** -1070]
    elif kind == "wide":
        y = rng.standard_normal(n) * np.exp(rng.uniform(-200, 200, n))
        extra = [rng.standard_normal() * 1e-150]
    else:  # residue at a tie of the result: 1 + half an ulp, or just past it
        y = rng.standard_normal(n)
        extra = [1.0, 2.0 ** -53] + ([2.0 ** -140] if kind == "near-tie" else [])
    x = np.concatenate([y, -y, extra])
    rng.shuffle(x)
    return x


KINDS = ["normal", "deep", "deeper", "huge", "subnormal", "wide", "tie", "near-tie"]


@NEEDS_NUMBA
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(BLOCK // 2, 3 * BLOCK + 37),
       kind=st.sampled_from(KINDS), mean=st.booleans())
def test_kernels_certify_only_the_correctly_rounded_value(seed, n, kind, mean):
    x = _cancelling(np.random.default_rng(seed), n, kind)
    want = _ref(x, "mean" if mean else "sum")
    kern = NB.kernels("compensated")
    val, ok = kern["one_kernel"](x, mean)
    if ok:
        assert _bits(val) == _bits(want), (kind, n)
    val, ok, count, flags = kern["one_skipnan_kernel"](x, x.view(np.uint64), mean)
    assert count == x.size and flags == 0
    if ok:
        assert _bits(val) == _bits(want), (kind, n)
    rows = np.stack([x, x[::-1], np.roll(x, 5)])
    got = certified.certified_rows(rows, None, "mean" if mean else "sum")
    vals, oks = got[0], got[1]
    for r in range(3):
        if oks[r]:
            assert _bits(vals[r]) == _bits(want), (kind, n, r)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 3 * BLOCK + 37),
       kind=st.sampled_from(KINDS), stat=st.sampled_from(["sum", "mean"]),
       policy=st.sampled_from(POLICIES))
def test_both_engines_give_the_correctly_rounded_bits(seed, n, kind, stat, policy):
    x = _cancelling(np.random.default_rng(seed), n, kind)
    want = _ref(x, stat)
    if want == 0.0:
        want = 0.0  # an exact zero of mixed terms is +0.0
    for engine in ("numpy", "auto"):
        with option_context(engine=engine):
            got = moment_stat(x, stat, policy=policy)[0]
            assert _bits(got) == _bits(want), (engine, kind, n)
            rows = moment_stat(np.stack([x, x[::-1]]), stat, axis=1, policy=policy)[0]
            assert np.array_equal(_bits(rows), _bits([want, want])), (engine, kind, n)


@pytest.mark.parametrize("engine", ["numpy", pytest.param("auto", marks=NEEDS_NUMBA)])
@pytest.mark.parametrize("kind", KINDS)
def test_float32_and_nan_policies_on_long_rows(engine, kind):
    rng = np.random.default_rng(KINDS.index(kind))
    x = _cancelling(rng, 3 * BLOCK + 11, kind)
    with np.errstate(over="ignore"):
        x32 = x.astype(np.float32)
    exact32 = _exact(x32.astype(np.float64)) if np.isfinite(x32).all() else None
    with option_context(engine=engine):
        for stat in ("sum", "mean"):
            if exact32 is None:
                break
            got = na.sum(x32) if stat == "sum" else na.mean(x32)
            assert got.dtype == np.float32
            want = _round32(exact32 / (1 if stat == "sum" else x32.size))
            assert got.view(np.int32) == want.view(np.int32), (stat, got, want)
        y = x.copy()
        y[[3, 5000, 9001]] = np.nan
        assert _bits(na.sum(y, nan_policy="omit")) == _bits(_ref(y, "sum") or 0.0)
        assert _bits(na.mean(y, nan_policy="omit")) == _bits(_ref(y, "mean") or 0.0)
        assert np.isnan(na.sum(y, nan_policy="propagate"))


@pytest.mark.parametrize("value", [np.inf, -np.inf])
def test_infinities_in_a_long_row_give_the_ieee_sum(value):
    x = _cancelling(np.random.default_rng(1), 2 * BLOCK, "normal")
    x[7000] = value
    for engine in ("numpy", "auto"):
        with option_context(engine=engine):
            assert na.sum(x) == value
    x[100] = -value
    with option_context(engine="auto"):
        assert np.isnan(na.sum(x))


@NEEDS_NUMBA
def test_issue_30_cancelling_million_is_certified():
    rng = np.random.default_rng(12)
    y = rng.standard_normal(500_000)
    x = np.concatenate([y, -y, [1e-3]])
    rng.shuffle(x)
    with option_context(engine="numba"):
        certified.reset_stats()
        got_sum = na.sum(x)
        got_mean = na.mean(x)
        assert certified.stats() == {"certified": 2, "fallback": 0}
    assert got_sum == math.fsum(x) == 1e-3
    assert got_mean == float(Fraction(1e-3) / x.size)


@NEEDS_NUMBA
def test_exact_zero_of_a_long_row_falls_back_to_plus_zero():
    y = np.random.default_rng(3).standard_normal(3 * BLOCK)
    x = np.concatenate([y, -y])
    certified.reset_stats()
    got = moment_stat(x, "sum")[0]
    assert certified.stats()["fallback"] == 2  # compensated, then extraction
    assert _bits(got) == _bits(0.0)


@NEEDS_NUMBA
@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 3 * BLOCK + 37),
       kind=st.sampled_from(KINDS), mean=st.booleans(), nans=st.integers(0, 3))
def test_extraction_certifies_only_the_correctly_rounded_value(seed, n, kind, mean, nans):
    rng = np.random.default_rng(seed)
    x = _cancelling(rng, n, kind)
    x[rng.integers(0, x.size, nans)] = np.nan  # read as 0, counted out by the caller
    count = int(np.count_nonzero(x == x))
    want = _ref(x, "mean" if mean else "sum") if count else 0.0
    val, ok = NB.kernels("extract_sum")["extract_one_kernel"](x, count, mean)
    if ok:
        assert count > 0 and _bits(val) == _bits(want), (kind, n)


@NEEDS_NUMBA
@pytest.mark.parametrize("extra", [1e-9, -3e-12, 2.0 ** -40])
def test_deep_cancellation_is_certified_by_extraction(extra):
    rng = np.random.default_rng(7)
    y = rng.standard_normal(200_000)
    x = np.concatenate([y, -y, [extra]])
    rng.shuffle(x)
    with option_context(engine="numba"):
        certified.reset_stats()
        got_sum = na.sum(x)
        got_mean = na.mean(x)
        assert certified.stats() == {"certified": 2, "fallback": 2}  # compensated refused
        y = x.copy()
        y[[10, 99_999]] = np.nan
        got_omit = na.sum(y, nan_policy="omit")
    assert got_sum == extra
    assert got_mean == float(Fraction(extra) / x.size)
    assert got_omit == _ref(y, "sum")


@NEEDS_NUMBA
@pytest.mark.parametrize("case", ["zeros", "inf", "huge", "tie"])
def test_extraction_refuses_what_it_cannot_prove(case):
    x = np.zeros(3 * BLOCK)
    if case == "inf":
        x[5000] = np.inf
    elif case == "huge":
        x[[1, 2]] = [1.5e308, -1.5e308 + 2.0 ** 970]  # sigma would overflow
    elif case == "tie":
        x[[0, 1]] = [1.0, 2.0 ** -53]
    val, ok = NB.kernels("extract_sum")["extract_one_kernel"](x, x.size, False)
    assert not ok
    with option_context(engine="numba"):
        got = na.sum(x)
    assert _bits(got) == _bits(float(_exact(x)) if case != "inf" else np.inf)
