"""Host conventions (issue 15, section 2): the keywords pandas and xarray users type.

Each convention is checked against pandas' / xarray's / NumPy's own result.
"""

from __future__ import annotations

import inspect

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import nanaccess as na
from nanaccess import _stats
from nanaccess.core.interp import METHODS, PICK_METHODS

S = pd.Series([4.0, np.nan, 1.0, 3.0, 10.0], index=list("abcde"), name="x")
DF = pd.DataFrame({"a": [4.0, np.nan, 1.0, 3.0], "b": [2.0, 5.0, 1.0, 3.0]})
DA = xr.DataArray([[4.0, np.nan, 1.0], [2.0, 5.0, 3.0]], dims=("x", "t"), name="v")
POLICY_STATS = [n for n in _stats.STATISTICS if _stats.get(n).family != "count"]
PANDAS_STATS = ["median", "mean", "sum", "min", "max", "var", "std"]


def _hosts():
    g = pd.DataFrame({"g": list("aabbb"), "x": [4.0, np.nan, 1.0, 3.0, 10.0]})
    gda = xr.DataArray([4.0, np.nan, 1.0, 3.0, 10.0], dims="t",
                       coords={"g": ("t", list("aabbb"))})
    return {
        "series": S.nanstats,
        "frame": DF.nanstats,
        "groupby": g.groupby("g").nanstats,
        "dataarray": DA.nanstats,
        "dataset": DA.to_dataset().nanstats,
        "xgroupby": gda.nanstats.groupby("g"),
    }


# ----------------------------------------------------------------------- skipna


@pytest.mark.parametrize("host", list(_hosts()))
def test_every_policy_statistic_takes_skipna(host):
    acc = _hosts()[host]
    for name in POLICY_STATS:
        method = getattr(acc, name, None)
        if method is None:
            continue
        assert "skipna" in inspect.signature(method).parameters, (host, name)
        assert "skipna : bool, optional" in method.__doc__, (host, name)


@pytest.mark.parametrize("host", list(_hosts()))
@pytest.mark.parametrize("name", ["median", "mean", "max", "quantile"])
@pytest.mark.parametrize(("skipna", "policy"), [(True, "omit"), (False, "propagate")])
def test_skipna_is_the_policy(host, name, skipna, policy):
    acc = _hosts()[host]
    args = (0.5,) if name == "quantile" else ()
    a = getattr(acc, name)(*args, skipna=skipna)
    b = getattr(acc, name)(*args, nan_policy=policy)
    if isinstance(a, xr.DataArray | xr.Dataset):
        xr.testing.assert_identical(a, b)
    elif isinstance(a, pd.Series):
        pd.testing.assert_series_equal(a, b)
    elif isinstance(a, pd.DataFrame):
        pd.testing.assert_frame_equal(a, b)
    else:
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", PANDAS_STATS)
@pytest.mark.parametrize("skipna", [True, False])
def test_skipna_matches_pandas(name, skipna):
    got = getattr(S.nanstats, name)(skipna=skipna)
    want = getattr(S, name)(skipna=skipna)
    np.testing.assert_array_equal(got, want)
    pd.testing.assert_series_equal(getattr(DF.nanstats, name)(skipna=skipna),
                                   getattr(DF, name)(skipna=skipna))


@pytest.mark.parametrize("name", PANDAS_STATS)
@pytest.mark.parametrize("skipna", [True, False])
def test_skipna_matches_xarray(name, skipna):
    kw = {"ddof": 0} if name in ("var", "std") else {}
    got = getattr(DA.nanstats, name)("t", skipna=skipna, **kw)
    want = getattr(DA, name)("t", skipna=skipna, **kw)
    xr.testing.assert_identical(got, want)


@pytest.mark.parametrize("host", list(_hosts()))
def test_skipna_disagreeing_with_nan_policy_raises(host):
    acc = _hosts()[host]
    with pytest.raises(ValueError, match="skipna=True.*nan_policy='raise'"):
        acc.median(skipna=True, nan_policy="raise")
    with pytest.raises(ValueError, match="skipna=False.*nan_policy='omit'"):
        acc.mean(skipna=False, nan_policy="omit")
    # agreeing: fine
    acc.median(skipna=True, nan_policy="omit")


