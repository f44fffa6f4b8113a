"""The table's result-dtype rule (``_stats.result_dtype``) against what the engines
produce: the flat core, the grouped engine and the windows, for every statistic,
dtype and the parameters that change the rule. Hosts read the rule instead of running
an engine on a probe array, so a mismatch here is a wrong dtype on a lazy host."""

from __future__ import annotations

import numpy as np
import pytest

from nanaccess import _stats
from nanaccess.core.grouped import grouped_reduce
from nanaccess.core.reduce import check_params, reduce, result_dtype
from nanaccess.core.window import fixed_bounds, window_reduce
from nanaccess.options import NanPolicy

DTYPES = ["float16", "float32", "float64", ">f8", "int8", "int32", "int64", "uint8",
          "uint64", "bool", "M8[ns]", "m8[ns]", "M8[s]", "O"]
PARAMS = {
    "quantile": [dict(q=0.5), dict(q=[0.25, 0.5], method="lower"), dict(q=0.5, method="nearest"),
                 dict(q=0.5, method="midpoint")],
    "iqr": [{}, dict(method="lower")],
    "mad": [{}, dict(scale="normal")],
    "var": [{}, dict(ddof=1)],
    "std": [{}],
}
CASES = [(s, p) for s in _stats.STATISTICS for p in PARAMS.get(s, [{}])]


def _data(dt: str) -> np.ndarray:
    if dt == "O":
        return np.array([1, 2, 3, 4, 7, 9], dtype=object)
    return np.array([1, 2, 3, 4, 7, 9]).astype(dt)


def _defined(stat: str, dt: str) -> bool:
    try:
        check_params(stat, dt)
    except TypeError:
        return False
    return not (dt == "O" and stat in _stats.ARG + ("count",))


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize(("stat", "params"), CASES, ids=[f"{s}-{p}" for s, p in CASES])
def test_flat_core_keeps_the_rule(stat, params, dt):
    if not _defined(stat, dt):
        pytest.skip("not defined for this dtype")
    got = reduce(_data(dt), stat, axis=0, policy=NanPolicy.OMIT, **params).values
    assert got.dtype == _stats.result_dtype(stat, dt, **params)


@pytest.mark.parametrize("dt", ["float16", "float32", "float64", "int32", "uint8", "bool",
                                "m8[ns]"])
@pytest.mark.parametrize(("stat", "params"), [c for c in CASES if c[0] in _stats.GROUPED],
                         ids=[f"{s}-{p}" for s, p in CASES if s in _stats.GROUPED])
def test_grouped_and_windows_keep_the_rule(stat, params, dt):
    """The grouped engine's exact values and the windows' (ints widen to float64 where
    an empty window is NaN) follow the same rule."""
    if not _defined(stat, dt):
        pytest.skip("not defined for this dtype")
    x = _data(dt)
    want = _stats.result_dtype(stat, dt, **params)
    g = grouped_reduce(x, np.array([0, 0, 0, 1, 1, 1]), 2, stat, policy=NanPolicy.OMIT,
                       **params)
    assert g.exact.dtype == want
    s, e = fixed_bounds(x.size, 2)
    w = window_reduce(x, s, e, stat, policy=NanPolicy.OMIT, **params)
    wide = np.dtype(np.float64) if want.kind in "biu" else want
    assert w.values.dtype in (want, wide)


def test_check_params_refuses_as_the_core_does():
    with pytest.raises(TypeError, match="var of datetime64"):
        result_dtype("var", "datetime64[ns]")
    with pytest.raises(TypeError, match="quantile needs q"):
        result_dtype("quantile", "float64")
    with pytest.raises(ValueError, match="rng"):
        result_dtype("iqr", "float64", rng=(1, 200))
    with pytest.raises(TypeError, match="unexpected"):
        result_dtype("median", "float64", ddof=1)
    assert result_dtype("quantile", "int16", q=0.5, method="higher") == np.int16


def test_grouped_timedelta_std_is_the_flat_cores_and_pandas():
    """The grouped std of timedelta64 is a duration of the data's unit (it was float64
    nanoseconds: the grouped and flat engines disagreed), value for value the flat
    core's per group and pandas' ``GroupBy.std`` (NaT missing, truncated to the unit)."""
    import pandas as pd

    x = np.array([1, 2, "NaT", 4, 8, 16, 32, 7], "m8[ns]")
    codes = np.array([0, 0, 0, 0, 1, 1, 1, 2])
    g = grouped_reduce(x, codes, 3, "std", policy=NanPolicy.OMIT, ddof=1)
    assert g.exact.dtype == np.dtype("m8[ns]")
    for k in range(3):
        flat = reduce(x[codes == k], "std", policy=NanPolicy.OMIT, ddof=1).values
        assert g.values[k].view(np.int64) == flat.view(np.int64)
    want = pd.Series(x).groupby(codes).std()
    got = pd.Series(x).groupby(codes).nanstats.std(nan_policy="omit")
    pd.testing.assert_series_equal(got, want)
