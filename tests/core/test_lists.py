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
from nanaccess.core.lists import MEDIANS, list_median
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
    for stat in MEDIANS:
        for policy in POLICIES:
            _check(vals, stat, policy)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.one_of(*KINDS.values(), st.floats(allow_nan=True), st.booleans()),
                min_size=1, max_size=20))
def test_mixtures_equal_generic(vals):
    for stat in MEDIANS:
        _check(vals, stat, "omit")
        _check(vals, stat, "totalorder")


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
    [1.5, 2],  # mixed types
    [np.float64("nan"), np.float64(1.0)],  # a NaN: the policy decides
    [Decimal("NaN"), Decimal(1)],
    [Decimal("sNaN")],
    [Fraction(10**400, 1), Fraction(1)],  # no float key
    [True, False],
    [],
])
def test_generic_cases_are_refused(vals):
    assert list_median(vals, "median") is None


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
