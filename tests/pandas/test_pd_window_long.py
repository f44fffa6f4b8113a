"""pandas windows over long inputs (the size where fixed windows reach the kernels as
numbers, without bound arrays), and the drift cases of the hosts' windows: each
result pandas' own where pandas is exact, and the plain statistic of its window
always."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import nanaccess
from nanaccess.core.window import reduce as wreduce

N = wreduce.FIXED_MIN_OUTPUTS + 904


def data(n=N, seed=0, nan=0.05):
    rng = np.random.default_rng(seed)
    x = rng.integers(-40, 40, n).astype(float) / 8  # exact sums in float64
    x[rng.random(n) < nan] = np.nan
    x[n // 3:n // 3 + 150] = np.nan  # a gap wider than the windows
    return x


@pytest.mark.parametrize("stat", ["median", "min", "max", "count", "sum", "mean"])
@pytest.mark.parametrize("window,kw", [
    (100, {"min_periods": 1}), (100, {}), (7, {"center": True, "min_periods": 3}),
    (64, {"closed": "both", "min_periods": 0}), (33, {"closed": "neither", "center": True}),
    (40, {"step": 3, "min_periods": 10}), (1, {}),
])
def test_long_rolling_as_pandas(stat, window, kw):
    s = pd.Series(data(), index=pd.date_range("2024", periods=N, freq="min"), name="v")
    r = s.rolling(window, **kw)
    kw_ = {} if stat == "count" else {"nan_policy": "omit"}
    pd.testing.assert_series_equal(getattr(r.nanstats, stat)(**kw_), getattr(r, stat)())
    df = pd.DataFrame({"a": s, "b": s[::-1].to_numpy()}, index=s.index)
    rd = df.rolling(window, **kw)
    pd.testing.assert_frame_equal(getattr(rd.nanstats, stat)(**kw_), getattr(rd, stat)())


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_long_rolling_quantile_keeps_bits(dtype):
    # picked values keep dtype and bits (signed zeros too), as pandas where it is exact
    x = data(seed=3).astype(dtype)
    x[::97] = -0.0
    s = pd.Series(x)
    for method in ("lower", "higher", "nearest"):
        r = s.rolling(50, min_periods=5)
        ours = r.nanstats.quantile(0.8, method=method, nan_policy="omit")
        assert ours.dtype == dtype
        theirs = s.astype(np.float64).rolling(50, min_periods=5).quantile(
            0.8, interpolation=method)
        np.testing.assert_array_equal(ours.to_numpy(np.float64), theirs.to_numpy())
    med = s.rolling(10, min_periods=1).nanstats.median_low(nan_policy="omit").to_numpy()
    for i in range(0, N, 37):
        w = x[max(i - 9, 0):i + 1]
        exp = nanaccess.median_low(w, nan_policy="omit")
        assert np.asarray(med[i]).view(f"u{x.itemsize}") == \
            np.asarray(exp, dtype).view(f"u{x.itemsize}")


def test_long_drift_cases_exactly_zero():
    # windows of zeros (and of one repeated value) after huge values and after long
    # histories of non-representable decimals: sums exactly 0.0, means the value,
    # variances exactly 0.0 (the hosts' running sums leave 1e-16 .. 1e+0 there)
    rng = np.random.default_rng(1)
    x = rng.normal(size=N) * 10.0 ** rng.integers(-3, 17, N)
    x[1000:1100] = 0.0
    x[2000:2100] = 0.1
    x[3000:3100] = 1e-3
    x[3100:3105] = [1e16, -1e16 + 2, 3.3, 1e-16, 0.0]
    x[3105:3200] = 0.0
    s = pd.Series(x)
    r = s.rolling(50)
    total = r.nanstats.sum(nan_policy="omit").to_numpy()
    mean = r.nanstats.mean(nan_policy="omit").to_numpy()
    var = r.nanstats.var(nan_policy="omit").to_numpy()
    for lo, v in ((1050, 0.0), (3154, 0.0)):
        assert (total[lo:lo + 40] == 0.0).all() and not np.signbit(total[lo:lo + 40]).any()
        assert (mean[lo:lo + 40] == v).all() and (var[lo:lo + 40] == 0.0).all()
    assert (mean[2049:2100] == 0.1).all() and (var[2049:2100] == 0.0).all()
    assert (mean[3049:3100] == 1e-3).all()
    for i in range(49, N, 211):  # every window: its correctly rounded sum and mean
        w = x[i - 49:i + 1]
        assert total[i] == math.fsum(w)
        assert mean[i] == nanaccess.mean(w)
        assert var[i] == nanaccess.var(w, ddof=1)
