"""xarray grouped statistics on dask: the same numbers and the same errors as in memory.

The in-memory grouped path scans the variable with the grouped dim first, so its
errors name the first offending value in that order, its group and the count in that
group and column; the dask path must name the same whatever the chunking.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import nanaccess.xarray  # noqa: F401
from nanaccess import NaNError, SignalingNaNError, make_nan

CHUNKINGS = [{"time": 7}, {"time": 7, "y": 2}, {"y": 1, "x": 3}, {"time": 40}, {"x": 1}]
ORDERS = [("time", "y", "x"), ("y", "x", "time"), ("y", "time", "x")]


def grid(order=("time", "y", "x"), seed=0, dtype=np.float64) -> xr.DataArray:
    rng = np.random.default_rng(seed)
    t = pd.date_range("2000-01-20", periods=40)  # January and February
    x = rng.standard_normal((40, 3, 4)).astype(dtype)
    da = xr.DataArray(x, dims=("time", "y", "x"),
                      coords={"time": t, "y": [10, 20, 30], "x": list("abcd")}, name="v")
    return da.transpose(*order)


def facts(fn):
    """(class, message, position, group, count) of the error ``fn`` raises."""
    with pytest.raises(NaNError) as info:
        fn()
    e = info.value
    return type(e), str(e), e.position, e.group, e.count


def put(da, where: dict, value) -> None:
    """Set one element, named by its labels (the data is NumPy-backed)."""
    idx = tuple(int(da.indexes[d].get_loc(where[d])) for d in da.dims)
    da.values[idx] = value


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("chunks", CHUNKINGS)
def test_raise_names_what_the_in_memory_path_names(order, chunks):
    da = grid(order)
    # the earliest in time is not the first in C order over (y, x) or (time, y, x) cells
    put(da, {"time": "2000-02-10", "y": 10, "x": "a"}, np.nan)
    put(da, {"time": "2000-01-25", "y": 30, "x": "d"}, np.nan)
    put(da, {"time": "2000-01-27", "y": 30, "x": "d"}, -np.nan)
    put(da, {"time": "2000-01-26", "y": 20, "x": "c"}, np.nan)
    want = facts(lambda: da.nanstats.groupby("time.month").median(nan_policy="raise"))
    assert want[3] == 1 and want[4] == 2  # January, and two NaNs in its cell (y=30, x=d)
    lazy = da.chunk(chunks).nanstats.groupby("time.month").median(nan_policy="raise")
    assert facts(lazy.compute) == want
    # a part of the result raises the same error: every block checks the first record
    assert facts(lazy.isel(y=0, x=0).compute) == want


@pytest.mark.parametrize("chunks", CHUNKINGS)
def test_signaling_nans_come_first_under_every_policy(chunks):
    da = grid(("y", "time", "x"), seed=1)
    put(da, {"time": "2000-01-21", "y": 10, "x": "a"}, np.nan)  # a NaN first, then
    put(da, {"time": "2000-02-20", "y": 30, "x": "b"}, make_nan(3, signaling=True))
    for policy in ("raise", "omit", "propagate"):
        want = facts(lambda p=policy: da.nanstats.groupby("time.month").quantile(
            [0.2, 0.5], nan_policy=p))
        assert want[0] is SignalingNaNError and want[3] == 2
        lazy = da.chunk(chunks).nanstats.groupby("time.month").quantile([0.2, 0.5],
                                                                         nan_policy=policy)
        assert facts(lazy.compute) == want


@pytest.mark.parametrize("chunks", CHUNKINGS)
@pytest.mark.parametrize("policy", ["omit", "propagate", "totalorder", "smallest"])
def test_values_equal_the_in_memory_path(chunks, policy):
    da = grid(("y", "time", "x"), seed=2, dtype=np.float32)
    da.values[da.values > 1.2] = np.nan
    da.values[:, :, 1] = np.nan  # whole cells without numbers
    for stat, kw in (("median", {}), ("quantile", {"q": [0.1, 0.9]}), ("max", {})):
        want = getattr(da.nanstats.groupby("time.month"), stat)(nan_policy=policy, **kw)
        lazy = getattr(da.chunk(chunks).nanstats.groupby("time.month"), stat)(
            nan_policy=policy, **kw)
        assert lazy.chunks is not None  # still lazy
        got = lazy.compute()
        assert got.dims == want.dims and got.dtype == want.dtype
        assert got.values.tobytes() == want.values.tobytes()


def test_blocks_of_cells_are_smaller_than_an_input_chunk():
    da = grid().chunk({"time": 10})
    lazy = da.nanstats.groupby("time.month").median(nan_policy="omit")
    assert lazy.data.numblocks[0] == 1  # the months of a block of cells in one task
    assert lazy.compute().values.tobytes() == grid().nanstats.groupby("time.month").median(
        nan_policy="omit").values.tobytes()


@pytest.mark.parametrize("chunks", CHUNKINGS)
def test_a_dataset_raises_its_first_variables_error(chunks):
    a, b = grid(seed=3), grid(("y", "x", "time"), seed=4)
    put(b, {"time": "2000-01-21", "y": 10, "x": "a"}, np.nan)  # b: the earliest NaN
    put(a, {"time": "2000-02-25", "y": 30, "x": "d"}, np.nan)
    ds = xr.Dataset({"a": a, "b": b})
    want = facts(lambda: ds.nanstats.groupby("time.month").median(nan_policy="raise"))
    assert "variable 'a'" in want[1] and want[3] == 2
    lazy = ds.chunk(chunks).nanstats.groupby("time.month").median(nan_policy="raise")
    assert facts(lazy.compute) == want
    assert facts(lazy["b"].compute) == want  # b's blocks check a's record first
    only_b = xr.Dataset({"b": b}).chunk(chunks).nanstats.groupby("time.month")
    assert "variable 'b'" in facts(only_b.median(nan_policy="raise").compute)[1]
