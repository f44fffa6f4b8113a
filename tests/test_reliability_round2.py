"""Issue 16 (reliability round 2): one regression per fault, named after the input kind."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import nanaccess as na
from nanaccess.errors import NaNError

pa = pytest.importorskip("pyarrow")

NULLABLE = {
    "nullable_float": lambda: pd.Series([3.0, None, 1.0], dtype="Float64"),
    "nullable_int": lambda: pd.Series([3, None, 1], dtype="Int64"),
    "arrow_float": lambda: pd.Series([3.0, None, 1.0], dtype="float64[pyarrow]"),
    "arrow_int": lambda: pd.Series([3, None, 1], dtype="int64[pyarrow]"),
}


# ----------------------------------------------------------- 1. NaN vs missing


@pytest.mark.parametrize("fn", ["sort", "argsort", "rank"])
@pytest.mark.parametrize("kind", sorted(NULLABLE))
def test_nullable_series_sort_raise_says_missing(kind, fn):
    with pytest.raises(NaNError, match="missing") as info:
        getattr(na, fn)(NULLABLE[kind](), nan_policy="raise")
    assert "NaN" not in str(info.value).split(";")[0]


@pytest.mark.parametrize("kind", sorted(NULLABLE))
def test_nullable_series_isnan_payload_of_missing(kind):
    s = NULLABLE[kind]()
    assert na.isnan(s).tolist() == [False, False, False]
    assert na.issignaling(s).tolist() == [False, False, False]
    assert na.nan_payload(s).tolist() == [-1, -1, -1]


def test_nullable_float_series_keeps_its_nan_apart_from_na():
    s = pd.Series(pd.arrays.FloatingArray(np.array([na.make_nan(7), 0.0, 1.0]),
                                          np.array([False, True, False])))
    assert na.isnan(s).tolist() == [True, False, False]
    assert na.nan_payload(s).tolist() == [7, -1, -1]


def test_masked_array_isnan_ignores_masked_bits():
    m = np.ma.array([np.nan, np.nan, 1.0], mask=[False, True, False])
    assert na.isnan(m).tolist() == [True, False, False]
    assert na.nan_payload(m).tolist() == [0, -1, -1]


MASKED = np.ma.array([3.0, 1.0, 2.0, np.nan], mask=[False, True, False, False])


def test_masked_array_sort_omit_drops_masked():
    out = na.sort(MASKED, nan_policy="omit")
    assert np.ma.getdata(out).tolist() == [2.0, 3.0]
    assert na.argsort(MASKED, nan_policy="omit").tolist() == [2, 0]


@pytest.mark.parametrize("policy", ["totalorder", "smallest", "largest"])
def test_masked_array_sort_puts_masked_last(policy):
    out = na.sort(MASKED, nan_policy=policy)
    assert isinstance(out, np.ma.MaskedArray)
    assert np.ma.getmaskarray(out).tolist() == [False, False, False, True]
    assert na.argsort(MASKED, nan_policy=policy)[-1] == 1
    r = na.rank(MASKED, nan_policy=policy)
    assert r[1] == 4.0  # ranked after the NaN, whatever the policy does with the NaN
    assert sorted(r.tolist()) == [1.0, 2.0, 3.0, 4.0]


def test_masked_array_rank_omit_gives_missing_a_nan_rank():
    r = na.rank(MASKED, nan_policy="omit")
    np.testing.assert_array_equal(r, [2.0, np.nan, 1.0, np.nan])
    r = na.rank(MASKED, nan_policy="omit", ascending=False)
    np.testing.assert_array_equal(r, [1.0, np.nan, 2.0, np.nan])


def test_masked_2d_array_argsort_axis_puts_masked_last():
    m = np.ma.array([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]], mask=[[0, 0, 1], [1, 0, 0]])
    np.testing.assert_array_equal(na.argsort(m, axis=1), [[1, 0, 2], [2, 1, 0]])
    r = na.rank(m, axis=1, nan_policy="largest")
    np.testing.assert_array_equal(r, [[2.0, 1.0, 3.0], [3.0, 2.0, 1.0]])
    r = na.rank(m, axis=1)  # default "omit": a missing value ranks NaN (pandas' "keep")
    np.testing.assert_array_equal(r, [[2.0, 1.0, np.nan], [np.nan, 2.0, 1.0]])


@pytest.mark.parametrize("kind", sorted(NULLABLE))
def test_nullable_series_sort_keeps_na_last(kind):
    s = NULLABLE[kind]()
    out = na.sort(s)
    assert out.dtype == s.dtype
    assert pd.isna(out[-1]) and list(out[:2]) == [1, 3]
    assert na.argsort(s).tolist() == [2, 0, 1]
    assert na.argsort(s, nan_policy="omit").tolist() == [2, 0]
    np.testing.assert_array_equal(na.rank(s, nan_policy="largest"), [2.0, 3.0, 1.0])
    np.testing.assert_array_equal(na.rank(s), [2.0, np.nan, 1.0])  # default "omit"
    kept = na.sort(s, nan_policy="omit")  # the host's type, the missing slot dropped
    assert kept.dtype == s.dtype and list(kept) == [1, 3]


def test_core_sort_takes_numpy_values_and_a_mask():
    """The host array is rebuilt by the api layer: the core sorts NumPy values and a
    missing mask and returns NumPy values (missing last)."""
    from nanaccess.core import sorting

    out = sorting.sort(np.array([3.0, 0.0, 1.0]), missing=np.array([False, True, False]))
    assert type(out) is np.ndarray
    np.testing.assert_array_equal(out, [1.0, 3.0, 0.0])


def test_datetime_nat_sorts_last():
    x = np.array(["NaT", "2020-01-02", "2020-01-01"], dtype="M8[D]")
    assert na.argsort(x).tolist() == [2, 1, 0]
    np.testing.assert_array_equal(na.rank(x, nan_policy="largest"), [3.0, 2.0, 1.0])
    np.testing.assert_array_equal(na.rank(x), [np.nan, 2.0, 1.0])


def test_frame_nullable_beside_numpy_float_keeps_nan_payload():
    nan = na.make_nan(5)
    df = pd.DataFrame({"a": pd.array([1, None], dtype="Int64"), "b": np.array([1.0, nan])})
    for stat in ("mean", "max", "median"):
        r = getattr(df.nanstats, stat)(nan_policy="propagate")
        assert r.array._mask.tolist()[1] is False
        assert na.nan_payload(np.asarray(r.array._data)[1]) == 5


@pytest.mark.parametrize("stat", ["mean", "median", "min", "sum"])
def test_arrow_decimal_missing_result_is_na(stat):
    from decimal import Decimal

    s = pd.Series(pd.array([None, None], dtype=pd.ArrowDtype(pa.decimal128(10, 2))))
    r = getattr(s.nanstats, stat)(nan_policy="omit")
    if stat == "sum":
        assert r == 0
    else:
        assert r is pd.NA
    s2 = pd.Series(pd.array([Decimal("1.5"), None], dtype=pd.ArrowDtype(pa.decimal128(10, 2))))
    assert getattr(s2.nanstats, stat)(nan_policy="omit") == Decimal("1.5")


# ----------------------------------------------- 2. nullable integers stay exact

BIG = 2**53 + 1
PICKS = [("min", {}), ("max", {}), ("median_low", {}), ("median_high", {}),
         ("quantile", {"q": 0.5, "method": "lower"}),
         ("quantile", {"q": [0.0, 1.0], "method": "higher"})]


@pytest.mark.parametrize("dtype", ["Int64", "int64[pyarrow]", "UInt64"])
@pytest.mark.parametrize(("stat", "kw"), PICKS)
@pytest.mark.parametrize("policy", ["omit", "propagate"])
def test_nullable_int_groupby_empty_group_stays_exact(dtype, stat, kw, policy):
    s = pd.Series([BIG, BIG, None, None, 5], dtype=dtype)
    r = getattr(s.groupby([0, 0, 1, 1, 2]).nanstats, stat)(nan_policy=policy, **kw)
    assert r.dtype == s.dtype
    vals = r.tolist()
    assert [v for v in vals if v is not pd.NA] == [BIG] * (len(vals) // 3) + [5] * (
        len(vals) // 3)
    assert sum(v is pd.NA for v in vals) == len(vals) // 3


@pytest.mark.parametrize(("stat", "kw"), PICKS[:5])
def test_nullable_int_frame_all_na_column_stays_exact(stat, kw):
    df = pd.DataFrame({"a": pd.array([BIG, BIG], dtype="Int64"),
                       "b": pd.array([None, None], dtype="Int64")})
    r = getattr(df.nanstats, stat)(nan_policy="omit", **kw)
    assert r.dtype == "Int64"
    assert r["a"] == BIG and r["b"] is pd.NA


def test_nullable_int_frame_groupby_all_na_group_stays_exact():
    df = pd.DataFrame({"g": [0, 0, 1], "a": pd.array([BIG, 1, None], dtype="Int64")})
    r = df.groupby("g").nanstats.max(nan_policy="omit")
    assert r["a"].dtype == "Int64" and r["a"].tolist() == [BIG, pd.NA]


def test_nullable_int_groupby_mean_still_float():
    s = pd.Series([1, 2, None], dtype="Int64")
    assert s.groupby([0, 0, 1]).nanstats.mean(nan_policy="omit").dtype == "Float64"


# ---------------------------------------------------- 4. temporal types as pandas

TD = pd.Series(pd.to_timedelta([1, 2, 4, 10, None], unit="s"))
TZ = pd.Series(pd.date_range("2020-01-01", periods=4, freq="D", tz="US/Eastern"))


def test_timedelta_std_is_timedelta_as_pandas():
    got = TD.nanstats.std(nan_policy="omit")
    assert isinstance(got, pd.Timedelta) and got == TD.std()
    frame = pd.DataFrame({"a": TD}).nanstats.std(nan_policy="omit")
    assert frame.dtype == TD.dtype and frame["a"] == TD.std()


def test_timedelta_std_of_array_keeps_unit():
    x = np.array([1, 2, 4], dtype="m8[ms]")
    got = na.std(x)
    assert got.dtype == x.dtype
    assert got == np.timedelta64(int(np.std([1, 2, 4])), "ms")


def test_tz_aware_datetime_std_as_pandas():
    got = TZ.nanstats.std()
    assert isinstance(got, pd.Timedelta) and got == TZ.std()


def test_tz_aware_datetime_describe_as_pandas():
    got = TZ.nanstats.describe()
    want = TZ.describe()
    for row in ("mean", "min", "25%", "50%", "75%", "max"):
        assert got[row] == want[row], row
    assert got["count"] == 4
    # pandas 3 describes datetimes without a std row (issue 25, class 11)
    assert [r for r in got.index if r not in ("nan", "missing")] == list(want.index)


def test_timedelta_describe_rows_are_timedeltas():
    got = TD.nanstats.describe()
    assert got["missing"] == 1 and got["mean"] == TD.mean() and got["max"] == TD.max()


def test_timedelta_quantile_half_equals_median():
    for a, b in [(-5, -4), (1, 4), (-3, 0), (2, 7), (-7, -2)]:
        s = pd.Series(pd.to_timedelta([a, b], unit="ns"))
        assert s.nanstats.quantile(0.5) == s.nanstats.median() == s.median()
        for q in (0.3, 0.7, 0.25):  # interpolation truncates the value, as pandas
            assert s.nanstats.quantile(q) == s.quantile(q)


# ------------------------------------------------------ 5. arguments, odd inputs


@pytest.mark.parametrize("stat", ["mean", "median", "min", "sum", "std", "quantile", "iqr"])
def test_empty_axis_tuple_reduces_nothing_as_numpy(stat):
    x = np.array([[1.0, 5.0], [3.0, 4.0]])
    kw = {"q": 0.3} if stat == "quantile" else {}
    got = getattr(na, stat)(x, axis=(), **kw)
    want = {"iqr": np.zeros_like(x), "median": np.median(x, axis=()),
            "quantile": np.quantile(x, 0.3, axis=())}
    np.testing.assert_array_equal(got, want[stat] if stat in want
                                  else getattr(np, stat)(x, axis=()))


@pytest.mark.parametrize("axis", [1.0, "1", (0, 1.0), True])
def test_float_axis_refused(axis):
    with pytest.raises(TypeError, match="axis must be an integer"):
        na.mean(np.ones((2, 2)), axis=axis)


@pytest.mark.parametrize("q", ["0.5", ["0.25", 0.5], b"0.5"])
def test_string_q_refused(q):
    with pytest.raises(TypeError, match="q must be a number"):
        na.quantile(np.array([1.0, 2.0]), q=q)
    with pytest.raises(TypeError, match="q must be a number"):
        pd.Series([1.0, 2.0]).nanstats.quantile(q=q)


def test_fraction_q_still_accepted():
    from fractions import Fraction

    assert na.quantile(np.array([1.0, 3.0]), q=Fraction(1, 2)) == 2.0


@pytest.mark.parametrize("payload", [1.5, "3", None, True])
def test_make_nan_non_integer_payload_refused(payload):
    with pytest.raises(TypeError, match="payload must be an integer"):
        na.make_nan(payload)


def test_quantiles_linear_method_refused():
    with pytest.raises(ValueError, match='"inclusive"'):
        na.quantiles([1, 2, 3], method="linear")
    assert na.quantiles([1, 2, 3], method="inclusive") == [1.5, 2.0, 2.5]


@pytest.mark.parametrize("v", [complex(float("nan"), 0), complex(0, float("nan")),
                               np.complex64(complex(float("nan"), 1))])
def test_complex_with_nan_part_isnan(v):
    import cmath

    assert na.isnan(v) is True and cmath.isnan(complex(v))
    assert na.isnan(np.array([v, 1j])).tolist() == [True, False]
    rep = na.nan_report([v, 1j, 1.0])
    # a complex number without a NaN part is a number (issue 25, class 15)
    assert (rep["nan"], rep["numbers"], rep["values"]) == (1, 2, 3)


def test_complex_still_refused_by_order_statistics():
    with pytest.raises(TypeError, match="complex"):
        na.median([complex(float("nan"), 0), 1j])


def test_strings_not_counted_as_numbers_in_nan_report():
    rep = na.nan_report(["a", 1.0, float("nan"), None])
    assert (rep["numbers"], rep["nan"], rep["missing"], rep["values"]) == (1, 1, 1, 4)


@pytest.mark.parametrize("dtype", [np.uint64, np.uint32, np.uint8])
def test_unsigned_sum_is_exact_uint64_as_numpy(dtype):
    top = np.iinfo(dtype).max
    x = np.array([top // 2, top // 3, 1], dtype=dtype)
    got = na.sum(x)
    assert got.dtype == np.uint64 and int(got) == sum(map(int, x))
    assert pd.Series(x).nanstats.sum() == pd.Series(x).sum()


def test_uint64_sum_that_fits_only_in_uint64():
    x = np.array([2**63, 2**62], dtype=np.uint64)
    assert na.sum(x) == np.uint64(2**63 + 2**62)
    big = np.random.default_rng(1).integers(0, 2**63, size=(2, 600), dtype=np.uint64) // 300
    np.testing.assert_array_equal(na.sum(big, axis=1),
                                  [sum(map(int, r)) for r in big])


def test_uint64_sum_beyond_uint64_raises():
    with pytest.raises(OverflowError, match="uint64"):
        na.sum(np.array([2**63, 2**63], dtype=np.uint64))


def test_dask_uint64_sum_exact():
    dask_array = pytest.importorskip("dask.array")
    x = np.array([2**63, 2**62, 5], dtype=np.uint64)
    got = na.sum(dask_array.from_array(x, chunks=1)).compute()
    assert got.dtype == np.uint64 and int(got) == 2**63 + 2**62 + 5


def test_mixed_decimal_float_zeros_totalorder():
    from decimal import Decimal

    vals = [Decimal("0"), -0.0, 1, 0, Decimal("-0"), 0.0]
    out = na.sort(vals, nan_policy="totalorder")
    signs = [str(v).startswith("-") for v in out]
    assert signs == [True, True, False, False, False, False]
    assert na.argsort([Decimal("0"), -0.0]).tolist() == [1, 0]
    np.testing.assert_array_equal(na.rank([Decimal("0"), -0.0]), [2.0, 1.0])


@pytest.mark.parametrize("stat", ["sum", "mean"])
def test_decimal_infinities_cancel_to_decimal_nan(stat):
    from decimal import Decimal

    r = getattr(na, stat)([Decimal("Infinity"), Decimal("-Infinity"), Decimal(1)],
                          nan_policy="propagate")
    assert isinstance(r, Decimal) and r.is_qnan()
    r = getattr(na, stat)(np.array([Decimal("Infinity"), Decimal("-Infinity")], dtype=object))
    assert isinstance(r, Decimal) and r.is_qnan()
    # beside a float the result type is float: a float NaN
    r = getattr(na, stat)([Decimal("Infinity"), Decimal("-Infinity"), 1.0])
    assert isinstance(r, float) and r != r


@pytest.mark.parametrize("fn", ["argmin", "argmax"])
@pytest.mark.parametrize("dims", [["x", "y"], ["z", "x"], ["y"], ["x", "y", "z"]])
def test_dataarray_arg_with_list_of_dims_as_xarray(fn, dims):
    xr = pytest.importorskip("xarray")
    data = np.random.default_rng(0).random((3, 4, 2))
    data[1, 2, 0] = np.nan
    da_ = xr.DataArray(data, dims=("x", "y", "z"))
    got = getattr(da_.nanstats, fn)(dim=dims, nan_policy="omit")
    want = getattr(da_, fn)(dim=dims, skipna=True)
    assert set(got) == set(want)
    for d in want:
        assert got[d].equals(want[d])


def test_function_argmin_dataarray_integer_axes():
    xr = pytest.importorskip("xarray")
    da_ = xr.DataArray(np.arange(12.0).reshape(3, 4)[::-1], dims=("x", "y"))
    got = na.argmin(da_, axis=[0, 1])
    assert {d: int(v) for d, v in got.items()} == {"x": 2, "y": 0}


def test_uint64_groupby_sum_exact():
    s = pd.Series(np.array([2**63, 2**62, 1], dtype=np.uint64))
    got = s.groupby([0, 0, 1]).nanstats.sum()
    assert got.dtype == np.uint64 and got.tolist() == [2**63 + 2**62, 1]


def test_tz_aware_datetime_frame_describe():
    got = pd.DataFrame({"t": TZ}).nanstats.describe()
    want = pd.DataFrame({"t": TZ}).describe()
    for row in ("mean", "min", "50%", "max"):
        assert got.loc[row, "t"] == want.loc[row, "t"]
    mixed = pd.DataFrame({"t": TZ, "x": [1.0, 2.0, 3.0, np.nan]}).nanstats.describe(
        include="all")
    assert mixed.loc["max", "t"] == TZ.max() and mixed.loc["nan", "x"] == 1


def test_function_argmin_dataarray_dim_names():
    """``na.argmin(dataarray, axis=[names])``: dim names pass through as xarray's dims."""
    xr = pytest.importorskip("xarray")
    da_ = xr.DataArray(np.arange(12.0).reshape(3, 4)[::-1], dims=("x", "y"))
    got = na.argmin(da_, axis=["x", "y"])
    assert {d: int(v) for d, v in got.items()} == {"x": 2, "y": 0}
    assert float(na.median(da_, axis="x")[0]) == float(da_.median("x")[0])
    with pytest.raises(TypeError, match="dim="):
        na.median(da_.to_dataset(name="v"), axis=0)
