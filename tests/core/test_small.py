"""The lean medians of small float data (``nanaccess.core.small``).

Reference: the generic engine (:func:`nanaccess.core.reduce.reduce`) on the same
data, the path the plain functions took before; results must be the same bits and
the same type (NaN payloads and signed zeros included), errors the same, for every
policy. Also :func:`statistics.median` and :func:`numpy.median` on NaN-free data.
"""

from __future__ import annotations

import math
import statistics
import struct
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nanaccess as na
from nanaccess.core.reduce import reduce as core_reduce
from nanaccess.core.small import (
    LEAN_MOMENTS,
    MEDIANS,
    MOMENTS,
    ORDERS,
    SMALL_ARRAY,
    SMALL_LIST,
    SMALL_MOMENT,
    _median_narrow,
    array_median,
    array_moment,
    float_list_median,
    float_list_nan_median,
    moment_plain,
    moment_small,
    order_small,
)
from nanaccess.options import NanPolicy, option_context


def reduce(*args, **kw):
    """The core's engines alone: the reference the lean paths are held to."""
    return core_reduce(*args, lean=False, **kw)


POLICIES = [p.value for p in NanPolicy]


def _float_of_bits(bits: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


_floats = st.one_of(
    st.integers(0, 2**64 - 1).map(_float_of_bits),  # every pattern: payloads, subnormals
    st.sampled_from([0.0, -0.0, 1.0, -1.0, 2.0, 1.7e308, -1.7e308, float("inf"),
                     float("-inf"), 5e-324]),
    st.floats(-10, 10),
)


def _outcome(fn: Any) -> tuple:
    try:
        r = fn()
    except Exception as err:  # noqa: BLE001 - the error itself is compared
        return ("error", type(err), str(err), getattr(err, "position", None))
    if isinstance(r, np.generic):
        return (type(r), r.tobytes())
    return (type(r), struct.pack("<d", r))


def _generic_array(x: np.ndarray, stat: str, policy: str) -> tuple:
    return _outcome(lambda: reduce(x, stat, policy=NanPolicy(policy)).values[()])


def _generic_list(vals: list, stat: str, policy: str) -> tuple:
    def run() -> float:
        r = reduce(np.array(vals, dtype=np.float64), stat, policy=NanPolicy(policy))
        if np.isnan(r.values) and not r.count:
            raise statistics.StatisticsError(f"no {stat} for empty data")
        return r.values.item()
    return _outcome(run)


@settings(max_examples=150, deadline=None)
@given(st.lists(_floats, min_size=1, max_size=40), st.booleans())
def test_arrays_equal_generic(vals, repeat):
    x = np.array(vals + vals * 2 * repeat, dtype=np.float64)
    for stat in MEDIANS:
        for policy in POLICIES:
            got = _outcome(lambda s=stat, p=policy: getattr(na, s)(x, nan_policy=p))
            assert got == _generic_array(x, stat, policy)


@settings(max_examples=150, deadline=None)
@given(st.lists(_floats, min_size=1, max_size=SMALL_LIST + 5))
def test_lists_equal_generic(vals):
    for stat in MEDIANS:
        for policy in POLICIES:
            got = _outcome(lambda s=stat, p=policy: getattr(na, s)(vals, nan_policy=p))
            assert got == _generic_list(vals, stat, policy)
            with option_context(nan_policy=policy):  # the default policy, unresolved
                assert _outcome(lambda s=stat: getattr(na, s)(vals)) == got


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-1e300, 1e300), min_size=1, max_size=40))
def test_as_statistics_and_numpy(vals):
    assert na.median(vals) == statistics.median(vals)
    assert na.median_low(vals) == statistics.median_low(vals)
    assert na.median(np.array(vals)) == np.median(vals)


