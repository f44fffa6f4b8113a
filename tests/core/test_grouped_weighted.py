"""Grouped weighted order statistics equal the weighted statistic of each group."""

from __future__ import annotations

import numpy as np
import pytest

import nanaccess as na
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
