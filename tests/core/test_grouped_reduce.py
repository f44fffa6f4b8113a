"""grouped_reduce: every grouped statistic with its count; iqr and mad per group."""

from __future__ import annotations

import pickle
import zlib
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from nanaccess import NaNError, NanPolicy, SignalingNaNError, make_nan
from nanaccess._stats import GROUPED, HIGHER
from nanaccess.core import _numba as NB
from nanaccess.core.grouped import grouped_reduce, grouped_stat
from nanaccess.core.objects import object_moment_stat
from nanaccess.core.reduce import reduce

POLICIES = [p for p in NanPolicy if p is not NanPolicy.RAISE]
ENGINES = ["numpy"] + (["numba"] if NB.AVAILABLE else [])


def same(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind == "f":
        return a.view(f"u{a.dtype.itemsize}").tolist() == b.view(f"u{b.dtype.itemsize}").tolist()
    return a.tolist() == b.tolist()


def per_group(x, codes, ngroups, stat, policy, missing=None, **params):
    """The ungrouped core on each group's slice (the reference)."""
    vals, miss = [], []
    for g in range(ngroups):
        sel = codes == g
        r = reduce(x[sel], stat, policy=policy,
                   missing=None if missing is None else missing[sel], **params)
        vals.append(r.values)
        miss.append(False if r.missing is None else bool(r.missing))
    return np.array(vals), np.array(miss)


nan_zoo = [np.nan, -np.nan, make_nan(3), make_nan(9, negative=True)]


@settings(max_examples=60, deadline=None)
@given(
    data=st.lists(st.one_of(st.floats(-1e6, 1e6, allow_nan=False), st.sampled_from(nan_zoo)),
                  min_size=1, max_size=50),
    seed=st.integers(0, 2**32 - 1),
    rng_pct=st.sampled_from([(25, 75), (10, 90), (0, 100), (40, 41)]),
    scale=st.sampled_from([1.0, "normal", 2.5]),
)
def test_omit_matches_scipy_per_group(data, seed, rng_pct, scale):
    x = np.array(data)
    rng = np.random.default_rng(seed)
    codes = rng.integers(-1, 4, x.size)
    for engine in ENGINES:
        iqr = grouped_reduce(x, codes, 4, "iqr", policy=NanPolicy.OMIT, rng=rng_pct,
                             engine=engine).values
        mad = grouped_reduce(x, codes, 4, "mad", policy=NanPolicy.OMIT, scale=scale,
                             engine=engine).values
        for g in range(4):
            xs = x[codes == g]
            if np.isnan(xs).all():  # nothing left: the canonical NaN
                assert np.isnan(iqr[g]) and np.isnan(mad[g])
                continue
            np.testing.assert_allclose(iqr[g], scipy.stats.iqr(xs, rng=rng_pct,
                                                                nan_policy="omit"),
                                       rtol=1e-12, atol=1e-9)
            np.testing.assert_allclose(mad[g], scipy.stats.median_abs_deviation(
                xs, scale=scale, nan_policy="omit"), rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, "datetime64[s]"])
def test_spread_equals_the_core_on_each_group_bit_for_bit(policy, dtype):
    rng = np.random.default_rng(zlib.crc32(repr((str(policy), str(dtype))).encode()))
    n, g = 400, 9
    codes = rng.integers(-1, g, n)
    if np.dtype(dtype).kind == "f":
        x = rng.standard_normal(n).astype(dtype)
        x[rng.random(n) < 0.15] = np.array(nan_zoo, dtype=dtype)[rng.integers(0, 4)]
        x[codes == 3] = np.nan  # a group of only NaNs
        x[rng.random(n) < 0.03] = np.inf  # inf - inf deviations: undefined
    elif np.dtype(dtype).kind == "M":
        x = rng.integers(0, 10**6, n).astype(dtype)
        x[rng.random(n) < 0.1] = np.array("NaT", dtype=dtype)
    else:
        x = rng.integers(-50, 50, n).astype(dtype)
    missing = rng.random(n) < 0.05
    cases = [("iqr", {}), ("iqr", {"rng": (10, 60), "method": "nearest"}),
             ("iqr", {"method": "midpoint"})]
    if np.dtype(dtype).kind != "M":
        cases += [("mad", {}), ("mad", {"scale": "normal"})]
    for stat, params in cases:
        for m in (None, missing):
            want_v, want_m = per_group(x, codes, g, stat, policy, m, **params)
            for engine in ENGINES:
                r = grouped_reduce(x, codes, g, stat, policy=policy, missing=m, engine=engine,
                                   **params)
                assert same(r.values, want_v), (stat, params, engine)
                got_m = np.zeros(g, bool) if r.missing is None else r.missing
                assert got_m.tolist() == want_m.tolist()


