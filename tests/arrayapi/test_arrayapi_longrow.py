"""The sample selection of one long row (:mod:`nanaccess.arrayapi.longrow`): the NumPy
core's bits under every policy, the bracket's misses answered by the general path,
and the scan's counters against a direct count (the CUDA kernel's contract).

The thresholds are lowered so rows of a few thousand elements take the path (the
sample is then a strided part of the row, as on 1e8 elements).
"""

from __future__ import annotations

import numpy as np
import pytest

from nanaccess.arrayapi import longrow, order
from nanaccess.core.bits import layout_of
from nanaccess.core.keys import float_keys
from nanaccess.core.reduce import reduce
from nanaccess.options import NanPolicy

from .helpers import messy, nan_of, same_bits

POLICIES = [p.value for p in NanPolicy]


@pytest.fixture
def small_rows(monkeypatch):
    """Rows of >= 64 elements take the long-row path, with a 256-key sample; the
    calls of :func:`long_row_order` and its answers are recorded."""
    monkeypatch.setattr(order, "LONG_MIN", 64)
    monkeypatch.setattr(longrow, "SAMPLE", 256)
    seen = []
    real = longrow.long_row_order

    def counted(*a, **k):
        got = real(*a, **k)
        seen.append(got is not None)
        return got

    monkeypatch.setattr(order, "long_row_order", counted)
    return seen


def _data(dtype, n, seed, nans):
    x = messy(dtype, (n,), seed=seed, nans="none" if nans == "none" else "quiet").ravel()
    if nans == "signaling":
        x[n // 3] = nan_of(dtype, "snan")
    if nans == "all":
        x[:] = nan_of(dtype, "negpayload")
        x[::7] = nan_of(dtype, "payload")
    return x


def _want(x, stat, policy, params):
    try:
        return reduce(x, stat, policy=NanPolicy(policy), **params).values, None
    except Exception as err:  # noqa: BLE001 - the same error is expected
        return None, err


CASES = [("median", {}), ("median_low", {}), ("median_high", {}),
         ("quantile", {"q": 0.9}), ("quantile", {"q": [0.0, 0.1, 0.5, 1.0]}),
         ("quantile", {"q": 0.3, "method": "nearest"}), ("iqr", {}), ("mad", {})]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("nans", ["none", "quiet", "signaling", "all"])
@pytest.mark.parametrize("policy", POLICIES)
def test_long_row_bits(lib, small_rows, dtype, nans, policy):
    x = _data(dtype, 3001, seed=len(nans) + len(policy), nans=nans)
    for stat, params in CASES:
        want, err = _want(x, stat, policy, params)
        fn = lib.fn(stat)
        if err is not None:
            with pytest.raises(type(err)) as got:
                fn(lib.asarray(x), nan_policy=policy, **params)
            assert str(got.value) == str(err)
            continue
        back = lib.back(fn(lib.asarray(x), nan_policy=policy, **params))
        assert same_bits(back, np.asarray(want)), (stat, params, back, want)
    assert any(small_rows), "the long-row path never answered"


def test_axis_reduced_to_one_row(lib, small_rows):
    """A 2-D array reduced over every axis is one long row too."""
    x = _data("float64", 40 * 50, seed=3, nans="quiet").reshape(40, 50)
    for policy in ("omit", "smallest", "totalorder"):
        want = reduce(x, "median", axis=None, policy=NanPolicy(policy)).values
        got = lib.back(lib.fn("median")(lib.asarray(x), axis=None, nan_policy=policy))
        assert same_bits(got, np.asarray(want))
    assert all(small_rows)


def test_misleading_sample_falls_back(lib, small_rows, monkeypatch):
    """A bracket that misses the rank (forced: no margin, a shifted estimate) is
    detected by the counts, and the general selection gives the same bits."""
    monkeypatch.setattr(longrow, "_bracket", lambda *a: (
        int(float_keys(np.array([5.0]))[0]), int(float_keys(np.array([6.0]))[0]), 16))
    x = _data("float64", 2000, seed=5, nans="quiet")
    want = reduce(x, "median", policy=NanPolicy.OMIT).values
    got = lib.back(lib.fn("median")(lib.asarray(x), nan_policy="omit"))
    assert same_bits(got, np.asarray(want))
    assert small_rows == [False]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_scan_counts(dtype):
    """The nine counters and the gathered keys against direct NumPy counts, with a
    bracket whose ends are keys of the data (ties at both ends)."""
    from nanaccess.arrayapi._shim import namespace

    x = _data(dtype, 5000, seed=11, nans="quiet")
    x[7] = nan_of(dtype, "snan")
    lay = layout_of(np.dtype(dtype))
    keys = float_keys(x)
    srt = np.sort(keys)
    lo, hi = int(srt[1000]), int(srt[3000])
    xa = np.asarray(x)
    counts, mid = longrow.scan_reference(xa.view(lay.int_dtype), namespace(xa), lay, lo, hi)
    nan = np.isnan(x)
    sign = np.signbit(x)
    quiet = (x.view(lay.int_dtype) & lay.quiet_bit) != 0
    want = [np.sum(keys < lo), np.sum(keys == lo), np.sum(keys == hi), np.sum(keys > hi),
            np.sum((keys > lo) & (keys < hi)), np.sum(nan & sign), np.sum(nan & ~sign),
            np.sum(nan & ~quiet), keys[nan].max()]
    assert counts.tolist() == [int(v) for v in want]
    assert np.array_equal(np.sort(np.asarray(mid)), srt[(srt > lo) & (srt < hi)])
    lay_int = int(np.iinfo(lay.int_dtype).min)
    c2, _ = longrow.scan_reference(xa[~nan].view(lay.int_dtype), namespace(xa), lay, lo, lo)
    assert c2[8] == lay_int and c2[2] == 0 and c2[4] == 0  # lo == hi: one class


def test_cuda_source_compiles():
    """The kernels' CUDA sources compile with nvcc where it is installed (CI has none;
    the GPU check runs them)."""
    import shutil
    import subprocess

    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("no nvcc")
    from nanaccess.arrayapi import _cupy_scan

    for width in (4, 8):
        src = _cupy_scan.source(width)
        got = subprocess.run([nvcc, "-x", "cu", "-arch=sm_80", "-c", "-o", "/dev/null", "-"],
                             input=src, capture_output=True, text=True, timeout=120)
        assert got.returncode == 0, got.stderr
