"""Host specs of the pandas accessors and ``nanaccess.agg`` (see :mod:`apigen.render`)."""

from __future__ import annotations

from typing import Any

from .render import STATS, Example, HostParam, HostSpec, package_functions, takes_policy

#: the hand-written cumulative methods (nanaccess/pandas/cumulative.py, issue 23)
_CUMULATIVE = ("cumsum", "cumprod", "cummax", "cummin", "cumcount")

#: the hook's keyword folding of the host aliases (see :mod:`nanaccess._conventions`)
CONVENTIONS = "from .._conventions import interpolation_method, skipna_policy"

PATH = "nanaccess/pandas/_generated.py"

#: pandas' own method of the same statistic (for "as pandas' ..." and See Also)
PANDAS_METHOD = {
    "median": "median", "quantile": "quantile", "min": "min", "max": "max",
    "argmin": "argmin", "argmax": "argmax", "mean": "mean", "var": "var", "std": "std",
    "sum": "sum", "count": "count",
}
#: pandas methods that a host lacks (DataFrame has idxmax, no argmax)
_NOT_ON = {"DataFrame": {"argmin", "argmax"}, "GroupBy": {"argmin", "argmax"}}


def _own(kind: str, stat: Any) -> str | None:
    """pandas' own method of ``stat`` on ``kind`` (None when it has none)."""
    if stat.name in _NOT_ON.get(kind.split(".")[-1].replace("DataFrameGroupBy", "GroupBy"),
                                ()):
        return None
    return PANDAS_METHOD.get(stat.name)

_FUNCS = package_functions()

_SETUP = "import numpy as np, pandas as pd, nanaccess  # noqa: F401"


def _picks(stat: Any) -> str:
    if stat.picks:
        return ("The result is one of the values exactly as stored (dtype and NaN "
                "payload bits kept).")
    return ""


def _extended(kind: str) -> Any:
    def extended(stat: Any) -> str:
        own = _own(kind, stat)
        text = f"Labelled as pandas' ``{kind}.{own}``. " if own else ""
        if stat.family == "arg":
            text = (f"A position (0-based), as pandas' ``Series.{stat.name}``; "
                    f"``idx{stat.name[3:]}`` gives the label. ")
        if stat.name == "sum":
            text += "A sum over no values is 0, as pandas. "
        if stat.family == "count":
            text += "A count takes no ``nan_policy``: it counts the numbers. "
        return (text + _picks(stat)).strip()
    return extended


def _see_also(kind: str) -> Any:
    def see_also(stat: Any) -> list[tuple[str, str]]:
        out = []
        if stat.name in _FUNCS:
            out.append((f"nanaccess.{stat.name}", "The same statistic of any array-like."))
        own = _own(kind, stat)
        if own:
            out.append((f"pandas.{kind}.{own}", "pandas' own method (NaN-blind)."))
        return out
    return see_also


SERIES_AXIS = HostParam(
    "axis", "None", '{None, 0, "index", "rows"}',
    "Accepted as by pandas' Series methods; any other axis raises ValueError.",
)
FRAME_AXIS = HostParam(
    "axis", "0", '{0, 1, "index", "columns", "rows"}',
    "0: one result per column; 1: one result per row (the columns' common dtype).",
)
NUMERIC_ONLY = HostParam(
    "numeric_only", "False", "bool",
    "Leave out non-numeric columns (otherwise they raise TypeError).",
    annotation="bool",
)
ENGINE = HostParam(
    "engine", "None", '{None, "numpy", "numba"}',
    "Kernel of the grouped selection (None: numba for large data when installed).",
    annotation="str | None",
    applies=lambda stat: stat.family in ("order", "spread"),
)


SKIPNA = HostParam(
    "skipna", "None", "bool, optional",
    'pandas\' and xarray\'s spelling of the policy: True is ``nan_policy="omit"``, False '
    'is ``nan_policy="propagate"``; None (not given) leaves ``nan_policy`` alone. Given '
    "together with a ``nan_policy`` that means something else: ValueError.",
    annotation="bool | None",
    applies=takes_policy,
    folds_into=("nan_policy", "skipna_policy"),
)
INTERPOLATION = HostParam(
    "interpolation", "None", "str, optional",
    "pandas' name of ``method`` (the same choices). ``method`` left at \"linear\" "
    "yields to it; any other ``method`` that disagrees: ValueError.",
    annotation="str | None",
    applies=lambda stat: stat.name == "quantile",
    folds_into=("method", "interpolation_method"),
)
MIN_COUNT = HostParam(
    "min_count", "0", "int",
    "As pandas' ``sum``: a result over fewer than ``min_count`` values (after the "
    "policy removed what it removes) is NaN, or ``pd.NA`` for nullable data.",
    annotation="int",
    applies=lambda stat: stat.name == "sum",
)
#: the host keywords every pandas / xarray statistic method accepts
CONVENTION_PARAMS = (SKIPNA, INTERPOLATION, MIN_COUNT)


