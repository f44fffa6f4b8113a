"""Tests of the Python-object path (``nanaccess.core.objects``).

References: the :mod:`statistics` module on NaN-free data (values and types), NumPy's
quantile index arithmetic on float data, and hand-computed values and bit patterns.
Identity is checked with :func:`ident` (type plus bits / ``str``), never with ``==``.
"""

from __future__ import annotations

import itertools
import math
import random
import statistics
import struct
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from nanaccess.core.moments import moment_stat
from nanaccess.core.objects import (
    CANONICAL_NAN,
    classify_object,
    object_moment_stat,
    object_order_stat,
    object_sort_keys,
)
from nanaccess.core.select import order_stat
from nanaccess.errors import NaNError, SignalingNaNError
from nanaccess.options import NanPolicy

D = Decimal
F = Fraction
NAN = float("nan")
INF = math.inf
POLICIES = [p.value for p in NanPolicy]
NON_RAISING = [p for p in POLICIES if p != "raise"]
PLACED = ["smallest", "largest", "totalorder"]


def f64(bits: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def bits64(x: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def ident(x):
    """Type and exact contents: bits for floats, str for Decimals (sign, exponent,
    payload), repr otherwise; lists elementwise."""
    if isinstance(x, list):
        return [ident(y) for y in x]
    if isinstance(x, (float, np.floating)):
        return (type(x).__name__, np.asarray(x).tobytes().hex())
    if isinstance(x, Decimal):
        return (type(x).__name__, str(x))
    return (type(x).__name__, repr(x))


def outcome(fn, *args, **kwargs):
    """ident of the result, or the exception class and message."""
    try:
        return ("ok", ident(fn(*args, **kwargs)))
    except (ValueError, TypeError, ArithmeticError) as exc:
        return ("error", type(exc).__name__, str(exc))


SNAN = f64(0x7FF0000000000001)  # positive signaling NaN, payload 1
NEG_QNAN = f64(0xFFF8000000000007)  # negative quiet NaN, payload 7


# ---------------------------------------------------------------------------
# classification
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1, ("number", 0, 0, False)),
        (-3, ("number", 1, 0, False)),
        (10**1000, ("number", 0, 0, False)),
        (-(10**1000), ("number", 1, 0, False)),
        (True, ("number", 0, 0, False)),
        (np.int64(-2), ("number", 1, 0, False)),
        (np.bool_(True), ("number", 0, 0, False)),
        (F(-1, 3), ("number", 1, 0, False)),
        (D("2.50"), ("number", 0, 0, False)),
        (D("-0"), ("number", 1, 0, False)),
        (D("-Infinity"), ("number", 1, 0, False)),
        (-0.0, ("number", 1, 0, False)),
        (INF, ("number", 0, 0, False)),
        (np.float32(-1.5), ("number", 1, 0, False)),
        (NAN, ("nan", 0, 0, True)),
        (f64(0xFFF8000000000000 | 12345), ("nan", 1, 12345, True)),
        (SNAN, ("nan", 0, 1, False)),
        (f64(0xFFF0000000000000 | (1 << 50)), ("nan", 1, 1 << 50, False)),
        (np.float64(NEG_QNAN), ("nan", 1, 7, True)),
        (np.array([0x7FC00003], dtype=np.uint32).view(np.float32)[0], ("nan", 0, 3, True)),
        (np.array([0x7C01], dtype=np.uint16).view(np.float16)[0], ("nan", 0, 1, False)),
        (D("NaN"), ("nan", 0, 0, True)),
        (D("-NaN123"), ("nan", 1, 123, True)),
        (D("sNaN"), ("nan", 0, 0, False)),
        (D("-sNaN45"), ("nan", 1, 45, False)),
        (None, ("missing", 0, 0, False)),
        (pd.NA, ("missing", 0, 0, False)),
        (pd.NaT, ("missing", 0, 0, False)),
        (np.datetime64("NaT"), ("missing", 0, 0, False)),
        (np.timedelta64("NaT"), ("missing", 0, 0, False)),
        ("1.0", ("other", 0, 0, False)),
        (1j, ("other", 0, 0, False)),
        (np.complex128(1), ("other", 0, 0, False)),
        (object(), ("other", 0, 0, False)),
        (np.datetime64("2024-01-01"), ("other", 0, 0, False)),
    ],
)
def test_classify_object(value, expected):
    assert classify_object(value) == expected


def test_classify_decimal_snan_never_signals():
    with localcontext() as ctx:
        ctx.traps[__import__("decimal").InvalidOperation] = True
        assert classify_object(D("-sNaN9")) == ("nan", 1, 9, False)


# ---------------------------------------------------------------------------
# the seed cases of the brief
# ---------------------------------------------------------------------------


def test_statistics_is_order_dependent_but_we_are_not():
    a, b = [NAN, 1, 2, 3, 4], [1, 2, 3, 4, NAN]
    assert statistics.median(a) == 2 and statistics.median(b) == 3  # the problem
    expected = {"propagate": NAN, "omit": 2.5, "smallest": 2, "largest": 3, "totalorder": 3}
    for policy in NON_RAISING:
        results = {
            str(ident(object_order_stat(list(p), "median", policy=policy)))
            for p in itertools.permutations(a)
        }
        assert results == {str(ident(expected[policy]))}, policy
    for p in itertools.permutations(a):
        with pytest.raises(NaNError):
            object_order_stat(list(p), "median", policy="raise")


