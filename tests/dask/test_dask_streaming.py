"""dask arrays: streaming passes (each pass its own computation) and the wide first
histogram give the same bits as the one-graph mode and the in-memory core."""

from __future__ import annotations

import logging

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from test_dask_array import POLICIES, assert_same, nasty

import nanaccess as na
from nanaccess.core.interp import METHODS
from nanaccess.core.select import order_stat
from nanaccess.dask.array import dask_order_stat, dask_reduce
from nanaccess.dask.select import first_bits
from nanaccess.dask.stream import is_persisted, streams
from nanaccess.errors import NaNError, SignalingNaNError


@pytest.fixture(autouse=True)
def _sync_scheduler():
    with dask.config.set(scheduler="sync"):
        yield


def _both(dx, stat, policy, **kw):
    """(one-graph result, streaming result), both computed."""
    with na.option_context(dask_passes="graph"):
        g = dask_order_stat(dx, stat, policy=policy, **kw).compute()
    with na.option_context(dask_passes="streaming"):
        s = dask_order_stat(dx, stat, policy=policy, **kw).compute()
    return g, s


@pytest.mark.parametrize("policy", POLICIES)
def test_streaming_equals_graph_every_method(policy):
    rng = np.random.default_rng(11)
    x = nasty(rng, (301,))
    dx = da.from_array(x, chunks=37)
    q = [0.0, 0.13, 0.5, 0.77, 1.0]
    for method in METHODS:
        g, s = _both(dx, "quantile", policy, q=q, method=method)
        assert_same(s, g)
        assert_same(s, order_stat(x, "quantile", q=q, method=method, policy=policy)[0])
    for stat in ("median", "median_low", "median_high", "min", "max"):
        g, s = _both(dx, stat, policy)
        assert_same(s, g)
        assert_same(s, order_stat(x, stat, policy=policy)[0])


@pytest.mark.parametrize("axis", [None, 1, (0, 1)])
def test_streaming_few_rows_and_keepdims(axis):
    rng = np.random.default_rng(12)
    x = nasty(rng, (3, 250), dtype="f4")
    dx = da.from_array(x, chunks=(2, 60))
    for policy in POLICIES:
        with na.option_context(dask_passes="streaming"):
            got = dask_order_stat(dx, "quantile", q=[0.25, 0.5], axis=axis, policy=policy,
                                  keepdims=True)
        want = order_stat(x, "quantile", q=[0.25, 0.5], axis=axis, policy=policy,
                          keepdims=True)[0]
        assert got.shape == want.shape
        assert_same(got.compute(), want)


@pytest.mark.parametrize("dtype", ["f8", "f4", "f2", "i8", "i2", "u8", "M8[s]", "m8[ns]"])
def test_streaming_dtypes(dtype):
    rng = np.random.default_rng(13)
    if dtype[0] == "f":
        x = nasty(rng, (500,), dtype=dtype)
    else:
        x = rng.integers(-(10**9), 10**9, 500).astype(dtype)
        if dtype[0] in "mM":
            x[::7] = np.datetime64("NaT") if dtype[0] == "M" else np.timedelta64("NaT")
    dx = da.from_array(x, chunks=90)
    for policy in ("omit", "largest", "totalorder"):
        g, s = _both(dx, "quantile", policy, q=[0.1, 0.5, 0.9], method="nearest")
        assert_same(s, g)
        assert_same(s, order_stat(x, "quantile", q=[0.1, 0.5, 0.9], method="nearest",
                                  policy=policy)[0])


def test_streaming_spread_statistics():
    rng = np.random.default_rng(14)
    x = nasty(rng, (400,))
    dx = da.from_array(x, chunks=64)
    for stat in ("iqr", "mad"):
        with na.option_context(dask_passes="graph"):
            g = dask_reduce(dx, stat, policy="omit").compute()
        with na.option_context(dask_passes="streaming"):
            s = dask_reduce(dx, stat, policy="omit").compute()
        assert_same(s, g)


def test_streaming_raise_names_the_global_first_position():
    x = np.arange(400.0)
    x[[233, 71, 390]] = np.nan  # the first in C order sits in the second chunk
    dx = da.from_array(x, chunks=50)
    with pytest.raises(NaNError) as want:
        order_stat(x, "median", policy="raise")
    with na.option_context(dask_passes="streaming"), pytest.raises(NaNError) as got:
        dask_order_stat(dx, "median", policy="raise")  # raises at call time
    assert str(got.value) == str(want.value)
    assert got.value.position == want.value.position == (71,)
    assert "3 NaN values" in str(got.value)
    # the public function and a signaling NaN under "omit"
    with na.option_context(dask_passes="streaming"), pytest.raises(NaNError) as got:
        na.median(dx, nan_policy="raise")
    assert str(got.value) == str(want.value)
    sig = nasty(np.random.default_rng(15), (300,), signaling=True, nan_frac=0.0)
    with pytest.raises(SignalingNaNError) as want:
        order_stat(sig, "median", policy="omit")
    with na.option_context(dask_passes="streaming"), pytest.raises(SignalingNaNError) as got:
        dask_order_stat(da.from_array(sig, chunks=40), "median", policy="omit")
    assert str(got.value) == str(want.value)


