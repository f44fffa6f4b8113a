"""Host specs of the dask DataFrame accessors (see :mod:`apigen.render`)."""

from __future__ import annotations

from typing import Any

from .hosts_pandas import NUMERIC_ONLY
from .render import STATS, Example, HostSpec, example_calls

PATH = "nanaccess/dask/_generated.py"

#: a whole dask column reduces to every statistic but the positions (unknown partition
#: lengths) and the count (dask's own ``count`` is exact already)
STATISTICS = tuple(n for n in STATS.REDUCTIONS if STATS.get(n).family not in ("arg", "count"))

_SETUP = "import numpy as np, pandas as pd, dask.dataframe as dd, nanaccess.dask  # noqa: F401"
_LAZY = ("Policy errors are raised when the result is computed, naming the column and "
         "the index label of the first offending value. The result equals the in-memory "
         "pandas accessor's, bit for bit.")


def _series_returns(stat: Any) -> tuple[str, str]:
    text = ("dask Scalar\n    Lazy, as ``dask Series.sum``: ``.compute()`` gives what "
            "pandas' own method returns (a NumPy scalar)")
    if stat.name == "quantile":
        return "Any", (text.replace("dask Scalar", "dask Scalar or Series", 1)
                       + "; a sequence ``q`` gives a lazy Series indexed by ``q``, as pandas.")
    return "Any", text + "."


def _frame_returns(stat: Any) -> tuple[str, str]:
    text = "dask.dataframe.Series\n    One value per column, lazy"
    if stat.name == "quantile":
        text += "; a sequence ``q`` gives a lazy DataFrame indexed by ``q``"
    return "dd.Series | dd.DataFrame", text + "."


def _groupby_returns(stat: Any) -> tuple[str, str]:
    return "dd.DataFrame", ("dask.dataframe.DataFrame\n    One row per group, lazy; groups "
                            "follow the shuffle (``.compute().sort_index()`` for pandas' "
                            "order).")


def _groupby_calls(stat: Any) -> list[str]:
    if stat.name == "quantile":  # a scalar q each (a list q gives rows (group, q))
        return ['0.5, nan_policy="omit"', '0.9, nan_policy="omit"']
    return example_calls(stat)


_TYPES = ("import dask.dataframe as dd",)
_Q = {"q": "Quantile(s) in [0, 1]; a sequence gives one result per ``q``."}
_Q_GROUPED = {"q": ("Quantile(s) in [0, 1]; a sequence gives rows (group, q), as pandas' "
                     "``GroupBy.quantile``.")}

HOSTS = [
    HostSpec(
        key="dask.Series",
        label="dask Series.nanstats",
        path=PATH,
        name="DaskSeriesStatsMixin",
        title="Statistic methods of the dask DataFrame accessors (Series, DataFrame, GroupBy).",
        doc="The statistics of a dask ``Series.nanstats``: lazy, exact.",
        order=("q", "*", "nan_policy"),
        pandas_defaults=True,
        defaults={"q": 0.5},
        param_docs=_Q,
        statistics=STATISTICS,
        returns=_series_returns,
        extended=lambda stat: _LAZY,
        see_also=lambda stat: [(f"pandas.Series.nanstats.{stat.name}", "The same, in memory.")],
        example=Example(
            (_SETUP, "s = dd.from_pandas(pd.Series([4.0, np.nan, 1.0, 3.0, 10.0]), "
                     "npartitions=2)"),
            "s.nanstats",
            wrap="{call}.compute()",
        ),
        type_imports=_TYPES,
        docs_module="dask.dataframe",
        docs_prefix="Series.nanstats.",
        docs_extra=("agg", "describe", "nan_report", "corr", "cov"),
    ),
    HostSpec(
        key="dask.DataFrame",
        label="dask DataFrame.nanstats",
        path=PATH,
        name="DaskDataFrameStatsMixin",
        doc="The statistics of a dask ``DataFrame.nanstats``: one lazy value per column.",
        params=(NUMERIC_ONLY,),
        order=("q", "*", "numeric_only", "nan_policy"),
        pandas_defaults=True,
        defaults={"q": 0.5},
        param_docs=_Q,
        statistics=STATISTICS,
        returns=_frame_returns,
        extended=lambda stat: _LAZY,
        see_also=lambda stat: [(f"pandas.DataFrame.nanstats.{stat.name}",
                                "The same, in memory.")],
        example=Example(
            (_SETUP, 'df = pd.DataFrame({"a": [4.0, np.nan, 1.0, 3.0], "b": [2.0, 5.0, 1.0, 3.0]})',
             "ddf = dd.from_pandas(df, npartitions=2)"),
            "ddf.nanstats",
            wrap="{call}.compute()",
        ),
        type_imports=_TYPES,
        docs_module="dask.dataframe",
        docs_prefix="DataFrame.nanstats.",
        docs_extra=("agg", "describe", "nan_report", "groupby", "corr", "cov"),
    ),
    HostSpec(
        key="dask.GroupBy",
        label="ddf.groupby(...).nanstats",
        path=PATH,
        name="DaskGroupByStatsMixin",
        doc=("The statistics of ``ddf.groupby(by).nanstats`` and "
             "``ddf.nanstats.groupby(by)``: each group whole in one partition, then the "
             "in-memory grouped kernel."),
        order=("q", "*", "nan_policy"),
        pandas_defaults=True,
        defaults={"q": 0.5},
        param_docs=_Q_GROUPED,
        statistics=STATISTICS,
        returns=_groupby_returns,
        extended=lambda stat: "Exact, and equal bit for bit to the pandas GroupBy result.",
        see_also=lambda stat: [(f"pandas.api.typing.DataFrameGroupBy.nanstats.{stat.name}",
                                "The same, in memory.")],
        example=Example(
            (_SETUP, 'df = pd.DataFrame({"g": list("aabbb"), "x": [4.0, np.nan, 1.0, 3.0, 10.0]})',
             "ddf = dd.from_pandas(df, npartitions=2)"),
            'ddf.groupby("g").nanstats',
            wrap="{call}.compute().sort_index()",
        ),
        example_calls=_groupby_calls,
        type_imports=_TYPES,
    ),
]