@pytest.mark.parametrize("x", [
    np.array([1.0, np.nan, 2.0]),  # a NaN: the policy decides
    np.array([-0.0, 0.0, 1.0]),  # a zero at the median rank: totalOrder decides
    np.array([1.7e308, 1.7e308]),  # the sum overflows: the midpoint's repair
    np.array([-np.inf, np.inf]),  # inf + -inf: the canonical NaN, not the hardware's
    np.array([1.0, 2.0], dtype=np.float32),
    np.ones((2, 2)),
    np.ones(SMALL_ARRAY + 1),
    np.array([]),
])
def test_generic_cases_are_refused(x):
    assert array_median(x, "median") is None


@pytest.mark.parametrize("vals", [
    [1.0, float("nan"), 2.0], [1.7e308, 1.7e308], [float("inf"), 1.0,
    float("-inf")], [3, 1.0], [True, 2.0], [1.0] * (SMALL_LIST + 1), [], (1.0, 2.0),
])
def test_generic_lists_are_refused(vals):
    assert float_list_median(vals, "median") is None


@pytest.mark.parametrize("vals", [[-np.inf, np.inf], [np.inf, -np.inf, np.inf, -np.inf]])
def test_opposite_infinities_give_the_canonical_nan(vals):
    for data in (vals, np.array(vals)):
        assert np.float64(na.median(data)).view(np.uint64) == 0x7FF8000000000000


def test_fast_cases_are_taken():
    assert array_median(np.array([3.0, 1.0, 2.0]), "median") == np.float64(2.0)
    assert float_list_median([3.0, 1.0, 2.0, 4.0], "median_high") == 3.0
    # zeros at the median ranks: -0.0 below +0.0 (totalOrder), counted
    assert math.copysign(1.0, float_list_median([0.0, -0.0, -0.0, 1.0], "median_low")) == -1.0
    assert math.copysign(1.0, float_list_median([0.0, -0.0], "median_high")) == 1.0


_powers = st.builds(lambda k, sign, m: sign * m * 2.0**k,  # sums whose rest needs 2 floats
                    st.sampled_from([0, 30, 60, 90, 120, -60]),
                    st.sampled_from([1.0, -1.0]), st.sampled_from([1.0, 3.0, 0.75]))
