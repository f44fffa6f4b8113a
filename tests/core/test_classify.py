"""Classification (spec section 1): ``isnan``, ``issignaling``, ``nan_payload``,
``make_nan``, ``nan_report`` for float16/32/64 bit patterns and every numeric type.

Reference: the struct oracle (``tests/oracle.py``) for float bit patterns; the
spec's table for Python scalars.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nanaccess as na
from tests import oracle

WIDTHS = [16, 32, 64]
DTYPES = ["float16", "float32", "float64"]
MED = settings(max_examples=max(10, settings.default.max_examples * 2 // 5))


# ------------------------------------------------------------ float bit patterns


@pytest.mark.parametrize("width", WIDTHS)
@MED
@given(data=st.data())
def test_array_classification_matches_oracle(width, data):
    lay = oracle.LAYOUTS[width]
    bits = data.draw(st.lists(oracle.bit_patterns(width), max_size=20))
    x = oracle.from_bits(bits, lay.dtype)
    before = x.tobytes()
    isn = na.isnan(x)
    sig = na.issignaling(x)
    pay = na.nan_payload(x)
    assert isinstance(isn, np.ndarray) and isn.dtype == bool and isn.shape == x.shape
    assert isinstance(sig, np.ndarray) and sig.dtype == bool
    assert pay.dtype == np.int64 and pay.shape == x.shape
    assert isn.tolist() == [oracle.is_nan(b, lay) for b in bits]
    assert sig.tolist() == [oracle.is_signaling(b, lay) for b in bits]
    assert pay.tolist() == [oracle.payload(b, lay) if oracle.is_nan(b, lay) else -1
                            for b in bits]
    assert x.tobytes() == before


@pytest.mark.parametrize("width", WIDTHS)
@MED
@given(data=st.data())
def test_scalar_classification_matches_oracle(width, data):
    lay = oracle.LAYOUTS[width]
    b = data.draw(oracle.bit_patterns(width))
    v = oracle.from_bits([b], lay.dtype)[0]  # a NumPy scalar of the width
    assert oracle.bits_of_scalar(v) == b
    assert bool(na.isnan(v)) is oracle.is_nan(b, lay)
    assert bool(na.issignaling(v)) is oracle.is_signaling(b, lay)
    p = na.nan_payload(v)
    if oracle.is_nan(b, lay):
        assert p == oracle.payload(b, lay)
    else:
        assert p is None


@given(b=oracle.bit_patterns(64))
def test_python_float_classification(b):
    lay = oracle.LAYOUTS[64]
    v = oracle.from_bits([b], np.float64)[0].item()  # a Python float with these bits
    assert isinstance(v, float)
    if oracle.float64_bits(v) != b:  # pragma: no cover - platform quieted it
        return
    assert na.isnan(v) is oracle.is_nan(b, lay)
    assert na.issignaling(v) is oracle.is_signaling(b, lay)


@pytest.mark.parametrize("dtype", DTYPES)
def test_big_endian_strided_readonly_arrays(dtype):
    width = np.dtype(dtype).itemsize * 8
    lay = oracle.LAYOUTS[width]
    bits = oracle.special_bits(width)
    x = oracle.from_bits(bits, dtype)
    big = x.astype(np.dtype(dtype).newbyteorder(">"))
    big.flags.writeable = False
    strided = np.repeat(big, 2)[::2]
    for arr in (big, strided):
        assert na.isnan(arr).tolist() == [oracle.is_nan(b, lay) for b in bits]
        assert na.issignaling(arr).tolist() == [oracle.is_signaling(b, lay) for b in bits]
        assert na.nan_payload(arr).tolist() == [
            oracle.payload(b, lay) if oracle.is_nan(b, lay) else -1 for b in bits]
    assert oracle.bits_list(big) == bits


def test_2d_array_shapes():
    x = np.array([[np.nan, 1.0], [na.make_nan(3, signaling=True), -np.inf]])
    assert na.isnan(x).tolist() == [[True, False], [True, False]]
    assert na.issignaling(x).tolist() == [[False, False], [True, False]]
    assert na.nan_payload(x).tolist() == [[0, -1], [3, -1]]


# ---------------------------------------------------------------------- make_nan


@pytest.mark.parametrize("width", WIDTHS)
@MED
@given(data=st.data())
def test_make_nan_bits(width, data):
    lay = oracle.LAYOUTS[width]
    signaling = data.draw(st.booleans())
    negative = data.draw(st.booleans())
    payload = data.draw(st.integers(1 if signaling else 0, lay.payload_mask))
    v = na.make_nan(payload, negative=negative, signaling=signaling, dtype=lay.dtype)
    assert isinstance(v, np.floating) and v.dtype == lay.dtype
    expect = lay.exp_mask | payload | (0 if signaling else lay.quiet_bit)
    expect |= lay.sign_bit if negative else 0
    assert oracle.bits_of_scalar(v) == expect
    assert na.isnan(v) and bool(na.issignaling(v)) is signaling
    assert na.nan_payload(v) == payload


def test_make_nan_defaults_and_errors():
    v = na.make_nan()
    assert v.dtype == np.float64
    assert oracle.bits_of_scalar(v) == 0x7FF8000000000000
    assert hex(oracle.bits_of_scalar(na.make_nan(5, negative=True))) == "0xfff8000000000005"
    with pytest.raises(ValueError):
        na.make_nan(0, signaling=True)  # would be infinity
    with pytest.raises(ValueError):
        na.make_nan(1 << 51)  # payload above the quiet bit
    with pytest.raises(ValueError):
        na.make_nan(-1)
    with pytest.raises(ValueError):
        na.make_nan(1 << 9, dtype="float16")
    assert na.nan_payload(na.make_nan((1 << 9) - 1, dtype="float16")) == (1 << 9) - 1
    with pytest.raises(TypeError):
        na.make_nan(1, dtype="int64")


# ------------------------------------------------------------- Python scalars

D = Decimal
NOT_NAN = [
    0, 1, -7, True, False, 10**1000, -(10**1000), 2**64, Fraction(1, 3), Fraction(-10**500, 3),
    Decimal("1.5"), Decimal("-0"), Decimal("Infinity"), Decimal("-Infinity"),
    Decimal("1e-999999"), 1.5, -0.0, math.inf, -math.inf, 5e-324,
    np.int8(-3), np.uint64(2**64 - 1), np.float32(2.5), np.bool_(True),
]
MISSING = [None, pd.NA, np.datetime64("NaT"), np.timedelta64("NaT"), pd.NaT]


@pytest.mark.parametrize("value", NOT_NAN, ids=lambda v: type(v).__name__)
def test_numbers_are_not_nan_and_never_raise(value):
    assert na.isnan(value) is False or na.isnan(value) == False  # noqa: E712
    assert not na.issignaling(value)
    assert na.nan_payload(value) is None


def test_huge_int_is_a_number():
    assert na.isnan(10**1000) is False
    assert na.issignaling(10**1000) is False
    r = na.nan_report([10**1000, -(10**1000), 1])
    assert r["numbers"] == 3 and r["nan"] == 0


@pytest.mark.parametrize("value", MISSING, ids=repr)
def test_missing_is_not_nan(value):
    assert not na.isnan(value)
    assert not na.issignaling(value)
    assert na.nan_payload(value) is None


@pytest.mark.parametrize(
    ("value", "signaling", "payload"),
    [
        (D("NaN"), False, 0),
        (D("-NaN"), False, 0),
        (D("NaN123"), False, 123),
        (D("-NaN123"), False, 123),
        (D("sNaN"), True, 0),
        (D("-sNaN7"), True, 7),
        (D("sNaN" + "9" * 30), True, int("9" * 30)),
        (float("nan"), False, 0),
        (-float("nan"), False, 0),
        (np.float64("nan"), False, 0),
    ],
    ids=str,
)
def test_nan_scalars(value, signaling, payload):
    assert na.isnan(value) is True or bool(na.isnan(value))
    assert bool(na.issignaling(value)) is signaling
    assert na.nan_payload(value) == payload


def test_decimal_snan_classification_raises_nothing():
    import decimal

    with decimal.localcontext() as ctx:
        ctx.traps[decimal.InvalidOperation] = True
        assert na.isnan(D("sNaN"))
        assert na.issignaling(D("sNaN"))
        r = na.nan_report([D("sNaN1"), D("-NaN2"), D("1")])
    assert r["signaling_nan"] == 1 and r["quiet_nan"] == 1 and r["negative_nan"] == 1


def test_datetime_arrays_nat_is_missing_not_nan():
    for x in (np.array(["2024-01-01", "NaT", "1970-01-01"], dtype="datetime64[ns]"),
              np.array(["2024-01-01", "NaT", "1970-01-01"], dtype="datetime64[D]"),
              np.array([1, np.timedelta64("NaT"), 3], dtype="timedelta64[s]")):
        assert na.isnan(x).tolist() == [False, False, False]
        assert na.issignaling(x).tolist() == [False, False, False]
        assert na.nan_payload(x).tolist() == [-1, -1, -1]
        r = na.nan_report(x)
        assert r["missing"] == 1 and r["nan"] == 0 and r["numbers"] == 2


@pytest.mark.parametrize("dtype", ["int8", "uint64", "int64", "bool"])
def test_integer_and_bool_arrays(dtype):
    x = np.array([0, 1, 1], dtype=dtype)
    assert na.isnan(x).tolist() == [False] * 3
    assert na.issignaling(x).tolist() == [False] * 3
    assert na.nan_payload(x).tolist() == [-1] * 3
    r = na.nan_report(x)
    assert r["values"] == 3 and r["numbers"] == 3 and r["nan"] == 0 and r["missing"] == 0


def test_object_array_classification():
    x = np.array([1.0, None, D("sNaN4"), D("-NaN"), 10**1000, Fraction(1, 2), pd.NA, float("nan"),
                  True], dtype=object)
    assert na.isnan(x).tolist() == [False, False, True, True, False, False, False, True, False]
    assert na.issignaling(x).tolist() == [False, False, True] + [False] * 6
    assert na.nan_payload(x).tolist() == [-1, -1, 4, 0, -1, -1, -1, 0, -1]


def test_list_input_classification():
    assert na.isnan([1.0, None, D("NaN")]).tolist() == [False, False, True]


# -------------------------------------------------------------------- nan_report


KEYS = ("values", "numbers", "nan", "quiet_nan", "signaling_nan", "negative_nan",
        "distinct_payloads", "posinf", "neginf", "missing")


@pytest.mark.parametrize("width", WIDTHS)
@MED
@given(data=st.data())
def test_nan_report_matches_oracle(width, data):
    lay = oracle.LAYOUTS[width]
    bits = data.draw(st.lists(oracle.bit_patterns(width), max_size=20))
    x = oracle.from_bits(bits, lay.dtype)
    r = na.nan_report(x)
    assert tuple(r) == KEYS or set(r) == set(KEYS)
    nans = [b for b in bits if oracle.is_nan(b, lay)]
    expect = {
        "values": len(bits),
        "numbers": len(bits) - len(nans),
        "nan": len(nans),
        "quiet_nan": sum(not oracle.is_signaling(b, lay) for b in nans),
        "signaling_nan": sum(oracle.is_signaling(b, lay) for b in nans),
        "negative_nan": sum(oracle.is_negative(b, lay) for b in nans),
        "distinct_payloads": len({oracle.payload(b, lay) for b in nans}),
        "posinf": bits.count(lay.exp_mask),
        "neginf": bits.count(lay.exp_mask | lay.sign_bit),
        "missing": 0,
    }
    assert {k: int(v) for k, v in r.items()} == expect


def test_nan_report_docstring_mix():
    r = na.nan_report([1.0, float("nan"), -math.inf, None, na.make_nan(3, negative=True)])
    assert (r["nan"], r["negative_nan"], r["distinct_payloads"], r["neginf"], r["missing"]) == (
        2, 1, 2, 1, 1)
    assert r["values"] == 5 and r["numbers"] == 2


def test_nan_report_objects():
    r = na.nan_report([D("sNaN3"), D("NaN"), 10**1000, None, pd.NA, Fraction(1, 2), True,
                       D("-Infinity"), math.inf])
    assert r["values"] == 9
    assert r["nan"] == 2 and r["signaling_nan"] == 1 and r["quiet_nan"] == 1
    assert r["missing"] == 2
    assert r["numbers"] == 5
    assert r["posinf"] >= 1


def test_nan_report_counts_decimal_infinities():
    """Decimal('Infinity') / Decimal('-Infinity') are infinities like float ones."""
    r = na.nan_report([D("-Infinity"), D("Infinity"), D("1"), -math.inf])
    assert r["posinf"] == 1
    assert r["neginf"] == 2


def test_nan_report_never_modifies_input():
    x = np.array([np.nan, 1.0, na.make_nan(2, signaling=True)])
    x.flags.writeable = False
    before = x.tobytes()
    na.nan_report(x)
    assert x.tobytes() == before


def test_core_imports_no_adapter():
    """The host split lives in the boundary (issue 14): no core module imports an
    adapter package (nanaccess.pandas / xarray / dask)."""
    import pathlib
    import re

    core = pathlib.Path(na.__file__).parent / "core"
    pattern = re.compile(r"^\s*(from|import)\s+(\.\.+|nanaccess\.)(pandas|xarray|dask)\b",
                         re.MULTILINE)
    bad = [str(p) for p in core.rglob("*.py") if pattern.search(p.read_text())]
    assert bad == []


def test_missing_argument_is_never_nan():
    x = np.array([np.nan, na.make_nan(9), 1.0])
    miss = np.array([False, True, False])
    assert na.isnan(x, missing=miss).tolist() == [True, False, False]
    assert na.issignaling(x, missing=miss).tolist() == [False, False, False]
    assert na.nan_payload(x, missing=miss).tolist() == [0, -1, -1]
    m = np.ma.array(x, mask=[True, False, False])  # or-ed with a masked array's mask
    assert na.isnan(m, missing=miss).tolist() == [False, False, False]
