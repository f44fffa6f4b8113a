"""Rolling and expanding skew/kurt (issue 23): every window bit-equal to the plain
statistic of its values, on every engine and window host; pandas agrees on NaN-free
data within its own rounding."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from hypothesis import given
from hypothesis import strategies as hs
from hypothesis.extra import numpy as hnp

import nanaccess  # noqa: F401
from nanaccess import options
from nanaccess.core import _numba
from nanaccess.core.higher import higher_stat
from nanaccess.core.window import expanding_bounds, fixed_bounds, window_reduce
from nanaccess.errors import NaNError

ENGINES = ["numpy"] + (["numba"] if _numba.AVAILABLE else [])


def _windows(x, s, e, stat, policy, **p):
    with options.option_context(compile="foreground"):
        got = [window_reduce(x, s, e, stat, policy=policy, min_periods=0, engine=eng, **p)
               for eng in ENGINES]
    for g in got[1:]:
        np.testing.assert_array_equal(g.values, got[0].values)
    return got[0].values


@given(data=hnp.arrays(np.float64, hs.integers(0, 120),
                       elements=hs.floats(-1e3, 1e3) | hs.just(np.nan)),
       offset=hs.sampled_from([0.0, 1e9, -2.5e-300]), width=hs.integers(1, 30),
       stat=hs.sampled_from(["skew", "kurt"]),
       policy=hs.sampled_from(["omit", "propagate", "largest"]))
def test_each_window_is_the_plain_statistic(data, offset, width, stat, policy):
    x = data + offset
    for s, e in (fixed_bounds(x.size, width), expanding_bounds(x.size)):
        vals = _windows(x, s, e, stat, policy)
        for i in range(x.size):
            exp = higher_stat(x[s[i]:e[i]], stat, policy=policy)[0]
            np.testing.assert_array_equal(vals[i], exp)


@pytest.mark.parametrize("stat", ["skew", "kurt"])
def test_long_series_sliding_engine_matches_reference(stat):
    rng = np.random.default_rng(2)
    x = np.cumsum(rng.standard_normal(30_000))  # a random walk: windows far from the mean
    x[rng.random(x.size) < 0.03] = np.nan
    x[100:140] = 7.0  # constant windows (M2 = 0): the exact engine
    s, e = fixed_bounds(x.size, 50)
    vals = _windows(x, s, e, stat, "omit")
    pick = rng.integers(0, x.size, 200)
    for i in pick:
        np.testing.assert_array_equal(vals[i], higher_stat(x[s[i]:e[i]], stat,
                                                           policy="omit")[0])


@pytest.mark.parametrize("stat,minimum", [("skew", 3), ("kurt", 4)])
def test_pandas_agrees_on_nan_free_data(stat, minimum):
    rng = np.random.default_rng(4)
    s = pd.Series(rng.gamma(2.0, size=400) + 1e3, index=pd.date_range(
        "2024-01-01", periods=400, freq="h", tz="Europe/Paris"))
    for win in (s.rolling(12), s.rolling(12, min_periods=1), s.expanding(),
                s.rolling("5h")):
        got = getattr(win.nanstats, stat)(nan_policy="raise")
        exp = getattr(win, stat)()
        pd.testing.assert_index_equal(got.index, exp.index)
        np.testing.assert_allclose(got, exp, rtol=1e-7, atol=1e-9)
        counts = win.count()
        assert got[counts < minimum].isna().all()


def test_hosts_and_labels():
    rng = np.random.default_rng(5)
    df = pd.DataFrame({"k": rng.integers(0, 3, 60), "a": rng.normal(size=60),
                       "b": rng.integers(-5, 5, 60)}, index=np.arange(60) % 7)  # dup labels
    got = df[["a", "b"]].rolling(6).nanstats.kurt(nan_policy="raise")
    exp = df[["a", "b"]].rolling(6).kurt()
    pd.testing.assert_frame_equal(got, exp, rtol=1e-7, atol=1e-9)
    got = df.groupby("k").rolling(5).nanstats.skew(nan_policy="raise")
    exp = df.groupby("k").rolling(5).skew()
    pd.testing.assert_frame_equal(got, exp, rtol=1e-7, atol=1e-9)
    da = xr.DataArray(df["a"].to_numpy(), dims="t")
    got = da.rolling(t=8).nanstats.skew(nan_policy="raise")
    exp = pd.Series(df["a"].to_numpy()).rolling(8).skew().to_numpy()
    np.testing.assert_allclose(got.values, exp, rtol=1e-7, atol=1e-9)


def test_policies_and_nullable():
    with np.errstate(invalid="ignore"):  # a NaN made by arithmetic
        x = pd.Series([1.0, 2.0, np.float64(0) / 0, 4.0, 8.0, 3.0, 5.0], dtype="float64")
    with pytest.raises(NaNError):
        x.rolling(4).nanstats.skew(nan_policy="raise")
    omit = x.rolling(4, min_periods=3).nanstats.skew(nan_policy="omit")
    assert omit.iloc[3] == higher_stat(np.array([1.0, 2.0, 4.0]), "skew", policy="raise")[0]
    prop = x.rolling(4, min_periods=3).nanstats.skew(nan_policy="propagate")
    assert prop.iloc[2:6].isna().all() and not np.isnan(prop.iloc[6])
    nullable = pd.Series([1, 2, None, 4, 8, 3, 5], dtype="Int64")
    got = nullable.rolling(4, min_periods=3).nanstats.kurt(nan_policy="omit")
    exp = pd.Series([1.0, 2.0, np.nan, 4.0, 8.0, 3.0, 5.0]).rolling(4, min_periods=3).kurt()
    np.testing.assert_allclose(got.astype(float), exp, rtol=1e-9)


def test_no_mutation_and_float32():
    x = np.random.default_rng(6).normal(size=500).astype(np.float32)
    x0 = x.copy()
    s, e = fixed_bounds(x.size, 20)
    vals = _windows(x, s, e, "kurt", "omit")
    np.testing.assert_array_equal(x, x0)
    assert vals.dtype == np.float32
    np.testing.assert_array_equal(vals[50], higher_stat(x[s[50]:e[50]], "kurt",
                                                        policy="omit")[0])


def test_int_columns_widened_exactly():
    """int64 within 2**53 goes through the float engine exactly: every window the
    plain statistic of its integers."""
    x = np.random.default_rng(8).integers(-10**9, 10**9, 400)
    s, e = fixed_bounds(x.size, 30)
    vals = _windows(x, s, e, "skew", "omit")
    assert vals.dtype == np.float64
    for i in (29, 200, 399):
        np.testing.assert_array_equal(vals[i], higher_stat(x[s[i]:e[i]], "skew",
                                                           policy="omit")[0])
