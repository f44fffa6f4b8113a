"""Lazy ewm on dask (issue 23): the double-double state travels, bit-equal to in memory."""

from __future__ import annotations

import dask.array as da
import numpy as np
import pytest
import xarray as xr

import nanaccess as na
from nanaccess.core.ewm import ewm_stat
from nanaccess.dask.ewm import array_ewm


def _data():
    rng = np.random.default_rng(0)
    x = 1e6 + rng.normal(size=(3, 200))
    x[rng.random(x.shape) < 0.1] = np.nan
    x[2, 150] = np.inf - np.inf  # an arithmetic NaN
    x[1, 60:140] = np.nan  # a long gap
    return x


@pytest.mark.parametrize("stat", ["mean", "var", "std"])
@pytest.mark.parametrize("policy", ["omit", "propagate"])
@pytest.mark.parametrize("ignore_na,adjust", [(True, True), (False, True), (True, False)])
def test_chunks_equal_in_memory_bit_for_bit(stat, policy, ignore_na, adjust):
    x = _data()
    for ax in (0, 1):
        got = array_ewm(da.from_array(x, chunks=(2, 17)), stat, axis=ax, alpha=0.2,
                        ignore_na=ignore_na, adjust=adjust, min_periods=3, policy=policy)
        want = ewm_stat(x, stat, axis=ax, alpha=0.2, ignore_na=ignore_na, adjust=adjust,
                        min_periods=3, policy=policy)[0]
        assert got.compute().tobytes() == want.tobytes()


def test_xarray_dask_backed_is_lazy_and_raise_names_a_nan():
    x = _data()
    a = xr.DataArray(x, dims=("y", "t"), attrs={"units": "K"})
    lazy = a.chunk({"t": 30}).nanstats.ewm("t", stat="var", span=5, nan_policy="omit")
    assert lazy.chunks is not None
    xr.testing.assert_identical(lazy.compute(),
                                a.nanstats.ewm("t", stat="var", span=5, nan_policy="omit"))
    with pytest.raises(na.NaNError, match="position"):
        array_ewm(da.from_array(x, chunks=(3, 17)), "mean", alpha=0.2,
                  policy="raise").compute()
    with pytest.raises(NotImplementedError, match="ignore_na"):
        array_ewm(da.from_array(x, chunks=17), "mean", alpha=0.2, adjust=False,
                  ignore_na=False)
