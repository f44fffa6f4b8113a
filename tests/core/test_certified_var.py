"""The certified double-double variance (compensated.var_rows_kernel,
certified.certified_var_rows): what it certifies is the correctly rounded
``(n*Q - S**2) / (n*(n - ddof))`` (Fraction), the compiled entries with it equal the
NumPy engine bit for bit, and the hard cases (D = 0, ties, specials, huge or tiny
squares) really fall back to the exact engine (counted by ``certified.stats``)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nanaccess
from nanaccess.core import _numba as NB
from nanaccess.core.exactsum import certified, compiled
from nanaccess.core.exactsum.oneshot import exact_var_numpy
from nanaccess.options import option_context

pytestmark = pytest.mark.skipif(not NB.AVAILABLE, reason="numba not installed or disabled")


@pytest.fixture(autouse=True)
def _small_inputs_too(monkeypatch):
    """Both compiled paths serve inputs of any size here (tests stay small)."""
    monkeypatch.setattr(compiled, "MIN_SIZE", 0)
    monkeypatch.setattr(certified, "MIN_SIZE", 0)


def rounded_var(vals, ddof: int) -> float:
    """The correctly rounded exact-engine variance of finite ``vals`` (one rounding)."""
    n = len(vals)
    s = sum((Fraction(float(v)) for v in vals), Fraction(0))
    q = sum((Fraction(float(v)) ** 2 for v in vals), Fraction(0))
    return float((n * q - s * s) / (n * (n - ddof)))


def same_bits(a, b) -> bool:
    a = np.ascontiguousarray(np.asarray(a, dtype=np.float64))
    b = np.ascontiguousarray(np.asarray(b, dtype=np.float64))
    return a.shape == b.shape and np.array_equal(a.view(np.uint64), b.view(np.uint64))


def check_rows(x2: np.ndarray, ddof: int, w2=None) -> np.ndarray:
    """Certified rows equal the Fraction value; the entry equals the NumPy engine."""
    cert = certified.certified_var_rows(x2, w2, ddof)
    assert cert is not None
    vals, ok = cert[:2]
    for r in np.flatnonzero(ok):
        row = x2[r] if w2 is None else x2[r][w2[r]]
        assert vals[r] == rounded_var(row.astype(np.float64), ddof)
    certified.reset_stats()  # from here: the compiled entry's own outcomes
    got = compiled.compiled_rows(x2, w2, "var", ddof)
    assert same_bits(got, exact_var_numpy(x2, ddof, w2))
    return ok


patterns = st.lists(st.integers(0, 2**64 - 1), min_size=2, max_size=80).map(
    lambda v: np.array(v, dtype=np.uint64).view(np.float64))
patterns32 = st.lists(st.integers(0, 2**32 - 1), min_size=2, max_size=80).map(
    lambda v: np.array(v, dtype=np.uint32).view(np.float32))
moderate = st.lists(  # random sign and mantissa bits, exponents within 2**+-200
    st.tuples(st.integers(0, 1), st.integers(823, 1223), st.integers(0, 2**52 - 1)).map(
        lambda t: (t[0] << 63) | (t[1] << 52) | t[2]), min_size=2, max_size=80).map(
    lambda v: np.array(v, dtype=np.uint64).view(np.float64))
wide = st.lists(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300,
                          max_value=1e300), min_size=2, max_size=80).map(np.array)
spread = st.tuples(st.floats(-1e12, 1e12), st.integers(-60, 10),
                   st.lists(st.integers(-1000, 1000), min_size=2, max_size=80)).map(
    lambda t: t[0] + np.array(t[2], dtype=np.float64) * 2.0 ** t[1])
ddofs = st.integers(0, 2)


@settings(max_examples=150, deadline=None)
@given(st.one_of(patterns, moderate, wide, spread), ddofs)
def test_bit_patterns_and_cancellation(x, ddof):
    check_rows(x.reshape(1, -1), ddof)
    got = compiled.compiled_1d(x, "var", ddof)
    assert got is None or same_bits(got, exact_var_numpy(x, ddof))


@settings(max_examples=80, deadline=None)
@given(patterns32, ddofs)
def test_float32_patterns(x, ddof):
    check_rows(x.reshape(1, -1), ddof)


@settings(max_examples=80, deadline=None)
@given(st.one_of(patterns, moderate, spread), st.lists(st.booleans(), min_size=80, max_size=80))
def test_masked_rows(x, keep):
    w = np.array(keep[:x.size]).reshape(1, -1)
    check_rows(x.reshape(1, -1), 1, w)


@settings(max_examples=80, deadline=None)
@given(st.one_of(patterns, moderate, spread), ddofs,
       st.lists(st.sampled_from([0, 0, 0, 0x7FF8000000000000, 0x7FF0000000000001]),
                min_size=80, max_size=80))
def test_skipnan_rows_equal_masked_numpy(x, ddof, nans):
    """NaNs (quiet and signaling) left out in the kernel's own pass."""
    put = np.array(nans[:x.size], dtype=np.uint64)
    x = np.where(put != 0, put, x.view(np.uint64)).view(np.float64)
    x2 = x.reshape(1, -1)
    got = compiled.compiled_rows_skipnan(x2, "var", ddof)
    assert got is not None
    vals, nan, sig = got
    assert bool(nan[0]) == bool(np.isnan(x).any())
    mag = x.view(np.uint64) & np.uint64(0x7FFFFFFFFFFFFFFF)
    quiet = (mag & np.uint64(1 << 51)) != 0
    assert bool(sig[0]) == bool(((mag > np.uint64(0x7FF0000000000000)) & ~quiet).any())
    assert same_bits(vals, exact_var_numpy(x2, ddof, ~np.isnan(x2)))
    cert = certified.certified_var_rows(x2, None, ddof, skipnan=True)
    if cert[1][0]:
        assert vals[0] == rounded_var(x[~np.isnan(x)], ddof)