def test_four_nans_smallest_largest():
    data = [NAN] * 4 + list(range(1, 8))
    random.Random(0).shuffle(data)
    assert ident(object_order_stat(data, "median", policy="smallest")) == ident(2)
    assert ident(object_order_stat(data, "median", policy="largest")) == ident(6)
    assert ident(object_order_stat(data, "median", policy="totalorder")) == ident(6)
    neg = [-NAN] * 4 + list(range(1, 8))
    assert ident(object_order_stat(neg, "median", policy="totalorder")) == ident(2)
    assert ident(object_order_stat(data, "median", policy="omit")) == ident(4)


def test_median_of_huge_floats_does_not_overflow():
    assert statistics.median([1.7e308] * 2) == INF  # the standard library overflows
    r = object_order_stat([1.7e308, 1.7e308], "median", policy="raise")
    assert ident(r) == ident(1.7e308)
    r = object_order_stat([-1.7e308, -1.5e308], "median", policy="raise")
    assert ident(r) == ident(-1.6e308)
    r = object_order_stat([1.7e308, 1.7e308], "median", policy="raise", statistics_compat=True)
    assert ident(r) == ident(1.7e308)


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("snan", [D("sNaN"), D("-sNaN3"), SNAN])
def test_signaling_nan_raises_except_totalorder(policy, snan):
    data = [1, 2, NAN, snan, 3]
    if policy == "totalorder":
        assert object_order_stat(data, "median_low", policy=policy) is not None
        object_moment_stat(data, "mean", policy=policy)
        return
    calls = [
        lambda: object_order_stat(data, "median", policy=policy),
        lambda: object_moment_stat(data, "mean", policy=policy),
    ]
    if policy != "propagate":  # propagate is a ValueError for sorts, checked first
        calls.append(lambda: object_sort_keys(data, policy))
    for call in calls:
        with pytest.raises(SignalingNaNError) as info:
            call()
        assert info.value.count == 1
        assert info.value.position == (3,)
        assert "1 signaling NaN value (first at position 3)" in str(info.value)


def test_huge_ints_are_numbers_and_midpoints_exact():
    big = 10**1000
    assert classify_object(big)[0] == "number"
    with pytest.raises(OverflowError):
        statistics.median([big, big + 1])
    for data in ([big, big + 1], [big + 1, big]):
        r = object_order_stat(data, "median", policy="raise", statistics_compat=True)
        assert type(r) is Fraction and r == F(2 * big + 1, 2)
    r = object_order_stat([big, big + 2], "median", policy="raise")
    assert type(r) is Fraction and r == big + 1
    assert object_order_stat([1, big, 2], "median", policy="raise") is not None
    assert object_order_stat([1, big, 2], "max", policy="raise") is big
    m = object_moment_stat([big, big + 1], "mean", policy="raise")
    assert type(m) is Fraction and m == F(2 * big + 1, 2)
    assert object_moment_stat([big, big + 1], "sum", policy="raise") == 2 * big + 1


def test_decimal_payload_preserved_under_propagate():
    x = D("-NaN123")
    for data in ([x, 1, 2], [1, x, D(5)], [D(2), 3, x]):
        for stat in ("median", "min", "max", "median_low"):
            r = object_order_stat(data, stat, policy="propagate")
            assert r is x and str(r) == "-NaN123"
        r = object_moment_stat(data, "mean", policy="propagate")
        assert r is x


def test_mixed_equal_numbers_pick_same_type_for_every_permutation():
    vals = [1, 1.0, F(1), D("1.0")]
    expected = {
        "min": ident(1),
        "max": ident(1.0),
        "median_low": ident(F(1)),
        "median_high": ident(D("1.0")),
    }
    for perm in itertools.permutations(vals):
        for stat, want in expected.items():
            assert ident(object_order_stat(list(perm), stat, policy="raise")) == want
        # odd length: the middle of int < Fraction < Decimal < float is the Fraction
        for drop in range(4):
            data = list(perm[:drop] + perm[drop + 1 :])
            med = object_order_stat(data, "median", policy="raise")
            in_order = [1, F(1), D("1.0"), 1.0]  # int < Fraction < Decimal < float
            rest = [v for v in in_order if type(v) is not type(perm[drop])]
            assert ident(med) == ident(rest[1])


# ---------------------------------------------------------------------------
# order and NaN selection
# ---------------------------------------------------------------------------


def test_totalorder_sort_keys_order():
    vals = [
        1.0,
        NAN,
        -0.0,
        0.0,
        None,
        -INF,
        INF,
        SNAN,
        NEG_QNAN,
        f64(0xFFF0000000000002),  # -sNaN payload 2
        D("-0"),
        0,
        D("NaN1"),
        D("-sNaN9"),
    ]
    keys = object_sort_keys(vals, "totalorder")
    got = [ident(vals[i]) for i in sorted(range(len(vals)), key=keys.__getitem__)]
    # negative NaNs: -qNaN < -sNaN, larger payload lower: -sNaN9 < -sNaN2
    want = [
        NEG_QNAN,
        D("-sNaN9"),
        f64(0xFFF0000000000002),
        -INF,
        # issue 16: every negative zero below every non-negative one, across types
        D("-0"),
        -0.0,
        0,
        0.0,
        1.0,
        INF,
        SNAN,
        NAN,
        D("NaN1"),
        None,
    ]
    assert got == [ident(w) for w in want]


