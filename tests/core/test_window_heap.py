"""The two-heap kernel (``core/_numba/window_heap``: float keys, 8-ary, the data read
in place through strides) and fixed windows passed as numbers (``FixedWindows``): the
bits of the totalOrder-key buffer kernel and of the plain reduction of every window,
signed zeros included."""

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


def _heap(x2, bounds, nout, plan, w_t, mode, minp=0, **kw):
    from nanaccess.core._numba.window_heap import heap_select

    return heap_select(x2, bounds, nout, plan.lo, plan.hi, w_t, mode, minp, **kw)


def _buffer(xt, start, end, plan, w_t, mode):
    """The sorted-buffer kernel on totalOrder keys (``window_fused``): the reference."""
    from nanaccess.core._numba.window_fused import fused_select

    out = np.empty((1, xt.shape[0], start.size), xt.dtype)
    cnt = np.empty((xt.shape[0], start.size), np.int64)
    flags = fused_select(xt, start, end, plan.lo, plan.hi, w_t, mode, out, cnt)
    return out[0].T, cnt.T, flags


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("zeros", [(0.0,), (0.0, -0.0), (-0.0,)])
def test_heaps_give_the_totalorder_buffers_bits(dtype, zeros):
    # both signed zeros in a window: the picked zero is totalOrder's (-0.0 < 0.0),
    # from the count of sign-bit numbers, never a fallback kernel
    from nanaccess.core.window.order import mode_code

    n = 900
    x = _data(dtype, n, 5, zeros)
    bounds = [fixed_bounds(n, 40), fixed_bounds(n, 33, center=True, closed="both"),
              expanding_bounds(n), (np.arange(n) * 2 // 3, np.minimum(np.arange(n) + 50, n))]
    gaps = np.arange(0, n - 60, 70)
    bounds.append((gaps, gaps + 45))  # disjoint: each window starts afresh
    for (start, end), (stat, params) in itertools.product(bounds, HEAP_CASES):
        plan, w_t = _plan(stat, params, int((end - start).max()))
        mode = mode_code(plan.mode)
        ref, rcnt, rflags = _buffer(x[None], start, end, plan, w_t, mode)
        assert rflags == 1
        out, cnt, flags = _heap(x[:, None], ("arrays", start, end), start.size, plan, w_t,
                                mode)
        assert flags == 1
        assert bits(out) == bits(ref), (stat, params)
        assert cnt.tolist() == rcnt.tolist()


@pytest.mark.parametrize("stat", ["median_low", "median_high", "median", "min", "max"])
def test_heaps_pick_the_totalorder_zero(stat):
    # windows of only zeros of both signs, and zeros among negatives and positives
    x = np.tile([0.0, -0.0, 1.0, -1.0, -0.0, 0.0, 0.0, -0.0], 12)
    for data in (x, np.where(np.abs(x) == 1, 0.0, x), np.abs(x), -np.abs(x)):
        for width in (2, 3, 4, 5, 40):
            start, end = fixed_bounds(data.size, width)
            assert_exact(data, None, start, end, stat, NanPolicy.OMIT, "numba")
            fw = fixed_windows(data.size, width)
            plan, w_t = _plan(stat, {}, width)
            from nanaccess.core.window.order import mode_code

            out = _heap(data[:, None], ("fixed", fw.e0, fw.step, fw.span), fw.nout, plan,
                        w_t, mode_code(plan.mode))[0]
            ref = _buffer(data[None], start, end, plan, w_t, mode_code(plan.mode))[0]
            assert bits(out) == bits(ref)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("layout", ["C", "F", "strided", "long"])
def test_heaps_read_columns_in_place(monkeypatch, dtype, layout):
    # C-ordered blocks read through strides (no transposed copy), F-ordered columns,
    # a non-contiguous view and long C blocks (one copy): the same bits as one column
    # at a time
    from nanaccess.core._numba import window_heap

    if layout == "long":
        monkeypatch.setattr(window_heap, "STRIDED_MAX_ROWS", 10)
    rng = np.random.default_rng(4)
    n, ncols = 120, 7
    base = rng.normal(size=(n, 2 * ncols)).astype(dtype)
    base[rng.random(base.shape) < 0.1] = np.nan
    base[:, 3] = np.nan  # an all-NaN column (land)
    base[::5, 1] = -0.0
    base[::3, 1] = 0.0
    x2 = {"C": np.ascontiguousarray(base[:, :ncols]), "F": np.asfortranarray(base[:, :ncols]),
          "strided": base[:, ::2], "long": np.ascontiguousarray(base[:, :ncols])}[layout]
    plan, w_t = _plan("quantile", {"q": 0.4, "method": "hazen"}, 9)
    out, cnt, flags = _heap(x2, ("fixed", 5, 1, 9), n, plan, w_t, 2, 3)
    assert flags == 1 and out.shape == (n, ncols) and cnt.shape == (n, ncols)
    for c in range(ncols):
        one, ocnt, _ = _heap(np.ascontiguousarray(x2[:, c:c + 1]), ("fixed", 5, 1, 9), n,
                             plan, w_t, 2, 3)
        assert bits(out[:, c]) == bits(one[:, 0]) and (cnt[:, c] == ocnt[:, 0]).all()


@pytest.mark.parametrize("window", [0, 1, 2, 33, 40, 41, 64, 200])
@pytest.mark.parametrize("center", [False, True])
@pytest.mark.parametrize("closed", [None, "left", "both", "neither"])
@pytest.mark.parametrize("step", [None, 3, 50])
def test_kernel_bounds_fixed_windows_as_the_arrays(window, center, closed, step):
    # the kernel's bounds from (e0, step, span) are fixed_bounds' arrays: the same
    # values and counts, and windows short of min_periods are the empty fill
    n = 150
    x = _data(np.float64, n, 11)
    fw = fixed_windows(n, window, center=center, closed=closed, step=step)
    start, end = fixed_bounds(n, window, center=center, closed=closed, step=step)
    assert fw.nout == start.size and fw.width >= int((end - start).max(initial=0))
    assert all(np.array_equal(a, b) for a, b in zip(fw.arrays(), (start, end), strict=True))
    plan, w_t = _plan("quantile", {"q": 0.3, "method": "hazen"}, fw.width)
    got = []
    for bounds in (("fixed", fw.e0, fw.step, fw.span), ("arrays", start, end)):
        out, cnt, flags = _heap(x[:, None], bounds, fw.nout, plan, w_t, 2, 7)
        assert flags >= 0
        got.append((bits(out), cnt.tolist()))
        short = cnt[:, 0] < 7
        assert np.isnan(out[short, 0]).all()
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


def test_heaps_in_parallel_tasks(monkeypatch):
    # long inputs run in blocks of outputs on numba's threads: the same bits; with
    # bound arrays a decreasing bound between blocks is refused (-1)
    from nanaccess.core._numba import window_heap

    rng = np.random.default_rng(8)
    n = 3000
    x = rng.normal(size=(n, 2))
    x[rng.random((n, 2)) < 0.05] = np.nan
    fw = fixed_windows(n, 70, center=True)
    start, end = fw.arrays()
    plan, w_t = _plan("quantile", {"q": 0.8, "method": "hazen"}, 70)
    got = []
    for limit in (10**9, 100):
        monkeypatch.setattr(window_heap, "PARALLEL_MIN_OUTPUTS", limit)
        monkeypatch.setattr(window_heap, "parallel_ok", lambda n, m: True)
        for bounds in (("fixed", fw.e0, fw.step, fw.span), ("arrays", start, end)):
            out, cnt, flags = _heap(x, bounds, n, plan, w_t, 2)
            assert flags == 1
            got.append((bits(out), cnt.tolist()))
        bad = start.copy()
        bad[n // 2] = bad[n // 2 - 1] - 1
        assert _heap(x, ("arrays", bad, end), n, plan, w_t, 2)[2] == -1
        many = np.repeat(x, 3, axis=1)  # columns as tasks on the threads
        out3, cnt3, flags = _heap(many, ("fixed", fw.e0, fw.step, fw.span), n, plan, w_t, 2)
        assert flags == 1 and bits(out3[:, ::3]) == got[0][0]
    assert all(g == got[0] for g in got)


def test_heaps_uncompiled_on_a_small_input():
    x = np.array([3.0, np.nan, -1.0, 2.0, 2.0, 0.0, 0.0, 7.0, np.inf, -5.0, 4.0, 1.0])
    start, end = fixed_bounds(12, 4)
    plan, w_t = _plan("median", {}, 4)
    out, cnt, flags = _heap(x[:, None], ("fixed", 1, 1, 4), 12, plan, w_t, 1,
                            compiled=False)
    assert flags == 1
    assert bits(out[:, 0]) == bits([np.nanmedian(x[s:e]) for s, e in zip(start, end,
                                                                        strict=True)])
