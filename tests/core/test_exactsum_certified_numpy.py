"""The NumPy engine's certified 1-D sums and means (core/exactsum/certified_numpy.py):
every answer equals math.fsum / the exact rational mean bit for bit, ordinary data
are answered by it, and near-ties, zeros and specials are handed to the exact engine."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nanaccess as na
from nanaccess.core.exactsum import certified_numpy as cn
from nanaccess.core.exactsum import exact_mean, exact_sum
from nanaccess.options import option_context

HYP = settings(max_examples=150, deadline=None)
BLOCK = cn._R * cn._W


def bits(v) -> int:
    return int(np.asarray(v, dtype=np.float64).view(np.int64))


def exact_mean_ref(x: np.ndarray) -> float:
    total = sum((Fraction(float(v)) for v in x.astype(np.float64)), Fraction(0))
    return float(total / x.size)


def check(x: np.ndarray) -> tuple[float | None, float | None]:
    """The certified sum and mean of x; each, when given, equals the exact one bit for
    bit; the NumPy engine's exact_sum / exact_mean always do."""
    ref = math.fsum(x.astype(np.float64))
    got = cn.certified_numpy_1d(x, "sum")
    if got is not None:
        assert bits(got) == bits(ref)
    with option_context(engine="numpy"):
        assert bits(exact_sum(x)) == bits(ref)
        mean = exact_mean(x)
    m = cn.certified_numpy_1d(x, "mean")
    if x.size <= 5000:  # the Fraction reference is slow
        ref_m = exact_mean_ref(x)
        assert bits(mean) == bits(ref_m)
        if m is not None:
            assert bits(m) == bits(ref_m)
    elif m is not None:
        assert bits(m) == bits(mean)
    return got, m


@pytest.fixture(autouse=True)
def _fresh_stats():
    cn.reset_stats()
    yield


finite_bits = st.integers(0, (1 << 64) - 1).map(
    lambda b: float(np.array(b, dtype=np.uint64).view(np.float64))).filter(math.isfinite)


@HYP
@given(st.lists(finite_bits, min_size=cn.MIN_SIZE, max_size=300))
def test_arbitrary_bit_patterns(vals):
    x = np.array(vals)
    try:
        math.fsum(x)
    except OverflowError:  # the exact engine's overflow rules are tested elsewhere
        assert cn.certified_numpy_1d(x, "sum") is None
        return
    check(x)


@HYP
@given(st.integers(cn.MIN_SIZE, 400), st.integers(-1074, 1000), st.integers(0, 2000),
       st.integers(0, 2**32 - 1))
def test_wide_ranges_and_subnormals(n, lo, span, seed):
    rng = np.random.default_rng(seed)
    e = rng.integers(lo, min(lo + span, 1023) + 1, n)
    x = np.ldexp(rng.uniform(-1, 1, n), e)
    try:
        math.fsum(x)
    except OverflowError:
        return
    check(x)


