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
