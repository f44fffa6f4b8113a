"""dask arrays: exact lazy selection equals the core's NumPy path bit for bit."""

from __future__ import annotations

import contextlib

import dask
import dask.array as da
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nanaccess.core.select import order_stat
from nanaccess.dask.array import dask_moment_stat, dask_order_stat
from nanaccess.errors import NaNError, SignalingNaNError

POLICIES = ["propagate", "omit", "smallest", "largest", "totalorder"]
STATS = ["median", "median_low", "median_high", "min", "max"]


@pytest.fixture(autouse=True)
def _sync_scheduler():
    """Single-threaded scheduler (the distributed tests bring their own cluster)."""
    with dask.config.set(scheduler="sync"):
        yield


class CountingScheduler:
    """A scheduler that counts computes (as cf_xarray's ``raise_if_dask_computes``)."""

    def __init__(self, max_computes: int = 0) -> None:
        self.total = 0
        self.max_computes = max_computes

    def __call__(self, dsk, keys, **kwargs):
        self.total += 1
        if self.total > self.max_computes:
            raise RuntimeError(f"too many dask computes: {self.total} > {self.max_computes}")
        return dask.get(dsk, keys, **kwargs)


@contextlib.contextmanager
def raise_if_dask_computes(max_computes: int = 0):
    with dask.config.set(scheduler=CountingScheduler(max_computes)):
        yield


