"""dask DataFrame / Series accessor: lazy, exact, equal to pandas / the core."""

from __future__ import annotations

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

import nanaccess.dask  # noqa: F401
from nanaccess.errors import NaNError


@pytest.fixture(autouse=True)
def _sync_scheduler():
    with dask.config.set(scheduler="sync"):
        yield


def frame(seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"a": rng.normal(size=53), "b": rng.integers(0, 9, 53).astype(float)},
                      index=pd.date_range("2024-01-01", periods=53))
    df.iloc[[5, 17, 40], 0] = np.nan
    return df


def test_series_median_and_quantile_equal_pandas():
    df = frame()
    s = dd.from_pandas(df["a"], npartitions=5)
    assert float(s.nanstats.median(nan_policy="omit").compute()) == df["a"].median()
    np.testing.assert_array_equal(
        s.nanstats.quantile([0.1, 0.5, 0.9], nan_policy="omit").compute(),
        df["a"].quantile([0.1, 0.5, 0.9]).to_numpy())


def test_dataframe_median_lazy_and_equal_pandas():
    df = frame()
    ddf = dd.from_pandas(df, npartitions=4)
    res = ddf.nanstats.median(nan_policy="omit")
    assert isinstance(res, dd.Series)
    pd.testing.assert_series_equal(res.compute(), df.median(), check_names=False)
    q = ddf.nanstats.quantile([0.25, 0.75], nan_policy="omit").compute()
    pd.testing.assert_frame_equal(q, df.quantile([0.25, 0.75]))


def test_raise_names_column_and_index_label():
    ddf = dd.from_pandas(frame(), npartitions=4)
    r = ddf["a"].nanstats.median(nan_policy="raise")
    with pytest.raises(NaNError, match=r"column 'a' holds 3 NaN values \(first at index "
                                       r"'2024-01-06'\)"):
        r.compute()