@pytest.mark.parametrize("stat", GROUPED)
def test_every_grouped_statistic_and_its_count(stat):
    rng = np.random.default_rng(4)
    n, g = 300, 7
    x = rng.standard_normal((n, 2))
    x[rng.random((n, 2)) < 0.2] = np.nan
    codes = rng.integers(-1, g, n)
    missing = rng.random((n, 2)) < 0.1
    params = {"q": [0.2, 0.7]} if stat == "quantile" else {}
    for policy in POLICIES:
        r = grouped_reduce(x, codes, g, stat, policy=policy, missing=missing, **params)
        lead = (2,) if stat == "quantile" else ()
        assert r.values.shape == lead + (g, 2)
        for c in range(2):
            s = pd.Series(np.where(missing[:, c], np.nan, x[:, c]))
            grp = s.groupby(codes)
            want = (grp.count() if policy is NanPolicy.OMIT else grp.size()).reindex(
                range(g), fill_value=0)
            assert r.count[:, c].tolist() == want.tolist()
        if stat not in ("iqr", "mad", *HIGHER):  # composed above grouped_stat
            v, m = grouped_stat(x, codes, g, stat, policy=policy, missing=missing, **params)
            assert same(r.values, v) and ((r.missing is None) == (m is None))
    assert r.empty.shape == (g, 2)


def test_unknown_parameters_and_statistics():
    x, codes = np.arange(4.0), np.array([0, 0, 1, 1])
    with pytest.raises(TypeError, match="unexpected"):
        grouped_reduce(x, codes, 2, "median", policy=NanPolicy.OMIT, q=0.5)
    with pytest.raises(ValueError, match="no grouped engine"):
        grouped_reduce(x, codes, 2, "argmin", policy=NanPolicy.OMIT)
    with pytest.raises(ValueError, match="rng"):
        grouped_reduce(x, codes, 2, "iqr", policy=NanPolicy.OMIT, rng=(-1, 50))
    with pytest.raises(ValueError, match="scale"):
        grouped_reduce(x, codes, 2, "mad", policy=NanPolicy.OMIT, scale="robust")


def test_spread_raises_with_the_group():
    x = np.array([1.0, 2.0, 3.0, np.nan, 5.0])
    codes = np.array([0, 0, 1, 1, 1])
    for stat in ("iqr", "mad"):
        with pytest.raises(NaNError) as info:
            grouped_reduce(x, codes, 2, stat, policy=NanPolicy.RAISE)
        assert (info.value.group, info.value.position, info.value.count) == (1, (3,), 1)


def test_grouped_errors_carry_the_group_through_pickling():
    x = np.array([[1.0, 2.0], [3.0, np.nan], [make_nan(2, signaling=True), 1.0],
                  [4.0, np.nan]])
    codes = np.array([0, 1, 2, 1])
    with pytest.raises(SignalingNaNError) as info:
        grouped_stat(x, codes, 3, "median", policy="omit")
    err = info.value
    assert (err.group, err.position, err.count, err.subject) == (2, (2, 0), 1, "group 2")
    with pytest.raises(NaNError) as info:
        grouped_stat(x[[0, 1, 3]], codes[[0, 1, 3]], 3, "mean", policy="raise")
    back = pickle.loads(pickle.dumps(info.value))
    assert (back.group, back.position, back.count) == (1, (1, 1), 2)
    assert str(back) == str(info.value)


