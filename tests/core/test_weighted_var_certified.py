"""The certified compiled weighted variance (issue 13): the bits of the exact engine
row by row and group by group; cancellations, near ties and unsafe pairs fall back."""

from __future__ import annotations

import statistics
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nanaccess as na
from nanaccess.core.grouped import HAVE_NUMBA
from nanaccess.core.grouped.weighted import grouped_weighted
from nanaccess.core.weighted import certified, moments

needs_numba = pytest.mark.skipif(not HAVE_NUMBA, reason="numba not installed")

POLICIES = ["omit", "propagate", "raise", "smallest", "largest", "totalorder"]


def _bits(a) -> bytes:
    a = np.asarray(a)
    return a.dtype.str.encode() + a.tobytes()


def _cert(x, w, codes, ngroups, stat, ddof, row=0):
    got = certified.certified_sums(np.asarray(x, float), np.asarray(w, float),
                                   None if codes is None else np.asarray(codes, np.int64),
                                   ngroups, stat, "numba", row=row, ddof=ddof)
    assert got is not None
    return got


def _exact_rows(x2, w2, stat, ddof):
    """The exact engine (NaN data as an ordering policy keeps it: left out there, a
    propagated NaN later; the kernel never certifies such a row)."""
    x2 = np.asarray(x2, float)
    nan = np.isnan(x2)
    return moments._exact(x2, np.asarray(w2, float), nan if nan.any() else None, None,
                          stat, ddof)[0]


def _frac_var(x, w, ddof) -> float:
    """The frequency-weighted variance by fractions, rounded once (NaN when empty)."""
    pairs = [(Fraction(float(v)), Fraction(float(k))) for v, k in zip(x, w, strict=True)
             if k > 0]
    wt = sum((k for _v, k in pairs), Fraction(0))
    if wt == 0 or wt - Fraction(ddof) <= 0:
        return float("nan")
    s = sum((k * v for v, k in pairs), Fraction(0))
    q = sum((k * v * v for v, k in pairs), Fraction(0))
    return float((wt * q - s * s) / (wt * (wt - Fraction(ddof))))


def _agree_with_exact(x2, w2, ddof):
    """Every certified row of the kernel carries the exact engine's bits (var and
    std); returns the certified mask."""
    rows, n = x2.shape
    for stat in ("var", "std"):
        got, ok = _cert(x2.reshape(-1), w2.reshape(-1), None, rows, stat, ddof, row=n)
        ref = _exact_rows(x2, w2, stat, ddof)
        assert _bits(got[ok]) == _bits(ref[ok]), (stat, x2[ok], w2[ok], got[ok], ref[ok])
    return ok


def _from_bits(b: int) -> float:
    return float(np.array(b, np.uint64).view(np.float64))


_ANY_BITS = st.integers(0, 2 ** 64 - 1).map(_from_bits)
_SAFE = st.builds(lambda m, e, s: s * float(np.ldexp(1.0 + m * 2.0 ** -52, e)),
                  st.integers(0, 2 ** 52 - 1), st.integers(-290, 290), st.sampled_from([-1, 1]))
_VALUES = st.one_of(_ANY_BITS, _SAFE, _SAFE, st.sampled_from([0.0, -0.0, 1.0, 3.0]))
_WEIGHTS = st.one_of(st.integers(0, 5).map(float), st.floats(0.0, 1e6),
                     st.floats(1e-300, 1e-280), st.floats(1e280, 1e300),
                     _ANY_BITS.map(abs))


@needs_numba
@settings(max_examples=150, deadline=None)
@given(st.integers(1, 12), st.data(), st.sampled_from([0, 1, 0.5, 3]))
def test_kernel_matches_exact_engine_over_bit_patterns(n, data, ddof):
    rows = data.draw(st.integers(1, 6))
    x = np.array(data.draw(st.lists(_VALUES, min_size=rows * n, max_size=rows * n)))
    w = np.array(data.draw(st.lists(_WEIGHTS, min_size=rows * n, max_size=rows * n)))
    w = np.where(np.isnan(w) | np.isinf(w), 1.0, w)  # weights as prepare leaves them
    _agree_with_exact(x.reshape(rows, n), w.reshape(rows, n), ddof)


