"""xarray groupby / resample through the grouped kernel, shaped as xarray gives them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from xr_helpers import assert_matches_xarray

import nanaccess.xarray  # noqa: F401


@pytest.fixture(autouse=True)
def _plain_xarray_references():
    """xarray's numbagg/flox engines JIT-compile for tens of seconds on first use; the
    references here use xarray's plain NumPy paths (same numbers, same labels)."""
    with xr.set_options(use_numbagg=False, use_bottleneck=False, use_flox=False):
        yield


def make_da(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(60, 4))
    x[rng.random(x.shape) < 0.2] = np.nan
    t = pd.date_range("2024-01-20", periods=60, freq="13h")
    return xr.DataArray(x, dims=("time", "x"),
                        coords={"time": t, "x": [1, 2, 3, 4], "lab": ("x", list("abcd"))},
                        name="v", attrs={"units": "m"})


@pytest.mark.parametrize("stat", ["median", "min", "max", "mean"])
def test_groupby_identical_to_xarray(stat):
    a = make_da()
    got = getattr(a.nanstats.groupby("time.day"), stat)(nan_policy="omit")
    want = getattr(a.groupby("time.day"), stat)()
    assert_matches_xarray(got, want)
    got_t = getattr(a.T.nanstats.groupby("time.month"), stat)(nan_policy="omit")
    assert_matches_xarray(got_t, getattr(a.T.groupby("time.month"), stat)())


def test_groupby_quantile_identical_to_xarray():
    a = make_da()
    got = a.nanstats.groupby("time.month").quantile([0.25, 0.75], nan_policy="omit")
    want = a.groupby("time.month").quantile([0.25, 0.75])
    assert_matches_xarray(got, want.transpose(*got.dims))


@pytest.mark.parametrize("chunks", [None, {"time": 17}])
def test_resample_identical_to_xarray(chunks):
    a = make_da()
    src = a.chunk(chunks) if chunks else a
    got = src.nanstats.resample(time="2D").median(nan_policy="omit")
    assert_matches_xarray(got.compute(), a.resample(time="2D").median())


def test_groupby_dataset():
    a = make_da()
    ds = a.to_dataset()
    assert_matches_xarray(ds.nanstats.groupby("time.month").max(nan_policy="omit"),
                                ds.groupby("time.month").max())


# ------------------------------------------------- layouts: as xarray lays them out


def make_layout_ds():
    rng = np.random.default_rng(3)
    v = rng.standard_normal((2, 3, 4))
    v[0, 0, 0] = np.nan
    da = xr.DataArray(
        v, dims=("t", "y", "x"),
        coords={"t": [10, 20], "y": [1, 2, 3], "x": [5, 6, 7, 8],
                "lab": (("y", "x"), rng.integers(0, 3, (3, 4))), "aux": ("t", [1, 2])},
        name="v", attrs={"units": "m"})
    ds = da.to_dataset()
    ds["w"] = ("t", [1.0, 2.0], {"units": "s"})  # lacks the group dims: broadcast
    ds["z"] = ("y", [1.0, 2.0, 3.0])  # only some of the group dims (2-D case)
    ds["i"] = ("t", [1, 2])
    ds["a"] = ((), 5.0)
    return ds


LAYOUT_STATS = [("median", {}), ("sum", {}), ("max", {}),
                ("quantile", {"q": [0.25, 0.5]}), ("quantile", {"q": 0.5})]


@pytest.mark.parametrize("use_flox", [True, False])
@pytest.mark.parametrize("stat,kw", LAYOUT_STATS, ids=lambda v: str(v))
@pytest.mark.parametrize("case", ["Dataset 1-D group", "DataArray 1-D group",
                                  "Dataset 2-D group", "DataArray 2-D group"])
def test_groupby_layout_identical_to_xarray(case, stat, kw, use_flox):
    """Dims order of every variable (group dim in place for a DataArray, first for a
    Dataset, "quantile" last), variables lacking the group dim broadcast, groups over
    several dims stacked: as xarray's own groupby gives them."""
    if use_flox and not _has_flox():
        pytest.skip("flox is not installed")
    if case.startswith("Dataset") and not use_flox and (stat == "quantile" or "2-D" in case):
        pytest.skip("xarray's layout here differs between its engines; nanaccess "
                    "follows the default engine (flox, when installed)")
    ds = make_layout_ds()
    if "1-D" in case:
        ds = ds.drop_vars("lab").assign_coords(g=("y", [0, 1, 0]))
        key = "g"
    else:
        key = "lab"
    obj = ds if case.startswith("Dataset") else ds["v"]
    with xr.set_options(use_flox=use_flox):
        want = getattr(obj.groupby(key), stat)(**kw)
    got = getattr(obj.nanstats.groupby(key), stat)(nan_policy="omit", **kw)
    assert_matches_xarray(got, want)
    if isinstance(got, xr.Dataset):
        assert {k: v.dims for k, v in got.data_vars.items()} == {
            k: v.dims for k, v in want.data_vars.items()}


def _has_flox() -> bool:
    try:
        import flox  # noqa: F401
    except ImportError:
        return False
    return True


def test_grouped_describe_equals_describe_of_each_group():
    da = make_da(7)
    got = da.nanstats.groupby("time.day").describe([0.1, 0.9])
    assert got.dims[0] == "statistic"
    for day in got["day"].values:
        sub = da.isel(time=np.flatnonzero(da["time.day"].values == day))
        want = sub.nanstats.describe("time", percentiles=[0.1, 0.9])
        np.testing.assert_array_equal(got.sel(day=day).values, want.values)
    lazy = da.chunk({"time": 13, "x": 2}).nanstats.groupby("time.day").describe([0.1, 0.9])
    np.testing.assert_array_equal(lazy.compute().values, got.values)


def test_grouped_nan_report_equals_pandas_grouped_report():
    da = make_da(8)
    got = da.nanstats.groupby("time.day").nan_report()
    df = da.to_dataframe().reset_index()
    df["day"] = df["time"].dt.day
    want = df.groupby("day")[["v"]].nanstats.nan_report()["v"]
    pd.testing.assert_frame_equal(got, want, check_names=False, check_index_type=False)
    ds = xr.Dataset({"v": da, "w": da * 2})
    both = ds.nanstats.groupby("time.day").nan_report()
    assert list(both.columns.levels[0]) == ["v", "w"]
    pd.testing.assert_frame_equal(both["v"], got)


def test_dask_grouped_median_spreads_blocks_of_cells():
    da = make_da(9)
    lazy = da.chunk({"time": 10})  # the grouped dim in many chunks
    got = lazy.nanstats.groupby("time.month").median(nan_policy="omit")
    assert got.data.numblocks[0] == 1  # the groups of a block of cells in one task
    np.testing.assert_array_equal(
        got.values, da.nanstats.groupby("time.month").median(nan_policy="omit").values)
    # a tight chunk budget: blocks of cells, several tasks, same numbers
    from nanaccess.dask.final import bounded_whole_axes

    x = bounded_whole_axes(lazy.data, (0,), limit=60 * 8)
    assert x.numblocks == (1, 4) and x.chunksize == (60, 1)


def test_month_grid_benchmark_body_runs_small():
    """The in-memory month-grouped row of benchmarks/bench_groupby.py, tiny (it checks
    each month against NumPy's nanmedian bit for bit; no timing asserted)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_groupby.py"
    spec = importlib.util.spec_from_file_location("bench_groupby_grid", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = mod.month_grid((40, 3, 4), repeats=1)
    assert out["shape"] == [40, 3, 4] and out["ratio"] > 0
