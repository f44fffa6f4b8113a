"""Lazy cov / corr of dask arrays: exact partials merged across chunks."""

from __future__ import annotations

import numpy as np
import pytest

import nanaccess as na
from nanaccess import NaNError

da = pytest.importorskip("dask.array")


@pytest.fixture
def data():
    rng = np.random.default_rng(4)
    x = rng.standard_normal(500) * 1e3 + 1e6
    y = 2 * x + rng.standard_normal(500)
    x[[7, 300]] = np.nan
    return x, y


@pytest.mark.parametrize("stat", ["corr", "cov"])
def test_lazy_equals_in_memory_bit_for_bit(data, stat):
    x, y = data
    lazy = getattr(na, stat)(da.from_array(x, chunks=60), da.from_array(y, chunks=77),
                             nan_policy="omit")
    assert isinstance(lazy, da.Array)
    eager = getattr(na, stat)(x, y, nan_policy="omit")
    assert np.float64(lazy.compute()).tobytes() == np.float64(eager).tobytes()


def test_raise_when_computed_with_global_position(data):
    x, y = data
    lazy = na.corr(da.from_array(x, chunks=60), da.from_array(y, chunks=60),
                   nan_policy="raise")
    with pytest.raises(NaNError, match="x holds 2 NaN values .*position 7"):
        lazy.compute()


def test_ranked_methods(data):
    x, y = data
    for method in ("spearman", "kendall"):
        lazy = na.corr(da.from_array(x, chunks=100), da.from_array(y, chunks=100),
                       method=method, nan_policy="omit")
        assert lazy.compute() == na.corr(x, y, method=method, nan_policy="omit")


def test_dask_series(data):
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    x, y = data
    ddf = dd.from_pandas(pd.DataFrame({"x": x, "y": y}), npartitions=4)
    lazy = na.corr(ddf["x"], ddf["y"], nan_policy="omit")
    assert lazy.compute() == na.corr(x, y, nan_policy="omit")
    with pytest.raises(NaNError, match="position 7"):
        na.cov(ddf["x"], ddf["y"], nan_policy="raise").compute()
