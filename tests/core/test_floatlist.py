"""Lists of Python floats to float64 in one checked pass (``nanaccess.core.floatlist``).

Reference: ``struct.pack("<d", x)`` of each element (the exact IEEE bytes), and the
rule that only exact ``float`` elements may take the float path.
"""

from __future__ import annotations

import struct
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import nanaccess as na
from nanaccess.core.floatlist import bool_list_falses, float_list_array
from nanaccess.errors import SignalingNaNError


def _float_of_bits(bits: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


@given(st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=50))
def test_bits_survive_exactly(bit_patterns):
    # every bit pattern, NaN payloads, signs and signaling bits included
    vals = [_float_of_bits(b) for b in bit_patterns]
    got = float_list_array(vals)
    assert got is not None and got.dtype == np.float64 and got.flags.c_contiguous
    assert got.view(np.uint64).tolist() == bit_patterns


def test_tuple_and_repeated_objects():
    nan = float("nan")
    got = float_list_array((nan, 1.0, nan, nan))
    assert np.isnan(got).sum() == 3 and got[1] == 1.0


@pytest.mark.parametrize(
    "vals",
    [
        [1.0, 2],  # an int: a median of ints is an int, and big ints don't fit
        [1.0, True],
        [1.0, Decimal("2")],
        [1.0, Fraction(1, 3)],
        [1.0, np.float64(2.0)],  # a float subclass: the generic path decides
        [1.0, [2.0]],
        [1.0, None],
        [1.0, "2"],
        [1.0, 2**80],
        [],
    ],
    ids=repr,
)
def test_anything_but_exact_floats_is_refused(vals):
    assert float_list_array(vals) is None


def test_other_iterables_are_refused():
    assert float_list_array(iter([1.0])) is None
    assert float_list_array(np.array([1.0])) is None


def test_the_callers_list_is_untouched():
    vals = [3.0, float("nan"), 1.0]
    before = [struct.pack("<d", v) for v in vals]
    na.median(vals, nan_policy="omit")
    assert [struct.pack("<d", v) for v in vals] == before


def test_list_results_keep_statistics_types():
    # the float path returns Python floats; ints still take the exact path
    assert type(na.median([1.0, 2.0, 4.0])) is float
    assert type(na.median([1, 2, 4])) is int
    assert na.median([1.0, 2, 4.0]) == 2 and type(na.median([1.0, 2, 4.0])) is int


def test_signaling_nan_in_a_list_raises():
    snan = _float_of_bits(0x7FF0_0000_0000_0001)
    with pytest.raises(SignalingNaNError):
        na.median([1.0, snan, 2.0], nan_policy="omit")
    got = na.median([snan, 5.0, 7.0, 9.0, 11.0], nan_policy="totalorder")
    assert got == 9.0


def test_list_totalorder_returns_the_nan_bits():
    neg_payload = _float_of_bits(0xFFF8_0000_0000_0ABC)
    got = na.median([neg_payload, neg_payload, 1.0], nan_policy="totalorder")
    assert struct.pack("<d", got) == struct.pack("<d", neg_payload)


_bool_likes = st.one_of(st.booleans(), st.sampled_from([0, 1, 0.0, 1.0, None, np.bool_(True),
                                                        np.bool_(False), "T", b"F"]))


@given(st.lists(st.booleans(), min_size=1, max_size=300), st.lists(_bool_likes, max_size=3),
       st.integers(0, 300))
def test_bool_counts_prove_every_type(bools, others, at):
    assert bool_list_falses(bools) == bools.count(False)
    mixed = bools[:at] + others + bools[at:]
    want = mixed.count(False) if all(type(v) is bool for v in mixed) else None
    assert bool_list_falses(mixed) == want


@given(st.lists(st.booleans(), min_size=1, max_size=400), st.lists(_bool_likes, max_size=2))
def test_bool_list_medians_as_statistics(bools, others):
    import statistics

    vals = bools + others
    if any(v is None or isinstance(v, str | bytes) for v in vals):
        return
    for stat in ("median", "median_low", "median_high"):
        got = getattr(na, stat)(vals)
        want = getattr(statistics, stat)(vals)
        assert got == want and type(got) is type(want)