def test_smallest_largest_sort_keys():
    vals = [2.0, NAN, -NAN, None, -1]
    for policy, want in (
        ("smallest", [-NAN, NAN, -1, 2.0, None]),
        ("largest", [-1, 2.0, -NAN, NAN, None]),
        ("omit", [-1, 2.0, -NAN, NAN, None]),
    ):
        keys = object_sort_keys(vals, policy)
        got = [ident(vals[i]) for i in sorted(range(len(vals)), key=keys.__getitem__)]
        assert got == [ident(w) for w in want], policy
    with pytest.raises(ValueError, match="propagate"):
        object_sort_keys(vals, "propagate")
    with pytest.raises(NaNError) as info:
        object_sort_keys(vals, "raise")
    assert info.value.count == 2 and info.value.position == (1,)
    assert object_sort_keys([3, 1], "raise") == object_sort_keys([3, 1], "totalorder")


def test_propagate_returns_greatest_nan_under_totalorder():
    q = f64(0x7FF8000000000000 | 5)
    data = [1.0, NEG_QNAN, f64(0x7FF8000000000000 | 3), q, D("NaN5"), D("-NaN99"), 2]
    for perm in itertools.islice(itertools.permutations(data), 0, 5040, 97):
        r = object_order_stat(list(perm), "median", policy="propagate")
        # equal sign, kind and payload: float ranks above Decimal
        assert r is q
    r = object_order_stat([D("NaN5"), D("NaN12"), 1], "min", policy="propagate")
    assert ident(r) == ident(D("NaN12"))
    r = object_order_stat([D("NaN5"), D("NaN12"), D("sNaN99")], "max", policy="totalorder")
    assert ident(r) == ident(D("NaN12"))  # quiet above signaling
    r = object_order_stat([NEG_QNAN, 1.0], "median", policy="propagate")
    assert bits64(r) == 0xFFF8000000000007


def test_interpolation_quiets_nan_neighbours():
    s = f64(0x7FF0000000000000 | 0x2A)
    r = object_order_stat([1.0, s], "median", policy="totalorder")
    assert bits64(r) == 0x7FF8000000000000 | 0x2A
    ns = f64(0xFFF0000000000000 | 0x2A)
    r = object_order_stat([1.0, ns], "median", policy="totalorder")
    assert bits64(r) == 0xFFF8000000000000 | 0x2A
    r = object_order_stat([1, D("sNaN42")], "median", policy="totalorder")
    assert ident(r) == ident(D("NaN42"))
    r = object_order_stat([1, D("-sNaN42")], "median", policy="totalorder")
    assert ident(r) == ident(D("-NaN42"))
    # both neighbours NaN: the higher-ranked one
    r = object_order_stat([NEG_QNAN, s], "median", policy="totalorder")
    assert bits64(r) == 0x7FF8000000000000 | 0x2A
    q = f64(0x7FF8000000000000 | 3)
    r = object_order_stat([q, NEG_QNAN], "median", policy="smallest")
    assert r is q
    # a NaN picked (odd length) is returned as stored, signaling bits included
    r = object_order_stat([s, 1.0], "median_high", policy="totalorder")
    assert r is s
    # float32 stays float32 when quieted
    s32 = np.array([0x7F800005], dtype=np.uint32).view(np.float32)[0]
    r = object_order_stat([np.float32(1), s32], "median", policy="totalorder")
    assert type(r) is np.float32 and int(np.asarray(r).view(np.uint32)) == 0x7FC00005


def test_arithmetic_nan_is_canonical():
    for data in ([-INF, INF], [INF, -INF]):
        r = object_order_stat(data, "median", policy="raise")
        assert bits64(r) == 0x7FF8000000000000
        r = object_moment_stat(data, "mean", policy="raise")
        assert bits64(r) == 0x7FF8000000000000
        r = object_order_stat(data, "quantile", q=0.25, policy="raise")
        assert bits64(r) == 0x7FF8000000000000
    r = object_moment_stat([D("-Infinity"), D("Infinity")], "mean", policy="raise")
    assert bits64(r) == 0x7FF8000000000000
    assert bits64(CANONICAL_NAN) == 0x7FF8000000000000


def test_signed_zeros_are_ordered_and_permutation_invariant():
    for perm in itertools.permutations([0.0, -0.0, 0.0]):
        assert bits64(object_order_stat(list(perm), "min", policy="raise")) == 1 << 63
        assert bits64(object_order_stat(list(perm), "median", policy="raise")) == 0
    for perm in itertools.permutations([0.0, -0.0]):
        assert bits64(object_order_stat(list(perm), "median_low", policy="raise")) == 1 << 63
        assert bits64(object_order_stat(list(perm), "median_high", policy="raise")) == 0


