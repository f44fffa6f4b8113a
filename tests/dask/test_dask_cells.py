"""Slabs of cells (issue 17): under streaming passes, a reduction over a dim that
would bring the dim whole by an all-to-all rechunk runs slab by slab of cells, one
computation each, so a worker holds a slab's share of a lazily read input. The values
are the same bits and "raise" names the whole array's first NaN and count."""

from __future__ import annotations

import numpy as np
import pytest

import nanaccess as na
from nanaccess.dask import cells, stream

da = pytest.importorskip("dask.array")
xr = pytest.importorskip("xarray")
pd = pytest.importorskip("pandas")


@pytest.fixture
def small_budget(monkeypatch):
    """A worker budget of a fraction of a chunk, so these small grids get slabs."""
    monkeypatch.setattr(cells, "HELD_CHUNKS", 0.3)
    passes: list[str] = []
    real = stream.compute_pass

    def spy(what, *lazy):
        passes.append(what)
        return real(what, *lazy)

    monkeypatch.setattr(cells, "compute_pass", spy)
    monkeypatch.setattr(stream, "compute_pass", spy)  # the grouped slabs import it late
    return passes


def _grid(seed: int = 0, nans: bool = True) -> np.ndarray:
    x = np.random.default_rng(seed).normal(size=(40, 12, 30)).astype(np.float32)
    if nans:
        x[31, 9, 3] = np.nan  # the first in C order, in the last time chunk
        x[35, 2, 27] = x[39, 11, 29] = np.nan  # other slabs too
    return x


def _lazy(x: np.ndarray) -> da.Array:
    return da.from_array(x, chunks=(10, 12, 30)) + 0  # a graph: not persisted


def test_plan_follows_the_option_and_persistence(small_budget):
    lazy = _lazy(_grid())
    with na.option_context(dask_passes="graph"):
        assert cells.plan_slabs(lazy, (0,)) is None
    with na.option_context(dask_passes="auto"):  # the default
        axis, bounds = cells.plan_slabs(lazy, (0,))
        assert axis == 2 and bounds[0] == 0 and bounds[-1] == 30 and len(bounds) > 2
        assert cells.plan_slabs(lazy.persist(), (0,)) is None  # read from memory anyway
    with na.option_context(dask_passes="streaming"):
        assert cells.plan_slabs(lazy.persist(), (0,)) is not None


@pytest.mark.parametrize(("stat", "kw", "policy", "keepdims"), [
    ("median", {}, "omit", False), ("quantile", {"q": [0.25, 0.9]}, "propagate", True),
    ("iqr", {}, "largest", False), ("mad", {}, "omit", True), ("median_low", {}, "largest", True)])
def test_slabs_give_the_same_bits(small_budget, stat, kw, policy, keepdims):
    x = _grid(1)
    with na.option_context(dask_passes="streaming"):
        got = getattr(na, stat)(_lazy(x), axis=0, nan_policy=policy, keepdims=keepdims, **kw)
    assert len(small_budget) > 2  # several computations ran, at the call
    want = getattr(na, stat)(x, axis=0, nan_policy=policy, keepdims=keepdims, **kw)
    assert isinstance(got, da.Array)
    got = np.asarray(got.compute())
    assert got.dtype == np.asarray(want).dtype and got.tobytes() == np.asarray(want).tobytes()


def test_median_over_time_equals_numpy_on_a_sub_block(small_budget):
    x = _grid(2, nans=False)
    t = pd.date_range("2000-01-01", periods=x.shape[0], freq="D")
    a = xr.DataArray(_lazy(x), dims=("time", "lat", "lon"), coords={"time": t})
    got = a.nanstats.median("time", nan_policy="omit")  # "auto": deferred, lazy
    assert small_budget == [] and got.chunks is not None
    values = got.values  # the slabs run now, each its own computation
    assert len(small_budget) > 2
    assert values[:4, 20:].tobytes() == np.median(x[:, :4, 20:], axis=0).tobytes()


def _error(fn):
    with pytest.raises(na.NaNError) as info:
        out = fn()
        if hasattr(out, "compute"):
            out.compute()
    err = info.value
    return type(err), str(err), err.count, err.position


@pytest.mark.parametrize("stat", ["median", "mad"])
def test_raise_names_the_whole_arrays_first_and_count(small_budget, stat):
    x = _grid(3)
    want = _error(lambda: getattr(na, stat)(x, axis=0, nan_policy="raise"))
    with na.option_context(dask_passes="streaming"):
        got = _error(lambda: getattr(na, stat)(_lazy(x), axis=0, nan_policy="raise"))
    assert len(small_budget) > 2
    assert got == want and got[2] == 3 and got[3] == (31, 9, 3)


def _months(x: np.ndarray, lazy: bool) -> xr.DataArray:
    t = pd.date_range("2000-01-01", periods=x.shape[0], freq="7D")
    return xr.DataArray(_lazy(x) if lazy else x, dims=("time", "lat", "lon"),
                        coords={"time": t}, name="v")


@pytest.mark.parametrize("policy", ["omit", "propagate"])
def test_grouped_slabs_give_the_same_bits(small_budget, policy):
    x = _grid(4)
    with na.option_context(dask_passes="streaming"):
        got = _months(x, True).nanstats.groupby("time.month").median(nan_policy=policy)
    assert len(small_budget) > 2
    want = _months(x, False).nanstats.groupby("time.month").median(nan_policy=policy)
    assert got.values.tobytes() == want.values.tobytes()


def test_grouped_raise_names_the_in_memory_first(monkeypatch):
    monkeypatch.setattr(cells, "HELD_CHUNKS", 0.3)
    x = _grid(5)
    x[31, 9, 3] = 1.0  # the first left in the grouped-first order is in a later slab
    want = _error(lambda: _months(x, False).nanstats.groupby("time.month")
                  .median(nan_policy="raise"))
    with na.option_context(dask_passes="streaming"):
        got = _error(lambda: _months(x, True).nanstats.groupby("time.month")
                     .median(nan_policy="raise"))
    assert got == want
