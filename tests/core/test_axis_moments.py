"""Exact moments along an axis of gridded data (``exactsum.axis``, the tiled kernel of
``_numba.compensated_axis``): every cell bit-equal to the exact value rounded once to
the data's dtype (Fraction references, float32 rounded directly from the rational, not
through float64), for C and F order, every axis, float32/float64, 0/1/30 % NaN, all-NaN
and all-zero cells, subnormals, cancelling and wide-range cells, arithmetic NaNs."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nanaccess as na
from nanaccess.core import _numba as NB
from nanaccess.core.exactsum.axis import axis_moments
from nanaccess.core.moments import moment_stat
from nanaccess.errors import NaNError

NEEDS_NUMBA = pytest.mark.skipif(not NB.AVAILABLE, reason="numba not installed or disabled")


def _round_to(q: Fraction, dt) -> float:
    """``q`` correctly rounded to ``dt`` (half-even), by exact distances."""
    dt = np.dtype(dt)
    try:
        f = float(q)
    except OverflowError:
        f = float("inf") if q > 0 else float("-inf")
    with np.errstate(over="ignore"):
        c = np.asarray(f).astype(dt)
    if not np.isfinite(c):
        return float(c)
    best = None
    for cand in (np.nextafter(c, dt.type(-np.inf)), c, np.nextafter(c, dt.type(np.inf))):
        if not np.isfinite(cand):
            continue
        d = abs(Fraction(float(cand)) - q)
        even = int(np.asarray(cand).view(f"u{dt.itemsize}")) % 2 == 0
        key = (d, not even)
        if best is None or key < best[0]:
            best = (key, float(cand))
    return best[1]


def _sqrt_to(v: Fraction, dt) -> float:
    """The correctly rounded square root of ``v >= 0`` in ``dt`` (midpoint squares)."""
    dt = np.dtype(dt)
    c = np.sqrt(np.float64(float(v))).astype(dt)
    for cand in (np.nextafter(c, dt.type(0)), c, np.nextafter(c, dt.type(np.inf))):
        cf = Fraction(float(cand))
        lo = (cf + Fraction(float(np.nextafter(cand, dt.type(0))))) / 2
        hi = (cf + Fraction(float(np.nextafter(cand, dt.type(np.inf))))) / 2
        if lo * lo <= v <= hi * hi:
            return float(cand)
    raise AssertionError("no candidate")


def reference(cell: np.ndarray, stat: str, ddof: int = 0) -> float:
    """The exact ``stat`` of the non-NaN values of ``cell``, rounded to its dtype (a
    float64 standard deviation: NumPy's sqrt of the correctly rounded variance)."""
    dt = cell.dtype
    fr = [Fraction(float(v)) for v in cell.tolist() if v == v]
    n = len(fr)
    s = sum(fr, Fraction(0))
    if stat == "sum":
        if n and s == 0 and all(np.signbit(v) for v in cell if v == v):
            return -0.0
        return _round_to(s, dt)
    if n == 0 or (stat in ("var", "std") and n - ddof <= 0):
        return float("nan")
    if stat == "mean":
        if s == 0 and all(np.signbit(v) for v in cell if v == v):
            return -0.0
        return _round_to(s / n, dt)
    q = sum((f * f for f in fr), Fraction(0))
    var = (n * q - s * s) / (n * (n - ddof))
    if stat == "var":
        return _round_to(var, dt)
    if dt == np.float64:
        return float(np.sqrt(_round_to(var, dt)))
    return _sqrt_to(var, dt)


def _grid(dt, nan_frac: float, order: str, seed: int = 0) -> np.ndarray:
    """A (70, 5, 12) grid: normal data plus hard cells along axis 0 (all-NaN, zeros,
    signed zeros, cancelling, wide range, subnormal, float32 midpoints)."""
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((70, 5, 12)) * 3 + 100).astype(dt)
    if nan_frac:
        with np.errstate(invalid="ignore"):
            x[rng.random(x.shape) < nan_frac] = np.float64(0) / np.float64(0)  # negative NaN
    x[:, 0, 0] = np.nan  # all-NaN cell
    x[:, 0, 1] = 0.0  # zeros of both signs
    x[::2, 0, 1] = -0.0
    x[:, 0, 2] = -0.0
    x[:, 0, 3] = 0.0
    x[:3, 0, 3] = [1e7, 1.0, -1e7]  # cancelling (float32-exact values)
    big = 1e300 if dt == np.float64 else 1e30
    x[:, 0, 4] = rng.standard_normal(70) * np.array([big, 1.0 / big] * 35)  # wide range
    tiny = np.finfo(dt).smallest_subnormal
    x[:, 0, 5] = tiny * rng.integers(-5, 6, 70)  # subnormal sums
    x[:, 0, 6] = 0.0  # a float32 midpoint: 1 + 2**-24 + 2**-80 (and a NaN)
    x[:3, 0, 6] = [1.0, 2.0 ** -24, 2.0 ** -80]
    x[5, 0, 6] = np.nan
    x[:, 0, 7] = 3.0  # var 0, mean exact
    x[:, 1, 0] = 1.0  # a sum tie in float32: 2**24 + 1
    x[0, 1, 0] = 2.0 ** 24 - 69
    return np.asfortranarray(x) if order == "F" else np.ascontiguousarray(x)


