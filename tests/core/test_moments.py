"""Moment statistics (mean, var, std, sum) under every policy.

References: ``np.nanmean``/``nanvar``/``nanstd``/``nansum`` to rtol 1e-12 (omit) and the
plain NumPy functions on NaN-free data; :mod:`statistics` ``mean``/``pvariance``/
``variance`` exactly for float lists; the struct oracle for which NaN comes out.
"""

from __future__ import annotations

import math
import statistics
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nanaccess as na
from nanaccess.core.moments import moment_stat
from tests import oracle

POLICIES = ["raise", "propagate", "omit", "smallest", "largest", "totalorder"]
WIDTHS = [16, 32, 64]
STATS = ["mean", "var", "std", "sum"]
AXES_3D = [None, 0, 1, 2, -1, (0, 1), (0, 2), (1, 2), (0, 1, 2)]
FEW = settings(max_examples=max(10, settings.default.max_examples // 5))
MED = settings(max_examples=max(10, settings.default.max_examples * 2 // 5))


def bits(v) -> int:
    return oracle.bits_of_scalar(np.asarray(v))


def call(stat, x, ddof=0, **kw):
    fn = getattr(na, stat)
    if stat in ("var", "std"):
        return fn(x, ddof=ddof, **kw)
    return fn(x, **kw)


def run(stat, x, ddof=0, **kw):
    try:
        r = call(stat, x, ddof, **kw)
    except na.SignalingNaNError:
        return ("signaling",)
    except na.NaNError:
        return ("nan",)
    return ("ok", np.asarray(r).dtype, bits(r))


# ------------------------------------------------------- NumPy / nan* reference


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("axis", AXES_3D)
@pytest.mark.parametrize("ddof", [0, 1])
def test_omit_matches_nan_functions_every_axis(axis, ddof):
    rng = np.random.default_rng(1)
    x = rng.normal(size=(3, 4, 5)) * 10
    x[rng.random(x.shape) < rng.random(5) * 0.5] = np.nan
    x.flags.writeable = False
    before = x.tobytes()
    opts = dict(rtol=1e-12, atol=0)
    np.testing.assert_allclose(na.mean(x, axis=axis, nan_policy="omit"),
                               np.nanmean(x, axis=axis), **opts)
    np.testing.assert_allclose(na.var(x, axis=axis, ddof=ddof, nan_policy="omit"),
                               np.nanvar(x, axis=axis, ddof=ddof), **opts)
    np.testing.assert_allclose(na.std(x, axis=axis, ddof=ddof, nan_policy="omit"),
                               np.nanstd(x, axis=axis, ddof=ddof), **opts)
    np.testing.assert_allclose(na.sum(x, axis=axis, nan_policy="omit"),
                               np.nansum(x, axis=axis), **opts)
    assert x.tobytes() == before


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("axis", [None, 1, (0, 2)])
def test_nan_free_every_policy_matches_numpy(policy, axis):
    x = np.random.default_rng(2).normal(size=(3, 4, 5))
    for ddof in (0, 1, 2):
        np.testing.assert_allclose(na.var(x, axis=axis, ddof=ddof, nan_policy=policy),
                                   np.var(x, axis=axis, ddof=ddof), rtol=1e-12)
        np.testing.assert_allclose(na.std(x, axis=axis, ddof=ddof, nan_policy=policy),
                                   np.std(x, axis=axis, ddof=ddof), rtol=1e-12)
    np.testing.assert_allclose(na.mean(x, axis=axis, nan_policy=policy),
                               np.mean(x, axis=axis), rtol=1e-12)
    np.testing.assert_allclose(na.sum(x, axis=axis, nan_policy=policy),
                               np.sum(x, axis=axis), rtol=1e-12)
    kd = na.mean(x, axis=axis, nan_policy=policy, keepdims=True)
    assert kd.shape == np.mean(x, axis=axis, keepdims=True).shape


@pytest.mark.parametrize("dtype", ["int8", "int64", "uint32", "bool"])
def test_integer_arrays(dtype):
    x = np.random.default_rng(3).integers(0, 2 if dtype == "bool" else 100, (4, 6)).astype(dtype)
    for axis in (None, 0, 1):
        np.testing.assert_allclose(na.mean(x, axis=axis), np.mean(x, axis=axis), rtol=1e-12)
        np.testing.assert_allclose(na.var(x, axis=axis, ddof=1), np.var(x, axis=axis, ddof=1),
                                   rtol=1e-12)
        np.testing.assert_array_equal(na.sum(x, axis=axis), np.sum(x, axis=axis))


# ----------------------------------------------------------- statistics module


finite = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e150, max_value=1e150)


@given(vals=st.lists(finite, min_size=1, max_size=20))
def test_mean_equals_statistics_mean_exactly(vals):
    assert bits(na.mean(vals)) == bits(statistics.mean(vals))
    assert isinstance(na.mean(vals), float)
    assert bits(na.mean(np.array(vals))) == bits(statistics.mean(vals))


@given(vals=st.lists(finite, min_size=2, max_size=20))
def test_var_equals_statistics_variance_exactly(vals):
    assert na.var(vals) == statistics.pvariance(vals)
    assert na.var(vals, ddof=1) == statistics.variance(vals)
    assert na.var(np.array(vals), ddof=1) == statistics.variance(vals)


@given(vals=st.lists(finite, min_size=1, max_size=20))
def test_sum_is_fsum(vals):
    assert na.sum(vals) == math.fsum(vals)
    assert na.sum(np.array(vals)) == math.fsum(vals)


def test_omit_float_list_equals_statistics_on_nan_free():
    data = [1.5, float("nan"), 2.25, 1e16, float("nan"), -1e16, 3.0]
    clean = [v for v in data if not math.isnan(v)]
    assert na.mean(data, nan_policy="omit") == statistics.mean(clean)
    assert na.var(data, nan_policy="omit") == statistics.pvariance(clean)
    assert na.var(data, ddof=1, nan_policy="omit") == statistics.variance(clean)


def test_cancellation_exact():
    assert na.mean([1e100, 1.0, -1e100]) == 1 / 3
    assert na.sum(np.array([1e100, 1.0, -1e100])) == 1.0


# ------------------------------------------------------- permutations / oracle


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("width", WIDTHS)
@MED
@given(data=st.data())
def test_moments_permutation_invariant_and_nan_rule(width, policy, data):
    lay = oracle.LAYOUTS[width]
    b = data.draw(st.lists(oracle.bit_patterns(width), min_size=1, max_size=10), "bits")
    perm = data.draw(st.permutations(range(len(b))), "perm")
    stat = data.draw(st.sampled_from(STATS), "stat")
    ddof = data.draw(st.sampled_from([0, 1]), "ddof") if stat in ("var", "std") else 0
    x = oracle.from_bits(b, lay.dtype)
    x.flags.writeable = False
    got = run(stat, x, ddof, nan_policy=policy)
    assert run(stat, x[list(perm)], ddof, nan_policy=policy) == got
    assert oracle.bits_list(x) == b
    try:
        nan = oracle.moment_nan_bits(b, lay, policy)
    except oracle.OracleSignaling:
        assert got == ("signaling",)
        return
    except oracle.OracleNaN:
        assert got == ("nan",)
        return
    assert got[0] == "ok" and got[1] == lay.dtype
    if nan is not None:
        assert got[2] == nan, [hex(v) for v in b]
    elif policy == "omit":
        clean = x[~np.isnan(x)]
        assert run(stat, clean, ddof, nan_policy="raise") == got


@pytest.mark.parametrize("policy", ["propagate", "smallest", "largest", "totalorder"])
def test_propagate_greatest_nan_bits_kept(policy):
    x = oracle.from_bits([0x3FF0000000000000, 0xFFF80000000000FF, 0x7FF8000000000002,
                          0x7FF8000000000009, 0x4000000000000000], np.float64)
    for stat in STATS:
        assert bits(call(stat, x, nan_policy=policy)) == 0x7FF8000000000009, stat
        assert bits(call(stat, x[::-1], nan_policy=policy)) == 0x7FF8000000000009, stat


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_canonical_nan_from_infinities(dtype):
    lay = oracle.layout(dtype)
    x = np.array([-np.inf, np.inf, 1.0], dtype=dtype)
    for stat in STATS:
        r = call(stat, x)
        assert np.asarray(r).dtype == dtype
        assert bits(r) == lay.canonical_nan, stat


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_float_dtype_kept(dtype):
    x = np.array([1, 2, 3, np.nan], dtype=dtype)
    for stat in STATS:
        for p in ("omit", "propagate", "largest"):
            assert np.asarray(call(stat, x, nan_policy=p)).dtype == dtype


def test_float32_mean_close_to_numpy():
    x = np.random.default_rng(4).normal(size=1000).astype(np.float32)
    r = na.mean(x)
    assert r.dtype == np.float32
    np.testing.assert_allclose(r, np.mean(x.astype(np.float64)), rtol=1e-6)


# --------------------------------------------------------------------- empties


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_all_nan_omit(dtype):
    lay = oracle.layout(dtype)
    x = np.array([np.nan, -np.nan], dtype=dtype)
    for stat in ("mean", "var", "std"):
        assert bits(call(stat, x, nan_policy="omit")) == lay.canonical_nan, stat
    s = na.sum(x, nan_policy="omit")
    assert s == 0 and not np.signbit(s)
    v, _ = moment_stat(x, "count", policy="omit")
    assert v == 0
    v, _ = moment_stat(np.array([1.0, np.nan, 2.0]), "count", policy="omit")
    assert v == 2


def test_ddof_too_large_is_nan():
    with np.errstate(all="ignore"):
        r = na.var(np.array([1.0, 2.0]), ddof=2)
    assert np.isnan(r) or np.isinf(r)


def test_list_all_nan_omit_raises_statistics_error():
    with pytest.raises(statistics.StatisticsError):
        na.mean([float("nan")], nan_policy="omit")
    with pytest.raises(statistics.StatisticsError):
        na.mean([])
    with pytest.raises(statistics.StatisticsError):
        na.var([], ddof=0)


# ---------------------------------------------------------------------- errors


@pytest.mark.parametrize("policy", POLICIES)
def test_signaling_raises_except_totalorder(policy):
    x = np.array([1.0, na.make_nan(3, signaling=True)])
    for stat in STATS:
        if policy == "totalorder":
            r = call(stat, x, nan_policy=policy)
            assert bits(r) == 0x7FF0000000000003
        else:
            with pytest.raises(na.SignalingNaNError):
                call(stat, x, nan_policy=policy)


def test_raise_message():
    x = np.array([[1.0, np.nan], [np.nan, 2.0]])
    with pytest.raises(na.NaNError) as ei:
        na.mean(x, axis=0)
    assert ei.value.count == 2
    assert "2 NaN values" in str(ei.value) and "(0, 1)" in str(ei.value)
    assert "omit" in str(ei.value)


def test_masked_mean():
    m = np.ma.array([1.0, 2.0, 1e300, 4.0], mask=[0, 0, 1, 0])
    assert na.mean(m, nan_policy="omit") == statistics.mean([1.0, 2.0, 4.0])
    assert na.sum(m, nan_policy="omit") == 7.0
    with pytest.raises(na.NaNError):
        na.mean(m)
    assert np.isnan(na.mean(m, nan_policy="propagate"))


def test_exact_fraction_reference():
    x = [0.1, 0.2, 0.3, 1e-20]
    exact = sum(Fraction(v) for v in x) / 4
    assert na.mean(np.array(x)) == float(exact)