def test_decimal_equal_values_ordered_by_compare_total():
    vals = [D("1.0"), D("1"), D("1.00")]
    for perm in itertools.permutations(vals):
        assert str(object_order_stat(list(perm), "min", policy="raise")) == "1.00"
        assert str(object_order_stat(list(perm), "max", policy="raise")) == "1"
        assert str(object_order_stat(list(perm), "median", policy="raise")) == "1.0"
    neg = [D("-1.0"), D("-1"), D("-1.00")]
    assert str(object_order_stat(neg, "min", policy="raise")) == "-1"  # compare_total
    assert D("-1").compare_total(D("-1.00")) == -1
    zeros = [D("0"), D("-0"), D("-0.0")]
    assert str(object_order_stat(zeros, "min", policy="raise")) == "-0"
    assert str(object_order_stat(zeros, "max", policy="raise")) == "0"


# ---------------------------------------------------------------------------
# missing values
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("missing", [None, pd.NA, pd.NaT, np.datetime64("NaT")])
def test_missing_values(missing):
    data = [3, missing, 1, 2]
    assert object_order_stat(data, "median", policy="omit") == 2
    with pytest.raises(NaNError) as info:
        object_order_stat(data, "median", policy="raise")
    assert info.value.kind == "missing" and info.value.position == (1,)
    assert "missing" in str(info.value) and "NaN value" not in str(info.value)
    assert object_order_stat(data, "median", policy="propagate") is None
    assert object_moment_stat(data, "mean", policy="propagate") is None
    # a real NaN wins over missing
    assert object_order_stat(data + [NAN], "median", policy="propagate") is NAN
    r = object_order_stat(data + [NEG_QNAN], "median", policy="propagate")
    assert bits64(r) == 0xFFF8000000000007
    # missing sort to the very end under smallest/largest/totalorder
    for policy in PLACED:
        assert object_order_stat(data, "median_low", policy=policy) == 2
        assert object_order_stat(data, "median_high", policy=policy) == 3
        assert object_order_stat(data, "median", policy=policy) == 2.5
        assert object_order_stat(data, "max", policy=policy) is None
        assert object_order_stat(data, "argmax", policy=policy) is None
        assert object_order_stat(data, "min", policy=policy) == 1
        assert object_order_stat([1, missing], "median", policy=policy) is None
    assert object_order_stat([1, NAN, missing], "median_low", policy="smallest") == 1
    for policy in ("largest", "totalorder"):
        assert object_order_stat([1, NAN, missing], "median_low", policy=policy) is NAN
        assert object_order_stat([1, NAN, missing], "median_high", policy=policy) is NAN
        assert object_order_stat([1, NAN, missing, 2], "median_high", policy=policy) is NAN
        assert object_order_stat([1, NAN, missing, 2], "max", policy=policy) is None
    r = object_order_stat([1, NAN, missing], "median", policy="smallest")
    assert r == 1


# ---------------------------------------------------------------------------
# quantiles
# ---------------------------------------------------------------------------


def test_zero_weight_is_a_pick():
    with np.errstate(invalid="ignore"):
        assert np.isnan(np.quantile([1, 2, INF], 0.5))  # what NumPy gives
    r = object_order_stat([1, 2, INF], "quantile", q=0.5, policy="raise")
    assert ident(r) == ident(2.0)
    r = object_order_stat([1, 2, INF], "quantile", q=[0.0, 0.5, 1.0], policy="raise")
    assert ident(r) == ident([1.0, 2.0, INF])
    r = object_order_stat([-INF, 1, 2], "quantile", q=0.5, policy="raise")
    assert ident(r) == ident(1.0)
    # statistics.quantiles gives nan at the zero-weight cut point
    assert math.isnan(statistics.quantiles([1, 2, INF], n=2, method="inclusive")[0])
    r = object_order_stat([1, 2, INF], "quantiles", n=2, method="inclusive", policy="raise")
    assert ident(r) == ident([2.0])
    # a zero weight on a NaN neighbour: the number is picked
    r = object_order_stat([1, 2, NAN], "quantile", q=0.5, policy="largest")
    assert ident(r) == ident(2.0)


@pytest.mark.parametrize("method", ["linear", "lower", "higher", "nearest", "midpoint"])
@given(
    data=st.lists(
        st.floats(-1e6, 1e6, allow_nan=False, allow_subnormal=False), min_size=1, max_size=25
    ),
    q=st.floats(0, 1),
)
def test_quantile_methods_match_numpy_on_floats(method, data, q):
    want = float(np.quantile(np.array(data), q, method=method))
    got = object_order_stat(data, "quantile", q=q, method=method, policy="raise")
    assert type(got) is float
    if method == "midpoint":  # (a + b) / 2 as statistics; NumPy lerps (cancellation)
        assert math.isclose(got, want, rel_tol=0, abs_tol=4e-16 * max(map(abs, data)))
    else:
        assert got == want


@given(
    data=st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=25),
    q=st.floats(0, 1),
)
def test_exclusive_is_numpy_weibull(data, q):
    want = float(np.quantile(np.array(data), q, method="weibull"))
    got = object_order_stat(data, "quantile", q=q, method="exclusive", policy="raise")
    inc = object_order_stat(data, "quantile", q=q, method="inclusive", policy="raise")
    assert got == want
    assert inc == float(np.quantile(np.array(data), q))