@needs_numba
@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(-8, 8), st.integers(0, 3)), min_size=1, max_size=30),
       st.integers(-60, 60), st.sampled_from([0, 1]))
def test_near_ties_and_cancellation(pairs, scale, ddof):
    """Values on a coarse grid next to a power of two (exact variances, midpoints,
    heavy cancellation): certification never accepts a wrong neighbour."""
    k, w = (np.array(v) for v in zip(*pairs, strict=True))
    x = np.ldexp(1.0 + k * 2.0 ** -52, scale)
    _agree_with_exact(x[None, :], w[None, :].astype(float), ddof)


@needs_numba
def test_lost_low_parts_fall_back():
    """A spread of 2**14 around 2**66 with real weights: the low parts' sums are not
    exact and the variance cancels to about 1e-32 of ``W Q``. Without the bounds the
    kernel would certify wrong bits; with them such rows fall back."""
    rng = np.random.default_rng(11)
    rows, n = 400, 64
    x = 2.0 ** 66 + rng.integers(-2, 3, (rows, n)) * 2.0 ** 14
    w = rng.random((rows, n))
    ok = _agree_with_exact(x, w, 1)
    assert not ok.all()
    with na.option_context(engine="numba"):
        a = na.var(x, weights=w, axis=1, ddof=1)
    with na.option_context(engine="numpy"):
        b = na.var(x, weights=w, axis=1, ddof=1)
    assert _bits(a) == _bits(b)


@needs_numba
def test_accumulated_low_parts_need_their_bound():
    """65536 pairs a row, the variance about 2**-41 of the squared mean: the float sums
    of the low parts drift beyond the bound of the pieces of ``W Q - S**2`` alone, so
    the accumulation bounds are what keeps these rows from wrong bits."""
    rng = np.random.default_rng(0)
    for lk in (40, 42):
        x = 2.0 ** 66 + rng.normal(size=(4, 65536)) * 2.0 ** (66 - lk / 2)
        w = rng.random((4, 65536))
        got, ok = _cert(x.reshape(-1), w.reshape(-1), None, 4, "var", 1, row=65536)
        ref = _exact_rows(x, w, "var", 1)
        assert _bits(got[ok]) == _bits(ref[ok])


@needs_numba
def test_certified_is_the_correctly_rounded_fraction():
    rng = np.random.default_rng(3)
    x = rng.normal(3.0, 2.0, (60, 9)) * 10.0 ** rng.integers(-30, 30, (60, 1))
    w = rng.random((60, 9)) * (rng.random((60, 9)) > 0.2)
    for ddof in (0, 1, 0.25):
        got, ok = _cert(x.reshape(-1), w.reshape(-1), None, 60, "var", ddof, row=9)
        assert ok.all()
        ref = [_frac_var(xr, wr, ddof) for xr, wr in zip(x, w, strict=True)]
        assert _bits(got) == _bits(np.array(ref))


@needs_numba
@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(-1e6, 1e6), st.integers(0, 4)), min_size=1, max_size=25),
       st.sampled_from([0, 1]))
def test_integer_weights_repeat_the_values(pairs, ddof):
    """Integer weights: the variance of the data with each value repeated its weight
    times (statistics.pvariance / variance, exact before the one rounding; std the
    square root of that variance, as the unweighted std)."""
    x, w = (np.array(v, dtype=float) for v in zip(*pairs, strict=True))
    rep = np.repeat(x, w.astype(int)).tolist()
    with na.option_context(engine="numba"):
        v = float(na.var(x, weights=w, ddof=ddof))
        s = float(na.std(x, weights=w, ddof=ddof))
    if len(rep) - ddof <= 0:
        assert np.isnan(v) and np.isnan(s)
        return
    ref = statistics.pvariance(rep) if ddof == 0 else statistics.variance(rep)
    assert float(ref).hex() == v.hex()
    assert _frac_var(x, w, ddof).hex() == v.hex()
    assert float(np.sqrt(v)).hex() == s.hex()


