"""``nan_report(dim=...)`` (issue 27): per-cell counts as an xarray object with a leading
``kind`` dimension, equal to :func:`nanaccess.nan_report` of each cell."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import nanaccess as na
import nanaccess.xarray  # noqa: F401
from nanaccess.xarray.report import KEYS


def make(dtype=np.float64):
    rng = np.random.default_rng(4)
    x = rng.normal(size=(4, 5, 6)).astype(dtype)
    x[0, 1, 2] = np.inf - np.inf  # a NaN made by arithmetic (negative on x86)
    x[1, :, 3] = np.nan
    x[2, 4, 5] = np.inf
    x[3, 0, 0] = -np.inf
    x[3, 2, 1] = na.make_nan(5, dtype=dtype)
    t = pd.date_range("2024-01-01", periods=4)
    return xr.DataArray(x, dims=("time", "lat", "lon"),
                        coords={"time": t, "lat": np.arange(5.0), "lon": np.arange(6.0),
                                "cell": (("lat", "lon"), rng.random((5, 6)))}, name="v")


@pytest.mark.parametrize("chunks", [None, {"time": 1, "lon": 4}])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("dim", ["time", ["time", "lon"], ...])
def test_report_over_dims_equals_the_plain_report_per_cell(dim, dtype, chunks):
    da = make(dtype)
    src = da.chunk(chunks) if chunks else da
    got = src.nanstats.nan_report(dim=dim)
    assert got.dims[0] == "kind" and list(got.kind.values) == list(KEYS)
    assert got.dtype == np.int64
    if chunks:
        assert hasattr(got.data, "dask")
        got = got.compute()
    red = ["time", "lat", "lon"] if dim is ... else ([dim] if isinstance(dim, str) else dim)
    keep = [d for d in da.dims if d not in red]
    moved = da.transpose(*keep, *red).values.reshape(
        [da.sizes[d] for d in keep] + [-1])
    for idx in np.ndindex(*moved.shape[:-1]):
        ref = na.nan_report(moved[idx])
        assert got.values[(slice(None),) + idx].tolist() == [ref[k] for k in KEYS]
    assert "cell" not in got.coords or not set(got.cell.dims) & set(red)


def test_report_of_dataset_keeps_every_variable_and_kind():
    da = make()
    ds = xr.Dataset({"v": da, "s": ("time", list("abcd")), "i": ("lon", np.arange(6)),
                     "d": ("time", np.array(["2024-01-01", "NaT", "NaT", "2024-01-02"],
                                            "M8[ns]"))})
    got = ds.nanstats.nan_report(dim="time")
    assert set(got.data_vars) == {"v", "s", "i", "d"}
    assert got["s"].sel(kind="numbers").item() == 0 and got["s"].sel(kind="values").item() == 4
    assert got["d"].sel(kind="missing").item() == 2
    assert got["i"].dims == ("kind", "lon")  # no reduced dim: each element reported
    np.testing.assert_array_equal(got["i"].sel(kind="numbers").values, np.ones(6))
    # without dim: the pandas table, as before
    assert isinstance(ds.nanstats.nan_report(), pd.DataFrame)


def test_grouped_report_takes_dim():
    da = make()
    got = da.groupby("time.day").nanstats.nan_report(dim=["time", "lon"])
    assert got.loc[2, "nan"] == 5  # day 2: the NaN column at lon index 3
    assert int(got["nan"].sum()) == int(np.isnan(da.values).sum())
