"""Issue 25 (reliability round 3), the core-semantics classes: one regression per
class (8 weights, 9 float32 quantiles, 10 temporal means, 11 describe, 15 odd values,
16 conventions) and their neighbours on the other hosts, dtypes and shapes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import nanaccess as na
from nanaccess.core import _numba as NB

#: the numba engine is tested where it runs (``NANACCESS_NO_NUMBA=1`` turns it off:
#: ``engine="numba"`` then raises, as tests/core/test_numba_engine.py checks)
ENGINES = ["numpy", pytest.param("numba", marks=pytest.mark.skipif(
    not NB.AVAILABLE, reason="numba is not installed or NANACCESS_NO_NUMBA is set"))]


# ------------------------------------------- 9. float32 quantile with a scalar q


def _f32_cases():
    rng = np.random.default_rng(9)
    return [((rng.random(int(rng.integers(2, 12))) * 100).astype(np.float32),
             float(rng.random())) for _ in range(200)]


def test_float32_scalar_q_matches_numpy_flat():
    x = np.array([1.3, 7.9, 2.2, 5.1], np.float32)
    # 1 - t in float64 then cast, as NumPy: 1 - float32(t) is an ulp off here
    bad = [(v, q) for v, q in _f32_cases()
           if na.quantile(v, q, nan_policy="omit") != np.quantile(v, q)]
    assert bad == []
    for q in np.linspace(0, 1, 41).tolist():
        got = na.quantile(x, q, nan_policy="omit")
        assert got.dtype == np.float32 and got == np.quantile(x, q)


@pytest.mark.parametrize("engine", ENGINES)
def test_float32_scalar_q_matches_numpy_on_every_host(engine):
    import dask.array as da

    import nanaccess.pandas  # noqa: F401

    with na.set_options(engine=engine):
        for v, q in _f32_cases()[:40]:
            ref = np.quantile(v, q)
            n = v.size
            hosts = {
                "rows": na.quantile(np.tile(v, (3, 1)), q, axis=1, nan_policy="omit")[1],
                "series": pd.Series(v).nanstats.quantile(q, nan_policy="omit"),
                "groupby": pd.Series(v).groupby(np.zeros(n, int)).nanstats.quantile(
                    q, nan_policy="omit").iloc[0],
                "rolling": pd.Series(v).rolling(n).nanstats.quantile(
                    q, nan_policy="omit").iloc[-1],
                "dask": na.quantile(da.from_array(v, chunks=3), q,
                                    nan_policy="omit").compute(),
            }
            assert {k: np.float32(g) for k, g in hosts.items()} == \
                {k: ref for k in hosts}, (v, q)


def test_float16_scalar_q_matches_numpy():
    for v, q in _f32_cases()[:60]:
        v = v.astype(np.float16)
        assert na.quantile(v, q, nan_policy="omit") == np.quantile(v, q)


# ------------------------------------ 8. weighted quantiles from the exact total


def _first_reaching_exact(x, w, q):
    """The value whose exact cumulative weight first reaches ``W q`` (Fractions; ``W q``
    rounded to float64 when the exact total ``W`` is a float64, as NumPy's ``n q``)."""
    from fractions import Fraction

    order = np.argsort(x, kind="stable")
    total = sum(Fraction(float(v)) for v in w)
    target = total * Fraction(float(q))
    if Fraction(float(total)) == total:
        target = Fraction(float(total) * float(q))
    c = Fraction(0)
    for i in order:
        if w[i] <= 0:
            continue
        c += Fraction(float(w[i]))
        if c >= target:
            return x[i]
    return x[order[-1]]


@pytest.mark.parametrize("engine", ENGINES)
def test_inverted_cdf_compares_the_exact_target(engine):
    x, w = np.array([1.0, 2.0, 3.0, 4.0]), np.array([0.3, 0.3, 1.1, 0.7])
    with na.set_options(engine=engine):
        # the float total 2.4 rounds down: 0.25 * 2.4 == 0.3 + 0.3 in floats, not exactly
        assert na.quantile(x, 0.25, weights=w, method="inverted_cdf") == 3.0
        assert np.quantile(x, 0.25, weights=w, method="inverted_cdf") == 3.0
        # a float64 total keeps NumPy's n q: unit weights repeat the unweighted quantile
        ten = np.arange(10.0)
        assert na.quantile(ten, 0.9, weights=np.ones(10), method="inverted_cdf") == \
            np.quantile(ten, 0.9, method="inverted_cdf") == 8.0
        rng = np.random.default_rng(8)
        for _ in range(60):
            n = int(rng.integers(1, 9))
            xs = rng.integers(0, 5, n).astype(np.float64)
            ws = np.round(rng.random(n), int(rng.integers(1, 4)))
            if ws.sum() == 0:
                continue
            for q in (0.0, 0.1, 0.25, 0.3, 0.5, 0.7, 0.75, 0.9, 1.0):
                assert na.quantile(xs, q, weights=ws, method="inverted_cdf") == \
                    _first_reaching_exact(xs, ws, q), (xs, ws, q)


@pytest.mark.parametrize("engine", ENGINES)
def test_inverted_cdf_exact_on_every_host(engine):
    import dask.array as da
    import xarray as xr

    import nanaccess.pandas  # noqa: F401
    import nanaccess.xarray  # noqa: F401

    x, w = np.array([1.0, 2.0, 3.0, 4.0]), np.array([0.3, 0.3, 1.1, 0.7])
    kw = dict(weights=w, method="inverted_cdf")
    with na.set_options(engine=engine):
        assert pd.Series(x).nanstats.quantile(0.25, **kw) == 3.0
        df = pd.DataFrame({"g": [1, 1, 1, 1, 2, 2, 2, 2], "x": np.r_[x, x],
                           "w": np.r_[w, w]})
        got = df.groupby("g").nanstats.quantile(0.25, weights="w", method="inverted_cdf")
        assert got["x"].tolist() == [3.0, 3.0]
        rows = na.quantile(np.tile(x, (3, 1)), [0.25, 0.5], axis=1,
                           weights=np.tile(w, (3, 1)), method="inverted_cdf")
        assert rows.tolist() == [[3.0] * 3, [3.0] * 3]
        arr = xr.DataArray(np.tile(x, (2, 1)), dims=("r", "t"))
        got = arr.nanstats.quantile(0.25, "t", weights=xr.DataArray(w, dims="t"),
                                    method="inverted_cdf")
        assert got.values.tolist() == [3.0, 3.0]
        got = na.quantile(da.from_array(x, chunks=2), 0.25, weights=w,
                          method="inverted_cdf")
        assert float(got.compute()) == 3.0


def _repeated_pick(x, w, pos):
    """The value at 0-based position ``pos`` of the data repeated by integer weights
    (Python ints: exact beyond 2**53)."""
    order = np.argsort(x, kind="stable")
    c = 0
    for i in order:
        c += int(w[i])
        if c >= pos + 1:
            return x[i]
    raise AssertionError


@pytest.mark.parametrize("engine", ENGINES)
def test_integer_weights_beyond_2_53_keep_the_median(engine):
    big = 2 ** 53
    x = np.array([1.0, 2.0, 3.0])
    cases = [
        np.array([big, 1, big], np.float64),  # total 2**54 + 1: the middle is the 2
        np.array([big + 2, 3, big - 2], np.float64),
        np.array([2.0 ** 60, 5, 2.0 ** 60 - 2 ** 8], np.float64),
    ]
    with na.set_options(engine=engine):
        for w in cases:
            W = sum(int(v) for v in w)
            assert na.median_low(x, weights=w) == _repeated_pick(x, w, (W - 1) // 2)
            assert na.median_high(x, weights=w) == _repeated_pick(x, w, -(-(W - 1) // 2))
            if (W - 1) % 2 == 0:
                assert na.median(x, weights=w) == _repeated_pick(x, w, (W - 1) // 2)
            for q in (0.25, 0.5, 0.75):
                from fractions import Fraction

                vi = (W - 1) * Fraction(q)
                lo = int(vi.__floor__())
                assert na.quantile(x, q, weights=w, method="lower") == \
                    _repeated_pick(x, w, lo)
                assert na.quantile(x, q, weights=w, method="higher") == \
                    _repeated_pick(x, w, int(vi.__ceil__()))
                assert na.quantile(x, q, weights=w, method="nearest") == \
                    _repeated_pick(x, w, round(vi))
                assert na.quantile(x, q, weights=w, method="inverted_cdf") == \
                    _repeated_pick(x, w, max(int((W * Fraction(q)).__ceil__()), 1) - 1)
            # permutation invariance holds on the exact path too
            p = np.array([2, 0, 1])
            assert na.median(x[p], weights=w[p]) == na.median(x, weights=w)


def test_integer_weights_beyond_2_53_in_groups():
    import nanaccess.pandas  # noqa: F401

    big = 2.0 ** 53
    df = pd.DataFrame({"g": [0, 0, 0, 1, 1, 1], "x": [1.0, 2.0, 3.0] * 2,
                       "w": [big, 1.0, big, 1.0, 1.0, 1.0]})
    for engine in ["numpy", "numba"] if NB.AVAILABLE else ["numpy"]:
        with na.set_options(engine=engine):
            got = df.groupby("g").nanstats.median(weights="w")
            assert got["x"].tolist() == [2.0, 2.0]


# -------------------------------------- 10. temporal means: exact, toward zero


def _trunc_mean_ns(vals):
    s, n = sum(int(v) for v in vals), len(vals)
    return s // n + (1 if s < 0 and s % n else 0)


TD_CASES = [[1, 2], [-1, -2], [-1, -2, -2], [1, 1, 2], [0, -3], [4, -7, -8], [5]]


@pytest.mark.parametrize("vals", TD_CASES)
def test_timedelta_mean_truncates_as_numpy_and_pandas(vals):
    import nanaccess.pandas  # noqa: F401

    t = np.array(vals, dtype="m8[s]")
    want = np.mean(t)  # NumPy and pandas: toward zero (1.5 s is 1 s, -1.5 s is -1 s)
    assert want == pd.Series(t).mean()
    assert na.mean(t) == want
    assert pd.Series(t).nanstats.mean() == want
    assert pd.DataFrame({"a": t}).nanstats.mean()["a"] == want
    assert int(na.mean(t).astype(np.int64)) == _trunc_mean_ns(vals)


def test_datetime_mean_keeps_every_nanosecond_on_every_host():
    import dask.array as da
    import dask.dataframe as dd
    import xarray as xr

    import nanaccess.pandas  # noqa: F401
    import nanaccess.xarray  # noqa: F401

    ns = [1704067200123456789, 1704067200123456790, 1704067200123456790]
    x = np.array(ns, dtype="M8[ns]")
    want = np.datetime64(_trunc_mean_ns(ns), "ns")  # ...789, as xarray's own mean
    assert xr.DataArray(x).mean().values == want
    assert pd.Series(x).mean() != want  # pandas passes through float64
    got = {
        "function": na.mean(x),
        "series": pd.Series(x).nanstats.mean(),
        "frame": pd.DataFrame({"t": x}).nanstats.mean()["t"],
        "groupby": pd.DataFrame({"t": x, "k": 0}).groupby("k").nanstats.mean()["t"].iloc[0],
        "dataarray": xr.DataArray(x).nanstats.mean().values,
        "dask": na.mean(da.from_array(x, chunks=2)).compute(),
        "dask_xarray": xr.DataArray(x).chunk(2).nanstats.mean().values,
        "dask_series": dd.from_pandas(pd.Series(x), npartitions=2).nanstats.mean().compute(),
    }
    assert {k: pd.Timestamp(np.asarray(v)[()]).value for k, v in got.items()} == \
        {k: _trunc_mean_ns(ns) for k in got}


def test_grouped_and_dask_timedelta_means_truncate():
    import dask.array as da
    import dask.dataframe as dd

    import nanaccess.pandas  # noqa: F401

    t = np.array([1, 2, 4, -7, -8, 3], dtype="m8[s]")
    k = [0, 0, 1, 1, 1, 2]
    want = pd.Series(t).groupby(k).mean()
    pd.testing.assert_series_equal(pd.Series(t).groupby(k).nanstats.mean(), want)
    ddf = dd.from_pandas(pd.DataFrame({"t": t, "k": k}), npartitions=2)
    got = ddf.groupby("k").nanstats.mean().compute()["t"].sort_index()
    assert got.tolist() == want.tolist()
    assert na.mean(da.from_array(t, chunks=2)).compute() == np.mean(t)
    # NaT is missing: omitted, and an all-NaT row is NaT
    tn = np.array(["NaT", 1, 2], dtype="m8[s]")
    assert na.mean(tn, nan_policy="omit") == np.timedelta64(1, "s")
    assert na.mean(da.from_array(tn, chunks=2), nan_policy="omit").compute() == \
        np.timedelta64(1, "s")
    assert np.isnat(na.mean(np.array(["NaT"], dtype="m8[s]"), nan_policy="omit"))


def test_temporal_mean_rows_and_extremes():
    # rows of an N-D array, and sums far past int64 (exact limbs, no overflow)
    big = np.iinfo(np.int64).max - 10
    x = np.array([[big, big - 1, big - 3], [-big, -big + 1, -big + 2]], dtype="m8[ns]")
    got = na.mean(x, axis=1).astype(np.int64).tolist()
    assert got == [_trunc_mean_ns(r) for r in x.astype(np.int64).tolist()]
    from nanaccess.core.moments import temporal_mean

    rng = np.random.default_rng(10)
    v = rng.integers(-2 ** 62, 2 ** 62, (5, 7))
    w = rng.random((5, 7)) < 0.7
    got = temporal_mean(v, w)
    want = [_trunc_mean_ns(r[m]) if m.any() else np.iinfo(np.int64).min
            for r, m in zip(v.tolist(), w, strict=True) for r in [np.array(r)]]
    assert got.tolist() == want


# --------------------------------------------------- 11. describe as pandas 3


def _pandas_rows(got):
    return [r for r in got.index if r not in ("nan", "missing")]


@pytest.mark.parametrize("ps", [None, [0.1], [], [0.9, 0.1, 0.5], (0.25,)])
def test_frame_describe_columns_and_rows_as_pandas(ps):
    import nanaccess.pandas  # noqa: F401

    df = pd.DataFrame({
        "a": [1.0, 2.0, np.nan, 4.0],
        "t": pd.date_range("2024", periods=4, freq="12h"),
        "tz": pd.date_range("2024", periods=4, tz="UTC"),
        "d": pd.to_timedelta([1, 2, None, 4], unit="s"),
        "s": list("wxyz"),
        "i": pd.array([1, None, 3, 4], dtype="Int64"),
        "b": [True, False, True, True],
    })
    want = df.describe(percentiles=ps)
    got = df.nanstats.describe(percentiles=ps)
    assert list(got.columns) == list(want.columns) == ["a", "t", "d", "i"]
    assert _pandas_rows(got) == list(want.index)
    assert got.loc[["nan", "missing"], "d"].tolist() == [0, 1]
    for row in want.index:
        for c in ("t", "d"):
            w, g = want.loc[row, c], got.loc[row, c]
            assert (pd.isna(w) and pd.isna(g)) or w == g, (row, c)
        assert got.loc[row, "a"] == pytest.approx(want.loc[row, "a"], nan_ok=True)


def test_frame_describe_include_exclude_as_pandas():
    import nanaccess.pandas  # noqa: F401

    df = pd.DataFrame({"a": [1.0, 2.0], "t": pd.date_range("2024", periods=2),
                       "s": ["x", "y"]})
    for kw in ({"include": "all"}, {"exclude": ["datetime"]}, {"include": ["datetime"]},
               {"include": [np.number]}):
        assert list(df.nanstats.describe(**kw).columns) == list(df.describe(**kw).columns)
    with pytest.raises(ValueError, match="No columns match"):
        df.nanstats.describe(include=["timedelta"])
    with pytest.raises(ValueError, match="duplicates"):
        df.nanstats.describe(percentiles=[0.5, 0.5])
    # numeric only: float64, no std moved; the 50% row only when asked for
    d = df[["a"]].nanstats.describe(percentiles=[0.1])
    assert d.dtypes.tolist() == [np.float64]
    assert list(d.index) == ["count", "nan", "missing", "mean", "std", "min", "10%", "max"]
    # strings only: every column, counts only (pandas describes them too)
    assert list(df[["s"]].nanstats.describe().columns) == ["s"]


def test_series_and_groupby_describe_percentiles_as_pandas():
    import nanaccess.pandas  # noqa: F401

    s = pd.Series([1.0, 2.0, np.nan, 4.0])
    assert _pandas_rows(s.nanstats.describe(percentiles=[0.3])) == \
        list(s.describe(percentiles=[0.3]).index)
    t = pd.Series(pd.date_range("2024", periods=3))
    assert _pandas_rows(t.nanstats.describe()) == list(t.describe().index)
    g = pd.DataFrame({"k": [0, 0, 1], "x": [1.0, 2.0, 3.0]}).groupby("k")
    got = g.nanstats.describe(percentiles=[0.1])
    assert [c for c in got["x"].columns if c not in ("nan", "missing")] == \
        list(g.describe(percentiles=[0.1])["x"].columns)


# ---------------------------------------------------- 15. messages, odd values


def test_integer_sum_overflow_names_the_column_and_group():
    import nanaccess.pandas  # noqa: F401

    big = np.array([2 ** 62, 2 ** 62], dtype=np.int64)
    with pytest.raises(OverflowError, match="column 'big' is 9223372036854775808") as info:
        pd.DataFrame({"big": big}).nanstats.sum()
    assert "row" not in str(info.value)
    with pytest.raises(OverflowError, match="column 'big'"):
        pd.Series(big, name="big").nanstats.sum()
    with pytest.raises(OverflowError, match="column 'nb'"):
        pd.Series(pd.array(big, dtype="Int64"), name="nb").nanstats.sum()
    df = pd.DataFrame({"k": ["b", "a", "a"], "big": np.r_[1, big]})
    with pytest.raises(OverflowError, match="column 'big' in group 'a'"):
        df.groupby("k").nanstats.sum()
    with pytest.raises(OverflowError, match="column 'big' in group 'a'"):
        df.groupby("k")["big"].nanstats.sum()
    # the array function still says which row
    with pytest.raises(OverflowError, match="row 1"):
        na.sum(np.array([[1, 2], big]), axis=1)


def test_list_var_and_std_beyond_float64_are_exact():
    from fractions import Fraction

    x = [1e170, -1e170]
    assert na.std(x) == 1e170 == na.std([np.float64(v) for v in x])
    assert na.var(x) == Fraction(1e170) ** 2  # exact, as the statistics module's types
    assert na.std(x + [float("nan")], nan_policy="omit") == 1e170
    assert np.isnan(na.std(x + [float("nan")], nan_policy="propagate"))
    assert np.isnan(na.std(x + [float("inf")]))
    assert na.var([1.0, 2.0]) == 0.25  # ordinary data keep the float path


def test_nan_report_counts_complex_numbers():
    import nanaccess.pandas  # noqa: F401

    r = na.nan_report([1 + 0j, 2.0, float("nan"), complex(float("nan"), 1), "x"])
    assert (r["numbers"], r["nan"]) == (2, 2)
    r = na.nan_report(np.array([1 + 0j, 2 + 1j, complex(0, np.nan)]))
    assert (r["numbers"], r["nan"]) == (2, 1)
    r = pd.Series([1 + 0j, complex(np.nan, 0)]).nanstats.nan_report()
    assert (r["numbers"], r["nan"]) == (1, 1)


@pytest.mark.parametrize("dtype", ["Float64", "Int64", "float64[pyarrow]"])
def test_nullable_var_of_too_few_values_is_na(dtype):
    import nanaccess.pandas  # noqa: F401

    s = pd.Series([1.5 if dtype != "Int64" else 1], dtype=dtype)
    for stat in ("var", "std"):
        assert getattr(s.nanstats, stat)() is pd.NA
        assert getattr(s, stat)() is pd.NA
        got = getattr(pd.DataFrame({"a": s}).nanstats, stat)()
        assert got["a"] is pd.NA
        g = getattr(pd.Series(np.r_[s.to_numpy(), s.to_numpy()], dtype=dtype)
                    .groupby([0, 1]).nanstats, stat)()
        assert g.isna().all()
    assert s.nanstats.var(ddof=0) == 0  # defined with ddof=0
    assert np.isnan(pd.Series([1.5]).nanstats.var())  # NumPy floats keep NaN


@pytest.mark.parametrize("dtype", ["Int64", "Float64", "int64[pyarrow]"])
def test_median_of_empty_nullable_column_is_na(dtype):
    import nanaccess.pandas  # noqa: F401

    s = pd.Series([], dtype=dtype)
    assert s.nanstats.median() is pd.NA and s.median() is pd.NA
    got = pd.DataFrame({"a": s}).nanstats.median()
    assert got["a"] is pd.NA
    assert pd.Series([None], dtype=dtype).nanstats.median(nan_policy="omit") is pd.NA


def test_bool_beside_int_columns_keep_their_values_as_pandas():
    import nanaccess.pandas  # noqa: F401

    df = pd.DataFrame({"a": [True, False], "b": [3, 4]})
    for stat in ("min", "max"):
        got, want = getattr(df.nanstats, stat)(), getattr(df, stat)()
        assert got.dtype == want.dtype == object
        assert got.tolist() == want.tolist()
        assert [type(v) for v in got] == [type(v) for v in want]
    assert df.nanstats.median_low().tolist()[0] is np.False_
    assert df.nanstats.mean().dtype == np.float64


def test_argmin_of_dataarray_with_an_axis_is_the_array():
    import xarray as xr

    import nanaccess.xarray  # noqa: F401

    d = xr.DataArray(np.array([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]]), dims=("x", "y"))
    for fn, own in ((na.argmin, d.argmin), (na.argmax, d.argmax)):
        for axis in (0, 1, "y", -1):
            got = fn(d, axis=axis)
            want = own(axis=axis) if not isinstance(axis, str) else own(dim=axis)
            assert isinstance(got, xr.DataArray)
            xr.testing.assert_equal(got, want)
    assert isinstance(na.argmin(d, axis=[1]), dict)  # a list of dims: xarray's dict


# ------------------------------------------------- 16. positions, labels, defaults


def test_argmax_is_a_position_idxmax_a_label_on_a_labelled_index():
    import nanaccess.pandas  # noqa: F401

    idx = pd.date_range("2024", periods=4, tz="UTC")
    s = pd.Series([1.0, 7.0, np.nan, 7.0], index=idx)
    assert s.nanstats.argmax(nan_policy="omit") == s.argmax() == 1
    assert s.iloc[s.nanstats.argmax(nan_policy="omit")] == 7.0
    assert s.nanstats.idxmax(nan_policy="omit") == s.idxmax() == idx[1]
    assert s.nanstats.idxmin(nan_policy="omit") == s.idxmin()
    dup = pd.Series([3.0, 1.0, 2.0], index=["a", "a", "b"])
    assert dup.nanstats.argmin() == 1 and dup.nanstats.idxmin() == "a"
    df = pd.DataFrame({"x": [1.0, 5.0, 2.0], "y": [9, 0, 3]}, index=list("pqr"))
    assert df.nanstats.argmax().tolist() == [1, 0]
    pd.testing.assert_series_equal(df.nanstats.idxmax(), df.idxmax())
    pd.testing.assert_series_equal(df.nanstats.idxmin(axis=1), df.idxmin(axis=1))
    assert df.nanstats.argmin(axis=1).tolist() == [0, 1, 0]


def test_default_sort_puts_arithmetic_nans_last_and_rank_omits_them():
    import nanaccess.pandas  # noqa: F401

    with np.errstate(invalid="ignore"):
        neg = np.float64(0) / 0  # a negative NaN on x86 (the sign does not matter here)
        made = np.array([3.0, neg, np.inf - np.inf, 1.0, np.nan, 2.0])
    assert na.argsort(made)[:3].tolist() == np.argsort(made)[:3].tolist() == [3, 5, 0]
    assert np.isnan(na.sort(made)[3:]).all()
    s = pd.Series(made, index=list("abcdef"))
    out = s.nanstats.sort_values()
    assert out.index[:3].tolist() == ["d", "f", "a"] and out.iloc[3:].isna().all()
    pd.testing.assert_series_equal(s.nanstats.rank(), s.rank())
    np.testing.assert_array_equal(na.rank(made), s.rank().to_numpy())
    # NaNs among themselves in totalOrder: -NaN before +NaN, payloads kept
    bits = na.sort(np.array([na.make_nan(5), 1.0, na.make_nan(2, negative=True)]))
    assert bits[0] == 1.0 and np.signbit(bits[1]) and na.nan_payload(bits[2]) == 5
    # "totalorder" by name keeps the sign-split order
    assert na.argsort(np.array([1.0, na.make_nan(negative=True)]),
                      nan_policy="totalorder").tolist() == [1, 0]


def test_groupby_idxmax_idxmin_are_labels_as_pandas():
    import nanaccess.pandas  # noqa: F401

    idx = pd.date_range("2024", periods=6, tz="UTC")
    df = pd.DataFrame({"g": list("aabbcc"), "x": [4.0, 1.0, np.nan, 3.0, 2.0, 2.0],
                       "i": pd.array([1, 5, 5, None, 0, 0], dtype="Int64")}, index=idx)
    g = df.groupby("g")
    for which in ("idxmax", "idxmin"):
        got = getattr(g.nanstats, which)(nan_policy="omit")
        pd.testing.assert_frame_equal(got, getattr(g, which)(), check_dtype=False)
        one = getattr(g["x"].nanstats, which)(skipna=True)
        pd.testing.assert_series_equal(one, getattr(g["x"], which)(), check_dtype=False)
    # "propagate" points at the NaN it propagates; "raise" names the group
    assert g[["x"]].nanstats.idxmax(nan_policy="propagate")["x"]["b"] == idx[2]
    with pytest.raises(ValueError, match="column 'i' in group 'b' has no value"):
        g.nanstats.idxmax(nan_policy="propagate")  # a missing extreme: nothing to point at
    with pytest.raises(na.NaNError, match="group 'b'"):
        g.nanstats.idxmax()
    flat = df.groupby("g", as_index=False).nanstats.idxmin(nan_policy="omit")
    assert flat.columns.tolist() == ["g", "x", "i"]


@pytest.mark.parametrize("engine", ENGINES)
def test_random_integer_weights_near_2_53_pick_the_repeated_data(engine):
    from fractions import Fraction

    rng = np.random.default_rng(53)
    base = 2 ** 53
    with na.set_options(engine=engine):
        for _ in range(25):
            n = int(rng.integers(2, 7))
            x = rng.integers(0, 4, n).astype(np.float64)
            # float64 integers around 2**53 (above it only even ones exist)
            w = np.array([float(base + 2 * int(rng.integers(-4, 5))) if rng.random() < 0.6
                          else float(rng.integers(0, 4)) for _ in range(n)])
            W = sum(int(v) for v in w)
            if W == 0:
                continue
            for q in (0.0, 0.3, 0.5, 0.9, 1.0):
                vi = (W - 1) * Fraction(q)
                for method, pos in (("lower", vi.__floor__()), ("higher", vi.__ceil__()),
                                    ("nearest", round(vi))):
                    assert na.quantile(x, q, weights=w, method=method) == \
                        _repeated_pick(x, w, int(pos)), (x, w, q, method)
            assert na.median_low(x, weights=w) == _repeated_pick(x, w, (W - 1) // 2)
            assert na.median_high(x, weights=w) == _repeated_pick(x, w, W // 2)
