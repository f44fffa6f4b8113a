"""Certified moving variances (``core/_numba/window_var.binned_var``): every output
the fixed bins certify equals the exact variance (Fraction) bit for bit, the rest are
left to the exact kernel, and the windowed entry points equal the NumPy engine."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nanaccess.core import _numba as NB
from nanaccess.core.window import expanding_bounds, fixed_bounds, window_reduce
from nanaccess.core.window.bounds import FixedWindows, fixed_windows

pytestmark = pytest.mark.skipif(not NB.AVAILABLE, reason="numba not installed or disabled")

if NB.AVAILABLE:
    from nanaccess.core._numba import window_var as wv


def exact_var(vals: np.ndarray, ddof: int) -> float:
    """The exact engine's definition: (n Q - S**2) / (n (n - ddof)) rounded once."""
    v = vals[~np.isnan(vals)]
    n = len(v)
    if n - ddof <= 0:
        return float("nan")
    s = sum((Fraction(float(t)) for t in v), Fraction(0))
    q = sum((Fraction(float(t)) ** 2 for t in v), Fraction(0))
    return float((n * q - s * s) / (n * (n - ddof)))


def same_bits(a, b) -> bool:
    a = np.ascontiguousarray(np.asarray(a, dtype=np.float64))
    b = np.ascontiguousarray(np.asarray(b, dtype=np.float64))
    return a.shape == b.shape and np.array_equal(a.view(np.uint64), b.view(np.uint64))


def run(x, start, end, ddof, **kw):
    """(values, bad, flags) of the compiled certified kernel."""
    nout = start.nout if end is None else len(start)
    out = np.zeros(nout)
    cnt = np.zeros(nout, np.int64)
    bad = np.zeros(nout, bool)
    flags = wv.binned_var(np.ascontiguousarray(x, np.float64), start, end, ddof, out, cnt,
                          bad, **kw)
    return out, bad, flags


def check_certified(x, start, end, ddof, **kw) -> np.ndarray:
    """Every certified output equals the Fraction value; returns the bad mask."""
    out, bad, flags = run(x, start, end, ddof, **kw)
    assert flags >= 0
    if end is None:
        start, end = start.arrays()
    for i in np.flatnonzero(~bad):
        want = exact_var(x[start[i]:end[i]], ddof)
        assert same_bits(out[i], want), (i, out[i], want)
    return bad


def check_entry(x, start, end, stat, ddof):
    """window_reduce on the numba engine (the certified path first) equals NumPy's."""
    got = window_reduce(x, start, end, stat, policy="omit", engine="numba", ddof=ddof)
    if isinstance(start, FixedWindows):
        start, end = start.arrays()
    want = window_reduce(x, start, end, stat, policy="omit", engine="numpy", ddof=ddof)
    assert got.values.dtype == want.values.dtype
    assert same_bits(got.values, want.values)
    assert np.array_equal(got.count, want.count)


def _with_nans(x, nan_at):
    x = np.array(x, dtype=np.float64)
    for k in nan_at:
        x[k % len(x)] = np.nan
    return x


moderate = st.lists(  # random sign and mantissa bits, exponents within 2**+-200
    st.tuples(st.integers(0, 1), st.integers(823, 1223), st.integers(0, 2**52 - 1)).map(
        lambda t: (t[0] << 63) | (t[1] << 52) | t[2]), min_size=2, max_size=60).map(
    lambda v: np.array(v, dtype=np.uint64).view(np.float64))
wide = st.lists(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e150,
                          max_value=1e150), min_size=2, max_size=60).map(np.array)
offset = st.tuples(st.floats(-1e9, 1e9), st.integers(-60, 10),
                   st.lists(st.integers(-1000, 1000), min_size=2, max_size=60)).map(
    lambda t: t[0] + np.array(t[2], dtype=np.float64) * 2.0 ** t[1])
data = st.tuples(st.one_of(moderate, wide, offset), st.lists(st.integers(0, 100),
                                                              max_size=5)).map(
    lambda t: _with_nans(*t))


@settings(max_examples=120, deadline=None)
@given(data, st.integers(1, 12), st.integers(0, 2))
def test_moving_certified_equal_fraction(x, w, ddof):
    start, end = fixed_bounds(len(x), w)
    check_certified(x, start, end, ddof)