def test_skipna_on_agg():
    df = pd.DataFrame({"g": list("aabbb"), "x": [4.0, np.nan, 1.0, 3.0, 10.0]})
    got = df.groupby("g").agg(na.agg.median(skipna=True))
    want = df.groupby("g").median()
    pd.testing.assert_frame_equal(got, want)


def test_skipna_rejects_non_bool():
    with pytest.raises(TypeError, match="skipna"):
        S.nanstats.median(skipna="yes")


# -------------------------------------------------------------------- axis=None


@pytest.mark.parametrize("name", ["median", "mean", "sum", "min", "max", "var", "std"])
def test_frame_axis_none_reduces_every_value(name):
    df = pd.DataFrame({"a": [1.0, np.nan, 3.0], "b": [4, 5, 6]})
    got = getattr(df.nanstats, name)(axis=None, nan_policy="omit")
    want = getattr(df, name)(axis=None)
    assert np.ndim(got) == 0
    assert float(got) == pytest.approx(float(want), rel=1e-15)


@pytest.mark.parametrize("name", ["quantile", "count", "argmin"])
def test_frame_axis_none_refused_where_pandas_refuses(name):
    with pytest.raises(ValueError, match="No axis named None"):
        getattr(DF, name if name != "argmin" else "idxmin")(axis=None)
    with pytest.raises(ValueError, match="No axis named None"):
        getattr(DF.nanstats, name)(axis=None)


def test_frame_axis_none_error_names_column_and_row():
    df = pd.DataFrame({"a": [1.0, 2.0], "b": [3.0, np.nan]}, index=["r0", "r1"])
    with pytest.raises(na.NaNError, match="column 'b'.*index 'r1'"):
        df.nanstats.median(axis=None)
    assert df.nanstats.median(axis=None, nan_policy="propagate") != 0  # NaN


def test_frame_axis_none_nullable_empty_is_na():
    df = pd.DataFrame({"a": pd.array([None, None], dtype="Float64")})
    assert df.nanstats.median(axis=None, nan_policy="omit") is pd.NA


# ----------------------------------------------------------- quantile methods


@pytest.mark.parametrize("method", METHODS)
def test_quantile_methods_equal_numpy(method):
    npm = {"inclusive": "linear", "exclusive": "weibull"}.get(method, method)
    rng = np.random.default_rng(11)
    qs = np.unique(np.concatenate([np.linspace(0, 1, 41), rng.random(40),
                                   [1 / 3, 2 / 3, 0.1, 0.9]]))
    for n in range(1, 40):
        x = rng.standard_normal(n)
        np.testing.assert_array_equal(na.quantile(x, qs, method=method),
                                      np.quantile(x, qs, method=npm), err_msg=f"n={n}")
        # ties and integer-valued data
        xi = rng.integers(0, 4, n).astype(np.float64)
        np.testing.assert_array_equal(na.quantile(xi, qs, method=method),
                                      np.quantile(xi, qs, method=npm), err_msg=f"n={n}")


def test_all_thirteen_numpy_methods():
    numpy_methods = {"inverted_cdf", "averaged_inverted_cdf", "closest_observation",
                     "interpolated_inverted_cdf", "hazen", "weibull", "linear",
                     "median_unbiased", "normal_unbiased", "lower", "higher", "midpoint",
                     "nearest"}
    assert numpy_methods <= set(METHODS)
    for m in numpy_methods:
        assert f'"{m}"' in _stats.get("quantile").params[1].type


@pytest.mark.parametrize("method", ["inverted_cdf", "closest_observation"])
def test_picking_methods_keep_bits(method):
    payloads = np.array([0x7FF8000000000123, 0x7FF0000000000007, 0xFFF8000000000055],
                        dtype=np.uint64)
    x = np.concatenate([payloads.view(np.float64), [1.0, -0.0, 2.0]])
    for q in np.linspace(0, 1, 13):
        got = np.asarray(na.quantile(x, q, method=method, nan_policy="totalorder"))
        keys = np.sort(na.totalorder_key(x))
        # the picked element, as stored: one of the input's bit patterns
        assert got.view(np.uint64) in x.view(np.uint64)
        assert na.totalorder_key(got) in keys


