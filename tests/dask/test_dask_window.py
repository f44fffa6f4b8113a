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
                                            ("6h", False)])
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
    with pytest.raises(NotImplementedError, match="centered time-based"):
        overlap_of("2D", True)
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
