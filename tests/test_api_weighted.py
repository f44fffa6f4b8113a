"""``weights=`` on the plain functions (issue 13): the policy covers the weights.

Every policy with NaN / missing weights and NaN data, each message checked; negative,
infinite and zero weights; all-zero weights; shapes; iterables; hosts that do not
take weights yet.
"""

from __future__ import annotations

import statistics
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

import nanaccess as na

WEIGHTED = ("quantile", "median", "median_low", "median_high", "mean", "sum", "var", "std")
ORDERING = ("smallest", "largest", "totalorder")


def call(stat, x, w, **kw):
    if stat == "quantile":
        kw.setdefault("q", 0.5)
    return getattr(na, stat)(x, weights=w, **kw)


def bits(v) -> int:
    return int(np.asarray(v, dtype=np.float64).view(np.int64))


# ------------------------------------------------------------ NaN / missing weights


@pytest.mark.parametrize("stat", WEIGHTED)
def test_raise_names_the_weights_count_and_first_position(stat):
    x = np.array([1.0, 2.0, 3.0, 4.0])
    w = np.array([1.0, np.nan, 1.0, np.nan])
    with pytest.raises(na.NaNError, match=r"weights holds 2 NaN values \(first at position 1\)"
                       ) as info:
        call(stat, x, w)
    assert info.value.position == (1,) and info.value.count == 2


@pytest.mark.parametrize("stat", WEIGHTED)
def test_omit_drops_the_pair(stat):
    x = np.array([1.0, 2.0, 3.0, 50.0])
    w = np.array([1.0, np.nan, 2.0, 0.5])
    got = call(stat, x, w, nan_policy="omit")
    want = call(stat, x[[0, 2, 3]], w[[0, 2, 3]])
    assert bits(got) == bits(want)


@pytest.mark.parametrize("stat", WEIGHTED)
def test_propagate_gives_the_greatest_nan_among_weights_and_data(stat):
    small = na.make_nan(3)
    big = na.make_nan(9)
    neg = na.make_nan(100, negative=True)
    # the greatest NaN under totalOrder is the weight's (payload 9)
    x = np.array([1.0, small, 3.0, neg])
    w = np.array([1.0, 1.0, big, 2.0])
    got = call(stat, x, w, nan_policy="propagate")
    assert bits(got) == bits(big)
    # and the data's when it is greater
    got = call(stat, np.array([1.0, big, 3.0]), np.array([1.0, 1.0, small]),
               nan_policy="propagate")
    assert bits(got) == bits(big)


@pytest.mark.parametrize("policy", ORDERING)
@pytest.mark.parametrize("stat", WEIGHTED)
def test_ordering_policies_refuse_a_nan_weight(stat, policy):
    with pytest.raises(ValueError, match=r"weights holds 1 NaN value \(first at position 2\): "
                       "a weight has no place in an order") as info:
        call(stat, np.array([1.0, 2.0, 3.0]), np.array([1.0, 1.0, np.nan]), nan_policy=policy)
    assert not isinstance(info.value, na.NaNError)


def test_signaling_nan_weight_raises_signaling_error():
    w = np.array([1.0, na.make_nan(1, signaling=True)])
    for policy in ("omit", "propagate", "largest"):
        with pytest.raises(na.SignalingNaNError, match="weights"):
            na.median(np.array([1.0, 2.0]), weights=w, nan_policy=policy)


def test_missing_weights_follow_the_policy():
    x = np.array([1.0, 2.0, 3.0, 10.0])
    w = np.ma.masked_array([1.0, 1.0, 1.0, 1.0], mask=[0, 0, 0, 1])
    with pytest.raises(na.NaNError, match="weights holds 1 missing value"):
        na.median(x, weights=w)
    assert na.median(x, weights=w, nan_policy="omit") == 2.0
    assert np.isnan(na.mean(x, weights=w, nan_policy="propagate"))
    with pytest.raises(ValueError, match="weights holds 1 missing value"):
        na.median(x, weights=w, nan_policy="largest")


# ------------------------------------------------------------------ bad weights


@pytest.mark.parametrize("bad", [-1.0, np.inf, -np.inf])
@pytest.mark.parametrize("policy", ["raise", "omit", "propagate", "totalorder"])
def test_negative_or_infinite_weights_name_the_first_position(bad, policy):
    w = np.array([[1.0, 1.0], [bad, 2.0]])
    with pytest.raises(ValueError, match=r"non-negative and finite: 1 weight\(s\) are not "
                       r"\(first at position \(1, 0\)"):
        na.mean(np.ones((2, 2)), weights=w, nan_policy=policy)


def test_zero_weights_drop_values_even_nan_ones():
    x = np.array([1.0, np.nan, 3.0, np.inf])
    w = np.array([1, 0, 1, 0])
    assert na.median(x, weights=w) == 2.0  # "raise" sees no NaN: it is dropped
    assert na.mean(x, weights=w) == 2.0


@pytest.mark.parametrize("stat", WEIGHTED)
@pytest.mark.parametrize("policy", ["raise", "omit", "propagate", "smallest", "totalorder"])
def test_all_zero_weights_give_the_empty_result(stat, policy):
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    got = call(stat, x, np.array([0, 0]), axis=1, nan_policy=policy)
    want = getattr(na, stat)(np.empty((2, 0)), axis=1, nan_policy=policy,
                             **({"q": 0.5} if stat == "quantile" else {}))
    assert np.array_equal(got, want, equal_nan=True)


# ----------------------------------------------------------------- NaN data


