"""Grouped weighted statistics equal the weighted statistic of each group, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

import nanaccess as na
from nanaccess.core.grouped import HAVE_NUMBA, grouped_reduce
from nanaccess.core.grouped.weighted import grouped_weighted
from nanaccess.core.reduce import reduce
from nanaccess.options import NanPolicy

CASES = [("median", {}), ("median_low", {}), ("median_high", {}),
         ("quantile", {"q": [0.1, 0.5, 0.93], "method": "hazen"}),
         ("quantile", {"q": 0.3, "method": "inverted_cdf"}),
         ("quantile", {"q": [0.0, 1.0], "method": "nearest"})]


def _bits(v) -> bytes:
    return np.ascontiguousarray(v).tobytes()


@pytest.mark.parametrize("policy", ["omit", "propagate", "smallest", "largest", "totalorder"])
@pytest.mark.parametrize(("stat", "kw"), CASES)
@pytest.mark.parametrize("weights", ["int", "dyadic"])
def test_each_group_is_its_weighted_statistic(policy, stat, kw, weights):
    rng = np.random.default_rng(0)
    n, groups = 600, 23
    x = rng.normal(size=n).round(1)
    x[::17] = np.nan
    x[5::31] = -np.nan
    codes = rng.integers(-1, groups, size=n)
    w = rng.integers(0, 4, size=n).astype(float)
    if weights == "dyadic":
        w = w * rng.choice([0.25, 0.5, 1.5], size=n)
    if policy == "propagate":
        w[::97] = np.nan
    vals, _miss, count = grouped_weighted(x, codes, groups + 2, stat, w, policy=policy, **kw)
    for g in range(groups + 2):
        sel = codes == g
        r = reduce(x[sel], stat, weights=w[sel], policy=policy, **kw)
        assert _bits(r.values) == _bits(vals[..., g]), (g, r.values, vals[..., g])
        assert int(r.count) == count[g]


def test_policy_errors_and_missing_values():
    x = np.array([1.0, 2.0, np.nan, 4.0])
    codes = np.array([0, 0, 1, 1])
    with pytest.raises(na.NaNError, match="data holds 1 NaN"):
        grouped_weighted(x, codes, 2, "median", [1, 1, 1, 1], policy=NanPolicy.RAISE)
    with pytest.raises(ValueError, match="a weight has no place"):
        grouped_weighted(x, codes, 2, "median", [1, np.nan, 1, 1], policy=NanPolicy.LARGEST)
    # the NaN's weight is zero: dropped, so "raise" has nothing to say
    got = grouped_weighted(x, codes, 2, "median", [1, 1, 0, 1], policy=NanPolicy.RAISE)[0]
    assert got.tolist() == [1.5, 4.0]
    miss = np.array([False, False, False, True])
    got, res_miss, _ = grouped_weighted(np.array([1.0, 2.0, 3.0, 4.0]), codes, 2, "median",
                                        [1, 1, 1, 1], policy=NanPolicy.PROPAGATE,
                                        missing=miss)
    assert got[0] == 1.5 and res_miss.tolist() == [False, True]


MOMENTS = [("mean", {}), ("sum", {}), ("var", {}), ("std", {"ddof": 1}), ("var", {"ddof": 0.5})]
POLICIES = ["omit", "propagate", "smallest", "largest", "totalorder"]


def _data(seed, n=500, groups=17, weights="real"):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n).round(2)
    x[::19] = np.nan
    x[7::41] = -np.nan
    codes = rng.integers(-1, groups, size=n)
    if weights == "int":
        w = rng.integers(0, 4, size=n).astype(float)
    elif weights == "wide":  # tiny next to huge: some groups fall back to float64 sums
        w = rng.random(n) * np.exp2(rng.integers(-70, 70, size=n))
    else:
        w = rng.random(n) * 3
    return x, codes, w


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize(("stat", "kw"), MOMENTS)
@pytest.mark.parametrize("weights", ["int", "real", "wide"])
def test_grouped_moments_are_each_groups_weighted_moment(policy, stat, kw, weights):
    x, codes, w = _data(1, weights=weights)
    if policy == "propagate":
        w[::53] = np.nan
    groups = 19  # two groups without rows
    r = grouped_reduce(x, codes, groups, stat, policy=NanPolicy(policy), weights=w, **kw)
    for g in range(groups):
        sel = codes == g
        want = reduce(x[sel], stat, weights=w[sel], policy=NanPolicy(policy), **kw)
        assert _bits(np.asarray(want.values, r.values.dtype)) == _bits(r.values[g]), \
            (g, want.values, r.values[g])
        assert int(want.count) == r.count[g]


@pytest.mark.parametrize(("stat", "kw"), CASES + MOMENTS)
@pytest.mark.parametrize("weights", ["real", "wide"])
def test_real_weights_group_by_group(stat, kw, weights):
    x, codes, w = _data(2, n=900, groups=9, weights=weights)
    vals = grouped_reduce(x, codes, 9, stat, policy=NanPolicy.OMIT, weights=w, **kw).values
    for g in range(9):
        sel = codes == g
        want = reduce(x[sel], stat, weights=w[sel], policy=NanPolicy.OMIT, **kw).values
        assert _bits(np.asarray(want, vals.dtype)) == _bits(vals[..., g])


@pytest.mark.parametrize(("stat", "kw"), CASES + MOMENTS[:4])  # (unweighted: float ddof
def test_integer_weights_repeat_each_group(stat, kw):  # is rounded after the variance)
    rng = np.random.default_rng(3)
    n = 400
    x = rng.normal(size=n)
    x[::23] = np.nan
    codes = rng.integers(0, 11, size=n)
    w = rng.integers(0, 5, size=n)
    got = grouped_reduce(x, codes, 11, stat, policy=NanPolicy.OMIT, weights=w, **kw)
    want = grouped_reduce(np.repeat(x, w), np.repeat(codes, w), 11, stat,
                          policy=NanPolicy.OMIT, **kw)
    assert _bits(got.values) == _bits(want.values)


@pytest.mark.parametrize(("stat", "kw"), CASES + MOMENTS)
@pytest.mark.parametrize("policy", POLICIES)
def test_permuting_pairs_keeps_every_bit(stat, kw, policy):
    x, codes, w = _data(4, weights="real")
    if policy == "propagate":
        w[::31] = np.nan
    perm = np.random.default_rng(5).permutation(x.size)
    a = grouped_reduce(x, codes, 17, stat, policy=NanPolicy(policy), weights=w, **kw)
    b = grouped_reduce(x[perm], codes[perm], 17, stat, policy=NanPolicy(policy),
                       weights=w[perm], **kw)
    assert _bits(a.values) == _bits(b.values)


def test_inputs_are_never_modified():
    x, codes, w = _data(6)
    w[3] = np.nan
    copies = [a.copy() for a in (x, codes, w)]
    for stat, kw in CASES + MOMENTS:
        grouped_reduce(x, codes, 17, stat, policy=NanPolicy.PROPAGATE, weights=w, **kw)
        grouped_reduce(x, codes, 17, stat, policy=NanPolicy.OMIT, weights=w, **kw)
    for a, b in zip((x, codes, w), copies, strict=True):
        assert _bits(a) == _bits(b)


def test_grouped_moment_policies_and_messages():
    x = np.array([1.0, 2.0, np.nan, 4.0, 5.0])
    codes = np.array([0, 0, 1, 1, 1])
    with pytest.raises(na.NaNError, match="data holds 1 NaN"):
        grouped_reduce(x, codes, 2, "mean", policy=NanPolicy.RAISE, weights=[1, 1, 1, 1, 1])
    with pytest.raises(na.NaNError, match="weights"):
        grouped_reduce(x, codes, 2, "mean", policy=NanPolicy.RAISE,
                       weights=[1, np.nan, 0, 1, 1])
    with pytest.raises(ValueError, match="a weight has no place"):
        grouped_reduce(x, codes, 2, "sum", policy=NanPolicy.TOTALORDER,
                       weights=[1, np.nan, 1, 1, 1])
    with pytest.raises(ValueError, match="non-negative and finite"):
        grouped_reduce(x, codes, 2, "var", policy=NanPolicy.OMIT, weights=[1, -1, 1, 1, 1])
    w = np.array([1.0, 3.0, 1.0, 1.0, 3.0])
    r = grouped_reduce(x, codes, 3, "mean", policy=NanPolicy.OMIT, weights=w)
    assert r.values[0] == 1.75 and r.values[1] == 4.75 and np.isnan(r.values[2])
    assert r.count.tolist() == [2, 2, 0]
    r = grouped_reduce(x, codes, 2, "mean", policy=NanPolicy.PROPAGATE, weights=w)
    assert r.values[0] == 1.75 and np.isnan(r.values[1])
    r = grouped_reduce(x, codes, 3, "sum", policy=NanPolicy.OMIT, weights=w)
    assert r.values.tolist() == [7.0, 19.0, 0.0]
    # a NaN weight under "propagate": the group's result is that NaN
    r = grouped_reduce(np.array([1.0, 2.0]), np.array([0, 1]), 2, "mean",
                       policy=NanPolicy.PROPAGATE, weights=[np.nan, 1.0])
    assert np.isnan(r.values[0]) and r.values[1] == 2.0
    # missing data and missing weights
    miss = np.array([False, False, False, True, False])
    r = grouped_reduce(np.array([1.0, 2.0, 3.0, 4.0, 5.0]), codes, 2, "mean",
                       policy=NanPolicy.PROPAGATE, weights=w, missing=miss)
    assert r.values[0] == 1.75 and r.missing.tolist() == [False, True]
    r = grouped_reduce(np.array([1.0, 2.0, 3.0, 4.0, 5.0]), codes, 2, "mean",
                       policy=NanPolicy.OMIT, weights=w,
                       weights_missing=np.array([0, 0, 1, 0, 0], bool))
    assert r.values.tolist() == [1.75, 4.75]


def test_columns_share_the_grouping():
    rng = np.random.default_rng(8)
    x = rng.normal(size=(60, 3))
    codes = rng.integers(0, 4, size=60)
    w = rng.random(60)
    r = grouped_reduce(x, codes, 4, "median", policy=NanPolicy.OMIT, weights=w)
    assert r.values.shape == (4, 3)
    for c in range(3):
        col = grouped_reduce(x[:, c], codes, 4, "median", policy=NanPolicy.OMIT, weights=w)
        assert _bits(col.values) == _bits(np.ascontiguousarray(r.values[:, c]))
    r = grouped_reduce(x, codes, 4, "quantile", q=[0.1, 0.5], policy=NanPolicy.OMIT,
                       weights=np.abs(x))
    assert r.values.shape == (2, 4, 3)
    with pytest.raises(TypeError, match="takes no weights"):
        grouped_reduce(x, codes, 4, "min", policy=NanPolicy.OMIT, weights=w)


@pytest.mark.skipif(not HAVE_NUMBA, reason="numba not installed")
@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("weights", ["int", "real", "wide"])
def test_compiled_engine_gives_the_numpy_bits(policy, weights):
    x, codes, w = _data(9, n=1500, groups=13, weights=weights)
    x[::3] = np.round(x[::3], 0)  # ties
    if policy == "propagate":
        w[::71] = np.nan
    for stat, kw in CASES:
        a = grouped_weighted(x, codes, 15, stat, w, policy=policy, engine="numba", **kw)
        b = grouped_weighted(x, codes, 15, stat, w, policy=policy, engine="numpy", **kw)
        assert _bits(a[0]) == _bits(b[0])
        assert (a[1] is None) == (b[1] is None)
        assert (a[2] == b[2]).all()
    for stat, kw in CASES:  # rows of an ndarray: the compiled selection per row
        x2 = x[:1200].reshape(40, 30)
        w2 = w[:1200].reshape(40, 30)
        if stat == "median":
            x2 = x2.astype(np.float32)
        with na.option_context(engine="numba"):
            a = reduce(x2, stat, axis=1, weights=w2, policy=NanPolicy(policy), **kw).values
        with na.option_context(engine="numpy"):
            b = reduce(x2, stat, axis=1, weights=w2, policy=NanPolicy(policy), **kw).values
        assert _bits(a) == _bits(b)


@pytest.mark.parametrize(("stat", "kw"), CASES + MOMENTS)
def test_empty_data_and_groups_without_rows(stat, kw):
    r = grouped_reduce(np.array([]), np.array([], np.int64), 3, stat, policy=NanPolicy.OMIT,
                       weights=np.array([]), **kw)
    alone = reduce(np.array([]), stat, policy=NanPolicy.OMIT, weights=np.array([]), **kw)
    for g in range(3):
        assert _bits(np.asarray(alone.values, r.values.dtype)) == _bits(r.values[..., g])
    assert r.count.tolist() == [0, 0, 0]
    r = grouped_reduce(np.array([1, 2, 3]), np.array([0, 0, 2]), 3, stat,
                       policy=NanPolicy.OMIT, weights=np.array([1, 2, 3]), **kw)
    want = reduce(np.array([1, 2]), stat, policy=NanPolicy.OMIT, weights=[1, 2], **kw).values
    assert np.array_equal(np.asarray(want, float), np.asarray(r.values[..., 0], float))
    assert r.count.tolist() == [2, 0, 1]
