"""The generated dask accessor methods: iqr / mad, and the same statistics on every host."""

from __future__ import annotations

import inspect

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")
stats = pytest.importorskip("scipy.stats")

import nanaccess.dask  # noqa: E402,F401  (registers the dask accessors)
from nanaccess import NaNError, _stats  # noqa: E402
from nanaccess.dask.dataframe import (  # noqa: E402
    DaskDataFrameNanStats,
    DaskNanGroupBy,
    DaskSeriesNanStats,
)


def _frame(n: int = 50, seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n)
    x[[2, 11, 30]] = np.nan
    return pd.DataFrame({"g": rng.choice(list("abc"), n), "x": x,
                         "y": rng.integers(-9, 9, n).astype(float)})


def _public(cls: type) -> set[str]:
    return {n for n, v in inspect.getmembers(cls, inspect.isfunction) if not n.startswith("_")}


def test_dataframe_has_every_statistic_of_the_series():
    series = _public(DaskSeriesNanStats) & set(_stats.STATISTICS)
    assert {"median_low", "median_high", "iqr", "mad"} <= series
    assert series <= _public(DaskDataFrameNanStats)
    assert series <= _public(DaskNanGroupBy)


@pytest.mark.parametrize("column", ["x", "y"])
def test_series_iqr_mad_equal_scipy_under_omit(column):
    pdf = _frame()
    s = dd.from_pandas(pdf[column], npartitions=3)
    vals = pdf[column].to_numpy()
    assert float(s.nanstats.iqr(nan_policy="omit").compute()) == pytest.approx(
        stats.iqr(vals, nan_policy="omit"), rel=1e-14)
    assert float(s.nanstats.mad(scale="normal", nan_policy="omit").compute()) == pytest.approx(
        stats.median_abs_deviation(vals, scale="normal", nan_policy="omit"), rel=1e-14)


def test_dataframe_iqr_mad_labelled_as_pandas():
    pdf = _frame()[["x", "y"]]
    ddf = dd.from_pandas(pdf, npartitions=3)
    for stat, kw in (("iqr", {}), ("iqr", {"method": "lower"}), ("mad", {}),
                     ("mad", {"scale": "normal"})):
        got = getattr(ddf.nanstats, stat)(nan_policy="omit", **kw).compute()
        want = getattr(pdf.nanstats, stat)(nan_policy="omit", **kw)
        pd.testing.assert_series_equal(got, want, rtol=1e-14)


def test_groupby_iqr_mad_equal_pandas():
    pdf = _frame()
    ddf = dd.from_pandas(pdf, npartitions=3)
    for stat in ("iqr", "mad"):
        got = getattr(ddf.nanstats.groupby("g"), stat)(nan_policy="omit").compute()
        want = getattr(pdf.groupby("g").nanstats, stat)(nan_policy="omit")
        # dask stores the string keys as its own string dtype
        pd.testing.assert_frame_equal(got.sort_index(), want, rtol=1e-14,
                                      check_index_type=False)


def test_iqr_raises_at_compute_naming_the_column():
    s = dd.from_pandas(_frame()["x"], npartitions=3)
    lazy = s.nanstats.iqr()
    with pytest.raises(NaNError, match="column 'x' holds 3 NaN values"):
        lazy.compute()
