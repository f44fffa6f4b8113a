"""The pandas accessors' lean path for small NaN-free columns (issue 14): the same
results, bit for bit and in pandas' types, as the generic engine."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nanaccess.core.reduce as core_reduce_module
from nanaccess.core.reduce import reduce as core_reduce
from nanaccess.errors import NaNError
from nanaccess.options import NanPolicy
from nanaccess.pandas.dtypes import column_arrays, to_scalar


def reduce(*args, **kw):
    """The core's engines alone: the reference the lean paths are held to."""
    return core_reduce(*args, lean=False, **kw)


STATS = ("median", "median_low", "median_high", "min", "max", "sum", "mean")
POLICIES = ("omit", "propagate", "totalorder", "smallest", "largest")


def _generic(s: pd.Series, stat: str, policy: str, **params):
    col = column_arrays(s)
    red = reduce(col.values, stat, policy=NanPolicy(policy), missing=col.missing, **params)
    return to_scalar(red.values, False, col, bool(red.empty) and col.has_na)


def _bits(v) -> bytes:
    return np.asarray(v).tobytes() + str(np.asarray(v).dtype).encode()


_floats = st.lists(st.sampled_from([0.0, -0.0, 1.5, -2.0, 3.25, 1e300, -1e300, np.nan,
                                    -np.nan, np.inf]), min_size=1, max_size=30)


@settings(max_examples=60, deadline=None)
@given(_floats, st.sampled_from(STATS), st.sampled_from(POLICIES))
def test_series_small_path_equals_generic(values, stat, policy):
    s = pd.Series(np.array(values, dtype=np.float64))
    got = getattr(s.nanstats, stat)(nan_policy=policy)
    if policy == "omit" and s.isna().all():
        assert np.isnan(got)
        return
    assert _bits(got) == _bits(_generic(s, stat, policy))


@pytest.mark.parametrize("dtype", ["int64", "uint8", "float32", "Float64", "Int64", "bool"])
@pytest.mark.parametrize("stat", STATS)
def test_other_dtypes_equal_generic(dtype, stat):
    rng = np.random.default_rng(3)
    s = pd.Series(rng.integers(0, 50, size=101)).astype(dtype)
    got = getattr(s.nanstats, stat)()
    want = _generic(s, stat, "raise")
    assert _bits(got) == _bits(want)


def test_quantile_sequence_and_nan_raise_keep_labels():
    s = pd.Series([3.0, 1.0, 2.0, 4.0], index=list("abcd"), name="x")
    got = s.nanstats.quantile([0.25, 0.5], method="hazen")
    assert list(got.index) == [0.25, 0.5] and got.name == "x"
    assert got.tolist() == np.quantile(s.to_numpy(), [0.25, 0.5], method="hazen").tolist()
    with pytest.raises(NaNError, match=r"column 'y' holds 1 NaN value \(first at index 'q'\)"):
        pd.Series([1.0, np.nan], index=["p", "q"], name="y").nanstats.median()


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "bool"])
def test_one_dtype_frame_equals_each_series(dtype):
    rng = np.random.default_rng(4)
    df = pd.DataFrame(rng.integers(0, 9, size=(40, 3)), columns=["a", "b", "c"]).astype(dtype)
    for stat in ("median", "max", "mean"):
        got = getattr(df.nanstats, stat)()
        want = pd.Series({c: getattr(df[c].nanstats, stat)() for c in df.columns})
        pd.testing.assert_series_equal(got, want)
    before = df.copy()
    df.nanstats.quantile([0.1, 0.9])
    pd.testing.assert_frame_equal(df, before)


def test_one_dtype_frame_nan_error_names_the_column():
    df = pd.DataFrame({"a": [1.0, 2.0], "b": [np.nan, 1.0]}, index=["p", "q"])
    with pytest.raises(NaNError, match=r"column 'b' holds 1 NaN value \(first at index 'p'\)"):
        df.nanstats.median()


_ints = st.one_of(st.integers(-5, 5), st.integers(-(2**63), 2**63 - 1))


@settings(max_examples=80, deadline=None)
@given(st.lists(_ints, min_size=1, max_size=40), st.sampled_from(["int64", "uint64", "int8",
                                                                  "bool"]))
