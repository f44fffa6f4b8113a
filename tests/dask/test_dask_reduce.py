"""dask_reduce: every statistic of the table, lazy, bit-identical to core.reduce;
iqr/mad on dask arrays, Series and DataFrames (scipy under "omit"); the tally."""

from __future__ import annotations

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from test_dask_array import nasty, raise_if_dask_computes, same_bits

import nanaccess as na
from nanaccess import _stats
from nanaccess.core.policy import NanTally
from nanaccess.core.reduce import reduce
from nanaccess.dask.array import dask_reduce
from nanaccess.dask.frame_reduce import SERIES_STATS, frame_stat, series_stat
from nanaccess.dask.tally import global_info
from nanaccess.errors import NaNError, SignalingNaNError

POLICIES = ["propagate", "omit", "smallest", "largest", "totalorder"]


@pytest.fixture(autouse=True)
def _sync_scheduler():
    with dask.config.set(scheduler="sync"):
        yield


def _params(stat):
    return {"q": [0.2, 0.5]} if stat == "quantile" else {}


def _both(x, chunks, stat, policy, **kw):
    """(dask result, core result) or the two errors' (type, text)."""
    try:
        want = np.asarray(reduce(x, stat, policy=policy, **kw).values)
    except (NaNError, ValueError, TypeError) as e:
        want = (type(e), str(e))
    try:
        got = dask_reduce(da.from_array(x, chunks=chunks), stat, policy=policy,
                          **kw).compute()
    except (NaNError, ValueError, TypeError) as e:
        got = (type(e), str(e))
    return got, want


def _assert_same(got, want):
    if isinstance(want, tuple) or isinstance(got, tuple):
        assert got == want
    else:
        assert same_bits(got, want), (got, want)


@pytest.mark.parametrize("stat", _stats.REDUCTIONS)
@pytest.mark.parametrize("policy", POLICIES)
def test_every_statistic_equals_core_bit_for_bit(stat, policy):
    rng = np.random.default_rng(3)
    x = nasty(rng, (7, 45))
    x[2] = np.nan
    for axis, keepdims in ((None, False), (1, False), (0, True), ((0, 1), True)):
        if stat in _stats.ARG and axis is None:
            continue
        got, want = _both(x, (3, 11), stat, policy, axis=axis, keepdims=keepdims,
                          **_params(stat))
        _assert_same(got, want)


@pytest.mark.parametrize("dtype", ["f4", "f2", "i8", "u2", "?", "M8[s]", "m8[ms]"])
@pytest.mark.parametrize("stat", ["iqr", "mad"])
def test_spread_dtypes_equal_core(dtype, stat):
    rng = np.random.default_rng(4)
    if dtype[0] in "Mm":
        x = rng.integers(-1000, 1000, size=(5, 40)).astype(dtype)
        x[1, 3] = np.array("NaT", dtype=dtype)
    elif dtype == "?":
        x = rng.integers(0, 2, size=(5, 40)).astype(bool)
    elif dtype[0] in "iu":
        x = rng.integers(0, 100, size=(5, 40)).astype(dtype)
    else:
        x = nasty(rng, (5, 40), dtype)
    for policy in POLICIES + ["raise"]:
        for axis in (None, 1):
            got, want = _both(x, (2, 9), stat, policy, axis=axis)
            _assert_same(got, want)


@pytest.mark.parametrize("params", [
    {"rng": (10, 90), "method": "nearest"}, {"rng": (0, 100), "method": "midpoint"},
    {"rng": (25, 75), "method": "hazen"}, {"rng": (30, 30)},
])
def test_iqr_parameters(params):
    x = nasty(np.random.default_rng(5), (300,))
    for policy in POLICIES:
        _assert_same(*_both(x, 70, "iqr", policy, **params))


@pytest.mark.parametrize("scale", [1.0, 2.5, "normal"])
def test_mad_scale(scale):
    x = nasty(np.random.default_rng(6), (300,))
    for policy in POLICIES:
        _assert_same(*_both(x, 70, "mad", policy, scale=scale))