def test_ordinary_rows_certify():
    rng = np.random.default_rng(3)
    x2 = rng.normal(size=(20, 300)) * 10.0 ** rng.integers(-5, 5, size=(20, 1))
    ok = check_rows(x2, 1)
    assert ok.all()
    assert certified.stats()["certified"] == 20


def test_cancellation_certifies_or_falls_back():
    """Sum2's bound loses about ``n**2 u**2`` of Q: a moderate cancellation (1e8 +
    spread 1e3, condition ~1e10) certifies, a heavy one (spread 1e-4) falls back;
    the values equal the NumPy engine either way."""
    rng = np.random.default_rng(4)
    assert check_rows(1e8 + rng.normal(size=(10, 200)) * 1e3, 0).all()
    assert not check_rows(1e8 + rng.normal(size=(10, 200)) * 1e-4, 1).any()
    assert certified.stats() == {"certified": 0, "fallback": 10}


@pytest.mark.parametrize("value", [1e8 + 0.5, 3.0, -2.0 ** -500, 0.0])
def test_constant_rows_fall_back(value):
    x = np.full((1, 100), value)
    assert not check_rows(x, 0).any()
    assert certified.stats() == {"certified": 0, "fallback": 1}
    assert compiled.compiled_1d(x[0], "var") == 0.0


@pytest.mark.parametrize("x", [
    np.array([np.inf, 1.0] * 40), np.array([np.nan, 1.0] * 40), np.array([1e200, 1.0] * 40),
    np.array([3e-300, 1e-300] * 40), np.array([1.0, 2.0]), np.array([5.0] * 90 + [6.0])])
def test_specials_and_edges_fall_back_or_agree(x):
    for ddof in (0, 1, 2, len(x), len(x) + 1):
        cert = certified.certified_var_rows(x.reshape(1, -1), None, ddof)
        if ddof >= len(x) or not np.isfinite(x).all() or np.abs(x).max() > 1e150:
            assert not cert[1][0]
        got = compiled.compiled_rows(x.reshape(1, -1), None, "var", ddof)
        assert same_bits(got, exact_var_numpy(x.reshape(1, -1), ddof))


def test_exact_tie_falls_back():
    # [0, a], ddof=1: var = a**2 / 2 with a odd and a**2 in [2**53, 2**54): exactly
    # halfway between two neighbouring floats (spacing 1 in [2**52, 2**53))
    a = 94906267
    exact = Fraction(a * a, 2)
    assert 2 ** 52 <= exact < 2 ** 53 and exact.denominator == 2
    x = np.array([[0.0, float(a)], [float(a), 0.0]])
    ok = check_rows(x, 1)
    assert not ok.any()
    assert certified.stats() == {"certified": 0, "fallback": 2}
    assert compiled.compiled_rows(x, None, "var", 1)[0] == float(exact)  # half-even