def nasty(rng: np.random.Generator, shape, dtype="f8", nan_frac=0.15, signaling=False):
    """Data with NaNs of both signs and several payloads, signed zeros and infinities."""
    x = rng.normal(size=shape) * 10
    x[rng.random(shape) < 0.1] = 0.0
    x[rng.random(shape) < 0.05] = -0.0
    x[rng.random(shape) < 0.02] = np.inf
    x[rng.random(shape) < 0.02] = -np.inf
    x = x.astype(dtype)
    bits = x.view(f"u{x.itemsize}")
    lay = {8: (0x7FF8000000000000, 52), 4: (0x7FC00000, 23), 2: (0x7E00, 10)}[x.itemsize]
    where = rng.random(shape) < nan_frac
    payload = rng.integers(0, 4, size=shape).astype(bits.dtype)
    sign = (rng.random(shape) < 0.5).astype(bits.dtype) << np.array(x.itemsize * 8 - 1,
                                                                       dtype=bits.dtype)
    nanbits = np.asarray(lay[0], dtype=bits.dtype) | payload | sign
    bits[where] = nanbits[where]
    if signaling:
        flat = bits.reshape(-1)
        quiet = np.asarray(1 << (lay[1] - 1), dtype=bits.dtype)
        flat[len(flat) // 3] = (np.asarray(lay[0], dtype=bits.dtype) & ~quiet) | 1
    return x


def same_bits(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind in "fmM":
        return bool(np.array_equal(a.view(f"u{a.itemsize}"), b.view(f"u{b.itemsize}")))
    return bool(np.array_equal(a, b))


def assert_same(got, want):
    assert same_bits(got, want), f"\n got: {np.asarray(got)!r}\nwant: {np.asarray(want)!r}"


CASES = [
    ((103,), (17,), None),
    ((103,), (50, 50, 3), 0),
    ((11, 37), (4, 9), None),
    ((11, 37), (4, 9), 1),
    ((11, 37), (5, 37), 0),
    ((6, 7, 9), (4, 3, 5), (0, 2)),
    ((6, 7, 9), (6, 2, 9), (0, 2)),  # reduced axes single-chunk: per-block core
]


@pytest.mark.parametrize(
    "seed,shape,chunks,axis,policy",
    [(i,) + case + (POLICIES[i % len(POLICIES)],) for i, case in enumerate(CASES)],
)
def test_order_stats_equal_core(seed, shape, chunks, axis, policy):
    rng = np.random.default_rng(1000 + seed)  # a fixed seed per case
    x = nasty(rng, shape)
    dx = da.from_array(x, chunks=chunks)
    for stat in STATS:
        got = dask_order_stat(dx, stat, axis=axis, policy=policy).compute()
        want, _ = order_stat(x, stat, axis=axis, policy=policy)
        assert_same(got, want)
    q = [0.0, 0.1, 0.5, 0.77, 1.0]
    for method in ["linear", "nearest"] if len(shape) < 3 else ["midpoint"]:
        got = dask_order_stat(dx, "quantile", q=q, method=method, axis=axis,
                              policy=policy).compute()
        want, _ = order_stat(x, "quantile", q=q, method=method, axis=axis, policy=policy)
        assert_same(got, want)


@pytest.mark.parametrize("dtype,policy", [
    ("f4", "omit"), ("f2", "totalorder"), ("f2", "omit"), ("i4", "totalorder"),
    ("i8", "omit"), ("u8", "totalorder"), ("u1", "omit"), ("bool", "totalorder"),
    ("datetime64[s]", "omit"), ("datetime64[s]", "totalorder"),
])
def test_dtypes_equal_core(dtype, policy):
    rng = np.random.default_rng(7)
    shape, chunks = (9, 41), (4, 10)
    if dtype in ("f4", "f2"):
        x = nasty(rng, shape, dtype)
    elif dtype == "bool":
        x = rng.random(shape) < 0.5
    elif dtype.startswith("datetime"):
        x = rng.integers(0, 10**9, size=shape).astype(dtype)
        x[rng.random(shape) < 0.1] = np.datetime64("NaT")
    else:
        info = np.iinfo(dtype)
        x = rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
    dx = da.from_array(x, chunks=chunks)
    for axis in (None, 1):
        for stat in ["median_low", "max", "median"] if axis is None else ["min", "median_high"]:
            try:
                want, _ = order_stat(x, stat, axis=axis, policy=policy)
            except (TypeError, ValueError) as err:  # e.g. an unsupported combination
                with pytest.raises(type(err)):
                    dask_order_stat(dx, stat, axis=axis, policy=policy).compute()
                continue
            got = dask_order_stat(dx, stat, axis=axis, policy=policy).compute()
            assert_same(got, want)


def test_all_axes_median_without_rechunk():
    rng = np.random.default_rng(1)
    x = nasty(rng, (40, 50), nan_frac=0.0)
    dx = da.from_array(x, chunks=(7, 11))
    r = dask_order_stat(dx, "median", policy="omit")
    # no layer of the graph rechunks: every task touching x reads one chunk
    assert not any("rechunk" in str(k) for k in r.dask.layers)
    assert_same(r.compute(), order_stat(x, "median", policy="omit")[0])
    assert float(r.compute()) == np.median(x)


def test_omit_matches_numpy_nanmedian_and_nanquantile():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(20, 30))
    x[rng.random(x.shape) < 0.2] = np.nan
    dx = da.from_array(x, chunks=(6, 7))
    np.testing.assert_array_equal(
        dask_order_stat(dx, "median", axis=1, policy="omit").compute(),
        np.nanmedian(x, axis=1))
    np.testing.assert_array_equal(
        dask_order_stat(dx, "quantile", q=[0.1, 0.9], axis=0, policy="omit").compute(),
        np.nanquantile(x, [0.1, 0.9], axis=0))


def test_keepdims():
    x = np.arange(24.0).reshape(2, 3, 4)
    dx = da.from_array(x, chunks=(1, 2, 3))
    r = dask_order_stat(dx, "median", axis=(0, 2), policy="omit", keepdims=True)
    want, _ = order_stat(x, "median", axis=(0, 2), policy="omit", keepdims=True)
    assert r.shape == want.shape
    assert_same(r.compute(), want)


def test_raise_is_lazy_and_names_position():
    x = np.arange(30.0)
    x[[7, 21]] = np.nan
    dx = da.from_array(x, chunks=8)
    with raise_if_dask_computes():
        r = dask_order_stat(dx, "median", policy="raise")
    with pytest.raises(NaNError) as got:
        r.compute()
    with pytest.raises(NaNError) as want:
        order_stat(x, "median", policy="raise")
    assert str(got.value) == str(want.value)
    assert "2 NaN values" in str(got.value) and "position 7" in str(got.value)


def test_signaling_raises_at_compute_time():
    rng = np.random.default_rng(3)
    x = nasty(rng, (5, 40), signaling=True)
    dx = da.from_array(x, chunks=(2, 9))
    for policy in ["omit", "propagate", "largest"]:
        r = dask_order_stat(dx, "median", axis=1, policy=policy)
        with pytest.raises(SignalingNaNError) as got:
            r.compute()
        with pytest.raises(SignalingNaNError) as want:
            order_stat(x, "median", axis=1, policy=policy)
        assert str(got.value) == str(want.value)
    got = dask_order_stat(dx, "median", axis=1, policy="totalorder").compute()
    assert_same(got, order_stat(x, "median", axis=1, policy="totalorder")[0])


def test_laziness_every_stat():
    x = da.from_array(np.arange(100.0), chunks=13)
    with raise_if_dask_computes():
        for stat in STATS:
            dask_order_stat(x, stat, policy="omit")
        dask_order_stat(x, "quantile", q=[0.2, 0.4], policy="raise")
        for stat in ["mean", "sum", "var", "std"]:
            dask_moment_stat(x, stat, policy="omit")


@pytest.mark.parametrize("axis,dtype", [(None, "f8"), (0, "f4"), (1, "f2"), ((0, 1), "f8")])
def test_moments_equal_core(axis, dtype):
    from nanaccess.core.moments import moment_stat

    rng = np.random.default_rng(4)
    x = nasty(rng, (13, 29), dtype)
    dx = da.from_array(x, chunks=(5, 8))
    for i, stat in enumerate(["mean", "sum", "var", "std", "count"]):
        for policy in POLICIES[i % 2::2]:
            ddof = 1 if stat in ("var", "std") and policy == "omit" else 0
            got = dask_moment_stat(dx, stat, axis=axis, ddof=ddof, policy=policy).compute()
            want, _ = moment_stat(x, stat, axis=axis, ddof=ddof, policy=policy)
            assert_same(got, want)


@pytest.mark.parametrize("dtype", ["i8", "u1", "bool", "m8[s]", "M8[s]"])
def test_moments_other_dtypes(dtype):
    from nanaccess.core.moments import moment_stat

    rng = np.random.default_rng(5)
    if dtype == "bool":
        x = rng.random((9, 41)) < 0.5
    else:
        x = rng.integers(0, 10**9, size=(9, 41)).astype(dtype)
        if dtype[0] in "mM":
            x[rng.random(x.shape) < 0.1] = np.array("NaT", dtype=dtype)
    dx = da.from_array(x, chunks=(4, 10))
    for stat, policy, axis in [("mean", "omit", None), ("sum", "propagate", 1),
                               ("var", "totalorder", None), ("std", "omit", 1),
                               ("count", "propagate", None)]:
        try:
            want, _ = moment_stat(x, stat, axis=axis, policy=policy)
        except TypeError:
            with pytest.raises(TypeError):
                dask_moment_stat(dx, stat, axis=axis, policy=policy)
            continue
        got = dask_moment_stat(dx, stat, axis=axis, policy=policy).compute()
        assert_same(got, want)


def test_moments_are_a_tree_reduction_and_raise_lazily():
    x = np.arange(40.0)
    x[[9, 30]] = np.nan
    dx = da.from_array(x, chunks=7)
    r = dask_moment_stat(dx, "mean", policy="omit")
    assert not any("rechunk" in str(k) for k in r.dask.layers)
    assert_same(r.compute(), np.asarray(np.nanmean(x)))
    with raise_if_dask_computes():
        r = dask_moment_stat(dx, "var", policy="raise")
    with pytest.raises(NaNError, match="2 NaN values"):
        r.compute()


def test_read_only_input_and_fast_path_dtypes():
    rng = np.random.default_rng(9)
    for dtype in ["f8", "f4", "f2"]:
        x = nasty(rng, (301,), dtype)
        x.setflags(write=False)
        dx = da.from_array(x, chunks=40)
        for policy in ["omit", "propagate", "totalorder"]:
            q = [0.0, 0.3, 0.5, 1.0]
            assert_same(dask_order_stat(dx, "quantile", q=q, policy=policy).compute(),
                        order_stat(x, "quantile", q=q, policy=policy)[0])


def test_crowded_buckets_use_more_histogram_passes(monkeypatch):
    import nanaccess.dask.select as mod

    monkeypatch.setattr(mod, "_GATHER_LIMIT", 2)
    rng = np.random.default_rng(6)
    x = np.round(rng.normal(size=(7, 60)), 1)  # many ties: crowded buckets
    x[0, :5] = np.nan
    dx = da.from_array(x, chunks=(3, 17))
    for axis in (None, 1):
        for policy in ["omit", "largest"]:
            got = dask_order_stat(dx, "quantile", q=[0.2, 0.5], axis=axis,
                                  policy=policy).compute()
            want, _ = order_stat(x, "quantile", q=[0.2, 0.5], axis=axis, policy=policy)
            assert_same(got, want)
    xi = rng.integers(0, 3, size=500).astype(np.int64)
    assert_same(dask_order_stat(da.from_array(xi, chunks=70), "median_low",
                                policy="omit").compute(),
                order_stat(xi, "median_low", policy="omit")[0])


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(1, 60),
    chunk=st.integers(1, 25),
    seed=st.integers(0, 2**32 - 1),
    policy=st.sampled_from(POLICIES),
    q=st.floats(0, 1),
)
def test_property_median_quantile(n, chunk, seed, policy, q):
    rng = np.random.default_rng(seed)
    x = nasty(rng, (n,), nan_frac=float(rng.random() * 0.5))
    dx = da.from_array(x, chunks=chunk)
    assert_same(dask_order_stat(dx, "median", policy=policy).compute(),
                order_stat(x, "median", policy=policy)[0])
    assert_same(dask_order_stat(dx, "quantile", q=q, policy=policy).compute(),
                order_stat(x, "quantile", q=q, policy=policy)[0])
    # invariant under permutation, bit for bit
    perm = da.from_array(x[rng.permutation(n)], chunks=chunk)
    assert_same(dask_order_stat(perm, "median", policy=policy).compute(),
                dask_order_stat(dx, "median", policy=policy).compute())
