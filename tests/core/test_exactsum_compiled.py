"""The compiled exact sums (core/_numba/exact.py) against the NumPy engine, bit for bit,
and against math.fsum / statistics / Fraction (exactly rounded)."""

from __future__ import annotations

import math
import statistics
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nanaccess.core import _numba as NB
from nanaccess.core.exactsum import compiled, exact_mean, exact_sum, exact_var
from nanaccess.core.grouped.moments import moment_column
from nanaccess.core.moments import moment_stat
from nanaccess.options import NanPolicy, option_context

pytestmark = pytest.mark.skipif(not NB.AVAILABLE, reason="numba not installed or disabled")

FUNCS = {
    "sum": lambda x, w: exact_sum(x, w),
    "mean": lambda x, w: exact_mean(x, w),
    "var": lambda x, w: exact_var(x, 0, w),
    "var1": lambda x, w: exact_var(x, 1, w),
    "var_frac": lambda x, w: exact_var(x, 0.5, w),
}


def bits(a) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(a, dtype=np.float64)).view(np.int64)


def both(fn, *args):
    """(compiled result, NumPy-engine result) of fn(*args)."""
    saved = compiled.MIN_SIZE
    compiled.MIN_SIZE = 0
    try:
        with option_context(engine="numba"):
            a = fn(*args)
    finally:
        compiled.MIN_SIZE = saved
    with option_context(engine="numpy"):
        b = fn(*args)
    return a, b


# arbitrary 64-bit patterns: every finite float, subnormals, zeros of both signs,
# infinities and NaNs of every payload
patterns = st.lists(st.integers(0, 2**64 - 1), min_size=0, max_size=120).map(
    lambda v: np.array(v, dtype=np.uint64).view(np.float64))
