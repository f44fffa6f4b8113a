"""Tests of nanaccess.core.exactsum against Fraction, math.fsum and statistics."""

from __future__ import annotations

import contextlib
import math
import statistics
import zlib
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nanaccess.core import _numba as NB
from nanaccess.core.exactsum import (
    certified_numpy,
    compiled,
    exact_mean,
    exact_sum,
    exact_sum_of_squares,
    exact_var,
    extraction,
    numpy_var,
    oneshot,
)
from nanaccess.options import option_context

CANONICAL_NAN_BITS = 0x7FF8000000000000
MAX = np.finfo(np.float64).max
TINY = 5e-324

# "small": the Python-int path for small inputs; "vector": the NumPy engine;
# "blocks": the NumPy engine with tiny cache blocks (many blocks and levels per row);
# "compiled": the numba kernels (core/_numba/exact.py) from the first element on.
ENGINES = ["small", "vector", "blocks"] + (["compiled"] if NB.AVAILABLE else [])


@contextlib.contextmanager
def engine(mode: str):
    saved = (oneshot.SMALL, numpy_var.SMALL, extraction._BLOCK, compiled.MIN_SIZE,
             certified_numpy.MIN_SIZE)
    oneshot.SMALL = numpy_var.SMALL = oneshot.SMALL if mode == "small" else 0
    extraction._BLOCK = 16 if mode == "blocks" else extraction._BLOCK
    compiled.MIN_SIZE = 0
    # the exact engines themselves, not the NumPy engine's certified front pass
    # (tests/core/test_exactsum_certified_numpy.py proves that one)
    certified_numpy.MIN_SIZE = 1 << 62
    try:
        with option_context(engine="numba" if mode == "compiled" else "numpy"):
            yield
    finally:
        (oneshot.SMALL, numpy_var.SMALL, extraction._BLOCK, compiled.MIN_SIZE,
         certified_numpy.MIN_SIZE) = saved


def bits(v) -> int:
    return int(np.asarray(v, dtype=np.float64).view(np.int64))


def same(a, b) -> bool:
    """Bit-for-bit equality of two float64 values."""
    return bits(a) == bits(b)


def to_float(fr: Fraction) -> float:
    """Correctly rounded Fraction -> float, overflow -> +-inf (IEEE round to nearest)."""
    try:
        return float(fr)
    except OverflowError:
        return math.inf if fr > 0 else -math.inf


def ref_sum(vals) -> float:
    return to_float(sum((Fraction(v) for v in vals), Fraction(0)))


def ref_mean(vals) -> float:
    return to_float(sum(Fraction(v) for v in vals) / len(vals))


def ref_sumsq(vals) -> float:
    return to_float(sum((Fraction(v) ** 2 for v in vals), Fraction(0)))


def ref_var(vals, ddof) -> float:
    fr = [Fraction(v) for v in vals]
    mu = sum(fr) / len(fr)
    return to_float(sum((v - mu) ** 2 for v in fr) / (len(fr) - ddof))


def wide_floats(rng, shape) -> np.ndarray:
    """Random float64 with wildly different magnitudes (1e-300 .. 1e300) and signs."""
    return rng.standard_normal(shape) * 10.0 ** rng.integers(-300, 300, shape)


def dyadic_floats(rng, shape) -> np.ndarray:
    """Small-integer multiples of powers of two spanning subnormals to near overflow."""
    return rng.integers(-5, 6, shape) * 2.0 ** rng.integers(-1074, 1000, shape)


def close_floats(rng, shape) -> np.ndarray:
    """Values a few ulps apart: the hard case for variance (and ties for the mean)."""
    return 1.0 + rng.integers(-3, 4, shape) * 2.0**-52


GENERATORS = {
    "normal": lambda rng, shape: rng.standard_normal(shape),
    "wide": wide_floats,
    "dyadic": dyadic_floats,
    "close": close_floats,
}


# ----------------------------------------------------------------- hand-made cases