def test_quantile_exact_for_fractions_and_decimals():
    r = object_order_stat([F(1, 3), F(2, 3)], "quantile", q=F(1, 3), policy="raise")
    assert ident(r) == ident(F(4, 9))
    r = object_order_stat([D("1"), D("2")], "quantile", q=D("0.25"), policy="raise")
    assert ident(r) == ident(D("1.25"))
    r = object_order_stat([0, 3], "quantile", q=[F(1, 3), 0.5], policy="raise")
    assert ident(r) == ident([1.0, 1.5])
    r = object_order_stat([1, 2, 3], "quantile", q=np.array([[0.5], [1.0]]), policy="omit")
    assert ident(r) == ident([[2.0], [3.0]])
    r = object_order_stat([1, 2, 3], "quantile", q=0.5, method="lower", policy="raise")
    assert ident(r) == ident(2)


def test_quantile_argument_errors():
    with pytest.raises(ValueError, match=r"range \[0, 1\]"):
        object_order_stat([1, 2], "quantile", q=1.5, policy="raise")
    with pytest.raises(ValueError, match=r"range \[0, 1\]"):
        object_order_stat([1, 2], "quantile", q=NAN, policy="raise")
    with pytest.raises(ValueError, match="unknown quantile method"):
        object_order_stat([1, 2], "quantile", q=0.5, method="hazen", policy="raise")
    with pytest.raises(ValueError, match="Unknown method"):
        object_order_stat([1, 2], "quantiles", method="lower", policy="raise")
    for alias, name in (("linear", "inclusive"), ("weibull", "exclusive"), (None, "exclusive")):
        got = object_order_stat([1, 2, 4, 8], "quantiles", method=alias, policy="raise")
        assert got == statistics.quantiles([1, 2, 4, 8], method=name)
    with pytest.raises(statistics.StatisticsError, match="n must be at least 1"):
        object_order_stat([1, 2], "quantiles", n=0, policy="raise")
    with pytest.raises(ValueError, match="unknown order statistic"):
        object_order_stat([1, 2], "mode", policy="raise")
    with pytest.raises(ValueError, match="nan_policy"):
        object_order_stat([1, 2], "median", policy="ignore")


def test_quantiles_with_few_points():
    for data in ([], [5]):
        try:
            want = ("ok", statistics.quantiles(data, n=4))
        except statistics.StatisticsError as exc:
            want = ("error", str(exc))
        try:
            got = (
                "ok",
                object_order_stat(data, "quantiles", policy="raise", statistics_compat=True),
            )
        except statistics.StatisticsError as exc:
            got = ("error", str(exc))
        assert got == want
    assert object_order_stat([5], "quantiles", n=3, policy="raise") == [5, 5]
    r = object_order_stat([], "quantiles", n=3, policy="raise")
    assert [bits64(x) for x in r] == [0x7FF8000000000000] * 2


# ---------------------------------------------------------------------------
# empty data, errors
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("stat", ["median", "median_low", "median_high"])
def test_empty_compat_raises_like_statistics(stat):
    with pytest.raises(statistics.StatisticsError) as want:
        getattr(statistics, stat)([])
    with pytest.raises(statistics.StatisticsError) as got:
        object_order_stat([NAN, None], stat, policy="omit", statistics_compat=True)
    assert str(got.value) == str(want.value)
    r = object_order_stat([NAN, None], stat, policy="omit")
    assert bits64(r) == 0x7FF8000000000000


def test_empty_other_order_stats():
    with pytest.raises(statistics.StatisticsError, match="no min for empty data"):
        object_order_stat([], "min", policy="raise", statistics_compat=True)
    with pytest.raises(ValueError, match="argmin of an empty"):
        object_order_stat([NAN], "argmin", policy="omit")
    r = object_order_stat([], "quantile", q=[0.1, 0.2], policy="omit")
    assert [bits64(x) for x in r] == [0x7FF8000000000000] * 2
    assert bits64(object_order_stat([], "max", policy="omit")) == 0x7FF8000000000000


@pytest.mark.parametrize(
    ("stat", "ddof", "ref"),
    [
        ("mean", 0, statistics.mean),
        ("var", 0, statistics.pvariance),
        ("var", 1, statistics.variance),
        ("std", 0, statistics.pstdev),
        ("std", 1, statistics.stdev),
    ],
)
def test_empty_moments(stat, ddof, ref):
    data = [] if ddof == 0 else [7]
    with pytest.raises(statistics.StatisticsError) as want:
        ref(data)
    with pytest.raises(statistics.StatisticsError) as got:
        object_moment_stat(data + [NAN], stat, ddof=ddof, policy="omit", statistics_compat=True)
    assert str(got.value) == str(want.value)
    r = object_moment_stat(data, stat, ddof=ddof, policy="omit")
    assert bits64(r) == 0x7FF8000000000000
    assert object_moment_stat([NAN], "sum", policy="omit") == 0
    assert type(object_moment_stat([], "sum", policy="raise", statistics_compat=True)) is int


def test_type_errors_name_the_position():
    with pytest.raises(TypeError, match=r"complex numbers have no order.*position 2"):
        object_order_stat([1, 2, 3j], "median", policy="omit")
    with pytest.raises(TypeError, match=r"'str' at position 1"):
        object_order_stat([1, "2", 3], "median", policy="omit")
    with pytest.raises(TypeError, match=r"position 0"):
        object_moment_stat([object()], "mean", policy="omit")
    with pytest.raises(TypeError, match="complex"):
        object_moment_stat([1j], "sum", policy="omit")
    with pytest.raises(TypeError, match="ddof"):
        object_moment_stat([1, 2], "var", ddof="1", policy="omit")
    with pytest.raises(TypeError, match="ddof"):
        object_moment_stat([1, 2], "var", ddof=NAN, policy="omit")