@HYP
@given(st.integers(cn.MIN_SIZE // 2, 300), st.integers(0, 2**32 - 1),
       st.sampled_from([0.0, 1e-300, 2.0**-60, 1e-9, 1.0]))
def test_cancellation(n, seed, delta):
    rng = np.random.default_rng(seed)
    y = rng.standard_normal(n) * np.exp(rng.uniform(-20, 20, n))
    x = np.concatenate([y, -y, [delta]])
    rng.shuffle(x)
    got, _ = check(x)
    if delta == 0.0:
        assert got is None  # an exact zero: the exact engine (its -0.0 rules)


def test_ordinary_data_are_certified():
    """Several blocks, tail rows and a partial row: one pass, certified, exact bits;
    the counter proves the certified path answered (an infinite bound fails here)."""
    rng = np.random.default_rng(3)
    n = 2 * BLOCK + 3 * cn._W + 77
    for x in (rng.standard_normal(n), rng.uniform(0, 1, n),
              rng.standard_normal(n) * np.exp(rng.uniform(-300, 300, n)),
              rng.integers(-10**6, 10**6, n).astype(np.float64)):
        got, m = check(x)
        assert got is not None and m is not None
    # per array: the direct sum and mean, and exact_sum / exact_mean through it
    assert cn.stats() == {"certified": 16, "fallback": 0, "second_level": 0, "skipped": 0}


def test_public_functions_use_it():
    x = np.random.default_rng(4).standard_normal(5000)
    with option_context(engine="numpy"):
        assert bits(na.sum(x)) == bits(math.fsum(x))
        assert bits(na.mean(x)) == bits(exact_mean_ref(x))
    assert cn.stats()["certified"] == 2


def near_tie() -> np.ndarray:
    # exact sum 1 + 2**-53 + 2**-200: rounds up, but its float row sums read a tie
    x = np.zeros(100)
    x[[3, 50, 97]] = [1.0, 2.0**-53, 2.0**-200]
    return x


def test_near_tie_is_refused():
    """The remainders' float sum loses 2**-200 and leaves an exact tie: the bound
    must refuse (level 1 and level 2), and the exact engine gives 1 + 2**-52."""
    x = near_tie()
    assert cn.certified_numpy_1d(x, "sum") is None
    assert cn.stats() == {"certified": 0, "fallback": 1, "second_level": 1, "skipped": 0}
    with option_context(engine="numpy"):
        assert float(exact_sum(x)) == 1.0 + 2.0**-52


def test_near_tie_needs_the_bound(monkeypatch):
    """Without the bound the same data give the wrong float: the test above is not
    vacuous (it fails when the bound is set to zero)."""
    monkeypatch.setattr(cn, "BOUND_SCALE", 0.0)
    assert cn.certified_numpy_1d(near_tie(), "sum") == 1.0


def test_infinite_bound_certifies_nothing(monkeypatch):
    monkeypatch.setattr(cn, "BOUND_SCALE", math.inf)
    x = np.random.default_rng(5).standard_normal(1000)
    assert cn.certified_numpy_1d(x, "sum") is None
    assert cn.stats()["certified"] == 0


def test_exact_ties_by_the_second_level():
    """A sum that is exactly a tie (narrow data): the remainders vanish at the second
    level, the total is exact and fsum rounds it half-even."""
    x = np.zeros(100)
    x[[3, 50]] = [1.0, 2.0**-53]
    assert cn.certified_numpy_1d(x, "sum") == 1.0
    x[3] = 1.0 + 2.0**-52
    assert cn.certified_numpy_1d(x, "sum") == 1.0 + 2.0**-51
    assert cn.stats()["second_level"] == 2


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ">f8", "<f4"])
def test_narrow_and_foreign_dtypes(dtype):
    rng = np.random.default_rng(6)
    x = (rng.standard_normal(BLOCK + 5000) * 100).astype(dtype)
    got, _ = check(x)
    assert got is not None
    assert bits(got) == bits(math.fsum(x.astype(np.float64)))


def test_strided_input_is_not_copied_wrongly():
    x = np.random.default_rng(7).standard_normal(2 * BLOCK + 999)
    for view in (x[::2], x[::-1], x[1::3]):
        got, _ = check(view)
        assert got is not None


@pytest.mark.parametrize("special", [np.nan, np.inf, -np.inf])
def test_specials_go_to_the_exact_engine(special):
    x = np.random.default_rng(8).standard_normal(BLOCK + 10)
    x[BLOCK + 3] = special
    assert cn.certified_numpy_1d(x, "sum") is None
    with option_context(engine="numpy"):
        got = float(exact_sum(x))
    assert (math.isnan(got) if math.isnan(special) else got == special)
    # exact_sum right after the refusal does not try again on the same buffer
    assert cn.stats() == {"certified": 0, "fallback": 1, "second_level": 0, "skipped": 1}


def test_zeros_subnormals_huge_and_overflow_are_refused():
    with option_context(engine="numpy"):
        neg = np.full(100, -0.0)
        assert cn.certified_numpy_1d(neg, "sum") is None
        assert bits(exact_sum(neg)) == bits(-0.0)
        sub = np.full(100, 5e-324)
        assert cn.certified_numpy_1d(sub, "sum") is None
        assert float(exact_sum(sub)) == 100 * 5e-324
        huge = np.full(100, 2.0**1007)
        assert cn.certified_numpy_1d(huge, "sum") is None
        assert float(exact_sum(huge)) == 100 * 2.0**1007
        assert cn.certified_numpy_1d(huge / 2, "sum") == 100 * 2.0**1006
        over = np.full(200_000, 1e303)  # below 2**1007, the sum beyond float64
        assert cn.certified_numpy_1d(over, "sum") is None
        assert float(exact_sum(over)) == math.inf
        assert float(exact_mean(over)) == 1e303
    assert cn.stats()["certified"] == 1  # only 2**1006


