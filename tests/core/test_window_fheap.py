"""The float-key 8-ary heap kernel (``core/_numba/window_fheap``) and fixed windows
passed as numbers (``FixedWindows``): the bits of the totalOrder-key kernels and of
the plain reduction of every window."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from nanaccess import NanPolicy
from nanaccess.core import _numba as NB
from nanaccess.core.plan import rank_plan
from nanaccess.core.window import (
    FixedWindows,
    expanding_bounds,
    fixed_bounds,
    fixed_windows,
    window_reduce,
)
from nanaccess.core.window import reduce as wreduce
from tests.core.test_window import HEAP_CASES, assert_exact, bits

pytestmark = pytest.mark.skipif(not NB.AVAILABLE, reason="numba is not installed")


def _plan(stat, params, width):
    q = np.atleast_1d(params["q"]) if "q" in params else None
    plan = rank_plan(stat, np.arange(width + 1), q, params.get("method", "linear"))
    w_t = np.ascontiguousarray(np.broadcast_to(plan.weight, plan.lo.shape), np.float64)
    return plan, w_t


def _data(dtype, n, seed, zeros=(0.0,)):
    rng = np.random.default_rng(seed)
    big = np.finfo(dtype).max
    pool = np.array([big, -big, np.inf, -np.inf, 1.5, 1.5, -2.25, *zeros], dtype)
    x = np.where(rng.random(n) < 0.3, rng.choice(pool, n), rng.normal(size=n)).astype(dtype)
    x[rng.random(n) < 0.05] = np.nan
    x[n // 2:n // 2 + 80] = np.nan  # a NaN run longer than a window: empty windows
    x[n // 4:n // 4 + 90] = 1.5  # long ties
    return x


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_float_heaps_give_the_totalorder_heaps_bits(dtype):
    from nanaccess.core._numba.window_fheap import FLAG_ZEROS, fheap_select
    from nanaccess.core._numba.window_heap import heap_select
    from nanaccess.core.window.order import _MODES

    n = 900
    x = _data(dtype, n, 5)
    xt = x[None]
    bounds = [fixed_bounds(n, 40), fixed_bounds(n, 33, center=True, closed="both"),
              expanding_bounds(n), (np.arange(n) * 2 // 3, np.minimum(np.arange(n) + 50, n))]
    gaps = np.arange(0, n - 60, 70)
    bounds.append((gaps, gaps + 45))  # disjoint: each window starts afresh
    for (start, end), (stat, params) in itertools.product(bounds, HEAP_CASES):
        plan, w_t = _plan(stat, params, int((end - start).max()))
        mode = _MODES[plan.mode]
        ref = np.empty((1, 1, start.size), dtype)
        rcnt = np.empty((1, start.size), np.int64)
        assert heap_select(xt, start, end, plan.lo, plan.hi, w_t, mode, ref, rcnt) == 1
        out = np.empty((1, start.size), dtype)
        cnt = np.empty((1, start.size), np.int64)
        flags = fheap_select(xt, ("arrays", start, end), start.size, plan.lo, plan.hi, w_t,
                             mode, 0, out, cnt)
        assert flags & 3 == 1 and flags & FLAG_ZEROS != FLAG_ZEROS
        assert bits(out) == bits(ref[0]), (stat, params)
        assert cnt.tolist() == rcnt.tolist()


def test_float_heaps_flag_both_signed_zeros():
    # float keys cannot tell -0.0 from 0.0: a column holding both is flagged (and
    # window_reduce then ranks on totalOrder keys: the pick below is -0.0 < 0.0's)
    from nanaccess.core._numba.window_fheap import FLAG_ZEROS, fheap_select

    x = np.tile([0.0, -0.0, 1.0, -1.0], 20)
    plan, w_t = _plan("median_low", {}, 40)
    out = np.empty((1, 80))
    cnt = np.empty((1, 80), np.int64)
    for data, both in ((x, True), (np.abs(x), False), (-np.abs(x), False)):
        flags = fheap_select(data[None], ("fixed", 1, 1, 40), 80, plan.lo, plan.hi, w_t, 0,
                             0, out, cnt)
        assert (flags & FLAG_ZEROS == FLAG_ZEROS) is both
    start, end = fixed_bounds(80, 40)
    for stat in ("median_low", "median_high", "median"):
        assert_exact(x, None, start, end, stat, NanPolicy.OMIT, "numba")


@pytest.mark.parametrize("window", [0, 1, 2, 33, 40, 41, 64, 200])
@pytest.mark.parametrize("center", [False, True])
@pytest.mark.parametrize("closed", [None, "left", "both", "neither"])
@pytest.mark.parametrize("step", [None, 3, 50])
def test_kernel_bounds_fixed_windows_as_the_arrays(window, center, closed, step):
    # the kernel's bounds from (e0, step, span) are fixed_bounds' arrays: the same
    # values and counts, and windows short of min_periods are the empty fill
    from nanaccess.core._numba.window_fheap import fheap_select

    n = 150
    x = _data(np.float64, n, 11)
    fw = fixed_windows(n, window, center=center, closed=closed, step=step)
    start, end = fixed_bounds(n, window, center=center, closed=closed, step=step)
    assert fw.nout == start.size and fw.width >= int((end - start).max(initial=0))
    assert all(np.array_equal(a, b) for a, b in zip(fw.arrays(), (start, end), strict=True))
    plan, w_t = _plan("quantile", {"q": 0.3, "method": "hazen"}, fw.width)
    got = []
    for bounds in (("fixed", fw.e0, fw.step, fw.span), ("arrays", start, end)):
        out = np.empty((1, fw.nout))
        cnt = np.empty((1, fw.nout), np.int64)
        assert fheap_select(x[None], bounds, fw.nout, plan.lo, plan.hi, w_t, 2, 7, out,
                            cnt) >= 0
        got.append((bits(out), cnt.tolist()))
        short = cnt[0] < 7
        assert np.isnan(out[0, short]).all()
    assert got[0] == got[1]


@pytest.mark.parametrize("stat,params", HEAP_CASES[::2] + [("iqr", {}), ("mean", {})])
@pytest.mark.parametrize("policy", [NanPolicy.OMIT, NanPolicy.PROPAGATE, NanPolicy.LARGEST])
def test_window_reduce_fixed_windows_as_bound_arrays(monkeypatch, stat, params, policy):
    # FixedWindows (no bound arrays) and fixed_bounds' arrays give the same result;
    # served or not by the kernel, and each window is its plain reduction
    monkeypatch.setattr(wreduce, "FIXED_MIN_OUTPUTS", 0)
    n = 400
    x = _data(np.float64, n, 3)
    x2 = np.stack([x, np.roll(x, 7)], axis=1)
    for window, center, minp in ((40, False, 1), (57, True, 30), (100, False, 100)):
        fw = fixed_windows(n, window, center=center)
        start, end = fw.arrays()
        for data in (x, x2):
            a = window_reduce(data, fw, None, stat, policy=policy, min_periods=minp,
                              engine="numba", **params)
            b = window_reduce(data, start, end, stat, policy=policy, min_periods=minp,
                              engine="numba", **params)
            assert bits(a.values) == bits(b.values)
            assert np.array_equal(a.count, b.count) and np.array_equal(a.short, b.short)
        sel = slice(0, None, 9)
        assert_exact(x, None, start[sel], end[sel], stat, policy, "numba", minp, **params)


def test_window_reduce_fixed_windows_errors():
    with pytest.raises(ValueError, match="FixedWindows"):
        window_reduce(np.arange(5.0), fixed_windows(6, 2), None, "median", policy="omit")
    with pytest.raises(ValueError, match="FixedWindows"):
        window_reduce(np.arange(5.0), fixed_windows(5, 2), np.arange(5), "median",
                      policy="omit")
    fw = FixedWindows(5, 1, 1, 2)
    assert fw.nout == 5 and fw.width == 2


def test_float_heaps_in_parallel_blocks(monkeypatch):
    # long inputs run in blocks of outputs on numba's threads: the same bits; with
    # bound arrays a decreasing bound between blocks is refused (-1)
    from nanaccess.core._numba import window_fheap

    rng = np.random.default_rng(8)
    n = 3000
    x = rng.normal(size=(2, n))
    x[rng.random((2, n)) < 0.05] = np.nan
    fw = fixed_windows(n, 70, center=True)
    start, end = fw.arrays()
    plan, w_t = _plan("quantile", {"q": 0.8, "method": "hazen"}, 70)
    got = []
    for limit in (10**9, 100):
        monkeypatch.setattr(window_fheap, "PARALLEL_MIN_OUTPUTS", limit)
        monkeypatch.setattr(window_fheap, "parallel_ok", lambda n, m: True)
        for bounds in (("fixed", fw.e0, fw.step, fw.span), ("arrays", start, end)):
            out = np.empty((2, n))
            cnt = np.empty((2, n), np.int64)
            assert window_fheap.fheap_select(x, bounds, n, plan.lo, plan.hi, w_t, 2, 0, out,
                                             cnt) == 1
            got.append((bits(out), cnt.tolist()))
        bad = start.copy()
        bad[n // 2] = bad[n // 2 - 1] - 1
        assert window_fheap.fheap_select(x, ("arrays", bad, end), n, plan.lo, plan.hi, w_t,
                                         2, 0, out, cnt) == -1
    assert all(g == got[0] for g in got)


def test_float_heaps_uncompiled_on_a_small_input():
    from nanaccess.core._numba.window_fheap import fheap_select

    x = np.array([3.0, np.nan, -1.0, 2.0, 2.0, 0.0, 0.0, 7.0, np.inf, -5.0, 4.0, 1.0])
    start, end = fixed_bounds(12, 4)
    plan, w_t = _plan("median", {}, 4)
    out = np.empty((1, 12))
    cnt = np.empty((1, 12), np.int64)
    assert fheap_select(x[None], ("fixed", 1, 1, 4), 12, plan.lo, plan.hi, w_t, 1, 0, out,
                        cnt, compiled=False) == 1 | 8
    assert bits(out[0]) == bits([np.nanmedian(x[s:e]) for s, e in zip(start, end,
                                                                        strict=True)])
