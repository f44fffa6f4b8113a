"""The GroupBy accessor relies on pandas internals: fail loudly if pandas moves them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import nanaccess  # noqa: F401  (registers the accessors)
from nanaccess.pandas import DataFrameNanStats, NanGroupBy, SeriesNanStats, _groupby_registry


def test_pandas_still_exports_the_groupby_classes():
    from pandas.api.typing import DataFrameGroupBy, SeriesGroupBy

    df = pd.DataFrame({"g": [1, 1, 2], "x": [1.0, 2.0, 3.0]})
    assert isinstance(df.groupby("g"), DataFrameGroupBy)
    assert isinstance(df.groupby("g")["x"], SeriesGroupBy)
    assert _groupby_registry.GROUPBY_CLASSES == (DataFrameGroupBy, SeriesGroupBy)


def test_accessors_registered_on_import():
    df = pd.DataFrame({"g": [1, 1, 2], "x": [1.0, 2.0, 3.0]})
    assert isinstance(df.nanstats, DataFrameNanStats)
    assert isinstance(df["x"].nanstats, SeriesNanStats)
    assert isinstance(df.groupby("g").nanstats, NanGroupBy)
    assert isinstance(df["x"].groupby(df["g"]).nanstats, NanGroupBy)
    assert pd.DataFrame.nanstats is DataFrameNanStats
    from pandas.api.typing import DataFrameGroupBy

    assert DataFrameGroupBy.nanstats is NanGroupBy


def test_accessor_keeps_no_state():
    df = pd.DataFrame({"x": [1.0]})
    assert vars(df.nanstats) == {"_obj": df}
    assert vars(df.groupby("x").nanstats).keys() == {"_obj"}


@pytest.mark.parametrize("observed", [True, False])
@pytest.mark.parametrize("dropna", [True, False])
def test_internals_match_pandas_results(observed, dropna):
    df = pd.DataFrame({
        "c": pd.Categorical(["b", "a", None, "b"], categories=["z", "b", "a"]),
        "x": [1.0, 2.0, 3.0, 4.0],
    })
    gb = df.groupby("c", observed=observed, dropna=dropna)
    codes, ngroups, index = _groupby_registry.grouping_info(gb)
    assert codes.dtype == np.intp and codes.shape == (4,)
    assert index.equals(gb.sum().index) and ngroups == len(index)
    # each row's code points at its own group label
    for row, code in enumerate(codes):
        label = df["c"].iloc[row]
        if code < 0:
            assert pd.isna(label) and dropna
        else:
            assert (pd.isna(label) and pd.isna(index[code])) or index[code] == label
    assert list(_groupby_registry.selected_obj(gb).columns) == ["x"]


def test_internals_error_is_loud():
    class Fake:
        pass

    with pytest.raises(RuntimeError, match="pandas changed its internals"):
        _groupby_registry.grouping_info(Fake())
    with pytest.raises(RuntimeError, match="pandas changed its internals"):
        _groupby_registry.selected_obj(Fake())


@pytest.mark.parametrize("s", [pd.Series([1.5, np.nan, 2.0]), pd.Series([1, 2], dtype="int8"),
                               pd.Series([True, False]),
                               pd.Series(pd.to_datetime(["2024-01-01", "2024-01-02"]))])
def test_numpy_values_is_the_stored_array(s):
    """``Series._values`` is the NumPy array pandas stores for NumPy dtypes (or the
    public values otherwise): equal bit for bit to ``to_numpy()``."""
    v = _groupby_registry.numpy_values(s)
    assert type(v) is np.ndarray
    want = s.to_numpy()
    assert v.dtype == want.dtype and v.tobytes() == want.tobytes()
    if s.dtype.kind != "M":  # pandas stores NumPy arrays for these: no view per call
        assert v is s._values


def test_column_dtypes_are_the_frames():
    df = pd.DataFrame({"a": [1.0], "b": [1], "c": pd.array([1], dtype="Int64"),
                       "d": pd.to_datetime(["2024-01-01"]).tz_localize("UTC")})
    df.insert(1, "e", np.float32(2.0))
    assert _groupby_registry.column_dtypes(df) == list(df.dtypes)
    assert _groupby_registry.column_dtypes(df) == [df[c].dtype for c in df.columns]