def test_raise_errors_count_and_position():
    with pytest.raises(NaNError) as info:
        object_order_stat([1, 2, NAN, None, D("NaN")], "median", policy="raise")
    assert info.value.count == 2 and info.value.position == (2,) and info.value.kind == "NaN"
    assert not isinstance(info.value, SignalingNaNError)
    assert "2 NaN values (first at position 2)" in str(info.value)
    with pytest.raises(NaNError) as info:
        object_moment_stat([1, None, pd.NA], "var", policy="raise")
    assert info.value.count == 2 and info.value.position == (1,) and info.value.kind == "missing"


# ---------------------------------------------------------------------------
# argmin / argmax, min / max
# ---------------------------------------------------------------------------


def test_argmin_argmax():
    data = [3, 1, 4, 1, 5, NAN, -NAN]
    assert object_order_stat(data, "argmin", policy="omit") == 1
    assert object_order_stat(data, "argmax", policy="omit") == 4
    assert object_order_stat(data, "argmin", policy="smallest") == 6  # -NaN lowest
    assert object_order_stat(data, "argmax", policy="largest") == 5
    assert object_order_stat(data, "argmin", policy="totalorder") == 6
    assert object_order_stat(data, "argmax", policy="totalorder") == 5
    assert object_order_stat(data, "argmin", policy="propagate") == 5  # the propagated NaN
    assert object_order_stat([2, 1, 1.0], "argmax", policy="raise") == 0
    assert object_order_stat([1.0, 1, 0.5], "argmax", policy="raise") == 0  # float ranks above
    assert object_order_stat([1.0, 1, 0.5], "argmin", policy="raise") == 2


# ---------------------------------------------------------------------------
# moments
# ---------------------------------------------------------------------------


def test_moment_values_and_types():
    assert ident(object_moment_stat([1, 2, 3], "mean", policy="raise")) == ident(2)
    assert ident(object_moment_stat([1, 2], "mean", policy="raise")) == ident(1.5)
    assert ident(object_moment_stat([np.int64(1), np.int64(2)], "mean", policy="raise")) == (
        ident(1.5)  # statistics truncates to np.int64(1) here
    )
    assert ident(object_moment_stat([True, True], "sum", policy="raise")) == ident(2)
    assert ident(object_moment_stat([1e100, 1.0, -1e100], "sum", policy="raise")) == ident(1.0)
    assert ident(object_moment_stat([F(1, 3), 1], "sum", policy="raise")) == ident(F(4, 3))
    assert ident(object_moment_stat([D("0.1"), D("0.2")], "sum", policy="raise")) == (
        ident(D("0.3"))
    )
    # mixtures statistics refuses: the highest type rank
    assert ident(object_moment_stat([D(1), 2.0], "mean", policy="raise")) == ident(1.5)
    assert ident(object_moment_stat([D(1), F(1, 2)], "mean", policy="raise")) == (ident(D("0.75")))
    assert ident(object_moment_stat([np.float32(1), 2.0], "sum", policy="raise")) == ident(3.0)
    # arbitrary ddof, exact: [1,2,3,4] has ss = 5
    assert ident(object_moment_stat([1, 2, 3, 4], "var", ddof=2, policy="raise")) == ident(2.5)
    assert ident(object_moment_stat([1, 2, 3, 5], "var", ddof=3, policy="raise")) == (ident(8.75))
    assert ident(object_moment_stat([F(1), F(2), F(4)], "var", ddof=2, policy="raise")) == (
        ident(F(14, 3))
    )
    assert object_moment_stat([1, 2, 3, 4], "std", ddof=2, policy="raise") == math.sqrt(2.5)
    r = object_moment_stat([D(1), D(2), D(3), D(4)], "std", ddof=3, policy="raise")
    assert ident(r) == ident(D(5).sqrt())  # ss = 5, divisor 4 - 3
    # non-integral ddof, exact: 5 / (4 - 1.5) = 2
    assert ident(object_moment_stat([1, 2, 3, 4], "var", ddof=1.5, policy="raise")) == ident(2)
    assert statistics.variance([1, 3]) == 2 and type(statistics.variance([1, 3])) is int
    assert ident(object_moment_stat([1, 2, 3, 4], "var", ddof=2.0, policy="raise")) == ident(2.5)
    assert bits64(object_moment_stat([1, 2], "var", ddof=2, policy="raise")) == (0x7FF8000000000000)
    with pytest.raises(statistics.StatisticsError, match="ddof=3 requires at least 4"):
        object_moment_stat([1, 2, 3], "var", ddof=3, policy="raise", statistics_compat=True)


def test_moments_with_infinities():
    assert ident(object_moment_stat([1, INF], "mean", policy="raise")) == ident(INF)
    assert ident(object_moment_stat([1, -INF, 2.0], "sum", policy="raise")) == ident(-INF)
    assert ident(object_moment_stat([D("Infinity"), D(1)], "mean", policy="raise")) == (
        ident(D("Infinity"))
    )
    for stat in ("var", "std"):
        r = object_moment_stat([1.0, INF], stat, ddof=1, policy="raise")
        assert bits64(r) == 0x7FF8000000000000