@pytest.mark.parametrize("method", ["inverted_cdf", "closest_observation"])
def test_picking_methods_keep_integer_dtype(method):
    x = np.array([1, 5, 2, 8], dtype=np.int64)
    got = na.quantile(x, 0.5, method=method)
    assert np.asarray(got).dtype == np.quantile(x, 0.5, method=method).dtype


def test_averaged_inverted_cdf_is_a_pick_off_the_steps():
    # numpy's weight 1 next to an infinity gives nan; it is the next element
    x = np.array([1.0, np.inf, np.inf])
    assert na.quantile(x, 0.5, method="averaged_inverted_cdf") == np.inf
    assert set(PICK_METHODS) == {"lower", "higher", "nearest", "inverted_cdf",
                                 "closest_observation"}


@pytest.mark.parametrize("method", ["lower", "inverted_cdf", "hazen", "midpoint"])
def test_interpolation_alias_matches_pandas(method):
    if method in ("lower", "midpoint"):
        want = S.quantile([0.1, 0.5, 0.8], interpolation=method)
        got = S.nanstats.quantile([0.1, 0.5, 0.8], interpolation=method, skipna=True)
        pd.testing.assert_series_equal(got, want)
        pd.testing.assert_series_equal(
            DF.nanstats.quantile(0.3, interpolation=method, skipna=True),
            DF.quantile(0.3, interpolation=method))
    got = S.nanstats.quantile(0.3, interpolation=method, skipna=True)
    assert got == S.nanstats.quantile(0.3, method=method, skipna=True)
    xr.testing.assert_identical(DA.nanstats.quantile(0.3, "t", interpolation=method,
                                                     skipna=True),
                                DA.nanstats.quantile(0.3, "t", method=method, skipna=True))


def test_interpolation_and_method_disagreeing_raise():
    for acc in _hosts().values():
        with pytest.raises(ValueError, match="interpolation='lower' and method='higher'"):
            acc.quantile(0.5, method="higher", interpolation="lower", skipna=True)


def test_xarray_quantile_methods_match_xarray():
    for m in ("inverted_cdf", "closest_observation", "averaged_inverted_cdf",
              "interpolated_inverted_cdf"):
        got = DA.nanstats.quantile([0.2, 0.5], "t", method=m, skipna=True)
        want = DA.quantile([0.2, 0.5], "t", method=m, skipna=True)
        xr.testing.assert_allclose(got, want)


# -------------------------------------------------------------------- min_count


@pytest.mark.parametrize("min_count", [0, 1, 2, 3, 4, 5])
@pytest.mark.parametrize("dtype", ["float64", "Float64", "Int64", "int64"])
def test_sum_min_count_matches_pandas(min_count, dtype):
    data = [1.0, None, 3.0, 4.0] if dtype != "int64" else [1, 2, 3]
    s = pd.Series(data, dtype=dtype)
    got = s.nanstats.sum(min_count=min_count, skipna=True)
    want = s.sum(min_count=min_count)
    if want is pd.NA:
        assert got is pd.NA
    else:
        np.testing.assert_array_equal(got, want)
    df = pd.DataFrame({"a": s, "b": s.iloc[::-1].reset_index(drop=True)})
    pd.testing.assert_series_equal(df.nanstats.sum(min_count=min_count, skipna=True),
                                   df.sum(min_count=min_count))
    pd.testing.assert_series_equal(df.nanstats.sum(axis=1, min_count=min_count, skipna=True),
                                   df.sum(axis=1, min_count=min_count))


@pytest.mark.parametrize("min_count", [0, 1, 2, 3])
def test_grouped_sum_min_count_matches_pandas(min_count):
    df = pd.DataFrame({"g": list("aabbbc"), "x": [1.0, np.nan, 2.0, 3.0, np.nan, np.nan]})
    got = df.groupby("g").nanstats.sum(min_count=min_count, skipna=True)
    pd.testing.assert_frame_equal(got, df.groupby("g").sum(min_count=min_count))