def test_integer_series_medians_equal_generic_and_pandas(values, dtype):
    """The integer / bool median lane: the generic engine's bits and type; pandas'
    value for "median" (float64 of each middle value, their sum halved)."""
    x = np.array(values, dtype=object)
    if dtype == "bool":
        x = x.astype(bool)
    else:
        info = np.iinfo(dtype)
        x = np.clip(x, int(info.min), int(info.max)).astype(dtype)
    s = pd.Series(x)
    for stat in ("median", "median_low", "median_high"):
        got = getattr(s.nanstats, stat)()
        assert _bits(got) == _bits(_generic(s, stat, "raise"))
    if dtype != "bool":
        assert s.nanstats.median() == s.median()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.sampled_from([0.0, -0.0, 1.5, -2.0, 3.25, 1.7e308, -1.7e308,
                                          np.inf, -np.inf, np.nan]), min_size=3, max_size=3),
                min_size=1, max_size=25), st.sampled_from(["median", "median_low",
                                                           "median_high"]),
       st.sampled_from(POLICIES))
def test_one_float_block_medians_equal_each_column(rows, stat, policy):
    """The one-partition lane of a float64 frame: each column's own result, bit for bit."""
    df = pd.DataFrame(np.array(rows, dtype=np.float64), columns=["a", "b", "c"])
    got = getattr(df.nanstats, stat)(nan_policy=policy)
    for c in df.columns:
        assert _bits(got[c]) == _bits(getattr(df[c].nanstats, stat)(nan_policy=policy))
    assert list(got.index) == ["a", "b", "c"] and got.dtype == np.float64


_SNAN = np.array([0x7FF0000000000001], dtype=np.uint64).view(np.float64)[0]


def _outcome(fn):
    """A result's bits, or the error's type and message."""
    try:
        return _bits(fn())
    except (NaNError, ValueError) as err:
        return type(err), str(err)


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.sampled_from([1, 3, 40, 65, 300, 1000]),
       nans=st.sampled_from(["none", "nan", "snan", "inf"]),
       stat=st.sampled_from(["sum", "mean", "var", "std"]),
       policy=st.sampled_from(("raise",) + POLICIES),
       ddof=st.sampled_from([None, 0, 1, 2, 0.5]))
