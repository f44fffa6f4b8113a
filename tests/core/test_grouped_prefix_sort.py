"""The grouped NumPy selection's sort by (code, key) when the two do not fit one int64
(float keys span 64 bits): one integer sort of (code, the key's leading bits, row),
checked, else the argsort and the radix pass on the codes.

Reference: ``np.lexsort`` of (key, code), key for key.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nanaccess.core.grouped import order
from nanaccess.core.keys import float_keys


def _reference(kk: np.ndarray, cc: np.ndarray) -> np.ndarray:
    return kk[np.lexsort((kk, cc))]


@pytest.mark.parametrize("n,ngroups", [(1, 1), (2, 1), (1000, 1), (1000, 10), (10_000, 100),
                                       (10_000, 1000), (5000, 70_000)])
def test_float_keys_in_group_order(n, ngroups):
    rng = np.random.default_rng(n + ngroups)
    x = rng.normal(size=n) * 10.0 ** rng.integers(-300, 300, n)  # every exponent
    x[::7] = 0.0
    x[::11] = -0.0
    kk = float_keys(x)
    cc = rng.integers(0, ngroups, n)
    got = order._sorted_by_group(kk, cc, ngroups)
    assert got.dtype == kk.dtype and np.array_equal(got, _reference(kk, cc))


def test_shared_prefixes_are_caught(monkeypatch):
    """Distinct keys one apart share every leading bit the sort keeps: the check
    refuses the order and the argsort decides (the same result)."""
    x = np.nextafter(1.0, 2.0) * np.ones(2000)
    x[::2] = 1.0
    x[::3] = -1.0  # the span: 64 bits
    kk = float_keys(x)[::-1].copy()
    cc = np.zeros(kk.size, np.int64)
    assert order._sorted_by_prefix(kk, cc, int(kk.min()), 64, 0) is None
    assert np.array_equal(order._sorted_by_group(kk, cc, 1), _reference(kk, cc))
    calls = []
    real = order._sorted_by_prefix
    monkeypatch.setattr(order, "_sorted_by_prefix",
                        lambda *a: calls.append(1) or real(*a))
    order._sorted_by_group(float_keys(np.random.default_rng(0).normal(size=100)),
                           np.zeros(100, np.int64), 1)
    assert calls == [1]


@settings(max_examples=150, deadline=None)
@given(vals=st.lists(st.floats(allow_nan=False), min_size=1, max_size=300),
       ngroups=st.integers(1, 40), seed=st.integers(0, 99))
def test_any_floats(vals, ngroups, seed):
    x = np.array(vals, dtype=np.float64)
    kk = float_keys(x)
    cc = np.random.default_rng(seed).integers(0, ngroups, x.size)
    assert np.array_equal(order._sorted_by_group(kk, cc, ngroups), _reference(kk, cc))


def test_float32_and_int_keys():
    rng = np.random.default_rng(4)
    x = (rng.normal(size=3000) * 1e30).astype(np.float32)
    cc = rng.integers(0, 50, x.size)
    kk = float_keys(x)
    assert np.array_equal(order._sorted_by_group(kk, cc, 50), _reference(kk, cc))
    ints = rng.integers(-(1 << 63), (1 << 63) - 1, 3000, dtype=np.int64)
    assert np.array_equal(order._sorted_by_group(ints, cc, 50), _reference(ints, cc))