_wide = st.one_of(_floats, _powers, _powers, st.floats(-1e-300, 1e-300), st.floats(-1e300, 1e300),
                  st.integers(-2000, 2000).map(lambda k: math.ldexp(1.0, k // 2) * (k % 3 - 1)))


@settings(max_examples=200, deadline=None)
@given(st.lists(_wide, min_size=1, max_size=60), st.booleans())
def test_moments_equal_generic(vals, repeat):
    x = np.array(vals * (1 + 20 * repeat), dtype=np.float64)
    for stat in MOMENTS:
        for policy in POLICIES:
            got = _outcome(lambda s=stat, p=policy: getattr(na, s)(x, nan_policy=p))
            assert got == _generic_array(x, stat, policy)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(-1e300, 1e300), min_size=1, max_size=SMALL_MOMENT))
def test_moments_exact(vals):
    x = np.array(vals)
    exact = sum(map(Fraction, vals), Fraction(0))
    m = array_moment(x, "mean")
    if m is not None:  # Fraction / int is correctly rounded
        assert m == exact.numerator / (exact.denominator * len(vals))
    s = array_moment(x, "sum")
    if s is not None:
        assert s == math.fsum(vals)


@pytest.mark.parametrize("x", [
    np.array([1.0, np.nan]), np.array([np.inf, 1.0]), np.array([-0.0, -0.0]),
    np.array([1.0, -1.0]), np.array([np.inf, -np.inf]),
    np.array([1.7e308, 1.7e308, -1.7e308]),  # fsum overflows
    np.ones(SMALL_MOMENT + 1), np.ones(3, dtype=np.float32),
    np.array([2.0**60, 1.0, 2.0**-60]),  # the rest needs two floats
])
def test_generic_moments_are_refused(x):
    assert array_moment(x, "mean") is None


# ------------------------------------------- any policy: order statistics and moments

_nan_floats = st.one_of(_floats, st.sampled_from([float("nan"), -float("nan")]))
_DTYPES = ["f8", "f4", "f2", "i8", "i2", "u1", "u8", "b"]
_METHODS = ["linear", "lower", "higher", "nearest", "midpoint", "hazen", "weibull",
            "median_unbiased", "inverted_cdf"]


def _as_dtype(vals: list, dt: str) -> np.ndarray:
    x = np.array(vals, dtype=np.float64)
    if dt[0] == "f":
        with np.errstate(all="ignore"):
            return x.astype(dt)
    x = np.clip(np.nan_to_num(x, nan=0.0, posinf=7.0, neginf=-7.0), -100, 100)
    return x > 0 if dt == "b" else x.astype(dt)


def _same(got: Any, ref: np.ndarray) -> bool:
    got = np.asarray(got)
    return got.dtype == ref.dtype and got.shape == ref.shape and got.tobytes() == ref.tobytes()


@settings(max_examples=150, deadline=None)
@given(st.lists(_nan_floats, min_size=1, max_size=30), st.sampled_from(_DTYPES),
       st.lists(st.floats(0, 1), max_size=3), st.sampled_from(_METHODS))
def test_order_small_equals_generic(vals, dt, qs, method):
    x = _as_dtype(vals, dt)
    q = np.array(qs) if qs else np.array(0.3)
    for stat in ORDERS:
        kw = dict(q=q, method=method) if stat == "quantile" else {}
        for policy in NanPolicy:
            got = order_small(x, stat, policy, kw.get("q"), kw.get("method", "linear"))
            if got is not None:  # taken: the generic engine's bits, dtype and shape
                r = reduce(x, stat, policy=policy, **kw)
                assert r.missing is None and _same(got, r.values)


@settings(max_examples=150, deadline=None)
@given(st.lists(_nan_floats, min_size=1, max_size=SMALL_MOMENT // 4), st.integers(1, 8),
       st.sampled_from([0, 1, 2, 0.5]))
def test_moment_small_equals_generic(vals, repeat, ddof):
    x = np.array(vals * repeat)
    for stat in LEAN_MOMENTS:
        kw = {"ddof": ddof} if stat in ("var", "std") else {}
        for policy in NanPolicy:
            got = moment_small(x, stat, policy, **kw)
            if got is not None:
                r = reduce(x, stat, policy=policy, **kw)
                assert type(got) is np.float64 and _same(got, r.values)


@settings(max_examples=60, deadline=None)
@given(st.lists(_nan_floats, min_size=1, max_size=20))
def test_plain_functions_with_nans_equal_generic(vals):
    """Through the boundary: arrays and lists, every policy, NaN or not."""
    x = np.array(vals)
    for stat in (*ORDERS, *LEAN_MOMENTS):
        kw = {"q": [0.25, 0.5]} if stat == "quantile" else {}
        for policy in POLICIES:
            got = _bits(lambda s=stat, p=policy, k=kw: getattr(na, s)(x, nan_policy=p, **k))
            ref = _bits(lambda s=stat, p=policy, k=kw: reduce(
                x, s, policy=NanPolicy(p), **k).values[()])
            assert got == ref
            if ref[0] == "ok" and stat in ("var", "std") and np.isfinite(x).all() \
                    and np.isinf(np.frombuffer(ref[2])).all():
                # a float64 overflow of finite floats: lists are exact (issue 25): the
                # exact variance (a Fraction), the std its finite square root
                r = getattr(na, stat)(vals, nan_policy=policy)
                assert (isinstance(r, Fraction) and r > 0) if stat == "var" else (
                    isinstance(r, float) and 0 < r < np.inf)
                continue
            try:
                listed = getattr(na, stat)(vals, nan_policy=policy, **kw)
            except Exception:  # noqa: BLE001  (compared through _bits below)
                listed = None
            if isinstance(listed, Fraction):  # the exact variance past float64 (the NaNs
                assert stat == "var" and np.isinf(np.frombuffer(ref[2])).all()  # omitted)
                continue
            got = _bits(lambda s=stat, p=policy, k=kw: getattr(na, s)(vals, nan_policy=p, **k))
            if ref[0] == "ok" and all(v == v for v in vals):
                assert got == ref  # lists: the same value (Python floats)


def _bits(fn: Any) -> tuple:
    try:
        r = fn()
    except Exception as err:  # noqa: BLE001 - the error itself is compared
        return ("error", type(err), str(err))
    a = np.asarray(r, dtype=np.float64)
    return ("ok", a.shape, a.tobytes())


def test_lean_paths_are_taken():
    x = np.array([3.0, np.nan, 1.0, -0.0, 0.0])
    assert order_small(x, "median", NanPolicy.OMIT) == 0.5
    assert np.signbit(order_small(x, "min", NanPolicy.OMIT))  # -0.0 below +0.0
    assert np.isnan(order_small(x, "quantile", NanPolicy.PROPAGATE, np.array(0.5)))
    assert order_small(x, "max", NanPolicy.RAISE) is None  # the generic path raises
    assert order_small(np.array([3, 1, 2], dtype=np.int16), "median_low",
                       NanPolicy.RAISE).dtype == np.int16
    assert moment_small(x, "mean", NanPolicy.OMIT) == 1.0
    assert moment_small(x, "std", NanPolicy.PROPAGATE) is None
    assert moment_small(np.ones(SMALL_MOMENT + 8), "sum", NanPolicy.RAISE) == SMALL_MOMENT + 8


@settings(max_examples=150, deadline=None)
@given(st.lists(_nan_floats, min_size=1, max_size=SMALL_LIST))
def test_float_list_nan_median_equals_generic(vals):
    for stat in MEDIANS:
        for policy in NanPolicy:
            got = float_list_nan_median(vals, stat, policy)
            if got is not None:
                assert type(got) is float
                assert _outcome(lambda g=got: g) == _generic_list(vals, stat, policy.value)


@settings(max_examples=150, deadline=None)
@given(st.lists(_nan_floats, min_size=1, max_size=SMALL_MOMENT // 4), st.integers(1, 8),
       st.sampled_from([0, 1, 0.5]))
def test_moment_plain_is_what_every_policy_gives(vals, repeat, ddof):
    """The policy-free lane answers only when every policy's generic result is its own."""
    x = np.array(vals * repeat)
    for stat in LEAN_MOMENTS:
        kw = {"ddof": ddof} if stat in ("var", "std") else {}
        got = moment_plain(x, stat, **kw)
        if got is not None:
            assert type(got) is np.float64
            for policy in NanPolicy:
                assert _same(got, reduce(x, stat, policy=policy, **kw).values)


@settings(max_examples=60, deadline=None)
@given(st.lists(_nan_floats, min_size=1, max_size=12), st.integers(1, 12),
       st.sampled_from(POLICIES))
def test_bare_moments_follow_the_default_policy(vals, repeat, policy):
    """``na.mean(x)`` without nan_policy (the lean lane) under each default policy:
    the generic engine's bits, or its error."""
    x = np.array(vals * repeat)
    with option_context(nan_policy=policy):
        for stat in LEAN_MOMENTS:
            got = _bits(lambda s=stat: getattr(na, s)(x))
            ref = _bits(lambda s=stat: reduce(x, s, policy=NanPolicy(policy)).values[()])
            assert got == ref


def test_moment_plain_refuses_what_a_policy_decides():
    assert moment_plain(np.array([1.0, np.nan, 2.0]), "mean") is None
    assert moment_plain(np.array([1.0, np.inf]), "sum") is None
    assert moment_plain(np.array([1.0, -1.0]), "sum") is None  # a zero: signs are generic
    assert moment_plain(np.ones(100).astype(">f8"), "mean") is None  # not native
    assert moment_plain(np.ones((2, 2)), "mean") is None
    # short variances: the certified kernel, which certifies no NaN, infinity nor zero
    assert moment_plain(np.array([1.0, np.nan, 2.0]), "var") is None
    assert moment_plain(np.array([2.0, 2.0]), "var") is None
    got = moment_plain(np.array([1.0, 2.0]), "var")
    assert got is None or got == 0.25  # None: numba does not serve the call
    assert moment_plain(np.array([1.0, 2.0, 4.0]), "mean") == 7.0 / 3.0


@settings(max_examples=150, deadline=None)
@given(st.lists(_nan_floats, min_size=1, max_size=SMALL_LIST + 3))
def test_list_medians_with_a_policy_equal_generic(vals):
    """``na.median(list, nan_policy=...)`` (the boundary's list lane: NaN-free, quiet
    NaNs removed or propagated) against the generic float64 path, every policy."""
    for stat in MEDIANS:
        for policy in POLICIES:
            got = _outcome(lambda s=stat, p=policy: getattr(na, s)(vals, nan_policy=p))
            assert got == _generic_list(vals, stat, policy)


def test_list_lane_validates_the_policy():
    with pytest.raises(ValueError, match="unknown nan_policy"):
        na.median([1.0, 2.0], nan_policy="bogus")
    with option_context(nan_policy="omit"):
        assert na.median([1.0, float("nan"), 3.0], nan_policy=None) == 2.0
    assert na.median([1.0, float("nan"), 3.0], nan_policy=NanPolicy.OMIT) == 2.0


@settings(max_examples=200, deadline=None)
@given(st.lists(_nan_floats, min_size=1, max_size=30), st.floats(0, 1),
       st.sampled_from(_METHODS + ["closest_observation", "averaged_inverted_cdf",
                                   "normal_unbiased", "interpolated_inverted_cdf"]))
def test_scalar_quantile_lane_equals_generic(vals, q, method):
    """One quantile of a float64 array in Python numbers: the generic engine's bits."""
    x = np.array(vals, dtype=np.float64)
    qa = np.array(q)
    for policy in NanPolicy:
        got = order_small(x, "quantile", policy, qa, method)
        if got is not None:
            r = reduce(x, "quantile", policy=policy, q=qa, method=method)
            assert _same(got, r.values)
    ref = _bits(lambda: reduce(x, "quantile", policy=NanPolicy.OMIT, q=qa,
                               method=method).values[()])
    assert _bits(lambda: na.quantile(x, q, method=method, nan_policy="omit")) == ref


@pytest.mark.parametrize("dt", ["f4", "f2"])
@pytest.mark.parametrize("vals, stat, want, taken", [
    ([2.0, np.nan, 1.0], "median", 1.5, True),  # a NaN dropped, the midpoint in float32
    ([3.0, 1.0, np.nan, 2.0], "median", 2.0, True),
    ([-0.0, 0.0, np.nan], "median_low", -0.0, True),  # zeros signed by counting
    ([0.0, -0.0, 5.0], "median", 0.0, True),
    ([-0.0, -0.0, 1.0, np.nan], "median_high", -0.0, True),
    ([6e4, 6e4, np.nan], "median", 6e4, True),  # float16: summed in float32, no overflow
])
def test_narrow_float_medians_by_hand(dt, vals, stat, want, taken):
    """Issue 30: float32 / float16 medians on the lean path (no keys, no plan): the
    value and sign bit by hand, in the input's dtype, and the engines' bits."""
    x = np.array(vals, dtype=dt)
    got = order_small(x, stat, NanPolicy.OMIT)
    assert (got is not None) == taken
    assert np.asarray(got).dtype == np.dtype(dt)
    assert np.asarray(got).tobytes() == np.array(want, dtype=dt).tobytes()
    assert _same(got, reduce(x, stat, policy=NanPolicy.OMIT).values)


def test_narrow_float_median_overflow_goes_to_the_engine():
    x = np.array([3e38, 3e38, np.nan], dtype=np.float32)  # the float32 sum overflows
    assert _median_narrow(x[:2], "median") is None  # the midpoint's repair: keys
    got = order_small(x, "median", NanPolicy.OMIT)
    assert _same(got, reduce(x, "median", policy=NanPolicy.OMIT).values)
    assert got == np.float32(3e38) == na.median(x, nan_policy="omit")


def _narrow_cases() -> list[Any]:
    rng = np.random.default_rng(32)
    out: list[Any] = []
    for dt, eps in ((np.float32, 2.0 ** -24), (np.float16, 2.0 ** -11)):
        mid = np.ones(5)
        mid[0], mid[-1] = 1 + 2 * eps, eps  # float64 sum on a narrow midpoint
        snan = np.array([1.0, 2.0, np.nan], dt)
        snan.view(f"u{snan.itemsize}")[2] &= ~np.array(1 << (8 * snan.itemsize - 10),
                                                       snan.view(f"u{snan.itemsize}").dtype)
        snan.view(f"u{snan.itemsize}")[2] |= 1
        out += [mid.astype(dt), np.full(7, 1 + 2 * eps).astype(dt), snan,
                np.array([np.nan, 3.0, np.nan], dt), np.array([-0.0, -0.0], dt),
                np.array([np.inf, 1.0], dt), np.array([np.nan, np.nan], dt),
                rng.standard_normal(10).astype(dt), (rng.standard_normal(300) * 1e4).astype(dt)]
    return out


@pytest.mark.parametrize("x", _narrow_cases())
@pytest.mark.parametrize("stat", ["sum", "mean", "var", "std"])
@pytest.mark.parametrize("policy", ["omit", "propagate", "raise"])
def test_narrow_lean_moment_is_the_engines(x: Any, stat: str, policy: str) -> None:
    """float32/16 moments of small 1-D data by the lean float64 path, rounded once, are
    the engines' bits (the exactly rounded ones), errors and midpoints included."""
    from nanaccess.options import NanPolicy

    def run(lean: bool) -> Any:
        try:
            with np.errstate(all="ignore"):
                r = core_reduce(x, stat, policy=NanPolicy(policy), lean=lean).values
            return np.asarray(r).dtype.str, np.asarray(r).tobytes()
        except Exception as err:  # noqa: BLE001 - the same error either way
            return type(err).__name__

    assert run(True) == run(False)


def test_narrow_scalar_hard_is_narrow_hard() -> None:
    """The bit test of one float64 result agrees with the array test near midpoints."""
    from nanaccess.core.exactsum.narrow import narrow_hard, narrow_scalar

    rng = np.random.default_rng(3)
    for dt in (np.dtype(np.float32), np.dtype(np.float16)):
        f = rng.standard_normal(2000).astype(dt)
        mid = (f.astype(np.float64) + np.nextafter(f, dt.type(np.inf)).astype(np.float64)) / 2
        vals = np.concatenate([mid + k * np.spacing(np.abs(mid)) for k in range(-3, 4)]
                              + [rng.standard_normal(500), [0.0, np.nan, np.inf, 1e300]])
        for root in (False, True):
            ref = np.zeros(vals.size, bool)
            ref[narrow_hard(vals, dt, 2.0 if root else 0.0)] = True
            got = np.array([narrow_scalar(v, dt, root) is None for v in vals.tolist()])
            assert not (got < ref).any()  # every hard value is declined
            normal = np.abs(vals) >= np.finfo(dt).smallest_normal
            normal &= np.abs(vals) < np.finfo(dt).max * 0.99
            assert np.array_equal(got[normal], ref[normal])  # and only those
