"""GroupBy .nanstats against pandas' own groupby aggregations (index included)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

import nanaccess as na
from nanaccess import NaNError, make_nan


def frame(n=60, seed=0, nan_frac=0.15):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n)
    x[rng.random(n) < nan_frac] = np.nan
    y = rng.integers(-20, 20, n)
    key = rng.choice(["a", "b", "c", "d"], n)
    key2 = rng.integers(0, 3, n).astype(float)
    key2[rng.random(n) < 0.1] = np.nan
    cat = pd.Categorical(rng.choice(["lo", "mid"], n), categories=["lo", "mid", "hi"])
    return pd.DataFrame({"k": key, "k2": key2, "cat": cat, "x": x, "y": y})


GROUPINGS = [
    dict(by="k"),
    dict(by="k", sort=False),
    dict(by=["k", "k2"]),
    dict(by=["k", "k2"], dropna=False),
    dict(by="k2", dropna=False, sort=False),
    dict(by="cat", observed=True),
    dict(by="cat", observed=False),
    dict(by=["cat", "k"], observed=False),
]


def _gb(df, spec):
    spec = dict(spec)
    by = spec.pop("by")
    return df.groupby(by, **spec)


def _values(df, spec):
    by = spec["by"]
    by = [by] if isinstance(by, str) else by
    return df.drop(columns=[c for c in ("k", "k2", "cat") if c not in by])


@pytest.mark.parametrize("spec", GROUPINGS, ids=str)
@pytest.mark.parametrize("stat", ["median", "min", "max", "mean", "sum", "var", "std",
                                  "count"])
def test_omit_equals_pandas(spec, stat):
    df = _values(frame(), spec)
    gb = _gb(df, spec)
    kw = {} if stat == "count" else {"nan_policy": "omit"}
    got = getattr(gb.nanstats, stat)(**kw)
    want = getattr(gb, stat)()
    pd.testing.assert_frame_equal(got, want, check_dtype=False, rtol=1e-12)


@pytest.mark.parametrize("spec", GROUPINGS, ids=str)
def test_quantile_equals_pandas(spec):
    df = _values(frame(), spec)
    gb = _gb(df, spec)
    pd.testing.assert_frame_equal(gb.nanstats.quantile(0.9, nan_policy="omit"),
                                  gb.quantile(0.9), check_dtype=False)
    pd.testing.assert_frame_equal(gb.nanstats.quantile([0.1, 0.5], nan_policy="omit"),
                                  gb.quantile([0.1, 0.5]), check_dtype=False)
    for method in ("lower", "higher", "nearest", "midpoint"):
        # float column only: pandas returns INT64_MIN for empty groups of int columns
        pd.testing.assert_frame_equal(
            gb[["x"]].nanstats.quantile(0.3, method=method, nan_policy="omit"),
            gb[["x"]].quantile(0.3, interpolation=method), check_dtype=False)


def test_series_groupby_and_column_selection():
    df = frame()
    got = df.groupby("k")["x"].nanstats.median(nan_policy="omit")
    pd.testing.assert_series_equal(got, df.groupby("k")["x"].median())
    got = df.groupby("k")[["y"]].nanstats.max(nan_policy="omit")
    pd.testing.assert_frame_equal(got, df.groupby("k")[["y"]].max())
    s = df["x"]
    got = s.groupby(df["k"]).nanstats.quantile([0.25, 0.75], nan_policy="omit")
    pd.testing.assert_series_equal(got, s.groupby(df["k"]).quantile([0.25, 0.75]))


def test_accessor_groupby_equals_pandas_groupby_path():
    df = frame()[["k", "x", "y"]]
    a = df.nanstats.groupby("k").median(nan_policy="omit")
    b = df.groupby("k").nanstats.median(nan_policy="omit")
    pd.testing.assert_frame_equal(a, b)
    a = df.nanstats.groupby("k", as_index=False).median(nan_policy="omit")
    pd.testing.assert_frame_equal(a, df.groupby("k", as_index=False).median())


def test_propagate_equals_skipna_false():
    df = frame()[["k", "x", "y"]]
    gb = df.groupby("k")
    for stat in ("mean", "sum", "min", "max"):
        got = getattr(gb.nanstats, stat)(nan_policy="propagate")
        want = getattr(gb, stat)(skipna=False)
        pd.testing.assert_frame_equal(got, want, check_dtype=False, rtol=1e-12)


def test_nan_payload_kept_per_group():
    big, small = make_nan(77), make_nan(3)
    df = pd.DataFrame({"g": [1, 1, 2, 2, 2], "x": [small, 5.0, 1.0, big, small]})
    got = df.groupby("g").nanstats.median(nan_policy="propagate")["x"].to_numpy()
    assert list(got.view(np.uint64)) == [
        int(np.float64(small).view(np.uint64)), int(np.float64(big).view(np.uint64))]


def test_raise_names_column_group_count_label():
    df = pd.DataFrame({"g": ["a", "b", "b", "a", "b"], "x": [1.0, 2.0, np.nan, 4.0, np.nan]},
                      index=[10, 11, 12, 13, 14])
    with pytest.raises(NaNError) as info:
        df.groupby("g").nanstats.median()
    msg = str(info.value)
    assert "column 'x' in group 'b' holds 2 NaN values (first at index 12)" in msg
    assert info.value.group == "b"


def test_nullable_and_arrow_columns_in_groups():
    df = pd.DataFrame({
        "g": [0, 0, 1, 1, 2],
        "f": pd.array([1.0, None, 3.0, 5.0, None], dtype="Float64"),
        "i": pd.array([1, 2, None, 4, None], dtype="Int64"),
        "a": pd.Series(pa.array([1.0, float("nan"), None, 2.0, 3.0]),
                       dtype="double[pyarrow]").array,
    })
    got = df.groupby("g").nanstats.median(nan_policy="omit")
    want = df.groupby("g")[["f", "i"]].median()
    pd.testing.assert_frame_equal(got[["f", "i"]], want, check_dtype=False)
    assert got.loc[2, "f"] is pd.NA  # no value left: the host's missing value
    assert got.loc[0, "a"] == 1.0  # the Arrow NaN was omitted, not treated as null
    prop = df.groupby("g")["a"].nanstats.median(nan_policy="propagate")
    assert np.isnan(prop[0]) and prop[1] is pd.NA


def test_agg_callables():
    df = frame()[["k", "x", "y"]]
    got = df.groupby("k").agg(na.agg.median(nan_policy="omit"))
    pd.testing.assert_frame_equal(got, df.groupby("k").median(), check_dtype=False)
    got = df.groupby("k")["x"].agg([na.agg.median(nan_policy="omit"),
                                    na.agg.quantile(0.9, nan_policy="omit")])
    assert list(got.columns) == ["median", "q0.9"]
    np.testing.assert_allclose(got["q0.9"], df.groupby("k")["x"].quantile(0.9))
    with pytest.raises(NaNError, match="column 'x'"):
        df.groupby("k").agg(na.agg.median(nan_policy="raise"))
    with pytest.raises(ValueError, match="unknown nan_policy"):
        na.agg.mean(nan_policy="skip")


def test_non_numeric_column_type_error_or_skipped():
    df = pd.DataFrame({"g": [1, 1, 2], "x": [1.0, 2.0, 3.0], "s": ["a", "b", "c"]})
    with pytest.raises(TypeError, match="column 's'"):
        df.groupby("g").nanstats.median()
    pd.testing.assert_frame_equal(df.groupby("g").nanstats.median(numeric_only=True),
                                  df.groupby("g").median(numeric_only=True))


def test_many_groups_vectorised():
    rng = np.random.default_rng(4)
    n = 30_000
    df = pd.DataFrame({"k": rng.integers(0, 10_000, n), "x": rng.standard_normal(n)})
    for engine in ("numpy", None):
        got = df.groupby("k").nanstats.median(nan_policy="omit", engine=engine)
        pd.testing.assert_frame_equal(got, df.groupby("k").median())


@given(
    xs=st.lists(st.one_of(st.floats(-100, 100), st.just(float("nan"))), min_size=1,
                max_size=40),
    seed=st.integers(0, 2**32 - 1),
    stat=st.sampled_from(["median", "quantile", "mean", "max", "std"]),
)
def test_results_independent_of_row_order(xs, seed, stat):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"g": rng.integers(0, 3, len(xs)), "x": xs})
    shuffled = df.sample(frac=1.0, random_state=seed % 2**31)
    kw = {"q": [0.3, 0.9]} if stat == "quantile" else {}
    a = getattr(df.groupby("g").nanstats, stat)(nan_policy="omit", **kw)
    b = getattr(shuffled.groupby("g").nanstats, stat)(nan_policy="omit", **kw)
    pd.testing.assert_frame_equal(a, b)
    assert a["x"].to_numpy().tobytes() == b["x"].to_numpy().tobytes()
    if stat != "std":
        want = getattr(df.groupby("g"), stat)(*([kw["q"]] if kw else []))
        pd.testing.assert_frame_equal(a, want, check_dtype=False, rtol=1e-12)


# ---------------------------------------------------------------- iqr and mad (issue 11)


def _per_group(gb, fn):
    """pandas' own Python path: ``fn`` on each group's numbers (labels as pandas)."""
    return gb.agg(lambda s: fn(s.dropna().to_numpy(dtype=np.float64))
                  if s.notna().any() else np.nan)


@pytest.mark.parametrize("spec", GROUPINGS, ids=str)
def test_iqr_mad_equal_scipy_per_group_under_omit(spec):
    stats = pytest.importorskip("scipy.stats")
    df = _values(frame(), spec)
    gb = _gb(df, spec)
    pd.testing.assert_frame_equal(gb.nanstats.iqr(nan_policy="omit"),
                                  _per_group(gb, stats.iqr), check_dtype=False, rtol=1e-14)
    pd.testing.assert_frame_equal(
        gb.nanstats.iqr(rng=(5, 60), method="nearest", nan_policy="omit"),
        _per_group(gb, lambda v: stats.iqr(v, rng=(5, 60), interpolation="nearest")),
        check_dtype=False, rtol=1e-14)
    pd.testing.assert_frame_equal(
        gb.nanstats.mad(scale="normal", nan_policy="omit"),
        _per_group(gb, lambda v: stats.median_abs_deviation(v, scale="normal")),
        check_dtype=False, rtol=1e-14)


def test_iqr_mad_through_agg_and_series_groupby():
    stats = pytest.importorskip("scipy.stats")
    df = frame()
    got = df.groupby("k")[["x"]].agg(na.agg.iqr(nan_policy="omit"))
    want = df.groupby("k")[["x"]].nanstats.iqr(nan_policy="omit")
    pd.testing.assert_frame_equal(got, want)
    s = df.groupby("k")["x"].nanstats.mad(nan_policy="omit")
    assert s.name == "x" and list(s.index) == sorted(df["k"].unique())
    for key, v in df.groupby("k")["x"]:
        assert s[key] == pytest.approx(stats.median_abs_deviation(v, nan_policy="omit"))
    with pytest.raises(NaNError, match="column 'x' in group"):
        df.groupby("k")[["x", "y"]].nanstats.iqr()
    assert df.groupby("k")["x"].nanstats.mad(nan_policy="propagate").isna().all()


# -------------------------------------- issue 15: describe, nan_report and agg


def _gdf():
    return pd.DataFrame({"g": list("aabbbcd"), "x": [1.0, np.nan, 3.0, 4.0, 8.0, np.nan, 2.0],
                         "y": [1, 2, 3, 4, 5, 6, 7]})


def test_groupby_describe_matches_pandas_rows_and_adds_the_nan_counts():
    df = _gdf()
    gb = df.groupby("g")
    got, want = gb.nanstats.describe(), gb.describe()
    assert got.columns.get_level_values(0).unique().tolist() == ["x", "y"]
    for c in ("x", "y"):
        for row in want[c].columns:
            np.testing.assert_allclose(got[(c, row)], want[(c, row)], rtol=1e-12,
                                       equal_nan=True, err_msg=f"{c} {row}")
    assert got[("x", "nan")].tolist() == [1.0, 0.0, 1.0, 0.0]
    # a SeriesGroupBy: flat columns, as pandas
    assert list(gb["x"].nanstats.describe(percentiles=[0.5]).columns) == [
        "count", "nan", "missing", "mean", "std", "min", "50%", "max"]
    with pytest.raises(na.NaNError, match="column 'x'.*group 'a'"):
        gb.nanstats.describe(nan_policy="raise")


def test_groupby_nan_report_equals_the_report_of_each_group():
    df = _gdf()
    df.loc[6, "x"] = na.make_nan(7, negative=True)
    got = df.groupby("g").nanstats.nan_report()
    for g, part in df.groupby("g"):
        want = part[["x", "y"]].nanstats.nan_report()
        for c in ("x", "y"):
            assert got.loc[g, c].to_dict() == want.loc[c].to_dict(), (g, c)


def test_groupby_agg_by_names_matches_pandas():
    df = _gdf()
    gb = df.groupby("g")
    pd.testing.assert_frame_equal(gb.nanstats.agg(["median", "max"], skipna=True),
                                  gb.agg(["median", "max"]))
    spec = {"x": ["min", "mean"], "y": "sum"}
    pd.testing.assert_frame_equal(gb.nanstats.agg(spec, skipna=True).astype(float),
                                  gb.agg(spec).astype(float))
    pd.testing.assert_series_equal(gb["x"].nanstats.agg("median", skipna=True),
                                   gb["x"].median())
    with pytest.raises(TypeError, match="nan_polcy"):
        gb.nanstats.agg("median", nan_polcy="omit")
    with pytest.raises(ValueError, match="names of statistics"):
        gb.nanstats.agg("nonsense")
