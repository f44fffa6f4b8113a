"""Order statistics on arrays (``nanaccess.core.select`` through the public functions).

References: the struct oracle (``tests/oracle.py``) bit for bit under every policy;
NumPy (``np.median``, ``np.quantile`` with each method, ``np.nanmedian``,
``np.nanquantile``, ``np.nanmin``/``nanmax``/``nanargmin``/``nanargmax``) on NaN-free
data and under "omit", along every axis of 3-D arrays.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nanaccess as na
from nanaccess.core.select import order_stat
from tests import oracle

POLICIES = ["raise", "propagate", "omit", "smallest", "largest", "totalorder"]
NON_RAISING = POLICIES[1:]
WIDTHS = [16, 32, 64]
# fewer examples for the heavier properties (scales with the profile)
FEW = settings(max_examples=max(10, settings.default.max_examples // 5))
MED = settings(max_examples=max(10, settings.default.max_examples * 2 // 5))
METHODS = ["linear", "lower", "higher", "nearest", "midpoint", "inclusive", "exclusive"]
NP_METHOD = {"inclusive": "linear", "exclusive": "weibull"}
PICK_STATS = ["median_low", "median_high", "min", "max"]
AXES_3D = [None, 0, 1, 2, -1, (0, 1), (0, 2), (1, 2), (0, 1, 2), (2, 0)]


def bits(v) -> int:
    return oracle.bits_of_scalar(np.asarray(v))


def run(fn, *args, **kw):
    """("ok", dtype, bits) | ("signaling",) | ("nan",) | ("empty",)."""
    try:
        r = fn(*args, **kw)
    except na.SignalingNaNError:
        return ("signaling",)
    except na.NaNError:
        return ("nan",)
    except ValueError as e:
        return ("empty", str(e)[:0])
    return ("ok", np.asarray(r).dtype, bits(r))


def expect(fn, *args, lay, **kw):
    try:
        r = fn(*args, **kw)
    except oracle.OracleSignaling:
        return ("signaling",)
    except oracle.OracleNaN:
        return ("nan",)
    except ValueError:
        return ("empty", "")
    if r is None:
        r = lay.canonical_nan
    return ("ok", lay.dtype, r)


CASES = [("median", {}), ("median_low", {}), ("median_high", {}), ("min", {}), ("max", {})]
CASES += [("quantile", {"q": q, "method": m}) for m in METHODS for q in (0.0, 0.3, 0.5, 1.0)]


# ---------------------------------------------------------------- the oracle


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("width", WIDTHS)
@MED
@given(data=st.data())
def test_order_stats_match_oracle_and_permutations(width, policy, data):
    """Every order statistic: oracle bits, same bits for a permutation, input intact."""
    lay = oracle.LAYOUTS[width]
    b = data.draw(st.lists(oracle.bit_patterns(width), min_size=0, max_size=11), "bits")
    perm = data.draw(st.permutations(range(len(b))), "perm")
    stat, kw = data.draw(st.sampled_from(CASES), "case")
    x = oracle.from_bits(b, lay.dtype)
    x.flags.writeable = False
    xp = x[list(perm)] if b else x
    fn = getattr(na, stat)
    got = run(fn, x, nan_policy=policy, **kw)
    want = expect(oracle.order_stat, b, lay, stat, policy, lay=lay, **kw)
    assert got == want, (stat, kw, [hex(v) for v in b])
    assert run(fn, xp, nan_policy=policy, **kw) == got
    assert oracle.bits_list(x) == b


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("width", WIDTHS)
@MED
@given(data=st.data())
def test_argmin_argmax_match_oracle(width, policy, data):
    lay = oracle.LAYOUTS[width]
    b = data.draw(st.lists(oracle.bit_patterns(width), min_size=1, max_size=11))
    x = oracle.from_bits(b, lay.dtype)
    for stat in ("argmin", "argmax"):
        try:
            want = oracle.arg_stat(b, lay, stat, policy)
        except oracle.OracleSignaling:
            with pytest.raises(na.SignalingNaNError):
                getattr(na, stat)(x, nan_policy=policy)
            continue
        except oracle.OracleNaN:
            with pytest.raises(na.NaNError):
                getattr(na, stat)(x, nan_policy=policy)
            continue
        except ValueError:
            with pytest.raises(ValueError):
                getattr(na, stat)(x, nan_policy=policy)
            continue
        assert int(getattr(na, stat)(x, nan_policy=policy)) == want, stat


@pytest.mark.parametrize("policy", POLICIES)
@FEW
@given(data=st.data())
def test_omit_equals_stat_of_nan_free_data(policy, data):
    """"omit" equals the function on the NaN-free data under every policy."""
    lay = oracle.LAYOUTS[64]
    b = data.draw(st.lists(oracle.bit_patterns(64, signaling=False), min_size=1, max_size=11))
    x = oracle.from_bits(b, np.float64)
    clean = x[~np.isnan(x)]
    for stat, kw in CASES[::3]:
        fn = getattr(na, stat)
        assert run(fn, x, nan_policy="omit", **kw) == run(fn, clean, nan_policy=policy, **kw)
    del lay


@pytest.mark.parametrize("width", WIDTHS)
@FEW
@given(data=st.data())
def test_input_never_modified_big_endian_strided(width, data):
    lay = oracle.LAYOUTS[width]
    b = data.draw(st.lists(oracle.bit_patterns(width), min_size=1, max_size=10))
    x = oracle.from_bits(b, lay.dtype)
    big = x.astype(x.dtype.newbyteorder(">"))
    big.flags.writeable = False
    strided = np.repeat(x, 2)[1::2]
    strided.flags.writeable = False
    for policy in ("totalorder", "largest", "smallest"):
        for stat, kw in CASES[::2]:
            fn = getattr(na, stat)
            ref = run(fn, x, nan_policy=policy, **kw)
            assert run(fn, big, nan_policy=policy, **kw) == ref
            assert run(fn, strided, nan_policy=policy, **kw) == ref
    assert oracle.bits_list(big) == b
    assert oracle.bits_list(strided) == b


# ---------------------------------------------------------- NumPy on NaN-free data


def _rng_3d(seed: int, dtype=np.float64, shape=(3, 4, 5)):
    rng = np.random.default_rng(seed)
    return rng.normal(size=shape).astype(dtype)


@pytest.mark.parametrize("axis", AXES_3D)
@pytest.mark.parametrize("policy", POLICIES)
def test_median_matches_numpy_every_axis(axis, policy):
    x = _rng_3d(1)
    x.flags.writeable = False
    np.testing.assert_array_equal(na.median(x, axis=axis, nan_policy=policy),
                                  np.median(x, axis=axis))
    np.testing.assert_array_equal(na.min(x, axis=axis, nan_policy=policy), np.min(x, axis=axis))
    np.testing.assert_array_equal(na.max(x, axis=axis, nan_policy=policy), np.max(x, axis=axis))
    kd = na.median(x, axis=axis, nan_policy=policy, keepdims=True)
    np.testing.assert_array_equal(kd, np.median(x, axis=axis, keepdims=True))


@pytest.mark.parametrize("axis", AXES_3D)
@pytest.mark.parametrize("method", METHODS)
def test_quantile_methods_match_numpy_every_axis(axis, method):
    x = _rng_3d(2)
    q = [0.0, 0.1, 0.25, 0.5, 0.77, 1.0]
    ref = np.quantile(x, q, axis=axis, method=NP_METHOD.get(method, method))
    got = na.quantile(x, q, axis=axis, method=method, nan_policy="totalorder")
    assert got.shape == ref.shape
    np.testing.assert_array_equal(got, ref)
    got1 = na.quantile(x, 0.3, axis=axis, method=method)
    np.testing.assert_array_equal(got1, np.quantile(x, 0.3, axis=axis,
                                                    method=NP_METHOD.get(method, method)))


@pytest.mark.parametrize("method", METHODS)
@MED
@given(vals=st.lists(st.floats(-1e300, 1e300), min_size=1, max_size=15),
       q=st.floats(0, 1))
def test_quantile_matches_numpy_hypothesis(method, vals, q):
    x = np.array(vals)
    ref = np.quantile(x, q, method=NP_METHOD.get(method, method))
    got = na.quantile(x, q, method=method)
    assert got == ref or (np.isnan(ref) and np.isnan(got)), (got, ref)


@given(vals=st.lists(st.floats(-1e300, 1e300), min_size=1, max_size=15))
def test_median_matches_numpy_hypothesis(vals):
    x = np.array(vals)
    ref = np.median(x)
    got = na.median(x)
    # -0.0/+0.0 ties aside, equal as numbers
    assert got == ref


@pytest.mark.parametrize("dtype", ["int8", "int64", "uint8", "uint64", "bool"])
def test_integer_arrays_follow_numpy(dtype):
    rng = np.random.default_rng(3)
    x = rng.integers(0, 2 if dtype == "bool" else 100, size=(4, 7)).astype(dtype)
    for axis in (None, 0, 1):
        np.testing.assert_array_equal(na.median(x, axis=axis), np.median(x, axis=axis))
        assert na.median(x, axis=axis).dtype == np.float64
        np.testing.assert_array_equal(na.min(x, axis=axis), np.min(x, axis=axis))
        np.testing.assert_array_equal(na.max(x, axis=axis), np.max(x, axis=axis))
        assert np.asarray(na.min(x, axis=axis)).dtype == x.dtype
        for m in METHODS:
            np.testing.assert_array_equal(
                na.quantile(x, [0.2, 0.5], axis=axis, method=m),
                np.quantile(x.astype(np.int64) if dtype == "bool" else x, [0.2, 0.5], axis=axis,
                            method=NP_METHOD.get(m, m)))


# ------------------------------------------------------------ omit vs nan* NumPy


def _with_nans(seed: int, shape=(3, 4, 5)):
    """3-D data whose rows (along every axis) hold different numbers of NaNs,
    one fully-NaN line along the last axis."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=shape)
    mask = rng.random(shape) < rng.random(shape[-1])[None, None, :] * 0.6
    x[mask] = np.nan
    x[0, 0, :] = np.nan
    return x


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("axis", AXES_3D)
def test_omit_matches_nan_functions_every_axis(axis):
    x = _with_nans(4)
    x.flags.writeable = False
    before = x.tobytes()
    np.testing.assert_array_equal(na.median(x, axis=axis, nan_policy="omit"),
                                  np.nanmedian(x, axis=axis))
    np.testing.assert_array_equal(na.min(x, axis=axis, nan_policy="omit"),
                                  np.nanmin(x, axis=axis))
    np.testing.assert_array_equal(na.max(x, axis=axis, nan_policy="omit"),
                                  np.nanmax(x, axis=axis))
    for m in METHODS:
        np.testing.assert_array_equal(
            na.quantile(x, [0.1, 0.5, 0.9], axis=axis, method=m, nan_policy="omit"),
            np.nanquantile(x, [0.1, 0.5, 0.9], axis=axis, method=NP_METHOD.get(m, m)))
    assert x.tobytes() == before