# wide exponent ranges with heavy cancellation
wide = st.lists(st.floats(allow_nan=False, allow_infinity=False, width=64), min_size=1,
                max_size=80).map(lambda v: np.array(v + [-t for t in v[: len(v) // 2]]))


@settings(max_examples=150, deadline=None)
@given(x=patterns, stat=st.sampled_from(sorted(FUNCS)), masked=st.booleans())
def test_compiled_equals_numpy_engine_on_any_bits(x, stat, masked):
    w = None
    if masked:
        w = np.arange(x.size) % 3 != 1
    a, b = both(FUNCS[stat], x, w)
    assert np.array_equal(bits(a), bits(b))


@settings(max_examples=150, deadline=None)
@given(x=wide, stat=st.sampled_from(sorted(FUNCS)))
def test_compiled_equals_numpy_engine_wide_ranges(x, stat):
    a, b = both(FUNCS[stat], x, None)
    assert np.array_equal(bits(a), bits(b))


def _finite(x):
    return np.array([v for v in x if math.isfinite(v)], dtype=np.float64)


@settings(max_examples=100, deadline=None)
@given(x=wide)
def test_compiled_is_exactly_rounded(x):
    x = _finite(x)
    saved = compiled.MIN_SIZE
    compiled.MIN_SIZE = 0
    try:
        with option_context(engine="numba"):
            s, m = float(exact_sum(x)), float(exact_mean(x))
            v0, v1 = float(exact_var(x)), float(exact_var(x, 1))
    finally:
        compiled.MIN_SIZE = saved
    exact = sum(Fraction(v) for v in x)
    try:
        want = float(exact)
    except OverflowError:
        want = math.inf if exact > 0 else -math.inf
    assert bits(s) == bits(want) or (s == 0 and want == 0)
    try:
        assert s == math.fsum(x)
    except OverflowError:  # fsum's partials overflowed: the exact sum still rounds
        pass
    n = len(x)
    mean = exact / n
    if abs(mean) < Fraction(2) ** 1023:
        assert m == float(mean) or (m == 0 and mean == 0)
        if max(abs(v) for v in x) < 1e150:  # statistics.fmean rounds its sum first
            assert m == statistics.mean(x.tolist()) or m == 0
    ss = sum((Fraction(v) - mean) ** 2 for v in x)
    if ss < Fraction(2) ** 1020:
        assert v0 == float(ss / n)
        if n > 1:
            assert v1 == float(ss / (n - 1))
            if max(abs(v) for v in x) < 1e150:
                assert v1 == statistics.variance(x.tolist())


@pytest.mark.parametrize("kind", ["normal", "wide", "subnormal", "integers", "cancel"])
@pytest.mark.parametrize("n", [70, 20_000, 70_000])
def test_long_rows_blocks_and_counted_mode(kind, n):
    # 70_000 spans several 16384-value blocks; "wide" switches to the counted mode
    rng = np.random.default_rng(n + len(kind))
    if kind == "normal":
        x = rng.standard_normal(n)
    elif kind == "wide":
        x = rng.standard_normal(n) * np.exp(rng.uniform(-700, 700, n))
    elif kind == "subnormal":
        x = rng.standard_normal(n) * 1e-310
    elif kind == "integers":
        x = rng.integers(-(2**53), 2**53, n).astype(np.float64)
    else:
        h = rng.standard_normal(n // 2) * 1e300
        x = rng.permutation(np.concatenate([h, -h, [2.0**-1074] * (n - 2 * (n // 2))]))
    x2 = np.stack([x, x[::-1], -x])
    w = rng.random(x2.shape) < 0.9
    for stat, fn in FUNCS.items():
        for where in (None, w):
            a, b = both(fn, x2, where)
            assert np.array_equal(bits(a), bits(b)), stat
    assert float(both(FUNCS["sum"], x, None)[0]) == math.fsum(x)


def test_specials_and_signed_zeros():
    n = 100
    cases = {
        "neg zeros": np.full(n, -0.0),
        "zeros": np.zeros(n),
        "mixed zeros": np.r_[np.full(n - 1, -0.0), 0.0],
        "inf": np.r_[np.ones(n - 1), np.inf],
        "-inf": np.r_[np.ones(n - 1), -np.inf],
        "both inf": np.r_[np.ones(n - 2), np.inf, -np.inf],
        "overflow": np.full(n, np.finfo(np.float64).max),
        "cancel to zero": np.r_[np.full(n // 2, 1e300), np.full(n // 2, -1e300)],
        "tiny mean": np.r_[np.full(n - 1, 0.0), 5e-324],
    }
    for name, x in cases.items():
        for stat, fn in FUNCS.items():
            a, b = both(fn, x, None)
            assert np.array_equal(bits(a), bits(b)), (name, stat)
    a, _ = both(FUNCS["sum"], cases["neg zeros"], None)
    assert np.signbit(a)
    a, _ = both(FUNCS["sum"], cases["both inf"], None)
    assert bits(a) == 0x7FF8000000000000


@pytest.mark.parametrize("policy", list(NanPolicy))
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, np.int64])
@pytest.mark.parametrize("stat", ["sum", "mean", "var", "std"])
def test_moment_stat_every_policy_and_dtype(policy, dtype, stat):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((5, 300)) * 100
    if np.dtype(dtype).kind == "f":
        x[1, ::7] = np.nan
        x[3, 5] = np.inf
    x = x.astype(dtype)
    for axis in (None, 0, 1):
        try:
            a = moment_stat(x, stat, axis=axis, ddof=1, policy=policy)
        except Exception as err:  # the same refusal from both engines
            with option_context(engine="numpy"), pytest.raises(type(err)):
                moment_stat(x, stat, axis=axis, ddof=1, policy=policy)
            continue
        with option_context(engine="numpy"):
            b = moment_stat(x, stat, axis=axis, ddof=1, policy=policy)
        assert a[0].dtype == b[0].dtype
        va, vb = np.atleast_1d(a[0]), np.atleast_1d(b[0])
        assert np.array_equal(va.view(np.uint8), vb.view(np.uint8))
        assert (a[1] is None) == (b[1] is None)


@pytest.mark.parametrize("kind", ["normal", "wide", "bits"])
@pytest.mark.parametrize("stat", ["sum", "mean", "var", "std"])
def test_grouped_equals_each_group_ungrouped(kind, stat):
    rng = np.random.default_rng(len(kind) * 10 + len(stat))
    n, g = 3000, 40
    if kind == "normal":
        x = rng.standard_normal(n)
        x[::13] = np.nan
        x[::29] = -0.0
    elif kind == "wide":
        x = rng.standard_normal(n) * np.exp(rng.uniform(-700, 700, n))
    else:
        x = rng.integers(0, 2**64, n, dtype=np.uint64).view(np.float64)
    codes = rng.integers(-1, g, n)
    codes[codes == 5] = 6  # an empty group
    nan = np.isnan(x) & (codes >= 0)
    vals, _ = moment_column(x, nan, None, codes, g, stat, 1, NanPolicy.OMIT)
    with option_context(engine="numpy"):
        ref, _ = moment_column(x, nan, None, codes, g, stat, 1, NanPolicy.OMIT)
    assert np.array_equal(bits(vals), bits(ref))
    fn = {"sum": exact_sum, "mean": exact_mean}.get(stat)
    for k in range(g):
        xk = x[(codes == k) & ~nan]
        if fn is not None:
            want = fn(xk) if xk.size else (0.0 if stat == "sum" else np.nan)
        else:
            want = exact_var(xk, 1) if xk.size > 1 else np.nan
            want = np.sqrt(want) if stat == "std" else want
        assert bits(vals[k]) == bits(want) or (np.isnan(vals[k]) and np.isnan(want)), k


def test_compiled_1d_entry():
    x = np.random.default_rng(3).standard_normal(500)
    got = compiled.compiled_1d(x, "mean")
    assert got == float(np.mean(x.astype(object)) if False else exact_mean(x))
    assert compiled.compiled_1d(x.astype(np.float32), "mean") is None
    with option_context(engine="numpy"):
        assert compiled.compiled_1d(x, "mean") is None
    assert compiled.compiled_1d(np.r_[x, -x], "sum") == 0.0
    assert compiled.compiled_1d(np.full(100, 7.0), "var", 1) == 0.0


@pytest.mark.parametrize("kind", ["normal", "wide", "bits", "huge"])
def test_partials_equal_the_numpy_engine(kind):
    from nanaccess.core.exactsum import exact_partials, merge_partials, round_mean, round_var

    rng = np.random.default_rng(len(kind))
    shape = (4, 3000)
    if kind == "bits":
        x = rng.integers(0, 2**64, shape, dtype=np.uint64).view(np.float64)
    elif kind == "wide":
        x = rng.standard_normal(shape) * np.exp(rng.uniform(-700, 700, shape))
    elif kind == "huge":  # squares beyond the kernel's range: recomputed rows
        x = rng.standard_normal(shape) * 1e300
    else:
        x = rng.standard_normal(shape)
        x[0, ::5] = -0.0
        x[1] = -0.0
    w = rng.random(shape) < 0.8
    for where in (None, w):
        a, b = both(exact_partials, x, where)
        finite = ~(b.nan | b.posinf | b.neginf)  # s and q of other rows are unused
        for f in a._fields:
            va, vb = getattr(a, f), getattr(b, f)
            if f in ("s", "q"):
                va, vb = va[finite], vb[finite]
            assert np.array_equal(va, vb) if isinstance(va, np.ndarray) else va == vb, f
        halves = merge_partials(*(both(exact_partials, x[:, k::2], None)[0] for k in (0, 1)))
        assert np.array_equal(bits(round_mean(halves)), bits(exact_mean(x)))
        assert np.array_equal(bits(round_var(halves, 1)), bits(exact_var(x, 1)))


def _skipnan_vs_mask(x2, stat, ddof):
    """compiled_rows_skipnan against compiled_rows with the non-NaN values selected."""
    saved = compiled.MIN_SIZE
    compiled.MIN_SIZE = 0
    try:
        with option_context(engine="numba"):
            vals, nan, sig = compiled.compiled_rows_skipnan(x2, stat, ddof)
            ref = compiled.compiled_rows(x2, ~np.isnan(x2), stat, ddof)
    finally:
        compiled.MIN_SIZE = saved
    with option_context(engine="numpy"):
        fn = {"sum": exact_sum, "mean": exact_mean}.get(stat)
        ref_np = fn(x2, ~np.isnan(x2)) if fn else exact_var(x2, ddof, ~np.isnan(x2))
    assert np.array_equal(bits(vals), bits(ref))
    assert np.array_equal(bits(vals), bits(np.atleast_1d(ref_np)))
    bx = x2.view(np.uint64)
    assert np.array_equal(nan, np.isnan(x2).any(axis=1))
    quiet = (bx & np.uint64(1 << 51)) != 0
    assert np.array_equal(sig, (np.isnan(x2) & ~quiet).any(axis=1))


@settings(max_examples=150, deadline=None)
@given(x=patterns, stat=st.sampled_from(["sum", "mean", "var", "var1", "var_frac"]))
def test_skipnan_pass_equals_the_non_nan_selection(x, stat):
    ddof = {"var1": 1, "var_frac": 0.5}.get(stat, 0)
    _skipnan_vs_mask(np.stack([x, x[::-1]]), "var" if ddof or stat == "var" else stat, ddof)


@pytest.mark.parametrize("kind", ["normal", "wide", "nan_blocks"])
def test_skipnan_pass_long_rows(kind):
    # several blocks; "wide" takes the counted mode, whose NaN entry fills up (> 2048
    # NaNs) without losing a flag or a count
    rng = np.random.default_rng(len(kind))
    n = 70_000
    x = rng.standard_normal(n)
    if kind != "normal":
        x = x * np.exp(rng.uniform(-700, 700, n))
    x[rng.random(n) < 0.05] = np.nan
    if kind == "nan_blocks":
        x[:5000] = np.nan
        x[6000] = np.inf
    y = x.copy()
    y[10] = np.uint64(0x7FF0000000000001).view(np.float64)  # signaling
    for stat, ddof in (("sum", 0), ("mean", 0), ("var", 1)):
        _skipnan_vs_mask(np.stack([x, y, np.ones(n)]), stat, ddof)


@settings(max_examples=150, deadline=None)
@given(x=patterns, policy=st.sampled_from(list(NanPolicy)),
       stat=st.sampled_from(["sum", "mean", "var", "std"]))
def test_moment_stat_one_pass_every_policy_any_bits(x, policy, stat):
    # the one-pass path (compiled, NaNs found while summing) against the scan and the
    # NumPy engine: the same values, the same errors
    def run():
        try:
            return moment_stat(x, stat, ddof=1, policy=policy)[0]
        except Exception as err:  # noqa: BLE001 - compared below
            return type(err)
    a, b = both(run)
    if isinstance(a, type):
        assert a is b
    else:
        assert np.array_equal(bits(np.atleast_1d(a)), bits(np.atleast_1d(b)))


@pytest.mark.parametrize("n", [16383, 3 * 16384 - 1, 16384 + 7, 5461, 5455])
def test_block_tails_never_overflow_an_entry(n):
    # equal values of the largest mantissa, a block's length short of a multiple of the
    # tables: the tail once went to table 0 alone (2054 adds of ~2**53: a wrapped sum)
    x = np.full(n, 1.9999999999999998)
    w = np.ones(n, bool)
    w[0] = False
    x2 = np.stack([x, -x])
    for where in (None, np.stack([w, w])):
        for stat, fn in FUNCS.items():
            a, b = both(fn, x2, where)
            assert np.array_equal(bits(a), bits(b)), stat
    assert float(both(FUNCS["sum"], x, None)[0]) == math.fsum(x)
    assert float(both(FUNCS["sum"], x, w)[0]) == math.fsum(x[1:])
