"""Series.nanstats / DataFrame.nanstats against pandas' own methods and the spec."""

from __future__ import annotations

from decimal import Decimal

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import nanaccess as na
from nanaccess import NaNError, make_nan
from nanaccess.pandas import DataFrameNanStats, SeriesNanStats


def u64(x) -> int:
    return int(np.asarray(x, dtype=np.float64).view(np.uint64))


def raw(obj) -> bytes:
    """Raw bytes of every column's data and mask (not ``equals``: NaN bits count)."""
    if isinstance(obj, pd.Series):
        obj = obj.to_frame()
    out = []
    for i in range(obj.shape[1]):
        arr = obj.iloc[:, i].array
        for attr in ("_data", "_mask", "_ndarray"):
            if isinstance(getattr(arr, attr, None), np.ndarray):
                out.append(getattr(arr, attr).tobytes())
        if isinstance(obj.iloc[:, i].dtype, pd.ArrowDtype):
            for chunk in arr.__arrow_array__().chunks:
                out.extend(b.to_pybytes() for b in chunk.buffers() if b is not None)
    return b"".join(out)


@pytest.fixture
def frame():
    rng = np.random.default_rng(0)
    n = 40
    x = rng.standard_normal(n)
    x[[3, 10, 17]] = np.nan
    ints = rng.integers(-5, 5, n)
    f32 = rng.standard_normal(n).astype(np.float32)
    f32[5] = np.nan
    nullable = pd.array(rng.standard_normal(n), dtype="Float64")
    nullable[[1, 2]] = pd.NA
    inull = pd.array(rng.integers(0, 9, n), dtype="Int64")
    inull[7] = pd.NA
    arrow = pd.Series(pa.array(list(rng.standard_normal(n - 1)) + [None]),
                      dtype="double[pyarrow]")
    return pd.DataFrame(
        {"x": x, "i": ints, "f32": f32, "nf": nullable, "ni": inull, "ar": arrow.array},
        index=pd.date_range("2024-01-01", periods=n, freq="D"),
    )


STATS = ["median", "min", "max", "mean", "sum", "var", "std"]


@pytest.mark.parametrize("stat", STATS)
def test_series_omit_equals_pandas(frame, stat):
    for name in frame.columns:
        s = frame[name]
        got = getattr(s.nanstats, stat)(nan_policy="omit")
        want = getattr(s, stat)()
        if stat in ("var", "std", "mean", "sum"):
            # nanaccess rounds exact sums once; pandas accumulates float32 in float32
            rel = 1e-6 if s.dtype == np.float32 else 1e-12
            assert got == pytest.approx(want, rel=rel), name
        else:
            assert got == pytest.approx(want, rel=1e-15, abs=0), name


@pytest.mark.parametrize("stat", STATS)
def test_dataframe_omit_equals_pandas(frame, stat):
    got = getattr(frame.nanstats, stat)(nan_policy="omit")
    want = getattr(frame, stat)()
    pd.testing.assert_series_equal(got, want, check_dtype=False, rtol=1e-6)
    pd.testing.assert_series_equal(got.drop("f32"), want.drop("f32"), check_dtype=False,
                                   rtol=1e-12)
    assert list(got.index) == list(frame.columns)


@pytest.mark.parametrize("stat", ["median", "mean", "sum", "min"])
def test_propagate_equals_skipna_false(frame, stat):
    num = frame[["x", "i", "f32"]]
    got = getattr(num.nanstats, stat)(nan_policy="propagate")
    want = getattr(num, stat)(skipna=False)
    pd.testing.assert_series_equal(got, want, check_dtype=False, rtol=1e-12)