@settings(max_examples=80, deadline=None)
@given(data, st.integers(0, 2))
def test_expanding_certified_equal_fraction(x, ddof):
    start, end = expanding_bounds(len(x))
    check_certified(x, start, end, ddof)


@settings(max_examples=60, deadline=None)
@given(data, st.integers(1, 12), st.integers(0, 2), st.sampled_from(["var", "std"]))
def test_entry_equals_numpy_engine(x, w, ddof, stat):
    check_entry(x, *fixed_bounds(len(x), w), stat, ddof)
    check_entry(x, *expanding_bounds(len(x)), stat, ddof)


def test_long_expanding_folds():
    """Growing windows beyond a few CUM_BLOCKs (the bins folded into running pairs)."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal(4 * wv.CUM_BLOCK + 37) * 10.0 ** rng.integers(-3, 4, 1)
    x[::53] = np.nan
    start, end = expanding_bounds(len(x))
    wv.reset_stats()
    bad = check_certified(x, start[::9], end[::9], 1)
    assert not bad.any() and wv.stats()["certified"] == bad.size
    check_entry(x, start, end, "var", 1)


def test_expanding_every_output_plain_and_not():
    """Every output of growing windows (chunks of CUM_CHUNK outputs certified
    together, before each fold), with the plain bounds (ends one apart: not read
    again) and the same windows given with repeated ends (read one by one), equals
    the exact variance; a first window of several values and an offset (the shift c)
    included. The pure-Python kernels agree bit for bit on a short prefix."""
    rng = np.random.default_rng(11)
    n = wv.CUM_CHUNK + 2 * wv.CUM_BLOCK + 5
    for x in (rng.standard_normal(n), rng.standard_normal(n) * 1e-3 + 1e5,
              np.round(rng.standard_normal(n) * 4) / 4):
        x[rng.random(n) < 0.1] = np.nan
        start = np.zeros(n, np.int64)
        for end in (np.arange(1, n + 1), np.arange(4, n + 4).clip(0, n),
                    np.repeat(np.arange(1, n // 2 + 1), 2)[:n]):
            for ddof in (0, 1) if end[0] == 1 else (1,):
                bad = check_certified(x, start[:len(end)], end, ddof)
                assert bad.mean() < 0.05
        m = 90
        a = run(x[:m], start[:m], np.arange(1, m + 1), 1)
        b = run(x[:m], start[:m], np.arange(1, m + 1), 1, compiled=False)
        assert same_bits(a[0], b[0]) and np.array_equal(a[1], b[1])


def test_drift_zeros_after_huge_values():
    """Huge values leave the bins exactly: the later windows of zeros give exactly 0
    and small values after them their exact variance (no rounding residue)."""
    x = np.concatenate([np.full(30, 3.0e140), [1e140, -7e139], np.zeros(20),
                        np.arange(1.0, 21.0) * 1e-3, [np.nan], np.arange(5.0)])
    start, end = fixed_bounds(len(x), 6)
    out, bad, _ = run(x, start, end, 1)
    z = slice(38, 52)  # windows of zeros only
    assert not bad[z].any() and same_bits(out[z], np.zeros(14))
    check_certified(x, start, end, 1)
    for stat in ("var", "std"):
        check_entry(x, start, end, stat, 1)


def test_fixed_windows_without_arrays():
    rng = np.random.default_rng(3)
    x = rng.standard_normal(5000) + 100.0
    x[rng.random(5000) < 0.02] = np.nan
    fw = fixed_windows(len(x), 7)
    bad = check_certified(x[:600], fixed_windows(600, 7), None, 1)
    assert not bad.all()
    check_entry(x, fw, None, "var", 1)
    check_entry(x, fw, None, "std", 0)


def test_exact_tie_falls_back_and_counts():
    # [0, a], ddof=0: var = a**2 / 4 with a odd, a**2 of 54 bits: a half-way point
    a = 2 ** 27 - 1
    x = np.array([0.0, float(a)] * 3)
    start, end = fixed_bounds(len(x), 2)
    wv.reset_stats()
    out, bad, flags = run(x, start, end, 0)
    assert bad[1:].all() and flags & 2
    assert wv.stats() == {"certified": 1, "fallback": 5}  # window 0 holds one value
    got = window_reduce(x, start, end, "var", policy="omit", engine="numba", ddof=0)
    want = Fraction(a * a, 4)
    assert got.values[1] == float(want)  # rounded half to even by the exact kernel
    check_entry(x, start, end, "var", 0)


@settings(max_examples=40, deadline=None)
@given(st.integers(2 ** 26, 2 ** 27), st.integers(0, 3))
def test_near_ties_of_integers(a, pad):
    """Integer windows whose exact variance sits at or next to a half-way point."""
    x = np.array([0.0, float(a)] + [float(a) / 2 + 0.5 * k for k in range(pad)] + [3.0])
    for ddof in (0, 1):
        start, end = fixed_bounds(len(x), len(x) - 1)
        check_certified(x, start, end, ddof)
        check_entry(x, start, end, "var", ddof)


def test_constant_windows_exactly_zero():
    x = np.array([5.5] * 8 + [np.nan] + [5.5] * 3 + [-0.0, 0.0, 0.0])
    start, end = fixed_bounds(len(x), 4)
    out, bad, _ = run(x, start, end, 0)
    assert not bad.any()
    check_entry(x, start, end, "var", 0)


def test_bound_matters():
    """With coarse bins (few bits between them) the bound decides: certified outputs
    stay exact; the same run with the bound scaled to 0 returns wrong bits (so the
    tests above would catch a bound of 0)."""
    rng = np.random.default_rng(11)
    x = 1000.0 + rng.standard_normal(400)
    for start, end in (fixed_bounds(len(x), 9), expanding_bounds(len(x))):
        bad = check_certified(x, start, end, 1, spread=6)
        assert bad.any() and not bad.all()
        out, bad0, _ = run(x, start, end, 1, spread=6, scale=0.0)
        want = np.array([exact_var(x[s:e], 1) for s, e in zip(start, end, strict=True)])
        assert (out[~bad0] != want[~bad0]).any()


def test_out_of_range_and_infinities_not_served():
    x = np.array([1.0, 2.0, np.inf, 4.0])
    start, end = fixed_bounds(4, 2)
    assert run(x, start, end, 0)[2] == -1
    assert run(np.array([1e200, 1.0, 2e-300]), *fixed_bounds(3, 2), 0)[2] == -1  # too wide
    assert run(np.array([1e200, 1.0, 2.0]), *fixed_bounds(3, 2), 0)[2] >= 0  # rescaled
    for y in (x, np.array([1e200, 1.0, 2.0, 3.0]), np.array([1e-300, 2e-300, 1.0, 1e-310]),
              np.array([1e200, 1.0, 2e-300, 5.0])):
        s, e = fixed_bounds(len(y), 2)
        check_entry(y, s, e, "var", 0)


def test_pandas_accessors_take_the_certified_path():
    from nanaccess.options import option_context

    rng = np.random.default_rng(5)
    s = pd.Series(rng.standard_normal(5000))
    s[rng.random(5000) < 0.01] = np.nan
    for dtype in (np.float64, np.float32):
        t = s.astype(dtype)
        for r in (t.rolling(25, min_periods=1), t[:700].expanding()):
            wv.reset_stats()
            got = r.nanstats.var(nan_policy="omit")
            assert wv.stats()["certified"] > 0
            with option_context(engine="numpy"):
                want = r.nanstats.var(nan_policy="omit")
            assert got.dtype == want.dtype == dtype
            assert same_bits(got.to_numpy(np.float64), want.to_numpy(np.float64))
            got = r.nanstats.std(nan_policy="omit", ddof=0)
            with option_context(engine="numpy"):
                want = r.nanstats.std(nan_policy="omit", ddof=0)
            assert same_bits(got.to_numpy(np.float64), want.to_numpy(np.float64))


@pytest.mark.parametrize("offset", [1e3, -1e6, 3e9])
def test_offsets_certified_through_the_shift(offset):
    """Data far from 0 (prices, levels): Q is kept of ``v - c`` (c the midrange), so
    the cancellation in n Q - S**2 does not send the windows to the exact kernel."""
    rng = np.random.default_rng(int(abs(offset)) % 97)
    x = offset + rng.standard_normal(400) * 1e-2
    x[::37] = np.nan
    for start, end in (fixed_bounds(len(x), 20), expanding_bounds(len(x))):
        wv.reset_stats()
        bad = check_certified(x, start, end, 1)
        assert bad.mean() < 0.05 and wv.stats()["certified"] > 0.95 * bad.size
        check_entry(x, start, end, "var", 1)


def test_fallback_windows_with_values_outside_the_expansion_range():
    """Near-ties next to a value below 2**-400 (or above 2**400): not certified, and
    the exact expansion hands those windows on to the reference engine."""
    a = float(2 ** 27 - 1)
    for odd in (1e-125, 3e125):
        x = np.array([0.0, a, odd, 0.0, a, 5.0, np.nan, 0.0, a] * 3)
        for start, end in (fixed_bounds(len(x), 3), fixed_bounds(len(x), 2),
                           expanding_bounds(len(x))):
            wv.reset_stats()
            check_entry(x, start, end, "var", 0)
            assert wv.stats()["fallback"] > 0


@settings(max_examples=40, deadline=None)
@given(data, st.integers(1, 9), st.sampled_from(["sum", "mean", "var", "std"]))
def test_float32_moments_equal_numpy_engine(x, w, stat):
    """float32 moments are widened exactly and the float64 result cast (the reference
    engine's rounding), on the fused kernels."""
    with np.errstate(over="ignore"):
        x32 = x.astype(np.float32)
    params = {"ddof": 1} if stat in ("var", "std") else {}
    for start, end in (fixed_bounds(len(x), w), expanding_bounds(len(x))):
        got = window_reduce(x32, start, end, stat, policy="omit", engine="numba", **params)
        want = window_reduce(x32, start, end, stat, policy="omit", engine="numpy", **params)
        assert got.values.dtype == want.values.dtype == np.float32
        assert np.array_equal(got.values.view(np.uint32), want.values.view(np.uint32))


def test_bursts_recertified_on_local_bins():
    """A few huge values coarsen the column's bins: the windows away from them are
    certified again on bins sized to their own values (a second run of the kernel),
    not sent to the exact kernel, and still equal the NumPy engine."""
    rng = np.random.default_rng(2)
    x = rng.standard_normal(3000)
    x[[500, 501, 2200]] = [1e120, -3e119, 1e8]
    x[rng.random(3000) < 0.02] = np.nan
    for start, end in (fixed_bounds(len(x), 30), fixed_bounds(len(x), 4)):
        wv.reset_stats()
        got = window_reduce(x, start, end, "var", policy="omit", engine="numba", ddof=1)
        st = wv.stats()
        assert st["fallback"] > 0 and st["certified"] >= len(start)  # all certified at last
        want = window_reduce(x, start, end, "var", policy="omit", engine="numpy", ddof=1)
        assert same_bits(got.values, want.values)


@pytest.mark.parametrize("rows", [20, 120])
def test_columns_equal_numpy_engine(rows):
    """Several columns: each certified on its own bins (short columns: the sliding
    engine), every output equal to the NumPy engine's."""
    rng = np.random.default_rng(rows)
    x = rng.standard_normal((rows, 4)) * np.array([1.0, 1e-3, 1e6, 1.0]) + np.array(
        [0.0, 5.0, 0.0, 1e9])
    x[rng.random(x.shape) < 0.05] = np.nan
    for start, end in (fixed_bounds(rows, 6), expanding_bounds(rows)):
        for stat in ("var", "std"):
            got = window_reduce(x, start, end, stat, policy="omit", engine="numba", ddof=1)
            want = window_reduce(x, start, end, stat, policy="omit", engine="numpy", ddof=1)
            assert same_bits(got.values, want.values)
            assert np.array_equal(got.count, want.count)


@pytest.mark.parametrize("scale", [1e-150, 1e-165, 3e-310, 1e200, 1e280])
def test_tiny_and_huge_data_rescaled(scale):
    """Data outside [2**-200, 2**500) is certified on ``x * 2**k`` and the results
    scaled back (exact while normal; subnormal variances, as of 1e-165 or 3e-310
    data, are left to the exact engines)."""
    rng = np.random.default_rng(9)
    x = rng.standard_normal(300) * scale
    x[::29] = np.nan
    for start, end in (fixed_bounds(len(x), 8), expanding_bounds(len(x))):
        wv.reset_stats()
        for stat in ("var", "std"):
            check_entry(x, start, end, stat, 1)
        if scale in (1e-150, 1e200):
            assert wv.stats()["certified"] > 0
