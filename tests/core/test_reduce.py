"""The core entry point ``reduce``: its lazy count, and the spread statistics (iqr,
mad) against scipy and under every policy and dtype.

References: ``scipy.stats.iqr`` / ``median_abs_deviation(nan_policy="omit")``; NumPy
counts of non-NaN values; the order statistics of the same data (for the policies
scipy has no counterpart of).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
import scipy.stats as ss
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import nanaccess as na
from nanaccess.core.reduce import MAD_NORMAL_SCALE, count_left, reduce
from nanaccess.options import NanPolicy

P = NanPolicy
FEW = settings(max_examples=max(10, settings.default.max_examples // 2))
SCIPY_METHODS = ["linear", "lower", "higher", "nearest", "midpoint"]


def bits(a) -> bytes:
    return np.ascontiguousarray(a).tobytes()


# ------------------------------------------------------------------------------ count


def test_count_is_lazy_and_matches_numpy():
    x = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, 2.0]])
    r = reduce(x, "median", axis=1, policy=P.OMIT)
    assert "count" not in vars(r)  # computed on first use
    assert r.count.tolist() == [2, 1] and r.count.dtype == np.int64
    assert r.empty.tolist() == [False, False]
    assert reduce(x, "median", axis=1, policy=P.PROPAGATE).count.tolist() == [3, 3]


@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1), -1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_count_left_float_axes(axis, keepdims):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 5))
    x[rng.random(x.shape) < 0.3] = np.nan
    want = np.sum(~np.isnan(x), axis=axis, keepdims=keepdims)
    got = count_left(x, None, P.OMIT, axis, keepdims)
    assert got.shape == np.shape(want) and (got == want).all()
    full = count_left(x, None, P.TOTALORDER, axis, keepdims)
    assert full.shape == np.shape(want) and (full == np.sum(np.ones_like(x), axis=axis,
                                                             keepdims=keepdims)).all()


def test_count_left_nat_masked_and_objects():
    t = np.array(["2024-01-01", "NaT", "2024-01-03"], dtype="M8[D]")
    assert count_left(t, None, P.OMIT) == 2
    m = np.ma.array([1, 2, 3, 4], mask=[0, 1, 1, 0])
    assert count_left(np.ma.getdata(m), np.ma.getmaskarray(m), P.OMIT) == 2
    assert count_left(np.arange(4), None, P.OMIT) == 4
    o = np.array([[Fraction(1), None, float("nan")], [1, 2, 3]], dtype=object)
    assert count_left(o, None, P.OMIT, axis=1).tolist() == [1, 3]
    assert count_left(o, np.array([[0, 0, 0], [1, 0, 0]], bool), P.OMIT, 1).tolist() == [1, 2]
    assert count_left(np.zeros((0, 3)), None, P.OMIT, 0).tolist() == [0, 0, 0]


def test_count_equals_the_numbers_an_order_statistic_sees():
    x = np.array([np.nan, 1.0, 2.0, np.nan, 5.0])
    r = reduce(x, "quantile", policy=P.OMIT, q=[0.0, 1.0])
    assert r.values.tolist() == [1.0, 5.0] and int(r.count) == 3


# ------------------------------------------------------------------------ vs scipy

arrays = hnp.arrays(
    np.float64, hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=6),
    elements=st.floats(-1e6, 1e6) | st.just(np.nan))
rngs = st.sampled_from([(25, 75), (0, 100), (10, 90), (50, 50), (5, 33.3), (80, 20)])


def _axis(draw_axis, x):
    return None if draw_axis is None else draw_axis % x.ndim


@FEW
@given(arrays, rngs, st.sampled_from(SCIPY_METHODS), st.none() | st.integers(0, 2))
def test_iqr_omit_is_scipys(x, rng, method, axis):
    axis = _axis(axis, x)
    with np.errstate(all="ignore"), _nowarn():
        want = ss.iqr(x, axis=axis, rng=rng, interpolation=method, nan_policy="omit")
    got = na.iqr(x, axis=axis, rng=rng, method=method, nan_policy="omit")
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-6, equal_nan=True)


@FEW
@given(arrays, st.sampled_from([1.0, "normal", 2.5]), st.none() | st.integers(0, 2))
def test_mad_omit_is_scipys(x, scale, axis):
    axis = _axis(axis, x)
    with np.errstate(all="ignore"), _nowarn():
        want = ss.median_abs_deviation(x, axis=axis, scale=scale, nan_policy="omit")
    got = na.mad(x, axis=axis, scale=scale, nan_policy="omit")
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-9, equal_nan=True)


class _nowarn:
    """scipy warns on all-NaN slices; the values are what is compared."""

    def __enter__(self):
        import warnings

        self._c = warnings.catch_warnings()
        self._c.__enter__()
        warnings.simplefilter("ignore")

    def __exit__(self, *exc):
        return self._c.__exit__(*exc)


def test_mad_normal_scale_is_scipys_constant():
    from scipy.special import ndtri

    assert MAD_NORMAL_SCALE == pytest.approx(ndtri(0.75), rel=1e-15)


# ---------------------------------------------------------------------------- dtypes


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_floats_keep_their_dtype(dtype):
    x = np.array([[1.0, 2.0, 4.0, np.nan], [8.0, 1.0, 3.0, 2.0]], dtype=dtype)
    for stat in ("iqr", "mad"):
        got = getattr(na, stat)(x, axis=1, nan_policy="omit")
        assert got.dtype == dtype
        want = getattr(na, stat)(x.astype(np.float64), axis=1, nan_policy="omit")
        np.testing.assert_allclose(got, want, rtol=1e-3)


def test_ints_bools_timedeltas_objects():
    ints = np.array([1, 5, 2, 9, 4], dtype=np.int32)
    assert na.iqr(ints) == ss.iqr(ints) and na.iqr(ints).dtype == np.float64
    assert na.iqr(ints, method="lower") == ss.iqr(ints, interpolation="lower")
    assert na.mad(ints) == ss.median_abs_deviation(ints)
    big = np.array([np.iinfo(np.int64).min, 0, np.iinfo(np.int64).max])
    # no int64 overflow: the difference is taken in float64
    assert na.iqr(big, rng=(0, 100), method="lower") == 2.0 ** 64
    assert na.iqr(np.array([True, False, True, True])) == 0.25
    td = np.array([1, 2, 5, 9, "NaT"], dtype="m8[s]")
    # quantiles of timedeltas truncate toward zero in their unit, as pandas: 6 s - 1 s
    q = pd.Series(td).quantile([0.25, 0.75])
    assert na.iqr(td, nan_policy="omit") == np.timedelta64(5, "s") == q.iloc[1] - q.iloc[0]
    assert na.mad(td, nan_policy="omit") == np.timedelta64(2, "s")
    with pytest.raises(na.NaNError, match="missing"):
        na.mad(td)
    fr = np.array([Fraction(1), Fraction(2), Fraction(7), None], dtype=object)
    assert na.iqr(fr, nan_policy="omit") == Fraction(3)
    assert na.mad(fr, nan_policy="omit") == Fraction(1)


# -------------------------------------------------------------------------- policies


def test_raise_and_signaling():
    x = np.array([1.0, np.nan, 3.0])
    for stat in (na.iqr, na.mad):
        with pytest.raises(na.NaNError, match="position 1"):
            stat(x)
        s = x.copy()
        s[1] = na.make_nan(3, signaling=True)
        for policy in ("omit", "propagate", "smallest", "largest", "raise"):
            with pytest.raises(na.SignalingNaNError):
                stat(s, nan_policy=policy)


def test_totalorder_signaling_nan_is_data():
    x = np.array([1.0, 0.0, 2.0], np.float32)
    x[1] = na.make_nan(5, signaling=True, dtype=np.float32)
    # the 0.75 quantile lies between 2 and the sNaN: that NaN, quieted
    got = na.iqr(x, nan_policy="totalorder")
    assert got.dtype == np.float32 and bits(got) == bits(na.make_nan(5, dtype=np.float32))
    # deviations 1, sNaN (kept), 0: median 1
    assert na.mad(x, nan_policy="totalorder") == np.float32(1.0)


def test_propagate_gives_the_greatest_nan_quieted():
    a, b = na.make_nan(3), na.make_nan(9)
    x = np.array([1.0, a, 2.0, b, 3.0])
    for stat in (na.iqr, na.mad):
        assert bits(stat(x, nan_policy="propagate")) == bits(b)


@pytest.mark.parametrize("policy", ["smallest", "largest"])
def test_ordering_policies_follow_the_quantiles(policy):
    x = np.array([np.nan, np.nan, 1.0, 2.0, 3.0, 4.0, 5.0])
    q = na.quantile(x, [0.25, 0.75], nan_policy=policy)
    got = na.iqr(x, nan_policy=policy)
    if np.isnan(q).any():
        assert np.isnan(got)
    else:
        assert got == q[1] - q[0]
    # mad: deviations keep the NaNs, which rank as in the median
    center = na.median(x, nan_policy=policy)
    dev = np.where(np.isnan(x), x, np.abs(x - center))
    assert bits(na.mad(x, nan_policy=policy)) == bits(na.median(dev, nan_policy=policy))


def test_undefined_deviations_are_the_canonical_nan():
    x = np.array([1.0, np.inf, np.inf])  # |inf - inf| is undefined: no NaN in the data
    got = na.mad(x)
    assert bits(got) == bits(na.make_nan())
    assert bits(na.iqr(np.array([np.inf] * 3))) == bits(na.make_nan())
    assert na.iqr(np.array([-np.inf, 0.0, np.inf]), rng=(0, 100)) == np.inf


def test_empty_and_all_missing():
    assert np.isnan(na.iqr(np.array([np.nan, np.nan]), nan_policy="omit"))
    m = np.ma.masked_all(3, dtype=np.float64)
    assert np.isnan(na.mad(m, nan_policy="omit"))
    with pytest.raises(na.NaNError, match="missing"):
        na.iqr(m)


# ------------------------------------------------------------------------- invariance


@FEW
@given(hnp.arrays(np.float32, st.integers(1, 12),
                  elements=st.floats(-1e4, 1e4, width=32) | st.just(np.float32("nan"))),
       st.randoms(use_true_random=False),
       st.sampled_from(["omit", "propagate", "smallest", "largest", "totalorder"]))
def test_permutation_invariant_bit_for_bit(x, rnd, policy):
    perm = np.array(rnd.sample(range(x.size), x.size))
    for stat in (na.iqr, na.mad):
        assert bits(stat(x, nan_policy=policy)) == bits(stat(x[perm], nan_policy=policy))


def test_errors():
    x = np.arange(5.0)
    with pytest.raises(ValueError, match="percentiles"):
        na.iqr(x, rng=(-1, 50))
    with pytest.raises(TypeError, match="two percentiles"):
        na.iqr(x, rng=(1, 2, 3))
    with pytest.raises(ValueError, match="scale"):
        na.mad(x, scale="bogus")
    with pytest.raises(TypeError, match="unexpected"):
        reduce(x, "iqr", q=0.5)
    assert na.iqr(x, rng=(75, 25)) == na.iqr(x)  # taken in order, as scipy
