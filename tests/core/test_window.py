"""Windowed statistics of the core: bounds as pandas, and every output exactly the
plain reduction of its window (the definition of "exact"), on both engines."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nanaccess import NaNError, NanPolicy, SignalingNaNError, make_nan
from nanaccess._hostkit import window_length
from nanaccess._stats import GROUPED
from nanaccess.core import _numba as NB
from nanaccess.core._numba.window_select import slide_select
from nanaccess.core.reduce import reduce
from nanaccess.core.window import expanding_bounds, fixed_bounds, time_bounds, window_reduce

ENGINES = ["numpy"] + (["numba"] if NB.AVAILABLE else [])
NEEDS_NUMBA = pytest.mark.skipif(not NB.AVAILABLE, reason="numba is not installed")
CLOSED = [None, "right", "left", "both", "neither"]


def _check_bounds(r, start, end):
    """pandas' window on 0..n-1: count = length, min = start, max = end - 1."""
    c = r.count().to_numpy()
    assert np.array_equal(c, end - start)
    ne = c > 0
    assert np.array_equal(r.min().to_numpy()[ne], start[ne])
    assert np.array_equal(r.max().to_numpy()[ne], end[ne] - 1)


@pytest.mark.parametrize("window", [0, 1, 2, 3, 4, 7, 20])
@pytest.mark.parametrize("center", [False, True])
@pytest.mark.parametrize("closed", CLOSED)
@pytest.mark.parametrize("step", [None, 2, 3])
def test_fixed_bounds_as_pandas(window, center, closed, step):
    n = 13
    s = pd.Series(np.arange(n, dtype=float))
    start, end = fixed_bounds(n, window, center=center, closed=closed, step=step)
    _check_bounds(s.rolling(window, min_periods=0, center=center, closed=closed, step=step),
                  start, end)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("window", ["1h", "3h", "5h30min", "2D", "1ns", "3ns"])
def test_time_bounds_as_pandas(seed, window):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(1, 30))
    t = pd.DatetimeIndex((np.sort(rng.integers(0, 40, k)) * 3_600_000_000_000)
                         .astype("datetime64[ns]"))
    if seed % 3 == 0:
        t = t[::-1]  # a decreasing index
    s = pd.Series(np.arange(k, dtype=float), index=t)
    for center, closed in itertools.product([False, True], CLOSED):
        start, end = time_bounds(t.to_numpy(), window_length(window), center=center, closed=closed)
        _check_bounds(s.rolling(window, min_periods=0, center=center, closed=closed),
                      start, end)


def test_time_bounds_other_units_and_errors():
    t = np.array([0, 1, 2, 5, 6], dtype="datetime64[D]")
    s = pd.Series(np.arange(5.0), index=pd.DatetimeIndex(t.astype("datetime64[s]")))
    start, end = time_bounds(t, window_length("2D"))
    _check_bounds(s.rolling("2D", min_periods=0), start, end)
    with pytest.raises(ValueError, match="monotonic"):
        time_bounds(t[[0, 2, 1]], window_length("2D"))
    with pytest.raises(ValueError, match="closed"):
        time_bounds(t, window_length("2D"), closed="middle")


def test_expanding_bounds_as_pandas():
    s = pd.Series(np.arange(6.0))
    _check_bounds(s.expanding(min_periods=0), *expanding_bounds(6))


# ----------------------------------------------------------------------- exactness

NAN_ZOO = [np.nan, -np.nan, make_nan(3), make_nan(9, negative=True),
           make_nan(5, signaling=True)]
SPECIAL = [0.0, -0.0, np.inf, -np.inf, 1.0, 1.0, 2.5, -3.0, 1e300, -1e300]
STATS = [s for s in GROUPED]
PARAMS = {"quantile": [dict(q=0.3), dict(q=[0.0, 0.5, 0.9], method="nearest"),
                       dict(q=0.75, method="midpoint")],
          "var": [dict(ddof=1)], "std": [dict(ddof=0)], "iqr": [dict(rng=(10, 90))],
          "mad": [dict(scale="normal")]}


