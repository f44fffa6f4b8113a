"""Reliability weights and the total-weight error (issue 23 item 4).

``weights_kind="frequency"`` (counts: ``ddof`` subtracts from ``V1 = sum(w)``) and
``"reliability"`` (:func:`numpy.cov`'s ``aweights``: divisor ``V1 - ddof V2 / V1``,
``V2 = sum(w**2)``) for var, std and sem, exact against Fraction references, on
the flat, grouped and host paths; non-integer frequency weights with ``V1 - ddof < 1``
raise :class:`nanaccess.TotalWeightError` naming the column, group or variable.
"""

from __future__ import annotations

import math
import pickle
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st

import nanaccess as na
from nanaccess.core.grouped.weighted import grouped_weighted
from nanaccess.core.higher.finish import round_sqrt
from nanaccess.core.reduce import reduce
from nanaccess.errors import TotalWeightError
from nanaccess.options import NanPolicy


def _ref(x, w, ddof, kind, stat):
    """Fraction reference: the variance (or its sem**2), exactly, as a Fraction; None
    where undefined (NaN)."""
    pairs = [(Fraction(float(a)), Fraction(float(b))) for a, b in zip(x, w, strict=True)
             if b != 0]
    v1 = sum(b for _a, b in pairs)
    if v1 == 0:
        return None
    v2 = sum(b * b for _a, b in pairs)
    mu = sum(a * b for a, b in pairs) / v1
    m2 = sum(b * (a - mu) ** 2 for a, b in pairs)
    d = Fraction(ddof)
    den = v1 - d * v2 / v1 if kind == "reliability" else v1 - d
    if den <= 0:
        return None
    var = m2 / den
    if stat == "sem":
        n = v1 * v1 / v2 if kind == "reliability" else v1
        return var / n
    return var


def _want(x, w, ddof, kind, stat):
    r = _ref(x, w, ddof, kind, stat)
    if r is None:
        return math.nan
    if stat == "sem":  # correctly rounded, as the unweighted sem
        return round_sqrt(r.numerator, r.denominator)
    v = float(r)
    return math.sqrt(v) if stat == "std" else v  # the square root of the rounded var


def _same(got, want):
    got = float(got)
    return (math.isnan(got) and math.isnan(want)) or got == want


_pairs = st.lists(st.tuples(st.floats(-1e6, 1e6), st.floats(0.01, 100.0)), min_size=1,
                  max_size=12)


@settings(max_examples=40, deadline=None)
@given(_pairs, st.sampled_from([0, 1, 0.5, 2]), st.sampled_from(["var", "std", "sem"]))
def test_reliability_is_exact(pairs, ddof, stat):
    x = np.array([p[0] for p in pairs])
    w = np.array([p[1] for p in pairs])
    got = reduce(x, stat, weights=w, ddof=ddof, weights_kind="reliability",
                 policy=NanPolicy.RAISE).values
    assert _same(got, _want(x, w, ddof, "reliability", stat))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.floats(-1e6, 1e6), st.integers(0, 6)), min_size=1,
                max_size=12), st.sampled_from([0, 1, 2]), st.sampled_from(["var", "std", "sem"]))
def test_integer_frequency_weights_are_repeated_rows(pairs, ddof, stat):
    x = np.array([p[0] for p in pairs])
    w = np.array([p[1] for p in pairs])
    got = reduce(x, stat, weights=w, ddof=ddof, policy=NanPolicy.RAISE).values
    rep = np.repeat(x, w)
    want = reduce(rep, stat, ddof=ddof, policy=NanPolicy.RAISE).values if rep.size \
        else np.float64(np.nan)
    assert _same(got, float(want)), (got, want)  # NaN where sum(w) <= ddof, as unweighted
    assert _same(got, _want(x, w, ddof, "frequency", stat))