def test_quantile_labels_like_pandas(frame):
    num = frame[["x", "i", "f32"]]
    got = num.nanstats.quantile([0.1, 0.5, 0.9], nan_policy="omit")
    want = num.quantile([0.1, 0.5, 0.9])
    pd.testing.assert_frame_equal(got, want, check_dtype=False)
    got = num.nanstats.quantile(0.3, nan_policy="omit")
    want = num.quantile(0.3)
    pd.testing.assert_series_equal(got, want, check_dtype=False)
    s = frame["x"].rename("temp")
    pd.testing.assert_series_equal(s.nanstats.quantile([0.25, 0.75], nan_policy="omit"),
                                   s.quantile([0.25, 0.75]))
    for method in ("lower", "higher", "nearest", "midpoint"):
        assert s.nanstats.quantile(0.37, method=method, nan_policy="omit") == s.quantile(
            0.37, interpolation=method)


def test_axis_1_equals_pandas(frame):
    num = frame[["x", "i", "f32"]]
    for stat in ("median", "mean", "max"):
        got = getattr(num.nanstats, stat)(axis=1, nan_policy="omit")
        want = getattr(num, stat)(axis=1)
        pd.testing.assert_series_equal(got, want, check_dtype=False, rtol=1e-6)
    got = num.nanstats.quantile([0.2, 0.8], axis=1, nan_policy="omit")
    want = num.quantile([0.2, 0.8], axis=1)
    pd.testing.assert_frame_equal(got, want, check_dtype=False, rtol=1e-6)


def test_nan_bits_are_kept_not_canonicalised():
    payload = make_nan(1234, negative=True)
    s = pd.Series([1.0, payload, 3.0])
    assert u64(s.nanstats.median(nan_policy="propagate")) == u64(payload)
    assert u64(s.nanstats.max(nan_policy="totalorder")) == u64(3.0)
    assert u64(s.nanstats.min(nan_policy="totalorder")) == u64(payload)
    df = pd.DataFrame({"a": s, "b": [1.0, 2.0, 3.0]})
    assert u64(df.nanstats.mean(nan_policy="propagate")["a"]) == u64(payload)
    # an arithmetic NaN is canonical; a float32 result stays float32
    assert u64(pd.Series([-np.inf, np.inf]).nanstats.mean(nan_policy="omit")) == \
        0x7FF8000000000000
    assert isinstance(pd.Series([1, 2], dtype=np.float32).nanstats.median(), np.float32)
    # omit over nothing left: the canonical NaN
    assert u64(pd.Series([payload]).nanstats.median(nan_policy="omit")) == 0x7FF8000000000000


def test_nullable_and_arrow_keep_nan_apart_from_missing():
    a = pd.Series(pa.array([1.0, None, float("nan"), 4.0]), dtype="double[pyarrow]")
    # pandas would skip both; nanaccess sees one NaN and one missing value
    rep = a.nanstats.nan_report()
    assert (rep["nan"], rep["missing"], rep["numbers"]) == (1, 1, 2)
    assert np.isnan(a.nanstats.median(nan_policy="propagate"))  # the NaN wins
    assert a.nanstats.median(nan_policy="omit") == 2.5
    b = pd.Series(pa.array([1.0, None, 4.0]), dtype="double[pyarrow]")
    assert b.nanstats.median(nan_policy="propagate") is pd.NA
    with pytest.raises(NaNError, match="missing"):
        b.nanstats.median()
    fl = pd.arrays.FloatingArray(np.array([1.0, np.nan, 5.0, 0.0]),
                                 np.array([False, False, False, True]))
    s = pd.Series(fl, name="f")
    assert s.nanstats.nan_report()["nan"] == 1
    assert s.nanstats.median(nan_policy="omit") == 3.0
    # smallest: [NaN, 1, 5, <missing>] -> the middle pair 1, 5
    assert s.nanstats.median(nan_policy="smallest") == 3.0
    # largest: [1, 5, NaN, <missing>] -> the middle pair 5, NaN gives the NaN
    assert np.isnan(s.nanstats.median(nan_policy="largest"))
    assert pd.Series([None, None], dtype="Float64").nanstats.median(nan_policy="omit") is pd.NA
    assert pd.Series([1, None, 4], dtype="Int64").nanstats.max(nan_policy="omit") == 4


