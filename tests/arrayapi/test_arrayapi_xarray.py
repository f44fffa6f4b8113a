"""xarray objects holding array-API data (CuPy-backed xarray): ``da.nanstats`` computes
on the device and keeps the data's library, with the labels and the bits of the
NumPy-backed object, and the same labelled errors.

The array-level door (:func:`nanaccess.xarray.reduction.array_stat`) runs on every
library; whole DataArrays need a library whose dtypes are NumPy's (CuPy: on a CUDA
machine, ``benchmarks/gpu_check.sh``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nanaccess.core.reduce import reduce
from nanaccess.options import NanPolicy
from nanaccess.xarray.reduction import array_stat

from .helpers import messy, same_bits

xr = pytest.importorskip("xarray")


@pytest.mark.parametrize("stat,params", [("median", {}), ("quantile", {"q": [0.1, 0.9]}),
                                         ("std", {"ddof": 1}), ("skew", {})])
def test_array_stat_keeps_the_library(lib, stat, params):
    x = messy("float64", (6, 40), seed=2, nans="quiet")
    got = array_stat(lib.asarray(x), stat, (1,), policy=NanPolicy.OMIT, **params)
    lib.check_type(got)
    want = reduce(x, stat, axis=(1,), policy=NanPolicy.OMIT, **params).values
    assert same_bits(lib.back(got), np.asarray(want))


def test_cupy_dataarray(lib):
    if lib.name != "cupy":
        pytest.skip("whole DataArrays of a non-NumPy library: CuPy only")
    x = messy("float64", (30, 4), seed=3, nans="quiet")
    time = pd.date_range("2024-03-30", periods=30, freq="h", tz="Europe/Paris")
    host = xr.DataArray(x, dims=("time", "site"), name="temp",
                        coords={"time": time, "site": ["a", "b", "b", "c"]})
    dev = host.copy(data=lib.asarray(x))
    for stat, params in (("median", {}), ("quantile", {"q": [0.25, 0.75]}), ("mean", {})):
        got = getattr(dev.nanstats, stat)(dim="time", nan_policy="omit", **params)
        want = getattr(host.nanstats, stat)(dim="time", nan_policy="omit", **params)
        lib.check_type(got.data)
        assert same_bits(lib.back(got.data), want.values)
        assert got.dims == want.dims and got.name == want.name
        for c in want.coords:
            assert np.array_equal(np.asarray(got[c].values), np.asarray(want[c].values))
    with pytest.raises(Exception) as dev_err:
        dev.nanstats.median(dim="time", nan_policy="raise")
    with pytest.raises(Exception) as host_err:
        host.nanstats.median(dim="time", nan_policy="raise")
    assert type(dev_err.value) is type(host_err.value)
    assert str(dev_err.value) == str(host_err.value)