def test_spread_equals_scipy_under_omit():
    scipy_stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(7)
    x = rng.normal(size=(4, 500))
    x[rng.random(x.shape) < 0.1] = np.nan
    dx = da.from_array(x, chunks=(2, 90))
    np.testing.assert_allclose(dask_reduce(dx, "iqr", axis=1, policy="omit").compute(),
                               scipy_stats.iqr(x, axis=1, nan_policy="omit"), rtol=1e-15)
    np.testing.assert_allclose(
        dask_reduce(dx, "mad", axis=1, policy="omit", scale="normal").compute(),
        scipy_stats.median_abs_deviation(x, axis=1, nan_policy="omit", scale="normal"),
        rtol=1e-15)


def test_spread_errors_equal_core():
    x = np.random.default_rng(8).normal(size=60)
    x[7] = na.make_nan(1, signaling=True)
    x[9] = np.nan
    for stat in ("iqr", "mad"):
        for policy in ("omit", "raise", "totalorder"):
            _assert_same(*_both(x, 13, stat, policy))
    got, want = _both(x, 13, "iqr", "totalorder", rng=(10,))
    assert got == want and issubclass(got[0], TypeError | ValueError)
    got, want = _both(x, 13, "mad", "totalorder", scale="abnormal")
    assert got == want and got[0] is ValueError
    with pytest.raises(TypeError, match="unexpected keyword"):
        dask_reduce(da.from_array(x, chunks=13), "mad", policy="omit", rng=(1, 2))
    with pytest.raises(SignalingNaNError) as err:
        dask_reduce(da.from_array(x, chunks=13), "mad", policy="omit").compute()
    assert err.value.position == (7,)


def test_spread_of_objects_equals_core():
    x = np.array([1, 2, 3, None, 5.5, float("nan"), 7, 8], dtype=object)
    for stat in ("iqr", "mad"):
        for policy in ("omit", "propagate"):
            got = dask_reduce(da.from_array(x, chunks=3), stat, policy=policy).compute()
            want = reduce(x, stat, policy=policy).values
            assert str(float(np.asarray(got)[()])) == str(float(np.asarray(want)[()]))


@pytest.mark.parametrize("stat", _stats.REDUCTIONS)
def test_graph_construction_computes_nothing(stat):
    x = da.from_array(nasty(np.random.default_rng(9), (6, 40)), chunks=(2, 9))
    axis = 1 if stat in _stats.ARG else None
    with raise_if_dask_computes():
        r = dask_reduce(x, stat, axis=axis, policy="omit", **_params(stat))
    assert isinstance(r, da.Array)
    ds = dd.from_pandas(pd.Series(nasty(np.random.default_rng(9), (80,))), npartitions=4)
    ddf = dd.from_pandas(pd.DataFrame({"a": nasty(np.random.default_rng(1), (80,))}),
                         npartitions=4)
    if stat not in SERIES_STATS:
        return
    with raise_if_dask_computes():
        r = series_stat(ds, stat, nan_policy="omit", **({"q": 0.3} if stat == "quantile"
                                                         else {}))
        f = frame_stat(ddf, stat, False, nan_policy="omit",
                       **({"q": 0.3} if stat == "quantile" else {}))
    assert isinstance(r, da.Array) and isinstance(f, dd.Series)


def test_series_stats_cover_the_table():
    assert set(SERIES_STATS) == set(_stats.REDUCTIONS) - set(_stats.ARG)


