"""The certified compensated fast path (core/_numba/compensated.py,
core/exactsum/certified.py): what it certifies is the correctly rounded value (Fraction),
the engine with it equals the NumPy engine bit for bit, and hard cases really fall
back to the exact engine (counted by ``certified.stats``)."""

from __future__ import annotations

import math
import statistics
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nanaccess.core import _numba as NB
from nanaccess.core.exactsum import certified, compiled, exact_mean, exact_sum
from nanaccess.core.grouped.moments import moment_column
from nanaccess.core.moments import moment_stat
from nanaccess.options import NanPolicy, option_context

pytestmark = pytest.mark.skipif(not NB.AVAILABLE, reason="numba not installed or disabled")

U = 2.0 ** -53


def bits(a) -> np.ndarray:
    return np.ascontiguousarray(np.atleast_1d(np.asarray(a, dtype=np.float64))).view(np.int64)


def rounded(vals, stat: str) -> float:
    """The correctly rounded sum or mean of finite ``vals`` (Fraction, one rounding)."""
    s = sum((Fraction(float(v)) for v in vals), Fraction(0))
    return float(s if stat == "sum" else s / len(vals))


@pytest.fixture(autouse=True)
def _small_inputs_too(monkeypatch):
    """Both compiled paths serve inputs of any size here (tests stay small)."""
    monkeypatch.setattr(compiled, "MIN_SIZE", 0)
    monkeypatch.setattr(certified, "MIN_SIZE", 0)


def both(fn):
    """(numba engine result, NumPy engine result) of ``fn()``; an exception's type."""
    def run(engine):
        with option_context(engine=engine):
            try:
                return fn()
            except Exception as err:  # noqa: BLE001 - compared by the caller
                return type(err)
    return run("numba"), run("numpy")


def same(a, b) -> bool:
    if isinstance(a, type) or isinstance(b, type):
        return a is b
    (va, ma), (vb, mb) = a, b
    return (va.dtype == vb.dtype and va.shape == vb.shape
            and np.array_equal(np.ascontiguousarray(va).view(np.uint8),
                               np.ascontiguousarray(vb).view(np.uint8))
            and (ma is None) == (mb is None))


# ------------------------------------------------------------------ data strategies

patterns = st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=90).map(
    lambda v: np.array(v, dtype=np.uint64).view(np.float64))
patterns32 = st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=90).map(
    lambda v: np.array(v, dtype=np.uint32).view(np.float32))