@needs_numba
@pytest.mark.parametrize("ddof", [0, 1, 2.5])
def test_groups_are_their_ungrouped_rows(ddof):
    """One scatter over the groups gives each group the bits of its own ungrouped
    weighted variance (and of the grouped NumPy engine)."""
    rng = np.random.default_rng(7)
    n, ngroups = 5000, 97
    x = rng.normal(5.0, 3.0, n)
    x[rng.random(n) < 0.02] = 7.0  # a constant group below
    w = rng.integers(0, 4, n) * rng.random(n)
    codes = rng.integers(-1, ngroups, n)
    codes[codes == 5] = 6  # an empty group
    codes[np.flatnonzero(codes == 9)[1:]] = 8  # a group of one pair
    codes[codes == 10] = 11
    sel = x == 7.0
    codes[sel], w[sel] = 10, 1.0
    # the group of one pair takes an integer weight: a fractional one below ddof + 1
    # is a TotalWeightError now (issue 23), for the grouped and ungrouped paths alike
    w[codes == 9] = 3.0
    for stat in ("var", "std"):
        got, ok = _cert(x, w, codes, ngroups, stat, ddof)
        assert ok.mean() > 0.9
        for g in range(ngroups):
            m = codes == g
            with na.option_context(engine="numpy"):
                one = na.var(x[m], weights=w[m], ddof=ddof) if stat == "var" else \
                    na.std(x[m], weights=w[m], ddof=ddof)
            if ok[g]:
                assert _bits(got[g]) == _bits(np.float64(one)), (g, got[g], one)
        ref = grouped_weighted(x, codes, ngroups, stat, w, policy="omit", ddof=ddof,
                               engine="numpy")[0]
        assert _bits(got[ok]) == _bits(ref[ok])
    assert ok[5] and np.isnan(got[5])  # no weight: the empty result
    assert ok[10] and got[10] == 0.0  # one repeated value


@needs_numba
@pytest.mark.parametrize("stat", ["var", "std"])
@pytest.mark.parametrize("axis", [0, 1, None, (0, 2), -1])
def test_rows_engine_agrees(stat, axis):
    rng = np.random.default_rng(2)
    x = rng.normal(size=(6, 40, 5)) * 1e3
    w = rng.random((6, 40, 5))
    w[w < 0.1] = 0.0
    def run(engine, ddof):
        with na.option_context(engine=engine):
            try:
                return _bits(getattr(na, stat)(x, weights=w, axis=axis, ddof=ddof))
            except na.TotalWeightError as err:  # a cell of fractional total < ddof + 1
                return ("total weight", err.cell)

    for ddof in (0, 1):
        assert run("numba", ddof) == run("numpy", ddof)
    w[...] = w * 4  # every cell's total beyond ddof + 1: values, not errors
    assert run("numba", 1) == run("numpy", 1)
    assert not isinstance(run("numpy", 1), tuple)


@needs_numba
@pytest.mark.parametrize("dtype", ["float32", "float16", "int32", "int64", "bool", "uint8"])
def test_other_dtypes(dtype):
    rng = np.random.default_rng(4)
    x = (rng.normal(size=(30, 50)) * 100).astype(dtype)
    w = rng.random((30, 50))
    for stat in ("var", "std"):
        with na.option_context(engine="numba"):
            a = getattr(na, stat)(x, weights=w, axis=1, ddof=1)
        with na.option_context(engine="numpy"):
            b = getattr(na, stat)(x, weights=w, axis=1, ddof=1)
        assert _bits(a) == _bits(b)


@needs_numba
@pytest.mark.parametrize("policy", POLICIES)
def test_policies_with_nan_data_and_weights(policy):
    rng = np.random.default_rng(5)
    x = rng.normal(size=(50, 60))
    w = rng.random((50, 60))
    x[rng.random(x.shape) < 0.03] = np.nan
    w[rng.random(w.shape) < 0.03] = np.nan
    x[3] = np.nan
    cases = [(x, np.where(np.isnan(w), 1.0, w)), (np.where(np.isnan(x), 0.5, x), w), (x, w)]
    for xs, ws in cases:
        for stat in ("var", "std"):
            outs = []
            for engine in ("numba", "numpy"):
                with na.option_context(engine=engine):
                    try:
                        outs.append(getattr(na, stat)(xs, weights=ws, axis=1, ddof=1,
                                                       nan_policy=policy))
                    except ValueError as err:  # NaNError and WeightsValueError included
                        outs.append((type(err), str(err)))
            if isinstance(outs[0], tuple):
                assert outs[0] == outs[1]
            else:
                assert _bits(outs[0]) == _bits(outs[1])