@pytest.mark.parametrize("mode", ENGINES)
@pytest.mark.parametrize(
    "data, expected",
    [
        ([1e308, 1e308, -1e308], 1e308),
        ([1.0, 1e100, 1.0, -1e100], 2.0),
        ([0.1] * 10, 1.0),  # np.sum and sum() both give 0.9999999999999999
        ([1.0, 2.0**-53], 1.0),  # tie -> even (1.0)
        ([1.0 + 2.0**-52, 2.0**-53], 1.0 + 2.0**-51),  # tie -> even (up)
        ([1.0, 2.0**-53, TINY], 1.0 + 2.0**-52),  # sticky bit breaks the tie
        ([1.0, 2.0**-53, -TINY], 1.0),
        ([TINY, TINY, TINY], 3 * TINY),  # subnormal sums are exact
        ([2.0**-1022, -TINY], 2.0**-1022 - TINY),  # normal -> largest subnormal
        ([MAX, MAX, -MAX], MAX),
        ([MAX, 2.0**970], math.inf),  # exactly halfway to 2**1024 -> rounds to inf
        ([MAX, 2.0**970, -TINY], MAX),
        ([-MAX, -MAX], -math.inf),
        ([3.0, -3.0], 0.0),
    ],
)
def test_exact_sum_cases(mode, data, expected):
    with engine(mode):
        got = exact_sum(np.array(data))
    assert got.shape == () and got.dtype == np.float64
    assert same(got, expected), (float(got), expected)


@pytest.mark.parametrize("mode", ENGINES)
def test_signed_zero_and_empty(mode):
    x = np.array([[-0.0, -0.0], [0.0, -0.0], [1.0, -1.0], [-0.0, 2.0]])
    w = np.array([[True, True], [True, True], [True, True], [True, False]])
    with engine(mode):
        assert [bits(v) for v in exact_sum(x, w)] == [bits(-0.0), 0, 0, bits(-0.0)]
        assert [bits(v) for v in exact_mean(x, w)] == [bits(-0.0), 0, 0, bits(-0.0)]
        empty = exact_sum(np.zeros((2, 0)))
        assert [bits(v) for v in empty] == [0, 0]
        none = exact_sum(x, np.zeros(2, bool))
        assert [bits(v) for v in none] == [0, 0, 0, 0]  # empty row -> +0.0
        # a negative mean that underflows keeps its sign, as correct rounding does
        assert same(exact_mean(np.array([-TINY, 0.0])), -0.0)
        assert same(exact_mean(np.array([TINY, 0.0])), 0.0)
        assert same(exact_mean(np.array([TINY, TINY, TINY, 0.0])), TINY)  # 0.75 ulp -> up


@pytest.mark.parametrize("mode", ENGINES)
def test_infinities_and_canonical_nan(mode):
    x = np.array(
        [
            [np.inf, 1.0, 2.0],
            [np.inf, -np.inf, 1.0],
            [-np.inf, 5.0, 1e308],
            [1e308, 1e308, 1.0],
        ]
    )
    with engine(mode):
        s = exact_sum(x)
        m = exact_mean(x)
        v = exact_var(x)
        q = exact_sum_of_squares(x)
    assert s[0] == np.inf and s[2] == -np.inf and s[3] == np.inf
    assert bits(s[1]) == CANONICAL_NAN_BITS
    assert m[0] == np.inf and m[2] == -np.inf and same(m[3], ref_mean([1e308, 1e308, 1.0]))
    assert bits(m[1]) == CANONICAL_NAN_BITS
    assert [bits(t) for t in v[:3]] == [CANONICAL_NAN_BITS] * 3
    assert v[3] == np.inf and same(v[3], ref_var([1e308, 1e308, 1.0], 0))  # overflows
    assert list(q) == [np.inf] * 4
    # an infinity that is not selected is ignored
    w = np.array([False, False, True])
    with engine(mode):
        assert exact_sum(x, w).tolist() == [2.0, 1.0, 1e308, 1.0]


@pytest.mark.parametrize("mode", ENGINES)
def test_nan_selected_gives_canonical_nan_and_unselected_is_ignored(mode):
    payload_nan = np.array(0x7FF4000000000123, dtype=np.int64).view(np.float64)
    x = np.array([1.0, payload_nan, -payload_nan, 2.0])
    with engine(mode):
        for f in (exact_sum, exact_mean, exact_sum_of_squares, exact_var):
            assert bits(f(x)) == CANONICAL_NAN_BITS
        w = np.array([True, False, False, True])
        assert exact_sum(x, w) == 3.0
        assert exact_mean(x, w) == 1.5
        assert exact_var(x, where=w) == 0.25


