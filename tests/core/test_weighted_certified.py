"""The certified compiled path of the weighted mean and sum (issue 13): the bits of
the exact engine, group by group and row by row; ties and unsafe groups fall back."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nanaccess as na
from nanaccess.core.grouped import HAVE_NUMBA
from nanaccess.core.grouped.weighted import grouped_weighted
from nanaccess.core.reduce import reduce
from nanaccess.options import NanPolicy

pytestmark = pytest.mark.skipif(not HAVE_NUMBA, reason="numba not installed")

POLICIES = ["omit", "propagate", "raise", "largest", "totalorder"]


def _bits(a) -> bytes:
    a = np.asarray(a)
    return a.dtype.str.encode() + a.tobytes()


def _certified(x, w, codes, ngroups, stat):
    from nanaccess.core.weighted.certified import certified_sums

    return certified_sums(np.asarray(x, float), np.asarray(w, float),
                          np.asarray(codes, np.int64), ngroups, stat)


def _engines_agree(x, codes, ngroups, w, policy="omit", stats=("mean", "sum")):
    for stat in stats:
        try:
            a = grouped_weighted(x, codes, ngroups, stat, w, policy=policy, engine="numba")
        except ValueError as err:  # the policy refuses: the same error under both engines
            with pytest.raises(type(err)):
                grouped_weighted(x, codes, ngroups, stat, w, policy=policy, engine="numpy")
            continue
        b = grouped_weighted(x, codes, ngroups, stat, w, policy=policy, engine="numpy")
        assert _bits(a[0]) == _bits(b[0]), (stat, a[0], b[0])
        assert (a[1] is None) == (b[1] is None)
        if a[1] is not None:
            assert (a[1] == b[1]).all()
        assert (a[2] == b[2]).all()


_FLOATS = st.floats(allow_nan=False, allow_infinity=False, width=64)
_WEIGHTS = st.one_of(st.floats(0.0, 1e6), st.integers(0, 5).map(float),
                     st.floats(0.0, 1e-300), st.floats(1e300, 1e305))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_FLOATS, _WEIGHTS, st.integers(0, 4)), min_size=1, max_size=40))
def test_grouped_engines_agree_bit_for_bit(rows):
    x, w, codes = (np.array(v) for v in zip(*rows, strict=True))
    _engines_agree(x, codes.astype(np.int64), 6, w.astype(float))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(-8, 8), st.integers(0, 3), st.integers(0, 2)),
                min_size=1, max_size=30), st.integers(-60, 60))
def test_near_ties_and_cancellation(rows, scale):
    """Values on a coarse grid (exact ratios, midpoints, zero sums): certification
    never accepts a wrong neighbour and the fallback handles the rest."""
    x, w, codes = (np.array(v) for v in zip(*rows, strict=True))
    x = np.ldexp(1.0 + x * 2.0 ** -52, scale) * np.sign(x + 0.5)
    _engines_agree(x, codes.astype(np.int64), 3, w.astype(float))


@pytest.mark.parametrize("policy", POLICIES)
def test_policies_nan_and_missing_weights(policy):
    rng = np.random.default_rng(5)
    n = 3000
    x = rng.normal(size=n)
    w = rng.random(n)
    codes = rng.integers(0, 40, n)
    x[::97] = np.nan
    if policy in ("omit", "propagate"):
        w[::131] = np.nan
    codes[::50] = -1
    _engines_agree(x, codes, 42, w, policy=policy)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int64, np.int8, bool])
def test_other_dtypes(dtype):
    rng = np.random.default_rng(6)
    x = (rng.normal(size=2000) * 50).astype(dtype)
    w = rng.random(2000)
    codes = rng.integers(0, 17, 2000)
    _engines_agree(x, codes, 17, w, stats=("mean",) if np.dtype(dtype).kind in "biu"
                   else ("mean", "sum"))


def test_ties_are_left_to_the_exact_engine():
    w = np.array([1.0, 1.0])
    c = np.zeros(2, np.int64)
    # 1 + 2**-53 is the midpoint between 1 and its successor: not certified
    assert not _certified([1.0, 1.0 + 2.0 ** -52], w, c, 1, "mean")[1][0]
    assert not _certified([1.0, 2.0 ** -53], w, c, 1, "sum")[1][0]
    got = grouped_weighted(np.array([1.0, 1.0 + 2.0 ** -52]), c, 1, "mean", w,
                           policy=NanPolicy.RAISE, engine="numba")[0]
    assert got[0] == 1.0  # half to even, from the exact engine
    vals, ok = _certified([1.0, 2.0 ** -54], w, c, 1, "sum")
    assert ok[0] and vals[0] == 1.0


def test_unsafe_and_zero_groups_are_left_to_the_exact_engine():
    x = np.array([1e-310, 2.0, 1e80, 3.0, 0.0, -0.0, 5.0, -5.0, 2.0, 3.0, 1e95])
    w = np.array([1.0, 1.0, 1.0, 1e-320, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0])
    codes = np.array([0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5])
    _, ok = _certified(x, w, codes, 7, "mean")
    # tiny value, tiny weight, zero sum, cancelling sum, fine, huge value, no pairs
    assert ok.tolist() == [False, False, False, False, True, False, False]
    ok = _certified(x, np.where(codes == 1, 1.0, w), codes, 7, "mean")[1]
    assert ok[1]  # 1e80 is in range once the tiny weight is gone
    _engines_agree(x, codes, 7, w)


def test_certified_mean_is_the_correctly_rounded_exact_ratio():
    rng = np.random.default_rng(7)
    x = rng.normal(size=500) * 10.0 ** rng.integers(-5, 5, 500)
    w = rng.random(500)
    codes = rng.integers(0, 5, 500)
    vals, ok = _certified(x, w, codes, 5, "mean")
    assert ok.all()
    for g in range(5):
        sel = codes == g
        s = sum(Fraction(float(a)) * Fraction(float(b)) for a, b in zip(x[sel], w[sel],
                                                                         strict=True))
        t = sum(Fraction(float(b)) for b in w[sel])
        assert vals[g] == float(s / t)  # Fraction -> float rounds correctly


@pytest.mark.parametrize("stat", ["mean", "sum"])
def test_rows_engine_agrees(stat):
    rng = np.random.default_rng(8)
    x = rng.normal(size=(50, 30))
    x[3, 4] = np.nan
    x[7] = 1.0 + rng.integers(0, 2, 30) * 2.0 ** -52  # ties
    w = rng.random((50, 30))
    w[9] = 0.0
    for policy in (NanPolicy.OMIT, NanPolicy.PROPAGATE, NanPolicy.LARGEST):
        with na.option_context(engine="numba"):
            a = reduce(x, stat, axis=1, weights=w, policy=policy).values
        with na.option_context(engine="numpy"):
            b = reduce(x, stat, axis=1, weights=w, policy=policy).values
        assert _bits(a) == _bits(b)


def test_lost_low_parts_are_not_certified():
    """Cancellation loses the low parts' tail (2**-80) in float64: without the error
    bound the midpoint test would pick 1 instead of 1 + 2**-52."""
    x = np.array([2.0 ** 200, 1.0, 2.0 ** -53, 2.0 ** -80, -(2.0 ** 200)])
    w = np.ones(5)
    c = np.zeros(5, np.int64)
    for stat, scale in (("sum", 1.0), ("mean", 5.0)):
        got = grouped_weighted(x * scale, c, 1, stat, w, policy=NanPolicy.RAISE,
                               engine="numba")[0]
        assert got[0] == 1.0 + 2.0 ** -52
        _engines_agree(x * scale, c, 1, w, stats=(stat,))