@pytest.mark.parametrize("axis", [None, 0, 1, 2])
def test_omit_argmin_argmax_match_nanargmin(axis):
    x = _with_nans(5)
    # no all-NaN line along any axis
    x[1] = 1.0
    x[:, 1, :] = -2.0
    x[:, :, 1] = 0.5
    np.testing.assert_array_equal(na.argmin(x, axis=axis, nan_policy="omit"),
                                  np.nanargmin(x, axis=axis))
    np.testing.assert_array_equal(na.argmax(x, axis=axis, nan_policy="omit"),
                                  np.nanargmax(x, axis=axis))
    y = _rng_3d(6)
    for p in POLICIES:
        np.testing.assert_array_equal(na.argmin(y, axis=axis, nan_policy=p),
                                      np.argmin(y, axis=axis))
        np.testing.assert_array_equal(na.argmax(y, axis=axis, nan_policy=p),
                                      np.argmax(y, axis=axis))


@pytest.mark.parametrize("axis", AXES_3D)
@pytest.mark.parametrize("policy", ["propagate", "smallest", "largest", "totalorder"])
def test_rows_match_oracle_every_axis(axis, policy):
    """N-D reduction = the oracle applied to each reduced line."""
    x = _with_nans(7, shape=(2, 3, 4))
    x[1, 2, 1] = -np.nan
    x[0, 1, 3] = oracle.from_bits([0x7FF800000000002A], np.float64)[0]
    lay = oracle.LAYOUTS[64]
    axes = tuple(range(3)) if axis is None else (
        (axis % 3,) if isinstance(axis, int) else tuple(sorted(a % 3 for a in axis)))
    kept = tuple(a for a in range(3) if a not in axes)
    moved = np.transpose(x, kept + axes)
    out_shape = moved.shape[:len(kept)]
    lines = moved.reshape(int(np.prod(out_shape, dtype=int)), -1)
    for stat, kw in [("median", {}), ("median_low", {}), ("max", {}),
                     ("quantile", {"q": 0.4, "method": "linear"}),
                     ("quantile", {"q": 0.4, "method": "nearest"})]:
        got = getattr(na, stat)(x, axis=axis, nan_policy=policy, **kw)
        got = np.asarray(got).reshape(-1)
        want = [oracle.order_stat(oracle.bits_list(line), lay, stat, policy, **kw)
                for line in lines]
        want = [lay.canonical_nan if w is None else w for w in want]
        assert oracle.bits_list(got) == want, stat