@settings(max_examples=30, deadline=None)
@given(_pairs, st.sampled_from([0, 1]))
def test_reliability_matches_numpy_cov_aweights(pairs, ddof):
    x = np.array([p[0] for p in pairs])
    w = np.array([p[1] for p in pairs])
    got = na.var(x, weights=w, ddof=ddof, weights_kind="reliability")
    if len(x) == 1 and ddof:
        assert math.isnan(got)  # V1**2 == V2: no spread left to estimate
        return
    want = float(np.cov(x, aweights=w, ddof=ddof))
    assert got == pytest.approx(want, rel=1e-9, abs=1e-6)
    # numpy rounds several times; this one is the exact value rounded once
    assert got == _want(x, w, ddof, "reliability", "var")


def test_reliability_is_scale_free_and_sem_uses_kish():
    x = np.array([1.0, 2.0, 4.0, 7.0, 11.0])
    w = np.array([0.1, 0.2, 0.3, 0.15, 0.25])
    a = na.var(x, weights=w, ddof=1, weights_kind="reliability")
    b = na.var(x, weights=w * 1024, ddof=1, weights_kind="reliability")
    assert a == b  # scaling by a power of two changes no bit
    n_eff = w.sum() ** 2 / (w ** 2).sum()
    sem = na.sem(x, weights=w, weights_kind="reliability")
    assert sem == pytest.approx(math.sqrt(a / n_eff), rel=1e-15)
    assert sem == _want(x, w, 1, "reliability", "sem")
    assert na.std(x, weights=w, ddof=1, weights_kind="reliability") == math.sqrt(a)


def test_sem_with_frequency_weights_is_sem_of_repeated_rows():
    x = np.array([3.0, 1.0, 4.0, 1.0, 5.0])
    w = np.array([2, 1, 3, 0, 4])
    assert na.sem(x, weights=w) == na.sem(np.repeat(x, w))
    assert na.sem(x, weights=w, ddof=0) == na.sem(np.repeat(x, w), ddof=0)


# --------------------------------------------------------------- the total weight


def test_normalized_frequency_weights_with_ddof_raise():
    x = np.array([1.0, 2.0, 4.0])
    w = np.array([0.25, 0.25, 0.5])
    for stat in ("var", "std", "sem"):
        with pytest.raises(TotalWeightError, match="weights_kind=\"reliability\"") as info:
            reduce(x, stat, weights=w, ddof=1, policy=NanPolicy.RAISE)
        assert info.value.total == 1.0 and info.value.ddof == 1
    assert isinstance(info.value, ValueError)
    # ddof=0 needs no total (the ratio is scale-free); reliability weights are fine
    assert na.var(x, weights=w) == float(_ref(x, w, 0, "frequency", "var"))
    assert na.var(x, weights=w, ddof=1, weights_kind="reliability") == \
        float(_ref(x, w, 1, "reliability", "var"))
    # a fractional total at least ddof + 1 is a count: no error, exact
    w2 = np.array([0.5, 0.5, 1.0])  # V1 = 2, V1 - ddof = 1
    assert na.var(x, weights=w2, ddof=1) == float(_ref(x, w2, 1, "frequency", "var"))


def test_integer_weights_with_total_at_most_ddof_are_nan():
    x = np.array([1.0, 2.0, 4.0])
    assert math.isnan(na.var(x, weights=[1, 0, 0], ddof=1))
    assert math.isnan(na.var(x, weights=[1, 1, 0], ddof=2))
    assert math.isnan(na.var(x, weights=[0, 0, 0], ddof=1))  # nothing left
    assert math.isnan(na.var(x, weights=[0.0, 0.0, 0.0], ddof=1))
    # reliability: one point (V1**2 == V2 * ddof) is NaN, not an error
    assert math.isnan(na.var(x, weights=[0.3, 0.0, 0.0], ddof=1, weights_kind="reliability"))


def test_total_weight_error_pickles_and_is_exported():
    assert na.TotalWeightError is TotalWeightError and "TotalWeightError" in na.__all__
    err = TotalWeightError(total=0.5, ddof=1, cell=3, subject="column 'a'", group="g")
    back = pickle.loads(pickle.dumps(err))
    assert (back.total, back.ddof, back.cell, back.subject, back.group, str(back)) == \
        (0.5, 1, 3, "column 'a'", "g", str(err))


