"""The NumPy sorted-windows engine (``core/window/sorted_windows``) serves a first
rolling order statistic while the two-heap kernel compiles: its values, counts and
NaN flags are the kernel's bit for bit (float32 and float64, every heap plan, fixed
and array bounds, signed zeros, infinities, overflowing midpoints, signaling NaNs),
and a call made while the kernel is not compiled is served by it with those bits."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import nanaccess as na
from nanaccess.core import _numba as NB
from nanaccess.core._numba.window_fused import weight_tables
from nanaccess.core.plan import rank_plan
from nanaccess.core.window import expanding_bounds, fixed_bounds, fixed_windows
from nanaccess.core.window import order as worder
from nanaccess.core.window import sorted_windows as sw
from tests.core.test_window import HEAP_CASES, bits


def _plan(stat, params, width):
    q = np.atleast_1d(params["q"]) if "q" in params else None
    plan = rank_plan(stat, np.arange(width + 1), q, params.get("method", "linear"))
    w_t = np.ascontiguousarray(np.broadcast_to(plan.weight, plan.lo.shape), np.float64)
    return plan, w_t


def _data(dtype, n, seed, zeros=(0.0, -0.0)):
    rng = np.random.default_rng(seed)
    big = np.finfo(dtype).max
    pool = np.array([big, -big, np.inf, -np.inf, 1.5, 1.5, -2.25, *zeros], dtype)
    x = np.where(rng.random(n) < 0.3, rng.choice(pool, n), rng.normal(size=n)).astype(dtype)
    x[rng.random(n) < 0.05] = np.nan
    x[n // 2 : n // 2 + 80] = np.nan  # a NaN run longer than a window: empty windows
    x[n // 4 : n // 4 + 90] = 1.5  # long ties
    return x


def _both(x2, bounds, nout, plan, w_t, minp=0, compiled=True):
    from nanaccess.core._numba.window_heap import heap_select

    mode = worder.mode_code(plan.mode)
    got = sw.sorted_select(
        x2, bounds, nout, plan.lo, plan.hi, w_t, weight_tables(w_t, x2.dtype), mode, minp
    )
    ref = heap_select(x2, bounds, nout, plan.lo, plan.hi, w_t, mode, minp, compiled=compiled)
    return got, ref


def _same(got, ref):
    assert got[2] == ref[2]
    if ref[2] >= 0:
        assert bits(got[0]) == bits(ref[0])
        assert got[1].tolist() == ref[1].tolist()


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sorted_windows_give_the_heap_kernels_bits(dtype):
    n = 700
    x = _data(dtype, n, 5)
    x2 = np.stack([x, np.roll(x, 11), -x], axis=1)
    arrays = [
        fixed_bounds(n, 40),
        fixed_bounds(n, 33, center=True, closed="both"),
        expanding_bounds(n),
        (np.arange(n) * 2 // 3, np.minimum(np.arange(n) + 50, n)),
    ]
    gaps = np.arange(0, n - 60, 70)
    arrays.append((gaps, gaps + 45))  # disjoint windows, rows between them unread
    compiled = NB.AVAILABLE
    for (start, end), (stat, params) in itertools.product(arrays, HEAP_CASES[::3]):
        plan, w_t = _plan(stat, params, int((end - start).max()))
        for minp in (0, 7):
            _same(*_both(x2, ("arrays", start, end), start.size, plan, w_t, minp, compiled))
    for window, center, step in ((40, False, None), (33, True, 3), (1, False, None)):
        fw = fixed_windows(n, window, center=center, step=step)
        plan, w_t = _plan("median", {}, fw.width)
        _same(*_both(x2, ("fixed", fw.e0, fw.step, fw.span), fw.nout, plan, w_t, 3, compiled))


@pytest.mark.parametrize("stat", ["median_low", "median_high", "median", "min", "max"])
def test_sorted_windows_pick_the_totalorder_zero(stat):
    x = np.tile([0.0, -0.0, 1.0, -1.0, -0.0, 0.0, 0.0, -0.0], 12)
    for data in (x, np.where(np.abs(x) == 1, 0.0, x), np.abs(x), -np.abs(x)):
        for width in (2, 3, 5, 40):
            fw = fixed_windows(data.size, width)
            plan, w_t = _plan(stat, {}, width)
            got, ref = _both(
                data[:, None],
                ("fixed", fw.e0, fw.step, fw.span),
                fw.nout,
                plan,
                w_t,
                compiled=NB.AVAILABLE,
            )
            _same(got, ref)
    # by hand: the min of (0.0, -0.0) is -0.0 (totalOrder), whichever comes first
    plan, w_t = _plan("min", {}, 2)
    v = sw.sorted_select(
        np.array([[0.0], [-0.0]]),
        ("fixed", 2, 1, 2),
        1,
        plan.lo,
        plan.hi,
        w_t,
        weight_tables(w_t, np.dtype(float)),
        0,
        0,
    )[0]
    assert v.view(np.uint64)[0, 0] == np.float64(-0.0).view(np.uint64)


def test_sorted_windows_midpoint_overflow_and_signaling_nans():
    big = np.finfo(np.float64).max
    x = np.array([big, big, -big, np.inf, np.inf, -np.inf, 1.0])
    snan = np.array(0x7FF0000000000001, np.int64).view(np.float64)
    xs = np.concatenate([x, [snan, 2.0]])
    plan, w_t = _plan("median", {}, 2)
    for data in (x, xs):
        start, end = fixed_bounds(data.size, 2)
        got, ref = _both(
            data[:, None], ("arrays", start, end), start.size, plan, w_t, compiled=NB.AVAILABLE
        )
        _same(got, ref)
    got = sw.sorted_select(
        xs[:, None],
        ("arrays", start, end),
        start.size,
        plan.lo,
        plan.hi,
        w_t,
        weight_tables(w_t, xs.dtype),
        1,
        0,
    )
    assert got[0][1, 0] == big and got[2] == 3  # (big + big) / 2 without overflow
    down = sw.sorted_select(
        x[:, None],
        ("arrays", np.array([2, 1]), np.array([3, 4])),
        2,
        plan.lo,
        plan.hi,
        w_t,
        weight_tables(w_t, x.dtype),
        1,
        0,
    )
    assert down[2] == -1  # a decreasing start: nothing valid, as the kernel


@pytest.mark.skipif(not NB.AVAILABLE, reason="numba is not installed")
def test_a_rolling_median_while_the_kernel_compiles_is_served_by_sorting(monkeypatch):
    # the heap kernel not ready: the call is served by the sorted windows (asked once),
    # with the compiled kernel's bits; windows too large for sorting compile instead
    pd = pytest.importorskip("pandas")
    from nanaccess.core._numba import window_heap

    x = _data(np.float64, 3000, 9)
    s = pd.Series(x)
    want = s.rolling(45, min_periods=3).nanstats.median(nan_policy="omit", engine="numba")
    calls = []
    real = sw.sorted_select

    def spy(*a, **k):
        calls.append(a[2])
        return real(*a, **k)

    def not_ready(*a, **k):
        if k.get("defer"):
            raise NB.NotReady("compiling")
        return heap(*a, **k)

    heap = window_heap.heap_select
    monkeypatch.setattr(worder, "sorted_select", spy)
    monkeypatch.setattr(window_heap, "heap_select", not_ready)
    with na.set_options(compile="background"):
        got = s.rolling(45, min_periods=3).nanstats.median(nan_policy="omit")
        assert calls == [3000]
        assert bits(got.to_numpy()) == bits(want.to_numpy())
        monkeypatch.setattr(sw, "MAX_ELEMENTS", 1000)
        again = s.rolling(45, min_periods=3).nanstats.median(nan_policy="omit")
        assert calls == [3000] and bits(again.to_numpy()) == bits(want.to_numpy())


def test_sorted_ok_bounds_the_work():
    assert sw.sorted_ok(200_000, 50, 1)
    assert not sw.sorted_ok(10**6, 10**4, 1)