# ------------------------------------------------------------ seed-thread cases


@pytest.mark.parametrize("policy", NON_RAISING[1:])  # omit + the ordering policies
def test_seed_nan_first_vs_nan_last_array(policy):
    a = na.median(np.array([np.nan, 1, 2, 3, 4]), nan_policy=policy)
    b = na.median(np.array([1, 2, 3, 4, np.nan]), nan_policy=policy)
    assert bits(a) == bits(b)
    if policy == "omit":
        assert a == 2.5


def test_seed_nan_first_vs_nan_last_propagate_and_raise():
    for data in ([np.nan, 1, 2, 3, 4], [1, 2, 3, 4, np.nan]):
        assert np.isnan(na.median(np.array(data), nan_policy="propagate"))
        with pytest.raises(na.NaNError):
            na.median(np.array(data))


def test_seed_four_nans_smallest_largest_array():
    x = np.array([np.nan] * 4 + [1, 2, 3, 4, 5, 6, 7])
    assert na.median(x, nan_policy="smallest") == 2
    assert na.median(x, nan_policy="largest") == 6
    rng = np.random.default_rng(0)
    for _ in range(5):
        y = rng.permutation(x)
        assert na.median(y, nan_policy="smallest") == 2
        assert na.median(y, nan_policy="largest") == 6