def test_short_and_other_inputs_are_declined():
    assert cn.certified_numpy_1d(np.ones(cn.MIN_SIZE - 1), "sum") is None
    assert cn.certified_numpy_1d(np.ones((2, 100)), "sum") is None
    assert cn.certified_numpy_1d(np.ones(100), "var") is None
    assert cn.certified_numpy_1d(np.ones(100, dtype=np.int64), "sum") is None
    assert cn.certified_numpy_1d(np.ones(100), "sum") == 100.0


def test_a_refusal_is_not_repeated_but_never_remembered_wrongly():
    x = np.zeros(1000)
    x[[1, 2]] = [1.0, -1.0]  # an exact zero: refused
    assert cn.certified_numpy_1d(x, "sum") is None
    assert cn.certified_numpy_1d(x, "sum") is None  # skipped: the memo
    x[5] = 3.0  # the buffer changed: the memo was spent, so it is tried again
    assert cn.certified_numpy_1d(x, "sum") == 3.0
    assert cn.certified_numpy_1d(x, "sum") == 3.0
    y = np.zeros(1000)
    assert cn.certified_numpy_1d(y, "sum") is None
    assert cn.certified_numpy_1d(x, "sum") == 3.0  # another buffer: no skip
    assert cn.stats() == {"certified": 3, "fallback": 2, "second_level": 0, "skipped": 1}


def test_input_untouched():
    x = np.random.default_rng(9).standard_normal(BLOCK + 100)
    x.flags.writeable = False
    before = x.copy()
    assert cn.certified_numpy_1d(x, "mean") is not None
    assert np.array_equal(x, before)


def test_public_functions_with_nan_and_inf_keep_their_policies():
    x = np.random.default_rng(10).standard_normal(3000)
    x[[7, 2000]] = np.nan
    kept = x[~np.isnan(x)]
    with option_context(engine="numpy"):
        assert bits(na.sum(x, nan_policy="omit")) == bits(math.fsum(kept))
        assert bits(na.mean(x, nan_policy="omit")) == bits(exact_mean_ref(kept))
        assert math.isnan(na.sum(x, nan_policy="propagate"))
        with pytest.raises(na.NaNError):
            na.sum(x)
        y = kept.copy()
        y[5] = np.inf
        assert na.sum(y) == math.inf
        y[6] = -np.inf
        assert math.isnan(na.mean(y))


def test_long_rows_are_certified_row_by_row(monkeypatch):
    """Rows of at least one block: each row certified, the refused ones (a zero sum,
    a NaN) by the exact engine, in place; short rows keep the engine's vector pass."""
    rng = np.random.default_rng(11)
    x = rng.standard_normal((2, 2, BLOCK + 100))
    x[0, 1, :] = 0.0
    x[0, 1, [5, 9]] = [1.5, -1.5]  # an exact zero: refused
    x[1, 0, 77] = np.nan
    with option_context(engine="numpy"):
        s = exact_sum(x)
        m = exact_mean(x)
    st = cn.stats()
    assert st["certified"] == 4 and st["fallback"] == 4  # 2 rows x (sum, mean) each
    monkeypatch.setattr(cn, "MIN_SIZE", 1 << 62)  # the exact engine alone, for reference
    with option_context(engine="numpy"):
        ref_m = exact_mean(x)
    assert s.shape == m.shape == (2, 2)
    for idx in np.ndindex(2, 2):
        if idx == (1, 0):
            assert math.isnan(s[idx]) and math.isnan(m[idx])
            continue
        assert bits(s[idx]) == bits(math.fsum(x[idx]))
        assert bits(m[idx]) == bits(ref_m[idx])
    monkeypatch.undo()
    cn.reset_stats()
    with option_context(engine="numpy"):
        short = rng.standard_normal((3, 1000))
        assert [bits(v) for v in exact_sum(short)] == [bits(math.fsum(r)) for r in short]
    assert cn.stats()["certified"] == 0