@pytest.mark.parametrize("min_count", [0, 1, 2])
def test_xarray_sum_min_count_matches_xarray(min_count):
    got = DA.nanstats.sum("t", min_count=min_count, skipna=True)
    xr.testing.assert_identical(got, DA.sum("t", min_count=min_count, skipna=True))
    ds = DA.to_dataset()
    xr.testing.assert_identical(ds.nanstats.sum("x", min_count=min_count, skipna=True),
                                ds.sum("x", min_count=min_count, skipna=True))


# ------------------------------------------------------------------------- rank


RANK_DATA = [
    pd.Series([3.0, np.nan, 1.0, 1.0, np.nan, 2.0, -np.inf]),
    pd.Series([1, None, 2, 2], dtype="Int64"),
    pd.Series([np.nan, np.nan]),
    pd.Series([2.0, 1.0]),
]


@pytest.mark.parametrize("s", RANK_DATA, ids=range(len(RANK_DATA)))
@pytest.mark.parametrize("method", ["average", "min", "max", "first", "dense"])
@pytest.mark.parametrize("na_option", ["keep", "top", "bottom"])
@pytest.mark.parametrize("ascending", [True, False])
@pytest.mark.parametrize("pct", [True, False])
def test_rank_na_option_matches_pandas(s, method, na_option, ascending, pct):
    got = s.nanstats.rank(method, na_option=na_option, ascending=ascending, pct=pct)
    want = s.rank(method=method, na_option=na_option, ascending=ascending, pct=pct)
    np.testing.assert_allclose(got.to_numpy(float), want.to_numpy(float, na_value=np.nan),
                               rtol=1e-15, equal_nan=True)


def test_frame_rank_matches_pandas():
    df = pd.DataFrame({"a": [2.0, np.nan, 1.0, 2.0], "b": [1, 3, 2, 0]})
    for axis in (0, 1):
        for opt in ("keep", "top", "bottom"):
            pd.testing.assert_frame_equal(df.nanstats.rank(axis=axis, na_option=opt),
                                          df.rank(axis=axis, na_option=opt))
    pd.testing.assert_frame_equal(df.nanstats.rank(pct=True, ascending=False,
                                                   nan_policy="omit"),
                                  df.rank(pct=True, ascending=False))


def test_rank_na_option_refuses_a_policy_and_signaling_nans():
    with pytest.raises(ValueError, match="na_option='top'.*nan_policy='largest'"):
        S.nanstats.rank(na_option="top", nan_policy="largest")
    with pytest.raises(ValueError, match="na_option must be one of"):
        S.nanstats.rank(na_option="first")
    snan = pd.Series([1.0, na.make_nan(1, signaling=True)], name="x")
    with pytest.raises(na.SignalingNaNError, match="'x'"):
        snan.nanstats.rank(na_option="keep")


def test_rank_default_is_omit_not_the_global_option():
    s = pd.Series([1.0, np.nan, na.make_nan(negative=True), 0.0])
    with na.set_options(nan_policy="raise"):
        r = s.nanstats.rank()
        srt = s.nanstats.sort_values()
    # a NaN ranks NaN (pandas' na_option="keep"), whatever its sign
    np.testing.assert_array_equal(r.to_numpy(), [2.0, np.nan, np.nan, 1.0])
    pd.testing.assert_series_equal(r, s.rank())
    # sorts: every NaN last ("largest"), -NaN before +NaN
    assert srt.index.tolist() == [3, 0, 2, 1]
    assert s.nanstats.rank(nan_policy="totalorder").tolist() == [3.0, 4.0, 1.0, 2.0]


# --------------------------------------------------------------------- describe


def test_describe_does_not_raise_by_default_and_counts_every_kind():
    df = pd.DataFrame({"a": [1.0, np.nan, 3.0, None], "b": pd.array([1, None, 3, 4],
                                                                   dtype="Int64")})
    with na.set_options(nan_policy="raise"):
        d = df.nanstats.describe()
        sd = df["a"].nanstats.describe()
        xd = xr.DataArray(df["a"].to_numpy(), dims="t", name="a").nanstats.describe()
    assert d.loc[["count", "nan", "missing"], "b"].tolist() == [3.0, 0.0, 1.0]
    assert d.loc["nan", "a"] == 2.0
    want = df.describe()
    pd.testing.assert_frame_equal(d.loc[want.index], want, check_dtype=False, rtol=1e-12)
    pd.testing.assert_series_equal(sd, d["a"], check_names=False)
    np.testing.assert_allclose(xd.values, sd.to_numpy(), equal_nan=True)
    with pytest.raises(na.NaNError, match="column 'a'"):
        df.nanstats.describe(nan_policy="raise")
    assert np.isnan(df.nanstats.describe(nan_policy="propagate").loc["mean", "a"])


