"""The xarray adapter relies on xarray internals: fail loudly if xarray moves them.

Every private name nanaccess reads is in ``nanaccess/xarray/_xr_internals.py``; each
test here checks one of them against xarray's own public result, so an xarray
upgrade that moves one fails here with its name rather than deep in a statistic.
"""

from __future__ import annotations

import ast
import pathlib

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import nanaccess.xarray  # noqa: F401  (registers .nanstats)
from nanaccess.xarray import _xr_internals as internals

PACKAGE = pathlib.Path(nanaccess.xarray.__file__).parent


def test_keep_attrs_option_is_readable():
    assert internals.default_keep_attrs() is True
    with xr.set_options(keep_attrs=False):
        assert internals.default_keep_attrs() is False
    with xr.set_options(keep_attrs=True):
        assert internals.default_keep_attrs() is True


def test_temp_dataset_round_trip():
    da = xr.DataArray([1.0, 2.0], dims="t", coords={"t": [10, 20], "c": ("t", [1, 2])},
                      name="v", attrs={"units": "K"})
    ds = internals.to_temp_dataset(da)
    assert isinstance(ds, xr.Dataset) and len(ds.data_vars) == 1
    xr.testing.assert_identical(internals.from_temp_dataset(da, ds), da)
    unnamed = da.rename(None)
    xr.testing.assert_identical(
        internals.from_temp_dataset(unnamed, internals.to_temp_dataset(unnamed)), unnamed)


def test_replace_with_new_dims_builds_a_reduced_dataset():
    ds = xr.Dataset({"a": (("t", "x"), np.arange(6.0).reshape(3, 2))},
                    coords={"t": [1, 2, 3], "x": ["p", "q"]}, attrs={"k": 1})
    reduced = {"a": ds["a"].variable.reduce(np.sum, dim="t"), "x": ds["x"].variable}
    out = internals.replace_with_new_dims(
        ds, reduced, coord_names={"x"}, attrs=ds.attrs,
        indexes={k: v for k, v in ds.xindexes.items() if k in reduced})
    xr.testing.assert_identical(out, ds.sum("t"))


@pytest.mark.parametrize("kind", ["groupby", "resample", "virtual", "stacked"])
def test_encoded_groups_match_xarray_results(kind):
    t = pd.date_range("2024-01-30", periods=6, freq="12h")
    da = xr.DataArray(np.arange(6.0), dims="time",
                      coords={"time": t, "g": ("time", ["b", "a", "b", "c", "a", "b"])})
    if kind == "groupby":
        gb, want = da.groupby("g"), da.groupby("g").sum()
    elif kind == "resample":
        gb, want = da.resample(time="1D"), da.resample(time="1D").sum()
    elif kind == "virtual":
        gb, want = da.groupby("time.day"), da.groupby("time.day").sum()
    else:
        d2 = xr.DataArray(np.arange(6.0).reshape(2, 3), dims=("y", "x"),
                          coords={"k": (("y", "x"), [[1, 2, 1], [2, 2, 1]])})
        gb, want = d2.groupby("k"), d2.groupby("k").sum()
        da = d2
    codes, full_index, unique_coord = internals.encoded_groups(gb)
    assert isinstance(codes, xr.DataArray) and codes.dtype.kind in "iu"
    assert isinstance(full_index, pd.Index)
    assert set(codes.dims) <= set(da.dims)
    # each group's sum from the codes equals xarray's own result
    flat = np.asarray(codes.values).ravel()
    vals = np.asarray(da.transpose(*codes.dims).values).ravel()
    sums = np.bincount(flat[flat >= 0], vals[flat >= 0], minlength=len(full_index))
    dim = want.dims[0]
    got = pd.Series(sums, index=full_index)
    labels = np.asarray(unique_coord.values) if kind != "resample" else np.asarray(full_index)
    np.testing.assert_array_equal(got.loc[labels].to_numpy(), want.values)
    np.testing.assert_array_equal(labels, want[dim].values)


