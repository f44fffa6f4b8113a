"""Window sums, means and variances without the quadratic reference engine (issue 25,
classes 5 and 7): integer sums from prefix sums of two halves, integer means and
variances widened exactly, windows holding infinities from counts, values of a very
wide range from exact integers. Every result is compared bit for bit with the
reference engine (the grouped engine over the expanded windows), and the reference
engine is shown not to run on the large inputs."""

from __future__ import annotations

import numpy as np
import pytest

from nanaccess.core import _numba as NB
from nanaccess.core.window import expanding_bounds, fixed_bounds, time_bounds, window_reduce
from nanaccess.core.window import reference as wref
from nanaccess.core.window.intsum import int_window_sum
from nanaccess.options import resolve_policy

ENGINES = ["numpy"] + (["numba"] if NB.AVAILABLE else [])
POLICIES = ["omit", "propagate", "largest", "totalorder"]


def shapes(n):
    t = np.cumsum(np.random.default_rng(1).integers(0, 3, n)).astype("datetime64[s]")
    return {"fixed": fixed_bounds(n, 5), "centered": fixed_bounds(n, 4, center=True),
            "expanding": expanding_bounds(n), "time": time_bounds(t, np.timedelta64(6, "s")),
            "groups": fixed_bounds(n, 3, groups=np.repeat([0, 1, 2], [n // 3, n // 3,
                                                                   n - 2 * (n // 3)]))}


def reference(x, start, end, stat, policy, missing=None, **params):
    x2 = x[:, None] if x.ndim == 1 else x
    m2 = None if missing is None else (missing[:, None] if missing.ndim == 1 else missing)
    with np.errstate(over="ignore"):  # a float32 variance past its range is inf
        vals, miss, holes = wref.window_reference(x2, m2, start, end, stat,
                                          resolve_policy(policy), "numpy", params)
    return vals, miss


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind == "f" and b.dtype.kind == "f":
        return a.shape == b.shape and np.array_equal(a.view(f"u{a.itemsize}"),
                                                     b.view(f"u{b.itemsize}"))
    return a.dtype == b.dtype and np.array_equal(a, b)


INT_DATA = {
    "small": lambda r, n: r.integers(-50, 50, n),
    "huge": lambda r, n: r.choice(np.array([2**62, -(2**62), 2**53 + 1, 7, -3]), n),
    "uint": lambda r, n: r.integers(0, 2**63, n, dtype=np.uint64) * np.uint64(2),
    "int8": lambda r, n: r.integers(-128, 127, n).astype(np.int8),
    "bool": lambda r, n: r.random(n) < 0.5,
}


@pytest.mark.parametrize("kind", list(INT_DATA))
@pytest.mark.parametrize("shape", ["fixed", "centered", "expanding", "time", "groups"])
def test_int_sums_equal_exact_python_sums(kind, shape):
    n = 60
    x = np.asarray(INT_DATA[kind](np.random.default_rng(0), n))
    s, e = shapes(n)[shape]
    got = window_reduce(x, s, e, "sum", policy="omit")
    exact = [sum(int(v) for v in x[a:b]) for a, b in zip(s, e, strict=True)]
    lo, hi = (0, 2**64) if x.dtype.kind == "u" else (-(2**63), 2**63)
    if all(lo <= v < hi for v in exact):
        assert got.exact.dtype.kind == ("u" if x.dtype.kind == "u" else "i")
        assert got.exact.tolist() == exact
    else:  # past the integers: every window a float, each rounded once
        assert got.values.dtype == np.float64
        assert got.values.tolist() == [float(v) for v in exact]


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("engine", ENGINES)
def test_int_sums_with_missing_equal_reference(policy, engine):
    rng = np.random.default_rng(3)
    x = rng.integers(-(2**40), 2**40, 50)
    miss = rng.random(50) < 0.2
    for s, e in shapes(50).values():
        got = window_reduce(x, s, e, "sum", policy=policy, missing=miss, min_periods=2,
                            engine=engine)
        vals, vmiss = reference(x, s, e, "sum", policy, miss)
        want_miss = np.zeros(s.size, bool) if vmiss is None else vmiss[:, 0]
        got_miss = np.zeros(s.size, bool) if got.missing is None else got.missing
        assert np.array_equal(got_miss, want_miss)
        keep = ~want_miss & ~got.short
        assert np.array_equal(got.exact[keep], vals[keep, 0].astype(np.int64))
        assert np.isnan(got.values[got.short]).all()


def test_int_window_sum_halves():
    x = np.array([[2**63 - 1], [2**63 - 1], [-(2**63)], [-(2**63)], [1]], np.int64)
    s, e = np.array([0, 0, 1, 2, 0]), np.array([1, 2, 3, 4, 5])
    out, miss = int_window_sum(x, None, s, e, False)
    assert miss is None and out.dtype == np.float64
    assert out[:, 0].tolist() == [float(2**63 - 1), float(2**64 - 2), -1.0,
                                  float(-(2**64)), -1.0]


@pytest.mark.parametrize("stat", ["mean", "var", "std"])
@pytest.mark.parametrize("engine", ENGINES)
def test_int_moments_equal_reference(stat, engine):
    rng = np.random.default_rng(5)
    for x in (rng.integers(-(2**52), 2**52, 80), rng.integers(0, 9, 80).astype(np.uint16),
              rng.integers(-(2**62), 2**62, 80)):
        for s, e in shapes(80).values():
            got = window_reduce(x, s, e, stat, policy="omit", engine=engine, min_periods=1)
            want, _ = reference(x, s, e, stat, "omit")
            ok = ~got.short
            assert same_bits(got.values[ok], want[ok, 0].astype(np.float64))


def wide_data(case, n, dtype=np.float64):
    rng = np.random.default_rng(7)
    x = rng.normal(size=n)
    if case == "inf":
        x[[30, 90]] = np.inf
        x[150] = -np.inf
    elif case == "tiny":
        x[[10, 11, 200]] = [1e-300, -3e-310, 5e-324]
    elif case == "huge":  # of the dtype's range
        big, least = (1e305, 2.0 ** -1074) if dtype == np.float64 else (3e38, 2.0 ** -149)
        x[[10, 120]] = [big, -big]
        x[121] = least
    elif case == "negzero":
        x[::7] = 5e-324
        x[1:4] = -0.0
    x[5] = np.nan
    return x.astype(dtype)


@pytest.mark.skipif(not NB.AVAILABLE, reason="the sliding engines need numba")
@pytest.mark.parametrize("case", ["inf", "tiny", "huge", "negzero"])
@pytest.mark.parametrize("stat", ["sum", "mean", "var", "std"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_infinities_and_wide_ranges_equal_reference(case, stat, dtype):
    n = 400
    x = wide_data(case, n, dtype)
    for name, (s, e) in shapes(n).items():
        for policy in ("omit", "propagate"):
            got = window_reduce(x, s, e, stat, policy=policy, engine="numba")
            want, _ = reference(x, s, e, stat, policy)
            assert same_bits(got.values, want[:, 0]), (name, policy)


class _Spy:
    """Counts the (output, element) pairs the reference engine is handed."""

    def __init__(self, monkeypatch):
        self.pairs = 0
        real = wref.window_reference

        def spy(x2, miss2, start, end, *args):
            self.pairs += int((end - start).sum())
            return real(x2, miss2, start, end, *args)

        monkeypatch.setattr(wref, "window_reference", spy)


@pytest.mark.parametrize("engine", ENGINES)
def test_long_int_expanding_sum_is_linear(monkeypatch, engine):
    spy = _Spy(monkeypatch)
    n = 30_000
    x = np.arange(n, dtype=np.int64)
    s, e = expanding_bounds(n)
    got = window_reduce(x, s, e, "sum", policy="omit", engine=engine)
    assert got.exact[-1] == n * (n - 1) // 2
    assert spy.pairs == 0


@pytest.mark.skipif(not NB.AVAILABLE, reason="the sliding engines need numba")
@pytest.mark.parametrize("case", ["inf", "tiny", "huge"])
@pytest.mark.parametrize("stat", ["sum", "mean", "var"])
def test_long_expanding_moments_skip_the_reference(monkeypatch, case, stat):
    n = 30_000
    x = wide_data(case, n)
    spy = _Spy(monkeypatch)
    s, e = expanding_bounds(n)
    window_reduce(x, s, e, stat, policy="omit", engine="numba")
    assert spy.pairs <= 10 * n  # a few windows at most, never the n**2 / 2 pairs


def test_xarray_int_window_sums_exact():
    xr = pytest.importorskip("xarray")
    import nanaccess  # noqa: F401

    x = np.array([2**53 + 1, 1, 2**62, 2**62], np.int64)
    da = xr.DataArray(x, dims="t")
    got = da.rolling(t=2, min_periods=1).nanstats.sum()
    # xarray's window results are floats: each exact integer sum rounded once
    assert got.values.tolist() == [float(2**53 + 1), float(2**53 + 2), float(2**62 + 1),
                                   float(2**63)]


@pytest.mark.parametrize("policy", ["omit", "propagate"])
@pytest.mark.parametrize("stat", ["mean", "var", "std"])
def test_huge_int_moments_with_missing_equal_reference(policy, stat):
    rng = np.random.default_rng(8)
    kw = {} if stat == "mean" else {"ddof": 1}
    for x in (rng.integers(-(2**63), 2**63 - 1, 120, dtype=np.int64),
              rng.integers(0, 2**64 - 1, 120, dtype=np.uint64)):
        miss = rng.random(120) < 0.15
        for s, e in shapes(120).values():
            got = window_reduce(x, s, e, stat, policy=policy, missing=miss, **kw)
            want, _ = reference(x, s, e, stat, policy, miss, **kw)
            assert same_bits(got.values, want[:, 0])


def test_long_huge_int_expanding_variance_is_linear(monkeypatch):
    spy = _Spy(monkeypatch)
    n = 30_000
    x = np.random.default_rng(9).integers(-(2**62), 2**62, n)
    s, e = expanding_bounds(n)
    got = window_reduce(x, s, e, "var", policy="omit", ddof=1)
    assert spy.pairs <= 1  # the first window (one value, ddof=1) at most
    xs = [int(v) for v in x]
    mean_num = sum(xs)
    exact = (n * sum(v * v for v in xs) - mean_num * mean_num) / (n * (n - 1))
    assert got.values[-1] == exact