def test_object_ddof_fraction_passes_through():
    # regression (issue 11): grouped object data used int(ddof)
    vals = [Decimal("1.5"), Decimal("2.5"), Decimal("4"), Decimal("0.5"), Decimal("3")]
    x = np.array(vals + [Decimal("7")], dtype=object)
    codes = np.array([0, 0, 0, 0, 0, 1])
    for stat in ("var", "std"):
        v, _ = grouped_stat(x, codes, 2, stat, ddof=0.5, policy="omit")
        assert v[0] == object_moment_stat(vals, stat, ddof=0.5, policy="omit")
        assert v[0] != object_moment_stat(vals, stat, ddof=0, policy="omit")
    v, _ = grouped_stat(x, codes, 2, "var", ddof=0.5, policy="omit")
    assert round(float(v[0]), 4) == round(float(np.var(np.array(vals, float)) * 5 / 4.5), 4)


def test_object_iqr_and_mad():
    from fractions import Fraction

    x = np.array([Fraction(1), Fraction(2), Fraction(4), Fraction(8), 3, 5], dtype=object)
    codes = np.array([0, 0, 0, 0, 1, 1])
    r = grouped_reduce(x, codes, 2, "mad", policy=NanPolicy.OMIT)
    assert r.values[0] == per_group(x, codes, 2, "mad", NanPolicy.OMIT)[0][0]
    r = grouped_reduce(x, codes, 2, "iqr", policy=NanPolicy.OMIT)
    assert r.values[1] == 1 and r.count.tolist() == [4, 2]


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "bool", "m8[s]"])
@pytest.mark.parametrize("stat", ["mean", "sum", "var", "std", "count"])
@pytest.mark.parametrize("ndim", [1, 2])
def test_moment_counts_reused_equal_a_recount(dtype, stat, ndim):
    # the counts the moment engine hands over (no second count) against
    # count_in_groups, which counts from the data; NaNs, NaT, missing, rows of no group
    from nanaccess.core.grouped.reduce import count_in_groups

    rng = np.random.default_rng(5)
    n = 300
    x = rng.standard_normal((n, 3)) * 50
    if dtype.startswith("float"):
        x[rng.random(x.shape) < 0.1] = np.nan
    x = x.astype(dtype) if dtype != "m8[s]" else x.astype(np.int64).astype(dtype)
    if dtype == "m8[s]":
        x[::17] = np.timedelta64("NaT")
    codes = rng.integers(-1, 9, n)
    miss = rng.random(x.shape) < 0.05
    if ndim == 1:
        x, miss = x[:, 0], miss[:, 0]
    for m in (None, miss):
        for policy in (NanPolicy.OMIT,):
            r = grouped_reduce(x, codes, 9, stat, policy=policy, missing=m)
            assert "count" in r.__dict__  # handed over, not recounted
            want = count_in_groups(x, codes, 9, m, policy)
            assert r.count.dtype == np.int64 and r.count.shape == want.shape
            assert np.array_equal(r.count, want)


@settings(max_examples=60, deadline=None)
@given(x=st.lists(st.floats(allow_nan=True), min_size=0, max_size=60),
       seed=st.integers(0, 2**16), removes=st.booleans())
def test_count_1d_fast_path_equals_the_mask_count(x, seed, removes):
    from nanaccess.core.grouped.reduce import count_in_groups

    x = np.array(x, dtype=np.float64)
    codes = np.random.default_rng(seed).integers(-1, 4, x.size)
    policy = NanPolicy.OMIT if removes else NanPolicy.PROPAGATE
    fast = count_in_groups(x, codes, 4, None, policy)
    slow = count_in_groups(x[:, None], codes, 4, None, policy)[:, 0]
    keep = (codes >= 0) & (~np.isnan(x) if removes else True)
    assert np.array_equal(fast, slow)
    assert np.array_equal(fast, np.bincount(codes[keep], minlength=4))
