"""The sliding mad (issue 25, class 7): the sorted-buffer kernel with the deviations'
median by selection in two sorted runs, O(n log w), bit for bit the reference
engine's mad (float64, float32 and float16 (the float64 kernel rounding as float16
does), ties, signed zeros, NaNs under every policy,
infinities, values near the overflow threshold, every window shape, scale)."""

from __future__ import annotations

import numpy as np
import pytest

from nanaccess.core import _numba as NB
from nanaccess.core.window import expanding_bounds, fixed_bounds, time_bounds, window_reduce
from nanaccess.core.window import reference as wref
from nanaccess.options import resolve_policy

pytestmark = pytest.mark.skipif(not NB.AVAILABLE, reason="the sliding mad needs numba")


def data(case, dtype, n=400):
    rng = np.random.default_rng(11)
    x = rng.normal(size=n).astype(dtype)
    if case == "ties":
        x = (rng.integers(0, 4, n) / 2).astype(dtype)
    elif case == "nan":
        x[::13] = np.nan
        with np.errstate(invalid="ignore"):
            x[5] = np.array(np.inf, dtype) - np.array(np.inf, dtype)  # negative on x86
    elif case == "inf":
        x[[100, 101]] = [np.inf, -np.inf]
    elif case == "zeros":
        x[::3] = -0.0
        x[1::3] = 0.0
    elif case == "huge":
        big = np.finfo(dtype).max
        x = (rng.choice([-1.0, 1.0], n) * (big / rng.integers(1, 3, n))).astype(dtype)
    return x


def bounds(n):
    t = np.cumsum(np.random.default_rng(2).integers(0, 3, n)).astype("datetime64[s]")
    return {"odd": fixed_bounds(n, 7), "even": fixed_bounds(n, 8, center=True),
            "expanding": expanding_bounds(n), "time": time_bounds(t, np.timedelta64(9, "s")),
            "groups": fixed_bounds(n, 6, groups=np.repeat([0, 1], n // 2))}


@pytest.mark.parametrize("case", ["plain", "ties", "nan", "inf", "zeros", "huge"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
@pytest.mark.parametrize("policy", ["omit", "propagate", "largest", "totalorder"])
def test_sliding_mad_equals_reference(case, dtype, policy):
    x = data(case, dtype)
    for name, (s, e) in bounds(x.size).items():
        for scale in (1.0, "normal"):
            got = window_reduce(x, s, e, "mad", policy=policy, engine="numba", scale=scale)
            want = wref.window_reference(x[:, None], None, s, e, "mad", resolve_policy(policy),
                                 "numpy", {"scale": scale})[0][:, 0]
            assert got.values.dtype == want.dtype
            assert np.array_equal(got.values.view(np.uint8), want.view(np.uint8)), (
                name, scale)


def test_sliding_mad_int_and_two_columns():
    rng = np.random.default_rng(3)
    x = rng.integers(-(2**40), 2**40, (300, 2))
    s, e = fixed_bounds(300, 10)
    got = window_reduce(x, s, e, "mad", policy="omit", engine="numba")
    want = wref.window_reference(x, None, s, e, "mad", resolve_policy("omit"), "numpy", {})[0]
    assert np.array_equal(got.values, want)


def test_sliding_mad_plain_python_kernel():
    from nanaccess.core._numba.window_mad import slide_mad

    x = np.array([[1.0, 5.0, 2.0, 8.0, 3.0, 3.0, -1.0]])
    s, e = fixed_bounds(7, 4)
    got, redo = slide_mad(x, np.ones(x.shape, bool), s, e, compiled=False)
    want = [np.median(np.abs(x[0, a:b] - np.median(x[0, a:b]))) for a, b in zip(s, e,
                                                                              strict=True)]
    assert got[0].tolist() == want and not redo.any()


def test_long_expanding_mad_skips_the_reference(monkeypatch):
    pairs = []
    real = wref.window_reference
    monkeypatch.setattr(wref, "window_reference", lambda x2, m, s, e, *a: (
        pairs.append(int((e - s).sum())), real(x2, m, s, e, *a))[1])
    n = 30_000
    x = np.random.default_rng(0).normal(size=n)
    x[::17] = np.nan
    s, e = expanding_bounds(n)
    got = window_reduce(x, s, e, "mad", policy="omit", engine="numba")
    assert not pairs
    last = x[~np.isnan(x)]
    assert got.values[-1] == np.median(np.abs(last - np.median(last)))


@pytest.mark.parametrize("policy", ["omit", "propagate", "smallest", "totalorder"])
def test_float16_mad_windows_skip_the_reference(monkeypatch, policy):
    # float16 (issue 25's leftover): the compiled kernel answers, the reference engine
    # only sees the windows holding a NaN the policy keeps; the bits are its bits,
    # midpoints that overflow float16 and subnormal deviations included
    pairs = []
    real = wref.window_reference
    monkeypatch.setattr(wref, "window_reference", lambda x2, m, s, e, *a: (
        pairs.append(int((e - s).sum())), real(x2, m, s, e, *a))[1])
    rng = np.random.default_rng(3)
    n = 3000
    x = (rng.normal(size=n) * 2.0 ** rng.integers(-26, 12, n)).astype(np.float16)
    x[::40] = np.float16(65504.0)
    x[1::40] = np.float16(6e-8)
    x[::97] = np.nan
    s, e = fixed_bounds(n, 50)
    got = window_reduce(x, s, e, "mad", policy=policy, engine="numba")
    assert got.engine == "sliding mad"
    kept = 0 if policy == "omit" else int(sum(
        (e[i] - s[i]) for i in range(n) if np.isnan(x[s[i]:e[i]]).any()))
    assert sum(pairs) == kept
    want = real(x[:, None], None, s, e, "mad", resolve_policy(policy), "numpy", {})[0][:, 0]
    assert got.values.dtype == np.float16
    assert np.array_equal(got.values.view(np.uint16), want.view(np.uint16))
