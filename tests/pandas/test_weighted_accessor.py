"""``weights=`` on the pandas accessors and ``nanaccess.agg`` (issue 13, item 1)."""

from __future__ import annotations

import inspect

import numpy as np
import pandas as pd
import pytest

import nanaccess as na
from nanaccess.core.grouped.weighted import GROUPED_WEIGHTED
from nanaccess.errors import NaNError

METHODS = ("linear", "lower", "higher", "nearest", "midpoint", "inverted_cdf",
           "averaged_inverted_cdf", "closest_observation", "hazen", "weibull")


def _same(a, b) -> None:
    """Equal bit for bit (NaN payloads included)."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes(), (a, b)


def _series(seed: int = 3, n: int = 40, nan: bool = False):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    if nan:
        x[[2, 7]] = np.nan
    w = rng.integers(0, 5, size=n).astype(np.float64)
    idx = pd.Index([f"r{i}" for i in range(n)])
    return pd.Series(x, index=idx, name="x"), pd.Series(w, index=idx, name="w")


# ----------------------------------------------------------------- Series


@pytest.mark.parametrize("method", METHODS)
def test_series_quantile_equals_plain_function(method):
    s, w = _series()
    q = [0.1, 0.5, 0.9]
    got = s.nanstats.quantile(q, weights=w, method=method)
    want = na.quantile(s.to_numpy(), q, weights=w.to_numpy(), method=method)
    _same(got.to_numpy(), want)
    assert list(got.index) == q and got.name == "x"


@pytest.mark.parametrize("stat", ["median", "median_low", "median_high", "mean", "sum",
                                  "var", "std"])
def test_series_statistics_equal_plain_function(stat):
    s, w = _series(5, nan=True)
    got = getattr(s.nanstats, stat)(weights=w, nan_policy="omit")
    kw = {"ddof": 1} if stat in ("var", "std") else {}  # pandas' default ddof
    want = getattr(na, stat)(s.to_numpy(), weights=w.to_numpy(), nan_policy="omit", **kw)
    _same(got, want)


def test_series_inverted_cdf_equals_numpy_under_omit():
    s, w = _series(11)
    w = w + 1.0  # NumPy wants positive total weight per quantile
    for q in (0.0, 0.2, 0.5, 0.73, 1.0):
        got = s.nanstats.quantile(q, weights=w, method="inverted_cdf", nan_policy="omit")
        want = np.quantile(s.to_numpy(), q, weights=w.to_numpy(), method="inverted_cdf")
        assert got == want


def test_series_weights_aligned_on_index():
    s, w = _series()
    shuffled = w.iloc[np.random.default_rng(0).permutation(len(w))]
    _same(s.nanstats.median(weights=shuffled), s.nanstats.median(weights=w.to_numpy()))


def test_series_misaligned_weights_name_the_labels():
    s = pd.Series([1.0, 2.0, 3.0], index=["a", "b", "c"])
    w = pd.Series([1.0, 1.0, 1.0], index=["a", "b", "z"])
    with pytest.raises(ValueError, match=r"1 label\(s\) of the data have no weight "
                                         r"\(first 'c'\); 1 label\(s\) of the weights are "
                                         r"not in the data \(first 'z'\)"):
        s.nanstats.median(weights=w)
    with pytest.raises(ValueError, match="do not match the 3 rows"):
        s.nanstats.median(weights=[1.0, 2.0])


_NAN_W = pd.Series([1.0, 2.0, np.nan, 1.0], index=list("abcd"))
_S = pd.Series([4.0, 1.0, 3.0, 2.0], index=list("abcd"), name="x")


def test_nan_weight_under_raise_names_weights_count_and_label():
    with pytest.raises(NaNError, match=r"^weights holds 1 NaN value \(first at index 'c'\)"):
        _S.nanstats.median(weights=_NAN_W, nan_policy="raise")


def test_nan_weight_under_omit_drops_the_pair():
    got = _S.nanstats.median(weights=_NAN_W, nan_policy="omit")
    keep = ~np.isnan(_NAN_W.to_numpy())
    _same(got, na.median(_S.to_numpy()[keep], weights=_NAN_W.to_numpy()[keep]))


def test_nan_weight_under_propagate_gives_nan():
    assert np.isnan(_S.nanstats.quantile(0.3, weights=_NAN_W, nan_policy="propagate"))
    assert np.isnan(_S.nanstats.mean(weights=_NAN_W, nan_policy="propagate"))


@pytest.mark.parametrize("policy", ["smallest", "largest", "totalorder"])
def test_nan_weight_under_ordering_policies_is_a_value_error(policy):
    with pytest.raises(ValueError, match=r"^weights holds 1 NaN value \(first at index 'c'\): "
                                         f"a weight has no place in an order, so "
                                         f"nan_policy='{policy}'"):
        _S.nanstats.median(weights=_NAN_W, nan_policy=policy)


@pytest.mark.parametrize("bad", [-1.0, np.inf])
def test_negative_or_infinite_weight_names_the_label(bad):
    w = pd.Series([1.0, 1.0, 1.0, bad], index=list("abcd"))
    with pytest.raises(ValueError, match=r"^weights must be non-negative and finite: 1 "
                                         r"weight\(s\) are not \(first at index 'd'"):
        _S.nanstats.median(weights=w, nan_policy="omit")


def test_missing_nullable_weight_follows_the_policy():
    w = pd.Series([1.0, None, 2.0, 1.0], index=list("abcd"), dtype="Float64")
    with pytest.raises(NaNError, match=r"weights holds 1 missing value \(first at index 'b'\)"):
        _S.nanstats.median(weights=w)
    got = _S.nanstats.median(weights=w, nan_policy="omit")
    _same(got, na.median(np.array([4.0, 3.0, 2.0]), weights=[1.0, 2.0, 1.0]))


def test_data_nan_names_the_series():
    s = pd.Series([1.0, np.nan], index=["p", "q"])
    with pytest.raises(NaNError, match=r"^Series holds 1 NaN value \(first at index 'q'\)"):
        s.nanstats.median(weights=[1, 1])


def test_inputs_are_not_modified():
    s, w = _series(7, nan=True)
    w.iloc[3] = np.nan
    s0, w0 = s.copy(), w.copy()
    s.nanstats.quantile([0.2, 0.8], weights=w, nan_policy="omit")
    s.nanstats.var(weights=w, nan_policy="propagate")
    pd.testing.assert_series_equal(s, s0)
    pd.testing.assert_series_equal(w, w0)


def test_unweighted_statistic_refuses_weights():
    assert "weights" not in inspect.signature(_S.nanstats.iqr).parameters
    assert "weights" not in inspect.signature(_S.nanstats.count).parameters
    assert "weights" in inspect.signature(_S.nanstats.quantile).parameters


# ----------------------------------------------------------------- DataFrame


def _frame(seed: int = 1, n: int = 30):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "g": rng.integers(0, 4, size=n),
        "x": rng.normal(size=n),
        "y": rng.integers(-50, 50, size=n),
        "w": rng.integers(0, 4, size=n).astype(np.float64),
    })


def test_frame_weight_column_is_left_out_and_values_match():
    df = _frame()
    got = df.nanstats.median(weights="w")
    assert list(got.index) == ["g", "x", "y"]
    for c in got.index:
        _same(got[c], na.median(df[c].to_numpy(), weights=df["w"].to_numpy()))


def test_frame_quantile_sequence_labels_and_row_weights():
    df = _frame(2)
    w = df.pop("w")
    q = [0.25, 0.75]
    got = df.nanstats.quantile(q, weights=w.to_numpy(), method="lower")
    assert list(got.index) == q and list(got.columns) == ["g", "x", "y"]
    for c in got.columns:
        _same(got[c].to_numpy(), na.quantile(df[c].to_numpy(), q, weights=w.to_numpy(),
                                             method="lower"))


def test_frame_weight_column_errors_name_the_column():
    df = pd.DataFrame({"x": [1.0, 2.0, 3.0], "w": [1.0, np.nan, 1.0]}, index=[10, 20, 30])
    with pytest.raises(NaNError, match=r"^weights \(column 'w'\) holds 1 NaN value "
                                       r"\(first at index 20\)"):
        df.nanstats.median(weights="w")
    with pytest.raises(KeyError, match="weights='v' is not a column"):
        df.nanstats.median(weights="v")
    with pytest.raises(ValueError, match="axis=0 only"):
        df.nanstats.median(weights="w", axis=1)


def test_multiindex_columns_take_a_tuple_weight_label():
    # pandas reads a tuple as one label of MultiIndex columns: so do the weights,
    # on the frame and grouped (the weight column is left out of the result)
    df = _frame(6, n=40)
    df.columns = pd.MultiIndex.from_tuples([("k", c) for c in df.columns])
    got = df.nanstats.median(weights=("k", "w"))
    assert list(got.index) == [("k", "g"), ("k", "x"), ("k", "y")]
    w = df[("k", "w")].to_numpy()
    for c in got.index:
        _same(got[c], na.median(df[c].to_numpy(), weights=w))
    by = df.groupby(("k", "g")).nanstats.median(weights=("k", "w"))
    assert list(by.columns) == [("k", "x"), ("k", "y")]
    with pytest.raises(KeyError, match="is not a column"):
        df.nanstats.median(weights=("k", "v"))


# ----------------------------------------------------------------- GroupBy


@pytest.mark.parametrize("stat", ["median", "median_low", "median_high", "quantile",
                                  "mean", "var"])
def test_groupby_weighted_equals_plain_function_per_group(stat):
    df = _frame(4, n=60)
    kw = {"q": [0.3, 0.6]} if stat == "quantile" else {}
    if stat == "var":
        kw = {"ddof": 1}  # pandas' default, given to both
    method = getattr(df.groupby("g").nanstats, stat)
    if stat not in GROUPED_WEIGHTED:
        with pytest.raises(TypeError, match=f"grouped weighted {stat} is not available"):
            method(weights="w", **kw)
        return
    got = method(weights="w", **kw)
    assert list(got.columns) == ["x", "y"]
    for key, part in df.groupby("g"):
        for c in ("x", "y"):
            want = getattr(na, stat)(part[c].to_numpy(), weights=part["w"].to_numpy(), **kw)
            _same(got.loc[key, c].to_numpy() if "q" in kw else got.loc[key, c], want)


def test_groupby_nan_weight_names_weights_and_label():
    df = pd.DataFrame({"g": list("aabb"), "x": [1.0, 2.0, 3.0, 4.0],
                       "w": [1.0, 1.0, np.nan, 1.0]}, index=list("pqrs"))
    with pytest.raises(NaNError, match=r"weights \(column 'w'\) holds 1 NaN value "
                                       r"\(first at index 'r'\)"):
        df.groupby("g").nanstats.median(weights="w")
    got = df.groupby("g").nanstats.median(weights="w", nan_policy="omit")
    assert got["x"].tolist() == [1.5, 4.0]


def test_groupby_dropped_group_rows_map_labels():
    df = pd.DataFrame({"g": [None, "a", "a"], "x": [1.0, 2.0, 3.0],
                       "w": [1.0, -1.0, 1.0]}, index=list("pqr"))
    with pytest.raises(ValueError, match=r"first at index 'q'"):
        df.groupby("g").nanstats.median(weights="w")


# ----------------------------------------------------------------- agg


def test_agg_with_weight_series_equals_groupby_accessor():
    df = _frame(6, n=50)
    want = df.groupby("g").nanstats.median(weights="w")
    got = df[["g", "x", "y"]].groupby("g").agg(na.agg.median(weights=df["w"]))
    pd.testing.assert_frame_equal(got, want)
    got2 = df.groupby("g").nanstats.agg(na.agg.median(weights="w"))
    pd.testing.assert_frame_equal(got2, want)


def test_agg_with_column_label_in_pandas_agg_says_where_it_works():
    df = _frame(6)
    with pytest.raises(TypeError, match=r"nanstats\.agg"):
        df.groupby("g").agg(na.agg.median(weights="w"))


def test_docs_example_runs():
    """The pycon block of docs/weighted.md's "Where weights are taken" is a doctest."""
    import doctest
    import pathlib
    import re

    text = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "weighted.md").read_text()
    block = re.search(r"## Where weights are taken.*?```pycon\n(.*?)```", text, re.S)
    assert block is not None
    test = doctest.DocTestParser().get_doctest(block.group(1), {}, "weighted.md", None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.failures == 0 and runner.tries > 5


def test_series_groupby_with_row_weights():
    s = pd.Series([1.0, 2.0, 3.0, 10.0, 20.0], index=list("pqrst"), name="x")
    w = pd.Series([1, 1, 5, 1, 3], index=list("pqrst"))
    got = s.groupby([0, 0, 0, 1, 1]).nanstats.median(weights=w)
    assert got.name == "x" and got.tolist() == [3.0, 20.0]
    as_frame = s.to_frame().assign(g=[0, 0, 0, 1, 1], w=w)
    flat = as_frame.groupby("g", as_index=False).nanstats.median(weights="w")
    assert list(flat.columns) == ["g", "x"] and flat["x"].tolist() == [3.0, 20.0]


def test_skipna_folds_into_the_policy_with_weights():
    assert _S.nanstats.median(weights=_NAN_W, skipna=True) == \
        _S.nanstats.median(weights=_NAN_W, nan_policy="omit")
    assert np.isnan(_S.nanstats.median(weights=_NAN_W, skipna=False))


@pytest.mark.parametrize("stat", ["quantile", "median_low", "mean", "var"])
def test_permuting_pairs_keeps_the_bits(stat):
    s, w = _series(9, n=57, nan=True)
    kw = {"q": [0.1, 0.5, 0.77]} if stat == "quantile" else {}
    perm = np.random.default_rng(1).permutation(len(s))
    a = getattr(s.nanstats, stat)(weights=w, nan_policy="omit", **kw)
    b = getattr(s.iloc[perm].nanstats, stat)(weights=w.iloc[perm], nan_policy="omit", **kw)
    _same(np.asarray(a), np.asarray(b))


def test_nullable_int_weights_with_missing():
    w = pd.Series([2, None, 1, 1], index=list("abcd"), dtype="Int64")
    got = _S.nanstats.median(weights=w, nan_policy="omit")
    _same(got, na.median(np.array([4.0, 3.0, 2.0]), weights=[2, 1, 1]))
