"""Host specs of the polars namespaces (see :mod:`apigen.render`)."""

from __future__ import annotations

from typing import Any

from .render import STATS, Example, HostParam, HostSpec, takes_policy

PATH = "nanaccess/polars/_generated.py"

CONVENTIONS = "from .._conventions import interpolation_method"

#: polars' own method of the same statistic (for See Also)
POLARS_METHOD = {
    "median": "median", "quantile": "quantile", "min": "min", "max": "max",
    "argmin": "arg_min", "argmax": "arg_max", "mean": "mean", "var": "var", "std": "std",
    "sum": "sum", "count": "count",
}

_SETUP = "import polars as pl, nanaccess  # noqa: F401"

INTERPOLATION = HostParam(
    "interpolation", "None", "str, optional",
    "polars' name of ``method`` (the same choices). Not given, ``method`` decides, and "
    'its default is "linear" as NumPy, pandas and xarray (polars\' own quantile defaults '
    'to "nearest": pass ``interpolation="nearest"`` for it).',
    annotation="str | None",
    applies=lambda stat: stat.name == "quantile",
    folds_into=("method", "interpolation_method"),
)
MIN_COUNT = HostParam(
    "min_count", "0", "int",
    "A result over fewer than ``min_count`` values (after the policy) is null.",
    annotation="int",
    applies=lambda stat: stat.name == "sum",
)
NUMERIC_ONLY = HostParam(
    "numeric_only", "False", "bool",
    "Leave out non-numeric columns (otherwise they raise TypeError).",
    annotation="bool",
)

_NULLS = ("null is missing and NaN is NaN, as polars stores them: ``omit`` leaves out "
          "both, ``raise`` names the column and the row of the first one.")


def _picks(stat: Any) -> str:
    return (" The result is one of the values exactly as stored (dtype and NaN payload "
            "kept).") if stat.picks else ""


def _see_also(kind: str) -> Any:
    def see_also(stat: Any) -> list[tuple[str, str]]:
        own = POLARS_METHOD.get(stat.name)
        return [(f"polars.{kind}.{own}", "polars' own method (NaN-blind).")] if own else []
    return see_also


def _series_returns(stat: Any) -> tuple[str, str]:
    if stat.name == "quantile":
        return "Any", ("scalar or polars.Series\n    A scalar for a float ``q``; for a "
                       "sequence a Series of one value per ``q``.")
    return "Any", ("scalar\n    A NumPy scalar in the column's dtype (float64 for "
                   "interpolated integers); None for a missing (null) result.")


def _frame_returns(stat: Any) -> tuple[str, str]:
    return "pl.DataFrame", ("polars.DataFrame\n    One row (as polars' ``df.median()``); "
                            "a sequence ``q`` gives one row per ``q`` and a ``quantile`` "
                            "column first.")


def _lazy_returns(stat: Any) -> tuple[str, str]:
    return "pl.LazyFrame", ("polars.LazyFrame\n    One row, computed at ``collect()`` "
                            "(errors of the policy are raised there).")


def _groupby_returns(stat: Any) -> tuple[str, str]:
    return "pl.DataFrame", ("polars.DataFrame\n    One row per group: the key columns "
                            "first, then one column per value column.")


def _expr_returns(stat: Any) -> tuple[str, str]:
    return "pl.Expr", ("polars.Expr\n    One value (per group inside ``group_by().agg``), "
                       "for ``select``, ``with_columns`` and ``agg``.")


def _calls(stat: Any) -> list[str]:
    if not takes_policy(stat):
        return [""]
    if stat.name == "quantile":
        return ['0.5, nan_policy="omit"']
    return ['nan_policy="omit"', 'nan_policy="largest"']


_TYPES = ("import polars as pl",)
_DATA = 'pl.Series("x", [4.0, float("nan"), 1.0, None, 10.0])'
_FRAME = 'pl.DataFrame({"k": ["a", "a", "b", "b"], "x": [4.0, float("nan"), 1.0, 3.0]})'
_Q = {"q": "Quantile(s) in [0, 1]; a sequence gives one result per ``q``."}

