"""Which policy ``describe`` uses when none is passed, on every host and in the CLI:
the policy the user chose with ``set_options`` / ``option_context`` (except "raise":
describe exists to show the NaNs), else "omit"; the CLI's Python ``describe`` follows a
chosen policy, else shows all six."""

from __future__ import annotations

import io
import json
import threading

import numpy as np
import pandas as pd
import pytest

import nanaccess as na
from nanaccess import options
from nanaccess._describe import describe_policy
from nanaccess.options import chosen_option


@pytest.fixture(autouse=True)
def _nothing_chosen():
    """Each test starts with no policy chosen: other test modules restore a changed
    policy with a plain ``set_options`` call, which (as for a user) counts as chosen."""
    saved = set(options._global_chosen)
    options._global_chosen.clear()
    yield
    options._global_chosen.clear()
    options._global_chosen.update(saved)

DATA = [3.0, np.inf - np.inf, 1.0, 7.0, np.nan]  # a NaN made by arithmetic


def frame() -> pd.DataFrame:
    return pd.DataFrame({"x": np.array(DATA), "i": pd.array([1, None, 3, 4, 5], "Int64")})


def test_chosen_option_tracks_set_options_and_option_context():
    assert chosen_option("nan_policy") is None
    with na.set_options(nan_policy="raise"):  # chosen, even if the default value
        assert chosen_option("nan_policy") == "raise"
        with na.option_context(nan_policy="largest"):
            assert chosen_option("nan_policy") == "largest"
        assert chosen_option("nan_policy") == "raise"
    assert chosen_option("nan_policy") is None
    with na.option_context(engine="numpy"):  # another option: no policy chosen
        assert chosen_option("nan_policy") is None


def test_plain_set_options_call_is_chosen_until_restored():
    old = na.set_options(nan_policy="propagate")  # a plain call: process-wide
    try:
        assert chosen_option("nan_policy") == "propagate"
        seen = []
        t = threading.Thread(target=lambda: seen.append(chosen_option("nan_policy")))
        t.start()
        t.join()
        assert seen == ["propagate"]  # every thread sees set_options
    finally:
        old.__exit__(None, None, None)
    assert chosen_option("nan_policy") is None


def test_option_context_is_not_seen_by_other_threads():
    seen = []
    with na.option_context(nan_policy="propagate"):
        t = threading.Thread(target=lambda: seen.append(describe_policy(None)))
        t.start()
        t.join()
        assert describe_policy(None) == "propagate"
    assert seen == ["omit"]


@pytest.mark.parametrize(
    ("chosen", "want"),
    [(None, "omit"), ("raise", "omit"), ("omit", "omit"), ("propagate", "propagate"),
     ("largest", "largest"), ("smallest", "smallest"), ("totalorder", "totalorder")],
)
def test_describe_policy_rule(chosen, want):
    if chosen is None:
        assert describe_policy(None) == want
    else:
        with na.option_context(nan_policy=chosen):
            assert describe_policy(None) == want
            assert describe_policy("raise") == "raise"  # an argument always wins


@pytest.mark.parametrize("use", ["set_options", "option_context"])
def test_pandas_describe_follows_a_chosen_policy(use):
    df = frame()
    ctx = getattr(na, use)
    with ctx(nan_policy="propagate"):
        got = df.nanstats.describe()
        got_s = df["x"].nanstats.describe()
    want = df.nanstats.describe(nan_policy="propagate")
    pd.testing.assert_frame_equal(got, want)
    pd.testing.assert_series_equal(got_s, want["x"])
    # propagate: a NaN or a missing value makes the mean NaN
    assert np.isnan(got.loc["mean", "x"]) and np.isnan(got.loc["mean", "i"])
    # the default, and a chosen "raise", keep "omit" (describe shows the NaNs)
    omit = df.nanstats.describe(nan_policy="omit")
    pd.testing.assert_frame_equal(df.nanstats.describe(), omit)
    with ctx(nan_policy="raise"):
        pd.testing.assert_frame_equal(df.nanstats.describe(), omit)
    assert omit.loc["mean", "x"] == np.mean([3.0, 1.0, 7.0])
    assert omit.loc["mean", "i"] == 13 / 4
    with ctx(nan_policy="largest"):
        assert np.isnan(df.nanstats.describe().loc["max", "x"])
        # counts report every kind under every policy
        assert df.nanstats.describe().loc["nan", "x"] == 2


def test_groupby_describe_follows_a_chosen_policy():
    df = frame().assign(k=[1, 1, 2, 2, 2])
    with na.option_context(nan_policy="propagate"):
        got = df.groupby("k").nanstats.describe()
    pd.testing.assert_frame_equal(got, df.groupby("k").nanstats.describe(nan_policy="propagate"))


def test_xarray_describe_follows_a_chosen_policy():
    xr = pytest.importorskip("xarray")
    import nanaccess.xarray  # noqa: F401

    da = xr.DataArray(np.array(DATA), dims="t", name="x")
    with na.option_context(nan_policy="propagate"):
        got = da.nanstats.describe()
    xr.testing.assert_identical(got, da.nanstats.describe(nan_policy="propagate"))
    xr.testing.assert_identical(da.nanstats.describe(), da.nanstats.describe(nan_policy="omit"))


def test_dask_describe_resolves_the_policy_when_the_graph_is_built():
    dd = pytest.importorskip("dask.dataframe")
    import nanaccess.dask  # noqa: F401

    df = frame().assign(k=[1, 1, 2, 2, 2])
    ddf = dd.from_pandas(df, npartitions=2)
    with na.option_context(nan_policy="propagate"):
        lazy = ddf.nanstats.describe()
        lazy_g = ddf.groupby("k").nanstats.describe()
    pd.testing.assert_frame_equal(lazy.compute(), df.nanstats.describe(nan_policy="propagate"),
                                  check_dtype=False)
    got_g = lazy_g.compute().sort_index()
    want_g = df.groupby("k").nanstats.describe(nan_policy="propagate")
    pd.testing.assert_frame_equal(got_g[want_g.columns], want_g, check_dtype=False)
    # outside any choice: "omit" (a snapshot of the options must not make it raise)
    got = ddf.groupby("k").nanstats.describe().compute().sort_index()
    want = df.groupby("k").nanstats.describe(nan_policy="omit")
    pd.testing.assert_frame_equal(got[want.columns], want, check_dtype=False)


def test_polars_describe_follows_a_chosen_policy():
    pl = pytest.importorskip("polars")
    df = pl.DataFrame({"x": np.array(DATA)})
    with na.option_context(nan_policy="propagate"):
        got = df.nanstats.describe()
    assert got.equals(df.nanstats.describe(nan_policy="propagate"))
    assert not got.equals(df.nanstats.describe())


def test_cli_describe_follows_a_chosen_policy(tmp_path):
    from nanaccess.cli import describe

    path = tmp_path / "d.csv"
    path.write_text("a\n1\nnan\n3\n")

    def policies(**kw: object) -> set:
        out = io.StringIO()
        code = describe(path, fmt="json", stats=["mean"], out=out, **kw)
        return code, {r["policy"] for r in json.loads(out.getvalue())["statistics"]}

    assert policies() == (0, set(na.NanPolicy))  # "all" by default
    with na.option_context(nan_policy="omit"):
        assert policies() == (0, {"omit"})
        assert policies(policy="all")[1] == set(na.NanPolicy)  # an argument wins
    with na.set_options(nan_policy="raise"):
        assert policies() == (3, {"raise"})  # reported with exit code 3, never raised