def test_lean_moments_equal_generic(seed, n, nans, stat, policy, ddof):
    """Series and DataFrame sum / mean / var / std through the one-row kernel
    (core/small.moment_small): the generic path's bits and errors, every policy."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n) * 10.0 ** rng.integers(-5, 6, size=n)
    bad = rng.random(n) < 0.05
    x[bad] = {"none": x[bad], "nan": np.nan, "snan": _SNAN, "inf": np.inf}[nans]
    s = pd.Series(x, name="v")
    params = {} if ddof is None or stat in ("sum", "mean") else {"ddof": ddof}

    def series():
        return getattr(s.nanstats, stat)(nan_policy=policy, **params)

    def frame():
        return getattr(s.to_frame().nanstats, stat)(nan_policy=policy, **params)["v"]

    got, got_frame = _outcome(series), _outcome(frame)
    with pytest.MonkeyPatch.context() as mp:  # the accessors without the lean moments
        mp.setattr(core_reduce_module, "moment_small", lambda *a: None)
        want, want_frame = _outcome(series), _outcome(frame)
    assert got == want and got_frame == want_frame
    if isinstance(want, bytes) and not (policy == "omit" and np.isnan(x).all()):
        core = dict(params) if stat in ("sum", "mean") else {"ddof": 1, **params}
        assert got == _bits(_generic(s, stat, policy, **core))  # the core's own bits


def test_lean_moments_take_the_one_row_kernel(monkeypatch):
    """A 1000-row float64 Series' mean / std comes from moment_small (not the generic
    path), with NaNs under "omit" too."""
    calls = []
    real = core_reduce_module.moment_small
    monkeypatch.setattr(core_reduce_module, "moment_small",
                        lambda *a: calls.append(real(*a)) or calls[-1])
    x = np.random.default_rng(9).normal(size=1000)
    x[::97] = np.nan
    s = pd.Series(x)
    assert _bits(s.nanstats.mean(nan_policy="omit")) == _bits(_generic(s, "mean", "omit"))
    assert _bits(s.nanstats.std(nan_policy="omit")) == _bits(
        _generic(s, "std", "omit", ddof=1))
    assert len(calls) == 2 and all(c is not None for c in calls)
    assert s.nanstats.std(nan_policy="omit") == pytest.approx(s.std(), rel=1e-14)


@pytest.mark.parametrize("columns", [
    pd.Index(["k", "x", "y"], dtype="str", name="cols"),  # a string Index: the array slice
    pd.Index(["k", "x", "y"], dtype=object),
    pd.Index([0, 1, 2]),
    pd.MultiIndex.from_tuples([("k", ""), ("a", "x"), ("a", "y")]),
])
@pytest.mark.parametrize("numeric_only", [False, True])
def test_grouped_result_columns_are_pandas(columns, numeric_only):
    """The grouped result's column labels (a run of kept positions taken as a slice,
    a gap in them by position, repeated names by name) are pandas' own: dtype, name,
    order."""
    df = pd.DataFrame({"k": [0, 0, 1, 1], "x": [1.0, np.nan, 3.0, 4.0],
                       "y": [5.0, 6.0, 7.0, 8.0]})
    df.columns = columns
    key = columns[0]
    g = df.groupby(key)
    got = g.nanstats.median(nan_policy="omit", numeric_only=numeric_only)
    pd.testing.assert_frame_equal(got, g.median(numeric_only=numeric_only))
    if isinstance(columns, pd.MultiIndex):
        return
    mid = df.assign(**{"s": list("abcd")})[[key, columns[1], "s", columns[2]]] \
        if columns.dtype.kind != "i" else None
    if mid is not None:  # a string column between: skipped, the positions not a run
        g = mid.groupby(key)
        pd.testing.assert_frame_equal(g.nanstats.median(nan_policy="omit", numeric_only=True),
                                      g.median(numeric_only=True))
    dup = pd.DataFrame(df[[columns[1], columns[2]]].to_numpy(), columns=[columns[1]] * 2)
    dup[key] = df[key].to_numpy()
    g = dup.groupby(key)
    pd.testing.assert_frame_equal(g.nanstats.median(nan_policy="omit"), g.median())


_masked = st.lists(st.tuples(st.sampled_from([0.0, -0.0, 1.5, -2.0, 3.25, 1e300, -1e300,
                                              np.nan, np.inf, 7.0]), st.booleans()),
                   min_size=1, max_size=30)


@settings(max_examples=80, deadline=None)
@given(_masked, st.sampled_from(["Float64", "Float32", "Int64", "UInt8", "boolean"]),
       st.sampled_from(STATS + ("var", "std", "quantile")),
       st.sampled_from(("omit", "propagate", "totalorder")))
def test_nullable_series_lean_path_equals_generic(pairs, dtype, stat, policy):
    """Issue 30: small nullable Series with missing values take the lean path (the
    missing slots dropped first, when the policy removes them): the engines' result,
    bits, dtype and count, and NaN from arithmetic beside pd.NA."""
    vals = np.array([v for v, _ in pairs])
    if dtype in ("Int64", "UInt8", "boolean"):
        vals = np.nan_to_num(vals, nan=1.0, posinf=2.0, neginf=3.0)
        vals = (vals != 0.0) if dtype == "boolean" else np.abs(vals).clip(0, 200).round()
    arr = pd.array(vals, dtype=dtype)
    arr[np.array([m for _, m in pairs])] = pd.NA
    if dtype.startswith("Float"):  # a NaN from arithmetic beside the missing values
        arr = arr * pd.array(np.where(np.isnan(vals), np.nan, 1.0), dtype="Float64") \
            if dtype == "Float64" else arr
    s = pd.Series(arr)
    params = {"q": 0.3} if stat == "quantile" else {}
    col = column_arrays(s)
    lean = core_reduce(col.values, stat, policy=NanPolicy(policy), missing=col.missing,
                       **params)
    ref = reduce(col.values, stat, policy=NanPolicy(policy), missing=col.missing, **params)
    assert _bits(lean.values) == _bits(ref.values)
    assert (lean.missing is None) == (ref.missing is None or not ref.missing.any())
    assert _bits(lean.count) == _bits(ref.count)
    got = getattr(s.nanstats, stat)(nan_policy=policy, **params)
    with pytest.MonkeyPatch.context() as mp:  # the accessor on the engines alone
        mp.setattr(core_reduce_module, "lean_values", lambda *a: None)
        want = getattr(s.nanstats, stat)(nan_policy=policy, **params)
    assert got is want if want is pd.NA else _bits(got) == _bits(want)


@pytest.mark.parametrize("dtype", ["Float64", "Int64"])
def test_nullable_series_with_na_takes_the_lean_path(dtype, monkeypatch):
    """The masked lane is taken (not the engines) and its median is pandas'."""
    calls = []
    real = core_reduce_module.lean_values
    monkeypatch.setattr(core_reduce_module, "lean_values",
                        lambda *a: calls.append(real(*a)) or calls[-1])
    s = pd.Series(pd.array([4, None, 1, 3, 10, None, 2], dtype=dtype))
    assert s.nanstats.median(nan_policy="omit") == s.median() == 3.0
    assert len(calls) == 1 and calls[0] is not None
    assert pd.Series(pd.array([None, None], dtype=dtype)).nanstats.median(
        nan_policy="omit") is pd.NA