def bits(a):
    a = np.asarray(a)
    if a.dtype.kind == "f":
        return a.view(f"u{a.dtype.itemsize}").tolist()
    return a.tolist()


def same_value(got, exp) -> bool:
    got, exp = np.asarray(got), np.asarray(exp)
    if got.dtype.kind == "f" and exp.dtype.kind == "f":
        return got.dtype == exp.dtype and bits(got) == bits(exp)
    if got.dtype.kind == "f":  # int picks become float64 beside empty windows
        return got.tolist() == exp.astype(np.float64).tolist()
    return got.tolist() == exp.tolist()


def per_window(x, missing, start, end, stat, policy, **params):
    """The plain reduction of every window (None where it raises)."""
    out = []
    for s, e in zip(start, end, strict=True):
        try:
            out.append(reduce(x[s:e], stat, policy=policy,
                              missing=None if missing is None else missing[s:e], **params))
        except NaNError as err:
            out.append(err)
    return out


def assert_exact(x, missing, start, end, stat, policy, engine, min_periods=0, **params):
    refs = per_window(x, missing, start, end, stat, policy, **params)
    errs = [i for i, r in enumerate(refs) if isinstance(r, NaNError)]
    x0 = x.copy()
    try:
        got = window_reduce(x, start, end, stat, policy=policy, missing=missing,
                            min_periods=min_periods, engine=engine, **params)
    except NaNError as err:
        assert errs, "raised where no window's reduction raises"
        assert isinstance(refs[err.group], type(err)) and start[err.group] <= \
            err.position[0] < end[err.group]
        # the contract's order over the whole call (signaling, NaN, missing): the first
        # window whose own reduction raises this kind
        assert err.group == next(i for i in errs if refs[i].kind == err.kind)
        return
    finally:
        assert bits(x) == bits(x0)
    assert not errs, f"windows {errs} raise, window_reduce did not"
    lead = np.ndim(params.get("q")) > 0
    for i, r in enumerate(refs):
        v = got.values[:, i] if lead else got.values[i]
        m = None if got.missing is None else (got.missing[:, i] if lead else got.missing[i])
        assert got.count[i] == r.count
        if r.count < min_periods:
            assert np.all(np.isnan(v)) and got.short[i]
            continue
        assert same_value(v, r.values), (i, stat, policy, v, r.values)
        exp_m = np.zeros(np.shape(r.values), bool) if r.missing is None else r.missing
        assert np.array_equal(np.zeros(np.shape(v), bool) if m is None else m, exp_m)


def windows(rng, n, kind):
    if kind == "fixed":
        return fixed_bounds(n, int(rng.integers(0, 6)), center=bool(rng.integers(2)),
                            closed=CLOSED[int(rng.integers(5))])
    if kind == "expanding":
        return expanding_bounds(n)
    # random windows, not monotone (the reference engine), empty ones included
    k = int(rng.integers(0, 12))
    a = rng.integers(0, n + 1, k)
    b = rng.integers(0, n + 1, k)
    return np.minimum(a, b), np.maximum(a, b)


@settings(max_examples=120, deadline=None)
@given(
    data=st.lists(st.one_of(st.sampled_from(SPECIAL), st.sampled_from(NAN_ZOO),
                            st.floats(-100, 100, allow_nan=False)), min_size=0, max_size=24),
    seed=st.integers(0, 2**32 - 1),
    policy=st.sampled_from(list(NanPolicy)),
    stat=st.sampled_from(STATS),
    kind=st.sampled_from(["fixed", "expanding", "random"]),
    dtype=st.sampled_from([np.float64, np.float32]),
    with_missing=st.booleans(),
)
def test_every_window_is_its_plain_reduction(data, seed, policy, stat, kind, dtype,
                                             with_missing):
    rng = np.random.default_rng(seed)
    with np.errstate(all="ignore"):
        x = np.array(data, dtype=np.float64)
        if dtype is np.float32:  # keep the payload bits (astype may quiet a sNaN)
            x = np.array([np.float32(v) if not np.isnan(v) else np.float32("nan")
                          for v in data], np.float32)
    missing = rng.random(x.size) < 0.2 if with_missing else None
    start, end = windows(rng, x.size, kind)
    params = PARAMS.get(stat, [{}])[int(rng.integers(len(PARAMS.get(stat, [{}]))))]
    min_periods = int(rng.integers(0, 3))
    for engine in ENGINES:
        assert_exact(x, missing, start, end, stat, policy, engine, min_periods, **params)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("policy", list(NanPolicy))
