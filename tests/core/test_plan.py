"""The rank plan: ranks and weights of each order statistic, combined on sorted rows,
give NumPy's quantiles and the statistics module's medians."""

from __future__ import annotations

import statistics

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from nanaccess.core.plan import PICK_METHODS, combine, rank_plan

NP_METHODS = ["linear", "lower", "higher", "nearest", "midpoint", "weibull", "hazen",
              "median_unbiased", "normal_unbiased"]
finite = st.floats(-1e6, 1e6, allow_nan=False)


def _apply(stat, rows, q=None, method="linear"):
    n = np.array([len(r) for r in rows])
    plan = rank_plan(stat, n, q, method)
    width = max(n.max(), 1)
    s = np.array([sorted(r) + [0.0] * (width - len(r)) for r in rows])
    a = np.take_along_axis(s, plan.lo.T, axis=1).T
    b = np.take_along_axis(s, plan.hi.T, axis=1).T
    return plan, combine(plan, a, b)


@given(st.lists(st.lists(finite, min_size=1, max_size=9), min_size=1, max_size=4),
       st.lists(st.floats(0, 1), min_size=1, max_size=3), st.sampled_from(NP_METHODS))
def test_quantile_plan_is_numpys(rows, q, method):
    plan, got = _apply("quantile", rows, np.array(q), method)
    assert plan.mode == ("pick" if method in PICK_METHODS else "lerp")
    for j, r in enumerate(rows):
        want = np.quantile(np.array(r), q, method=method)
        np.testing.assert_allclose(got[:, j], want, rtol=1e-12, atol=1e-9)


@given(st.lists(st.lists(finite, min_size=1, max_size=9), min_size=1, max_size=4))
def test_median_plans_are_the_statistics_modules(rows):
    for stat, ref in (("median", statistics.median), ("median_low", statistics.median_low),
                      ("median_high", statistics.median_high), ("min", min), ("max", max)):
        plan, got = _apply(stat, rows)
        assert got.shape == (1, len(rows))
        for j, r in enumerate(rows):
            assert got[0, j] == pytest.approx(ref(r), rel=1e-15, abs=1e-300)
    assert rank_plan("median_low", np.array([4])).mode == "pick"


def test_median_of_even_count_is_a_midpoint_of_two_ranks():
    p = rank_plan("median", np.array([4, 5, 1, 0]))
    assert p.lo.tolist() == [[1, 2, 0, 0]] and p.hi.tolist() == [[2, 2, 0, 0]]
    assert p.weight.tolist() == [[0.5, 0.0, 0.0, 0.0]] and p.mode == "mid"
    assert p.ranks.shape == (2, 4)


def test_arg_statistics_share_min_max_ranks():
    n = np.array([3, 7])
    assert rank_plan("argmin", n).lo.tolist() == rank_plan("min", n).lo.tolist() == [[0, 0]]
    assert rank_plan("argmax", n).lo.tolist() == [[2, 6]]


def test_combine_keeps_picks_and_widens_ints():
    p = rank_plan("median", np.array([2]))
    got = combine(p, np.array([[1]]), np.array([[2]]))
    assert got.dtype == np.float64 and got.tolist() == [[1.5]]
    p = rank_plan("median_low", np.array([2]))
    a = np.array([[7]], dtype=np.int16)
    assert combine(p, a) is a


def test_errors():
    with pytest.raises(TypeError, match="q"):
        rank_plan("quantile", np.array([3]))
    with pytest.raises(ValueError, match="not an order statistic"):
        rank_plan("mean", np.array([3]))
    with pytest.raises(ValueError, match="method"):
        rank_plan("quantile", np.array([3]), np.array([0.5]), "bogus")
