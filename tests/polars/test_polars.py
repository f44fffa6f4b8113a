"""The polars host: null is missing and NaN is NaN, bits kept, polars' result types,
every statistic equal to the core on the same values, groups in one pass."""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import nanaccess as na

pl = pytest.importorskip("polars")

POLICIES = ["propagate", "omit", "smallest", "largest", "totalorder"]
STATS = ["median", "median_low", "median_high", "min", "max", "mean", "sum", "var", "std",
         "iqr", "mad", "argmin", "argmax"]


def bits(x):
    return np.asarray(x).view(np.uint64 if np.asarray(x).dtype.itemsize == 8 else np.uint32)


def negative_nan():
    with np.errstate(invalid="ignore"):
        made = np.float64(np.inf) - np.float64(np.inf)
    return -abs(made)


def payload_nan(payload, negative=False):
    return na.make_nan(payload, negative=negative)


def data_with_nan_and_null():
    values = np.array([4.0, payload_nan(5), 1.0, 0.0, 10.0, negative_nan(), -2.5])
    s = pl.Series("x", values).scatter([3], None)  # one null beside the NaNs
    return values, s


@pytest.mark.parametrize("stat", STATS)
@pytest.mark.parametrize("policy", POLICIES)
def test_series_equals_the_core_with_null_as_missing(stat, policy):
    values, s = data_with_nan_and_null()
    missing = np.zeros(len(values), bool)
    missing[3] = True
    masked = np.ma.masked_array(values, mask=missing)
    extra = {"ddof": 1} if stat in ("var", "std") else {}  # polars' (and pandas') ddof
    got = getattr(s.nanstats, stat)(nan_policy=policy)
    want = getattr(na, stat)(masked, nan_policy=policy, **extra)
    if np.ma.is_masked(want) or want is np.ma.masked:
        assert got is None
    elif stat in ("argmin", "argmax"):
        assert got == want
    else:
        assert bits(np.float64(got)) == bits(np.float64(want)), (got, want)


def test_null_and_nan_are_kept_apart():
    s = pl.Series("x", [1.0, None, 3.0])
    with pytest.raises(na.NaNError, match="missing"):
        s.nanstats.median(nan_policy="raise")
    assert s.nanstats.median(nan_policy="omit") == 2.0
    assert s.nanstats.median(nan_policy="propagate") is None  # missing wins nothing: null
    with_nan = pl.Series("x", [1.0, None, payload_nan(9)])
    got = with_nan.nanstats.max(nan_policy="propagate")  # a real NaN wins over missing
    assert bits(got) == bits(payload_nan(9))
    with pytest.raises(na.NaNError, match="column 'x' holds 1 NaN value.*index 2"):
        with_nan.nanstats.max(nan_policy="raise")
    assert pl.Series("x", [None, None], dtype=pl.Float64).nanstats.median(
        nan_policy="omit") is None
    assert pl.Series("x", [None], dtype=pl.Float64).nanstats.sum(nan_policy="omit") == 0.0


def test_payloads_signs_and_signaling_nans():
    snan = np.array([0x7FF0000000000001], dtype=np.uint64).view(np.float64)[0]
    s = pl.Series("x", np.array([1.0, snan, payload_nan(3, negative=True)]))
    with pytest.raises(na.SignalingNaNError):
        s.nanstats.max(nan_policy="omit")
    top = s.nanstats.max(nan_policy="totalorder")  # +sNaN is above every number
    assert bits(top) == bits(snan)
    low = s.nanstats.min(nan_policy="totalorder")  # -qNaN below everything
    assert bits(low) == bits(payload_nan(3, negative=True))


def test_dtypes_are_kept():
    ints = pl.Series("i", [5, None, 2, 9], dtype=pl.Int32)
    assert ints.nanstats.min(nan_policy="omit") == 2
    assert ints.nanstats.min(nan_policy="omit").dtype == np.int32
    assert ints.nanstats.median(nan_policy="omit") == 5.0
    assert pl.Series("i", [None], dtype=pl.Int64).nanstats.max(nan_policy="omit") is None
    f32 = pl.Series("f", np.array([1.5, np.nan, 2.5], dtype=np.float32))
    assert f32.nanstats.max(nan_policy="omit").dtype == np.float32
    big = pl.Series("b", [2**62, -(2**62), 3], dtype=pl.Int64)
    assert big.nanstats.sum() == 3 and big.nanstats.sum().dtype == np.int64  # exact
    dec = pl.Series("d", [Decimal("1.10"), None, Decimal("2.20")], dtype=pl.Decimal(10, 2))
    assert dec.nanstats.median(nan_policy="omit") == Decimal("1.65")
    times = pl.Series("t", [datetime(2024, 1, 1), None, datetime(2024, 1, 3)],
                      dtype=pl.Datetime("us", "Europe/Berlin"))
    mid = times.nanstats.median(nan_policy="omit")
    assert mid == times.median()
    spans = pl.Series("s", [timedelta(seconds=1), timedelta(seconds=4)])
    assert spans.nanstats.max() == timedelta(seconds=4)
    with pytest.raises(TypeError, match="column 'w'"):
        pl.Series("w", ["a", "b"]).nanstats.median()