@pytest.mark.parametrize("stat", ["median", "median_low", "quantile", "min", "max", "iqr",
                                  "mean", "sum", "count"])
def test_larger_windows_exact(engine, policy, stat):
    rng = np.random.default_rng(7)
    x = rng.normal(size=300).round(1)
    x[rng.random(300) < 0.03] = make_nan(4)
    x[rng.random(300) < 0.02] = -np.nan
    if policy is NanPolicy.RAISE:
        x = np.where(np.isnan(x), 0.0, x)
    params = {"q": [0.1, 0.9], "method": "linear"} if stat == "quantile" else {}
    start, end = fixed_bounds(300, 25, center=True)
    assert_exact(x, None, start, end, stat, policy, engine, min_periods=5, **params)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("dtype", ["int64", "uint8", "bool", "datetime64[ns]", "float16"])
def test_other_dtypes_exact(engine, dtype):
    rng = np.random.default_rng(3)
    x = rng.integers(0, 50, 40).astype(dtype)
    missing = rng.random(40) < 0.1
    start, end = fixed_bounds(40, 6)
    stats = ["median", "min", "max", "median_high"] + (
        [] if dtype.startswith("datetime") else ["quantile"])
    for stat in stats:
        params = {"q": 0.3} if stat == "quantile" else {}
        for policy in (NanPolicy.OMIT, NanPolicy.TOTALORDER, NanPolicy.PROPAGATE):
            assert_exact(x, missing, start, end, stat, policy, engine, **params)


def test_engines_agree_on_two_columns():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(500, 3))
    x[rng.random((500, 3)) < 0.05] = np.nan
    start, end = fixed_bounds(500, 40)
    x[::50, 1] = -0.0
    x[60:90, 2] = -0.0
    x[7, 0] = np.inf
    for stat, params in [("median", {}), ("quantile", {"q": [0.2, 0.7]}), ("max", {}),
                         ("mean", {}), ("sum", {})]:
        for policy in ("omit", "largest", "propagate"):
            outs = [window_reduce(x, start, end, stat, policy=policy, engine=e, **params)
                    for e in ENGINES]
            for o in outs[1:]:
                assert bits(o.values) == bits(outs[0].values)
                assert np.array_equal(o.count, outs[0].count)


def test_drift_free_sums():
    # pandas #24208 / #36031: a window of zeros after large values
    x = np.array([1e16, -1e16 + 2, 3.3, 1e-16, 0.0, 0.0, 0.0])
    start, end = fixed_bounds(x.size, 3)
    got = window_reduce(x, start, end, "sum", policy="omit").values
    assert bits(got[-1:]) == bits(np.array([0.0]))
    m = window_reduce(x, start, end, "mean", policy="omit").values
    for i in range(x.size):
        assert bits(m[i]) == bits(reduce(x[start[i]:end[i]], "mean").values)
    # pandas #40043: large integers keep every digit
    big = np.array([2**53 + 1, 2**53 + 3, 1, 1], dtype=np.int64)
    s = window_reduce(big, *fixed_bounds(4, 2), "sum", policy="omit").values
    assert s[1] == float(2 * 2**53 + 4)


