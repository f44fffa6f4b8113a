"""Grouped order statistics and the exact bins of the array-API path.

``grouped_order_xp`` against :func:`nanaccess.core.grouped.grouped_reduce` (bits of
``.values``) under every policy and quantile method; the portable bin engine (and the
CUDA kernel where CuPy has a device) against exact Fraction sums, on random bit
patterns from hypothesis.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from nanaccess.arrayapi import grouped_order_xp
from nanaccess.arrayapi._shim import namespace
from nanaccess.arrayapi.bins import _assemble, _portable, exact_ints
from nanaccess.core.grouped import grouped_reduce
from nanaccess.options import NanPolicy

from .helpers import messy, same_bits

POLICIES = [p.value for p in NanPolicy]


def _codes(n: int, ngroups: int, seed: int) -> np.ndarray:
    codes = np.random.default_rng(seed).integers(-1, ngroups, n)  # -1: dropped rows
    codes[codes == ngroups - 1] = 0  # the last group stays empty
    return codes


def _compare(lib, x, codes, ngroups, stat, policy, **params):
    try:
        want = grouped_reduce(x, codes, ngroups, stat, policy=NanPolicy(policy),
                              **params).values
    except Exception as err:  # noqa: BLE001 - the same error is expected
        with pytest.raises(type(err)):
            grouped_order_xp(lib.asarray(x), lib.asarray(codes), ngroups, stat,
                             policy=policy, **params)
        return
    got = grouped_order_xp(lib.asarray(x), lib.asarray(codes), ngroups, stat, policy=policy,
                           **params)
    lib.check_type(got)
    assert same_bits(lib.back(got), want), (stat, policy, params)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("nans", ["none", "quiet", "signaling"])
def test_grouped_every_policy(lib, dtype, nans):
    x = messy(dtype, (300,), seed=5, nans=nans)
    codes = _codes(300, 7, seed=6)
    for policy in POLICIES:
        for stat in ("median", "median_low", "median_high", "min", "max"):
            _compare(lib, x, codes, 7, stat, policy)
        _compare(lib, x, codes, 7, "quantile", policy, q=[0.1, 0.5, 0.99])


@pytest.mark.parametrize("method", ["linear", "lower", "higher", "nearest", "midpoint",
                                    "inverted_cdf", "averaged_inverted_cdf",
                                    "closest_observation", "interpolated_inverted_cdf",
                                    "hazen", "weibull", "median_unbiased",
                                    "normal_unbiased"])
def test_grouped_quantile_methods(lib, method):
    x = messy("float64", (200,), seed=8, nans="quiet")
    codes = _codes(200, 5, seed=9)
    for policy in ("omit", "largest", "propagate"):
        _compare(lib, x, codes, 5, "quantile", policy, q=0.37, method=method)


def test_grouped_all_nan_group_propagates_its_nan(lib):
    from .helpers import nan_of

    neg, pos = nan_of("float64", "negpayload"), nan_of("float64", "payload")
    x = np.array([neg, 1.0, 2.0, neg, pos, 3.0])
    codes = np.array([0, 0, 1, 2, 2, 1])
    _compare(lib, x, codes, 3, "median", "propagate")
    got = lib.back(grouped_order_xp(lib.asarray(x), lib.asarray(codes), 3, "median",
                                    policy="propagate"))
    assert same_bits(got[[0, 2]], np.array([neg, pos]))


def test_grouped_rejects_a_non_order_statistic(lib):
    with pytest.raises(ValueError, match="grouped order statistic"):
        grouped_order_xp(lib.asarray(np.ones(3)), lib.asarray(np.zeros(3, np.int64)), 1,
                         "mean")


def _fraction_rows(x: np.ndarray) -> list[int]:
    out = []
    for row in x:
        s = sum((Fraction(float(v)) for v in row if np.isfinite(v)), Fraction(0))
        out.append(int(s * 2**1074))
    return out


finite_bits = st.integers(0, 2**64 - 1).map(
    lambda b: np.array(b, np.uint64).view(np.float64)[()])


@given(st.lists(finite_bits, min_size=1, max_size=40), st.integers(1, 3))
def test_bins_are_exact(values, rows):
    x = np.array(values * rows, dtype=np.float64).reshape(rows, -1)
    assert exact_ints(x.view(np.int64), namespace(x)) == _fraction_rows(x)


def test_bins_cancel_exactly_on_every_library(lib):
    x = np.array([[1e308, 1.0, -1e308, 5e-324, -0.0, np.inf, np.nan, 2.0**-1074]])
    bits = lib.asarray(x.view(np.int64))
    assert exact_ints(bits, namespace(bits)) == _fraction_rows(x)


def test_cupy_kernel_matches_the_portable_engine(lib):
    if lib.name != "cupy":
        pytest.skip("the CUDA kernel needs CuPy on a device")
    from nanaccess.arrayapi._cupy_bins import cupy_summary

    x = messy("float64", (5, 3000), seed=12, wide=True)
    x[np.isnan(x)] = 0.0
    bits = lib.asarray(x.view(np.int64))
    got, ref = cupy_summary(bits), _portable(bits, namespace(bits))
    assert got is not None
    # the same exact row sums (the portable engine also lists bins that cancel to 0)
    assert _assemble(*got[0], 5) == _assemble(*ref, 5) == _fraction_rows(x)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("nans", ["none", "quiet", "signaling"])
@pytest.mark.parametrize("bins", ["plain", "warp"])
def test_summary_counts(lib, monkeypatch, dtype, nans, bins):
    """The one-pass summary (the CUDA kernel on CuPy, plain or warp-aggregated)
    against NumPy's counts and Fraction sums."""
    from nanaccess.arrayapi.bins import summarize

    if bins == "warp":
        if lib.name != "cupy":
            pytest.skip("the warp-aggregated kernel is CuPy's")
        monkeypatch.setenv("NANACCESS_XP_BINS", "warp")

    x = messy(dtype, (3, 3001), seed=13, nans=nans, wide=True)
    xa = lib.asarray(x)
    sm = summarize(xa, namespace(xa))
    nan = np.isnan(x)
    quiet = 1 << (51 if dtype == "float64" else 22)
    u = x.view(f"u{x.dtype.itemsize}")
    assert sm.nnan.tolist() == nan.sum(1).tolist()
    assert sm.nsig.tolist() == (nan & ((u & quiet) == 0)).sum(1).tolist()
    assert sm.posinf.tolist() == (x == np.inf).any(1).tolist()
    assert sm.neginf.tolist() == (x == -np.inf).any(1).tolist()
    assert sm.negzero.tolist() == ((x == 0) & np.signbit(x) | nan).all(1).tolist()
    finite = np.where(np.isfinite(x), x, 0)
    assert sm.s == _fraction_rows(finite.astype(np.float64))