@needs_numba
def test_fast_path_runs_and_only_uncertified_rows_fall_back(monkeypatch):
    """The kernel serves every row of ordinary data (the exact engine never runs);
    only the rows it cannot certify reach the exact engine."""
    seen: list[int] = []
    calls: list[int] = []
    exact = moments._exact
    sums = certified.certified_sums

    def spy_exact(x, *args, **kw):
        seen.append(x.shape[0])
        return exact(x, *args, **kw)

    def spy_sums(*args, **kw):
        got = sums(*args, **kw)
        calls.append(int(got[1].sum()))
        return got

    monkeypatch.setattr(moments, "_exact", spy_exact)
    monkeypatch.setattr(certified, "certified_sums", spy_sums)
    rng = np.random.default_rng(9)
    x = rng.normal(size=(300, 80))
    w = rng.random((300, 80))
    with na.option_context(engine="numba"):
        na.var(x, weights=w, axis=1, ddof=1)
    assert calls == [300] and seen == []
    x[[4, 70]] = 2.0 ** 66 + rng.integers(-2, 3, (2, 80)) * 2.0 ** 14  # cancellation
    x[100, 3] = 1e301  # beyond the safe range
    with na.option_context(engine="numba"):
        a = na.std(x, weights=w, axis=1, ddof=1)
    assert calls[-1] == 297 and seen == [3]
    with na.option_context(engine="numpy"):
        b = na.std(x, weights=w, axis=1, ddof=1)
    assert _bits(a) == _bits(b)


@needs_numba
def test_degrees_of_freedom_and_empty_rows():
    x = np.array([[1.0, 2.0, 0.0], [1.0, 5.0, 9.0], [4.0, 4.0, 4.0], [1.0, 2.0, 3.0]])
    w = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.5, 0.25, 0.25], [0.5, 0.5, 0.5]])
    for ddof in (0, 1, 1.5, 2, 10):
        got, ok = _cert(x.reshape(-1), w.reshape(-1), None, 4, "var", ddof, row=3)
        ref = _exact_rows(x, w, "var", ddof)
        assert _bits(got[ok]) == _bits(ref[ok])
        assert ok[:3].all()  # W == ddof, W < ddof, no weight, one repeated value: settled


def _frac_mean(x, w) -> float:
    pairs = [(Fraction(float(v)), Fraction(float(k))) for v, k in zip(x, w, strict=True)
             if k > 0]
    wt = sum((k for _v, k in pairs), Fraction(0))
    if wt == 0:
        return float("nan")
    return float(sum((k * v for v, k in pairs), Fraction(0)) / wt)


_MIXED = st.one_of(_SAFE, st.sampled_from([1e-310, -5e-324, 1e300, -1.5e305, 0.0, 2.0]))


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 6), st.data(), st.sampled_from([0, 1, 0.75]))
def test_exact_engine_rows_at_once(n, data, ddof):
    """The exact engine rounds every row in one vectorised pass (its Python ints
    divided by their common power of two; rows beyond the safe range in fractions,
    next to them): each row is the correctly rounded fraction."""
    rows = data.draw(st.integers(1, 5))
    x = np.array(data.draw(st.lists(_MIXED, min_size=rows * n, max_size=rows * n)))
    w = np.array(data.draw(st.lists(st.one_of(_WEIGHTS, st.sampled_from([1e-310, 2.0 ** 600])),
                                    min_size=rows * n, max_size=rows * n)))
    w = np.where(np.isnan(w) | np.isinf(w), 1.0, w).reshape(rows, n)
    x = x.reshape(rows, n)
    var = _exact_rows(x, w, "var", ddof)
    mean = _exact_rows(x, w, "mean", 0)
    for r in range(rows):
        try:
            want = _frac_var(x[r], w[r], ddof)
        except OverflowError:
            want = np.inf
        assert _bits(var[r]) == _bits(np.float64(want)), (x[r], w[r])
        try:
            want = _frac_mean(x[r], w[r])
        except OverflowError:
            want = np.inf if sum(Fraction(float(a)) * Fraction(float(b))
                                 for a, b in zip(x[r], w[r], strict=True)) > 0 else -np.inf
        assert _bits(mean[r]) == _bits(np.float64(want)), (x[r], w[r])