def test_raise_names_first_window_and_position():
    x = np.array([1.0, 2.0, 3.0, np.nan, 5.0, np.nan])
    start, end = fixed_bounds(6, 2)
    with pytest.raises(NaNError, match="window 3 holds 1 NaN") as info:
        window_reduce(x, start, end, "median", policy="raise")
    assert info.value.group == 3 and info.value.position == (3,)
    # a signaling NaN raises first, under every policy but totalorder
    x[5] = make_nan(1, signaling=True)
    with pytest.raises(SignalingNaNError) as info:
        window_reduce(x, start, end, "median", policy="omit")
    assert info.value.group == 5
    window_reduce(x, start, end, "median", policy="totalorder")
    # a window that does not cover the NaN does not raise
    window_reduce(x, np.array([0]), np.array([3]), "median", policy="raise")


def test_min_periods_counts_what_the_policy_leaves():
    x = np.array([1.0, np.nan, np.nan, 4.0])
    start, end = fixed_bounds(4, 3)
    omit = window_reduce(x, start, end, "max", policy="omit", min_periods=2)
    assert omit.count.tolist() == [1, 1, 1, 1] and np.isnan(omit.values).all()
    prop = window_reduce(x, start, end, "max", policy="propagate", min_periods=2)
    assert prop.count.tolist() == [1, 2, 3, 3]
    assert np.isnan(prop.values[0]) and prop.short.tolist() == [True, False, False, False]


def test_sliding_kernel_plain_python_matches_compiled():
    rng = np.random.default_rng(1)
    keys = rng.integers(-5, 5, 60).astype(np.int64)
    take = rng.random(60) < 0.8
    start, end = time_bounds(np.sort(rng.integers(0, 30, 60)), 4)
    ranks = np.stack([np.zeros(60, np.int64), np.full(60, 2)], axis=1)
    py = slide_select(keys, take, start, end, ranks, compiled=False)
    ref = []
    for s, e in zip(start, end, strict=True):
        w = np.sort(keys[s:e][take[s:e]])
        ref.append([w[r] if r < w.size else 0 for r in (0, 2)])
    assert py.tolist() == ref
    if NB.AVAILABLE:
        assert slide_select(keys, take, start, end, ranks).tolist() == ref