def test_mean_never_overflows_and_matches_statistics():
    x = np.array([MAX, MAX, MAX])
    assert exact_mean(x) == MAX
    x = np.array([1e308, 1e308, -1e308])
    assert same(exact_mean(x), statistics.mean(x.tolist()))


def test_variance_one_ulp_spread():
    # mean rounded first would give var = u**2/3 instead of the exact 2*u**2/9
    u = 2.0**-52
    x = np.array([1.0, 1.0 + u, 1.0 + u])
    assert same(exact_var(x), statistics.pvariance(x.tolist()))
    assert same(exact_var(x), 2 * u * u / 9)
    assert same(exact_var(x, ddof=1), statistics.variance(x.tolist()))


def test_ddof_edge_cases():
    x = np.array([[1.0, 2.0, 4.0], [5.0, 5.0, 5.0]])
    assert [bits(t) for t in exact_var(x, ddof=3)] == [CANONICAL_NAN_BITS] * 2
    assert bits(exact_var(x, ddof=5)[0]) == CANONICAL_NAN_BITS
    assert same(exact_var(x, ddof=-1)[0], ref_var([1.0, 2.0, 4.0], -1))
    assert exact_var(x)[1] == 0.0
    # non-integer ddof: applied to the exactly rounded population variance
    assert exact_var(x, ddof=0.5)[0] == pytest.approx(ref_var([1.0, 2.0, 4.0], 0.5), rel=1e-15)
    assert bits(exact_var(np.array([3.0]), ddof=1)) == CANONICAL_NAN_BITS


# -------------------------------------------------------- random data vs Fraction


@pytest.mark.parametrize("mode", ENGINES)
@pytest.mark.parametrize("gen", list(GENERATORS))
def test_rows_with_where_against_fraction(mode, gen):
    rng = np.random.default_rng(zlib.crc32(repr((mode, gen)).encode()))
    x = GENERATORS[gen](rng, (7, 40))
    w = rng.random(x.shape) < 0.6
    w[0] = False  # empty row
    w[1] = True  # full row
    w[2] = False
    w[2, 5] = True  # one element
    if mode == "small":  # keep under the small-input threshold
        x, w = x[:, :9], w[:, :9]
    with engine(mode):
        s = exact_sum(x, w)
        m = exact_mean(x, w)
        q = exact_sum_of_squares(x, w)
        v0 = exact_var(x, 0, w)
        v1 = exact_var(x, 1, w)
    for i in range(x.shape[0]):
        vals = x[i][w[i]].tolist()
        assert same(s[i], ref_sum(vals)), i
        assert same(q[i], ref_sumsq(vals)), i
        if vals:
            assert same(m[i], ref_mean(vals)), i
            assert same(v0[i], ref_var(vals, 0)), i
        else:
            assert bits(m[i]) == CANONICAL_NAN_BITS and bits(v0[i]) == CANONICAL_NAN_BITS
        if len(vals) > 1:
            assert same(v1[i], ref_var(vals, 1)), i
        else:
            assert bits(v1[i]) == CANONICAL_NAN_BITS


@pytest.mark.parametrize("gen", list(GENERATORS))
def test_long_row_many_blocks_and_permutation(gen):
    # longer than one front-end block (2**15): several blocks, level sums per block
    rng = np.random.default_rng(7)
    x = GENERATORS[gen](rng, 35_000)  # > one block of 2**15
    vals = x.tolist()
    assert same(exact_sum(x), ref_sum(vals))
    assert same(exact_mean(x), ref_mean(vals))
    assert same(exact_sum_of_squares(x), ref_sumsq(vals))
    assert same(exact_var(x, 1), ref_var(vals, 1))
    p = rng.permutation(x.size)
    assert same(exact_sum(x[p]), exact_sum(x))
    assert same(exact_var(x[p], 1), exact_var(x, 1))