def _series_returns(stat: Any) -> tuple[str, str]:
    if stat.family == "arg":
        return "int", ("numpy.int64\n    The position of the first such value (as "
                            f"``Series.{stat.name}``).")
    if stat.family == "count":
        return "int", "int"
    if stat.name == "quantile":
        return "Any", ("scalar or Series\n    A scalar for a float ``q``; for a sequence a "
                       "Series indexed by ``q``.")
    return "Any", ("scalar\n    A NumPy scalar (float64 for interpolated integers); "
                   "``pd.NA`` for a missing result of a nullable Series.")


def _frame_returns(stat: Any) -> tuple[str, str]:
    if stat.name == "quantile":
        return "pd.Series | pd.DataFrame", (
            "Series or DataFrame\n    One value per column (or row), named ``q``; a "
            "sequence ``q`` gives a DataFrame indexed by ``q``.")
    if stat.family == "arg":
        return "pd.Series", ("Series\n    The position (int64) of each column's (``axis=1``: "
                             "row's) first such value.")
    return "pd.Series", ("Series\n    One value per column (``axis=0``) or row "
                         "(``axis=1``), with pandas' common-dtype rules.")


def _groupby_returns(stat: Any) -> tuple[str, str]:
    text = ("Series or DataFrame\n    Indexed by group exactly as pandas' own GroupBy "
            "result (``as_index``, ``observed``, ``dropna`` honoured)")
    if stat.name == "quantile":
        text += "; a sequence ``q`` adds an inner level of ``q``"
    return "pd.Series | pd.DataFrame", text + "."


def _agg_returns(stat: Any) -> tuple[str, str]:
    name = '"q<q>" for a float ``q``' if stat.name == "quantile" else f'"{stat.name}"'
    return "NanAgg", ("NanAgg\n    A callable on a Series for pandas' ``.agg``; its "
                      f"``__name__`` is {name}, so pandas labels the result by it.")


def _agg_calls(stat: Any) -> list[str]:
    if stat.name == "quantile":
        return ['0.5, nan_policy="omit"', '0.9, nan_policy="omit"']
    if not takes_policy(stat):
        return [""]
    return ['nan_policy="omit"']


_TYPES = ("import pandas as pd",)

#: q of the pandas hosts: a sequence labels the results by q (see Returns)
_Q = {"q": "Quantile(s) in [0, 1]; a sequence gives one result per ``q``, labelled by it."}


def _weights_doc(own: str) -> dict[str, str]:
    """``param_docs`` of a host's ``weights``: what the host takes, then the table's text."""
    return {"weights": f"{own} {STATS.WEIGHTS.doc}"}


#: what each pandas host takes as ``weights``
_W_SERIES = _weights_doc(
    "An array of the Series' length, or a Series aligned on the index (labels that do "
    "not match raise ValueError naming them); errors name \"weights\" and the index "
    "label of the first offending weight.")
_W_FRAME = _weights_doc(
    "A column label (that column holds the row weights and is left out of the result), "
    "an array of one weight per row or a Series aligned on the index; ``axis=0`` only.")
_W_GROUPBY = _weights_doc(
    "A column label of the grouped DataFrame (that column holds the row weights and is "
    "left out of the result), an array of one weight per row or a Series aligned on the "
    "index.")
_W_AGG = _weights_doc(
    "A Series of weights covering the index of the data (each group's rows are looked up "
    "by label), or a column label when the callable is given to ``gb.nanstats.agg`` "
    "(pandas' own ``.agg`` hands the callable one column, so a label cannot be read there).")