@pytest.mark.parametrize("dtype", ["float64"])
def test_seed_median_of_huge_floats_array(dtype):
    r = na.median(np.array([1.7e308, 1.7e308], dtype=dtype))
    assert r == 1.7e308
    exact = float((Fraction(1.7e308) + Fraction(1.6e308)) / 2)  # correctly rounded
    assert na.median(np.array([1.7e308, 1.6e308])) == exact
    assert na.median(np.array([-1.7e308, -1.7e308])) == -1.7e308
    r32 = na.median(np.array([3e38, 3e38], dtype=np.float32))
    assert r32.dtype == np.float32 and r32 == np.float32(3e38)
    r16 = na.median(np.array([60000, 60000], dtype=np.float16))
    assert r16.dtype == np.float16 and r16 == np.float16(60000)


def test_ordinary_midpoint_is_numpy():
    """Where a+b is finite the result is (a+b)/2 as NumPy."""
    x = np.array([0.1, 0.7])
    assert bits(na.median(x)) == bits(np.median(x))


# --------------------------------------------------------- NaN propagation rules


def f64(b: int) -> np.float64:
    return oracle.from_bits([b], np.float64)[0]


def test_propagate_greatest_nan_under_totalorder_bits_kept():
    neg_big = f64(0xFFF80000000000FF)
    pos_small = f64(0x7FF8000000000001)
    pos_big = f64(0x7FF8000000000009)
    x = np.array([1.0, neg_big, pos_small, 2.0, pos_big, 3.0])
    for stat in ("median", "median_low", "min", "max", "quantile"):
        kw = {"q": 0.5} if stat == "quantile" else {}
        r = getattr(na, stat)(x, nan_policy="propagate", **kw)
        assert bits(r) == 0x7FF8000000000009, stat
        assert bits(getattr(na, stat)(x[::-1], nan_policy="propagate", **kw)) == bits(r)
    # a negative NaN only: it is the result
    y = np.array([1.0, neg_big, 5.0])
    assert bits(na.median(y, nan_policy="propagate")) == 0xFFF80000000000FF
    # float32
    z = oracle.from_bits([0x3F800000, 0xFFC00003, 0x7FC00001], np.float32)
    r32 = na.median(z, nan_policy="propagate")
    assert r32.dtype == np.float32 and bits(r32) == 0x7FC00001


