"""Int picks of the grouped engine keep their dtype; groups with no value are holes.

:func:`nanaccess.core.grouped.grouped_reduce` gives ``exact`` (int / bool picks in the
input dtype, 0 in each hole), ``holes`` (results with no value: an empty group, a
rank among the missing values) and ``values`` (NumPy hosts' form: float64 with NaN in
the holes, exactly the engine's former output). Values near 2**63 tell a rounded
pick from an exact one. References: Python's own sort of each group's ints.
"""

from __future__ import annotations

import numpy as np
import pytest

from nanaccess.core import _numba
from nanaccess.core.grouped import grouped_reduce, grouped_stat
from nanaccess.core.grouped.common import widen
from nanaccess.options import NanPolicy

BIG = 2**63 - 1000  # ints above 2**53: float64 rounds them

ENGINES = ["numpy"] + (["numba"] if _numba.AVAILABLE else [])

#: picks (stat, params, the rank of a sorted group of n values)
PICKS = [
    ("min", {}, lambda n: 0),
    ("max", {}, lambda n: n - 1),
    ("median_low", {}, lambda n: (n - 1) // 2),
    ("median_high", {}, lambda n: n // 2),
    ("quantile", {"q": 0.3, "method": "lower"}, lambda n: int(np.floor(0.3 * (n - 1)))),
    ("quantile", {"q": 0.3, "method": "higher"}, lambda n: int(np.ceil(0.3 * (n - 1)))),
]


def _data(seed: int, n: int, ngroups: int, ncols: int | None = None):
    """ints near 2**63 (and a few small ones), codes leaving groups 1 and 4 empty."""
    rng = np.random.default_rng(seed)
    shape = (n,) if ncols is None else (n, ncols)
    x = (BIG - rng.integers(0, 500, shape)).astype(np.int64)
    x[rng.random(shape) < 0.1] = 7
    groups = np.array([g for g in range(ngroups) if g not in (1, 4)])
    codes = groups[rng.integers(0, groups.size, n)]
    codes[rng.random(n) < 0.05] = -1
    return x, codes


def _reference(col, codes, ngroups, rank, missing=None):
    """(picks as Python ints, holes) per group."""
    out, holes = [], []
    for g in range(ngroups):
        sel = codes == g
        if missing is not None:
            sel &= ~missing
        vals = sorted(int(v) for v in col[sel])
        holes.append(not vals)
        out.append(vals[rank(len(vals))] if vals else 0)
    return out, holes


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("stat,params,rank", PICKS)
def test_picks_exact_with_empty_groups(stat, params, rank, engine):
    x, codes = _data(1, 600 if engine == "numpy" else 60_000, 7)
    red = grouped_reduce(x, codes, 7, stat, policy=NanPolicy.OMIT, engine=engine, **params)
    want, holes = _reference(x, codes, 7, rank)
    assert red.exact.dtype == np.int64
    assert red.exact.tolist() == want
    assert red.holes.tolist() == holes and red.missing is None
    # the NumPy hosts' form: the former output, float64 with NaN in the holes
    old, _ = grouped_stat(x, codes, 7, stat, policy="omit", engine=engine, **params)
    assert red.values.dtype == np.float64 == old.dtype
    np.testing.assert_array_equal(red.values, old)
    np.testing.assert_array_equal(np.isnan(red.values), holes)
    np.testing.assert_array_equal(red.values[~np.array(holes)],
                                  np.array(want, dtype=np.float64)[~np.array(holes)])


@pytest.mark.parametrize("policy", ["omit", "propagate", "largest", "totalorder"])
def test_missing_values_are_holes_and_missing(policy):
    x, codes = _data(2, 300, 6)
    missing = np.zeros(x.shape, bool)
    missing[codes == 3] = True  # a group of missing values only
    missing[::11] = True
    red = grouped_reduce(x, codes, 6, "max", policy=NanPolicy(policy), missing=missing)
    ref = grouped_stat(x, codes, 6, "max", policy=policy, missing=missing)
    assert red.exact.dtype == np.int64
    np.testing.assert_array_equal(red.values, ref[0])  # the former output, unchanged
    np.testing.assert_array_equal(red.missing, ref[1])
    holes = red.holes
    assert holes[3] and holes[1] and holes[4]  # missing only; empty; empty
    assert (red.exact[holes] == 0).all()
    kept = ~holes
    np.testing.assert_array_equal(red.exact[kept].astype(np.float64), ref[0][kept])
    if policy == "omit":
        want, _ = _reference(x, codes, 6, lambda n: n - 1, missing)
        assert red.exact[kept].tolist() == [w for w, k in zip(want, kept, strict=True) if k]


def test_columns_and_quantile_axis_keep_holes_apart():
    x, codes = _data(3, 400, 6, ncols=3)
    red = grouped_reduce(x, codes, 6, "quantile", q=[0.0, 1.0], method="nearest",
                         policy=NanPolicy.OMIT)
    assert red.exact.shape == red.holes.shape == (2, 6, 3)
    assert red.exact.dtype == np.int64
    for c in range(3):
        lo, holes = _reference(x[:, c], codes, 6, lambda n: 0)
        hi, _ = _reference(x[:, c], codes, 6, lambda n: n - 1)
        assert red.exact[0, :, c].tolist() == lo and red.exact[1, :, c].tolist() == hi
        assert red.holes[0, :, c].tolist() == holes == red.holes[1, :, c].tolist()


def test_slab_engine_keeps_ints():
    """Few groups over many columns (the slab engine) give the same exact picks."""
    x, codes = _data(4, 120, 6, ncols=40)
    red = grouped_reduce(x, codes, 6, "max", policy=NanPolicy.OMIT)
    assert red.exact.dtype == np.int64
    for c in (0, 17, 39):
        want, holes = _reference(x[:, c], codes, 6, lambda n: n - 1)
        assert red.exact[:, c].tolist() == want
        assert red.holes[:, c].tolist() == holes
    one = grouped_reduce(x[:, 17], codes, 6, "max", policy=NanPolicy.OMIT)
    np.testing.assert_array_equal(one.exact, red.exact[:, 17])
    np.testing.assert_array_equal(red.values[:, 17], one.values)


def test_no_holes_and_non_picks_unchanged():
    x, codes = _data(5, 200, 3)
    codes[codes < 0] = 0
    codes[:3] = [0, 1, 2]  # every group has rows
    red = grouped_reduce(x, codes, 3, "max", policy=NanPolicy.OMIT)
    assert red.holes is None and red.values is red.exact and red.exact.dtype == np.int64
    small = x % 1000  # sums that fit in int64
    for stat in ("median", "mean", "sum", "count", "iqr"):
        red = grouped_reduce(small, codes, 5, stat, policy=NanPolicy.OMIT)
        assert red.holes is None
        assert red.values is red.exact


def test_bool_picks_and_widen():
    x = np.array([True, False, True])
    red = grouped_reduce(x, np.array([0, 0, 2]), 3, "min", policy=NanPolicy.OMIT)
    assert red.exact.dtype == np.bool_ and red.exact.tolist() == [False, False, True]
    assert red.holes.tolist() == [False, True, False]
    assert red.values.dtype == np.float64
    np.testing.assert_array_equal(red.values, [0.0, np.nan, 1.0])
    f = np.array([1.5, 2.5])
    assert widen(f, np.array([True, False])) is f  # floats hold their own NaN


@pytest.mark.parametrize("method", ["lower", "higher", "nearest", "inverted_cdf",
                                    "closest_observation"])
def test_every_picking_quantile_method(method):
    """The methods that pick an element keep the ints: each group's pick is the
    element NumPy's method picks (its index found by that method over 0..n-1)."""
    x, codes = _data(6, 300, 6)
    q = [0.15, 0.5, 0.85]
    red = grouped_reduce(x, codes, 6, "quantile", q=q, method=method, policy=NanPolicy.OMIT)
    assert red.exact.dtype == np.int64 and red.exact.shape == (3, 6)
    for g in range(6):
        vals = sorted(int(v) for v in x[codes == g])
        for i, qi in enumerate(q):
            if not vals:
                assert red.holes[i, g] and red.exact[i, g] == 0
                continue
            at = int(np.quantile(np.arange(len(vals)), qi, method=method))
            assert int(red.exact[i, g]) == vals[at], (g, qi)
