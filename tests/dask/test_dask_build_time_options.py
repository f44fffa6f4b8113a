"""dask DataFrame windows and groupby read the nanaccess options when the graph is
BUILT (docs/dask.md), not when it is computed (issue 25, class 12): a graph built
inside ``option_context`` computes the same later outside it, and a graph built
outside computes the same inside another context."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import nanaccess as na

dd = pytest.importorskip("dask.dataframe")
import nanaccess.dask  # noqa: E402,F401  (registers the dask accessors)


@pytest.fixture
def frames():
    pdf = pd.DataFrame({"k": [1, 1, 2, 2, 1, 2], "x": [1.0, np.nan, 3.0, 4.0, 5.0, np.nan]},
                       index=pd.date_range("2024", periods=6, freq="h", tz="UTC"))
    return pdf, dd.from_pandas(pdf, npartitions=3)


def builds(ddf):
    """Graphs of every dask DataFrame window and groupby spelling."""
    return {
        "rolling": lambda: ddf.rolling(2, min_periods=1).nanstats.median(),
        "time rolling": lambda: ddf.rolling("2h").nanstats.mean(),
        "groupby rolling": lambda: ddf.groupby("k").rolling("2h").nanstats.max(),
        "groupby": lambda: ddf.groupby("k").nanstats.median(),
        "nanstats.groupby": lambda: ddf.nanstats.groupby("k").sum(),
        "groupby agg": lambda: ddf.nanstats.groupby("k").agg(["min", "max"]),
    }


@pytest.mark.parametrize("name", ["rolling", "time rolling", "groupby rolling", "groupby",
                                  "nanstats.groupby", "groupby agg"])
def test_graph_built_under_omit_computes_later_outside(frames, name):
    pdf, ddf = frames
    with na.option_context(nan_policy="omit"):
        graph = builds(ddf)[name]()
        inside = graph.compute()
    assert na.get_options()["nan_policy"] == "raise"
    later = graph.compute()  # the default "raise" would refuse the NaNs
    pd.testing.assert_frame_equal(later, inside) if isinstance(later, pd.DataFrame) else \
        pd.testing.assert_series_equal(later, inside)


@pytest.mark.parametrize("name", ["rolling", "groupby"])
def test_graph_built_outside_raises_inside_a_context(frames, name):
    _, ddf = frames
    graph = builds(ddf)[name]()  # built under "raise"
    with na.option_context(nan_policy="omit"), pytest.raises(na.NaNError):
        graph.compute()