def test_interpolated_nan_neighbour_is_quieted():
    snan = f64(0x7FF0000000000005)
    neg_snan = f64(0xFFF0000000000007)
    # totalorder: sNaN sorts above +inf; even median between inf and sNaN -> quieted sNaN
    x = np.array([f64(0x7FF8000000000000), np.inf, snan, 0.0])
    r = na.median(x, nan_policy="totalorder")
    assert bits(r) == 0x7FF8000000000005
    # negative sNaN at the bottom: between -sNaN and 0 -> -NaN quieted, payload kept
    y = np.array([neg_snan, 0.0, 1.0, 2.0])
    assert bits(na.quantile(y, 0.2, nan_policy="totalorder")) == 0xFFF8000000000007
    # two NaN neighbours: the higher-ranked one
    z = np.array([f64(0x7FF8000000000003), f64(0x7FF0000000000009)])
    assert bits(na.median(z, nan_policy="totalorder")) == 0x7FF8000000000003
    w = np.array([f64(0x7FF8000000000003), f64(0x7FF8000000000001)])
    assert bits(na.median(w, nan_policy="largest")) == 0x7FF8000000000003
    # largest: a number and a NaN neighbour
    v = np.array([1.0, f64(0xFFF8000000000011)])
    assert bits(na.median(v, nan_policy="largest")) == 0xFFF8000000000011
    assert bits(na.median(v, nan_policy="smallest")) == 0xFFF8000000000011


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_propagate_all_nan_array_keeps_payload(dtype):
    """Regression: a row holding only NaNs under "propagate" must give the greatest
    input NaN (payload kept), not the canonical NaN of an empty "omit"."""
    lay = oracle.layout(dtype)
    x = oracle.from_bits([lay.exp_mask | lay.quiet_bit | 5, lay.sign_bit | lay.exp_mask |
                          lay.quiet_bit | 9], dtype)
    for stat, kw in [("median", {}), ("median_low", {}), ("min", {}), ("max", {}),
                     ("quantile", {"q": 0.5})]:
        r = getattr(na, stat)(x, nan_policy="propagate", **kw)
        assert bits(r) == lay.exp_mask | lay.quiet_bit | 5, stat
    y = np.stack([x.astype(np.float64) * 0 + 1, x.astype(np.float64)]).astype(dtype)
    r = na.median(y, axis=1, nan_policy="propagate")
    assert oracle.bits_list(r)[1] == lay.exp_mask | lay.quiet_bit | 5


def test_argmin_propagate_all_nan_array():
    """Regression: argmin/argmax under "propagate" point at the propagating NaN,
    also when a row holds nothing but NaNs."""
    x = np.array([np.nan, f64(0x7FF8000000000007)])
    assert na.argmin(x, nan_policy="propagate") == 1
    assert na.argmax(x, nan_policy="propagate") == 1


def test_picked_signaling_nan_kept_under_totalorder():
    snan = f64(0x7FF0000000000005)
    x = np.array([1.0, snan, 2.0])
    assert bits(na.max(x, nan_policy="totalorder")) == 0x7FF0000000000005
    assert bits(na.median_high(np.array([snan, 0.0]), nan_policy="totalorder")) == \
        0x7FF0000000000005
    assert bits(na.quantile(x, 1.0, method="higher", nan_policy="totalorder")) == \
        0x7FF0000000000005


def test_canonical_nan_from_infinities():
    x = np.array([-np.inf, np.inf])
    r = na.median(x)
    assert bits(r) == 0x7FF8000000000000
    r = na.quantile(np.array([-np.inf, np.inf]), 0.5, method="midpoint")
    assert bits(r) == 0x7FF8000000000000
    r32 = na.median(np.array([-np.inf, np.inf], dtype=np.float32))
    assert r32.dtype == np.float32 and bits(r32) == 0x7FC00000
    r16 = na.median(np.array([-np.inf, np.inf], dtype=np.float16))
    assert r16.dtype == np.float16 and bits(r16) == 0x7E00