def test_errors_of_the_arguments():
    x = np.arange(4.0)
    with pytest.raises(ValueError, match="bounds"):
        window_reduce(x, [0], [5], "median", policy="omit")
    with pytest.raises(TypeError, match="unexpected"):
        window_reduce(x, [0], [2], "median", policy="omit", q=0.5)
    with pytest.raises(ValueError, match="no windowed form"):
        window_reduce(x, [0], [2], "argmin", policy="omit")


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("stat", ["sum", "mean"])
@pytest.mark.parametrize("policy", [NanPolicy.OMIT, NanPolicy.PROPAGATE, NanPolicy.LARGEST])
def test_moving_sums_exact_over_wide_ranges(engine, stat, policy):
    rng = np.random.default_rng(11)
    x = rng.normal(size=400) * 10.0 ** rng.integers(-30, 30, 400)
    x[::37] = 5e-324  # subnormal
    x[5::41] = 1e305
    x[7::53] = -np.inf
    x[9::29] = -0.0
    x[100:120] = -0.0  # windows of -0.0 alone
    x[rng.random(400) < 0.03] = make_nan(6)
    for window, center in ((13, False), (8, True)):
        start, end = fixed_bounds(400, window, center=center)
        assert_exact(x, None, start, end, stat, policy, engine, min_periods=1)
    assert_exact(x, None, *expanding_bounds(400), stat, policy, engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_moving_mean_ties_and_boundaries(engine):
    # exact means half-way between doubles (ties to even), just off a tie, and sums
    # whose rounding needs every partial
    eps = 2.0 ** -52
    x = np.array([1.0, 1.0 + eps, 1.0 + 2 * eps, 1.0 + 3 * eps, 3.0, 3.0 + 4 * eps, 1e-17,
                  -1e-17, 1e16, 1.0, -1e16, 0.1, 0.2, 0.3, 1.0 / 3, 2.0 / 3] * 20)
    for window in (2, 3, 4, 7):
        start, end = fixed_bounds(x.size, window)
        for stat in ("mean", "sum"):
            assert_exact(x, None, start, end, stat, NanPolicy.OMIT, engine)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("policy", [NanPolicy.PROPAGATE, NanPolicy.LARGEST, NanPolicy.OMIT])
@pytest.mark.parametrize("stat", ["mean", "sum", "median", "max"])
def test_missing_values_inside_windows(engine, policy, stat):
    rng = np.random.default_rng(12)
    x = rng.normal(size=200).round(2)
    x[rng.random(200) < 0.05] = make_nan(2)
    missing = rng.random(200) < 0.08
    for start, end in (fixed_bounds(200, 6), fixed_bounds(200, 5, center=True),
                       expanding_bounds(200)):
        assert_exact(x, missing, start, end, stat, policy, engine, min_periods=2)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("method", ["linear", "lower", "nearest", "midpoint", "hazen",
                                    "averaged_inverted_cdf", "closest_observation"])
@NEEDS_NUMBA
def test_fused_kernel_every_method_with_extremes(dtype, method):
    # the fused float kernel (no missing values, NaNs removed): lerp and midpoint next to
    # infinities, overflow of finite neighbours and signed zeros, bit for bit
    rng = np.random.default_rng(11)
    big = np.finfo(dtype).max
    pool = np.array([big, -big, np.inf, -np.inf, 0.0, -0.0, 1.5, -2.25, np.nan], dtype)
    x = np.concatenate([rng.choice(pool, 120), rng.normal(size=80).astype(dtype)])
    start, end = fixed_bounds(x.size, 6)
    for stat, params in [("quantile", {"q": [0.0, 0.3, 0.5, 0.95], "method": method}),
                         ("median", {}), ("iqr", {})]:
        assert_exact(x, None, start, end, stat, NanPolicy.OMIT, "numba", **params)
    assert_exact(x[~np.isnan(x)], None, start[:150], end[:150], "median",
                 NanPolicy.TOTALORDER, "numba")


@NEEDS_NUMBA
@pytest.mark.parametrize("scale", [0, 8, 40, 200])
@pytest.mark.parametrize("stat", ["sum", "mean"])
def test_binned_sums_every_bin_count(scale, stat):
    # the binned kernel with one, two and several bins (exponent spans), ties of the
    # mean, -0.0 windows, NaNs under a removing and a propagating policy
    rng = np.random.default_rng(scale + 1)
    x = rng.normal(size=600) * 2.0 ** rng.integers(-scale, scale + 1, 600)
    if scale == 0:
        x = rng.integers(-9, 10, 600).astype(np.float64)
    x[50:70] = -0.0
    x[rng.random(600) < 0.02] = make_nan(7)
    eps = 2.0 ** -52
    x[200:216] = [1.0, 1.0 + eps, 1.0 + 2 * eps, 1.0 + 3 * eps] * 4
    for policy in (NanPolicy.OMIT, NanPolicy.PROPAGATE):
        for start, end in (fixed_bounds(600, 4), fixed_bounds(600, 31, center=True),
                           expanding_bounds(600)):
            assert_exact(x, None, start, end, stat, policy, "numba", min_periods=1)


@NEEDS_NUMBA
@pytest.mark.parametrize("window", [64, 97])
def test_binned_mean_rounding_of_long_windows(window):
    # full-precision data: the sum's rounding error moves many means by an ulp from
    # hi / n (the neighbour check) and powers of two give ties (the exact test)
    rng = np.random.default_rng(window)
    x = rng.normal(size=1500)
    x[rng.random(1500) < 0.01] = np.nan
    start, end = fixed_bounds(1500, window)
    assert_exact(x, None, start, end, "mean", NanPolicy.OMIT, "numba")


@NEEDS_NUMBA
def test_fused_kernel_wide_windows_binary_search():
    # windows wider than LINEAR_MAX place keys by binary search instead of counting
    from nanaccess.core._numba.window_fused import LINEAR_MAX

    rng = np.random.default_rng(21)
    n = 2 * LINEAR_MAX + 300
    x = rng.normal(size=n).round(2)
    x[rng.random(n) < 0.02] = np.nan
    start, end = fixed_bounds(n, LINEAR_MAX + 100, center=True)
    for stat, params in [("median", {}), ("quantile", {"q": [0.1, 0.5, 0.9]})]:
        outs = [window_reduce(x, start, end, stat, policy="omit", engine=e, **params)
                for e in ENGINES]
        for o in outs[1:]:
            assert bits(o.values) == bits(outs[0].values)
            assert np.array_equal(o.count, outs[0].count)
    sel = slice(0, None, 97)
    assert_exact(x, None, start[sel], end[sel], "median", NanPolicy.OMIT, "numba")


HEAP_CASES = [("median", {}), ("median_low", {}), ("median_high", {}), ("min", {}),
              ("max", {})] + [("quantile", {"q": q, "method": m})
                              for m in ("linear", "lower", "higher", "nearest", "midpoint",
                                        "hazen", "weibull", "inverted_cdf",
                                        "averaged_inverted_cdf", "closest_observation",
                                        "interpolated_inverted_cdf", "median_unbiased",
                                        "normal_unbiased")
                              for q in (0.0, 0.37, 0.9, 1.0)]


@NEEDS_NUMBA
@pytest.mark.parametrize("scale", [0, 1, 30, 300])
@pytest.mark.parametrize("stat", ["var", "std"])
def test_moving_variances_exact(scale, stat):
    # the exact moving variance (sum and sum of squares as expansions, n Q - S S formed
    # exactly, one rounding): every window's plain var / std bit for bit, for data near
    # a large mean (cancellation), wide exponent ranges (some outside the kernel's range:
    # the reference engine), constant runs (exactly 0), every ddof, NaNs kept or removed
    rng = np.random.default_rng(scale + 3)
    n = 400
    x = rng.normal(size=n) * 2.0 ** rng.integers(-scale, scale + 1, n)
    if scale == 1:
        x += 1e8
    x[rng.random(n) < 0.03] = make_nan(6)
    x[100:130] = 3.25
    for policy in (NanPolicy.OMIT, NanPolicy.PROPAGATE):
        for start, end in (fixed_bounds(n, 7), fixed_bounds(n, 40, center=True),
                           expanding_bounds(n)):
            for ddof in (0, 1, 3):
                assert_exact(x, None, start, end, stat, policy, "numba", min_periods=1,
                             ddof=ddof)


@NEEDS_NUMBA
def test_moving_variance_of_zeros_after_large_values():
    # the drift cases: a window of equal values after any history has variance 0.0
    x = np.r_[[1e15, -3e14, 7.5e10, 1e-3] * 25, np.full(50, 2.0)]
    start, end = fixed_bounds(x.size, 10)
    got = window_reduce(x, start, end, "var", policy="omit", engine="numba", ddof=1)
    assert bits(got.values[-40:]) == bits(np.zeros(40))


@NEEDS_NUMBA
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_disjoint_windows_by_selection(dtype):
    # resample / coarsen blocks (disjoint windows >= SEGMENT_MIN wide) are reduced by
    # quickselect: every method, empty and all-NaN segments, ties, extremes, in bits
    from nanaccess.core.window import segment_bounds

    rng = np.random.default_rng(17)
    n = 6000
    big = np.finfo(dtype).max
    pool = np.array([big, -big, np.inf, -np.inf, 0.0, -0.0, 2.5, 2.5], dtype)
    x = np.where(rng.random(n) < 0.2, rng.choice(pool, n), rng.normal(size=n).round(1))
    x = x.astype(dtype)
    x[rng.random(n) < 0.05] = np.nan
    x[2000:2300] = np.nan
    codes = np.sort(rng.integers(0, 60, n))
    codes[:40] = -1
    start, end = segment_bounds(codes, 62)  # groups 60, 61 empty
    assert (end[60:] == end[59]).all() and (start[60:] == end[60:]).all()
    for stat, params in HEAP_CASES[::2] + [("quantile", {"q": [0.0, 0.25, 0.5, 1.0]}),
                                            ("iqr", {})]:
        assert_exact(x, None, start, end, stat, NanPolicy.OMIT, "numba", **params)
    assert_exact(x, None, start, end, "median", NanPolicy.PROPAGATE, "numba")


def test_segment_bounds_checks_order():
    from nanaccess.core.window import segment_bounds

    s, e = segment_bounds(np.array([0, 0, 1, 1, 1]), 2)
    assert s.tolist() == [0, 2] and e.tolist() == [2, 5]
    with pytest.raises(ValueError, match="sorted"):
        segment_bounds(np.array([0, 1, 0]), 2)
    with pytest.raises(ValueError, match="sorted"):
        segment_bounds(np.array([0, -1, 1]), 2)


@NEEDS_NUMBA
@pytest.mark.parametrize("window", [3, 10, 64])
def test_binned_mean_near_powers_of_two(window):
    # means a few ulps either side of 2**k: the remainder's correction of hi / n crosses
    # a binade (its ulp halves or doubles), and exact ties round to even
    eps = 2.0 ** -52
    rng = np.random.default_rng(window)
    n = 1200
    x = 2.0 ** (np.arange(n) // 150 - 4) * (1 + rng.integers(-6, 7, n) * eps)
    x[rng.random(n) < 0.02] = np.nan
    start, end = fixed_bounds(n, window)
    assert_exact(x, None, start, end, "mean", NanPolicy.OMIT, "numba", min_periods=1)


@pytest.mark.skipif(not NB.AVAILABLE, reason="numba is not installed")
def test_binned_sums_on_fixed_windows_compiled_and_not():
    # fixed windows given as numbers (no bound arrays): the arrays' results
    from nanaccess.core._numba.window_sums import binned_sum
    from nanaccess.core.window import fixed_windows

    rng = np.random.default_rng(4)
    x = rng.normal(size=300)
    x[rng.random(300) < 0.05] = np.nan
    for fw in (fixed_windows(300, 7), fixed_windows(300, 20, center=True, closed="both"),
               fixed_windows(300, 5, step=3)):
        got = []
        for bounds in ((fw, None), fw.arrays()):
            out = np.empty(fw.nout)
            cnt = np.empty(fw.nout, np.int64)
            bad = np.zeros(fw.nout, bool)
            assert binned_sum(x, *bounds, out, cnt, bad, mean=True) & 7 == 1
            got.append((bits(out), cnt.tolist(), bad.tolist()))
        assert got[0] == got[1]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("dtype", ["f8", "f4"])
@pytest.mark.parametrize("stat", ["sum", "mean", "var", "std"])
def test_signaling_nan_raises_in_the_fused_moments(engine, dtype, stat):
    # the fused moving-moment kernels only flag "a NaN entered": a signaling one must
    # still raise under "omit", naming its window (a widened float32 sNaN is quiet, so
    # the check reads the data before widening)
    rng = np.random.default_rng(5)
    x = rng.normal(size=600).astype(dtype)
    width = 64 if dtype == "f8" else 32
    x.view(f"u{width // 8}")[321] = (0x7FF0000000000005 if width == 64 else 0x7F800005)
    x[100] = np.nan  # a quiet NaN first: omitted
    x0 = x.copy()
    start, end = fixed_bounds(600, 50)
    with pytest.raises(SignalingNaNError) as info:
        window_reduce(x, start, end, stat, policy="omit", engine=engine)
    assert info.value.group == 321 and info.value.position == (321,)
    assert x.tobytes() == x0.tobytes()
