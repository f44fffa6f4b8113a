"""``ddf.resample(rule).nanstats`` and list ``q`` of dask groupby quantile, against
pandas' accessor on the computed frame (labels, tz-aware bins across DST, values)."""

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")

import nanaccess  # noqa: E402, F401
from nanaccess.errors import NaNError  # noqa: E402


def _frame(start="2024-03-29 03:00"):
    idx = pd.date_range(start, periods=40, freq="5h", tz="Europe/Berlin")
    rng = np.random.default_rng(1)
    with np.errstate(invalid="ignore"):
        nan = np.float64(np.inf) - np.float64(np.inf)
    x = rng.standard_normal(40)
    x[[3, 17, 18]] = nan
    x[9:14] = nan  # whole bins of NaN
    df = pd.DataFrame({"x": x, "i": np.arange(40) % 7,
                       "n": pd.array([None if j % 11 == 0 else j for j in range(40)],
                                     dtype="Int64")}, index=idx)
    return df, dd.from_pandas(df, npartitions=4)


@pytest.mark.parametrize("start", ["2024-03-29 03:00", "2024-10-25 00:00"])  # DST both ways
@pytest.mark.parametrize("rule,kw", [("1D", {}), ("7h", {}),
                                     ("7h", {"closed": "right", "label": "right"}),
                                     ("3h", {})])
def test_resample_median_equals_pandas(start, rule, kw):
    df, ddf = _frame(start)
    expected = df.resample(rule, **kw).nanstats.median(nan_policy="omit")
    got = ddf.resample(rule, **kw).nanstats.median(nan_policy="omit").compute()
    pd.testing.assert_frame_equal(got, expected, check_freq=False)


@pytest.mark.parametrize("stat,kw", [("quantile", {"q": [0.1, 0.9]}), ("sum", {}),
                                     ("iqr", {}), ("max", {"nan_policy": "propagate"}),
                                     ("mean", {})])
def test_resample_statistics_equal_pandas(stat, kw):
    df, ddf = _frame()
    kw = {"nan_policy": "omit", **kw}
    expected = getattr(df.resample("7h").nanstats, stat)(**kw)
    got = getattr(ddf.resample("7h").nanstats, stat)(**kw).compute()
    pd.testing.assert_frame_equal(got, expected, check_freq=False)


def test_resample_series_and_raise():
    df, ddf = _frame()
    pd.testing.assert_series_equal(
        ddf.x.resample("1D").nanstats.median(nan_policy="omit").compute(),
        df.x.resample("1D").nanstats.median(nan_policy="omit"), check_freq=False)
    with pytest.raises(NaNError) as mem:
        df[["x"]].iloc[:8].resample("1D").nanstats.median()
    with pytest.raises(NaNError) as lazy:
        ddf[["x"]].loc[:df.index[7]].resample("1D").nanstats.median().compute()
    assert str(lazy.value) == str(mem.value)


def test_resample_needs_known_divisions():
    df, ddf = _frame()
    with pytest.raises(ValueError, match="divisions"):
        ddf.clear_divisions().resample("1D").nanstats.median()


def test_groupby_quantile_list_q_multiindex():
    df, ddf = _frame()
    expected = df.groupby("i").nanstats.quantile(q=[0.1, 0.5, 0.9], nan_policy="omit")
    got = ddf.groupby("i").nanstats.quantile(q=[0.1, 0.5, 0.9], nan_policy="omit")
    got = got.compute().sort_index()
    assert isinstance(got.index, pd.MultiIndex)
    pd.testing.assert_frame_equal(got, expected)