@pytest.mark.parametrize("include", [None, "all", ["number"], [np.float64], ["object"]])
def test_describe_include_selects_columns_as_pandas(include):
    df = pd.DataFrame({"a": [1.0, np.nan, 3.0], "i": [1, 2, 3], "s": list("xyz")})
    got = df.nanstats.describe(include=include)
    want = df.describe(include=include)
    assert list(got.columns) == list(want.columns)
    assert got.loc["count"].tolist() == want.loc["count"].astype(float).tolist()
    num = [c for c in want.columns if c != "s"]
    if not num:
        return
    pd.testing.assert_frame_equal(got.loc[["mean", "std", "min", "50%", "max"], num],
                                  want.loc[["mean", "std", "min", "50%", "max"], num]
                                  .astype(float))


def test_describe_exclude_and_percentiles_as_pandas():
    df = pd.DataFrame({"a": [1.0, np.nan, 3.0, 7.0], "i": [1, 2, 3, 4]})
    got = df.nanstats.describe(percentiles=[0.1, 0.9], exclude=["int64"])
    want = df.describe(percentiles=[0.1, 0.9], exclude=["int64"])
    pd.testing.assert_frame_equal(got.loc[want.index], want)


def test_agg_is_listed_by_dir_and_completion():
    assert "agg" in dir(na)
    assert set(na.__all__) <= set(dir(na))
    assert na.agg.median(nan_policy="omit").__name__ == "median"


# -------------------------------------------------- grouped hosts against the hosts


GDF = pd.DataFrame({"g": list("aabbbcc"), "x": [4.0, np.nan, 1.0, 3.0, 10.0, np.nan, np.nan]})
GDA = xr.DataArray(GDF["x"].to_numpy(), dims="t", coords={"g": ("t", GDF["g"].to_numpy())},
                   name="x")


@pytest.mark.parametrize("name", ["median", "mean", "sum", "min", "max", "var", "std"])
@pytest.mark.parametrize("skipna", [True, False])
def test_grouped_skipna_matches_pandas(name, skipna):
    gb = GDF.groupby("g")
    try:
        want = getattr(gb, name)(skipna=skipna)
    except TypeError:  # pragma: no cover - a pandas without skipna on this method
        pytest.skip(f"pandas' GroupBy.{name} takes no skipna")
    pd.testing.assert_frame_equal(getattr(gb.nanstats, name)(skipna=skipna), want)


@pytest.mark.parametrize("method", ["lower", "higher", "nearest", "midpoint", "linear"])
def test_grouped_quantile_interpolation_matches_pandas(method):
    gb = GDF.groupby("g")
    pd.testing.assert_frame_equal(gb.nanstats.quantile(0.3, interpolation=method, skipna=True),
                                  gb.quantile(0.3, interpolation=method))


@pytest.mark.parametrize("min_count", [0, 1, 2, 3])
def test_xarray_grouped_sum_min_count_matches_xarray(min_count):
    got = GDA.nanstats.groupby("g").sum(min_count=min_count, skipna=True)
    want = GDA.groupby("g").sum(min_count=min_count, skipna=True)
    xr.testing.assert_allclose(got, want)
    got = GDA.groupby("g").nanstats.sum(min_count=min_count, skipna=True)
    xr.testing.assert_allclose(got, want)


@pytest.mark.parametrize("name", ["median", "mean", "max", "std"])
@pytest.mark.parametrize("skipna", [True, False])
def test_xarray_grouped_skipna_matches_xarray(name, skipna):
    got = getattr(GDA.nanstats.groupby("g"), name)(skipna=skipna)
    want = getattr(GDA.groupby("g"), name)(skipna=skipna)
    xr.testing.assert_allclose(got, want)