def test_result_dtypes_follow_the_host():
    df = pd.DataFrame({"f": pd.array([1.0, 2.0, None], dtype="Float64"),
                       "i": pd.array([1, 2, 3], dtype="Int64")})
    med = df.nanstats.median(nan_policy="omit")
    assert str(med.dtype) == str(df.median().dtype)
    ar = pd.Series([1.0, 2.0, 4.0], dtype="double[pyarrow]")
    out = ar.to_frame("a").nanstats.quantile([0.5], nan_policy="omit")
    assert isinstance(out["a"].dtype, pd.ArrowDtype)


def test_datetime_and_timedelta_columns():
    s = pd.Series(pd.to_datetime(["2024-01-01", None, "2024-01-03", "2024-01-10"]))
    assert s.nanstats.median(nan_policy="omit") == s.median()
    assert s.nanstats.min(nan_policy="omit") == s.min()
    td = pd.Series(pd.to_timedelta(["1D", None, "3D"]))
    assert td.nanstats.mean(nan_policy="omit") == td.mean()
    tz = s.dt.tz_localize("Europe/Paris")
    assert tz.nanstats.max(nan_policy="omit") == tz.max()


def test_object_decimal_column_is_exact():
    s = pd.Series([Decimal("0.1"), Decimal("0.2"), None, Decimal("0.4")], dtype=object)
    assert s.nanstats.median(nan_policy="omit") == Decimal("0.2")
    assert s.nanstats.sum(nan_policy="omit") == Decimal("0.7")


def test_raise_names_column_count_and_label(frame):
    with pytest.raises(NaNError) as info:
        frame.nanstats.median()
    msg = str(info.value)
    assert "column 'x' holds 3 NaN values (first at index '2024-01-04')" in msg
    with pytest.raises(NaNError, match="column 'nf' holds 2 missing values"):
        frame[["i", "nf"]].nanstats.median()
    with pytest.raises(NaNError, match="Series holds 1 NaN value .first at index 'b'"):
        pd.Series([1.0, np.nan], index=["a", "b"]).nanstats.mean()


def test_non_numeric_and_numeric_only():
    df = pd.DataFrame({"a": [1.0, 2.0], "s": ["x", "y"], "c": pd.Categorical(["u", "v"])})
    with pytest.raises(TypeError, match="column 's'"):
        df.nanstats.median()
    pd.testing.assert_series_equal(df.nanstats.median(numeric_only=True),
                                   df.median(numeric_only=True))
    with pytest.raises(TypeError, match="column 'c'"):
        df[["a", "c"]].nanstats.max()
    with pytest.raises(ValueError, match="'raise', 'propagate', 'omit'"):
        df.nanstats.median(nan_policy="ignore", numeric_only=True)


def test_inputs_never_modified(frame):
    before = raw(frame)
    for stat in STATS:
        getattr(frame.nanstats, stat)(nan_policy="omit")
    frame.nanstats.quantile([0.1, 0.9], nan_policy="totalorder")
    frame.nanstats.describe(nan_policy="omit")
    frame["x"].nanstats.sort_values()
    frame["x"].nanstats.rank()
    frame.nanstats.groupby(frame["i"] > 0).median(nan_policy="omit")
    assert raw(frame) == before


def test_describe_matches_pandas_under_omit(frame):
    num = frame[["x", "i", "f32"]]
    got = num.nanstats.describe(nan_policy="omit")
    want = num.describe()
    pd.testing.assert_frame_equal(got.loc[want.index], want, check_dtype=False, rtol=1e-6)
    assert list(got.index[:3]) == ["count", "nan", "missing"]
    assert got.loc["nan", "x"] == 3
    with pytest.raises(NaNError):
        num.nanstats.describe(nan_policy="raise")
    # describe shows the NaNs: it does not raise by default (issue 15), even when the
    # process-wide default is "raise"
    with na.set_options(nan_policy="raise"):
        pd.testing.assert_frame_equal(num.nanstats.describe(), got)