def test_total_weight_error_under_propagate_keeps_the_nan():
    x = np.array([1.0, np.nan, 4.0])
    w = np.array([0.25, 0.25, 0.5])
    # the propagated NaN decides the result: no total-weight error for it
    assert math.isnan(na.var(x, weights=w, ddof=1, nan_policy="propagate"))
    with pytest.raises(TotalWeightError):
        na.var(x, weights=w, ddof=1, nan_policy="omit")


def test_the_fast_path_defers_to_the_exact_check():
    # many pairs (the certified compiled path when numba runs), a total near ddof + 1
    rng = np.random.default_rng(0)
    x = rng.normal(size=50_000)
    w = np.full(x.size, 1.5 / x.size)  # V1 = 1.5 (fractional), ddof = 1: 0.5 < 1
    with pytest.raises(TotalWeightError):
        na.var(x, weights=w, ddof=1)
    w = np.full(x.size, 4.0 / x.size)  # V1 = 4: fine
    assert na.var(x, weights=w, ddof=1) == float(_ref(x, w, 1, "frequency", "var"))


# --------------------------------------------------------------------- policies


@pytest.mark.parametrize("kind", ["frequency", "reliability"])
def test_policies_on_data_and_weights(kind):
    x = np.array([1.0, np.nan, 4.0, 6.0, 2.0])
    w = np.array([1.0, 2.0, np.nan, 3.0, 0.0])
    with pytest.raises(na.NaNError):
        na.var(x, weights=w, weights_kind=kind, ddof=1)
    keep = np.array([True, False, False, True, True])
    got = na.var(x, weights=w, weights_kind=kind, ddof=1, nan_policy="omit")
    assert got == _want(x[keep], w[keep], 1, kind, "var")
    assert math.isnan(na.var(x, weights=w, weights_kind=kind, nan_policy="propagate"))
    for pol in ("smallest", "largest", "totalorder"):
        with pytest.raises(ValueError):  # a NaN weight has no place in an order
            na.var(x, weights=w, weights_kind=kind, nan_policy=pol)
    w_ok = np.array([1.0, 2.0, 1.0, 3.0, 0.0])
    for pol in ("smallest", "largest", "totalorder", "propagate"):
        assert math.isnan(na.var(x, weights=w_ok, weights_kind=kind, nan_policy=pol))


def test_zero_weights_drop_their_values():
    x = np.array([1.0, 1e300, 4.0, 6.0])
    w = np.array([0.4, 0.0, 0.2, 0.4])
    for kind in ("frequency", "reliability"):
        got = na.var(x, weights=w, weights_kind=kind)
        assert got == na.var(x[[0, 2, 3]], weights=w[[0, 2, 3]], weights_kind=kind)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64])
def test_dtypes(dtype):
    x = np.array([1, 2, 4, 7], dtype=dtype)
    w = np.array([0.1, 0.2, 0.3, 0.4])
    got = reduce(x, "var", weights=w, ddof=1, weights_kind="reliability",
                 policy=NanPolicy.RAISE).values
    assert got.dtype == (np.float32 if dtype is np.float32 else np.float64)
    want = _ref(x.astype(np.float64), w, 1, "reliability", "var")
    assert got == np.dtype(got.dtype).type(float(want))


def test_no_mutation_and_argument_errors():
    x = np.array([1.0, np.nan, 3.0])
    w = np.array([0.5, 0.5, 0.25])
    xc, wc = x.copy(), w.copy()
    na.var(x, weights=w, weights_kind="reliability", nan_policy="omit")
    np.testing.assert_array_equal(x, xc)
    np.testing.assert_array_equal(w, wc)
    with pytest.raises(ValueError, match="weights_kind"):
        na.var(x, weights=w, weights_kind="analytic", nan_policy="omit")
    with pytest.raises(ValueError, match="weights="):
        pd.Series(x).nanstats.var(weights_kind="reliability", nan_policy="omit")
    with pytest.raises(TypeError):
        na.median(x, weights=w, weights_kind="reliability", nan_policy="omit")


# --------------------------------------------------------------------- grouped