def test_float32_and_float16_are_widened_exactly():
    rng = np.random.default_rng(3)
    x32 = (rng.standard_normal(200) * 1e30).astype(np.float32)
    x16 = rng.standard_normal(200).astype(np.float16)
    for x in (x32, x16):
        vals = x.astype(np.float64).tolist()
        assert exact_sum(x).dtype == np.float64
        assert same(exact_sum(x), ref_sum(vals))
        assert same(exact_mean(x), ref_mean(vals))
        assert same(exact_var(x, 1), ref_var(vals, 1))
    big16 = np.full(100, 60000, dtype=np.float16)  # sum beyond float16 range stays exact
    assert exact_sum(big16) == 6e6


def test_huge_squares_and_tiny_values_use_the_digit_engine():
    # rows outside the extraction front end's safe range (|x| > 2**480, tiny squares)
    x = np.array([[1e300, -1e300, 3.0] + [0.0] * 70, [1e-300, 2e-300, 3e-300] + [1.0] * 70])
    for i in range(2):
        vals = x[i].tolist()
        assert same(exact_sum_of_squares(x)[i], ref_sumsq(vals))
        assert same(exact_var(x)[i], ref_var(vals, 0))
        assert same(exact_sum(x)[i], ref_sum(vals))
    assert exact_sum_of_squares(np.full(100, 1e200)) == np.inf


# ---------------------------------------------------------------- hypothesis

finite = st.floats(allow_nan=False, allow_infinity=False)
float_lists = st.lists(finite, min_size=0, max_size=40)
HYP = settings(max_examples=150, deadline=None)


@HYP
@given(vals=float_lists, seed=st.integers(0, 2**32 - 1), mode=st.sampled_from(ENGINES))
def test_sum_equals_fsum_and_is_permutation_invariant(vals, seed, mode):
    x = np.array(vals, dtype=np.float64)
    with engine(mode):
        got = exact_sum(x)
        perm = exact_sum(x[np.random.default_rng(seed).permutation(x.size)])
    assert same(got, perm)
    try:
        expected = math.fsum(vals)
    except OverflowError:  # fsum raises where correct rounding gives +-inf
        expected = ref_sum(vals)
    if expected == 0:  # fsum's zero sign differs across Python versions; rule checked above
        assert got == 0
    else:
        assert same(got, expected)


@HYP
@given(vals=st.lists(finite, min_size=1, max_size=40), mode=st.sampled_from(ENGINES))
def test_mean_equals_statistics_mean(vals, mode):
    x = np.array(vals, dtype=np.float64)
    with engine(mode):
        got = exact_mean(x)
    expected = statistics.mean(vals)
    if expected == 0:
        assert got == 0
    else:
        assert same(got, expected)


@HYP
@given(
    vals=st.lists(finite, min_size=2, max_size=30),
    ddof=st.sampled_from([0, 1]),
    seed=st.integers(0, 2**32 - 1),
    mode=st.sampled_from(ENGINES),
)
def test_var_equals_statistics_and_is_permutation_invariant(vals, ddof, seed, mode):
    x = np.array(vals, dtype=np.float64)
    with engine(mode):
        got = exact_var(x, ddof)
        perm = exact_var(x[np.random.default_rng(seed).permutation(x.size)], ddof)
    assert same(got, perm)
    try:
        expected = statistics.variance(vals) if ddof else statistics.pvariance(vals)
    except OverflowError:
        expected = ref_var(vals, ddof)
    assert same(got, expected)


@HYP
@given(
    vals=st.lists(st.floats(allow_nan=False, allow_infinity=False, width=32), max_size=30),
    mode=st.sampled_from(ENGINES),
)
def test_sum_of_squares_equals_fraction(vals, mode):
    x = np.array(vals, dtype=np.float32)
    with engine(mode):
        got = exact_sum_of_squares(x)
    assert same(got, ref_sumsq([float(v) for v in x.tolist()]))


@HYP
@given(
    vals=st.lists(st.integers(-(2**63), 2**63 - 1), min_size=1, max_size=30),
    mode=st.sampled_from(ENGINES),
)
def test_integer_stats_are_exact(vals, mode):
    x = np.array(vals, dtype=np.int64)
    total = sum(vals)
    with engine(mode):
        if -(2**63) <= total < 2**63:
            got = exact_sum(x)
            assert got.dtype == np.int64 and int(got) == total
        else:
            with pytest.raises(OverflowError, match=str(total)):
                exact_sum(x)
        assert same(exact_mean(x), to_float(Fraction(total, len(vals))))
        assert same(exact_sum_of_squares(x), to_float(Fraction(sum(v * v for v in vals))))
        assert same(exact_var(x), ref_var(vals, 0))