@pytest.mark.parametrize("stat", SERIES_STATS)
def test_frame_and_series_functions_equal_core(stat):
    rng = np.random.default_rng(10)
    df = pd.DataFrame({"a": nasty(rng, (61,)), "b": rng.integers(0, 9, 61).astype(float)})
    ddf = dd.from_pandas(df, npartitions=4)
    kw = {"q": 0.3} if stat == "quantile" else {}
    res = frame_stat(ddf, stat, False, nan_policy="omit", **kw).compute()
    ddof = {"ddof": 1} if stat in ("var", "std") else {}
    for c in df.columns:
        want = reduce(df[c].to_numpy(), stat, policy="omit", **kw, **ddof).values
        got = series_stat(ddf[c], stat, nan_policy="omit", **kw).compute()
        assert same_bits(got, want)
        assert same_bits(np.asarray(res[c]), want)


def test_series_spread_equals_scipy_and_names_labels():
    scipy_stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(11)
    s = pd.Series(rng.normal(size=97), index=pd.date_range("2024-01-01", periods=97),
                  name="temp")
    s.iloc[[4, 50]] = np.nan
    ds = dd.from_pandas(s, npartitions=5)
    assert float(series_stat(ds, "iqr", nan_policy="omit").compute()) == pytest.approx(
        scipy_stats.iqr(s, nan_policy="omit"), rel=1e-15)
    assert float(series_stat(ds, "mad", nan_policy="omit", scale="normal").compute()) == \
        pytest.approx(scipy_stats.median_abs_deviation(s, nan_policy="omit", scale="normal"),
                      rel=1e-15)
    with pytest.raises(NaNError, match=r"column 'temp' holds 2 NaN values \(first at index "
                                       r"'2024-01-05'\)") as err:
        series_stat(ds, "mad", nan_policy="raise").compute()
    assert err.value.position == (4,)


def test_tally_is_a_tree_reduction_of_nantally():
    rng = np.random.default_rng(12)
    x = nasty(rng, (9, 31), signaling=True)
    t = NanTally.from_array(global_info(da.from_array(x, chunks=(4, 7))).compute())
    nan = np.isnan(x)
    assert t.nan == nan.sum() and t.first_nan == np.flatnonzero(nan)[0]
    assert t.signaling == 1 and t.first_signaling == x.size // 3
    assert t.missing == 0 and t.first_missing is None


@pytest.mark.parametrize("stat", ["median", "mean", "iqr", "mad"])
def test_series_errors_equal_the_pandas_accessor(stat):
    idx = pd.date_range("2024-01-01", periods=30)
    a = pd.Series(np.arange(30.0), index=idx, name="a")
    a.iloc[[7, 20]] = np.nan
    vb = a.to_numpy().copy()
    vb[12] = na.make_nan(1, signaling=True)  # pandas' setitem would quiet it
    b = pd.Series(vb, index=idx, name="b")
    c = pd.Series(pd.date_range("2020-01-01", periods=30), index=idx, name="c")
    c.iloc[[9, 25]] = pd.NaT
    for s, policy in [(a, "raise"), (b, "omit"), (b, "raise"), (c, "raise")]:
        with pytest.raises(NaNError) as want:
            series_stat_pandas = getattr(s.nanstats, stat)
            series_stat_pandas(nan_policy=policy)
        with pytest.raises(NaNError) as got:
            series_stat(dd.from_pandas(s, npartitions=4), stat, nan_policy=policy).compute()
        assert type(got.value) is type(want.value)
        assert str(got.value) == str(want.value)
        assert got.value.position == want.value.position


def test_dask_package_raises_only_through_the_policy_module():
    from pathlib import Path

    import nanaccess.dask

    for path in Path(nanaccess.dask.__file__).parent.glob("*.py"):
        assert "NaNError(" not in path.read_text(), path.name


def test_mad_undefined_deviation_inf_minus_inf_equals_core():
    x = np.array([[np.inf, np.inf, np.inf, 1.0, 2.0, np.nan, -np.inf, np.inf, np.inf],
                  [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, np.inf]])
    for policy in POLICIES:
        for axis in (None, 1):
            got, want = _both(x, (1, 4), "mad", policy, axis=axis)
            _assert_same(got, want)
    got, _want = _both(x, (1, 4), "mad", "omit", axis=1)
    assert np.isnan(got[0]) and got[1] == 2.0