def test_weight_zero_is_a_pick():
    assert na.quantile(np.array([1.0, 2.0, np.inf]), 0.5) == 2.0
    assert na.quantile(np.array([np.inf, 2.0, 1.0]), 0.5) == 2.0
    assert na.quantile(np.array([-np.inf, 2.0, 1.0]), 0.5) == 1.0
    assert na.quantile(np.array([1.0, 2.0, np.inf]), 1.0) == np.inf
    # equal infinities: every blend is that infinity
    assert na.median(np.array([np.inf, np.inf])) == np.inf
    # -0.0 picked as stored
    assert bits(na.quantile(np.array([-0.0, 1.0, 2.0]), 0.0)) == bits(-0.0)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_float_results_keep_dtype(dtype):
    x = np.array([1, 2, 3, 4, np.nan], dtype=dtype)
    for stat, kw in CASES:
        for p in ("omit", "largest", "propagate"):
            r = getattr(na, stat)(x, nan_policy=p, **kw)
            assert np.asarray(r).dtype == dtype, (stat, kw, p)
    r = na.quantile(x[:4], [0.25, 0.5], nan_policy="raise")
    assert r.dtype == dtype


def test_float32_quantile_matches_numpy():
    x = np.random.default_rng(8).normal(size=51).astype(np.float32)
    for m in METHODS:
        for q in (0.1, 0.33, 0.5, 0.9):
            ref = np.quantile(x, q, method=NP_METHOD.get(m, m))
            got = na.quantile(x, q, method=m)
            assert got.dtype == np.float32
            assert got == ref, (m, q, got, ref)


# ---------------------------------------------------------------------- errors


def test_nan_error_message_count_position_advice():
    x = np.array([1.0, 2.0, np.nan, 3.0, np.nan, np.nan])
    with pytest.raises(na.NaNError) as ei:
        na.median(x)
    e = ei.value
    assert isinstance(e, ValueError)
    assert e.count == 3
    msg = str(e)
    assert "3 NaN" in msg and "2" in msg and "omit" in msg and "propagate" in msg
    assert e.position in ((2,), 2)


def test_nan_error_position_nd():
    x = np.zeros((2, 3))
    x[1, 2] = np.nan
    x[1, 1] = np.nan
    with pytest.raises(na.NaNError) as ei:
        na.quantile(x, 0.5, axis=0)
    assert ei.value.count == 2
    assert tuple(ei.value.position) == (1, 1)
    assert "(1, 1)" in str(ei.value)


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("width", WIDTHS)
def test_signaling_nan_raises_except_totalorder(policy, width):
    lay = oracle.LAYOUTS[width]
    x = oracle.from_bits([0, lay.exp_mask | 1, lay.exp_mask | lay.quiet_bit], lay.dtype)
    for stat in ("median", "min", "max", "argmin", "quantile"):
        kw = {"q": 0.5} if stat == "quantile" else {}
        if policy == "totalorder":
            getattr(na, stat)(x, nan_policy=policy, **kw)
        else:
            with pytest.raises(na.SignalingNaNError) as ei:
                getattr(na, stat)(x, nan_policy=policy, **kw)
            assert ei.value.count == 1
            assert "signaling" in str(ei.value) and "1" in str(ei.value)


def test_unknown_policy_lists_valid():
    with pytest.raises(ValueError) as ei:
        na.median(np.array([1.0]), nan_policy="ignore")
    for p in POLICIES:
        assert p in str(ei.value)


def test_complex_and_strings_raise_typeerror():
    with pytest.raises(TypeError):
        na.median(np.array([1 + 2j, 3 + 0j]))
    with pytest.raises(TypeError):
        na.median(np.array(["a", "b"]))


def test_quantile_bad_q_and_method():
    with pytest.raises(ValueError):
        na.quantile(np.array([1.0, 2.0]), 1.5)
    with pytest.raises(ValueError):
        na.quantile(np.array([1.0, 2.0]), 0.5, method="bogus")


# ------------------------------------------------------ empty / all-NaN / missing


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_all_nan_omit_gives_canonical_nan(dtype):
    lay = oracle.layout(dtype)
    x = oracle.from_bits([lay.sign_bit | lay.exp_mask | lay.quiet_bit | 3] * 3, dtype)
    for stat, kw in CASES[::4]:
        r = getattr(na, stat)(x, nan_policy="omit", **kw)
        assert np.asarray(r).dtype == dtype
        assert bits(r) == lay.canonical_nan, stat
    r = na.median(np.array([], dtype=dtype), nan_policy="omit")
    assert bits(r) == lay.canonical_nan