HOSTS = [
    HostSpec(
        key="polars.Series",
        label="pl.Series.nanstats",
        path=PATH,
        name="SeriesStatsMixin",
        title="Statistic methods of the polars namespaces (Series, DataFrame, LazyFrame, "
              "Expr, group_by).",
        doc="The statistics of ``pl.Series.nanstats``: one value of the Series.",
        params=(INTERPOLATION, MIN_COUNT),
        order=("q", "*", "interpolation", "min_count", "nan_policy"),
        pandas_defaults=True,
        defaults={"q": 0.5},
        param_docs=_Q,
        returns=_series_returns,
        extended=lambda stat: (_NULLS + _picks(stat)).strip(),
        see_also=_see_also("Series"),
        example=Example((_SETUP, f"s = {_DATA}"), "s.nanstats"),
        example_calls=_calls,
        imports=(CONVENTIONS,),
        type_imports=_TYPES,
    ),
    HostSpec(
        key="polars.DataFrame",
        label="pl.DataFrame.nanstats",
        path=PATH,
        name="DataFrameStatsMixin",
        doc="The statistics of ``pl.DataFrame.nanstats``: one row of one value per column.",
        params=(NUMERIC_ONLY, INTERPOLATION, MIN_COUNT),
        order=("q", "*", "numeric_only", "interpolation", "min_count", "nan_policy"),
        pandas_defaults=True,
        defaults={"q": 0.5},
        param_docs=_Q,
        returns=_frame_returns,
        extended=lambda stat: (_NULLS + _picks(stat)).strip(),
        see_also=_see_also("DataFrame"),
        example=Example((_SETUP, f"df = {_FRAME}"), 'df.select("x").nanstats'),
        example_calls=_calls,
        imports=(CONVENTIONS,),
        type_imports=_TYPES,
    ),
    HostSpec(
        key="polars.LazyFrame",
        label="pl.LazyFrame.nanstats",
        path=PATH,
        name="LazyFrameStatsMixin",
        doc="The statistics of ``pl.LazyFrame.nanstats``: a lazy one-row frame.",
        params=(NUMERIC_ONLY, INTERPOLATION, MIN_COUNT),
        order=("q", "*", "numeric_only", "interpolation", "min_count", "nan_policy"),
        pandas_defaults=True,
        defaults={"q": 0.5},
        param_docs=_Q,
        returns=_lazy_returns,
        extended=lambda stat: (_NULLS + _picks(stat)).strip(),
        example=Example((_SETUP, f"df = {_FRAME}", 'lf = df.lazy().select("x")'),
                        "lf.nanstats", wrap='{call}.collect()["x"].to_list()'),
        example_calls=_calls,
        imports=(CONVENTIONS,),
        type_imports=_TYPES,
    ),
    HostSpec(
        key="polars.Expr",
        label="pl.Expr.nanstats",
        path=PATH,
        name="ExprStatsMixin",
        doc="The statistics of ``pl.col(...).nanstats``: expressions of one value.",
        params=(INTERPOLATION, MIN_COUNT),
        order=("q", "*", "interpolation", "min_count", "nan_policy"),
        pandas_defaults=True,
        defaults={"q": 0.5},
        param_docs=_Q,
        returns=_expr_returns,
        extended=lambda stat: (_NULLS + " Inside ``group_by().agg`` polars calls it once "
                               "per group; ``df.nanstats.group_by(...)`` computes every "
                               "group in one pass." + _picks(stat)).strip(),
        see_also=_see_also("Expr"),
        example=Example((_SETUP, f"df = {_FRAME}", 'g = df.group_by("k", maintain_order=True)',
                         'x = pl.col("x")'),
                        "x.nanstats", wrap='g.agg({call})["x"].to_list()'),
        example_calls=_calls,
        imports=(CONVENTIONS,),
        type_imports=_TYPES,
    ),
    HostSpec(
        key="polars.GroupBy",
        label="df.nanstats.group_by(...)",
        path=PATH,
        name="GroupByStatsMixin",
        doc=("The statistics of ``df.nanstats.group_by(keys)``: every group in one pass "
             "of the grouped kernels."),
        params=(NUMERIC_ONLY, INTERPOLATION, MIN_COUNT),
        order=("q", "*", "numeric_only", "interpolation", "min_count", "nan_policy"),
        pandas_defaults=True,
        defaults={"q": 0.5},
        param_docs={"q": "Quantile in [0, 1]."},
        statistics=tuple(n for n in STATS.GROUPED),
        returns=_groupby_returns,
        extended=lambda stat: (_NULLS + _picks(stat)).strip(),
        example=Example((_SETUP, f"df = {_FRAME}"), 'df.nanstats.group_by("k")',
                        wrap='{call}["x"].to_list()'),
        example_calls=_calls,
        imports=(CONVENTIONS,),
        type_imports=_TYPES,
    ),
]