def test_internals_error_is_loud():
    class Fake:
        pass

    for call in (lambda: internals.encoded_groups(Fake()),
                 lambda: internals.to_temp_dataset(Fake()),
                 lambda: internals.from_temp_dataset(Fake(), None),
                 lambda: internals.replace_with_new_dims(Fake(), {}, coord_names=set(),
                                                         attrs=None, indexes={})):
        with pytest.raises(internals.InternalsError, match="xarray changed its internals"):
            call()


def _private_uses(path: pathlib.Path) -> set[str]:
    """``xarray.*`` imports and private attributes (``obj._x``, ``gb.encoded``) read on
    anything but ``self`` / ``cls`` / a module, in one module."""
    tree = ast.parse(path.read_text())
    modules = {a.asname or a.name for n in ast.walk(tree)
               if isinstance(n, ast.Import | ast.ImportFrom) for a in n.names}
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and (
                (node.attr.startswith("_") and not node.attr.startswith("__"))
                or node.attr == "encoded"):
            base = node.value
            if not (isinstance(base, ast.Name) and base.id in {"self", "cls"} | modules):
                found.add(node.attr)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("xarray."):
            found.add(node.module)
    return found


def test_only_the_internals_module_touches_xarray_privates():
    for path in PACKAGE.glob("*.py"):
        if path.name == "_xr_internals.py":
            continue
        uses = _private_uses(path)
        assert not uses, f"{path.name} touches xarray internals {uses}: use _xr_internals"


def test_rolling_groupby_resample_classes_are_read_by_name():
    """The by-name lookups must find xarray's classes themselves (not the instance
    fallback): if xarray moves a module or renames a class, this fails loudly."""
    import importlib

    da = xr.DataArray([0.0, 1.0], dims="t",
                      coords={"t": np.array(["2024-01-01", "2024-01-02"], "M8[ns]")})
    ds = da.to_dataset(name="v")
    rolling = importlib.import_module("xarray.computation.rolling")
    assert (rolling.DataArrayRolling, rolling.DatasetRolling, rolling.DataArrayCoarsen,
            rolling.DatasetCoarsen) == (type(da.rolling(t=1)), type(ds.rolling(t=1)),
                                        type(da.coarsen(t=1)), type(ds.coarsen(t=1)))
    assert internals.window_classes() == (type(da.rolling(t=1)), type(ds.rolling(t=1)),
                                    type(da.coarsen(t=1)), type(ds.coarsen(t=1)))
    groupby = importlib.import_module("xarray.core.groupby")
    resample = importlib.import_module("xarray.core.resample")
    assert (groupby.DataArrayGroupBy, groupby.DatasetGroupBy) == (
        type(da.groupby("t")), type(ds.groupby("t")))
    assert (resample.DataArrayResample, resample.DatasetResample) == (
        type(da.resample(t="1D")), type(ds.resample(t="1D")))
    assert internals.grouped_object(da.groupby("t")) is da
    assert internals.grouped_object(ds.resample(t="1D")) is ds


def test_weighted_classes_and_parts_are_xarrays():
    """``WEIGHTED_MODULE`` names the module of xarray's weighted objects (the accessor
    registers when it is imported), the classes are found by name, and ``.obj`` /
    ``.weights`` are the data and weights the object was made with."""
    import importlib
    import sys

    da = xr.DataArray([1.0, 2.0], dims="t")
    w = xr.DataArray([1.0, 3.0], dims="t")
    wda, wds = da.weighted(w), da.to_dataset(name="v").weighted(w)
    assert internals.WEIGHTED_MODULE in sys.modules
    mod = importlib.import_module(internals.WEIGHTED_MODULE)
    assert (mod.DataArrayWeighted, mod.DatasetWeighted) == (type(wda), type(wds))
    assert internals.weighted_classes() == (type(wda), type(wds))
    data, weights = internals.weighted_parts(wda)
    assert data is da
    xr.testing.assert_identical(weights, w)
    assert hasattr(wda, "nanstats") and hasattr(wds, "nanstats")