@pytest.mark.parametrize("policy", NON_RAISING)
def test_moments_policies(policy):
    data = [1.0, NAN, 3.0, NEG_QNAN]
    r = object_moment_stat(data, "mean", policy=policy)
    if policy == "omit":
        assert ident(r) == ident(2.0)
    else:
        assert r is data[1]
    r = object_moment_stat([1.0, None, 3.0], "sum", policy=policy)
    assert (r == 4.0) if policy == "omit" else (r is None)


# ---------------------------------------------------------------------------
# comparisons with the statistics module on NaN-free data
# ---------------------------------------------------------------------------

ints = st.integers(-(10**6), 10**6)
fracs = st.fractions(min_value=-1000, max_value=1000, max_denominator=50)
decs = st.decimals(min_value=-(10**6), max_value=10**6, allow_nan=False, places=3)
flts = st.floats(-1e100, 1e100, allow_nan=False, allow_subnormal=False)
HOMOGENEOUS = st.one_of(
    st.lists(ints, min_size=2, max_size=20),
    st.lists(fracs, min_size=2, max_size=20),
    st.lists(decs, min_size=2, max_size=20),
    st.lists(flts, min_size=2, max_size=20),
    st.lists(st.one_of(ints, flts), min_size=2, max_size=20),
    st.lists(st.one_of(ints, fracs), min_size=2, max_size=20),
)


def same_value_and_type(got, want):
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            same_value_and_type(g, w)
        return
    assert type(got) is type(want), (got, want)
    assert got == want, (got, want)
    if isinstance(want, Decimal):
        assert str(got) == str(want)
    if isinstance(want, float) and want == 0:
        assert math.copysign(1, got) == math.copysign(1, want)


def canonical(data):
    """data in our fixed order. ``statistics`` sorts stably, so on this input its picks
    among equal values of different type or bits (0 and 0.0, -0.0 and 0.0, Decimal
    1.0 and 1.00) are defined, and must equal ours for every input order."""
    keys = object_sort_keys(data, "totalorder")
    return [data[i] for i in sorted(range(len(data)), key=keys.__getitem__)]


@given(data=HOMOGENEOUS, policy=st.sampled_from(POLICIES), rnd=st.randoms(use_true_random=False))
def test_order_stats_match_statistics(data, policy, rnd):
    ref = canonical(data)
    rnd.shuffle(data)
    for stat in ("median", "median_low", "median_high"):
        got = object_order_stat(data, stat, policy=policy, statistics_compat=True)
        same_value_and_type(got, getattr(statistics, stat)(ref))
    for n, method in ((4, "exclusive"), (5, "inclusive"), (3, "exclusive"), (10, "inclusive")):
        got = object_order_stat(
            data, "quantiles", n=n, method=method, policy=policy, statistics_compat=True
        )
        same_value_and_type(got, statistics.quantiles(ref, n=n, method=method))


@given(data=HOMOGENEOUS, policy=st.sampled_from(POLICIES))
def test_moments_match_statistics(data, policy):
    refs = {
        ("mean", 0): statistics.mean,
        ("var", 0): statistics.pvariance,
        ("var", 1): statistics.variance,
        ("std", 0): statistics.pstdev,
        ("std", 1): statistics.stdev,
    }
    for (stat, ddof), ref in refs.items():
        got = object_moment_stat(data, stat, ddof=ddof, policy=policy, statistics_compat=True)
        same_value_and_type(got, ref(data))


@given(data=HOMOGENEOUS)
def test_own_moments_match_statistics(data):
    """The hand-written exact path (used for ddof other than 0/1) agrees with the
    standard library where both apply: var with ddof=2 is pvariance * n / (n - 2)."""
    from nanaccess.core.objects.moments import _own_moment

    nums = list(data)
    for stat, ddof, ref in (
        ("mean", 0, statistics.mean),
        ("var", 0, statistics.pvariance),
        ("var", 1, statistics.variance),
        ("std", 0, statistics.pstdev),
        ("std", 1, statistics.stdev),
    ):
        same_value_and_type(_own_moment(nums, stat, ddof), ref(nums))


# ---------------------------------------------------------------------------
# permutation invariance (hypothesis)
# ---------------------------------------------------------------------------


def _float_nan(payload: int, negative: bool, signaling: bool) -> float:
    if signaling:
        payload = max(payload, 1)
    bits = 0x7FF0000000000000 | (0 if signaling else 1 << 51) | payload
    return f64(bits | (1 << 63 if negative else 0))


float_nans = st.builds(_float_nan, st.integers(0, 6), st.booleans(), st.booleans())
dec_nans = st.builds(
    lambda sign, payload, sig: D(f"{'-' if sign else ''}{'s' if sig else ''}NaN{payload or ''}"),
    st.booleans(),
    st.integers(0, 6),
    st.booleans(),
)
elements = st.one_of(
    st.integers(-5, 5),
    st.sampled_from([10**30, -(10**30), True, np.int64(3), np.float32(2.5)]),
    st.fractions(min_value=-5, max_value=5, max_denominator=4),
    st.decimals(min_value=-5, max_value=5, allow_nan=False, places=1),
    st.sampled_from([D("1"), D("1.0"), D("-0"), D("0.00"), D("Infinity"), D("-Infinity")]),
    st.floats(-5, 5),
    st.sampled_from([0.0, -0.0, 1.0, INF, -INF]),
    float_nans,
    dec_nans,
    st.sampled_from([None, pd.NA]),
)