def _expected(x: np.ndarray, axis, stat: str, ddof: int = 0) -> np.ndarray:
    moved = np.moveaxis(x, axis, -1) if isinstance(axis, int) else x.reshape(
        x.shape[0], -1) if axis == (1, 2) else None
    out = np.array([reference(c, stat, ddof) for c in moved.reshape(-1, moved.shape[-1])])
    return out.reshape(moved.shape[:-1]).astype(x.dtype)


def _same_bits(got: np.ndarray, want: np.ndarray) -> None:
    got = np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape
    gn, wn = np.isnan(got), np.isnan(want)
    assert (gn == wn).all(), np.argwhere(gn != wn)[:5]
    u = f"u{got.dtype.itemsize}"
    bad = (got.view(u) != want.view(u)) & ~gn
    assert not bad.any(), (np.argwhere(bad)[:5], got[bad][:5], want[bad][:5])


@NEEDS_NUMBA
@pytest.mark.parametrize("dt", [np.float64, np.float32])
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("axis", [0, 1, -1, (1, 2)])
@pytest.mark.parametrize("nan_frac", [0.0, 0.01, 0.3])
def test_every_cell_is_the_exact_value_rounded_once(dt, order, axis, nan_frac):
    x = _grid(dt, nan_frac, order)
    for stat, ddof in (("sum", 0), ("mean", 0), ("var", 1), ("std", 0)):
        want = _expected(x, axis, stat, ddof)
        got, _ = moment_stat(x, stat, axis=axis, ddof=ddof, policy="omit")
        _same_bits(got, want)
        with na.option_context(engine="numpy"):  # the reference engine agrees
            ref, _ = moment_stat(x, stat, axis=axis, ddof=ddof, policy="omit")
        _same_bits(ref, want)


@NEEDS_NUMBA
@pytest.mark.parametrize("dt", [np.float64, np.float32])
def test_the_axis_engine_itself_serves_the_grid(dt):
    x = _grid(dt, 0.3, "C")
    for stat in ("sum", "mean", "var", "std"):
        got = axis_moments(x, (0,), x.shape[1:], stat, 0)
        assert got is not None
        vals, nan, sig = got
        assert nan and not sig
        _same_bits(vals.reshape(x.shape[1:]), _expected(x, 0, stat))


@NEEDS_NUMBA
@pytest.mark.parametrize("dt,sbits", [(np.float64, 0x7FF0000000000001),
                                      (np.float32, 0x7F800001)])
def test_signaling_nans_are_seen_in_the_data_bits(dt, sbits):
    x = _grid(dt, 0.0, "C")
    x[3, 2, 5] = np.array(sbits, f"u{np.dtype(dt).itemsize}").view(dt)
    got = axis_moments(x, (0,), x.shape[1:], "mean", 0)
    assert got is not None and got[1] and got[2]
    with pytest.raises(NaNError):
        moment_stat(x, "mean", axis=0, policy="omit")
    got, _ = moment_stat(x, "mean", axis=0, policy="totalorder")
    assert np.isnan(got[2, 5])


