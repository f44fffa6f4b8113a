"""Exact dask DataFrame groupby: equal, bit for bit, to the in-memory pandas result."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")
import nanaccess as na  # noqa: E402


def _frame(seed: int = 0, n: int = 400) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    x[rng.random(n) < 0.1] = np.nan
    x[5] = na.make_nan(77, negative=True)  # a payload the propagate policy must keep
    return pd.DataFrame({"k": rng.integers(0, 17, n), "x": x, "y": rng.normal(size=n)})


@pytest.mark.parametrize("policy", ["omit", "propagate", "largest", "totalorder"])
@pytest.mark.parametrize("stat", ["median", "median_low", "quantile", "max", "mean", "var"])
def test_groupby_equals_pandas_accessor_bitwise(policy, stat):
    pdf = _frame()
    ddf = dd.from_pandas(pdf, npartitions=4)
    kw = {"q": 0.3} if stat == "quantile" else {}
    got = getattr(ddf.nanstats.groupby("k"), stat)(nan_policy=policy, **kw)
    got = got.compute().sort_index()
    want = getattr(pdf.groupby("k").nanstats, stat)(nan_policy=policy, **kw)
    pd.testing.assert_index_equal(got.index, want.index)
    assert list(got.columns) == list(want.columns)
    for c in want.columns:
        assert got[c].to_numpy().tobytes() == want[c].to_numpy().tobytes(), (stat, c)


def test_groupby_omit_equals_pandas_median():
    pdf = _frame(1)
    got = dd.from_pandas(pdf, npartitions=3).nanstats.groupby("k").median(nan_policy="omit")
    pd.testing.assert_frame_equal(got.compute().sort_index(), pdf.groupby("k").median())


def test_groupby_is_lazy_and_raise_names_group():
    pdf = _frame(2)
    res = dd.from_pandas(pdf, npartitions=2).nanstats.groupby("k").median(nan_policy="raise")
    with pytest.raises(na.NaNError, match="column 'x'"):
        res.compute()


def _raising_frame() -> pd.DataFrame:
    # the first NaN of "x" (row 'r2', group 9) is in the first partition; later
    # partitions hold NaNs of groups the shuffle may put first; "y" raises later
    return pd.DataFrame({
        "k": [9, 9, 9, 1, 1, 2, 9, 2, 1, 5, 9, 2],
        "x": [1.0, 2.0, np.nan, np.nan, 1.0, np.nan, np.nan, 3.0, np.nan, 4.0, 1.0, 2.0],
        "y": [np.nan, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 1.0, 2.0],
    }, index=[f"r{i}" for i in range(12)])


@pytest.mark.parametrize("cols", [["k", "x", "y"], ["k", "y", "x"]])
@pytest.mark.parametrize("npartitions", [1, 3, 4])
def test_groupby_raise_names_pandas_first_group_and_row(cols, npartitions):
    ddf = dd.from_pandas(_raising_frame()[cols], npartitions=npartitions)
    pdf = ddf.compute()  # the rows in the dask frame's order (from_pandas sorts)
    with pytest.raises(na.NaNError) as want:
        pdf.groupby("k").nanstats.median(nan_policy="raise")
    for lazy in (ddf.nanstats.groupby("k").median(nan_policy="raise"),
                 ddf.groupby("k").nanstats.median(nan_policy="raise")):
        with pytest.raises(na.NaNError) as got:
            lazy.compute()
        assert str(got.value) == str(want.value)
        assert got.value.group == want.value.group
        assert got.value.position == want.value.position


def test_groupby_raise_signaling_first_and_dropped_keys():
    pdf = _raising_frame()
    pdf["k"] = pdf["k"].astype(float)
    pdf.loc["r2", "k"] = np.nan  # its NaN is not in any group (dropna): not reported
    y = pdf["y"].to_numpy().copy()
    y[7] = na.make_nan(3, signaling=True)
    pdf["y"] = y
    assert na.issignaling(pdf["y"].to_numpy()[7])
    pdf = dd.from_pandas(pdf, npartitions=3).compute()  # the dask frame's row order
    for policy in ("raise", "omit"):
        with pytest.raises(na.NaNError) as want:
            pdf.groupby("k").nanstats.median(nan_policy=policy)
        got_lazy = dd.from_pandas(pdf, npartitions=3).nanstats.groupby("k").median(
            nan_policy=policy)
        with pytest.raises(na.NaNError) as got:
            got_lazy.compute()
        assert type(got.value) is type(want.value)
        assert str(got.value) == str(want.value)


@pytest.mark.parametrize("how", ["describe", "nan_report", "agg_list", "agg_dict"])
def test_groupby_describe_report_agg_equal_pandas(how):
    pdf = _frame(3, 120)
    ddf = dd.from_pandas(pdf, npartitions=3)
    calls = {
        "describe": lambda g: g.describe([0.1, 0.9]),
        "nan_report": lambda g: g.nan_report(),
        "agg_list": lambda g: g.agg(["median", "iqr", "count"], nan_policy="omit"),
        "agg_dict": lambda g: g.agg({"x": ["median", "max"], "y": "mean"}, nan_policy="omit"),
    }
    want = calls[how](pdf.groupby("k").nanstats)
    for g in (ddf.groupby("k").nanstats, ddf.nanstats.groupby("k")):
        got = calls[how](g).compute().sort_index()
        pd.testing.assert_frame_equal(got, want, check_exact=True)


def test_groupby_agg_raise_names_pandas_first_row():
    ddf = dd.from_pandas(_raising_frame(), npartitions=3)
    with pytest.raises(na.NaNError) as want:
        ddf.compute().groupby("k").nanstats.agg(["max", "median"], nan_policy="raise")
    with pytest.raises(na.NaNError) as got:
        ddf.groupby("k").nanstats.agg(["max", "median"], nan_policy="raise").compute()
    assert str(got.value) == str(want.value)
