"""Order statistics over the leading axis of dask chunks (dask/leading.py): one pass
per block for keys and tally, bit-equal to the in-memory core, errors as the core's."""

import numpy as np
import pytest

da = pytest.importorskip("dask.array")

import nanaccess as na  # noqa: E402
from nanaccess.dask import leading  # noqa: E402
from nanaccess.errors import NaNError, SignalingNaNError  # noqa: E402


def _grid(dtype, shape=(41, 6, 10), seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(dtype)
    x[:, 1, 2:5] = np.nan  # "land": cells with no number
    with np.errstate(invalid="ignore"):
        x[rng.random(shape) < 0.05] = np.float64(np.inf) - np.float64(np.inf)  # -NaN on x86
    x[rng.random(shape) < 0.05] = -0.0
    x[rng.random(shape) < 0.05] = 0.0
    x[3, 0, 0] = np.inf
    return x


def _bits_equal(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype
    it = np.int32 if a.dtype == np.float32 else np.int64
    np.testing.assert_array_equal(a.view(it), b.view(it))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("stat,kw", [
    ("quantile", {"q": 0.9}),
    ("quantile", {"q": [0.1, 0.5, 0.9]}),
    ("quantile", {"q": 0.3, "method": "nearest"}),
    ("median", {}),
    ("median_low", {}),
    ("min", {}),
    ("max", {}),
])
def test_leading_bit_equal_in_memory(dtype, stat, kw, monkeypatch):
    calls = []
    fused = leading.leading_with_tally
    monkeypatch.setattr(leading, "leading_with_tally",
                        lambda *a, **k: calls.append(1) or fused(*a, **k))
    x = _grid(dtype)
    expected = getattr(na, stat)(x, axis=0, nan_policy="omit", **kw)
    # chunks split the kept axes; a strided chunk of a larger array
    lazy = getattr(na, stat)(da.from_array(x, chunks=(-1, 4, 3)), axis=0,
                             nan_policy="omit", **kw)
    _bits_equal(lazy.compute(), expected)
    assert len(calls) == 2 * 4  # every block took the one-pass path


def test_leading_served_and_two_and_four_dims():
    x = _grid(np.float64)
    assert leading.served(x[:, :, :3], (0,), "quantile", na.NanPolicy.OMIT)
    assert not leading.served(x, (1,), "quantile", na.NanPolicy.OMIT)
    assert not leading.served(x, (0,), "argmin", na.NanPolicy.OMIT)
    for y in (x[:, 0, :], x.reshape(41, 2, 3, 10)):
        expected = na.quantile(y, 0.75, axis=0, nan_policy="omit")
        chunks = (-1,) + (2,) * (y.ndim - 1)
        got = na.quantile(da.from_array(y, chunks=chunks), 0.75, axis=0, nan_policy="omit")
        _bits_equal(got.compute(), expected)


def test_leading_numpy_engine_equal():
    x = _grid(np.float32)
    expected = na.quantile(x, 0.9, axis=0, nan_policy="omit")
    with na.option_context(engine="numpy"):
        got = na.quantile(da.from_array(x, chunks=(-1, 3, 5)), 0.9, axis=0,
                          nan_policy="omit").compute()
    _bits_equal(got, expected)


def test_leading_raise_and_signaling_name_the_core_position():
    x = _grid(np.float64)
    with pytest.raises(NaNError) as mem:
        na.median(x, axis=0)
    with pytest.raises(NaNError) as lazy:
        na.median(da.from_array(x, chunks=(-1, 3, 4)), axis=0).compute()
    assert lazy.value.position == mem.value.position
    assert lazy.value.count == mem.value.count
    y = x.copy()
    y[:2] = 1.0  # no NaN at the first time steps: the first one found per cell
    y[:, 1, 2:5] = 2.0
    with pytest.raises(NaNError) as mem:
        na.median(y, axis=0)
    with pytest.raises(NaNError) as lazy:
        na.median(da.from_array(y, chunks=(-1, 3, 4)), axis=0).compute()
    assert lazy.value.position == mem.value.position and mem.value.position[0] >= 2
    assert lazy.value.count == mem.value.count
    for sign in (1.0, -1.0):  # a negative signaling NaN: its quiet bit read before the map
        y = x.copy()
        y[7, 4, 8] = np.copysign(na.make_nan(5, signaling=True), sign)
        y[9, 5, 9] = np.copysign(na.make_nan(6, signaling=True), sign)
        with pytest.raises(SignalingNaNError) as mem:
            na.quantile(y, 0.9, axis=0, nan_policy="omit")
        with pytest.raises(SignalingNaNError) as lazy:
            na.quantile(da.from_array(y, chunks=(-1, 3, 4)), 0.9, axis=0,
                        nan_policy="omit").compute()
        assert lazy.value.position == mem.value.position == (7, 4, 8)
        assert lazy.value.count == mem.value.count == 2


def test_leading_xarray_quantile_over_time():
    xr = pytest.importorskip("xarray")
    x = _grid(np.float32, (30, 5, 8))
    arr = xr.DataArray(x, dims=("time", "lat", "lon"))
    expected = arr.nanstats.quantile(0.9, dim="time", nan_policy="omit")
    got = arr.chunk({"time": -1, "lat": 2, "lon": 3}).nanstats.quantile(
        0.9, dim="time", nan_policy="omit")
    _bits_equal(got.compute().values, expected.values)
    # NaN-free data: the same numbers as xarray's own quantile
    clean = arr.fillna(0.5)
    np.testing.assert_allclose(
        clean.chunk({"time": -1}).nanstats.quantile(0.9, dim="time").values,
        clean.quantile(0.9, "time").values, rtol=1e-6)
