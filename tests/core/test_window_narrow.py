"""Window sums and means of datetime64/timedelta64 and window moments of float16:
exact integer prefix sums (``nanaccess.core.window.narrow``), bit for bit the
reference engine, and never the reference engine's O(n*w) expansion on clean data."""

import numpy as np
import pandas as pd
import pytest

from nanaccess.core import _numba as NB
from nanaccess.core.window import expanding_bounds, fixed_bounds, time_bounds
from nanaccess.core.window import reduce as wr
from nanaccess.core.window import reference as wref
from nanaccess.options import resolve_policy

POLICIES = ["omit", "propagate", "smallest", "largest", "totalorder"]

NEEDS_NUMBA = pytest.mark.skipif(not NB.AVAILABLE, reason="numba is not installed")


def reference(x, start, end, stat, policy, missing=None, **params):
    x2 = x[:, None] if x.ndim == 1 else x
    m2 = None if missing is None else (missing[:, None] if missing.ndim == 1 else missing)
    vals, miss, _ = wref.window_reference(x2, m2, start, end, stat, policy, "numpy", params)
    return vals, miss


def shapes(n, rng):
    s = np.maximum(np.arange(n) - rng.integers(0, 9), 0)
    e = np.arange(n) + 1
    s2 = rng.integers(0, n, n)
    e2 = np.minimum(s2 + rng.integers(0, 12, n), n)
    return [(s, e), (np.zeros(n, np.int64), e), (s2, e2)]


def same(got, ref, gmiss, rmiss):
    g = got.view(np.int64) if got.dtype.kind in "mM" else got.view(np.int16)
    r = ref.ravel().view(np.int64) if ref.dtype.kind in "mM" else ref.ravel().view(np.int16)
    assert got.dtype == ref.dtype
    if got.dtype.kind == "f":  # NaN bits as the reference (any NaN where it has one)
        nan = np.isnan(ref.ravel())
        assert (np.isnan(got) == nan).all()
        assert (g[~nan] == r[~nan]).all(), np.flatnonzero(g != r)[:5]
    else:
        assert (g == r).all(), np.flatnonzero(g != r)[:5]
    gm = np.zeros(got.shape, bool) if gmiss is None else gmiss.ravel()
    rm = np.zeros(got.shape, bool) if rmiss is None else rmiss.ravel()
    assert (gm == rm).all()


def temporal_data(rng, kind, n=300):
    if kind == "m8":  # sums of 300 fit int64 (past it both engines raise)
        x = rng.integers(-2**54, 2**54, n).view("m8[ns]")
    elif kind == "m8big":  # means of exact sums past int64
        x = rng.integers(-2**62, 2**62, n).view("m8[ns]")
    elif kind == "m8small":
        x = rng.integers(-50, 50, n).view("m8[ns]")
    else:
        x = rng.integers(-2**61, 2**62, n).view("M8[ns]")
    x[rng.random(n) < 0.1] = np.array("NaT", x.dtype)
    return x


@pytest.mark.parametrize("kind", ["m8", "m8big", "m8small", "M8"])
@pytest.mark.parametrize("policy", POLICIES)
def test_temporal_sum_mean_equal_reference(kind, policy):
    rng = np.random.default_rng(len(kind) + len(policy))
    x = temporal_data(rng, kind)
    miss = rng.random(x.size) < 0.05
    for stat in (["sum", "mean"] if kind in ("m8", "m8small") else ["mean"]):
        for s, e in shapes(x.size, rng):
            for m in (None, miss):
                got = wr.window_reduce(x, s, e, stat, policy=policy, missing=m)
                rv, rm = reference(x, s, e, stat, policy, m)
                same(got.values, rv, got.missing, rm)


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("stat", ["sum", "mean", "var", "std"])
def test_half_moments_equal_reference(policy, stat):
    rng = np.random.default_rng(len(stat) + len(policy))
    n = 300
    x = (rng.normal(size=n) * rng.choice([1e-6, 1.0, 300.0, 3e4], n)).clip(
        -65504, 65504).astype(np.float16)
    x[rng.random(n) < 0.05] = np.nan
    x[rng.random(n) < 0.01] = np.inf
    with np.errstate(invalid="ignore"):
        x[5] = np.float16(np.inf) - np.float16(np.inf)  # a NaN made by arithmetic
    miss = rng.random(n) < 0.05
    for s, e in shapes(n, rng):
        for m in (None, miss):
            with np.errstate(invalid="ignore", over="ignore"):
                got = wr.window_reduce(x, s, e, stat, policy=policy, missing=m)
                rv, rm = reference(x, s, e, stat, policy, m)
            same(got.values, rv, got.missing, rm)


