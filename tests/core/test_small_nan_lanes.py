"""The small-array NaN lanes (issue 14's neighbours): a float64 median under a policy
that removes NaNs reuses its first partition, and sums, means, variances of more than
``SMALL_COMPILED`` values take one certified pass that skips NaNs and flags them.

Reference: the generic engine (:func:`nanaccess.core.reduce.reduce`), bit for bit.
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nanaccess.core import small
from nanaccess.core.exactsum import certified
from nanaccess.core.reduce import reduce as core_reduce
from nanaccess.core.small import LEAN_MOMENTS, MEDIANS, SMALL_COMPILED, moment_small, order_small
from nanaccess.options import NanPolicy


def reduce(*args, **kw):
    """The core's engines alone: the reference the lean paths are held to."""
    return core_reduce(*args, lean=False, **kw)


def _f(bits: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


_NANS = [_f(0x7FF8000000000000), _f(0xFFF8000000000000), _f(0x7FF800000000BEEF),
         _f(0x7FF0000000000001)]  # quiet, negative, payload, signaling
_VALUES = st.one_of(st.floats(-1e6, 1e6), st.sampled_from([0.0, -0.0, 1.0, 2.0, 1e308,
                                                            -1e308, float("inf")]))


def _same(got: Any, ref: np.ndarray) -> bool:
    got = np.asarray(got)
    return got.dtype == ref.dtype and got.tobytes() == ref.tobytes()


def _with_nans(data: st.DataObject, lo: int, hi: int) -> np.ndarray:
    vals = data.draw(st.lists(_VALUES, min_size=lo, max_size=hi))
    nans = data.draw(st.lists(st.sampled_from(_NANS), max_size=2 * len(vals) + 2))
    x = np.array(vals + nans, dtype=np.float64)
    return x[np.random.default_rng(data.draw(st.integers(0, 99))).permutation(x.size)]


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_median_with_nans_equals_generic(data):
    """Few and many NaNs (more than half: the filtered copy), zeros, infinities."""
    x = _with_nans(data, 1, 120)
    for stat in MEDIANS:
        for policy in NanPolicy:
            got = order_small(x, stat, policy)
            if got is not None:
                assert _same(got, reduce(x, stat, policy=policy).values)


def test_median_reuses_the_sorted_copy(monkeypatch):
    """One sorted copy per call: it counts the NaNs and holds the numbers' ranks (no
    second selection), also when NaNs reach the median ranks."""
    calls = []
    real = small._sorted_numbers

    def spy(*args: Any) -> Any:
        out = real(*args)
        calls.append(out[1])  # None: NaNs present
        return out

    monkeypatch.setattr(small, "_sorted_numbers", spy)
    monkeypatch.setattr(small, "_by_keys", None)  # never the keys' path here
    x = np.arange(100.0)
    x[::10] = np.nan
    for stat in MEDIANS:
        got = order_small(x, stat, NanPolicy.OMIT)
        assert _same(got, reduce(x, stat, policy=NanPolicy.OMIT).values)
    assert calls == [None, None, None]
    x[:80] = np.nan  # NaNs reach the median ranks: the same sorted copy
    got = order_small(x, "median", NanPolicy.OMIT)
    assert _same(got, reduce(x, "median", policy=NanPolicy.OMIT).values)
    assert calls == [None, None, None, None]
    monkeypatch.undo()
    for k in (0, 1, 2, 99, 100):  # none, one, several, all but one, all
        y = np.arange(100.0)
        y[np.random.default_rng(k).permutation(100)[:k]] = np.nan
        for policy in (NanPolicy.OMIT, NanPolicy.TOTALORDER, NanPolicy.PROPAGATE):
            got = order_small(y, "median", policy)
            ref = reduce(y, "median", policy=policy).values if k < 100 else None
            assert (got is None) if k == 100 and policy is NanPolicy.OMIT \
                else _same(got, ref if ref is not None else
                           reduce(y, "median", policy=policy).values)


def test_signaling_nans_seen_past_the_sort():
    """NumPy's sort writes a canonical NaN: the signaling one is read from the data
    (the generic path raises), one or many NaNs, and "propagate" keeps the payload."""
    for k in (1, 3, 20):
        y = np.arange(100.0)
        y[:k] = _NANS[0]
        y[k // 2] = _NANS[3]
        assert order_small(y, "median", NanPolicy.OMIT) is None
        y[k // 2] = _NANS[2]
        assert _same(order_small(y, "median", NanPolicy.PROPAGATE),
                     reduce(y, "median", policy=NanPolicy.PROPAGATE).values)
        assert _same(order_small(y, "median", NanPolicy.OMIT),
                     reduce(y, "median", policy=NanPolicy.OMIT).values)


@settings(max_examples=100, deadline=None)
@given(data=st.data(), ddof=st.sampled_from([0, 1, 2, 0.5]))
def test_moments_with_nans_equal_generic(data, ddof):
    x = _with_nans(data, SMALL_COMPILED - 10, 300)
    for stat in LEAN_MOMENTS:
        kw = {"ddof": ddof} if stat in ("var", "std") else {}
        for policy in NanPolicy:
            got = moment_small(x, stat, policy, **kw)
            if got is not None:
                r = reduce(x, stat, policy=policy, **kw)
                assert type(got) is np.float64 and _same(got, r.values)


@pytest.mark.parametrize("stat", LEAN_MOMENTS)
def test_one_certified_pass_skips_the_nans(stat):
    x = np.random.default_rng(3).normal(size=500)
    x[::50] = np.nan
    kw = {"ddof": 1} if stat in ("var", "std") else {}
    before = certified.stats()["certified"]
    got = small._certified_skipnan(x, stat, NanPolicy.OMIT, kw.get("ddof", 0))
    if got is None:
        pytest.skip("numba does not serve the call")
    assert certified.stats()["certified"] > before
    assert _same(got, reduce(x, stat, policy=NanPolicy.OMIT, **kw).values)
    assert small._certified_skipnan(x, stat, NanPolicy.PROPAGATE, 0) is None
    assert small._certified_skipnan(x, stat, NanPolicy.RAISE, 0) is None
    x[7] = _NANS[3]  # a signaling NaN: never dropped silently
    assert small._certified_skipnan(x, stat, NanPolicy.OMIT, 0) is None


def test_certified_1d_skipnan_counts_and_flags():
    x = np.array([1.0, np.nan, 2.0, _NANS[3]] * 40)
    got = certified.certified_1d_skipnan(x, "mean")
    if got is None:
        pytest.skip("numba does not serve the call")
    val, ok, count, flags = got
    assert ok and val == 1.5 and count == 80
    assert flags == certified.F_NAN | certified.F_SNAN
    assert certified.certified_1d_skipnan(np.full(100, np.nan), "sum")[1] is False


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(st.integers(0, 2**64 - 1).map(_f), _VALUES,
                          st.sampled_from(_NANS)), min_size=1, max_size=150),
       st.sampled_from([0, 1, 2, -1]), st.booleans())
def test_var_one_kernel_is_the_rows_kernel_of_one_row(vals, ddof, skipnan):
    """``certified_var_1d`` (the four-argument kernel) against ``certified_var_rows``
    of the same row: the same value, certification and flags."""
    x = np.array(vals, dtype=np.float64)
    one = certified.certified_var_1d(x, ddof, skipnan=skipnan)
    rows = certified.certified_var_rows(x[None, :], None, ddof, skipnan=skipnan)
    if one is None or rows is None:  # numba does not serve the call (or below MIN_SIZE)
        return
    val, ok, flags = one
    assert ok == bool(rows[1][0]) and flags == int(rows[3][0])
    if ok:
        assert np.float64(val).tobytes() == rows[0][:1].tobytes()
