"""The table-generated xarray methods: iqr / mad against scipy, keepdims and dims as
xarray, keywords a host cannot honour refused, grouped count, describe's rows."""

from __future__ import annotations

import dask.array as da
import numpy as np
import pandas as pd
import pytest
import scipy.stats
import xarray as xr
from xr_helpers import raise_if_dask_computes

import nanaccess as na
import nanaccess.xarray  # noqa: F401  (registers .nanstats)
from nanaccess._describe import row_labels
from nanaccess.xarray import reduce


@pytest.fixture(autouse=True)
def _plain_xarray_references():
    with xr.set_options(use_numbagg=False, use_bottleneck=False, use_flox=False):
        yield


DIMS = ("time", "lat", "lon")


def make_da(chunks=None, nan=True, seed=1):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(24, 5, 3))
    if nan:
        x[rng.random(x.shape) < 0.2] = np.nan
    arr = xr.DataArray(
        x, dims=DIMS,
        coords={"time": pd.date_range("2024-01-28", periods=24, freq="18h"),
                "lat": np.linspace(-10, 10, 5), "lon": [10.0, 20.0, 30.0],
                "label": ("lat", list("abcde"))},
        name="temp", attrs={"units": "K"},
    )
    return arr.chunk(chunks) if chunks else arr


def _axes(dim):
    if dim is None:
        return None
    return tuple(DIMS.index(d) for d in ([dim] if isinstance(dim, str) else dim))


def _labels_as(got, ref):
    """Dims, coords, name and attrs of ``got`` are those of xarray's ``ref``."""
    xr.testing.assert_identical(got.copy(data=np.asarray(ref.values)), ref)


@pytest.mark.parametrize("dim", ["time", ["lat", "lon"], None])
@pytest.mark.parametrize("chunks", [None, {"time": 7, "lat": 2}])
def test_iqr_and_mad_equal_scipy_omit(dim, chunks):
    a = make_da(chunks)
    x = make_da().values
    with raise_if_dask_computes():
        iqr = a.nanstats.iqr(dim, nan_policy="omit")
        iqr_nearest = a.nanstats.iqr(dim, rng=(10, 90), method="nearest", nan_policy="omit")
        mad = a.nanstats.mad(dim, nan_policy="omit")
        mad_normal = a.nanstats.mad(dim, scale="normal", nan_policy="omit")
    assert all(isinstance(r.data, da.Array) == bool(chunks)
               for r in (iqr, iqr_nearest, mad, mad_normal))
    ax = _axes(dim)
    np.testing.assert_allclose(iqr.values, scipy.stats.iqr(x, axis=ax, nan_policy="omit"),
                               rtol=1e-14)
    np.testing.assert_allclose(
        iqr_nearest.values,
        scipy.stats.iqr(x, axis=ax, rng=(10, 90), interpolation="nearest", nan_policy="omit"),
        rtol=1e-14)
    np.testing.assert_allclose(
        mad.values, scipy.stats.median_abs_deviation(x, axis=ax, nan_policy="omit"), rtol=1e-14)
    np.testing.assert_allclose(
        mad_normal.values,
        scipy.stats.median_abs_deviation(x, axis=ax, scale="normal", nan_policy="omit"),
        rtol=1e-14)
    ref = make_da().median(dim)
    for r in (iqr, iqr_nearest, mad, mad_normal):
        _labels_as(r.compute(), ref)


def test_iqr_mad_keep_attrs_and_dataset_as_xarray():
    a = make_da()
    _labels_as(a.nanstats.iqr("time", nan_policy="omit", keep_attrs=False),
               a.median("time", keep_attrs=False))
    ds = xr.Dataset({"temp": a, "flag": ("lat", np.array(list("vwxyz"))),
                     "word": ("time", np.array(["w"] * 24))}, attrs={"t": 1})
    got = ds.nanstats.mad("time", nan_policy="omit")
    want = ds.median("time")  # "word" is left out, "flag" (not reduced) kept, as xarray
    assert set(got.data_vars) == set(want.data_vars) == {"temp", "flag"}
    xr.testing.assert_identical(
        got.copy(data={"temp": want["temp"].values, "flag": want["flag"].values}), want)
    np.testing.assert_allclose(
        got["temp"].values,
        scipy.stats.median_abs_deviation(a.values, axis=0, nan_policy="omit"), rtol=1e-14)


@pytest.mark.parametrize("policy", ["raise", "propagate", "smallest", "largest",
                                    "totalorder"])
def test_iqr_mad_every_policy_equal_core(policy):
    a = make_da(nan=policy != "raise")
    for stat in ("iqr", "mad"):
        got = getattr(a.nanstats, stat)("time", nan_policy=policy).values
        want = getattr(na, stat)(a.values, axis=0, nan_policy=policy)
        np.testing.assert_array_equal(got.view("u8"), np.asarray(want).view("u8"))