@settings(max_examples=60, deadline=None)
@given(st.integers(2 ** 26, 2 ** 27), st.integers(0, 3))
def test_near_ties_of_integers(a, pad):
    """Integer data whose exact variance sits at or next to a half-way point."""
    x = np.array([0.0, float(a)] + [float(a) / 2 + 0.5 * k for k in range(pad)])
    for ddof in (0, 1):
        check_rows(x.reshape(1, -1), ddof)


def test_fractional_ddof_not_certified():
    x = np.arange(100.0).reshape(1, -1)
    assert certified.certified_var_rows(x, None, 0.5) is None
    assert same_bits(compiled.compiled_rows(x, None, "var", 0.5), exact_var_numpy(x, 0.5))


@pytest.mark.parametrize("stat", ["var", "std"])
@pytest.mark.parametrize("policy", ["omit", "propagate"])
def test_public_calls_equal_numpy_engine(stat, policy):
    rng = np.random.default_rng(7)
    x = rng.normal(size=(6, 257)) * 1e3 + 1e6
    x[rng.random(x.shape) < 0.01] = np.nan
    fn = getattr(nanaccess, stat)
    for data, axis in ((x, 1), (x[0], None), (np.ascontiguousarray(x.T), 0)):
        for ddof in (0, 1):
            got = fn(data, axis=axis, ddof=ddof, nan_policy=policy)
            with option_context(engine="numpy"):
                want = fn(data, axis=axis, ddof=ddof, nan_policy=policy)
            assert same_bits(got, want)


def check_groups(vals, include, codes, ngroups, ddof):
    """Certified groups equal the Fraction value; every group equals the ungrouped
    NumPy engine on its values."""
    cert = certified.certified_var_groups(vals, include, codes, ngroups, ddof)
    assert cert is not None
    sel = codes >= 0 if include is None else (codes >= 0) & include
    for g in np.flatnonzero(cert[1]):
        assert cert[0][g] == rounded_var(vals[sel & (codes == g)].astype(np.float64), ddof)
    got, counts = compiled.compiled_groups(vals, include, codes, ngroups, "var", ddof)
    for g in range(ngroups):
        part = vals[sel & (codes == g)].reshape(1, -1)
        assert counts[g] == part.size
        assert same_bits(got[g], exact_var_numpy(part, ddof)[0])
    return cert[1]


@settings(max_examples=60, deadline=None)
@given(st.one_of(moderate, spread, patterns), st.integers(1, 6), ddofs, st.randoms())
def test_groups_equal_ungrouped(x, ngroups, ddof, rnd):
    codes = np.array([rnd.randrange(-1, ngroups) for _ in range(x.size)], dtype=np.int64)
    include = np.array([rnd.random() < 0.8 for _ in range(x.size)])
    check_groups(x, None, codes, ngroups, ddof)
    check_groups(x, include, codes, ngroups, ddof)


def test_groups_certify_and_fall_back():
    rng = np.random.default_rng(5)
    vals = rng.normal(size=2000)
    vals[:100] = 7.0  # group 0 constant: D = 0 falls back
    codes = np.arange(2000) // 100
    ok = check_groups(vals, None, codes, 20, 1)
    assert not ok[0] and ok[1:].all()


@pytest.mark.parametrize("stat", ["var", "std"])
def test_pandas_groupby_equals_numpy_engine(stat):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(8)
    v = rng.normal(size=3000) * 1e3 + 1e5
    v[rng.random(v.size) < 0.01] = np.nan
    df = pd.DataFrame({"k": rng.integers(0, 40, size=v.size), "v": v})
    got = getattr(df.groupby("k").nanstats, stat)(nan_policy="omit")
    with option_context(engine="numpy"):
        want = getattr(df.groupby("k").nanstats, stat)(nan_policy="omit")
    assert same_bits(got["v"].to_numpy(), want["v"].to_numpy())