def test_masked_array_mask_is_missing():
    m = np.ma.array([1.0, 2.0, 100.0, 4.0], mask=[0, 0, 1, 0])
    assert na.median(m, nan_policy="omit") == 2.0
    assert na.max(m, nan_policy="omit") == 4.0
    with pytest.raises(na.NaNError) as ei:
        na.median(m)
    assert "missing" in str(ei.value) and "NaN" not in str(ei.value).split(";")[0]
    assert np.isnan(na.median(m, nan_policy="propagate"))
    # missing sorts after every number and NaN: max under an ordering policy is missing
    assert np.isnan(na.max(m, nan_policy="largest"))
    assert na.min(m, nan_policy="largest") == 1.0
    assert na.argmax(m, nan_policy="largest") == 3
    assert na.median(m, nan_policy="totalorder") == 3.0  # [1, 2, 4, missing]
    m2 = np.ma.array([[1.0, 9.0], [3.0, 4.0]], mask=[[0, 1], [0, 0]])
    np.testing.assert_array_equal(na.median(m2, axis=1, nan_policy="omit"), [1.0, 3.5])


def test_order_stat_missing_argument():
    x = np.array([1.0, 2.0, 3.0, np.nan])
    miss = np.array([False, True, False, False])
    v, m = order_stat(x, "median", policy="propagate", missing=miss)
    assert np.isnan(v) and m is None or not np.asarray(m).any()  # NaN wins over missing
    v, m = order_stat(x[:3], "median", policy="propagate", missing=miss[:3])
    assert bits(v) == 0x7FF8000000000000 and bool(m)
    v, m = order_stat(x[:3], "median", policy="omit", missing=miss[:3])
    assert v == 2.0 and (m is None or not m.any())
    # ordering policies: missing goes last, after the NaN
    v, m = order_stat(x, "max", policy="largest", missing=miss)
    assert bool(m) and np.isnan(v)
    v, m = order_stat(x, "median_low", policy="largest", missing=miss)
    assert v == 3.0 and (m is None or not m.any())
    with pytest.raises(na.NaNError) as ei:
        order_stat(x[:3], "median", policy="raise", missing=miss[:3])
    assert ei.value.kind == "missing"


def test_datetime_nat_is_missing():
    x = np.array(["2024-01-01", "NaT", "2024-01-03", "2024-01-05"], dtype="datetime64[D]")
    assert na.median(x, nan_policy="omit") == np.datetime64("2024-01-03")
    assert na.min(x, nan_policy="omit") == np.datetime64("2024-01-01")
    with pytest.raises(na.NaNError):
        na.median(x)
    assert np.isnat(na.median(x, nan_policy="propagate"))


# ------------------------------------------- rows: block-wise NaN scan, rank mapping

ROW_CASES = CASES[::2] + [("quantile", {"q": [0.0, 0.1, 0.5, 0.9, 1.0], "method": "linear"})]


def _row_bits(got) -> list:
    return oracle.bits_list(np.asarray(got, dtype=np.float64))


@pytest.mark.parametrize("policy", NON_RAISING)
@FEW
@given(data=st.data())
def test_rows_equal_their_1d_results(policy, data):
    """axis=1 on rows holding negative/positive NaNs and missing values gives, row by
    row, the 1-D result (which the oracle checks): the NaN counts per row, the rank
    mapping of "smallest"/"largest" and the missing tail are per row."""
    lay = oracle.LAYOUTS[64]
    rows = data.draw(st.integers(1, 4), "rows")
    n = data.draw(st.integers(1, 9), "n")
    b = data.draw(st.lists(oracle.bit_patterns(64, signaling=False), min_size=rows * n,
                           max_size=rows * n), "bits")
    x = oracle.from_bits(b, lay.dtype).reshape(rows, n)
    mask = np.array(data.draw(st.lists(st.booleans(), min_size=rows * n,
                                       max_size=rows * n), "mask")).reshape(rows, n)
    for arr in (x, np.ma.masked_array(x, mask)):
        for stat, kw in ROW_CASES:
            fn = getattr(na, stat)
            try:
                got = fn(arr, axis=1, nan_policy=policy, **kw)
            except ValueError:
                continue
            got = np.ma.filled(np.ma.asarray(got).astype(np.float64), np.nan)
            for i in range(rows):
                want = fn(arr[i], nan_policy=policy, **kw)
                want = np.ma.filled(np.ma.asarray(want).astype(np.float64), np.nan)
                if np.ndim(got) == 2:
                    row = got[:, i]
                else:
                    row = got[i]
                assert _row_bits(row) == _row_bits(want), (stat, kw, policy, i)


