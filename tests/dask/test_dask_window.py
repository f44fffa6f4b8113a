"""dask DataFrame windows (issue 12): ``ddf.rolling(w).nanstats`` is lazy and gives the
pandas accessor's result (each window's exact plain statistic) whatever the
partitioning."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import nanaccess  # noqa: F401
from nanaccess.errors import NaNError

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")

from nanaccess.dask.window import overlap_of, register_window_accessor  # noqa: E402

register_window_accessor()


def _refuse(*args, **kwargs):
    raise AssertionError("computed before .compute()")


def frame(n: int = 60) -> pd.DataFrame:
    rng = np.random.default_rng(4)
    df = pd.DataFrame({"a": rng.normal(size=n).round(2), "b": rng.normal(size=n)},
                      index=pd.date_range("2024-01-01", periods=n, freq="h"))
    df.iloc[::7, 0] = np.nan
    df.iloc[20:26, 1] = np.nan
    return df


@pytest.mark.parametrize("window, center", [(5, False), (5, True), (4, True), (2, False),
                                            ("6h", False), ("6h", True), ("5h", True)])
@pytest.mark.parametrize("stat, params", [("median", {}), ("quantile", {"q": 0.9}),
                                          ("quantile", {"q": [0.2, 0.7]}), ("sum", {}),
                                          ("mean", {}), ("var", {"ddof": 1}), ("max", {}),
                                          ("count", {})])
def test_rolling_equals_pandas_accessor(window, center, stat, params):
    pol = {} if stat == "count" else {"nan_policy": "omit"}
    pro = {} if stat == "count" else {"nan_policy": "propagate"}
    df = frame()
    ddf = dd.from_pandas(df, npartitions=5)
    with dask.config.set(scheduler=_refuse):  # building the graph computes nothing
        lazy = getattr(ddf.rolling(window, min_periods=1, center=center).nanstats,
                       stat)(**pol, **params)
    exp = getattr(df.rolling(window, min_periods=1, center=center).nanstats, stat)(
        **pol, **params)
    got = lazy.compute(scheduler="sync")
    pd.testing.assert_frame_equal(got, exp)
    s = getattr(ddf.a.rolling(window, min_periods=2, center=center).nanstats, stat)(
        **pro, **params).compute(scheduler="sync")
    exp_s = getattr(df.a.rolling(window, min_periods=2, center=center).nanstats, stat)(
        **pro, **params)
    if isinstance(exp_s, pd.DataFrame):
        pd.testing.assert_frame_equal(s, exp_s)
    else:
        pd.testing.assert_series_equal(s, exp_s)


def test_raise_names_a_window_and_the_nan():
    # the partitions run in dask's order: the error names the first window holding a
    # NaN of the partition that raised, and that NaN's own label (here the same row)
    df = frame()
    ddf = dd.from_pandas(df[["a"]], npartitions=3)
    with pytest.raises(NaNError, match=r"column 'a' in window '([^']+)' holds 1 NaN value "
                                       r"\(first at index '\1'\)"):
        ddf.rolling(3).nanstats.median(nan_policy="raise").compute(scheduler="sync")
    one = dd.from_pandas(df[["a"]], npartitions=1)
    with pytest.raises(NaNError, match=r"column 'a' in window '2024-01-01'"):
        one.rolling(3).nanstats.median(nan_policy="raise").compute(scheduler="sync")


def test_overlaps_and_unsupported():
    assert overlap_of(5, False) == (4, 0)
    assert overlap_of(6, True) == (3, 2)  # pandas centers at (w - 1) // 2 ahead
    assert overlap_of("2D", False) == (pd.Timedelta("2D"), 0)
    # centered: (t - w/2, t + w/2] reaches w/2 ahead; dask borrows the rows strictly
    # before the last time + after, so one nanosecond more
    assert overlap_of("5h", True) == (pd.Timedelta("5h"), pd.Timedelta("150min1ns"))
    with pytest.raises(ValueError, match="window must be"):
        overlap_of(-1, False)


def test_rolling_accessor_registers_on_import():
    import subprocess
    import sys

    code = ("import numpy as np, pandas as pd, dask.dataframe as dd, nanaccess\n"
            "r = dd.from_pandas(pd.Series(np.arange(5.0)), npartitions=2).rolling(2)\n"
            "print(type(r.nanstats).__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "NanDaskWindow"


def test_centered_time_window_wider_than_a_partition():
    # the rows ahead come from the next partition alone: where it spans less time than
    # half the window, dask refuses loudly (no window is cut short silently)
    df = frame(40)
    ddf = dd.from_pandas(df, npartitions=8)  # 5 hours a partition
    with pytest.raises(NotImplementedError, match="Partition size is less"):
        ddf.rolling("14h", center=True).nanstats.median(nan_policy="omit").compute(
            scheduler="sync")
    got = ddf.rolling("8h", center=True, min_periods=1).nanstats.median(
        nan_policy="omit").compute(scheduler="sync")  # 4 hours ahead: within one partition
    pd.testing.assert_frame_equal(got, df.rolling("8h", center=True, min_periods=1)
                                  .nanstats.median(nan_policy="omit"), check_freq=False)


def grouped_frame(n: int = 80) -> pd.DataFrame:
    rng = np.random.default_rng(9)
    df = frame(n)
    df.insert(0, "k", rng.integers(0, 3, n))
    df.iloc[rng.random(n) < 0.1, 1] = -0.0
    return df


@pytest.mark.parametrize("window, center", [("5h", False), ("7h", True), ("20h", False)])
@pytest.mark.parametrize("npartitions", [2, 7])
@pytest.mark.parametrize("stat, params", [("median", {}), ("max", {}), ("count", {}),
                                          ("quantile", {"q": 0.25}), ("mean", {}),
                                          ("var", {})])
def test_groupby_rolling_as_pandas_and_dask(window, center, npartitions, stat, params):
    # dask's groupby-rolling: each extended partition grouped, labelled (key, index)
    # and ordered by the index; every value the pandas accessor's (the plain statistic
    # of its window), whatever the partitioning; where pandas is exact, dask's own
    df = grouped_frame()
    ddf = dd.from_pandas(df, npartitions=npartitions)
    pol = {} if stat == "count" else {"nan_policy": "omit"}
    with dask.config.set(scheduler=_refuse):
        lazy = getattr(ddf.groupby("k").rolling(window, center=center,
                                                min_periods=1).nanstats, stat)(**pol, **params)
        lazy_a = getattr(ddf.groupby("k").a.rolling(window, center=center).nanstats,
                         stat)(**pol, **params)
    got = lazy.compute(scheduler="sync")
    exp = getattr(df.groupby("k").rolling(window, center=center, min_periods=1).nanstats,
                  stat)(**pol, **params).sort_index(level=-1)
    pd.testing.assert_frame_equal(got, exp, check_freq=False)
    got_a = lazy_a.compute(scheduler="sync")
    exp_a = getattr(df.groupby("k").a.rolling(window, center=center).nanstats, stat)(
        **pol, **params).sort_index(level=-1)
    pd.testing.assert_series_equal(got_a, exp_a, check_freq=False)
    if stat in ("median", "max", "count") and not center:  # pandas exact here
        own = getattr(ddf.groupby("k").rolling(window, min_periods=1), stat)().compute(
            scheduler="sync")
        pd.testing.assert_frame_equal(got, own)


def test_groupby_rolling_policies_and_refusals():
    df = grouped_frame()
    ddf = dd.from_pandas(df, npartitions=4)
    exp = df.groupby("k").rolling("6h").nanstats.median(nan_policy="propagate")
    got = ddf.groupby("k").rolling("6h").nanstats.median(nan_policy="propagate").compute(
        scheduler="sync")
    pd.testing.assert_frame_equal(got, exp.sort_index(level=-1), check_freq=False)
    with pytest.raises(NaNError, match="column 'a' in window"):
        ddf.groupby("k").rolling("6h").nanstats.max(nan_policy="raise").compute(
            scheduler="sync")
    with pytest.raises(NotImplementedError, match="time-based window"):
        ddf.groupby("k").rolling(3).nanstats.median(nan_policy="omit")
    same = ddf.groupby(ddf.k).rolling("6h").nanstats.median(nan_policy="propagate")
    pd.testing.assert_frame_equal(same.compute(scheduler="sync"), got)  # dask: by name