@pytest.mark.parametrize("engine", ["numpy", "auto"])
@pytest.mark.parametrize("stat", ["var", "std", "sem"])
def test_grouped_reliability_equals_each_group(engine, stat):
    rng = np.random.default_rng(1)
    n = 3000
    x = rng.normal(size=n) * 100
    x[rng.random(n) < 0.05] = np.nan
    w = rng.random(n) + 0.01
    codes = rng.integers(0, 40, n)
    vals, _m, _c = grouped_weighted(x, codes, 40, stat, w, policy=NanPolicy.OMIT, ddof=1,
                                    weights_kind="reliability", engine=engine)
    for g in range(40):
        sel = (codes == g) & ~np.isnan(x)
        assert _same(vals[g], _want(x[sel], w[sel], 1, "reliability", stat))


def test_grouped_total_weight_error_names_the_group():
    df = pd.DataFrame({"k": ["a", "a", "b", "b", "b"], "v": [1.0, 2.0, 3.0, 5.0, 8.0],
                       "w": [2.0, 1.5, 0.25, 0.25, 0.5]})
    with pytest.raises(TotalWeightError, match=r"column 'v' \(group 'b'\)") as info:
        df.groupby("k").nanstats.var(weights="w")
    assert info.value.group == "b"
    got = df.groupby("k").nanstats.var(weights="w", weights_kind="reliability")
    for key, part in df.groupby("k"):
        assert got.loc[key, "v"] == _want(part.v.to_numpy(), part.w.to_numpy(), 1,
                                          "reliability", "var")


# ----------------------------------------------------------------------- hosts


def test_pandas_hosts():
    df = pd.DataFrame({"a": [1.0, 2.0, 4.0, np.nan], "b": [3, 1, 2, 2],
                       "w": [0.1, 0.2, 0.3, 0.4]}, index=list("xyxz"))  # duplicate labels
    got = df.nanstats.std(weights="w", weights_kind="reliability", nan_policy="omit")
    assert list(got.index) == ["a", "b"]
    assert got["a"] == _want([1.0, 2.0, 4.0], [0.1, 0.2, 0.3], 1, "reliability", "std")
    assert got["b"] == _want([3, 1, 2, 2], [0.1, 0.2, 0.3, 0.4], 1, "reliability", "std")
    s = df["a"].nanstats.sem(weights=df["w"], weights_kind="reliability", nan_policy="omit")
    assert s == _want([1.0, 2.0, 4.0], [0.1, 0.2, 0.3], 1, "reliability", "sem")
    with pytest.raises(TotalWeightError, match="column 'a'"):
        df.nanstats.var(weights="w", nan_policy="omit")
    nullable = pd.Series([1, 2, None, 7], dtype="Int64")
    got = nullable.nanstats.var(weights=[0.1, 0.2, 0.3, 0.4], weights_kind="reliability",
                                nan_policy="omit")
    assert got == _want([1, 2, 7], [0.1, 0.2, 0.4], 1, "reliability", "var")


def test_xarray_hosts():
    da = xr.DataArray([[1.0, 2.0, 4.0, 7.0], [3.0, np.nan, 1.0, 2.0]], dims=("y", "t"),
                      name="v")
    w = xr.DataArray([0.1, 0.2, 0.3, 0.4], dims="t")
    a = da.weighted(w).nanstats.var("t", ddof=1, weights_kind="reliability",
                                    nan_policy="omit")
    b = da.nanstats.var("t", ddof=1, weights=w, weights_kind="reliability", nan_policy="omit")
    np.testing.assert_array_equal(a.values, b.values)
    assert a.values[0] == _want([1.0, 2.0, 4.0, 7.0], [0.1, 0.2, 0.3, 0.4], 1,
                                "reliability", "var")
    assert a.values[1] == _want([3.0, 1.0, 2.0], [0.1, 0.3, 0.4], 1, "reliability", "var")
    lazy = da.chunk({"t": 2}).weighted(w).nanstats.var("t", ddof=1,
                                                       weights_kind="reliability",
                                                       nan_policy="omit")
    np.testing.assert_array_equal(lazy.values, a.values)
    with pytest.raises(TotalWeightError, match="variable 'v'"):
        da.to_dataset().nanstats.var("t", ddof=1, weights=w, nan_policy="omit")