ORDER_CALLS = [
    ("median", {}),
    ("median_low", {}),
    ("median_high", {}),
    ("min", {}),
    ("max", {}),
    ("quantile", {"q": [0.0, 0.1, 0.25, 0.5, 0.9, 1.0]}),
    ("quantile", {"q": [0.3, 0.5], "method": "midpoint"}),
    ("quantile", {"q": [0.3, 0.5], "method": "nearest"}),
    ("quantile", {"q": [0.3, 0.5], "method": "exclusive"}),
    ("quantiles", {"n": 4, "method": "exclusive"}),
    ("quantiles", {"n": 5, "method": "inclusive"}),
]


@given(
    data=st.lists(elements, max_size=12),
    policy=st.sampled_from(POLICIES),
    rnd=st.randoms(use_true_random=False),
)
def test_order_stats_permutation_invariant(data, policy, rnd):
    shuffled = list(data)
    rnd.shuffle(shuffled)
    for stat, kwargs in ORDER_CALLS:
        a = outcome(object_order_stat, data, stat, policy=policy, **kwargs)
        b = outcome(object_order_stat, shuffled, stat, policy=policy, **kwargs)
        if a[0] == "error":  # positions in messages differ; the error class may not
            assert b[0] == "error" and a[1] == b[1], (stat, a, b)
        else:
            assert a == b, (stat, kwargs)
    for stat in ("argmin", "argmax"):
        try:
            pos = object_order_stat(data, stat, policy=policy)
        except (ValueError, TypeError):
            continue
        want = object_order_stat(data, stat.replace("arg", ""), policy=policy)
        if pos is None:
            assert want is None
        else:
            assert ident(data[pos]) == ident(want)


@given(
    data=st.lists(elements, max_size=12),
    policy=st.sampled_from(POLICIES),
    rnd=st.randoms(use_true_random=False),
    ddof=st.integers(0, 2),
)
def test_moments_permutation_invariant(data, policy, rnd, ddof):
    shuffled = list(data)
    rnd.shuffle(shuffled)
    for stat in ("mean", "var", "std", "sum"):
        a = outcome(object_moment_stat, data, stat, ddof=ddof, policy=policy)
        b = outcome(object_moment_stat, shuffled, stat, ddof=ddof, policy=policy)
        if a[0] == "error":
            assert b[0] == "error" and a[1] == b[1], (stat, a, b)
        else:
            assert a == b, stat


@given(data=st.lists(elements, max_size=12), rnd=st.randoms(use_true_random=False))
def test_sort_keys_sort_identically(data, rnd):
    shuffled = list(data)
    rnd.shuffle(shuffled)
    keys_a = object_sort_keys(data, "totalorder")
    keys_b = object_sort_keys(shuffled, "totalorder")
    sa = [ident(data[i]) for i in sorted(range(len(data)), key=keys_a.__getitem__)]
    sb = [ident(shuffled[i]) for i in sorted(range(len(data)), key=keys_b.__getitem__)]
    assert sa == sb


@given(
    data=st.lists(st.one_of(st.integers(-9, 9), st.floats(-9, 9), float_nans), max_size=10),
    policy=st.sampled_from(["omit", "raise"]),
)
def test_omit_equals_dropping_nans(data, policy):
    """f(a, "omit") == f(a without NaN): the property that defines "omit"."""
    clean = [x for x in data if classify_object(x)[0] == "number"]
    if not clean:
        return
    a = outcome(object_order_stat, data, "median", policy="omit")
    b = outcome(object_order_stat, clean, "median", policy=policy)
    if any(classify_object(x)[0] == "nan" and not classify_object(x)[3] for x in data):
        assert a[0] == "error" and a[1] == "SignalingNaNError"
    else:
        assert a == b


# ---------------------------------------------------------------------------
# object arrays along an axis: errors name the position in the whole input
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
@pytest.mark.parametrize(
    "stat, policy, bad, cls, kind",
    [
        ("median", "raise", D("NaN"), NaNError, "NaN"),
        ("mean", "raise", None, NaNError, "missing"),
        ("count", "raise", NAN, NaNError, "NaN"),
        ("quantile", "omit", D("sNaN"), SignalingNaNError, "signaling NaN"),
        ("sum", "largest", SNAN, SignalingNaNError, "signaling NaN"),
    ],
)
def test_object_rows_errors_name_the_input_position(axis, stat, policy, bad, cls, kind):
    x = np.array([[D(1), 2, F(3), 4.0], [5, 6, 7, D(8)], [9, 10, 11, 12]], dtype=object)
    x[1, 2] = bad
    fn = moment_stat if stat in ("mean", "count", "sum") else order_stat
    kw = {"q": 0.5} if stat == "quantile" else {}
    with pytest.raises(cls) as info:
        fn(x, stat, axis=axis, policy=policy, **kw)
    err = info.value
    assert type(err) is cls and err.kind == kind and err.count == 1
    assert err.position == (1, 2)
    assert "first at position (1, 2)" in str(err)
