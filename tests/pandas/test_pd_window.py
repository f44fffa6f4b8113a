"""pandas windows: ``rolling / expanding / groupby().rolling / resample .nanstats``.

Under "omit", on data where pandas is exact, every result equals pandas' own window
method with its labels; the other policies follow the core (tests/core/test_window.py).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import nanaccess  # noqa: F401  (registers the accessors)
from nanaccess import NaNError, make_nan
from nanaccess.core import _numba as NB
from nanaccess.pandas import NanGroupBy, NanWindow, _groupby_registry

ENGINES = ["numpy"] + (["numba"] if NB.AVAILABLE else [])
# pandas' own window method of each statistic (on exact data)
PANDAS = ["median", "min", "max", "count", "sum", "mean"]


def data(n=60, seed=0, nan=0.15):
    rng = np.random.default_rng(seed)
    x = rng.integers(-20, 20, n).astype(float) / 4  # exact sums in float64
    x[rng.random(n) < nan] = np.nan
    return x


def check(ours, theirs):
    pd.testing.assert_series_equal(ours, theirs) if isinstance(ours, pd.Series) else \
        pd.testing.assert_frame_equal(ours, theirs)


# ---------------------------------------------------------------------- registration


def test_pandas_still_exports_the_window_classes():
    from pandas.api.typing import Expanding, Resampler, Rolling

    s = pd.Series([1.0, 2.0], index=pd.date_range("2024", periods=2))
    assert isinstance(s.rolling(2), Rolling) and isinstance(s.expanding(), Expanding)
    # pandas.api.typing says RollingGroupby up to pandas 3.0, RollingGroupBy from 3.1
    rolling_gb, expanding_gb = _groupby_registry.WINDOW_GROUPBY_CLASSES
    assert type(s.groupby([0, 0]).rolling(2)) is rolling_gb
    assert issubclass(rolling_gb, Rolling) and issubclass(expanding_gb, Expanding)
    assert type(s.groupby([0, 0]).expanding()) is expanding_gb
    assert isinstance(s.resample("D"), Resampler)
    assert _groupby_registry.WINDOW_CLASSES == (Rolling, Expanding)
    assert isinstance(s.rolling(2).nanstats, NanWindow)
    assert isinstance(s.expanding().nanstats, NanWindow)
    assert isinstance(s.groupby([0, 0]).rolling(2).nanstats, NanWindow)
    assert isinstance(s.resample("D").nanstats, NanGroupBy)
    assert Rolling.nanstats is NanWindow
    assert vars(s.rolling(2).nanstats).keys() == {"_obj"}


def test_window_internals_are_loud():
    class Fake:
        min_periods = 1

    with pytest.raises(RuntimeError, match="pandas changed its internals"):
        _groupby_registry.window_parts(Fake())
    with pytest.raises(RuntimeError, match="pandas changed its internals"):
        _groupby_registry.grouper_info(Fake())
    s = pd.Series([1.0, 2.0, 3.0], index=pd.date_range("2024", periods=3))
    parts = _groupby_registry.window_parts(s.rolling("2D"))
    assert parts["freq"] and parts["times"].equals(s.index) and parts["obj"] is s
    gp = _groupby_registry.window_parts(s.groupby([1, 0, 1]).rolling(2))
    codes, ngroups, index = _groupby_registry.grouper_info(gp["grouper"])
    assert codes.tolist() == [1, 0, 1] and ngroups == 2 and index.tolist() == [0, 1]


# ----------------------------------------------------------------- against pandas


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("stat", PANDAS)
@pytest.mark.parametrize("window,kw", [
    (5, {}), (5, {"min_periods": 2}), (4, {"center": True, "min_periods": 1}),
    (6, {"closed": "both", "min_periods": 0}), (3, {"closed": "left"}),
    (7, {"closed": "neither", "min_periods": 3, "center": True}), (4, {"step": 3}),
])
def test_series_rolling_as_pandas(engine, stat, window, kw):
    s = pd.Series(data(), index=pd.date_range("2024-01-01", periods=60, freq="h"), name="t")
    r = s.rolling(window, **kw)
    ours = getattr(r.nanstats, stat)(**({} if stat == "count" else {"nan_policy": "omit"}),
                                     engine=engine)
    check(ours, getattr(r, stat)())


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("q", [0.0, 0.25, 0.9, 1.0])
@pytest.mark.parametrize("method", ["linear", "lower", "higher", "nearest", "midpoint"])
def test_rolling_quantile_as_pandas(engine, q, method):
    s = pd.Series(data(seed=2))
    r = s.rolling(6, min_periods=2)
    ours = r.nanstats.quantile(q, method=method, nan_policy="omit", engine=engine)
    theirs = r.quantile(q, interpolation=method)
    if method in ("linear", "midpoint"):  # pandas' interpolation rounds differently
        pd.testing.assert_series_equal(ours, theirs, rtol=1e-12)
    else:
        check(ours, theirs)


@pytest.mark.parametrize("stat", PANDAS)
@pytest.mark.parametrize("window", ["3h", "5h", "1D"])
@pytest.mark.parametrize("closed", [None, "left", "both", "neither"])
@pytest.mark.parametrize("center", [False, True])
def test_time_based_as_pandas(stat, window, closed, center):
    rng = np.random.default_rng(4)
    t = pd.DatetimeIndex(np.sort(rng.integers(0, 100, 50)) * 3_600_000_000 * 1000
                         + np.datetime64("2024-01-01", "ns").astype(np.int64))
    df = pd.DataFrame({"a": data(50, 1), "b": data(50, 3)}, index=t)
    r = df.rolling(window, closed=closed, center=center)
    ours = getattr(r.nanstats, stat)(**({} if stat == "count" else {"nan_policy": "omit"}))
    check(ours, getattr(r, stat)())


@pytest.mark.parametrize("stat", PANDAS)
def test_expanding_and_frames_as_pandas(stat):
    df = pd.DataFrame({"x": data(30, 5), "y": data(30, 6)}, index=list(range(100, 130)))
    kw = {} if stat == "count" else {"nan_policy": "omit"}
    for r in (df.expanding(), df.expanding(min_periods=4), df["x"].expanding(3)):
        check(getattr(r.nanstats, stat)(**kw), getattr(r, stat)())


@pytest.mark.parametrize("stat", PANDAS)
@pytest.mark.parametrize("how", ["rolling", "expanding", "time"])
def test_groupby_rolling_as_pandas(stat, how):
    rng = np.random.default_rng(8)
    df = pd.DataFrame({"g": rng.choice(["b", "a", "c"], 40), "x": data(40, 9),
                       "y": data(40, 10)},
                      index=pd.date_range("2024", periods=40, freq="h"))
    gb = df.groupby("g")
    r = {"rolling": lambda: gb.rolling(4, min_periods=2),
         "expanding": lambda: gb.expanding(),
         "time": lambda: gb.rolling("5h")}[how]()
    kw = {} if stat == "count" else {"nan_policy": "omit"}
    check(getattr(r.nanstats, stat)(**kw), getattr(r, stat)())
    rs = df.groupby("g")["x"].rolling(3)
    check(getattr(rs.nanstats, stat)(**kw), getattr(rs, stat)())


def test_on_column_and_custom_indexer_as_pandas():
    df = pd.DataFrame({"t": pd.date_range("2024", periods=20, freq="7h"), "x": data(20, 11)})
    r = df.rolling("1D", on="t")
    check(r.nanstats.max(nan_policy="omit"), r.max())
    from pandas.api.indexers import FixedForwardWindowIndexer

    s = pd.Series(data(20, 12))
    r = s.rolling(FixedForwardWindowIndexer(window_size=3), min_periods=1)
    check(r.nanstats.median(nan_policy="omit"), r.median())


@pytest.mark.parametrize("stat", ["median", "max", "sum", "mean", "count"])
def test_resample_as_pandas(stat):
    s = pd.Series(data(100, 13), index=pd.date_range("2024", periods=100, freq="5h"),
                  name="v")
    kw = {} if stat == "count" else {"nan_policy": "omit"}
    check(getattr(s.resample("D").nanstats, stat)(**kw), getattr(s.resample("D"), stat)())
    df = s.to_frame().assign(w=data(100, 14))
    check(getattr(df.resample("2D").nanstats, stat)(**kw),
          getattr(df.resample("2D"), stat)())


# --------------------------------------------------------------------- policies


def test_raise_names_column_window_and_nan():
    t = pd.date_range("2024-01-01", periods=6)
    df = pd.DataFrame({"ok": np.arange(6.0), "temp": [1.0, 2.0, 3.0, np.nan, 5.0, 6.0]},
                      index=t)
    with pytest.raises(NaNError) as info:
        df.rolling(2).nanstats.median()
    msg = str(info.value)
    assert "column 'temp' in window '2024-01-04'" in msg
    assert "first at index '2024-01-04'" in msg
    assert info.value.group == pd.Timestamp("2024-01-04")
    with pytest.raises(NaNError, match="in window"):
        df["temp"].expanding().nanstats.max(nan_policy="raise")
    # groupby windows: the window label is the (group, row) label
    g = df.assign(k=[0, 1, 0, 1, 0, 1]).groupby("k")["temp"].rolling(2)
    with pytest.raises(NaNError, match=r"in window \(1, '2024-01-04'\)"):
        g.nanstats.mean(nan_policy="raise")


def test_propagate_keeps_nan_bits_and_inputs_untouched():
    p = make_nan(123)
    x = np.array([1.0, p, 3.0, 4.0, make_nan(5, negative=True), 6.0])
    s = pd.Series(x.copy())
    out = s.rolling(2).nanstats.median(nan_policy="propagate")
    bits = out.to_numpy().view(np.uint64)
    assert bits[1] == bits[2] == np.float64(p).view(np.uint64)
    assert np.isnan(out[4]) and np.signbit(out[4]) and not np.isnan(out[3])
    assert s.to_numpy().view(np.uint64).tolist() == x.view(np.uint64).tolist()
    low = s.rolling(3, min_periods=1).nanstats.max(nan_policy="smallest")
    assert low.tolist()[:4] == [1.0, 1.0, 3.0, 4.0] and low[5] == 6.0


def test_nullable_gives_na_where_too_few_values():
    s = pd.Series([1.0, None, None, 4.0], dtype="Float64")
    out = s.rolling(2).nanstats.median(nan_policy="omit")
    assert out.dtype == "Float64"
    assert out.isna().tolist() == [True, True, True, True]
    out = s.rolling(2, min_periods=1).nanstats.median(nan_policy="omit")
    assert out.isna().tolist() == [False, False, True, False]


def test_quantile_list_and_float32_picks():
    s = pd.Series(np.arange(6, dtype=np.float32), name="v")
    out = s.rolling(3).nanstats.quantile([0.1, 0.9], nan_policy="omit")
    assert list(out.columns) == [0.1, 0.9] and out.index.equals(s.index)
    m = s.rolling(3).nanstats.max(nan_policy="omit")
    assert m.dtype == np.float32 and m.tolist()[2:] == [2.0, 3.0, 4.0, 5.0]


def test_drift_free_rolling_sum():
    s = pd.Series([1e16, -1e16 + 2, 3.3, 1e-16, 0.0, 0.0, 0.0])
    assert s.rolling(3).nanstats.sum(nan_policy="omit").iloc[-1] == 0.0
    m = s.rolling(3).nanstats.mean(nan_policy="omit")
    assert m.iloc[-1] == 0.0 and not np.signbit(m.iloc[-1])