def test_nan_report_per_column():
    df = pd.DataFrame({"a": [1.0, np.nan, -np.inf, make_nan(3, negative=True)],
                       "b": pd.array([1, None, 3, 4], dtype="Int64")})
    rep = df.nanstats.nan_report()
    assert list(rep.index) == ["a", "b"]
    assert rep.loc["a", "nan"] == 2 and rep.loc["a", "negative_nan"] == 1
    assert rep.loc["a", "neginf"] == 1 and rep.loc["b", "missing"] == 1
    assert rep.loc["a", "distinct_payloads"] == 2


def test_sort_values_and_rank():
    s = pd.Series([1.0, np.nan, -0.0, 0.0, -np.inf], index=list("abcde"))
    assert list(s.nanstats.sort_values().index) == ["e", "c", "d", "a", "b"]
    assert list(s.nanstats.sort_values(nan_policy="smallest").index) == list("becda")
    assert list(s.nanstats.sort_values(nan_policy="omit").index) == list("ecda")
    with pytest.raises(ValueError, match="propagate"):
        s.nanstats.sort_values(nan_policy="propagate")
    t = pd.Series([3.0, np.nan, 1.0, 3.0, -np.inf, 2.0])  # no signed zeros: pandas ties them
    for method in ("average", "min", "max", "first", "dense"):
        pd.testing.assert_series_equal(t.nanstats.rank(method, nan_policy="omit"),
                                       t.rank(method=method))
        pd.testing.assert_series_equal(
            t.nanstats.rank(method, ascending=False, nan_policy="omit"),
            t.rank(method=method, ascending=False))
    assert s.nanstats.rank()["c"] < s.nanstats.rank()["d"]  # -0.0 < +0.0 under totalorder
    m = pd.Series([3, None, 1], dtype="Int64")
    assert list(m.nanstats.sort_values().index) == [2, 0, 1]  # missing last
    assert np.isnan(m.nanstats.rank()[1])


def test_argmin_argmax_give_positions_idx_give_labels(frame):
    got = frame[["x", "i"]].nanstats.idxmin(nan_policy="omit")
    pd.testing.assert_series_equal(got, frame[["x", "i"]].idxmin())
    assert frame["x"].nanstats.idxmax(nan_policy="omit") == frame["x"].idxmax()
    assert frame["x"].nanstats.argmax(nan_policy="omit") == frame["x"].argmax()
    pos = frame[["x", "i"]].nanstats.argmin(nan_policy="omit")
    assert pos.dtype == np.int64
    assert pos.tolist() == [frame["x"].argmin(), frame["i"].argmin()]


def test_names_and_index_names_kept():
    idx = pd.Index(["p", "q", "r"], name="where")
    cols = pd.Index(["a", "b"], name="vars")
    df = pd.DataFrame([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], index=idx, columns=cols)
    pd.testing.assert_series_equal(df.nanstats.median(), df.median())
    pd.testing.assert_series_equal(df.nanstats.median(axis=1), df.median(axis=1))
    pd.testing.assert_frame_equal(df.nanstats.quantile([0.5]), df.quantile([0.5]))


def test_functional_api_dispatches_to_accessor():
    s = pd.Series([1.0, np.nan, 3.0])
    assert na.median(s, nan_policy="omit") == 2.0


def test_every_accessor_method_has_docstring_with_example():
    for cls in (SeriesNanStats, DataFrameNanStats):
        for name in dir(cls):
            if name.startswith("_"):
                continue
            doc = getattr(cls, name).__doc__ or ""
            assert "Examples" in doc, f"{cls.__name__}.{name}"


# ---------------------------------------------------------------- iqr and mad (issue 11)


def _numbers(s: pd.Series) -> np.ndarray:
    """The numbers of a column (NaN and missing dropped), as float64."""
    return s.dropna().to_numpy(dtype=np.float64)


