"""Weighted covariance and Pearson correlation (issue 24 item 4): exact against
Fraction references, frequency and reliability weights, every policy, the hosts."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nanaccess  # noqa: F401 - the accessors
from nanaccess.core.bivariate import weighted_pairs
from nanaccess.core.bivariate.rounding import sqrt_ratio
from nanaccess.errors import NaNError, TotalWeightError
from nanaccess.options import NanPolicy


def _ref(x, y, w, stat, ddof=1, kind="frequency"):
    t = [(Fraction(float(a)), Fraction(float(b)), Fraction(float(k)))
         for a, b, k in zip(x, y, w, strict=True) if k != 0]
    v1 = sum(k for *_, k in t)
    if v1 == 0:
        return math.nan
    v2 = sum(k * k for *_, k in t)
    mx = sum(k * a for a, _b, k in t) / v1
    my = sum(k * b for _a, b, k in t) / v1
    cxy = sum(k * (a - mx) * (b - my) for a, b, k in t)
    if stat == "corr":
        cxx = sum(k * (a - mx) ** 2 for a, _b, k in t)
        cyy = sum(k * (b - my) ** 2 for _a, b, k in t)
        if cxx == 0 or cyy == 0:
            return math.nan
        q = cxy * cxy / (cxx * cyy)
        r = sqrt_ratio(q.numerator, q.denominator)
        return -r if cxy < 0 else r
    den = v1 - Fraction(ddof) * v2 / v1 if kind == "reliability" else v1 - Fraction(ddof)
    return math.nan if den <= 0 else float(cxy / den)


def _one(x, y, w, stat, policy=NanPolicy.OMIT, **kw):
    return float(weighted_pairs([np.asarray(x), np.asarray(y)], np.array([[0, 1]]), w,
                                stat=stat, policy=policy, **kw)[0][0])


def _same(a, b):
    return (math.isnan(a) and math.isnan(b)) or a == b


_rows = st.lists(st.tuples(st.floats(-1e6, 1e6), st.floats(-1e6, 1e6),
                           st.floats(0.01, 50.0)), min_size=2, max_size=10)


@settings(max_examples=40, deadline=None)
@given(_rows, st.sampled_from(["frequency", "reliability"]))
def test_exact_against_fractions(rows, kind):
    x, y, w = (np.array(c) for c in zip(*rows, strict=True))
    assert _same(_one(x, y, w, "corr", weights_kind=kind), _ref(x, y, w, "corr"))
    try:
        got = _one(x, y, w, "cov", weights_kind=kind, ddof=1)
    except TotalWeightError:
        assert kind == "frequency" and sum(map(Fraction, w.tolist())) < 2
        return
    assert _same(got, _ref(x, y, w, "cov", 1, kind))
    r = _one(x, y, w, "corr")
    assert math.isnan(r) or abs(r) <= 1


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6), min_size=2, max_size=10, unique=True),
       st.floats(0.5, 8.0), st.floats(-1e7, 1e7), st.data())
def test_collinear_data_give_exactly_one(x, a, b, data):
    x = np.array(x)
    w = np.array(data.draw(st.lists(st.floats(0.01, 9.0), min_size=x.size,
                                    max_size=x.size)))
    y = a * x + b
    fy = [Fraction(float(a)) * Fraction(v) + Fraction(float(b)) for v in x.tolist()]
    exact_line = all(Fraction(float(v)) == f for v, f in zip(y.tolist(), fy, strict=True))
    r = _one(x, y, w, "corr")
    assert abs(r) <= 1
    if exact_line and len(set(y.tolist())) > 1:
        assert r == 1.0
    assert _one(x, -x, w, "corr") == -1.0


def test_integer_weights_are_repeated_rows_and_numpy_aweights():
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=30) * 1e3, rng.normal(size=30) + 1e7
    k = rng.integers(0, 5, 30)
    rep = pd.Series(np.repeat(x, k)).nanstats.cov(pd.Series(np.repeat(y, k)))
    assert _one(x, y, k, "cov") == rep
    assert _one(x, y, k, "corr") == pd.Series(np.repeat(x, k)).nanstats.corr(
        pd.Series(np.repeat(y, k)))
    w = rng.random(30) + 0.01
    got = _one(x, y, w, "cov", weights_kind="reliability")
    assert got == pytest.approx(np.cov(x, y, aweights=w)[0, 1], rel=1e-9)
    assert got == _ref(x, y, w, "cov", 1, "reliability")
    # r is scale-free and the same for both kinds
    assert _one(x, y, w, "corr") == _one(x, y, 8 * w, "corr", weights_kind="reliability")


def test_total_weight_and_degenerate_cases():
    x, y = np.array([1.0, 2.0, 4.0]), np.array([2.0, 1.0, 7.0])
    with pytest.raises(TotalWeightError):
        _one(x, y, [0.2, 0.3, 0.5], "cov")
    assert math.isnan(_one(x, y, [1, 0, 0], "cov"))  # integer: one row, NaN
    assert math.isnan(_one(x, y, [0.2, 0.0, 0.0], "cov", weights_kind="reliability"))
    assert math.isnan(_one(x, np.ones(3), [1, 2, 3], "corr"))  # constant column
    assert math.isnan(_one(x, y, [0, 0, 0], "corr"))
    assert _one(x, y, [0.2, 0.3, 0.5], "cov", ddof=0) == _ref(x, y, [0.2, 0.3, 0.5],
                                                              "cov", 0)


@pytest.mark.parametrize("policy", list(NanPolicy))
def test_policies(policy):
    x = np.array([1.0, np.nan, 4.0, 7.0, 2.0])
    y = np.array([3.0, 1.0, 5.0, 2.0, 8.0])
    w = np.array([1.0, 2.0, 3.0, 1.0, 0.0])  # zero weight drops its row
    if policy is NanPolicy.RAISE:
        with pytest.raises(NaNError):
            _one(x, y, w, "cov", policy)
        return
    got = _one(x, y, w, "cov", policy)
    if policy is NanPolicy.OMIT:
        keep = [0, 2, 3]
        assert got == _ref(x[keep], y[keep], w[keep], "cov")
    else:
        assert math.isnan(got)
    # NaN weights: "omit" drops the row, "propagate" gives NaN
    wn = np.array([1.0, 2.0, np.nan, 1.0, 3.0])
    x2 = np.array([1.0, 3.0, 4.0, 7.0, 2.0])
    if policy is NanPolicy.OMIT:
        keep = [0, 1, 3, 4]
        assert _one(x2, y, wn, "corr", policy) == _ref(x2[keep], y[keep], wn[keep], "corr")
    elif policy is NanPolicy.PROPAGATE:
        assert math.isnan(_one(x2, y, wn, "corr", policy))
    else:
        with pytest.raises(ValueError):
            _one(x2, y, wn, "corr", policy)


def test_pandas_frame_and_series():
    df = pd.DataFrame({"x": [1.0, 2.0, 4.0, 7.0, np.nan], "y": [3.0, 1.0, 5.0, 2.0, 8.0],
                       "z": [1, 2, 3, 4, 5], "w": [0.1, 0.2, 0.3, 0.4, 0.5]},
                      index=list("abcab"))  # duplicate labels
    x0 = df.copy()
    cov = df.nanstats.cov(weights="w", weights_kind="reliability", nan_policy="omit")
    assert list(cov.columns) == ["x", "y", "z"] and list(cov.index) == ["x", "y", "z"]
    np.testing.assert_array_equal(cov.to_numpy(), cov.to_numpy().T)
    assert cov.loc["x", "y"] == _ref(df.x[:4], df.y[:4], df.w[:4], "cov", 1, "reliability")
    assert cov.loc["y", "z"] == _ref(df.y, df.z, df.w, "cov", 1, "reliability")
    corr = df.nanstats.corr(weights=df["w"].to_numpy(), nan_policy="omit")
    assert list(corr.columns) == ["x", "y", "z", "w"]
    assert corr.loc["x", "y"] == _ref(df.x[:4], df.y[:4], df.w[:4], "corr")
    assert (corr.to_numpy().diagonal() == 1.0).all()
    pd.testing.assert_frame_equal(df, x0)  # no mutation
    s = df["x"].nanstats.cov(df["y"], weights=df["w"], weights_kind="reliability",
                             nan_policy="omit")
    assert s == cov.loc["x", "y"]
    with pytest.raises(TotalWeightError, match="column 'x'"):
        df.nanstats.cov(weights="w", nan_policy="omit")
    with pytest.raises(NotImplementedError, match="spearman"):
        df.nanstats.corr(method="spearman", weights="w", nan_policy="omit")
    with pytest.raises(NaNError, match="column 'x'"):
        df.nanstats.corr(weights="w")
