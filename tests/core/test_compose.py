"""core/compose.py: derived statistics built once from the table's ``Compose`` entries,
for every shape, and a clear error (never another statistic) where a shape cannot."""

from __future__ import annotations

import numpy as np
import pytest

from nanaccess import _stats
from nanaccess.core.compose import StatisticNotServed, compose
from nanaccess.core.grouped.reduce import GroupedShape
from nanaccess.core.reduce import FlatShape, reduce
from nanaccess.core.window import fixed_bounds
from nanaccess.core.window.reduce import WindowShape
from nanaccess.options import NanPolicy

P = NanPolicy.OMIT
#: a statistic the table may gain (sem = std / sqrt(n)): no engine names it
SEM = _stats.Statistic("sem", "spread", False, "Standard error of the mean.",
                       compose=_stats.Compose("ratio", "std"))
TRIM = _stats.Statistic("trim", "spread", False, "A recipe no shape runs.",
                        compose=_stats.Compose("trimmed", "mean"))


def _x():
    x = np.random.default_rng(3).normal(size=(40, 3))
    x[::7, 1] = np.nan
    x[5, 2] = np.inf
    return x


def test_the_table_says_how_iqr_and_mad_are_built():
    assert _stats.get("iqr").compose == _stats.Compose("difference", "quantile")
    assert _stats.get("mad").compose == _stats.Compose("deviation", "median")
    assert set(_stats.COMPOSED) == {"iqr", "mad"}


def test_a_ratio_recipe_serves_a_new_statistic_on_every_shape():
    x = _x()
    flat, _ = compose(SEM, FlatShape(axis=0, policy=P, missing=None, keepdims=False), x,
                      ddof=1)
    n = (~np.isnan(x)).sum(axis=0)
    with np.errstate(invalid="ignore"):  # inf - inf in the reference
        want = np.nanstd(x, axis=0, ddof=1) / np.sqrt(n)
    np.testing.assert_allclose(flat[[0, 1]], want[[0, 1]], rtol=1e-14)
    assert np.isnan(flat[2])  # inf in the column: std is NaN, as the core's std
    codes = np.arange(40) % 2
    grouped, _ = compose(SEM, GroupedShape(codes, 2, P, None, None), x[:, 0], ddof=1)
    for g in (0, 1):
        v = x[codes == g, 0]
        assert grouped[g] == pytest.approx(np.std(v, ddof=1) / np.sqrt(v.size), rel=1e-14)


def test_iqr_and_mad_equal_their_definitions():
    x = _x()[:, 1]
    v = x[~np.isnan(x)]
    assert reduce(x, "iqr", policy=P, rng=(10, 90)).values == pytest.approx(
        np.quantile(v, 0.9) - np.quantile(v, 0.1), rel=1e-14)
    med = np.median(v)
    assert reduce(x, "mad", policy=P).values == pytest.approx(
        np.median(np.abs(v - med)), rel=1e-14)


def test_a_shape_that_cannot_run_a_recipe_names_statistic_and_engine():
    s, e = fixed_bounds(10, 3)
    shape = WindowShape(s, e, P, None, 0, None)
    with pytest.raises(NotImplementedError, match=r"window engine cannot compute 'mad'"):
        compose("mad", shape, np.arange(10.0))
    with pytest.raises(StatisticNotServed, match=r"flat engine cannot compute 'trim'"):
        compose(TRIM, FlatShape(axis=None, policy=P, missing=None, keepdims=False),
                np.arange(5.0))
    with pytest.raises(ValueError, match="not a composed statistic"):
        compose("median", FlatShape(axis=None, policy=P, missing=None, keepdims=False),
                np.arange(5.0))


def test_windows_compose_iqr_with_the_method_asked():
    """The windows build iqr from their own quantiles (the method kept on every engine)."""
    from nanaccess.core.window import window_reduce

    x = np.random.default_rng(1).normal(size=60)
    s, e = fixed_bounds(60, 9)
    got = window_reduce(x, s, e, "iqr", policy=P, method="lower", min_periods=9).values
    for i in range(8, 60):
        w = x[s[i]:e[i]]
        assert got[i] == np.quantile(w, 0.75, method="lower") - np.quantile(
            w, 0.25, method="lower")
