"""dask DataFrame windows over the round-3 inputs (issue 25): integer and nullable
columns (every partition and the meta agree on the dtype), tz-aware time windows and
pandas' ``interpolation=`` keyword, each equal to the pandas accessor's values."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import nanaccess  # noqa: F401

dd = pytest.importorskip("dask.dataframe")
import nanaccess.dask  # noqa: E402,F401  (registers the dask accessors)


def frame():
    rng = np.random.default_rng(0)
    n = 30
    return pd.DataFrame({
        "a": rng.integers(-(2**40), 2**40, n),
        "b": rng.normal(size=n),
        "c": pd.array(np.where(rng.random(n) < 0.2, None, rng.integers(0, 9, n)), "Int64"),
    }, index=pd.date_range("2024-03-30", periods=n, freq="37min", tz="Europe/Paris"))


@pytest.mark.parametrize("stat", ["sum", "max", "median_low", "median", "mad", "count"])
@pytest.mark.parametrize("window", [3, "2h"])
@pytest.mark.parametrize("min_periods", [None, 1])
def test_int_columns_dtype_agrees_and_values_equal_pandas(stat, window, min_periods):
    pdf = frame()
    ddf = dd.from_pandas(pdf, npartitions=4)
    lazy = getattr(ddf.rolling(window, min_periods=min_periods).nanstats, stat)(
        **({} if stat == "count" else {"nan_policy": "omit"}))
    got = lazy.compute()
    assert lazy.dtypes.to_dict() == got.dtypes.to_dict()
    want = getattr(pdf.rolling(window, min_periods=min_periods).nanstats, stat)(
        **({} if stat == "count" else {"nan_policy": "omit"}))
    assert got["a"].dtype == np.float64  # NumPy ints: float64 in every partition
    pd.testing.assert_frame_equal(got, want.astype({"a": np.float64}))


def test_dask_rolling_quantile_interpolation():
    pdf = frame()[["b"]]
    ddf = dd.from_pandas(pdf, npartitions=3)
    got = ddf.rolling(4).nanstats.quantile(0.3, interpolation="higher").compute()
    pd.testing.assert_frame_equal(got, pdf.rolling(4).quantile(0.3, interpolation="higher"))
