"""Fast median picks of homogeneous lists (``nanaccess.core.lists``).

Reference: the generic object path (:func:`nanaccess.core.objects.object_order_stat`
with ``statistics_compat=True``), which the list API took before; results, result
types (NaN payloads and signed zeros included) and errors must be the same for
every element kind and every policy. Also :func:`statistics.median` on NaN-free data.
"""

from __future__ import annotations

import statistics
import struct
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nanaccess as na
from nanaccess.core.lists import MEDIANS, SHORT_LIST, list_median
from nanaccess.core.objects import object_order_stat
from nanaccess.options import NanPolicy

POLICIES = [p.value for p in NanPolicy]
NP_TYPES = [np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64,
            np.uint8, np.uint16, np.uint32, np.uint64]


def _float_of_bits(bits: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def _np_scalars(t: type) -> st.SearchStrategy:
    info = np.finfo(t) if np.dtype(t).kind == "f" else np.iinfo(t)
    if np.dtype(t).kind == "f":
        bits = 8 * np.dtype(t).itemsize
        utype = np.dtype(f"u{bits // 8}")
        return st.one_of(
            st.integers(0, 2**bits - 1).map(lambda b: np.array(b, utype).view(t)[()]),
            st.sampled_from([0.0, -0.0, 1.0, -1.0, 2.0]).map(t),
        )
    return st.one_of(st.integers(int(info.min), int(info.max)),
                     st.integers(-3, 3).filter(lambda v: v >= int(info.min))).map(t)


_decimals = st.one_of(
    st.decimals(allow_nan=True, allow_infinity=True, places=None),
    st.sampled_from(["0", "-0", "1", "1.0", "1.00", "-1.0", "2", "NaN", "-NaN", "sNaN",
                     "Infinity", "-Infinity", "1e400", "-1e400"]).map(Decimal),
)
_fractions = st.one_of(
    st.fractions(),
    st.integers(-5, 5).map(Fraction),
    st.integers(1, 10).map(lambda k: Fraction(10**400 + k, 3)),
)
_ints = st.one_of(st.integers(-5, 5), st.integers(-(2**70), 2**70),
                  st.integers(-(2**1100), 2**1100))

KINDS = {
    "int": _ints,
    "fraction": _fractions,
    "decimal": _decimals,
    **{t.__name__: _np_scalars(t) for t in NP_TYPES},
}


def _outcome(fn: Any) -> tuple:
    try:
        r = fn()
    except Exception as err:  # noqa: BLE001 - the error itself is compared
        return ("error", type(err), str(err))
    if isinstance(r, np.generic):
        return ("np", type(r), r.tobytes())
    if isinstance(r, float):
        return ("float", struct.pack("<d", r))
    if isinstance(r, Decimal):
        return ("decimal", str(r), r.as_tuple())
    return (type(r), r)


def _generic(vals: list, stat: str, policy: str) -> tuple:
    return _outcome(lambda: object_order_stat(vals, stat, policy=NanPolicy(policy),
                                              statistics_compat=True))


def _check(vals: list, stat: str, policy: str) -> None:
    fast = _outcome(lambda: getattr(na, stat)(vals, nan_policy=policy))
    assert fast == _generic(vals, stat, policy)


@pytest.mark.parametrize("kind", sorted(KINDS))
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_fast_path_equals_generic(kind, data):
    vals = data.draw(st.lists(KINDS[kind], min_size=1, max_size=30))
    if data.draw(st.booleans()):  # long runs of equal values
        vals = vals + vals[: len(vals) // 2] * 3
    if data.draw(st.booleans()):  # beyond the short lists sorted in Python
        vals = vals * (SHORT_LIST // len(vals) + 1)
    for stat in MEDIANS:
        for policy in POLICIES:
            _check(vals, stat, policy)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.one_of(*KINDS.values(), st.floats(allow_nan=True), st.booleans()),
                min_size=1, max_size=20), st.integers(1, 5))
def test_mixtures_equal_generic(vals, repeat):
    vals = vals * repeat
    for stat in MEDIANS:
        for policy in POLICIES:
            _check(vals, stat, policy)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-(2**62), 2**62), min_size=1, max_size=50))
def test_ints_as_statistics(vals):
    assert na.median(vals) == statistics.median(vals)
    assert type(na.median(vals)) is type(statistics.median(vals))
    assert type(na.median_low(vals)) is int
    assert na.median_high(vals) == statistics.median_high(vals)


@pytest.mark.parametrize("t", NP_TYPES)
def test_numpy_scalars_take_the_fast_path(t):
    vals = [t(v) for v in (3, 1, 2, 7)]
    assert list_median(vals, "median_low") is not None
    assert _outcome(lambda: na.median(vals)) == _generic(vals, "median", "raise")