HOSTS = [
    HostSpec(
        key="pandas.Series",
        label="Series.nanstats",
        path=PATH,
        name="SeriesStatsMixin",
        title="Statistic methods of the pandas accessors (Series, DataFrame, GroupBy).",
        doc="The statistics of ``Series.nanstats``: one value of the Series.",
        params=(SERIES_AXIS, *CONVENTION_PARAMS),
        order=("q", "*", "axis", "interpolation", "min_count", "weights",
               "weights_kind", "nan_policy", "skipna"),
        weights=True,
        pandas_defaults=True,
        defaults={"q": 0.5},
        param_docs={**_Q, **_W_SERIES},
        returns=_series_returns,
        extended=_extended("Series"),
        see_also=_see_also("Series"),
        example=Example(
            (_SETUP, 's = pd.Series([4.0, np.nan, 1.0, 3.0, 10.0], index=list("abcde"))'),
            "s.nanstats",
        ),
        imports=(CONVENTIONS,),
        type_imports=_TYPES,
        docs_module="pandas",
        docs_prefix="Series.nanstats.",
        docs_extra=("idxmin", "idxmax", "describe", "nan_report", "sort_values", "rank",
                    "groupby", "plot_nan_map", "agg", "aggregate", "corr", "cov",
                    *_CUMULATIVE),
    ),
    HostSpec(
        key="pandas.DataFrame",
        label="DataFrame.nanstats",
        path=PATH,
        name="DataFrameStatsMixin",
        doc="The statistics of ``DataFrame.nanstats``: one value per column or row.",
        params=(FRAME_AXIS, NUMERIC_ONLY, *CONVENTION_PARAMS),
        order=("q", "axis", "ddof", "numeric_only", "*", "interpolation", "min_count",
               "weights", "weights_kind", "nan_policy", "skipna"),
        weights=True,
        pandas_defaults=True,
        defaults={"q": 0.5},
        param_docs={**_Q, **_W_FRAME},
        returns=_frame_returns,
        extended=_extended("DataFrame"),
        see_also=_see_also("DataFrame"),
        example=Example(
            (_SETUP, 'df = pd.DataFrame({"a": [4.0, np.nan, 1.0, 3.0], '
                     '"b": [2.0, 5.0, 1.0, 3.0]})'),
            "df.nanstats",
        ),
        imports=(CONVENTIONS,),
        type_imports=_TYPES,
        docs_module="pandas",
        docs_prefix="DataFrame.nanstats.",
        docs_extra=("idxmin", "idxmax", "describe", "nan_report", "rank", "groupby",
                    "plot_nan_map", "agg", "aggregate", "corr", "cov", "corrwith",
                    *_CUMULATIVE),
    ),
    HostSpec(
        key="pandas.GroupBy",
        label="GroupBy.nanstats",
        path=PATH,
        name="GroupByStatsMixin",
        doc=("The statistics of ``df.groupby(...).nanstats``: one value per group and "
             "column (Series and DataFrame GroupBy)."),
        params=(NUMERIC_ONLY, ENGINE, *CONVENTION_PARAMS),
        order=("q", "ddof", "*", "numeric_only", "interpolation", "min_count", "weights",
               "weights_kind", "nan_policy", "skipna", "engine"),
        weights=True,
        pandas_defaults=True,
        defaults={"q": 0.5},
        param_docs={**_Q, **_W_GROUPBY},
        statistics=STATS.GROUPED,
        returns=_groupby_returns,
        extended=_extended("GroupBy"),
        see_also=_see_also("api.typing.DataFrameGroupBy"),
        example=Example(
            (_SETUP, 'df = pd.DataFrame({"g": list("aabbb"), '
                     '"x": [4.0, np.nan, 1.0, 3.0, 10.0]})'),
            'df.groupby("g").nanstats',
        ),
        imports=(CONVENTIONS,),
        type_imports=_TYPES,
        docs_module="pandas.api.typing",
        docs_prefix="DataFrameGroupBy.nanstats.",
        docs_extra=("idxmin", "idxmax", "describe", "nan_report", "agg", "aggregate",
                    "transform", "corr", "cov", *_CUMULATIVE),
    ),
    HostSpec(
        key="pandas.agg",
        label="nanaccess.agg",
        path="nanaccess/pandas/_generated_agg.py",
        name="",
        kind="functions",
        hook="make",
        title="Named callables of ``nanaccess.agg``, one per statistic.",
        doc="",
        params=CONVENTION_PARAMS,
        order=("q", "*", "interpolation", "min_count", "weights", "weights_kind",
               "nan_policy", "skipna"),
        weights=True,
        pandas_defaults=True,
        defaults={"q": 0.5},
        param_docs={**_Q, **_W_AGG},
        statistics=STATS.GROUPED,
        returns=_agg_returns,
        extended=lambda stat: ("For pandas' ``.agg``: the callable computes "
                               f"``Series.nanstats.{stat.name}`` with these keywords."),
        example=Example(
            ("import numpy as np, pandas as pd, nanaccess as na",
             'df = pd.DataFrame({"g": list("aabbb"), "x": [4.0, np.nan, 1.0, 3.0, 10.0]})'),
            "na.agg",
            wrap='df.groupby("g").agg({call})',
        ),
        example_calls=_agg_calls,
        imports=(CONVENTIONS, "from ._nanagg import NanAgg, make"),
        docs_module="nanaccess.pandas.agg",
        docs_prefix="",
        docs_extra=("NanAgg",),
    ),
]