@pytest.mark.parametrize("column", ["x", "i", "f32", "nf", "ni", "ar"])
def test_series_iqr_mad_equal_scipy_under_omit(frame, column):
    stats = pytest.importorskip("scipy.stats")
    s = frame[column]
    vals = s.to_numpy(dtype=np.float64, na_value=np.nan)
    rel = 1e-6 if s.dtype == np.float32 else 1e-14
    assert s.nanstats.iqr(nan_policy="omit") == pytest.approx(
        stats.iqr(vals, nan_policy="omit"), rel=rel)
    assert s.nanstats.iqr(rng=(10, 90), method="lower", nan_policy="omit") == pytest.approx(
        stats.iqr(vals, rng=(10, 90), interpolation="lower", nan_policy="omit"), rel=rel)
    assert s.nanstats.mad(nan_policy="omit") == pytest.approx(
        stats.median_abs_deviation(vals, nan_policy="omit"), rel=rel)
    assert s.nanstats.mad(scale="normal", nan_policy="omit") == pytest.approx(
        stats.median_abs_deviation(vals, scale="normal", nan_policy="omit"), rel=rel)


def test_dataframe_iqr_mad_labelled_as_pandas(frame):
    stats = pytest.importorskip("scipy.stats")
    got = frame.nanstats.iqr(nan_policy="omit")
    assert list(got.index) == list(frame.columns) and got.name is None
    want = [stats.iqr(_numbers(frame[c])) for c in frame.columns]
    np.testing.assert_allclose(got.to_numpy(dtype=np.float64), want, rtol=1e-6)
    got = frame.nanstats.mad(scale="normal", nan_policy="omit")
    want = [stats.median_abs_deviation(_numbers(frame[c]), scale="normal")
            for c in frame.columns]
    np.testing.assert_allclose(got.to_numpy(dtype=np.float64), want, rtol=1e-6)
    num = frame[["x", "i"]]
    rows = num.nanstats.iqr(axis=1, nan_policy="omit")
    pd.testing.assert_index_equal(rows.index, num.index)
    np.testing.assert_allclose(rows.to_numpy(), stats.iqr(num.to_numpy(), axis=1,
                                                          nan_policy="omit"), rtol=1e-14)


def test_iqr_mad_follow_every_policy():
    s = pd.Series([1.0, np.nan, 3.0, 10.0], name="t")
    assert np.isnan(s.nanstats.iqr(nan_policy="propagate"))
    assert np.isnan(s.nanstats.mad(nan_policy="propagate"))
    with pytest.raises(NaNError, match="column 't' holds 1 NaN value"):
        s.nanstats.iqr()
    with pytest.raises(NaNError, match="column 't' holds 1 NaN value"):
        s.nanstats.mad(nan_policy="raise")
    for policy in ("smallest", "largest", "totalorder"):
        np.testing.assert_equal(
            s.nanstats.iqr(nan_policy=policy),
            s.nanstats.quantile(0.75, nan_policy=policy)
            - s.nanstats.quantile(0.25, nan_policy=policy))
    m = pd.Series([1.0, None, 3.0], dtype="Float64")
    assert m.nanstats.iqr(nan_policy="omit") == 1.0
    assert m.nanstats.mad(nan_policy="propagate") is pd.NA


@pytest.mark.parametrize("stat", ["argmin", "median", "quantile", "iqr", "count", "var"])
def test_series_refuses_an_axis_it_has_not(stat):
    s = pd.Series([1.0, 2.0])
    with pytest.raises(ValueError, match="No axis named 5 for object type Series"):
        getattr(s.nanstats, stat)(axis=5)
    if stat in ("argmin", "median", "var"):  # pandas' own method says the same
        with pytest.raises(ValueError, match="No axis named 5 for object type Series"):
            getattr(s, "idxmin" if stat == "argmin" else stat)(axis=5)
    with pytest.raises(ValueError, match="No axis named 2 for object type DataFrame"):
        getattr(s.to_frame().nanstats, stat)(axis=2)