# ------------------------------------------------------------------- integers


@pytest.mark.parametrize("mode", ENGINES)
def test_int64_extremes_and_overflow_names_the_row(mode):
    lo, hi = -(2**63), 2**63 - 1
    x = np.array([[hi, hi, lo], [hi, 1, -2], [lo, lo, 1]], dtype=np.int64)
    with engine(mode):
        ok = exact_sum(x[:2])
        assert ok.dtype == np.int64 and ok.tolist() == [2**63 - 2, 2**63 - 2]
        with pytest.raises(OverflowError, match=r"row 2 is -18446744073709551615"):
            exact_sum(x)
        x3 = np.broadcast_to(x, (2, 3, 3))
        with pytest.raises(OverflowError, match=r"row \(0, 2\)"):
            exact_sum(x3)
        means = exact_mean(x)
        vars_ = exact_var(x, 1)
    for i, row in enumerate(x.tolist()):
        assert same(means[i], to_float(Fraction(sum(row), 3)))
        assert same(vars_[i], ref_var(row, 1))


@pytest.mark.parametrize("mode", ENGINES)
def test_unsigned_and_bool(mode):
    u = np.array([2**64 - 1, 2**64 - 1, 5], dtype=np.uint64)
    with engine(mode):
        with pytest.raises(OverflowError, match=str(2 * (2**64 - 1) + 5)):
            exact_sum(u)
        assert same(exact_mean(u), to_float(Fraction(2 * (2**64 - 1) + 5, 3)))
        assert same(exact_var(u), ref_var(u.tolist(), 0))
        assert exact_sum(np.array([2**63 - 1], dtype=np.uint64)) == 2**63 - 1
        b = np.array([[True, True, False], [False, False, False]])
        assert exact_sum(b).tolist() == [2, 0]
        assert exact_mean(b).tolist() == [2 / 3, 0.0]
        assert exact_sum(np.array([100, 100], dtype=np.int8)).tolist() == 200


def test_integer_mean_against_fraction_many_rows():
    rng = np.random.default_rng(11)
    x = rng.integers(-(2**63), 2**63 - 1, size=(20, 50), dtype=np.int64, endpoint=True)
    w = rng.random(x.shape) < 0.5
    m = exact_mean(x, w)
    v = exact_var(x, 1, w)
    q = exact_sum_of_squares(x, w)
    for i in range(x.shape[0]):
        vals = x[i][w[i]].tolist()
        assert same(m[i], to_float(Fraction(sum(vals), len(vals))))
        assert same(v[i], ref_var(vals, 1))
        assert same(q[i], to_float(Fraction(sum(t * t for t in vals))))


# -------------------------------------------------------------- shapes and inputs


def test_shapes_readonly_and_no_mutation():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((3, 4, 30))
    x.flags.writeable = False
    before = x.copy()
    for f in (exact_sum, exact_mean, exact_sum_of_squares, exact_var):
        out = f(x)
        assert out.shape == (3, 4)
        assert same(out[1, 2], f(x[1, 2]))
    np.testing.assert_array_equal(x, before)
    w = np.zeros(30, bool)
    w[::3] = True
    assert exact_sum(x, w).shape == (3, 4)  # where broadcasts
    assert same(exact_sum(x, w)[2, 3], ref_sum(x[2, 3][w].tolist()))
    assert exact_mean(np.zeros((0, 5))).shape == (0,)
    assert exact_sum(np.zeros((2, 0), dtype=np.int64)).tolist() == [0, 0]


def test_bad_inputs():
    with pytest.raises(ValueError, match="ndim >= 1"):
        exact_sum(np.float64(1.0))
    with pytest.raises(TypeError, match="complex128"):
        exact_sum(np.ones(3, dtype=complex))
    with pytest.raises(TypeError, match="boolean"):
        exact_sum(np.ones(3), where=np.ones(3))
    with pytest.raises(TypeError, match="float128|longdouble|float96"):
        exact_sum(np.ones(3, dtype=np.longdouble))