_CALLS: list[int] = []


def _generate(block_id=None):
    """A lazily generated chunk (counts its calls: one per chunk and pass)."""
    _CALLS.append(block_id[0])
    return np.random.default_rng(block_id[0]).standard_normal(1000)


def _lazy(nchunks: int = 6) -> da.Array:
    return da.map_blocks(_generate, chunks=((1000,) * nchunks,), dtype=np.float64,
                         meta=np.empty(0))


def test_streaming_reads_the_input_once_per_pass(caplog):
    x = _lazy()
    want = order_stat(x.compute(), "median", policy="omit")[0]
    _CALLS.clear()
    with na.option_context(dask_passes="graph"):
        assert_same(dask_order_stat(x, "median", policy="omit").compute(), want)
    assert sorted(_CALLS) == list(range(6))  # one graph: each chunk made once, then held
    _CALLS.clear()
    with na.option_context(dask_passes="streaming"), \
            caplog.at_level(logging.INFO, logger="nanaccess.dask"):
        r = dask_order_stat(x, "median", policy="omit")
    passes = 2  # the histogram, then one refinement gathers the wanted bucket
    assert sorted(_CALLS) == sorted(list(range(6)) * passes)
    assert f"{passes} passes over 6 chunks" in caplog.text
    _CALLS.clear()
    assert_same(r.compute(), want)  # computing the result reads nothing more
    assert _CALLS == []


def test_auto_streams_unless_persisted():
    x = _lazy(3)
    p = x.persist()
    assert not is_persisted(x) and is_persisted(p)
    assert is_persisted(da.from_array(np.arange(10.0), chunks=4))
    with na.option_context(dask_passes="auto"):
        assert streams(x, ()) and not streams(p, ())
        _CALLS.clear()
        lazy = dask_order_stat(p, "median", policy="omit")  # persisted: one lazy graph
        assert _CALLS == []
        assert any(str(k).startswith("refine_block") for k in lazy.__dask_graph__().layers)
        assert_same(lazy.compute(), order_stat(p.compute(), "median", policy="omit")[0])
    with na.option_context(dask_passes="graph"):
        assert not streams(x, ())
    with na.option_context(dask_passes="streaming"):
        assert streams(p, ())
    with pytest.raises(ValueError, match="dask_passes"):
        na.set_options(dask_passes="twice")
    assert na.get_options()["dask_passes"] == "auto"


def test_streaming_dask_series():
    rng = np.random.default_rng(16)
    s = pd.Series(nasty(rng, (500,)), name="v")
    ds = dd.from_pandas(s, npartitions=5)  # unknown chunk sizes on the reduced axis
    with na.option_context(dask_passes="streaming"):
        got = ds.nanstats.quantile([0.2, 0.5], nan_policy="omit")
    want = s.nanstats.quantile([0.2, 0.5], nan_policy="omit")
    np.testing.assert_array_equal(np.asarray(got.compute()), np.asarray(want))


@pytest.mark.parametrize("dtype", ["f8", "f4", "i4", "M8[ns]"])
def test_wide_first_histogram_is_exact(dtype, monkeypatch):
    """Chunks of 2 MiB: a first histogram of 17 bits (half the chunk's bytes; a small
    gather limit asks for more bits than that, and makes crowded buckets narrow)."""
    import nanaccess.dask.select as mod

    monkeypatch.setattr(mod, "_GATHER_LIMIT", 1 << 12)
    rng = np.random.default_rng(17)
    n_chunk = (2 << 20) // np.dtype(dtype).itemsize
    if dtype[0] == "f":
        x = nasty(rng, (2 * n_chunk + 5,), dtype=dtype, nan_frac=0.01)
    else:
        x = rng.integers(-(2**31), 2**31 - 1, 2 * n_chunk + 5).astype(dtype)
    dx = da.from_array(x, chunks=n_chunk)
    assert first_bits(dx, (0,)) == 17
    if dtype == "f8":  # 1e9 float64 in 100 chunks: 22 bits (32 MiB of 80 MiB chunks)
        monkeypatch.setattr(mod, "_GATHER_LIMIT", 1 << 21)
        assert first_bits(da.zeros(10**9, chunks=10**7), (0,)) == 22
        assert first_bits(da.zeros(10**7, chunks=10**6), (0,)) == 16
        monkeypatch.setattr(mod, "_GATHER_LIMIT", 1 << 12)
    for policy in ("omit", "propagate", "largest"):
        for stat, kw in (("median", {}), ("quantile", {"q": [0.0, 0.999, 1.0]})):
            g, s = _both(dx, stat, policy, **kw)
            assert_same(s, g)
            assert_same(s, order_stat(x, stat, policy=policy, **kw)[0])
