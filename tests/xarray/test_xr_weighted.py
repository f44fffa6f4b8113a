"""``weights=`` on the xarray accessors and ``obj.weighted(w).nanstats`` (issue 13)."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

import nanaccess as na
from nanaccess.errors import NaNError


def _same(a, b) -> None:
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes(), (a, b)


def _data(seed: int = 0, nan: bool = False):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(3, 8))
    if nan:
        x[1, 2] = np.nan
    da = xr.DataArray(x, dims=("x", "t"), name="v", attrs={"units": "K"},
                      coords={"t": np.arange(10, 90, 10), "x": [1, 2, 3],
                              "lab": ("x", list("abc"))})
    w = xr.DataArray(rng.integers(0, 4, size=8).astype(np.float64), dims="t",
                     coords={"t": da.t.values})
    return da, w


@pytest.mark.parametrize("stat", ["median", "median_low", "median_high", "mean", "sum",
                                  "var", "std"])
def test_accessor_weights_equal_plain_function(stat):
    da, w = _data(1, nan=True)
    got = getattr(da.nanstats, stat)("t", weights=w, nan_policy="omit")
    want = getattr(na, stat)(da.values, axis=1, weights=w.values, nan_policy="omit")
    _same(got.values, want)
    assert got.dims == ("x",) and got.name == "v" and got.attrs == {"units": "K"}


@pytest.mark.parametrize("method", ["linear", "inverted_cdf", "nearest", "hazen"])
def test_quantile_over_both_dims_with_array_weights(method):
    da, w = _data(2)
    full = np.broadcast_to(w.values, da.shape)
    got = da.nanstats.quantile([0.2, 0.7], weights=full, method=method)
    want = na.quantile(da.values, [0.2, 0.7], weights=full, method=method)
    _same(got.values, want)
    assert got.dims == ("quantile",)


def test_inverted_cdf_equals_numpy():
    da, w = _data(3)
    w = w + 1
    got = da.nanstats.quantile(0.4, "t", weights=w, method="inverted_cdf", nan_policy="omit")
    want = np.quantile(da.values, 0.4, axis=1, weights=np.broadcast_to(w.values, da.shape),
                       method="inverted_cdf")
    _same(got.values, want)


def test_weights_broadcast_by_dim_names_not_order():
    da, _ = _data(4)
    w2 = xr.DataArray(np.arange(24, dtype=float).reshape(8, 3) % 5, dims=("t", "x"),
                      coords={"t": da.t.values, "x": da.x.values})
    got = da.nanstats.median("t", weights=w2)
    want = na.median(da.values, axis=1, weights=w2.transpose("x", "t").values)
    _same(got.values, want)


@pytest.mark.parametrize("stat,kw", [("quantile", {"q": [0.25, 0.5]}), ("quantile", {"q": 0.5}),
                                     ("mean", {}), ("sum", {}), ("var", {}), ("std", {})])
def test_weighted_object_labels_as_xarray(stat, kw):
    da, w = _data(5)
    w = w + 1
    ours = getattr(da.weighted(w).nanstats, stat)(dim="t", **kw)
    theirs = getattr(da.weighted(w), stat)(dim="t", **kw)
    if stat != "quantile":  # xarray's weighted quantile has another definition
        xr.testing.assert_allclose(ours, theirs)
    assert ours.dims == theirs.dims and ours.name == theirs.name
    assert ours.attrs == theirs.attrs
    assert set(ours.coords) == set(theirs.coords)
    for c in ours.coords:
        xr.testing.assert_identical(ours.coords[c], theirs.coords[c])
    dropped = getattr(da.weighted(w).nanstats, stat)(dim="t", keep_attrs=False, **kw)
    assert dropped.attrs == {}


def test_weighted_object_on_dataset_and_all_dims():
    da, w = _data(6)
    ds = da.to_dataset()
    got = ds.weighted(w).nanstats.median("t")
    _same(got["v"].values, na.median(da.values, axis=1, weights=w.values))
    whole = da.weighted(w).nanstats.mean()
    _same(whole.values, na.mean(da.values, weights=np.broadcast_to(w.values, da.shape)))


def test_weighted_object_median_has_no_xarray_counterpart():
    da, w = _data(7)
    assert not hasattr(da.weighted(w), "median")
    _same(da.weighted(w).nanstats.median("t").values,
          da.nanstats.quantile(0.5, "t", weights=w).values)


def test_nan_weight_under_each_policy():
    da, w = _data(8)
    w = w.copy()
    w[3] = np.nan
    with pytest.raises(NaNError, match=r"^weights holds 1 NaN value \(first at t=40\)"):
        da.nanstats.median("t", weights=w)
    with pytest.raises(ValueError, match=r"^weights holds 1 NaN value \(first at t=40\): a "
                                         "weight has no place in an order"):
        da.nanstats.median("t", weights=w, nan_policy="largest")
    assert np.isnan(da.nanstats.mean("t", weights=w, nan_policy="propagate").values).all()
    keep = ~np.isnan(w.values)
    got = da.nanstats.median("t", weights=w, nan_policy="omit")
    _same(got.values, na.median(da.values[:, keep], axis=1, weights=w.values[keep]))


def test_negative_weight_names_coordinates():
    da, w = _data(9)
    w = w.copy()
    w[5] = -1.0
    with pytest.raises(ValueError, match=r"weights must be non-negative and finite: 1 "
                                         r"weight\(s\) are not \(first at t=60: -1.0\)"):
        da.nanstats.median("t", weights=w)


def test_data_nan_names_variable_and_coordinates():
    da, w = _data(10, nan=True)
    with pytest.raises(NaNError, match=r"variable 'v' holds 1 NaN value \(first at x=2, t=30\)"):
        da.weighted(w).nanstats.mean("t")


def test_bad_weights():
    da, w = _data(11)
    with pytest.raises(ValueError, match="lacks"):
        da.nanstats.median("t", weights=xr.DataArray([1.0, 2.0], dims="z"))
    with pytest.raises(ValueError, match="coordinates do not match"):
        da.nanstats.median("t", weights=w.assign_coords(t=w.t.values + 1))
    with pytest.raises(TypeError, match="takes no weights"):
        na.xarray.reduce(da, "iqr", "t", weights=w)
    with pytest.raises(TypeError, match="must be a DataArray"):
        da.to_dataset().nanstats.median("t", weights=w.values)


def test_dask_data_and_weights_lazy_and_bit_equal():
    """issue 27: weights= on dask-backed data (and dask weights) is lazy and equal bit
    for bit to the in-memory weighted path; errors name what the eager path names."""
    pytest.importorskip("dask.array")
    from xr_helpers import raise_if_dask_computes

    da, w = _data(12, nan=True)
    w[2] = 2.0  # the NaN at t index 2 carries weight
    x = da.values.copy()
    x[0, 5] = np.inf - np.inf  # a NaN made by arithmetic (negative on x86)
    da = da.copy(data=x)
    for stat, kw in [("median", {}), ("quantile", {"q": [0.1, 0.9]}), ("mean", {}),
                     ("sum", {}), ("var", {"ddof": 1}), ("std", {})]:
        want = getattr(da.nanstats, stat)(dim="t", weights=w, nan_policy="omit", **kw)
        with raise_if_dask_computes():
            lazy = getattr(da.chunk({"t": 4}).nanstats, stat)(dim="t", weights=w.chunk(5),
                                                               nan_policy="omit", **kw)
            via = getattr(da.chunk({"t": 4}).weighted(w).nanstats, stat)(
                dim="t", nan_policy="omit", **kw)
        xr.testing.assert_identical(lazy.compute(), want)
        xr.testing.assert_identical(via.compute(), want)
        np.testing.assert_array_equal(lazy.values.view(np.uint8), want.values.view(np.uint8))
    for dtype in (np.float32, np.int64):  # integer data: no NaN, weights still lazy
        d = da.fillna(1.0).astype(dtype)
        want = d.nanstats.median("t", weights=w)
        xr.testing.assert_identical(d.chunk({"t": 3}).nanstats.median("t", weights=w).compute(),
                                    want)
    eager_msg = lazy_msg = None
    try:
        da.nanstats.median("t", weights=w, nan_policy="raise")
    except NaNError as err:
        eager_msg = str(err)
    try:
        da.chunk({"t": 4}).nanstats.median("t", weights=w, nan_policy="raise").compute()
    except NaNError as err:
        lazy_msg = str(err)
    assert eager_msg is not None and eager_msg == lazy_msg


def test_inputs_are_not_modified():
    da, w = _data(13, nan=True)
    w = w.copy()
    w[0] = np.nan
    da0, w0 = da.copy(deep=True), w.copy(deep=True)
    da.nanstats.quantile([0.1, 0.9], "t", weights=w, nan_policy="omit")
    da.weighted(w.fillna(0)).nanstats.var("t", nan_policy="propagate")
    xr.testing.assert_identical(da, da0)
    xr.testing.assert_identical(w, w0)


@pytest.mark.parametrize("first", ["xarray.computation.weighted", "nanaccess"])
def test_registered_whichever_is_imported_first(first):
    import subprocess
    import sys

    code = (f"import {first}; import nanaccess, xarray as xr; "
            "da = xr.DataArray([1.0, 2.0, 3.0], dims='t'); "
            "w = xr.DataArray([1, 1, 5], dims='t'); "
            "print(float(da.weighted(w).nanstats.median('t')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "3.0"