@NEEDS_NUMBA
@pytest.mark.parametrize("policy", ["raise", "propagate", "smallest", "totalorder"])
def test_nan_policies_other_than_omit(policy):
    x = _grid(np.float32, 0.01, "C")
    want = _expected(x, 0, "mean")
    if policy == "raise":
        with pytest.raises(NaNError):
            moment_stat(x, "mean", axis=0, policy=policy)
        clean = np.where(np.isnan(x), np.float32(1.5), x)
        _same_bits(moment_stat(clean, "mean", axis=0, policy=policy)[0],
                   _expected(clean, 0, "mean"))
        return
    got, _ = moment_stat(x, "mean", axis=0, policy=policy)
    has = np.isnan(x).any(axis=0)
    assert np.isnan(got[has]).all()
    _same_bits(got[~has], want[~has])


def test_float32_midpoints_without_numba():
    """The general path rounds float32 once too (NumPy engine)."""
    x = np.zeros((100, 3), np.float32)
    x[:3] = np.array([1.0, 2.0 ** -24, 2.0 ** -80])[:, None]
    with na.option_context(engine="numpy"):
        for axis in (0, None):
            got, _ = moment_stat(x if axis == 0 else x[:, 0], "sum", axis=axis, policy="omit")
            assert (np.asarray(got) == np.float32(1 + 2.0 ** -23)).all()


@NEEDS_NUMBA
@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["sum", "mean", "var"]))
def test_permutation_along_the_axis_keeps_the_bits(seed, stat):
    x = _grid(np.float32, 0.3, "C", seed=seed % 1000)
    perm = np.random.default_rng(seed).permutation(x.shape[0])
    a, _ = moment_stat(x, stat, axis=0, policy="omit")
    b, _ = moment_stat(x[perm], stat, axis=0, policy="omit")
    _same_bits(a, b)


@pytest.mark.parametrize("engine", ["numpy", pytest.param("auto", marks=NEEDS_NUMBA)])
@pytest.mark.parametrize("axis", [0, 1])
def test_float32_ties_and_near_ties_round_once(engine, axis):
    """Data whose float64 sums and means land on float32 midpoints, exactly (a tie:
    half-even) or with a remainder far below a float64 ulp (the remainder decides)."""
    rng = np.random.default_rng(7)
    col = np.array([1.0] * 62 + [2.0 + 2.0 ** -18, 0.0] + [np.nan] * 6, np.float32)
    x = np.stack([rng.permutation(col) for _ in range(30)], axis=1)
    # sum 64 + 2**-18 + t and mean 1 + 2**-24 + t/64: float32 midpoints, then tipped
    t = np.array([2.0 ** -70, -(2.0 ** -70), 0.0] * 10, np.float32)
    x[x == 0] = t
    assert (x.astype(np.float64).sum(axis=0, where=~np.isnan(x)) == 64 + 2.0 ** -18).all()
    xs = np.ascontiguousarray(x if axis == 0 else x.T)
    with na.option_context(engine=engine):
        for stat in ("sum", "mean"):
            got, _ = moment_stat(xs, stat, axis=axis, policy="omit")
            want = np.array([reference(np.moveaxis(xs, axis, -1)[k], stat)
                             for k in range(30)], np.float32)
            f64 = np.nansum(xs.astype(np.float64), axis=axis)  # exact here: 64 + 2**-18
            naive = (f64 if stat == "sum" else f64 / 64).astype(np.float32)
            assert (naive != want).sum() == 10  # rounding through float64 is wrong there
            _same_bits(got, want)


@NEEDS_NUMBA
@pytest.mark.parametrize("dt", [np.float64, np.float32])
@pytest.mark.parametrize("axis", [0, -1])
def test_infinities_and_overflow_as_the_reference_engine(dt, axis):
    x = _grid(dt, 0.1, "C")
    x[3, 1, 1] = np.inf  # one infinity
    x[4, 1, 2], x[5, 1, 2] = np.inf, -np.inf  # both: NaN
    x[:, 1, 3] = 0.0
    x[7, 1, 3] = -np.inf  # an infinity among zeros
    x[:, 1, 4] = np.finfo(dt).max  # a sum beyond the range
    x[:, 2, 1] = -0.0
    x[9, 2, 1] = np.inf
    for stat in ("sum", "mean", "var", "std"):
        got, _ = moment_stat(x, stat, axis=axis, policy="omit")
        with na.option_context(engine="numpy"):
            want, _ = moment_stat(x, stat, axis=axis, policy="omit")
        _same_bits(np.asarray(got), np.asarray(want))
