"""xarray resample of ints near 2**63 with an empty bin, against xarray's own answers.

The grouped core keeps int picks exact and marks the bins with no value (holes);
xarray gives float64 with NaN there (its ints round to float64), and so does the
adapter (``GroupedReduced.values``), in memory and on dask.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import nanaccess.xarray  # noqa: F401

BIG = 2**63 - 1000


def _da(chunks=None) -> xr.DataArray:
    rng = np.random.default_rng(0)
    x = (BIG - rng.integers(0, 300, (6, 3))).astype(np.int64)
    x[2, 1] = 7
    t = pd.DatetimeIndex(np.array(["2024-01-01T00", "2024-01-01T12", "2024-01-03T00",
                                   "2024-01-03T01", "2024-01-04T05", "2024-01-04T06"],
                                  "M8[ns]"))  # 2024-01-02: an empty bin
    da = xr.DataArray(x, dims=("time", "x"), coords={"time": t}, name="v")
    return da if chunks is None else da.chunk(chunks)


@pytest.mark.parametrize("chunks", [None, {"time": 2}])
@pytest.mark.parametrize("stat", ["max", "min"])
def test_empty_resample_bin_as_xarray(stat, chunks):
    if chunks is not None:
        pytest.importorskip("dask")
    da = _da(chunks)
    with xr.set_options(use_flox=False, use_numbagg=False, use_bottleneck=False):
        want = getattr(da.resample(time="D"), stat)().compute()
    got = getattr(da.resample(time="D").nanstats, stat)(nan_policy="omit").compute()
    assert got.dtype == want.dtype == np.float64
    xr.testing.assert_identical(got, want)
    assert np.isnan(got.values[1]).all() and not np.isnan(got.values[[0, 2, 3]]).any()


def test_groupby_without_empty_bins_keeps_ints():
    da = _da()
    got = da.groupby("time.day").nanstats.max(nan_policy="omit")
    want = da.groupby("time.day").max()
    assert got.dtype == want.dtype == np.int64
    xr.testing.assert_identical(got, want)
    assert int(got.values.max()) > 2**53