def test_half_sum_ties_and_tiny_values_round_once():
    # 2049 + 1 lies halfway between float16 2048 and 2050 when added in float32 first
    x = np.array([2048, 1, 2**-24, -2**-24, 65504, 16, 2**-24] * 5, np.float16)
    s, e = np.maximum(np.arange(x.size) - 3, 0), np.arange(x.size) + 1
    for stat in ("sum", "mean", "var", "std"):
        got = wr.window_reduce(x, s, e, stat, policy="omit")
        rv, _ = reference(x, s, e, stat, "omit")
        same(got.values, rv, got.missing, None)


def test_half_means_on_exact_ties_skip_the_reference(monkeypatch):
    # means of two neighbours: 1 + 2**-11 lies exactly halfway between two float16
    spy = _Spy(monkeypatch)
    x = np.tile(np.array([1, 1 + 2**-10, 3, 3 + 2**-9], np.float16), 500)
    s, e = np.maximum(np.arange(x.size) - 1, 0), np.arange(x.size) + 1
    got = wr.window_reduce(x, s, e, "mean", policy="omit")
    assert spy.sizes == []
    rv, _ = reference(x, s, e, "mean", "omit")
    same(got.values, rv, got.missing, None)
    assert got.values[1] == np.float16(1)  # the tie rounds to even


@pytest.mark.parametrize("policy", POLICIES)
def test_long_empty_windows_skip_the_reference(monkeypatch, policy):
    # a long leading block of NaT / NaN: expanding windows with nothing left
    n = 3000
    td = np.full(n, np.timedelta64("NaT"), "m8[ns]")
    td[-5:] = np.arange(5).astype("m8[ns]")
    half = np.full(n, np.nan, np.float16)
    half[-5:] = np.arange(5)
    s, e = np.zeros(n, np.int64), np.arange(n) + 1
    cases = [(td, "sum"), (td, "mean"), (td.view("M8[ns]"), "mean")]
    if policy == "omit":  # the other policies keep the NaNs (propagated NaN windows)
        cases += [(half, st) for st in ("sum", "mean", "var", "std")]
    for x, stat in cases:
        spy = _Spy(monkeypatch)
        got = wr.window_reduce(x, s, e, stat, policy=policy, ddof=1) if stat in (
            "var", "std") else wr.window_reduce(x, s, e, stat, policy=policy)
        monkeypatch.undo()
        assert sum(spy.sizes) == 0
        rv, rm = reference(x, s[-50:], e[-50:], stat, policy,
                           **({"ddof": 1} if stat in ("var", "std") else {}))
        same(got.values[-50:], rv, None if got.missing is None else got.missing[-50:], rm)


class _Spy:
    def __init__(self, monkeypatch):
        self.sizes = []
        real = wref.window_reference

        def spy(x2, miss2, start, end, *args):
            self.sizes.append(int((end - start).sum()))
            return real(x2, miss2, start, end, *args)

        monkeypatch.setattr(wref, "window_reference", spy)


@pytest.mark.parametrize("engine", ["numpy", pytest.param("numba", marks=NEEDS_NUMBA)])
def test_long_windows_skip_the_reference(monkeypatch, engine):
    spy = _Spy(monkeypatch)
    n = 20_000
    rng = np.random.default_rng(1)
    td = rng.integers(-2**40, 2**40, n).view("m8[ns]")
    td[::9] = np.timedelta64("NaT")
    dt = temporal_data(rng, "M8", n)
    half = rng.normal(size=n).astype(np.float16)
    half[::7] = np.nan
    s, e = np.zeros(n, np.int64), np.arange(n) + 1  # expanding: n*n/2 pairs
    for x, stats in ((td, ["sum", "mean"]), (dt, ["mean"]),
                     (half, ["sum", "mean", "var", "std"])):
        for stat in stats:
            wr.window_reduce(x, s, e, stat, policy="omit", engine=engine)
    assert sum(spy.sizes) < 1000