@pytest.mark.parametrize("ngroups", [1, 7, 1000, 2**30])
def test_sort_by_group_exact_on_low_bits(lib, ngroups):
    """float64 keys differing only in the low bits the one-sort composite drops (and
    equal keys, negative codes) come out in exact (code, key) order."""
    from nanaccess.arrayapi._shim import namespace
    from nanaccess.arrayapi.grouped import sort_by_group

    rng = np.random.default_rng(ngroups)
    n = 4000
    keys = rng.integers(-2**63, 2**63 - 1, n, dtype=np.int64, endpoint=True)
    keys[::3] = (keys[0] >> 3) << 3 | rng.integers(0, 8, n)[::3]  # low bits only
    keys[1::7] = (keys[5] >> 11) << 11 | rng.integers(0, 2**11, n)[1::7]
    keys[1::5] = keys[0]
    keys[2::50] = np.iinfo(np.int64).min
    codes = rng.integers(-1, ngroups, n)
    k, c = lib.asarray(keys), lib.asarray(codes)
    got_k, got_c = sort_by_group(k, c, namespace(k), ngroups, 64)
    order = np.lexsort((keys, np.where(codes < 0, ngroups, codes)))
    assert np.array_equal(lib.back(got_k), keys[order])
    assert np.array_equal(lib.back(got_c), np.where(codes < 0, ngroups, codes)[order])
