"""Issue 16: one property per class of fault, over every discovered entry point.

The entry points come from the package (``entry_points()``): a new function or
accessor method is covered by default.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import nanaccess as na

from .entry_points import entry_points

pa = pytest.importorskip("pyarrow")

# nullable / Arrow / masked inputs holding one missing value (position 1) and no NaN
MISSING_INPUTS = {
    "nullable_float": lambda: pd.Series([3.0, None, 1.0, 2.0], dtype="Float64", name="temp"),
    "nullable_int": lambda: pd.Series([3, None, 1, 2], dtype="Int64", name="temp"),
    "arrow_float": lambda: pd.Series([3.0, None, 1.0, 2.0], dtype="float64[pyarrow]",
                                     name="temp"),
    "arrow_int": lambda: pd.Series([3, None, 1, 2], dtype="int64[pyarrow]", name="temp"),
    "masked": lambda: np.ma.array([3.0, 7.0, 1.0, 2.0], mask=[0, 1, 0, 0]),
}
NO_DATA_STAT = {"nan_report", "describe", "count", "isnan", "issignaling", "nan_payload",
                "totalorder_key", "groupby", "resample", "plot_nan_map", "agg", "sum",
                "sortby", "sort_values"}


def _function_eps():
    return [ep for ep in entry_points() if ep.host == "function"
            and ep.name not in NO_DATA_STAT]


def _series_eps():
    return [ep for ep in entry_points() if ep.host == "series"
            and ep.name not in NO_DATA_STAT]


def _call(ep, obj, **kw):
    kw = {k: v for k, v in kw.items() if ep.takes(k)}
    if ep.takes("q"):
        kw["q"] = 0.5
    if ep.host == "function":
        return getattr(na, ep.name)(obj, **kw)
    return getattr(obj.nanstats, ep.name)(**kw)


@pytest.mark.parametrize("kind", sorted(MISSING_INPUTS))
@pytest.mark.parametrize("ep", _function_eps() + _series_eps(), ids=lambda e: e.id)
def test_missing_is_never_called_nan_under_raise(ep, kind, request):
    """Class 1: under "raise", a missing value is reported as missing, never as NaN."""
    obj = MISSING_INPUTS[kind]()
    if ep.host == "series" and not isinstance(obj, pd.Series):
        pytest.skip("a masked array has no Series accessor")
    try:
        _call(ep, obj, nan_policy="raise")
    except na.NaNError as err:
        first = str(err).split(";")[0]
        assert "missing" in first and not re.search(r"\bNaN\b", first), str(err)
    except (TypeError, ValueError):
        pass  # the entry point refuses the input or the policy: documented


@pytest.mark.parametrize("kind", sorted(MISSING_INPUTS))
@pytest.mark.parametrize("fn", ["sort", "argsort", "rank"])
@pytest.mark.parametrize("policy", ["totalorder", "smallest", "largest", "omit"])
def test_missing_sorts_last_or_is_dropped(kind, fn, policy):
    """Class 1: a missing value is sorted after every value (dropped under "omit")."""
    obj = MISSING_INPUTS[kind]()
    out = getattr(na, fn)(obj, nan_policy=policy)
    if fn == "argsort":
        assert (1 not in out.tolist()) if policy == "omit" else out[-1] == 1
    elif fn == "rank":
        assert np.isnan(out[1]) if policy == "omit" else out[1] == len(out)
    else:
        vals = list(out)
        assert len(vals) == (3 if policy == "omit" else 4)
        if policy != "omit":
            assert np.ma.is_masked(vals[-1]) or vals[-1] is pd.NA


@pytest.mark.parametrize("kind", sorted(MISSING_INPUTS))
@pytest.mark.parametrize("fn", ["isnan", "issignaling", "nan_payload"])
def test_missing_has_no_nan_bits(kind, fn):
    """Class 1: a missing slot is not NaN and carries no payload."""
    out = np.asarray(getattr(na, fn)(MISSING_INPUTS[kind]()))
    assert out[1] == (-1 if fn == "nan_payload" else False)


BIG = 2**53 + 1
_PICK_HOSTS = ("series", "frame", "sgroupby", "dfgroupby")


def _pick_eps():
    from nanaccess import _stats

    picks = set(_stats.PICKS) | {"quantile"}
    return [ep for ep in entry_points() if ep.host in _PICK_HOSTS and ep.name in picks]


@pytest.mark.parametrize("dtype", ["Int64", "int64[pyarrow]"])
@pytest.mark.parametrize("ep", _pick_eps(), ids=lambda e: e.id)
def test_nullable_int_picks_stay_exact_beside_missing_results(ep, dtype):
    """Class 2: a pick of nullable-int data keeps its dtype and bits when another
    result (an all-NA group or column) is missing."""
    a = pd.array([BIG, BIG, None, None], dtype=dtype)
    kw = {"nan_policy": "omit"}
    if ep.takes("method"):
        kw["method"] = "lower"
    if ep.takes("q"):
        kw["q"] = 0.5
    if ep.host == "series":
        r = getattr(pd.Series(a[:2]).nanstats, ep.name)(**kw)
        r2 = getattr(pd.Series(a[2:]).nanstats, ep.name)(**kw)
        assert r == BIG and r2 is pd.NA
        return
    if ep.host == "frame":
        r = getattr(pd.DataFrame({"x": a[:2], "y": a[2:]}).nanstats, ep.name)(**kw)
    elif ep.host == "sgroupby":
        r = getattr(pd.Series(a).groupby([0, 0, 1, 1]).nanstats, ep.name)(**kw)
    else:
        df = pd.DataFrame({"g": [0, 0, 1, 1], "x": a})
        r = getattr(df.groupby("g").nanstats, ep.name)(**kw)["x"]
    assert r.dtype == a.dtype
    assert r.tolist() == [BIG, pd.NA]


def _dask_methods():
    dd = pytest.importorskip("dask.dataframe")
    import nanaccess.dask  # noqa: F401 - registers the accessors

    from .entry_points import _public_methods

    s = dd.from_pandas(pd.Series([1.0, 2.0]), npartitions=1)
    return [name for name, _ in _public_methods(type(s.nanstats))
            # agg and corr/cov take required arguments: tests/dask/test_dask_agg.py and
            # test_dask_corr.py hold them to laziness
            if name not in ("groupby", "plot_nan_map", "agg", "aggregate", "corr", "cov")]


def _refuse(*args, **kwargs):
    raise AssertionError("computed before .compute()")


@pytest.mark.parametrize("kind", ["float", "nullable_float", "arrow_int"])
@pytest.mark.parametrize("name", _dask_methods())
def test_dask_series_entry_points_are_lazy(name, kind):
    """Class 3: every dask Series entry point builds a graph without computing, for
    NumPy, nullable and Arrow columns, with unknown partition lengths."""
    import dask
    import dask.dataframe as dd

    data = {"float": pd.Series([3.0, np.nan, 1.0, 2.0]),
            "nullable_float": pd.Series([3.0, None, 1.0, 2.0], dtype="Float64"),
            "arrow_int": pd.Series([3, None, 1, 2], dtype="int64[pyarrow]")}[kind]
    ds = dd.from_pandas(data.rename("temp"), npartitions=2).clear_divisions()
    kw = {"nan_policy": "omit"} if name not in ("count", "nan_report") else {}
    if name == "quantile":
        kw["q"] = 0.5
    with dask.config.set(scheduler=_refuse):
        try:
            lazy = getattr(ds.nanstats, name)(**kw)
        except TypeError as err:  # a keyword this method does not take
            if "nan_policy" not in str(err):
                raise
            lazy = getattr(ds.nanstats, name)()
    assert hasattr(lazy, "compute")