def test_quantile_list_and_polars_interpolation_keyword():
    s = pl.Series("x", [1.0, 2.0, 3.0, 4.0])
    got = s.nanstats.quantile([0.25, 0.5])
    assert isinstance(got, pl.Series) and got.to_list() == [1.75, 2.5]
    assert s.nanstats.quantile(0.5, interpolation="nearest") == s.quantile(0.5, "nearest")
    assert s.nanstats.quantile(0.5) == 2.5  # NumPy's "linear" default


def test_dataframe_one_row_and_lazy():
    df = pl.DataFrame({"x": [1.0, float("nan"), 3.0], "n": [4, None, 6],
                       "f": np.array([1.0, 2.0, 3.0], dtype=np.float32)})
    out = df.nanstats.max(nan_policy="omit")
    assert out.shape == (1, 3) and out.schema == {"x": pl.Float64, "n": pl.Int64,
                                                  "f": pl.Float32}
    assert out.row(0) == (3.0, 6, 3.0)
    q = df.nanstats.quantile([0.5, 1.0], nan_policy="omit")
    assert q.columns == ["quantile", "x", "n", "f"] and q["x"].to_list() == [2.0, 3.0]
    lazy = df.lazy().nanstats.median(nan_policy="omit")
    assert isinstance(lazy, pl.LazyFrame)
    assert lazy.collect().row(0) == (2.0, 5.0, 2.0)
    raising = df.lazy().nanstats.median()  # "raise": at collect, naming the column
    with pytest.raises(Exception, match="column 'n' holds 1 missing value"):
        raising.collect()
    with pytest.raises(TypeError, match="column 's'"):
        pl.DataFrame({"s": ["a"]}).nanstats.median()
    assert pl.DataFrame({"s": ["a"], "x": [1.0]}).nanstats.median(numeric_only=True).columns \
        == ["x"]


def test_group_by_equals_the_core_per_group():
    rng = np.random.default_rng(1)
    n = 400
    x = rng.normal(size=n)
    x[rng.random(n) < 0.1] = np.nan
    keys = rng.choice(["a", "b", "c", None], size=n)
    df = pl.DataFrame({"k": keys.tolist(), "x": x}).with_columns(
        pl.when(pl.int_range(pl.len()) % 17 == 0).then(None).otherwise(pl.col("x")).alias("x"))
    before = df.clone()
    for stat in ["median", "quantile", "mean", "max", "std"]:
        got = getattr(df.nanstats.group_by("k"), stat)(nan_policy="omit")
        # polars' own group order with maintain_order: first appearance
        order = df.group_by("k", maintain_order=True).agg(pl.len())["k"].to_list()
        assert got["k"].to_list() == order
        for key, value in zip(got["k"].to_list(), got["x"].to_list(), strict=True):
            part = df.filter(pl.col("k").is_null() if key is None else pl.col("k") == key)
            want = getattr(part["x"].nanstats, stat)(nan_policy="omit")
            assert value == want or (np.isnan(value) and np.isnan(want))
    assert df.equals(before)
    sorted_ = df.nanstats.group_by("k", maintain_order=False).max(nan_policy="omit")
    assert sorted_["k"].to_list() == ["a", "b", "c", None]


def test_group_by_errors_name_column_and_group():
    df = pl.DataFrame({"k": ["a", "b", "b"], "x": [1.0, 2.0, float("nan")]})
    with pytest.raises(na.NaNError, match="column 'x'.*group.*b"):
        df.nanstats.group_by("k").median()
    two = pl.DataFrame({"k": [1, 1, 2], "j": ["u", "v", "u"], "x": [1.0, 2.0, 3.0]})
    out = two.nanstats.group_by("k", "j").sum()
    assert out.rows() == [(1, "u", 1.0), (1, "v", 2.0), (2, "u", 3.0)]
    ints = pl.DataFrame({"k": [1, 1, 2], "v": pl.Series([3, None, None], dtype=pl.Int16)})
    out = ints.nanstats.group_by("k").max(nan_policy="omit")
    assert out.schema["v"] == pl.Int16 and out["v"].to_list() == [3, None]


