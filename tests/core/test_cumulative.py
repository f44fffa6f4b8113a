"""Cumulative statistics (issue 23): Fraction references, policies, hosts."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import nanaccess as na
from nanaccess import options
from nanaccess.core import _numba
from nanaccess.core.cumulative import cumulative, exact_prefix, grouped_cumulative, prefix_sums

STATS = ("cumsum", "cumprod", "cummax", "cummin", "cumcount")

NEEDS_NUMBA = pytest.mark.skipif(not _numba.AVAILABLE, reason="numba not installed or disabled")



def fraction_prefix(vals) -> np.ndarray:
    acc, out = Fraction(0), []
    for v in vals:
        acc += Fraction(float(v))
        out.append(float(acc))
    return np.array(out)


@pytest.fixture(params=("numpy", pytest.param("numba", marks=NEEDS_NUMBA)))
def engine(request):
    with options.option_context(engine=request.param):
        yield request.param


@pytest.mark.parametrize("scale", [0, 8, 40])
def test_prefix_sums_are_correctly_rounded(engine, scale):
    rng = np.random.default_rng(scale)
    v = rng.normal(size=2000) * 10.0 ** rng.integers(-scale, scale + 1, size=2000)
    v[::11] = np.round(v[::11] * 4) / 4  # ties and exact cancellations
    v[500:505] = [1e300, 1.0, -1e300, 2.0 ** -1074, -3.0]
    starts = np.array([0, 700, 701, 2000])
    want = np.concatenate([fraction_prefix(v[a:b]) for a, b in zip(starts[:-1], starts[1:],
                                                                    strict=True)])
    got = prefix_sums(v, starts)
    assert got.tobytes() == want.tobytes()
    assert exact_prefix(v[:700]).tobytes() == want[:700].tobytes()


@settings(max_examples=40, deadline=None)
@given(hs.lists(hs.floats(allow_nan=False, allow_infinity=False, min_value=-1e300,
                          max_value=1e300), min_size=1, max_size=80))
def test_prefix_property(vals):
    v = np.array(vals)
    want = fraction_prefix(v)
    assert exact_prefix(v).tobytes() == want.tobytes()
    if _numba.AVAILABLE:
        with options.option_context(engine="numba"):
            assert prefix_sums(v, np.array([0, v.size])).tobytes() == want.tobytes()


def test_no_drift():
    x = np.full(10, 0.1)
    assert cumulative(x, "cumsum", policy="raise")[0][-1] == 1.0  # pandas: 0.9999999999999999
    # the correctly rounded 0.1 * k at every step
    y = np.full(5000, 0.1)
    want = fraction_prefix(y)
    got = cumulative(y, "cumsum", policy="raise")[0]
    assert got.tobytes() == want.tobytes()


def test_pandas_agreement_nan_free_and_omit():
    rng = np.random.default_rng(1)
    x = rng.integers(-5, 6, size=50).astype(float)  # integers: pandas is exact too
    x[[3, 17, 30]] = np.nan
    s = pd.Series(x)
    for st in ("cumsum", "cumprod", "cummax", "cummin"):
        got = getattr(s.nanstats, st)(nan_policy="omit")
        pd.testing.assert_series_equal(got, getattr(s, st)())
        got = getattr(s.nanstats, st)(nan_policy="propagate")
        pd.testing.assert_series_equal(got, getattr(s, st)(skipna=False))


def test_policies_keep_payloads():
    a, b = na.make_nan(3), -na.make_nan(11)
    x = np.array([1.0, b, 2.0, a, 0.5])
    bits = x.view(np.int64)
    omit = cumulative(x, "cumsum", policy="omit")[0]
    assert omit.view(np.int64)[1] == bits[1] and omit.view(np.int64)[3] == bits[3]
    assert omit[[0, 2, 4]].tolist() == [1.0, 3.0, 3.5]
    prop = cumulative(x, "cumsum", policy="propagate")[0].view(np.int64)
    # the greatest NaN under totalOrder so far: -NaN(11) until +NaN(3) appears
    assert prop.tolist() == [bits[0], bits[1], bits[1], bits[3], bits[3]]
    largest = cumulative(x, "cummax", policy="largest")[0].view(np.int64)
    assert largest.tolist() == [bits[0], bits[1], bits[1], bits[3], bits[3]]
    smallest_max = cumulative(x, "cummax", policy="smallest")[0]
    assert smallest_max.tolist() == [1.0, 1.0, 2.0, 2.0, 2.0]
    smallest_min = cumulative(x, "cummin", policy="smallest")[0].view(np.int64)
    assert smallest_min.tolist()[1:] == [bits[1]] * 4  # -NaN(11) is the smallest NaN
    total = cumulative(x, "cummax", policy="totalorder")[0].view(np.int64)
    assert total.tolist() == [bits[0], bits[0], np.float64(2.0).view(np.int64), bits[3],
                              bits[3]]
    with pytest.raises(na.NaNError, match="position 1"):
        cumulative(x, "cummax", policy="raise")
    snan = np.array([0x7FF0000000000001], np.int64).view(np.float64)
    with pytest.raises(na.SignalingNaNError):
        cumulative(np.concatenate([x[:1], snan]), "cumsum", policy="omit")


def test_arithmetic_nans_and_infinities():
    with np.errstate(invalid="ignore"):
        x = np.array([1.0, np.inf - np.inf, np.inf, 2.0, -np.inf, 3.0])
    got = cumulative(x, "cumsum", policy="omit")[0]
    assert got[0] == 1.0 and np.isnan(got[1]) and got[2] == np.inf and got[3] == np.inf
    assert np.isnan(got[4]) and np.isnan(got[5])
    z = cumulative(np.array([-0.0, -0.0, 0.0]), "cumsum", policy="raise")[0]
    assert np.signbit(z).tolist() == [True, True, False]


@pytest.mark.parametrize("stat", STATS)
def test_dtypes_and_no_mutation(stat):
    x = np.array([[3, -1, 2], [0, 5, -4]], dtype=np.int32)
    before = x.copy()
    got = cumulative(x, stat, axis=1, policy="raise")[0]
    ref = {"cumsum": np.cumsum, "cumprod": np.cumprod, "cummax": np.maximum.accumulate,
           "cummin": np.minimum.accumulate}.get(stat)
    if ref is not None:
        assert np.array_equal(got, ref(x, axis=1))
    else:
        assert got.tolist() == [[1, 2, 3], [1, 2, 3]]
    np.testing.assert_array_equal(x, before)
    f = np.array([0.5, np.nan, 0.25], np.float32)
    out = cumulative(f, stat, policy="omit")[0]
    assert out.dtype == (np.int64 if stat == "cumcount" else np.float32)


def test_int_overflow_is_an_error():
    with pytest.raises(OverflowError, match="position 1"):
        cumulative(np.array([2**62, 2**62], np.int64), "cumsum", policy="raise")


def test_nullable_and_duplicate_labels():
    s = pd.Series(pd.array([1, None, 3, 4], dtype="Int64"), index=["a", "a", "b", "a"],
                  name="n")
    got = s.nanstats.cumsum(nan_policy="omit")
    pd.testing.assert_series_equal(got, s.cumsum())
    prop = s.nanstats.cumsum(nan_policy="propagate")
    assert prop.isna().tolist() == [False, True, True, True]
    with pytest.raises(na.NaNError, match="column 'n'.*index 'a'|index 'a'.*column 'n'"):
        s.nanstats.cummax(nan_policy="raise")


def test_frame_and_tz_index():
    idx = pd.date_range("2024-03-30", periods=4, freq="D", tz="Europe/Paris")
    df = pd.DataFrame({"x": [0.1, 0.2, np.nan, 0.3], "y": [1, 2, 3, 4]}, index=idx)
    got = df.nanstats.cumsum(nan_policy="omit")
    assert got.index.equals(idx) and list(got.columns) == ["x", "y"]
    assert got["x"].tolist()[-1] == float(Fraction(0.1) + Fraction(0.2) + Fraction(0.3))
    pd.testing.assert_frame_equal(df.nanstats.cummax(nan_policy="omit"), df.cummax())


@pytest.mark.parametrize("stat", ["cumsum", "cumprod", "cummax", "cummin"])
def test_grouped_matches_pandas(stat):
    rng = np.random.default_rng(2)
    k = rng.integers(0, 5, 200).astype(float)
    k[[4, 9]] = np.nan
    sizes = rng.integers(1, 4, 200).astype(float)
    df = pd.DataFrame({"k": k, "v": sizes})
    df.loc[[7, 50], "v"] = np.nan
    got = getattr(df.groupby("k").nanstats, stat)(nan_policy="omit")
    want = getattr(df.groupby("k"), stat)()
    pd.testing.assert_frame_equal(got, want, check_dtype=False)


@pytest.mark.parametrize("grouped", [False, True])
def test_frame_result_assembled_from_one_block(grouped):
    """Several float columns (one block), a nullable and an int column (column by
    column): labels and dtypes as pandas', each float prefix the Fraction one, and the
    result independent of the input."""
    rng = np.random.default_rng(4)
    n = 300
    a = rng.standard_normal(n) * 10.0 ** rng.integers(-8, 8, n)
    a[[3, 77]] = np.nan
    df = pd.DataFrame({"k": rng.integers(0, 3, n), "a": a, "b": rng.random(n),
                       "i": pd.array(rng.integers(0, 9, n), dtype="Int64")},
                      index=pd.RangeIndex(10, 10 + n, name="r"))
    df.iloc[[5, 6], 3] = pd.NA
    for cols in (["a", "b"], ["a", "b", "i"], ["b"]):
        frame = df[cols]
        got = (frame.groupby(df["k"]).nanstats.cumsum(nan_policy="omit") if grouped
               else frame.nanstats.cumsum(nan_policy="omit"))
        want = frame.groupby(df["k"]).cumsum() if grouped else frame.cumsum()
        pd.testing.assert_index_equal(got.columns, want.columns)
        pd.testing.assert_index_equal(got.index, frame.index)
        assert got.dtypes.tolist() == want.dtypes.tolist()
        for c in cols:
            keys = df["k"].to_numpy() if grouped else np.zeros(n, int)
            vals = frame[c].to_numpy(dtype=float, na_value=np.nan)
            ref = np.full(n, np.nan)
            for key in np.unique(keys):
                at = np.flatnonzero((keys == key) & ~np.isnan(vals))
                ref[at] = fraction_prefix(vals[at])
            np.testing.assert_array_equal(got[c].to_numpy(dtype=float, na_value=np.nan), ref)
        got.iloc[0, 0] = 123.0  # its own memory
        assert frame.iloc[0, 0] != 123.0


@pytest.mark.parametrize("grouped", [False, True])
def test_frame_block_keeps_messy_labels(grouped):
    """Duplicate column labels, a tz-aware irregular index with a repeated stamp and
    NaNs made by arithmetic (inf - inf: negative on x86) survive the one-block result:
    labels as pandas', values as pandas' cumsum/cummax on this finite-prefix data."""
    stamps = pd.to_datetime(["2024-03-31 01:00", "2024-03-31 01:00", "2024-03-31 03:30",
                             "2024-04-02 00:00", "2024-04-02 00:01", "2024-05-01 00:00"],
                            utc=True).tz_convert("Europe/Berlin")
    inf = np.array([np.inf])
    with np.errstate(invalid="ignore"):
        made_nan = (inf - inf)[0]
    data = np.array([[1.0, 0.5], [made_nan, 2.0], [3.0, made_nan],
                     [-4.0, 1.0], [0.25, -7.0], [8.0, 0.0]])
    df = pd.DataFrame(data, index=stamps, columns=["x", "x"])
    keys = np.array([1, 0, 1, 0, 1, 1])
    for stat in ("cumsum", "cummax"):
        if grouped:
            got = getattr(df.groupby(keys).nanstats, stat)(nan_policy="omit")
            want = getattr(df.groupby(keys), stat)()
        else:
            got = getattr(df.nanstats, stat)(nan_policy="omit")
            want = getattr(df, stat)()
        pd.testing.assert_frame_equal(got, want)


def test_grouped_skewed_sizes_and_errors():
    codes = np.r_[np.zeros(5000, np.int64), np.arange(1, 300)]
    x = np.ones(codes.size)
    x[10] = np.nan
    got, _ = grouped_cumulative(x, codes, 300, "cumsum", policy="omit")
    assert got[5000 - 1] == 4999.0 and np.isnan(got[10]) and got[-1] == 1.0
    with pytest.raises(na.NaNError) as info:
        grouped_cumulative(x, codes, 300, "cumsum", policy="raise")
    assert info.value.group == 0


@pytest.mark.parametrize("engine_name", ["numpy", pytest.param("numba", marks=NEEDS_NUMBA)])
def test_omit_lane_exact_with_nans_zeros_and_infinities(engine_name):
    rng = np.random.default_rng(5)
    x = rng.normal(size=300) * 10.0 ** rng.integers(-20, 20, size=300)
    x[rng.integers(0, 300, 30)] = np.nan
    x[:3] = [-0.0, np.nan, -0.0]
    with options.option_context(engine=engine_name):
        got = cumulative(x, "cumsum", policy="omit")[0]
        keep = ~np.isnan(x)
        want = np.full(x.size, np.nan)
        want[keep] = fraction_prefix(x[keep])
        want[:3] = [-0.0, np.nan, -0.0]
        assert np.array_equal(np.isnan(got), ~keep)
        assert got[keep].tobytes() == want[keep].tobytes()
        y = x.copy()
        y[100] = np.inf  # the compiled lane hands this row to the general path
        got = cumulative(y, "cumsum", policy="omit")[0]
        assert got[99] == want[99] and (got[100:][keep[100:]] == np.inf).all()


@pytest.mark.skipif(not _numba.AVAILABLE, reason="numba not installed or disabled")
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_extremes_and_sums_same_bits_on_both_engines(dtype):
    from nanaccess import options

    rng = np.random.default_rng(8)
    x = rng.choice(np.array([-0.0, 0.0, 1.0, -1.0, np.nan, np.inf, -np.inf, 2.5]),
                   size=(3, 100)).astype(dtype)
    for stat in ("cummax", "cummin", "cumsum"):
        for pol in ("omit", "propagate"):
            with options.option_context(engine="numpy"):
                want = cumulative(x, stat, axis=1, policy=pol)[0]
            with options.option_context(engine="numba", compile="foreground"):
                got = cumulative(x, stat, axis=1, policy=pol)[0]
            assert got.tobytes() == want.tobytes()
    # zeros by totalOrder: +0.0 is the larger, whatever the order they come in
    z = np.array([-0.0, 0.0, -0.0] * 30)
    assert not np.signbit(cumulative(z, "cummax", policy="omit")[0][1:]).any()
    assert np.signbit(cumulative(-z, "cummin", policy="omit")[0][1:]).all()


@pytest.mark.skipif(not _numba.AVAILABLE, reason="numba not installed or disabled")
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_grouped_one_pass_same_bits_as_the_reference(dtype):
    from nanaccess import options
    from nanaccess.core.cumulative import grouped_cumulative

    rng = np.random.default_rng(9)
    for trial in range(6):
        x = rng.choice(np.array([-0.0, 0.0, 1.5, -1.0, np.nan, 0.1, 1e20, -1e20]), 300)
        if trial % 3 == 0:
            x[5] = np.inf  # the compiled pass hands this group to the reference
        codes = rng.integers(-1, 7, 300)
        for stat in ("cumsum", "cummax", "cummin"):
            with options.option_context(engine="numpy"):
                want = grouped_cumulative(x.astype(dtype), codes, 7, stat, policy="omit")[0]
            with options.option_context(engine="numba", compile="foreground"):
                got = grouped_cumulative(x.astype(dtype), codes, 7, stat, policy="omit")[0]
            assert got.dtype == want.dtype and got.tobytes() == want.tobytes()


@pytest.mark.parametrize(("dtype", "snan"), [(np.float64, 0x7FF0000000000001),
                                             (np.float32, 0x7F800001),
                                             (np.float16, 0x7C01)])
@pytest.mark.parametrize("stat", ["cumsum", "cummax", "cummin"])
def test_a_signaling_nan_is_refused_inside_the_compiled_pass(engine, dtype, snan, stat):
    # "omit" on long rows: the compiled pass flags a signaling NaN (no scan first)
    if dtype == np.float16 and stat == "cumsum":
        pytest.skip("float16 sums take the general path")
    x = np.tile(np.array([1.0, np.nan, -2.0, 0.5], dtype), 50)
    ints = {2: np.int16, 4: np.int32, 8: np.int64}[x.itemsize]
    x.view(ints)[150] = snan
    before = x.copy()
    with pytest.raises(na.SignalingNaNError, match="position 150"):
        cumulative(x, stat, policy="omit")
    assert np.array_equal(x.view(ints), before.view(ints))
    assert cumulative(x, stat, policy="totalorder")[0].shape == x.shape
    x[150] = np.nan  # quiet: the values pandas gives
    got = cumulative(x, stat, policy="omit")[0]
    want = getattr(pd.Series(x), stat)().to_numpy()
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("stat", ["cumsum", "cummax", "cummin"])
def test_grouped_signaling_nan_refused_in_the_one_pass(engine, stat):
    codes = np.tile(np.arange(4), 50)
    codes[7] = -1  # a row outside every group: its signaling NaN is not read
    x = np.tile(np.array([1.0, np.nan, -2.0, 0.5]), 50)
    bits = x.view(np.int64)
    bits[7] = 0x7FF0000000000001
    got = grouped_cumulative(x, codes, 4, stat, policy="omit")[0]
    assert np.isnan(got[7]) and got[4] == getattr(pd.Series(x[[0, 4]]), stat)().iloc[-1]
    bits[150] = 0x7FF0000000000001  # group 2
    before = x.copy()
    with pytest.raises(na.SignalingNaNError) as info:
        grouped_cumulative(x, codes, 4, stat, policy="omit")
    assert info.value.group == 2
    assert np.array_equal(x.view(np.int64), before.view(np.int64))