@pytest.mark.parametrize("policy", ["smallest", "largest"])
def test_nan_data_ranks_carrying_its_weight(policy):
    x = np.array([1.0, np.nan, 2.0])
    w = np.array([1, 5, 1])
    got = na.median(x, weights=w, nan_policy=policy)
    want = na.median(np.repeat(x, w), nan_policy=policy)
    assert np.isnan(got) and np.isnan(want)
    # with the NaN's weight small, the median is a number
    # smallest: [nan, 1, 1, 2, 2]; largest: [1, 1, 2, 2, nan]
    assert na.median(x, weights=[2, 1, 2], nan_policy="smallest") == 1.0
    assert na.median(x, weights=[2, 1, 2], nan_policy="largest") == 2.0


def test_nan_data_under_raise_names_the_data():
    with pytest.raises(na.NaNError, match="data holds 1 NaN value"):
        na.quantile(np.array([1.0, np.nan]), 0.5, weights=[1, 1])


# --------------------------------------------------------------- shapes, hosts


def test_one_d_weights_along_an_axis_as_numpy():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4, 6))
    w = rng.integers(1, 4, size=4).astype(float)
    got = na.quantile(x, 0.5, axis=0, weights=w, method="inverted_cdf")
    assert np.array_equal(got, np.quantile(x, 0.5, axis=0, weights=w, method="inverted_cdf"))
    with pytest.raises(ValueError, match="do not match axis 1"):
        na.median(x, axis=1, weights=w)


def test_iterables_follow_the_statistics_module():
    assert na.mean([1.0, 2.0, 3.0], weights=[3, 1, 0]) == statistics.fmean(
        [1.0, 2.0, 3.0], weights=[3, 1, 0])
    assert na.median([1.0, 2.0, 3.0], weights=[0, 0, 1]) == 3.0
    with pytest.raises(statistics.StatisticsError):
        na.mean([1.0, float("nan")], weights=[0, 1], nan_policy="omit")
    assert na.sum([1.0, 2.0], weights=[0, 0]) == 0.0
    with pytest.raises(TypeError, match="axis"):
        na.median([1.0], weights=[1], axis=0)


def test_mean_matches_fmean_correctly_rounded():
    rng = np.random.default_rng(8)
    x = rng.normal(size=200) * 1e6
    w = rng.uniform(0, 5, size=200)
    want = sum(Fraction(a) * Fraction(b) for a, b in zip(x, w, strict=True)) / sum(
        Fraction(b) for b in w)
    assert na.mean(x, weights=w) == float(want)
    assert abs(na.mean(x, weights=w) - statistics.fmean(x.tolist(), weights=w.tolist())) <= \
        4 * np.spacing(abs(float(want)))


def test_int_data_with_int_weights_sums_exactly():
    got = na.sum(np.array([2**60, 1, -3], dtype=np.int64), weights=np.array([2, 3, 1]))
    assert isinstance(got, np.int64) and int(got) == 2**61


def test_functions_without_weights_refuse_them():
    with pytest.raises(TypeError, match="unexpected keyword argument 'weights'"):
        na.min(np.array([1.0]), weights=[1])
    with pytest.raises(TypeError, match="unexpected keyword argument 'weights'"):
        na.iqr(np.array([1.0]), weights=[1])


def test_pandas_and_xarray_data_go_to_their_accessors():
    x = np.array([1.0, 2.0, np.nan, 4.0])
    w = np.array([1.0, 2.0, 1.0, 0.5])
    want = na.median(x, weights=w, nan_policy="omit")
    s = pd.Series(x)
    assert na.median(s, weights=w, nan_policy="omit") == want
    assert na.median(s, weights=w, nan_policy="omit") == s.nanstats.median(
        weights=w, nan_policy="omit")
    xr = pytest.importorskip("xarray")
    da_ = xr.DataArray(x, dims="t")
    assert float(na.median(da_, weights=w, nan_policy="omit")) == want
    with pytest.raises(na.NaNError, match="weights"):
        na.median(s, weights=[1.0, np.nan, 1.0, 1.0], nan_policy="raise")


def test_dask_arrays_are_lazy_and_exact():
    dask_array = pytest.importorskip("dask.array")
    rng = np.random.default_rng(4)
    x = rng.normal(size=(12, 9))
    x[::5, 2] = np.nan
    w = rng.random((12, 9))
    dx = dask_array.from_array(x, chunks=(5, 4))
    for stat, kw in (("median", {}), ("quantile", {"q": [0.2, 0.9]}), ("mean", {}),
                     ("var", {"ddof": 1}), ("sum", {})):
        for axis in (None, 0, 1):
            lazy = getattr(na, stat)(dx, weights=w, axis=axis, nan_policy="omit", **kw)
            assert isinstance(lazy, dask_array.Array)
            eager = getattr(na, stat)(x, weights=w, axis=axis, nan_policy="omit", **kw)
            assert np.asarray(lazy.compute()).tobytes() == np.asarray(eager).tobytes()
    lazy = na.median(dx, weights=w, nan_policy="raise")  # the error comes at compute time
    with pytest.raises(na.NaNError):
        lazy.compute()


def test_masked_data_missing_values():
    x = np.ma.masked_array([1.0, 2.0, 3.0], mask=[0, 1, 0])
    assert na.median(x, weights=[1, 5, 1], nan_policy="omit") == 2.0
    with pytest.raises(na.NaNError, match="missing"):
        na.median(x, weights=[1, 5, 1])
    assert np.isnan(na.median(x, weights=[1, 5, 1], nan_policy="largest"))
    assert na.median(x, weights=[3, 1, 1], nan_policy="largest") == 1.0