wide = st.lists(st.floats(allow_nan=False, allow_infinity=False, width=64), min_size=1,
                max_size=60).map(lambda v: np.array(v + [-t for t in v[: len(v) // 2]]))
subnormal = st.lists(st.integers(-2**53, 2**53), min_size=1, max_size=60).map(
    lambda v: np.array(v, dtype=np.float64) * 2.0 ** -1074)


@st.composite
def near_ties(draw):
    """A base value with pieces at and around half its ulp: ties, near-ties, and
    heavy cancellation, shuffled among ordinary values."""
    a = draw(st.floats(1e-300, 1e300) | st.floats(-1e300, -1e-300))
    k = draw(st.integers(0, 4))
    extra = [a * U * draw(st.sampled_from([1.0, -1.0, 0.5, 2.0]))]
    for _ in range(k):
        extra.append(a * 2.0 ** -(53 + draw(st.integers(1, 60)))
                     * draw(st.sampled_from([1.0, -1.0])))
    big = draw(st.sampled_from([0.0, 1e300, 2.0 ** 1000]))
    rest = draw(st.lists(st.floats(-4.0, 4.0), max_size=20))
    vals = [a, *extra, big, -big, *rest]
    perm = draw(st.permutations(range(len(vals))))
    return np.array([vals[i] for i in perm])


# values of one binade (signs mixed): their sums and means meet exact ties often, and
# the bound is small enough to settle them
narrow = st.lists(st.integers(2**52, 2**53 - 1) | st.integers(-2**53 + 1, -2**52),
                  min_size=2, max_size=40).map(
    lambda v: np.array(v, dtype=np.float64) * 2.0 ** -52)

data = patterns | wide | subnormal | near_ties() | narrow


# ------------------------------------------------------------------ soundness

@settings(max_examples=300, deadline=None)
@given(x=data | patterns32.map(lambda v: v.astype(np.float64)),
       stat=st.sampled_from(["sum", "mean"]))
def test_every_certified_value_is_the_correctly_rounded_one(x, stat):
    got = certified.certified_rows(x.reshape(1, -1), None, stat)
    assert got is not None
    vals, ok, counts, _ = got
    one = certified.certified_1d(x, stat)  # the lean 1-D entry: the same verdict
    assert (one is not None) == bool(ok[0])
    if ok[0]:
        assert counts[0] == x.size
        assert bits(vals[0]) == bits(rounded(x, stat)) == bits(one)


@settings(max_examples=200, deadline=None)
@given(x=data, stat=st.sampled_from(["sum", "mean"]), mode=st.sampled_from(["mask", "skipnan"]))
def test_certified_masked_and_skipnan_cells(x, stat, mode):
    rng = np.random.default_rng(x.size)
    if mode == "mask":
        w = rng.random(x.size) < 0.7
        got = certified.certified_rows(x.reshape(1, -1), w.reshape(1, -1), stat)
        take = x[w]
    else:
        got = certified.certified_rows(x.reshape(1, -1), None, stat, skipnan=True)
        take = x[~np.isnan(x)]
        assert bool(got[3][0] & certified.F_NAN) == bool(np.isnan(x).any())
        sig = np.isnan(x) & ((x.view(np.uint64) & np.uint64(1 << 51)) == 0)
        assert bool(got[3][0] & certified.F_SNAN) == bool(sig.any())
    vals, ok, counts, _ = got
    if ok[0]:
        assert counts[0] == take.size
        assert bits(vals[0]) == bits(rounded(take, stat))


# ------------------------------------------------------------------ the engines agree

@settings(max_examples=150, deadline=None)
@given(x=data, stat=st.sampled_from(["sum", "mean"]), policy=st.sampled_from(list(NanPolicy)),
       dtype=st.sampled_from([np.float64, np.float32, np.float16]))
def test_engine_equals_numpy_engine_1d(x, stat, policy, dtype):
    with np.errstate(over="ignore"):
        y = x.astype(dtype)
    assert same(*both(lambda: moment_stat(y, stat, policy=policy)))
    assert same(*both(lambda: (exact_sum(y) if stat == "sum" else exact_mean(y), None)))


@settings(max_examples=100, deadline=None)
@given(x=st.lists(data, min_size=6, max_size=6), stat=st.sampled_from(["sum", "mean"]),
       policy=st.sampled_from(list(NanPolicy)),
       dtype=st.sampled_from([np.float64, np.float32]))
def test_engine_equals_numpy_engine_any_axis(x, stat, policy, dtype):
    n = min(v.size for v in x)
    with np.errstate(over="ignore"):
        a = np.stack([v[:n] for v in x]).astype(dtype)  # (6, n)
    for arr, axis in ((a, 0), (a, 1), (a.T.copy(), 0), (a.reshape(2, 3, n), 1),
                      (a.reshape(2, 3, n), (0, 1)), (np.ascontiguousarray(
                          np.moveaxis(a.reshape(2, 3, n), 2, 0)), 0)):
        assert same(*both(lambda arr=arr, axis=axis: moment_stat(arr, stat, axis=axis,
                                                                 policy=policy)))


def test_leading_axis_kernel_every_cell_rounded_once():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((300, 7, 5)) * np.exp(rng.uniform(-30, 30, (300, 7, 5)))
    x[:, 0, 0] = 0.1  # 300 x 0.1: a rounded sum of many equal values
    x[::2, 1, 1] = 1e300  # cancels exactly
    x[1::2, 1, 1] = -1e300
    x[5, 2, 2] = np.nan
    for stat in ("sum", "mean"):
        for policy in ("omit", "propagate"):
            got = moment_stat(x, stat, axis=0, policy=policy)[0]
            with option_context(engine="numpy"):
                ref = moment_stat(x, stat, axis=0, policy=policy)[0]
            assert np.array_equal(bits(got), bits(ref))
        y = x.copy()
        y[7] = np.nan  # a NaN in every cell: the whole skipping pass, not a few columns
        got = moment_stat(y, stat, axis=0, policy="omit")[0]
        with option_context(engine="numpy"):
            ref = moment_stat(y, stat, axis=0, policy="omit")[0]
        assert np.array_equal(bits(got), bits(ref))
        want = [rounded(x[:, i, j], stat) for i in range(7) for j in range(5) if (i, j) != (2, 2)]
        got = np.delete(moment_stat(x, stat, axis=0, policy="omit")[0].ravel(), 2 * 5 + 2)
        assert np.array_equal(bits(got), bits(want))


@pytest.mark.parametrize("stat", ["sum", "mean"])
@pytest.mark.parametrize("kind", ["normal", "ties", "bits"])
def test_grouped_equals_each_group_ungrouped(kind, stat):
    rng = np.random.default_rng(len(kind))
    n, g = 2000, 150
    if kind == "normal":
        x = rng.standard_normal(n)
        x[::17] = np.nan
    elif kind == "ties":  # small groups of short mantissas: exact ties are common
        x = rng.integers(-2**20, 2**20, n) * 2.0 ** rng.integers(-40, 40, n)
    else:
        x = rng.integers(0, 2**64, n, dtype=np.uint64).view(np.float64)
    codes = rng.integers(-1, g, n)
    if kind == "ties":
        # group 0: a sum tie the bound cannot settle; group 1: a mean tie it settles
        # (an odd row left out); group 2: a mean tie it cannot settle
        idx = np.flatnonzero(codes == 0)
        x[idx] = 0.0
        x[idx[:2]] = (1.0, 2.0 ** -53)
        idx = np.flatnonzero(codes == 1)
        x[idx] = np.where(np.arange(idx.size) % 2, 1.0 + 2.0 ** -52, 1.0)
        if idx.size % 2:
            x[idx[-1]] = np.nan
        idx = np.flatnonzero(codes == 2)
        x[idx] = np.resize([4.0, 2.0 ** -51, 2.0 ** -200, -2.0 ** -200], idx.size)
        x[idx[idx.size - idx.size % 4:]] = np.nan
    nan = np.isnan(x) & (codes >= 0)
    certified.reset_stats()
    vals, _ = moment_column(x, nan, None, codes, g, stat, 0, NanPolicy.OMIT)
    assert certified.stats()["certified"] > 0
    if kind == "ties":  # some groups went to the exact kernel
        assert certified.stats()["fallback"] > 0
    with option_context(engine="numpy"):
        ref, _ = moment_column(x, nan, None, codes, g, stat, 0, NanPolicy.OMIT)
    assert np.array_equal(bits(vals), bits(ref))
    fn = exact_sum if stat == "sum" else exact_mean
    for k in range(g):
        xk = x[(codes == k) & ~nan]
        with option_context(engine="numpy"):
            want = fn(xk) if xk.size else (0.0 if stat == "sum" else np.nan)
        assert bits(vals[k]) == bits(want) or (np.isnan(vals[k]) and np.isnan(want)), k


# ------------------------------------------------------------------ hard cases

TIE = 2.0 ** -53
PAD = [0.0] * 80  # zeros: long enough for every compiled path, the sum unchanged
HARD = {  # (values, stat): certification must fail on each
    "tie": ([1.0, TIE, *PAD], "sum"),
    "tie above": ([1.0, 3 * TIE, *PAD], "sum"),
    "near tie up": ([1.0, TIE, 2.0 ** -106, *PAD], "sum"),
    "near tie down": ([1.0, TIE, -2.0 ** -106, *PAD], "sum"),
    "total cancellation to a tie": ([1e308, 1.0, -1e308, TIE, *PAD], "sum"),
    "zero": ([1.5, -1.5, 0.25, -0.25, *PAD], "sum"),
    "subnormal result": ([1e-300, -1e-300, 2.0 ** -1073, *PAD], "sum"),
    "mean tie": ([4.0, 2.0 ** -51, 2.0 ** -200, -2.0 ** -200] * 20, "mean"),
    "mean near tie up": ([2.0, 2.0 + 2.0 ** -51, 2.0 ** -150, 0.0] * 30, "mean"),
    "mean near tie down": ([2.0, 2.0 + 2.0 ** -51, -2.0 ** -150, 0.0] * 30, "mean"),
    "mean subnormal": ([2.0 ** -1070, 2.0 ** -1073, 2.0 ** -1074] * 30, "mean"),
}


@pytest.mark.parametrize("case", sorted(HARD))
def test_hard_cases_fall_back_and_give_the_right_bits(case):
    vals, stat = HARD[case]
    x = np.array(vals)
    want = rounded(x, stat)
    if stat == "sum":
        assert want == math.fsum(x)
    else:
        assert want == statistics.mean(x.tolist())  # exact fractions, one rounding
    for layout in ("1d", "rows", "cols"):
        certified.reset_stats()
        if layout == "1d":
            got = moment_stat(x, stat, policy="omit")[0]
        elif layout == "rows":
            got = moment_stat(np.stack([x, x]), stat, axis=1, policy="omit")[0]
        else:
            got = moment_stat(np.stack([x, x], axis=1), stat, axis=0, policy="omit")[0]
        assert certified.stats()["fallback"] > 0, layout  # the exact engine really ran
        assert np.array_equal(bits(got), bits(np.full(np.shape(got), want))), layout


def test_exact_cancellation_may_be_certified_and_is_right():
    x = np.array([1e308, -1e308, 1.0] + [0.0] * 80)  # every TwoSum error is zero
    assert float(moment_stat(x, "sum")[0]) == 1.0
    assert float(moment_stat(x, "mean")[0]) == rounded(x, "mean")


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_signed_zero_sums_fall_back(sign):
    x = np.full(100, sign * 0.0)
    certified.reset_stats()
    got = moment_stat(x, "sum")[0]
    assert certified.stats()["fallback"] > 0
    assert bits(got) == bits(sign * 0.0)
    got = moment_stat(np.r_[x, 1.0, -1.0], "sum")[0]  # exact zero of mixed terms: +0.0
    assert bits(got) == bits(0.0)


def test_overflowing_partial_sums_fall_back():
    x = np.array([1.7e308, 1.7e308, -1.7e308, -1.7e308, 3.0] * 20)
    certified.reset_stats()
    got = moment_stat(x, "sum")[0]
    assert certified.stats()["fallback"] > 0
    assert float(got) == 60.0
    assert float(moment_stat(np.full(80, 1e308), "sum")[0]) == math.inf


def test_ties_the_bound_cannot_settle_are_never_certified():
    for vals, stat in (HARD["tie"], HARD["mean tie"]):
        x = np.array(vals)
        got = certified.certified_rows(x.reshape(1, -1), None, stat)
        assert not got[1][0]


@pytest.mark.parametrize(("vals", "stat", "want"), [
    ([1.0, 1.0 + 2.0 ** -52] + [0.0] * 80, "sum", 2.0),  # 2 + 2**-52: a tie, to even
    ([1.0 + 2.0 ** -52, 1.0 + 2.0 ** -51] + [0.0] * 80, "sum", 2.0 + 2.0 ** -50),
    ([1.0, 1.0 + 2.0 ** -52] * 40, "mean", 1.0),  # 1 + 2**-53: a tie, to even
    ([1.0 + 2.0 ** -52, 1.0 + 2.0 ** -51] * 40, "mean", 1.0 + 2.0 ** -51),
    ([-1.0, -1.0 - 2.0 ** -52] * 40, "mean", -1.0),
])
def test_exact_ties_of_narrow_data_are_settled_half_even(vals, stat, want):
    # every value a multiple of Q = ulp(smallest) and the bound below Q/2: the sum is
    # known exactly, so a tie is rounded half-even without the exact engine
    x = np.array(vals)
    assert rounded(x, stat) == want
    got = certified.certified_rows(x.reshape(1, -1), None, stat)
    assert got[1][0] and bits(got[0][0]) == bits(want)
    assert certified.certified_1d(x, stat) == want
    x = np.array([1.0, 2.0, 3.0] * 40)  # exact and far from a tie: certified
    got = certified.certified_rows(x.reshape(1, -1), None, "mean")
    assert got[1][0] and got[0][0] == 2.0


def test_float32_leading_axis_uses_certified_and_matches():
    rng = np.random.default_rng(9)
    x = rng.standard_normal((200, 6, 4)).astype(np.float32)
    certified.reset_stats()
    got = moment_stat(x, "mean", axis=0)[0]
    assert certified.stats()["certified"] == 24
    with option_context(engine="numpy"):
        ref = moment_stat(x, "mean", axis=0)[0]
    assert got.dtype == np.float32
    assert np.array_equal(got.view(np.uint32), ref.view(np.uint32))
    x[3, 1, 1] = np.nan  # float32: any NaN sends the call to the general path
    with pytest.raises(Exception, match="NaN"):
        moment_stat(x, "mean", axis=0)