@pytest.mark.parametrize("vals", [
    [1.5, None],  # a missing value
    [np.float64("nan"), np.float64(1.0)],  # a NaN: the policy decides
    [Decimal("NaN"), Decimal(1)],
    [Decimal("sNaN")],
    [Fraction(10**400, 1)] * (SHORT_LIST + 1) + [Fraction(1)],  # no float key
    [10**400] * (SHORT_LIST + 1) + [1.5],  # no float key (a short list sorts exactly)
    [np.longdouble(1), 2],  # no exact float64 key
    [],
])
def test_generic_cases_are_refused(vals):
    assert list_median(vals, "median") is None
    assert list_median(vals, "median", NanPolicy.OMIT) is None or np.isnan(
        np.float64(vals[0]))


@pytest.mark.parametrize("vals", [
    [1.5, 2], [True, False], [True, 2, 3.5], [np.float32(1), 2, Fraction(1, 3)],
    [Decimal("1.5"), 2, np.int64(7)], [np.uint64(2**64 - 1), 1, 2.0], [10**400, 1.5],
    [0, 0.0, -0.0, False, np.float32(-0.0)], [Decimal("1.0"), Decimal("1.00")] * 3,
    [Fraction(10**400, 1), Fraction(1)],  # no float key: a short list sorts exactly
    [np.float64(2.5), 1.0, np.float32(3.0), 2.5, 7, Fraction(5, 2)],  # runs of equal keys
])
def test_mixtures_take_the_fast_path(vals):
    for stat in MEDIANS:
        assert list_median(vals, stat) is not None
        assert _outcome(lambda s=stat: getattr(na, s)(vals)) == _generic(vals, stat, "raise")


def test_omit_drops_quiet_nans_only():
    nan32 = np.float32("nan")
    assert list_median([3, nan32, 1, 2], "median", NanPolicy.OMIT) == 2
    assert list_median([3, nan32, 1, 2], "median", NanPolicy.PROPAGATE) is None
    snan = np.array(0x7F800001, np.uint32).view(np.float32)[()]
    assert list_median([3, snan, 1, 2], "median", NanPolicy.OMIT) is None  # generic raises
    with pytest.raises(na.SignalingNaNError):
        na.median([3, snan, 1, 2], nan_policy="omit")


def test_decimal_context_is_the_callers():
    from decimal import localcontext
    vals = [Decimal("1.23456"), Decimal("2.00001")]
    with localcontext() as ctx:
        ctx.prec = 3
        assert na.median(vals) == statistics.median(vals) == Decimal("1.62")


def test_nan_raises_as_generic():
    vals = [np.float32(1), np.float32("nan")]
    with pytest.raises(na.NaNError) as err:
        na.median(vals)
    assert err.value.position == (1,)


_plain = {
    "bool": st.booleans(),
    "int": st.integers(-(2**80), 2**80),
    "float64": st.floats(-1e300, 1e300).map(np.float64),
    "float32": st.floats(-(2.0**100), 2.0**100, width=32).map(np.float32),
    "int64": st.integers(-(2**62), 2**62).map(np.int64),
    "decimal": st.decimals(-10**6, 10**6, places=4),
    "fraction": st.fractions(-10**6, 10**6),
    "int and float": st.one_of(st.integers(-10**6, 10**6), st.floats(-1e6, 1e6)),
}


@pytest.mark.parametrize("kind", sorted(_plain))
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_every_kind_as_statistics(kind, data):
    vals = data.draw(st.lists(_plain[kind], min_size=1, max_size=20))
    vals = vals * data.draw(st.sampled_from([1, SHORT_LIST]))
    for stat in MEDIANS:
        got, ref = getattr(na, stat)(vals), getattr(statistics, stat)(vals)
        assert got == ref
        # equal values of two types (0 and 0.0) tie: the library's fixed order picks
        # by type, statistics by position; the midpoint of two NumPy ints is a Python
        # float (the generic path's, kept), statistics' an np.float64
        if kind == "int64" and stat == "median" and len(vals) % 2 == 0:
            assert type(got) is float
        elif kind != "int and float":
            assert type(got) is type(ref)


def test_long_decimal_lists_on_float_keys():
    """Beyond SHORT_DECIMALS, Decimals are selected on float keys; ties of equal
    values (1.0, 1.00, 1) keep the generic order."""
    from nanaccess.core.lists import SHORT_DECIMALS

    rng = np.random.default_rng(3)
    digits = rng.integers(0, 5, SHORT_DECIMALS + 11).tolist()
    vals = [Decimal(d) if k % 3 else Decimal(f"{d}.{'0' * (k % 4)}") if k % 4 else
            Decimal(f"{d}.0") for k, d in enumerate(digits)]
    for stat in MEDIANS:
        assert list_median(vals, stat) is not None
        assert _outcome(lambda s=stat: getattr(na, s)(vals)) == _generic(vals, stat, "raise")
