"""The public functions on plain iterables and arrays: the seed-thread cases, the
:mod:`statistics` compatibility contract, errors, and input immutability.

References: the :mod:`statistics` module (same values *and* result types on NaN-free
data of ints, floats, Fractions, Decimals), NumPy, and hand-computed bit patterns.
"""

from __future__ import annotations

import math
import statistics
import struct
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nanaccess as na

NAN = float("nan")
POLICIES = ["raise", "propagate", "omit", "smallest", "largest", "totalorder"]
D = Decimal
F = Fraction
MED = settings(max_examples=max(10, settings.default.max_examples * 2 // 5))


def f64(bits: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def bits64(x) -> int:
    return struct.unpack("<Q", struct.pack("<d", float(x)))[0]


def ident(x):
    """Type and exact contents (bits for floats, str for Decimals)."""
    if isinstance(x, list):
        return [ident(v) for v in x]
    if isinstance(x, float | np.floating):
        return (type(x).__name__, np.asarray(x).tobytes().hex())
    if isinstance(x, Decimal):
        return ("Decimal", str(x))
    return (type(x).__name__, repr(x))


# ------------------------------------------------------------ seed-thread cases


def test_seed_statistics_is_order_dependent():
    """The motivating example: CPython's answer depends on where the NaN sits."""
    assert statistics.median([NAN, 1, 2, 3, 4]) == 2
    assert statistics.median([1, 2, 3, 4, NAN]) == 3


@pytest.mark.parametrize("policy", POLICIES)
def test_seed_nan_first_vs_nan_last(policy):
    a, b = [NAN, 1, 2, 3, 4], [1, 2, 3, 4, NAN]
    if policy == "raise":
        for data in (a, b):
            with pytest.raises(na.NaNError):
                na.median(data)
        return
    assert ident(na.median(a, nan_policy=policy)) == ident(na.median(b, nan_policy=policy))
    if policy == "omit":
        assert na.median(a, nan_policy="omit") == 2.5
    if policy == "propagate":
        assert math.isnan(na.median(a, nan_policy=policy))


def test_seed_nan_first_vs_nan_last_floats():
    a, b = [NAN, 1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0, NAN]
    for p in POLICIES[1:]:
        assert ident(na.median(a, nan_policy=p)) == ident(na.median(b, nan_policy=p))


def test_seed_four_nans_plus_one_to_seven():
    data = [NAN] * 4 + [1, 2, 3, 4, 5, 6, 7]
    assert na.median(data, nan_policy="smallest") == 2
    assert na.median(data, nan_policy="largest") == 6
    assert na.median(data, nan_policy="omit") == 4
    fdata = [NAN] * 4 + [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
    assert na.median(fdata, nan_policy="smallest") == 2.0
    assert na.median(fdata, nan_policy="largest") == 6.0
    rng = np.random.default_rng(0)
    for _ in range(5):
        perm = [data[i] for i in rng.permutation(len(data))]
        assert ident(na.median(perm, nan_policy="smallest")) == ident(
            na.median(data, nan_policy="smallest"))
        assert ident(na.median(perm, nan_policy="largest")) == ident(
            na.median(data, nan_policy="largest"))


def test_seed_median_of_huge_floats():
    r = na.median([1.7e308, 1.7e308])
    assert r == 1.7e308 and isinstance(r, float)
    assert statistics.median([1.7e308, 1.7e308]) == math.inf  # what we repair
    assert na.median([-1.7e308, -1.7e308]) == -1.7e308
    assert na.median([1.7e308, 1.7e308, 1.0]) == 1.7e308


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("snan", [D("sNaN"), D("-sNaN5")], ids=str)
def test_seed_decimal_snan_raises(policy, snan):
    data = [D("1"), snan, D("2")]
    if policy == "totalorder":
        na.median(data, nan_policy=policy)  # ordered, nothing signals
    else:
        with pytest.raises(na.SignalingNaNError):
            na.median(data, nan_policy=policy)
        with pytest.raises(na.SignalingNaNError):
            na.mean(data, nan_policy=policy)


def test_seed_huge_int_is_a_number():
    assert na.isnan(10**1000) is False
    assert na.median([10**1000, 1, 2]) == 2
    assert na.max([10**1000, 1, 2]) == 10**1000
    assert na.median([10**1000, 10**1000]) == 10**1000
    for p in ("omit", "smallest"):
        assert na.max([10**1000, NAN, 1], nan_policy=p) == 10**1000
    assert na.min([10**1000, NAN, 1], nan_policy="largest") == 1
    assert na.mean([10**1000, 10**1000]) == 10**1000
    assert type(na.mean([10**1000, 10**1000])) is int


# ------------------------------------------------- statistics compatibility


ints = st.lists(st.integers(-10**6, 10**6), min_size=1, max_size=12)
floats = st.lists(st.floats(-1e100, 1e100), min_size=1, max_size=12)
fractions = st.lists(st.fractions(max_denominator=50), min_size=1, max_size=12)
decimals = st.lists(st.decimals(allow_nan=False, allow_infinity=False, places=3,
                                min_value=-1000, max_value=1000), min_size=1, max_size=12)
KINDS = {"int": ints, "float": floats, "Fraction": fractions, "Decimal": decimals}


@pytest.mark.parametrize("kind", KINDS)
@MED
@given(data=st.data())
def test_order_stats_match_statistics(kind, data):
    vals = data.draw(KINDS[kind])
    orig = list(vals)
    for name in ("median", "median_low", "median_high"):
        ref = getattr(statistics, name)(vals)
        for p in POLICIES:
            got = getattr(na, name)(vals, nan_policy=p)
            assert got == ref and type(got) is type(ref), (name, p, got, ref)
    assert vals == orig


@pytest.mark.parametrize("kind", KINDS)
@MED
@given(data=st.data())
def test_quantiles_match_statistics(kind, data):
    vals = data.draw(KINDS[kind].filter(lambda v: len(v) >= 2))
    for method in ("exclusive", "inclusive"):
        for n in (2, 4, 10):
            ref = statistics.quantiles(vals, n=n, method=method)
            got = na.quantiles(vals, n=n, method=method)
            assert got == ref, (method, n)
            assert [type(v) for v in got] == [type(v) for v in ref], (method, n, got, ref)


@pytest.mark.parametrize("kind", KINDS)
@MED
@given(data=st.data())
def test_mean_matches_statistics(kind, data):
    vals = data.draw(KINDS[kind])
    ref = statistics.mean(vals)
    got = na.mean(vals)
    assert got == ref and type(got) is type(ref), (got, ref)


@pytest.mark.parametrize("kind", ["int", "Fraction", "Decimal"])
@MED
@given(data=st.data())
def test_variance_matches_statistics(kind, data):
    vals = data.draw(KINDS[kind].filter(lambda v: len(v) >= 2))
    ref = statistics.pvariance(vals)
    got = na.var(vals)
    assert got == ref and type(got) is type(ref)
    ref1 = statistics.variance(vals)
    got1 = na.var(vals, ddof=1)
    assert got1 == ref1 and type(got1) is type(ref1)


@given(vals=st.lists(st.floats(-1e100, 1e100), min_size=1, max_size=12), q=st.floats(0, 1))
def test_list_quantile_matches_numpy(vals, q):
    got = na.quantile(vals, q)
    assert isinstance(got, float)
    assert got == float(np.quantile(np.array(vals), q))


def test_omit_equals_statistics_on_nan_free():
    data = [3, NAN, 1, D("NaN"), F(5, 2), 7]
    clean = [3, 1, F(5, 2), 7]
    for name in ("median", "median_low", "median_high"):
        assert ident(getattr(na, name)(data, nan_policy="omit")) == ident(
            getattr(statistics, name)(clean))
    assert na.quantiles(data, nan_policy="omit") == statistics.quantiles(clean)
    assert na.mean([1.0, NAN, 2.0], nan_policy="omit") == 1.5


@pytest.mark.parametrize("name", ["median", "median_low", "median_high", "mean", "quantiles",
                                  "var"])
def test_empty_raises_statistics_error(name):
    with pytest.raises(statistics.StatisticsError):
        getattr(na, name)([])
    with pytest.raises(statistics.StatisticsError):
        getattr(na, name)([NAN, NAN], nan_policy="omit")


def test_empty_generator_raises_statistics_error():
    with pytest.raises(statistics.StatisticsError):
        na.median(iter([]))


def test_iterables_and_generators():
    assert na.median(iter([3, 1, 2])) == statistics.median([3, 1, 2])
    assert na.median((1, 2)) == 1.5
    assert na.median(range(10)) == statistics.median(range(10))
    assert na.mean(x for x in [1.0, 2.0]) == 1.5


def test_huge_ints_no_overflow_error():
    a, b = 10**400, 10**400 + 1
    with pytest.raises(OverflowError):
        statistics.median([a, b])
    r = na.median([a, b])
    assert r == F(a + b, 2)
    m = na.mean([a, b])
    assert m == F(a + b, 2)
    assert na.median([a, a + 2]) == a + 1
    assert na.quantile([a, b], 0.5) == F(a + b, 2)
    assert na.var([a, b]) == F(1, 4)


def test_decimal_and_fraction_results_exact():
    assert ident(na.median([D("1.1"), D("2.2")])) == ident(D("1.65"))
    assert ident(na.median([F(1, 3), F(2, 3)])) == ident(F(1, 2))
    assert ident(na.median([D("-NaN123"), D("1")], nan_policy="propagate")) == ident(
        D("-NaN123"))


def test_mixed_equal_numbers_type_independent_of_order():
    vals = [1, 1.0, F(1), D("1.0")]
    rng = np.random.default_rng(1)
    ref = ident(na.median_low(vals))
    for _ in range(8):
        perm = [vals[i] for i in rng.permutation(4)]
        assert ident(na.median_low(perm)) == ref


def test_list_propagate_greatest_nan():
    big = f64(0x7FF8000000000009)
    small = f64(0x7FF8000000000002)
    neg = f64(0xFFF80000000000FF)
    for data in ([1.0, neg, small, big, 2.0], [big, 2.0, small, 1.0, neg]):
        assert bits64(na.median(data, nan_policy="propagate")) == 0x7FF8000000000009
        assert bits64(na.mean(data, nan_policy="propagate")) == 0x7FF8000000000009


def test_list_canonical_nan_mean_of_infinities():
    assert bits64(na.mean([-math.inf, math.inf])) == 0x7FF8000000000000
    assert bits64(na.median([-math.inf, math.inf])) == 0x7FF8000000000000


def test_list_weight_zero_pick():
    assert na.quantile([1, 2, math.inf], 0.5) == 2.0
    assert na.quantile([1.0, 2.0, math.inf], 0.5) == 2.0


def test_min_max_signed_zero():
    assert bits64(na.min([0.0, -0.0, 3.0])) == bits64(-0.0)
    assert bits64(na.max([-0.0, 0.0])) == bits64(0.0)
    assert bits64(na.min(np.array([0.0, -0.0]))) == bits64(-0.0)


# -------------------------------------------------------------------- errors


def test_nan_error_is_value_error_with_count_position_advice():
    assert issubclass(na.NaNError, ValueError)
    assert issubclass(na.SignalingNaNError, na.NaNError)
    with pytest.raises(na.NaNError) as ei:
        na.median([1.0, NAN, 2.0, NAN])
    msg = str(ei.value)
    assert "2 NaN values" in msg
    assert "position 1" in msg
    assert 'nan_policy="omit"' in msg
    assert ei.value.count == 2
    with pytest.raises(ValueError):
        na.mean([1.0, NAN])


def test_missing_error_says_missing():
    with pytest.raises(na.NaNError) as ei:
        na.median([1.0, None, 2.0])
    assert "missing" in str(ei.value)
    assert ei.value.kind == "missing"
    with pytest.raises(na.NaNError) as ei:
        na.median([1.0, pd.NA, 2.0])
    assert "missing" in str(ei.value)
    assert na.median([1.0, None, 3.0, pd.NA], nan_policy="omit") == 2.0


def test_missing_under_propagate_and_ordering():
    r = na.median([1.0, None, 2.0], nan_policy="propagate")
    assert r is None or r is pd.NA or (isinstance(r, float) and math.isnan(r))
    # a real NaN present at the same time wins over missing
    big = f64(0x7FF8000000000003)
    assert bits64(na.median([1.0, None, big], nan_policy="propagate")) == 0x7FF8000000000003
    # ordering policies: missing sorts to the very end
    assert na.min([None, 3.0, NAN, 1.0], nan_policy="largest") == 1.0
    assert bits64(na.median_low([None, 3.0, NAN, 1.0], nan_policy="largest")) == bits64(3.0)


def test_signaling_error_message():
    with pytest.raises(na.SignalingNaNError) as ei:
        na.median([1.0, na.make_nan(1, signaling=True).item()], nan_policy="omit")
    assert "signaling" in str(ei.value) and "totalorder" in str(ei.value)


def test_complex_and_strings_type_error():
    with pytest.raises(TypeError):
        na.median([1 + 2j, 3j])
    with pytest.raises(TypeError):
        na.median("abc")
    with pytest.raises(TypeError):
        na.median([1.0, "a"])


def test_axis_on_iterable_type_error():
    with pytest.raises(TypeError):
        na.median([1.0, 2.0], axis=0)


# ---------------------------------------------------------------- immutability


@pytest.mark.parametrize("policy", ["omit", "largest", "totalorder"])
def test_inputs_never_modified(policy):
    data = [3.0, NAN, -0.0, 0.0, f64(0xFFF8000000000007), 1.0]
    before = [bits64(v) for v in data]
    arr = np.array(data)
    arr_before = arr.tobytes()
    for name in ("median", "median_low", "min", "max", "mean", "var", "sum"):
        getattr(na, name)(data, nan_policy=policy)
        getattr(na, name)(arr, nan_policy=policy)
    na.quantile(arr, [0.1, 0.9], nan_policy=policy)
    na.sort(arr, nan_policy=policy if policy != "omit" else "largest")
    na.rank(arr, nan_policy=policy)
    assert [bits64(v) for v in data] == before
    assert arr.tobytes() == arr_before


def test_readonly_big_endian_noncontiguous_arrays():
    x = np.arange(24, dtype=np.float64).reshape(4, 6)
    x[1, 2] = np.nan
    big = x.astype(">f8")
    big.flags.writeable = False
    nc = np.asfortranarray(x)[:, ::2]
    for p in ("omit", "largest"):
        np.testing.assert_array_equal(na.median(big, axis=1, nan_policy=p),
                                      na.median(x, axis=1, nan_policy=p))
        np.testing.assert_array_equal(na.median(nc, axis=0, nan_policy=p),
                                      na.median(np.ascontiguousarray(x[:, ::2]), axis=0,
                                                nan_policy=p))
        np.testing.assert_array_equal(na.mean(big, axis=0, nan_policy=p),
                                      na.mean(x, axis=0, nan_policy=p))
    assert np.array_equal(big, x, equal_nan=True)


def test_object_array_axis():
    x = np.array([[1, F(1, 2), D("3")], [NAN, 2, 4]], dtype=object)
    r = na.median(x, axis=1, nan_policy="omit")
    assert r.shape == (2,)
    assert ident(r[1]) == ident(statistics.median([2, 4]))


def test_public_names_exist():
    for name in ["median", "median_low", "median_high", "quantile", "quantiles", "min", "max",
                 "argmin", "argmax", "mean", "var", "std", "sum", "sort", "argsort", "rank",
                 "totalorder_key", "isnan", "issignaling", "nan_payload", "make_nan",
                 "nan_report", "set_options", "get_options", "NaNError",
                 "SignalingNaNError", "NanPolicy"]:
        assert hasattr(na, name), name


# ------------------------------------------------------- the boundary, iqr and mad


def test_boundary_refuses_what_it_cannot_honour():
    with pytest.raises(TypeError, match=r"median\(\) got an unexpected keyword argument 'q'"):
        na.median([1.0, 2.0], q=0.5)
    with pytest.raises(TypeError, match="unexpected keyword argument 'keepdims'"):
        na.argmin(np.arange(3.0), keepdims=True)
    with pytest.raises(TypeError, match="keepdims applies to arrays"):
        na.median([1.0, 2.0], keepdims=True)
    with pytest.raises(TypeError, match="keepdims=True is not supported for Series"):
        na.median(pd.Series([1.0, 2.0]), keepdims=True)
    with pytest.raises(TypeError, match="positional"):
        na.quantile([1.0], 0.5, "linear")
    with pytest.raises(TypeError, match="missing required argument 'q'"):
        na.quantile([1.0])
    with pytest.raises(ValueError, match="range"):
        na.quantile(np.arange(3.0), [0.5, 1.5])
    assert na.quantile(np.arange(5.0), q=0.25) == 1.0


def test_keepdims_reaches_xarray():
    xr = pytest.importorskip("xarray")
    da = xr.DataArray(np.arange(6.0).reshape(2, 3), dims=("a", "b"))
    got = na.median(da, axis=1, keepdims=True)
    assert got.shape == (2, 1) and got.values.ravel().tolist() == [1.0, 4.0]


def test_public_functions_keep_their_signatures():
    import inspect

    assert list(inspect.signature(na.iqr).parameters) == [
        "data", "axis", "rng", "method", "nan_policy", "keepdims"]
    assert list(inspect.signature(na.mad).parameters) == [
        "data", "axis", "scale", "nan_policy", "keepdims"]
    assert list(inspect.signature(na.quantile).parameters)[:2] == ["data", "q"]
    assert "iqr" in na.__all__ and "mad" in na.__all__


def _frac_quantile(xs, p):
    s = sorted(Fraction(x) for x in xs)
    pos = (len(s) - 1) * Fraction(p)
    lo = int(pos)
    return s[lo] + (s[min(lo + 1, len(s) - 1)] - s[lo]) * (pos - lo)


@MED
@given(st.lists(st.fractions(min_value=-100, max_value=100, max_denominator=50),
                min_size=1, max_size=12))
def test_iqr_mad_of_fractions_are_exact(xs):
    assert na.iqr(xs) == _frac_quantile(xs, Fraction(3, 4)) - _frac_quantile(xs, Fraction(1, 4))
    center = statistics.median(xs)
    assert na.mad(xs) == statistics.median([abs(x - center) for x in xs])
    assert type(na.mad(xs)) is Fraction


def test_iqr_mad_of_lists():
    xs = [1.0, 2.0, 3.0, 4.0, NAN]
    assert na.iqr(xs, nan_policy="omit") == 1.5 and type(na.iqr(xs, nan_policy="omit")) is float
    assert na.mad(xs, nan_policy="omit") == 1.0
    assert na.mad([D("1.5"), D("2"), D("7")]) == D("0.5")
    assert na.mad([1, 2, 3, 4, 100], scale="normal") == pytest.approx(1 / 0.6744897501960817)
    assert na.iqr([1, 2, 3, 4]) == 1.5
    with pytest.raises(na.NaNError, match="position 4"):
        na.iqr(xs)
    assert math.isnan(na.iqr(xs, nan_policy="propagate"))
    assert na.mad([1.0, None, 3.0], nan_policy="propagate") is None
    for fn, data in ((na.iqr, []), (na.mad, []), (na.iqr, [NAN, NAN])):
        with pytest.raises(statistics.StatisticsError, match="empty"):
            fn(data, nan_policy="omit")


def test_iqr_mad_masked_pandas_xarray_agree():
    xr = pytest.importorskip("xarray")
    vals = np.array([1.0, 9.0, 2.0, 100.0, 4.0])
    m = np.ma.array(vals, mask=[0, 0, 0, 1, 0])
    plain = np.array([1.0, 9.0, 2.0, 4.0])
    for fn in (na.iqr, na.mad):
        want = fn(plain)
        assert fn(m, nan_policy="omit") == want
        with pytest.raises(na.NaNError, match="missing"):
            fn(m)
        assert fn(pd.Series(plain), nan_policy="raise") == want
        assert float(fn(xr.DataArray(plain), nan_policy="raise")) == want
        assert fn(plain.tolist()) == want


def test_iqr_mad_on_dask():
    da = pytest.importorskip("dask.array")
    x = np.array([[1.0, np.nan, 3.0, 8.0], [2.0, 5.0, np.nan, np.nan]])
    d = da.from_array(x, chunks=(1, 2))
    for fn in (na.iqr, na.mad):
        got = fn(d, axis=1, nan_policy="omit")
        np.testing.assert_array_equal(np.asarray(got), fn(x, axis=1, nan_policy="omit"))


@pytest.mark.parametrize("fn", ["sort", "argsort", "rank"])
def test_masked_sort_missing_under_raise_only(fn):
    m = np.ma.array([3.0, 1.0, 2.0], mask=[0, 1, 0])
    with pytest.raises(na.NaNError, match="1 missing value.*position 1"):
        getattr(na, fn)(m, nan_policy="raise")
    getattr(na, fn)(m, nan_policy="omit")
    with pytest.raises(ValueError, match="propagate"):
        getattr(na, fn)(m, nan_policy="propagate")


# ----------------------------------------- issue 14: the boundary's fast lanes keep its rules


def test_bare_calls_keep_the_boundary_rules():
    # a call with data only takes the bare lane; the errors stay the boundary's
    with pytest.raises(na.NaNError, match="position 1"):
        na.median([1.0, float("nan"), 2.0])
    with pytest.raises(na.NaNError):
        na.median(np.array([1.0, np.nan]))
    with pytest.raises(statistics.StatisticsError):
        na.median([])
    with pytest.raises(TypeError, match="q"):
        na.quantile([1.0, 2.0])  # a required parameter is still required
    with pytest.raises(TypeError, match="axis"):
        na.median([1.0, 2.0], axis=0)
    with na.option_context(nan_policy="omit"):
        assert na.median([1.0, float("nan"), 3.0]) == 2.0
        assert na.mean(np.array([1.0, np.nan, 2.0])) == 1.5


@pytest.mark.parametrize("data, want", [
    ([3.0, 1.0, 2.0], 2.0),
    ([3, 1, 2, 4], 2.5),
    ([Decimal("1.5"), Decimal("2.5")], Decimal("2.0")),
    ([Fraction(1, 3), Fraction(1, 2)], Fraction(5, 12)),
    ([np.int64(3), np.int64(1), np.int64(2)], np.int64(2)),
])
def test_fast_lane_types_are_statistics(data, want):
    got = na.median(data)
    assert got == want == statistics.median(data)
    assert type(got) is type(want)


def test_small_arrays_match_numpy():
    x = np.random.default_rng(5).normal(size=101)
    assert na.median(x) == np.median(x)
    assert type(na.median(x)) is np.float64
    assert na.mean(x) == statistics.mean(x.tolist())
    assert na.sum(x) == math.fsum(x.tolist())


def test_masked_int_sum_under_propagate_is_the_canonical_nan():
    # the core marks the result missing; the integer sum of the numbers (9) was returned
    data = np.ma.masked_array([1, 2, 3, 4], mask=[True, False, False, False])
    got = na.sum(data, nan_policy="propagate")
    assert np.isnan(got) and np.float64(got).view(np.uint64) == 0x7FF8000000000000
    assert na.sum(data, nan_policy="omit") == 9
    assert np.isnan(na.max(data, nan_policy="propagate"))
