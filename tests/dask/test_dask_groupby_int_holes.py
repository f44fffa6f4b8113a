"""dask DataFrame groupby of ints near 2**63 with a group that has no value.

Each partition runs the pandas adapter, which keeps nullable ints exact (``<NA>`` for
the group of missing values only) and gives NumPy ints pandas' float64: equal to
pandas' own groupby on the same data.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")
import nanaccess  # noqa: E402, F401

BIG = 2**63 - 1000


def _frame(dtype: str) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    n = 80
    x = pd.array((BIG - rng.integers(0, 300, n)).astype(np.int64), dtype=dtype)
    k = rng.integers(0, 5, n)
    df = pd.DataFrame({"k": k, "x": x})
    if dtype == "Int64":
        df.loc[df["k"] == 3, "x"] = pd.NA  # a group with no value
    return df


@pytest.mark.parametrize("stat", ["max", "min"])
@pytest.mark.parametrize("dtype", ["int64", "Int64"])
def test_groupby_as_pandas(dtype, stat):
    pdf = _frame(dtype)
    got = getattr(dd.from_pandas(pdf, npartitions=3).nanstats.groupby("k"), stat)(
        nan_policy="omit").compute().sort_index()
    want = getattr(pdf.groupby("k"), stat)()
    pd.testing.assert_frame_equal(got, want)
    vals = [v for v in got["x"].tolist() if v is not pd.NA]
    assert max(vals) > 2**53 and all(isinstance(v, int) for v in vals)
    if dtype == "Int64":
        assert got.loc[3, "x"] is pd.NA