def test_temporal_windows_equal_pandas_reductions():
    # pandas' rolling refuses datetimes and timedeltas ("No numeric types"): each
    # window's own pandas sum / mean (exact, truncated toward zero) is the reference
    rng = np.random.default_rng(3)
    td = pd.Series(rng.integers(-10**15, 10**15, 200).view("m8[ns]"))
    td[::11] = pd.NaT
    s, e = np.maximum(np.arange(200) - 6, 0), np.arange(200) + 1
    for stat in ("sum", "mean"):
        got = wr.window_reduce(td.to_numpy(), s, e, stat, policy="omit", min_periods=1)
        want = [getattr(td[a:b], stat)() for a, b in zip(s, e, strict=True)]
        some = got.count > 0  # pandas sums nothing to 0 (min_periods=1 here: NaT)
        assert list(pd.Series(got.values)[some]) == list(pd.Series(want)[some])
        assert some.sum() > 190
    dt = pd.Series(pd.date_range("2024-01-01", periods=200, freq="37min", tz="UTC"))
    dt[::13] = pd.NaT
    got = wr.window_reduce(dt.dt.tz_localize(None).to_numpy(), s, e, "mean",
                           policy="omit", min_periods=1)
    want = [dt[a:b].mean() for a, b in zip(s, e, strict=True)]
    assert list(pd.Series(got.values).dt.tz_localize("UTC")) == want


@pytest.mark.parametrize("policy", ["omit", "propagate"])
def test_columns_equal_reference(policy):
    rng = np.random.default_rng(7)
    td = np.stack([temporal_data(rng, "m8small", 120), temporal_data(rng, "m8", 120)], 1)
    half = rng.normal(scale=50, size=(120, 3)).astype(np.float16)
    half[rng.random(half.shape) < 0.05] = np.nan
    miss = rng.random((120, 3)) < 0.05
    s, e = np.maximum(np.arange(120) - 5, 0), np.arange(120) + 1
    for x, m, stats in ((td, None, ["sum", "mean"]), (half, miss, ["sum", "mean", "var"])):
        for stat in stats:
            got = wr.window_reduce(x, s, e, stat, policy=policy, missing=m)
            rv, rm = reference(x, s, e, stat, policy, m)
            gm = None if got.missing is None else got.missing.ravel()
            same(got.values.ravel(), rv, gm, rm)


@pytest.mark.parametrize("policy", ["propagate", "smallest", "largest", "totalorder"])
@pytest.mark.parametrize("engine", ["numpy", pytest.param("numba", marks=NEEDS_NUMBA)])
def test_half_windows_holding_kept_nans_skip_the_reference(monkeypatch, policy, engine):
    # float16 windows holding a NaN the policy keeps (issue 25's leftover): the
    # window's NaN of greatest totalOrder key (payloads and signs kept, a signaling
    # NaN under totalorder) from a sparse table, the reference engine only for
    # windows holding an infinity; the bits are the reference's
    spy = _Spy(monkeypatch)
    rng = np.random.default_rng(7)
    n = 600
    x = rng.normal(size=n).astype(np.float16)
    bits_ = x.view(np.uint16)
    for i, b in ((17, 0x7E05), (18, 0xFE07), (90, 0xFE00), (300, 0x7E3F), (301, 0x7E01)):
        bits_[i] = b
    with np.errstate(invalid="ignore"):
        x[200] = np.float16(np.inf) - np.float16(np.inf)  # arithmetic: negative on x86
    x[450] = np.inf
    if policy == "totalorder":
        bits_[400] = 0x7D01  # signaling
    t = np.cumsum(rng.integers(0, 3, n)).astype("datetime64[s]")
    for s, e in (fixed_bounds(n, 30), expanding_bounds(n),
                 time_bounds(t, np.timedelta64(20, "s")), (np.arange(n), np.arange(n))):
        for stat in ("sum", "mean", "var", "std"):
            got = wr.window_reduce(x, s, e, stat, policy=policy, engine=engine)
            want = wref.window_reference(x[:, None], None, s, e, stat,
                                         resolve_policy(policy), "numpy", {})[0][:, 0]
            assert got.values.dtype == np.float16
            assert np.array_equal(got.values.view(np.uint16), want.view(np.uint16)), stat
    inf_windows = sum(int(e - s) for s, e in zip(*fixed_bounds(n, 30), strict=True)
                      if s <= 450 < e)
    spy.sizes.clear()
    wr.window_reduce(x, *fixed_bounds(n, 30), "mean", policy=policy, engine=engine)
    assert sum(spy.sizes) == inf_windows