@pytest.mark.parametrize("policy", ["omit", "propagate", "smallest", "largest", "totalorder"])
def test_rows_spanning_scan_blocks(policy):
    """Rows longer than, and straddling, the scan's blocks (2**16 keys) with NaNs of
    both signs and payloads: each row equals its own 1-D result."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((3, 50_001))
    bits = x.view(np.uint64)
    where = rng.random(x.shape) < 0.02
    payload = rng.integers(1, 1 << 20, size=x.shape).astype(np.uint64)
    sign = (rng.random(x.shape) < 0.5).astype(np.uint64) << np.uint64(63)
    bits[where] = (np.uint64(0x7FF8_0000_0000_0000) | payload | sign)[where]
    bits[1] |= np.where(np.isnan(x[1]), np.uint64(1 << 63), np.uint64(0))  # only -NaNs
    x[2, :40_000] = np.nan  # a row that is mostly NaN
    for stat, kw in ROW_CASES:
        got = getattr(na, stat)(x, axis=1, nan_policy=policy, **kw)
        for i in range(3):
            want = getattr(na, stat)(x[i], nan_policy=policy, **kw)
            row = got[:, i] if np.ndim(got) == 2 else got[i]
            assert _row_bits(row) == _row_bits(want), (stat, kw, policy, i)
    # and the 1-D results are the oracle's
    lay = oracle.LAYOUTS[64]
    for i in range(3):
        b = oracle.bits_list(x[i])
        for stat, kw in CASES[:5]:
            want = oracle.order_stat(b, lay, stat, policy, **kw)
            assert _row_bits(getattr(na, stat)(x[i], nan_policy=policy, **kw)) == [want]


# -------------------------------------------------- along an axis: chunks of rows


@pytest.fixture
def small_row_chunks(monkeypatch):
    from nanaccess.core import select

    monkeypatch.setattr(select, "_ROW_CHUNK", 64)


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("axis", [0, 1, -1, (0, 2), (1, 2)])
def test_row_chunks_equal_one_pass(small_row_chunks, policy, axis):
    """Chunks of rows give the bits, dtype, missing flags and errors of one pass over
    all rows (float with NaNs of both signs, masked values, ints with empty rows)."""
    rng = np.random.default_rng(11)
    x = rng.standard_normal((7, 9, 5))
    x[rng.random(x.shape) < 0.1] = np.nan
    x[rng.random(x.shape) < 0.05] *= -1
    ints = rng.integers(-5, 5, size=x.shape)
    mask = rng.random(x.shape) < 0.1
    mask[0, 0, :] = True
    mask[:, 0, 0] = True
    for data, missing in ((x, None), (x, mask), (ints, mask), (ints, None)):
        for stat, kw in [("median", {}), ("max", {}), ("quantile", {"q": [0.2, 0.9]}),
                         ("quantile", {"q": 0.5, "method": "nearest"})]:
            for keepdims in (False, True):
                args = (data, stat, axis, policy, missing, keepdims, kw)
                one, many = _order_stat_or_error(*args, False), _order_stat_or_error(*args, True)
                if isinstance(one[0], type):
                    assert many == one
                    continue
                assert many[0].dtype == one[0].dtype and many[0].shape == one[0].shape
                assert many[0].tobytes() == one[0].tobytes(), (stat, kw, axis, policy)
                if one[1] is None:
                    assert many[1] is None
                else:
                    np.testing.assert_array_equal(many[1], one[1])


def _order_stat_or_error(data, stat, axis, policy, missing, keepdims, kw, chunked):
    from nanaccess.core.select import order_stat

    try:
        return order_stat(data, stat, axis=axis, policy=policy, missing=missing,
                          keepdims=keepdims, _chunked=chunked, **kw)
    except (na.NaNError, ValueError) as err:
        return type(err), str(err)


def test_quantile_on_an_element_next_to_a_missing_value_is_that_element():
    """Regression (issue 11 review): a quantile landing exactly on an element (weight
    0) was reported missing when the next rank was a missing value."""
    x = np.ma.masked_array([1.0, 2, 3, 4], [0, 0, 0, 1])
    for policy in ("smallest", "largest", "totalorder"):
        assert na.quantile(x, 2 / 3, nan_policy=policy) == 3.0
        assert np.isnan(na.quantile(x, 0.7, nan_policy=policy))  # 3 and missing: missing