def test_expressions_in_select_and_agg():
    df = pl.DataFrame({"k": ["a", "a", "b", "b"], "x": [1.0, float("nan"), 3.0, 5.0]})
    got = df.group_by("k", maintain_order=True).agg(
        pl.col("x").nanstats.median(nan_policy="omit").alias("m"),
        pl.col("x").nanstats.max(nan_policy="largest").alias("top"))
    assert got["m"].to_list() == [1.0, 4.0]
    assert np.isnan(got["top"][0]) and got["top"][1] == 5.0
    sel = df.lazy().select(pl.col("x").nanstats.quantile(0.5, nan_policy="omit")).collect()
    assert sel["x"].to_list() == [3.0]
    rolled = df.with_columns(r=pl.col("x").nanstats.rolling_median(2, nan_policy="omit",
                                                                     min_samples=1))
    assert rolled["r"].to_list() == [1.0, 1.0, 3.0, 4.0]


@pytest.mark.parametrize("window", [1, 3, 10])
def test_rolling_matches_pandas_on_nan_free_data_and_the_core_with_nan(window):
    rng = np.random.default_rng(window)
    x = rng.normal(size=60)
    s = pl.Series("x", x)
    for stat in ["median", "mean", "max", "std"]:
        got = s.nanstats.rolling(stat, window).to_numpy()
        want = getattr(pd.Series(x).rolling(window), stat)().to_numpy()
        np.testing.assert_allclose(got, want, rtol=1e-12, equal_nan=True)
    x[[5, 6, 30]] = np.nan
    s = pl.Series("x", x).scatter([40], None)
    got = s.nanstats.rolling_median(window, min_samples=1, nan_policy="omit").to_list()
    values = s.to_list()
    for i, value in enumerate(got):
        part = [v for v in values[max(0, i - window + 1): i + 1]
                if v is not None and not np.isnan(v)]
        assert (value is None) if not part else value == float(np.median(part))
    assert pl.Series("x", [1.0, 2.0]).nanstats.rolling_quantile(0.5, 2).to_list() == [None, 1.5]
    with pytest.raises(na.NaNError, match="column 'x'"):
        s.nanstats.rolling_median(window)


@given(st.lists(st.one_of(st.floats(allow_nan=True, width=64), st.none()), min_size=1,
                max_size=30), st.randoms(use_true_random=False))
def test_permutation_invariance_bit_for_bit(values, random):
    s = pl.Series("x", values, dtype=pl.Float64)
    shuffled = list(values)
    random.shuffle(shuffled)
    t = pl.Series("x", shuffled, dtype=pl.Float64)
    for stat in ("median", "max", "mean"):
        for policy in ("propagate", "omit", "totalorder"):
            a = getattr(s.nanstats, stat)(nan_policy=policy)
            b = getattr(t.nanstats, stat)(nan_policy=policy)
            assert (a is None and b is None) or bits(np.float64(a)) == bits(np.float64(b))


def test_polars_median_bug_is_answered_by_every_policy():
    # polars#28368: the median of [1, 2, nan, nan, nan, 6, 7] is 7.0 (NaN ranked largest)
    s = pl.Series("x", [1.0, 2.0, np.nan, np.nan, np.nan, 6.0, 7.0])
    with pytest.raises(na.NaNError):
        s.nanstats.median()
    assert s.nanstats.median(nan_policy="omit") == 4.0
    assert s.nanstats.median(nan_policy="smallest") == 1.0
    assert s.nanstats.median(nan_policy="largest") == 7.0  # polars' answer, now by choice
    assert np.isnan(s.nanstats.median(nan_policy="propagate"))


@pytest.mark.parametrize("order", ["nanaccess first", "polars first"])
def test_namespaces_are_registered_whichever_is_imported_first(order):
    import subprocess
    import sys

    first, second = ("nanaccess", "polars") if order == "nanaccess first" else \
        ("polars", "nanaccess")
    code = (f"import sys, {first}; loaded = 'polars' in sys.modules; import {second}; "
            "import polars as pl; "
            "print(loaded, pl.Series([1.0, float('nan')]).nanstats.max(nan_policy='omit'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == (["False", "1.0"] if order == "nanaccess first" else ["True", "1.0"])


def test_describe_and_nan_report():
    df = pl.DataFrame({"x": [1.0, float("nan"), 3.0, None], "n": [1, 2, None, 4],
                       "s": ["a", "b", "c", "d"]})
    d = df.nanstats.describe()
    assert d.columns == ["statistic", "x", "n"]
    rows = dict(zip(d["statistic"].to_list(), d["x"].to_list(), strict=True))
    assert (rows["count"], rows["nan"], rows["missing"], rows["50%"]) == (2.0, 1.0, 1.0, 2.0)
    strict = df.nanstats.describe(nan_policy="propagate")
    assert np.isnan(strict["x"][4])  # the std row propagates the NaN
    with pytest.raises(na.NaNError, match="column 'x'"):
        df.nanstats.describe(nan_policy="raise")
    rep = df.nanstats.nan_report()
    assert rep.select("column", "nan", "missing").rows() == [("x", 1, 1), ("n", 0, 1)]
