"""totalOrder keys and the "smallest"/"largest" remaps (``nanaccess.core.keys``).

Reference: the struct oracle in ``tests/oracle.py`` (keys built from the raw integer
bits, -magnitude-1 for negatives), over random bit patterns of all three widths.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nanaccess as na
from nanaccess.core.keys import (
    float_keys,
    integer_keys,
    keys_to_float,
    remap_keys,
    unmap_keys,
)
from nanaccess.options import NanPolicy
from tests import oracle

WIDTHS = [16, 32, 64]
DTYPES = {16: np.float16, 32: np.float32, 64: np.float64}
MED = settings(max_examples=max(10, settings.default.max_examples * 2 // 5))


def _same_order(keys: np.ndarray, ref: list) -> None:
    """keys (ints) and ref (any comparable) induce the same weak order."""
    keys = [int(k) for k in np.asarray(keys).ravel()]
    assert len(keys) == len(ref)
    for i in range(len(keys)):
        for j in range(len(keys)):
            assert (keys[i] < keys[j]) == (ref[i] < ref[j]), (i, j)
            assert (keys[i] == keys[j]) == (ref[i] == ref[j]), (i, j)


# --------------------------------------------------------------- totalorder_key


@pytest.mark.parametrize("width", WIDTHS)
@given(data=st.data())
def test_totalorder_key_matches_struct_oracle(width, data):
    bits = data.draw(st.lists(oracle.bit_patterns(width), min_size=1, max_size=20))
    lay = oracle.LAYOUTS[width]
    x = oracle.from_bits(bits, lay.dtype)
    k = na.totalorder_key(x)
    assert k.dtype == np.dtype(f"int{width}")
    assert k.shape == x.shape
    _same_order(k, [oracle.total_key(b, lay) for b in bits])


@pytest.mark.parametrize("width", WIDTHS)
def test_totalorder_key_special_values_in_ieee_order(width):
    lay = oracle.LAYOUTS[width]
    s, e, qb = lay.sign_bit, lay.exp_mask, lay.quiet_bit
    # -qNaN(big payload) < -qNaN < -sNaN(big) < -sNaN < -inf < -max < -1 < -subnormal
    # < -0 < +0 < +subnormal < 1 < max < +inf < +sNaN < +sNaN(big) < +qNaN < +qNaN(big)
    ladder = [
        s | e | qb | 5, s | e | qb, s | e | 5, s | e | 1, s | e, s | (e - 1),
        oracle.bits_of_scalar(np.asarray(-1.0, lay.dtype)), s | 1, s, 0, 1,
        oracle.bits_of_scalar(np.asarray(1.0, lay.dtype)), e - 1, e, e | 1, e | 5, e | qb,
        e | qb | 5,
    ]
    x = oracle.from_bits(ladder, lay.dtype)
    k = na.totalorder_key(x)
    assert np.all(np.diff(k.astype(np.int64)) > 0)
    perm = np.random.default_rng(width).permutation(len(ladder))
    k2 = na.totalorder_key(x[perm])
    order = np.argsort(k2, kind="stable")
    assert oracle.bits_list(x[perm][order]) == ladder


def test_totalorder_key_docstring_example():
    x = np.array([0.0, -0.0, np.inf, -np.nan, np.nan, -1.0])
    order = np.argsort(na.totalorder_key(x), kind="stable")
    assert oracle.bits_list(x[order]) == oracle.bits_list(
        np.array([-np.nan, -1.0, -0.0, 0.0, np.inf, np.nan]))


@pytest.mark.parametrize("width", WIDTHS)
def test_totalorder_key_big_endian_and_strided(width):
    lay = oracle.LAYOUTS[width]
    bits = oracle.special_bits(width)
    x = oracle.from_bits(bits, lay.dtype)
    ref = na.totalorder_key(x)
    big = x.astype(x.dtype.newbyteorder(">"))
    assert oracle.bits_list(big) == bits
    np.testing.assert_array_equal(na.totalorder_key(big), ref)
    wide = np.repeat(x, 3)[::3]  # non-contiguous view
    assert not wide.flags.c_contiguous or wide.size <= 1
    np.testing.assert_array_equal(na.totalorder_key(wide), ref)
    ro = x.copy()
    ro.flags.writeable = False
    before = ro.tobytes()
    np.testing.assert_array_equal(na.totalorder_key(ro), ref)
    assert ro.tobytes() == before


# ---------------------------------------------------------- float_keys roundtrip


@pytest.mark.parametrize("width", WIDTHS)
@MED
@given(data=st.data())
def test_keys_roundtrip_bits(width, data):
    bits = data.draw(st.lists(oracle.bit_patterns(width), max_size=20))
    lay = oracle.LAYOUTS[width]
    x = oracle.from_bits(bits, lay.dtype)
    back = keys_to_float(float_keys(x).copy(), lay.dtype)
    assert back.dtype == lay.dtype
    assert oracle.bits_list(back) == bits


def test_float16_keys_exhaustive():
    """Every one of the 65536 float16 patterns: keys are a bijection in oracle order."""
    lay = oracle.LAYOUTS[16]
    allbits = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    x = allbits.view(np.float16)
    k = float_keys(x).astype(np.int64)
    ref = np.array([oracle.total_key(int(b), lay) for b in allbits], dtype=np.int64)
    order_k = np.argsort(k, kind="stable")
    order_ref = np.argsort(ref, kind="stable")
    np.testing.assert_array_equal(order_k, order_ref)
    assert np.unique(k).size == k.size


# --------------------------------------------------------------- remap / unmap


@pytest.mark.parametrize("policy", ["smallest", "largest"])
def test_remap_float16_exhaustive_is_bijection_in_policy_order(policy):
    lay = oracle.LAYOUTS[16]
    allbits = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    x = allbits.view(np.float16)
    k = float_keys(x).copy()
    r = remap_keys(k.copy(), np.dtype(np.float16), NanPolicy(policy))
    assert r.dtype == np.int16
    assert np.unique(r).size == r.size  # one-to-one
    ref = [oracle.policy_key(int(b), lay, policy) for b in allbits]
    order_ref = sorted(range(len(ref)), key=ref.__getitem__)
    np.testing.assert_array_equal(np.argsort(r, kind="stable"), order_ref)
    back = unmap_keys(r.copy(), np.dtype(np.float16), NanPolicy(policy))
    np.testing.assert_array_equal(back, k)


@pytest.mark.parametrize("policy", ["smallest", "largest"])
@pytest.mark.parametrize("width", WIDTHS)
@MED
@given(data=st.data())
def test_remap_matches_oracle_order_and_inverts(policy, width, data):
    lay = oracle.LAYOUTS[width]
    bits = data.draw(st.lists(oracle.bit_patterns(width), min_size=1, max_size=20))
    bits += oracle.special_bits(width)
    x = oracle.from_bits(bits, lay.dtype)
    k = float_keys(x).copy()
    r = remap_keys(k.copy(), lay.dtype, NanPolicy(policy))
    _same_order(r, [oracle.policy_key(b, lay, policy) for b in bits])
    back = unmap_keys(r.copy(), lay.dtype, NanPolicy(policy))
    np.testing.assert_array_equal(back, k)
    assert oracle.bits_list(keys_to_float(back, lay.dtype)) == bits


@pytest.mark.parametrize("width", WIDTHS)
def test_remap_extreme_keys_do_not_collide(width):
    """Block boundaries: INT_MIN, INT_MAX, first/last number keys map one-to-one."""
    lay = oracle.LAYOUTS[width]
    it = np.dtype(f"int{width}")
    info = np.iinfo(it)
    nps = (1 << lay.mant) - 1
    cand = sorted({info.min, info.min + 1, info.min + nps - 1, info.min + nps,
                   info.min + nps + 1, -1, 0, 1, info.max - nps - 1, info.max - nps,
                   info.max - nps + 1, info.max - 1, info.max})
    k = np.array(cand, dtype=it)
    for policy in (NanPolicy.SMALLEST, NanPolicy.LARGEST):
        r = remap_keys(k.copy(), lay.dtype, policy)
        assert np.unique(r).size == r.size
        np.testing.assert_array_equal(unmap_keys(r.copy(), lay.dtype, policy), k)


def test_remap_other_policies_identity():
    k = float_keys(np.array([np.nan, 1.0, -np.nan])).copy()
    for p in (NanPolicy.TOTALORDER, NanPolicy.OMIT, NanPolicy.RAISE, NanPolicy.PROPAGATE):
        np.testing.assert_array_equal(remap_keys(k.copy(), np.dtype(np.float64), p), k)


# ---------------------------------------------------------------- integer keys


@pytest.mark.parametrize("dtype", ["i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "?",
                                   ">i4", ">u8"])
def test_integer_keys_preserve_order(dtype):
    rng = np.random.default_rng(0)
    info = np.iinfo(np.dtype(dtype)) if np.dtype(dtype).kind != "b" else None
    if info is None:
        x = rng.integers(0, 2, 50).astype(bool)
    else:
        x = rng.integers(int(info.min), int(info.max), 50, dtype=np.dtype(dtype).newbyteorder("="),
                         endpoint=True).astype(dtype)
        x[:2] = [info.min, info.max]
    k = integer_keys(x)
    np.testing.assert_array_equal(np.argsort(k, kind="stable"), np.argsort(x, kind="stable"))
    assert np.array_equal(na.totalorder_key(x), k)


def test_integer_keys_datetime():
    x = np.array(["2024-01-02", "NaT", "1970-01-01", "1900-05-05"], dtype="datetime64[ns]")
    k = integer_keys(x)
    assert k.dtype == np.int64
    assert list(np.argsort(k[[0, 2, 3]])) == [2, 1, 0]


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("layout", ["1-D", "transposed", "strided big-endian", "3-D"])
def test_keys_of_large_arrays_in_cache_blocks(width, layout):
    """Arrays above the key builder's block size (2**16) are keyed block by block along
    the first axis; every layout gives the element-wise reference keys."""
    dt = np.dtype(DTYPES[width])
    rng = np.random.default_rng(width)
    x = np.frombuffer(rng.bytes(300_001 * dt.itemsize), dtype=dt)
    if layout == "transposed":
        x = x[:300_000].reshape(600, 500).T
    elif layout == "strided big-endian":
        x = x.astype(dt.newbyteorder(">"))[::3]
    elif layout == "3-D":
        x = x[:300_000].reshape(3, 1000, 100).transpose(2, 0, 1)
    native = np.ascontiguousarray(x).astype(dt.newbyteorder("="))
    signed = native.view(np.dtype(f"i{width // 8}")).astype(np.int64)
    want = np.where(signed < 0, signed ^ ((1 << (width - 1)) - 1), signed)
    got = float_keys(x)
    assert got.shape == x.shape
    np.testing.assert_array_equal(got.astype(np.int64), want)
    back = keys_to_float(got, dt.newbyteorder("="))
    np.testing.assert_array_equal(back.view(got.dtype), native.view(got.dtype))
