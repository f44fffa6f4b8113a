"""The window engine table (``core/window/engines.py``): rows keyed by the statistics
table's kernel families, asked in order, the answering engine recorded."""

from __future__ import annotations

import numpy as np
import pytest

from nanaccess import _stats
from nanaccess.core import _numba as NB
from nanaccess.core.window import engines, fixed_bounds, fixed_windows, window_reduce
from nanaccess.core.window import reference as wref

NEEDS_NUMBA = pytest.mark.skipif(not NB.AVAILABLE, reason="numba is not installed")


def _families() -> set[str]:
    out = set()
    for name in _stats.WINDOWED:
        entry = _stats.get(name)
        out.add(entry.kernel_family if entry.compose is None else entry.compose.recipe)
    return out


def test_rows_name_the_tables_kernel_families():
    # every row serves families the statistics table defines, every windowed statistic
    # reaches the reference row, and the reference row is last (it serves everything)
    known = _families() | {"arg", "higher"}
    for eng in engines.ENGINES:
        assert eng.families <= known | {"difference", "ratio", "deviation"}, eng.name
    assert engines.ENGINES[-1].name == "reference"
    assert _families() <= engines.ENGINES[-1].families
    assert [e.name for e in engines.ENGINES if e.fused] == ["fused order", "fused moment"]


@pytest.mark.parametrize("x,stat,want", [
    (np.arange(30.0), "sum", "reference"),  # below SLIDING_MIN_PAIRS under "auto"
    (np.arange(30, dtype=np.int64), "sum", "integer sum"),
    (np.arange(30, dtype=np.int64), "count", "count"),
    (np.array([1, 2.5] * 15, dtype=object), "max", "reference"),
    (np.arange(30).astype("m8[s]"), "mean", "narrow moment"),
])
def test_the_answering_engine_is_recorded(x, stat, want):
    s, e = fixed_bounds(x.size, 5)
    got = window_reduce(x, s, e, stat, policy="omit")
    assert got.engine == want


@NEEDS_NUMBA
def test_compiled_rows_by_shape_and_dtype(monkeypatch):
    n = 5000
    x = np.random.default_rng(0).normal(size=n)
    x[::17] = np.nan
    s, e = fixed_bounds(n, 50)
    assert window_reduce(x, s, e, "median", policy="omit", engine="numba").engine == \
        "fused order"
    assert window_reduce(x, fixed_windows(n, 50), None, "mean", policy="omit",
                         engine="numba").engine == "fused moment"
    # a NaN the policy keeps: the fused kernel hands over, the sliding engine answers
    assert window_reduce(x, s, e, "median", policy="largest", engine="numba").engine == \
        "sliding order"
    # the NumPy engine asked for: no compiled row
    assert window_reduce(x, s, e, "median", policy="omit", engine="numpy").engine == \
        "reference"


@NEEDS_NUMBA
@pytest.mark.parametrize("policy", ["propagate", "smallest", "largest", "totalorder"])
def test_float16_order_windows_holding_nans_are_compiled(monkeypatch, policy):
    # float16 order statistics of windows holding NaNs under every ordering policy:
    # the sliding engine (O(n log w)), never the reference, with its bits
    pairs = []
    real = wref.window_reference
    monkeypatch.setattr(wref, "window_reference", lambda x2, m, s, e, *a: (
        pairs.append(int((e - s).sum())), real(x2, m, s, e, *a))[1])
    rng = np.random.default_rng(5)
    n = 2000
    x = rng.normal(size=n).astype(np.float16)
    x[::23] = np.nan
    x.view(np.uint16)[5::41] = 0xFE01  # negative NaNs with a payload
    s, e = fixed_bounds(n, 30)
    for stat, params in (("median", {}), ("min", {}), ("quantile", {"q": 0.7})):
        got = window_reduce(x, s, e, stat, policy=policy, engine="numba", **params)
        assert got.engine == "sliding order" and not pairs
        want = real(x[:, None], None, s, e, stat, got_policy(policy), "numpy", params)[0]
        assert np.array_equal(got.values.view(np.uint16), want[:, 0].view(np.uint16))


def got_policy(name):
    from nanaccess.options import resolve_policy

    return resolve_policy(name)
