"""Issue 16 class 3: dask entry points stay lazy and take nullable / Arrow columns."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import nanaccess as na

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("pyarrow")


def _refuse(*args, **kwargs):
    raise AssertionError("computed before .compute()")


@pytest.fixture
def no_compute():
    with dask.config.set(scheduler=_refuse):
        yield


EXT = {
    "nullable_float": pd.array([1.0, None, 3.0, 4.0, 2.5], dtype="Float64"),
    "nullable_int": pd.array([2**53 + 1, None, 3, 4, 1], dtype="Int64"),
    "arrow_float": pd.array([1.0, None, 3.0, 4.0, 2.5], dtype="float64[pyarrow]"),
    "arrow_int": pd.array([5, None, 3, 4, 1], dtype="int64[pyarrow]"),
}
STATS = [("median", {}), ("mean", {}), ("min", {}), ("max", {}), ("quantile", {"q": 0.5}),
         ("quantile", {"q": [0.25, 0.75]}), ("std", {}), ("sum", {})]


def _same(a, b):
    if isinstance(b, pd.Series):
        return list(pd.Series(a).tolist()) == b.tolist()
    return (a is pd.NA and b is pd.NA) or a == b


@pytest.mark.parametrize("kind", sorted(EXT))
@pytest.mark.parametrize(("stat", "kw"), STATS)
@pytest.mark.parametrize("policy", ["omit", "propagate", "raise"])
@pytest.mark.parametrize("divisions", ["known", "unknown"])
def test_nullable_dask_series_every_policy(kind, stat, kw, policy, divisions):
    s = pd.Series(EXT[kind], name="temp")
    ds = dd.from_pandas(s, npartitions=2)
    if divisions == "unknown":
        ds = ds.clear_divisions()
    with dask.config.set(scheduler=_refuse):
        lazy = getattr(ds.nanstats, stat)(nan_policy=policy, **kw)
    if policy == "raise":
        with pytest.raises(na.NaNError, match="missing"):
            lazy.compute()
        return
    expected = getattr(s.nanstats, stat)(nan_policy=policy, **kw)
    assert _same(lazy.compute(), expected)


@pytest.mark.parametrize("kind", sorted(EXT))
def test_nullable_dask_frame_median(kind):
    pdf = pd.DataFrame({"a": EXT[kind], "b": np.arange(5.0)})
    ddf = dd.from_pandas(pdf, npartitions=2).clear_divisions()
    with dask.config.set(scheduler=_refuse):
        lazy = ddf.nanstats.median(nan_policy="omit")
    got = lazy.compute()
    want = pdf.nanstats.median(nan_policy="omit")
    assert got.tolist() == want.tolist()


X = np.array([[3.0, np.nan, 1.0, -0.0], [2.0, 0.0, -1.0, np.inf]])


@pytest.mark.parametrize("fn", ["sort", "argsort", "rank"])
@pytest.mark.parametrize("axis", [-1, 0, None])
@pytest.mark.parametrize("policy", ["totalorder", "largest", "smallest"])
def test_dask_array_sorting_is_lazy(fn, axis, policy, no_compute):
    if fn == "rank" and axis is None:
        pytest.skip("rank takes an axis")
    x = da.from_array(X, chunks=1)
    lazy = getattr(na, fn)(x, axis=axis, nan_policy=policy)
    assert isinstance(lazy, da.Array)
    with dask.config.set(scheduler="sync"):
        got = lazy.compute()
    want = getattr(na, fn)(X, axis=axis, nan_policy=policy)
    assert got.dtype == want.dtype and got.shape == lazy.shape
    assert np.array_equal(got.view(np.uint8), np.ascontiguousarray(want).view(np.uint8))


@pytest.mark.parametrize("fn", ["sort", "argsort", "rank"])
def test_dask_array_sorting_omit_is_lazy(fn, no_compute):
    x = da.from_array(X[0], chunks=2)
    lazy = getattr(na, fn)(x, nan_policy="omit")
    with dask.config.set(scheduler="sync"):
        got = lazy.compute()
    np.testing.assert_array_equal(got, getattr(na, fn)(X[0], nan_policy="omit"))


def test_dask_array_sort_raise_defers_error(no_compute):
    lazy = na.sort(da.from_array(X[0], chunks=2), nan_policy="raise")
    with dask.config.set(scheduler="sync"), pytest.raises(na.NaNError):
        lazy.compute()


def test_dask_array_sort_bad_policy_refused_now(no_compute):
    with pytest.raises(ValueError, match="no meaning for a sort"):
        na.sort(da.from_array(X[0], chunks=2), nan_policy="propagate")


def test_dask_array_quantiles_is_lazy(no_compute):
    lazy = na.quantiles(da.from_array(X[0], chunks=2), nan_policy="omit")
    assert isinstance(lazy, da.Array) and lazy.shape == (3,)


def test_dask_array_quantiles_equal_in_memory():
    got = na.quantiles(da.from_array(X[0], chunks=2), nan_policy="omit").compute()
    assert got.tolist() == na.quantiles(X[0], nan_policy="omit")