@pytest.mark.filterwarnings("ignore:After omitting NaNs")  # scipy, on all-NaN bins
@pytest.mark.parametrize("chunks", [None, {"time": 7}])
def test_grouped_iqr_mad_equal_scipy_per_group(chunks):
    a = make_da(chunks)
    x = make_da().values
    with raise_if_dask_computes():
        gi = a.nanstats.groupby("time.month").iqr(nan_policy="omit")
        rm = a.nanstats.resample(time="2D").mad(scale="normal", nan_policy="omit")
    months = make_da()["time.month"].values
    for m in np.unique(months):
        np.testing.assert_allclose(
            gi.sel(month=m).values,
            scipy.stats.iqr(x[months == m], axis=0, nan_policy="omit"), rtol=1e-14)
    _labels_as(gi.compute(), make_da().groupby("time.month").median())
    bins = make_da().resample(time="2D").median()
    starts = pd.DatetimeIndex(bins.time.values)
    t = pd.DatetimeIndex(make_da().time.values)
    for i, start in enumerate(starts):
        sel = (t >= start) & (t < start + pd.Timedelta("2D"))
        np.testing.assert_allclose(
            rm.isel(time=i).values,
            scipy.stats.median_abs_deviation(x[sel], axis=0, scale="normal",
                                             nan_policy="omit"), rtol=1e-14)
    _labels_as(rm.compute(), bins)


def test_grouped_count_as_xarray():
    a = make_da()
    xr.testing.assert_identical(a.nanstats.groupby("time.month").count(),
                                a.groupby("time.month").count())
    # empty resample bins count 0, as pandas (xarray's own NumPy path fills NaN there)
    b = a.isel(time=[0, 1, 10, 11])
    got = b.nanstats.resample(time="1D").count()
    want = b.resample(time="1D").count()
    assert got.dtype == np.int64 and int(got.isel(time=1).max()) == 0
    xr.testing.assert_identical(got, want.fillna(0).astype(np.int64))


@pytest.mark.parametrize("chunks", [None, {"time": 7}])
@pytest.mark.parametrize("stat", ["median", "mean", "max", "std", "count", "iqr"])
def test_keepdims_as_xarray(stat, chunks):
    a = make_da(chunks, nan=False)
    with raise_if_dask_computes():
        got = getattr(a.nanstats, stat)(["time", "lon"], keepdims=True)
    ref = make_da(nan=False).median(["time", "lon"], keepdims=True)
    assert got.shape == ref.shape == (1, 5, 1)
    _labels_as(got.compute(), ref)
    ds = make_da(nan=False).to_dataset()
    got_ds = getattr(ds.nanstats, stat)("time", keepdims=True)
    ref_ds = ds.median("time", keepdims=True)
    xr.testing.assert_identical(got_ds.copy(data={"temp": ref_ds["temp"].values}), ref_ds)


def test_unknown_dims_raise_as_xarray():
    a = make_da()
    with pytest.raises(ValueError, match="not found"):
        a.median("nope")
    for call in (lambda: a.nanstats.median("nope"), lambda: a.nanstats.iqr(["time", "nope"]),
                 lambda: a.to_dataset().nanstats.mean("nope"),
                 lambda: a.nanstats.argmin("nope")):
        with pytest.raises(ValueError, match="nope"):
            call()


def test_keywords_a_host_cannot_honour_are_refused():
    a = make_da(nan=False)
    with pytest.raises(TypeError, match="keepdims"):
        a.nanstats.quantile(0.5, "time", keepdims=True)  # as xarray's quantile
    with pytest.raises(TypeError, match="ddof"):
        a.nanstats.median("time", ddof=1)
    with pytest.raises(TypeError, match="ddof"):
        reduce(a, "median", "time", ddof=1)
    with pytest.raises(TypeError, match="keepdims"):
        reduce(a, "quantile", "time", q=0.5, keepdims=True)
    with pytest.raises(TypeError, match="axis"):
        a.nanstats.median(axis=0)


def test_grouped_error_names_group_label_plainly():
    a = xr.DataArray([1.0, np.nan, 3.0, 4.0], dims="t", name="v",
                     coords={"g": ("t", np.array([1, 1, 2, 2]))})
    with pytest.raises(na.NaNError, match=r"^variable 'v' in group 1 holds 1 NaN value "
                                          r"\(first at t=1\)") as info:
        a.nanstats.groupby("g").median()
    assert info.value.group == 1


def test_describe_rows_as_every_host():
    a = make_da()
    d = a.nanstats.describe("time", nan_policy="omit", percentiles=[0.1, 0.9])
    assert d.statistic.values.tolist() == row_labels([0.1, 0.9])
    s = a.isel(lat=0, lon=0).to_series()
    want = s.nanstats.describe(percentiles=[0.1, 0.9], nan_policy="omit")
    np.testing.assert_allclose(d.isel(lat=0, lon=0).values, want.values, rtol=1e-14)
    t = xr.DataArray(np.array([1, "NaT", 3], dtype="m8[s]"), dims="t", name="when")
    dt = t.nanstats.describe(nan_policy="omit")
    assert dt.sel(statistic=["count", "nan", "missing"]).values.tolist() == [2.0, 0.0, 1.0]


def test_describe_on_dask_is_lazy():
    a = make_da({"time": 7})
    with raise_if_dask_computes():
        d = a.nanstats.describe("time", nan_policy="omit")
    assert isinstance(d.data, da.Array)
    xr.testing.assert_allclose(d.compute(), make_da().nanstats.describe("time",
                                                                        nan_policy="omit"))


def test_grouped_engine_keyword():
    a = make_da()
    gb = a.nanstats.groupby("time.month")
    want = gb.median(nan_policy="omit")
    xr.testing.assert_identical(gb.median(nan_policy="omit", engine="numpy"), want)
    xr.testing.assert_identical(gb.iqr(nan_policy="omit", engine="numpy"),
                                gb.iqr(nan_policy="omit"))
    with pytest.raises(ValueError, match="engine"):
        gb.median(nan_policy="omit", engine="fortran")
    with pytest.raises(TypeError, match="engine"):
        gb.mean(engine="numpy")  # moments have one engine: the keyword is refused
