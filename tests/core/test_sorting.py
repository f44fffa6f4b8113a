"""sort / argsort / rank (spec section 5): stable, bit-preserving, policy placement.

References: the struct oracle (stable ``sorted`` on integer totalOrder keys) and
pandas' ``rank(method=...)`` on data without signed zeros.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nanaccess as na
from tests import oracle

WIDTHS = [16, 32, 64]
SORT_POLICIES = ["totalorder", "smallest", "largest", "omit", "raise"]
RANK_METHODS = ["average", "min", "max", "first", "dense"]
MED = settings(max_examples=max(10, settings.default.max_examples * 2 // 5))


def expected(fn, *args):
    try:
        return ("ok", fn(*args))
    except oracle.OracleSignaling:
        return ("signaling",)
    except oracle.OracleNaN:
        return ("nan",)


def got(fn, *args, **kw):
    try:
        return ("ok", fn(*args, **kw))
    except na.SignalingNaNError:
        return ("signaling",)
    except na.NaNError:
        return ("nan",)


@pytest.mark.parametrize("policy", SORT_POLICIES)
@pytest.mark.parametrize("width", WIDTHS)
@MED
@given(data=st.data())
def test_sort_argsort_match_oracle(width, policy, data):
    lay = oracle.LAYOUTS[width]
    b = data.draw(st.lists(oracle.bit_patterns(width), max_size=14))
    x = oracle.from_bits(b, lay.dtype)
    x.flags.writeable = False
    g = got(na.sort, x, nan_policy=policy)
    e = expected(oracle.sort_bits, b, lay, policy)
    if e[0] == "ok":
        assert g[0] == "ok"
        assert g[1].dtype == lay.dtype
        assert oracle.bits_list(g[1]) == e[1]
    else:
        assert g == e
    ga = got(na.argsort, x, nan_policy=policy)
    ea = expected(oracle.argsort_bits, b, lay, policy)
    if ea[0] == "ok":
        assert ga[1].tolist() == ea[1]
    else:
        assert ga == ea
    assert oracle.bits_list(x) == b


@pytest.mark.parametrize("policy", ["totalorder", "smallest", "largest", "omit"])
@pytest.mark.parametrize("width", WIDTHS)
@MED
@given(data=st.data())
def test_rank_matches_oracle(width, policy, data):
    lay = oracle.LAYOUTS[width]
    b = data.draw(st.lists(oracle.bit_patterns(width, signaling=policy == "totalorder"),
                           min_size=1, max_size=12))
    method = data.draw(st.sampled_from(RANK_METHODS))
    x = oracle.from_bits(b, lay.dtype)
    r = na.rank(x, method=method, nan_policy=policy)
    want = oracle.rank_bits(b, lay, policy, method)
    np.testing.assert_array_equal(r, np.array(want))


def test_sort_totalorder_keeps_bits():
    b = [0x7FF8000000000005, 0x8000000000000000, 0x0000000000000000, 0xFFF8000000000003,
         0x3FF0000000000000, 0x7FF0000000000001, 0xFFF0000000000000]
    x = oracle.from_bits(b, np.float64)
    s = na.sort(x, nan_policy="totalorder")
    assert oracle.bits_list(s) == [0xFFF8000000000003, 0xFFF0000000000000,
                                   0x8000000000000000, 0x0000000000000000,
                                   0x3FF0000000000000, 0x7FF0000000000001,
                                   0x7FF8000000000005]
    assert na.argsort(x, nan_policy="totalorder").tolist() == [3, 6, 1, 2, 4, 5, 0]


def test_sort_default_is_largest_and_keeps_bits():
    """Spec section 5: every NaN after every number whatever its sign (x86 makes 0/0
    negative), the NaNs among themselves in totalOrder, payloads kept."""
    b = [0x7FF8000000000005, 0x8000000000000000, 0x0000000000000000, 0xFFF8000000000003,
         0x3FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000]
    x = oracle.from_bits(b, np.float64)
    assert oracle.bits_list(na.sort(x)) == [0xFFF0000000000000, 0x8000000000000000,
                                            0x0000000000000000, 0x3FF0000000000000,
                                            0xFFF8000000000003, 0x7FF8000000000000,
                                            0x7FF8000000000005]
    assert na.argsort(x).tolist() == [5, 1, 2, 4, 3, 6, 0]
    with np.errstate(invalid="ignore"):
        made = np.array([np.float64(0) / 0, np.inf - np.inf, 2.0, np.nan, 1.0])
    # arithmetic NaNs (negative on x86) sort after the numbers, as np.sort puts them
    assert np.isnan(na.sort(made)[2:]).all()
    assert na.sort(made)[:2].tolist() == [1.0, 2.0]
    assert na.argsort(made)[:2].tolist() == [4, 2]


def test_sort_signed_zeros_and_payloads_float32_float16():
    for dtype in (np.float16, np.float32):
        lay = oracle.layout(dtype)
        b = [lay.exp_mask | lay.quiet_bit | 3, lay.sign_bit, 0, lay.sign_bit | lay.exp_mask |
             lay.quiet_bit | 1, lay.exp_mask | lay.quiet_bit | 1]
        s = na.sort(oracle.from_bits(b, dtype), nan_policy="largest")
        assert s.dtype == dtype
        assert oracle.bits_list(s) == [lay.sign_bit, 0, lay.sign_bit | lay.exp_mask |
                                       lay.quiet_bit | 1, lay.exp_mask | lay.quiet_bit | 1,
                                       lay.exp_mask | lay.quiet_bit | 3]


@pytest.mark.parametrize("policy", ["smallest", "largest", "omit"])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_sort_nan_free_float_array(policy, dtype):
    """Regression: data without any NaN sorts to its own values under every policy."""
    x = np.array([0.0, 1.0, -2.5], dtype=dtype)
    s = na.sort(x, nan_policy=policy)
    assert s.dtype == dtype
    assert oracle.bits_list(s) == oracle.bits_list(np.array([-2.5, 0.0, 1.0], dtype=dtype))


def test_sort_is_stable():
    x = np.array([2.0, 1.0, 2.0, 1.0, np.nan, np.nan])
    assert na.argsort(x, nan_policy="largest").tolist() == [1, 3, 0, 2, 4, 5]
    assert na.argsort(x, nan_policy="smallest").tolist() == [4, 5, 1, 3, 0, 2]


def test_omit_1d_drops_nans():
    x = np.array([3.0, np.nan, 1.0, -np.nan, 2.0])
    s = na.sort(x, nan_policy="omit")
    assert s.tolist() == [1.0, 2.0, 3.0]
    assert na.argsort(x, nan_policy="omit").tolist() == [2, 4, 0]


def test_omit_nd_value_error_points_to_largest():
    x = np.array([[1.0, np.nan], [2.0, 3.0]])
    with pytest.raises(ValueError, match="largest"):
        na.sort(x, nan_policy="omit")
    with pytest.raises(ValueError, match="largest"):
        na.argsort(x, nan_policy="omit")


def test_propagate_is_value_error():
    with pytest.raises(ValueError) as ei:
        na.sort(np.array([1.0, 2.0]), nan_policy="propagate")
    assert not isinstance(ei.value, na.NaNError)
    with pytest.raises(ValueError):
        na.argsort(np.array([1.0]), nan_policy="propagate")
    with pytest.raises(ValueError):
        na.rank(np.array([1.0]), nan_policy="propagate")


def test_raise_raises():
    with pytest.raises(na.NaNError):
        na.sort(np.array([1.0, np.nan]), nan_policy="raise")
    assert na.sort(np.array([2.0, 1.0]), nan_policy="raise").tolist() == [1.0, 2.0]


def test_sort_axis_nd():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(3, 4, 5))
    x[0, 1, 2] = np.nan
    for axis in (0, 1, 2, -1):
        s = na.sort(x, axis=axis, nan_policy="largest")
        np.testing.assert_array_equal(s, np.sort(x, axis=axis))
        np.testing.assert_array_equal(na.argsort(x, axis=axis, nan_policy="largest"),
                                      np.argsort(x, axis=axis, kind="stable"))
    np.testing.assert_array_equal(na.sort(x, axis=None, nan_policy="largest"),
                                  np.sort(x, axis=None))


def test_sort_big_endian_strided_readonly():
    b = [0x7FF8000000000005, 0x8000000000000000, 0, 0x3FF0000000000000]
    x = oracle.from_bits(b, np.float64).astype(">f8")
    x.flags.writeable = False
    s = na.sort(x)
    assert oracle.bits_list(s) == [0x8000000000000000, 0, 0x3FF0000000000000,
                                   0x7FF8000000000005]
    y = np.repeat(oracle.from_bits(b, np.float64), 2)[::2]
    assert oracle.bits_list(na.sort(y)) == oracle.bits_list(s)
    assert oracle.bits_list(x) == b


def test_signaling_nan_sort():
    x = np.array([1.0, na.make_nan(2, signaling=True)])
    for p in ("smallest", "largest", "omit", "raise", None):  # None: "largest"
        with pytest.raises(na.SignalingNaNError):
            na.sort(x, nan_policy=p)
    assert oracle.bits_list(na.sort(x, nan_policy="totalorder"))[-1] == 0x7FF0000000000002


def test_integer_and_datetime_sort():
    x = np.array([3, -1, 2], dtype=np.int16)
    assert na.sort(x).tolist() == [-1, 2, 3] and na.sort(x).dtype == np.int16
    u = np.array([2**64 - 1, 0, 5], dtype=np.uint64)
    assert na.sort(u).tolist() == [0, 5, 2**64 - 1]
    d = np.array(["2024-01-03", "NaT", "2024-01-01"], dtype="datetime64[D]")
    with pytest.raises(na.NaNError):
        na.sort(d, nan_policy="raise")


# ----------------------------------------------------------------- pandas rank


@pytest.mark.parametrize("method", RANK_METHODS)
@pytest.mark.parametrize("policy", ["omit", "smallest", "largest", "totalorder"])
@MED
@given(vals=st.lists(st.one_of(st.sampled_from([1.0, 2.0, -3.0, np.inf, -np.inf, np.nan]),
                               st.floats(-100, 100).filter(lambda v: v != 0)),
                     min_size=1, max_size=15))
def test_rank_matches_pandas(method, policy, vals):
    x = np.array(vals)
    s = pd.Series(x)
    if policy == "omit":
        ref = s.rank(method=method, na_option="keep")
    elif policy == "smallest":
        ref = s.rank(method=method, na_option="top")
    else:
        # plain NaN (positive, payload 0) is the single top value under both
        ref = s.rank(method=method, na_option="bottom")
    r = na.rank(x, method=method, nan_policy=policy)
    np.testing.assert_array_equal(r, ref.to_numpy())


@pytest.mark.parametrize("method", RANK_METHODS)
def test_rank_pct_matches_pandas(method):
    x = np.array([3.0, 1.0, np.nan, 3.0, 7.0, 1.0])
    s = pd.Series(x)
    np.testing.assert_allclose(na.rank(x, method=method, nan_policy="omit", pct=True),
                               s.rank(method=method, pct=True).to_numpy())


@pytest.mark.parametrize("method", RANK_METHODS)
def test_rank_descending_with_nan_matches_pandas(method):
    """Regression: descending ranks under "omit" must not count the NaNs."""
    x = np.array([3.0, 1.0, np.nan, 3.0, 7.0, 1.0])
    s = pd.Series(x)
    np.testing.assert_array_equal(
        na.rank(x, method=method, nan_policy="omit", ascending=False),
        s.rank(method=method, ascending=False).to_numpy())


def test_rank_signed_zeros_distinct_under_totalorder():
    assert na.rank(np.array([0.0, -0.0])).tolist() == [2.0, 1.0]
    assert na.rank(np.array([0.0, -0.0, 0.0]), method="dense").tolist() == [2.0, 1.0, 2.0]


def test_rank_2d_axis():
    x = np.array([[3.0, 1.0, 2.0], [1.0, np.nan, 0.5]])
    r = na.rank(x, axis=1, nan_policy="largest")
    np.testing.assert_array_equal(r, [[3.0, 1.0, 2.0], [2.0, 3.0, 1.0]])
    r0 = na.rank(x, axis=0, nan_policy="largest")
    np.testing.assert_array_equal(r0, pd.DataFrame(x).rank(axis=0, na_option="bottom"))


def test_descending_rank_under_omit_keeps_minus_inf_apart_from_nans():
    """Regression (issue 11): -inf, reversed, reached the key the omitted NaNs were
    given, so a descending rank tied -inf with them (5.5 instead of pandas' 5.0)."""
    x = np.array([3, np.nan, 1, 3, -np.inf, 2])
    for method in ("average", "min", "max", "first", "dense"):
        got = na.rank(x, ascending=False, nan_policy="omit", method=method)
        want = pd.Series(x).rank(ascending=False, method=method).to_numpy()
        np.testing.assert_array_equal(got, want)
    two = np.stack([x, x[::-1]])
    got = na.rank(two, axis=1, ascending=False, nan_policy="omit")
    want = np.stack([pd.Series(r).rank(ascending=False).to_numpy() for r in two])
    np.testing.assert_array_equal(got, want)
