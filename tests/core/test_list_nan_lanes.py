"""The short-list NaN lanes (issue 14's neighbours): floats holding NaNs under every
policy, lists of ``np.float64`` through the Python float lane, and lists of one NumPy
float type or of Decimals holding NaNs that a policy drops.

Reference: the generic object path (``object_order_stat(..., statistics_compat=True)``);
results, result types (NaN payloads, signed zeros) and errors must be the same, and a
spy on the generic path proves the lane answered where it should.
"""

from __future__ import annotations

import statistics
import struct
from decimal import Decimal
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nanaccess as na
from nanaccess.core import lists
from nanaccess.core.lists import MEDIANS, list_median
from nanaccess.core.objects import object_order_stat
from nanaccess.options import NanPolicy

POLICIES = [p.value for p in NanPolicy]


def _f(bits: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


QNAN, NEG_QNAN, PAYLOAD_QNAN = _f(0x7FF8000000000000), _f(0xFFF8000000000001), \
    _f(0x7FF800000000BEEF)
SNAN = _f(0x7FF0000000000001)
_NANS = st.sampled_from([QNAN, NEG_QNAN, PAYLOAD_QNAN, SNAN])
_FLOATS = st.one_of(st.floats(allow_nan=False), st.sampled_from([0.0, -0.0, 1.0, -1.0]),
                    _NANS)


def _outcome(fn: Any) -> tuple:
    try:
        r = fn()
    except statistics.StatisticsError as err:  # nothing left: the float array path names
        return ("error", type(err))  # the statistic, the object path says "median"
    except Exception as err:  # noqa: BLE001 - the error itself is compared
        return ("error", type(err), str(err))
    if isinstance(r, np.generic):
        return ("np", type(r), r.tobytes())
    if isinstance(r, float):
        return ("float", struct.pack("<d", r))
    if isinstance(r, Decimal):
        return ("decimal", str(r), r.as_tuple())
    return (type(r), r)


def _check(vals: list) -> None:
    for stat in MEDIANS:
        for policy in POLICIES:
            fast = _outcome(lambda s=stat, p=policy: getattr(na, s)(vals, nan_policy=p))
            ref = _outcome(lambda s=stat, p=policy: object_order_stat(
                vals, s, policy=NanPolicy(p), statistics_compat=True))
            assert fast == ref, (stat, policy)


@settings(max_examples=120, deadline=None)
@given(st.lists(_FLOATS, min_size=1, max_size=20), st.lists(_NANS, max_size=7))
def test_floats_with_nans_equal_generic(vals, nans):
    """One to seven NaNs (removed one by one up to four, by a comprehension beyond)."""
    _check(vals + nans)
    _check(nans + vals)


@settings(max_examples=120, deadline=None)
@given(st.lists(_FLOATS, min_size=1, max_size=30))
def test_np_float64_lists_equal_generic(vals):
    _check([np.float64(v) for v in vals])


@pytest.mark.parametrize("t", [np.float16, np.float32])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_other_numpy_floats_with_nans_equal_generic(t, data):
    width = 16 if t is np.float16 else 32
    utype = np.uint16 if t is np.float16 else np.uint32
    vals = data.draw(st.lists(st.one_of(
        st.floats(allow_nan=False, width=width).map(t),
        st.integers(0, 2**width - 1).map(lambda b: np.array(b, utype).view(t)[()])),
        min_size=1, max_size=20))
    _check(vals)


_DECIMALS = st.one_of(st.decimals(allow_nan=False, allow_infinity=True, places=None),
                      st.sampled_from(["0", "-0", "1.0", "1.00", "NaN", "-NaN", "NaN12",
                                       "sNaN"]).map(Decimal))


@settings(max_examples=120, deadline=None)
@given(st.lists(_DECIMALS, min_size=1, max_size=20))
def test_decimal_lists_equal_generic(vals):
    _check(vals)


def _spy(monkeypatch: pytest.MonkeyPatch) -> list:
    calls: list = []
    import nanaccess.core.iterable as boundary  # the iterable entry

    real = boundary.object_order_stat

    def spy(*args: Any, **kw: Any) -> Any:
        calls.append(args)
        return real(*args, **kw)

    monkeypatch.setattr(boundary, "object_order_stat", spy)
    return calls


@pytest.mark.parametrize("vals", [
    [3.0, QNAN, 1.0, 2.0],
    [3.0, QNAN, 1.0, NEG_QNAN, 2.0, PAYLOAD_QNAN, QNAN, QNAN, 5.0],  # beyond four NaNs
    [np.float64(3.0), np.float64("nan"), np.float64(1.0)],
    [np.float32(3.0), np.float32("nan"), np.float32(1.0), np.float32(7.0)],
    [Decimal("3"), Decimal("NaN"), Decimal("1.0"), Decimal("1.00")],
])
def test_omit_takes_the_lane(vals, monkeypatch):
    calls = _spy(monkeypatch)
    for stat in MEDIANS:
        na.median(vals, nan_policy="omit")
        getattr(na, stat)(vals, nan_policy="omit")
    assert not calls
    nums = [v for v in vals if v == v]
    assert list_median(vals, "median_low", NanPolicy.OMIT) == list_median(nums, "median_low")


def test_propagate_takes_the_lane(monkeypatch):
    calls = _spy(monkeypatch)
    got = na.median([3.0, PAYLOAD_QNAN, 1.0, NEG_QNAN], nan_policy="propagate")
    assert struct.pack("<d", got) == struct.pack("<d", PAYLOAD_QNAN)  # totalOrder-greatest
    got = na.median([np.float64(3.0), np.float64(PAYLOAD_QNAN)], nan_policy="propagate")
    assert type(got) is np.float64 and got.tobytes() == np.float64(PAYLOAD_QNAN).tobytes()
    assert not calls


@pytest.mark.parametrize("vals", [
    [3.0, SNAN, 1.0],
    [np.float64(3.0), np.float64(SNAN), np.float64(1.0)],
    [np.float32(3.0), np.array(0x7F800001, np.uint32).view(np.float32)[()], np.float32(1)],
    [Decimal("3"), Decimal("sNaN"), Decimal("1")],
])
@pytest.mark.parametrize("policy", ["omit", "propagate"])
def test_signaling_nans_raise(vals, policy):
    with pytest.raises(na.SignalingNaNError):
        na.median(vals, nan_policy=policy)


def test_signaling_test_reads_each_kind():
    assert lists._signaling(SNAN) and not lists._signaling(QNAN)
    assert lists._signaling(np.float64(SNAN)) and not lists._signaling(np.float64(QNAN))
    snan32 = np.array(0x7F800001, np.uint32).view(np.float32)[()]
    assert lists._signaling(snan32) and not lists._signaling(np.float32("nan"))
    assert lists._signaling(Decimal("sNaN")) and not lists._signaling(Decimal("NaN"))
