"""Host specs of the xarray accessors (see :mod:`apigen.render`).

``DataArray.nanstats``, ``Dataset.nanstats`` and ``obj.nanstats.groupby(...)`` /
``.resample(...)``: ``dim`` instead of ``axis``, ``keep_attrs`` and ``keepdims`` as
xarray's own reductions, ``ddof=0`` (xarray's default). The accessors' ``count`` takes
``nan_policy`` ("omit" by default: it counts the numbers; a signaling NaN still raises
unless "totalorder"); the grouped ``count`` takes none, as pandas' grouped count.
"""

from __future__ import annotations

from typing import Any

from .hosts_pandas import CONVENTION_PARAMS, CONVENTIONS, ENGINE, INTERPOLATION, SKIPNA
from .render import STATS, Example, HostParam, HostSpec, package_functions

#: the hand-written running statistics (nanaccess/xarray/running.py, issue 23)
_RUNNING = ("cumsum", "cumprod", "cummax", "cummin", "ewm")

PATH = "nanaccess/xarray/_generated.py"

#: xarray's own method of the same statistic (for See Also)
XARRAY_METHOD = {
    "median": "median", "quantile": "quantile", "min": "min", "max": "max",
    "argmin": "argmin", "argmax": "argmax", "mean": "mean", "var": "var", "std": "std",
    "sum": "sum", "count": "count",
}

_FUNCS = package_functions()

_SETUP = "import numpy as np, xarray as xr, nanaccess  # noqa: F401"

DIM = HostParam(
    "dim", "None", "str, sequence of str or None",
    "Dimension(s) to reduce; None reduces every dimension. An unknown dimension "
    "raises ValueError, as in xarray.",
    annotation="Hashable | Sequence[Hashable] | None",
)
KEEP_ATTRS = HostParam(
    "keep_attrs", "None", "bool, optional",
    "Keep ``attrs`` on the result; None follows xarray's ``keep_attrs`` option (True by "
    "default).",
    annotation="bool | None",
    applies=lambda stat: stat.family != "arg",
)
KEEPDIMS = HostParam(
    "keepdims", "False", "bool",
    "Keep the reduced dimensions with length one, as xarray's reductions do.",
    annotation="bool",
    applies=lambda stat: stat.family != "arg" and stat.name != "quantile",
)
GROUP_DIM = HostParam(
    "dim", "None", "str, sequence of str, ... or None",
    "Dimension(s) to reduce, as xarray's GroupBy reductions: None reduces the "
    "dimension(s) the groups span, ``...`` every dimension; dimensions beyond the "
    "groups' are reduced within each group. A ``dim`` that misses every dimension of the "
    "groups is the plain reduction (as xarray); one that leaves out only some of them "
    "raises ValueError.",
    annotation="Any",
)
GROUP_AXIS = HostParam(
    "axis", "None", "int, sequence of int or None",
    "Axis number(s) of a DataArray, as ``GroupBy.reduce``: the same as naming their "
    "dimensions in ``dim`` (give one of ``dim`` and ``axis``).",
    annotation="int | Sequence[int] | None",
)
COUNT_POLICY = HostParam(
    "nan_policy", '"omit"',
    "{" + ", ".join(f'"{p}"' for p in ("raise", "propagate", "omit", "smallest", "largest",
                                        "totalorder")) + "}",
    'The numbers are counted under every policy; "omit" by default. A signaling NaN '
    'raises SignalingNaNError unless the policy is "totalorder", and "raise" raises on '
    "any NaN or missing value (see :doc:`/semantics`).",
    annotation="str | None",
    applies=lambda stat: stat.family == "count",
)


def _picks(stat: Any) -> str:
    if stat.picks:
        return ("The result is one of the values exactly as stored (dtype and NaN "
                "payload bits kept).")
    return ""


def _extended(kind: str) -> Any:
    def extended(stat: Any) -> str:
        own = XARRAY_METHOD.get(stat.name)
        text = f"Dims, coords, name and attrs as xarray's ``{kind}.{own}``. " if own else \
            "Dims, coords, name and attrs as xarray's reductions keep them. "
        if stat.name == "quantile" and kind != "GroupBy":
            text += "A sequence ``q`` adds a ``quantile`` dimension first, as xarray. "
        if stat.name == "quantile" and kind == "GroupBy":
            text += "A sequence ``q`` adds a ``quantile`` dimension, as xarray. "
        if stat.family == "arg":
            text += ("Integer positions along ``dim`` (a flat index for ``dim=None``, as "
                     "``DataArray.argmin`` with ``axis=None``). ")
        if stat.name == "sum" and kind != "GroupBy":
            text += "A sum over no values is 0, as xarray. "
        if kind == "GroupBy":
            text += ("Every group of the full index is kept (empty bins of ``groupby_bins`` "
                     "and ``resample``, absent key combinations of several keys give NaN, "
                     "as xarray; a count gives 0 there); several keys give one dimension "
                     "each. ")
        if kind in ("Dataset", "GroupBy"):
            text += ("A Dataset's variables that do not hold numbers (strings) are left "
                     "out, never raised on (object variables holding Decimals, Fractions "
                     "or huge ints are kept). ")
        return (text + _picks(stat)).strip()
    return extended


def _see_also(kind: str) -> Any:
    def see_also(stat: Any) -> list[tuple[str, str]]:
        out = []
        if stat.name in _FUNCS:
            out.append((f"nanaccess.{stat.name}", "The same statistic of any array-like."))
        own = XARRAY_METHOD.get(stat.name)
        if own:
            target = ("xarray.core.groupby.DataArrayGroupBy" if kind == "GroupBy"
                      else f"xarray.{kind}")
            out.append((f"{target}.{own}", "xarray's own method (NaN-blind)."))
        return out
    return see_also


def _returns(kind: str) -> Any:
    def returns(stat: Any) -> tuple[str, str]:
        if kind == "DataArray":
            ann, text = "xr.DataArray", "DataArray\n    "
        elif kind == "Dataset":
            ann, text = "xr.Dataset", "Dataset\n    One reduced variable per data variable; "
        else:
            ann, text = "xr.DataArray | xr.Dataset", (
                "DataArray or Dataset\n    One value per group along the new group "
                "dimension, laid out as xarray's own GroupBy result; ")
        if stat.family == "arg":
            return ann, text + "int64 positions along ``dim``."
        if stat.family == "count":
            return ann, text + "int64 counts."
        return ann, text + ("NumPy- or dask-backed as the input (dask stays lazy; "
                            "policy errors are raised when it is computed).")
    return returns


def _calls(kind: str) -> Any:
    first = '"t", nan_policy="omit"' if kind != "GroupBy" else 'nan_policy="omit"'

    def calls(stat: Any) -> list[str]:
        if stat.family == "count":
            return ["" if kind == "GroupBy" else '"t"']
        second = {
            "quantile": ('[0.25, 0.75], "t", nan_policy="omit"', '0.5, nan_policy="propagate"'),
            "var": (first, 'ddof=1, nan_policy="omit"'),
            "std": (first, 'ddof=1, nan_policy="omit"'),
            "iqr": (first, 'rng=(10, 90), nan_policy="omit"'),
            "mad": (first, 'scale="normal", nan_policy="omit"'),
        }
        if kind == "GroupBy" and stat.name == "quantile":
            return ['[0.25, 0.75], nan_policy="omit"', '0.5, nan_policy="propagate"']
        return list(second.get(stat.name, (first, 'nan_policy="propagate"')))
    return calls


#: what the xarray accessors take as ``weights``
_W = {"weights": (
    "A DataArray broadcast against the data by dimension names (as xarray's "
    "``weighted``; its dimensions must be the data's), or an array of the data's shape "
    "(or 1-D along a single reduced dimension). " + STATS.WEIGHTS.doc)}
_W_DS = {"weights": (
    "A DataArray broadcast against each data variable by dimension names (as xarray's "
    "``Dataset.weighted``); variables lacking one of its dimensions raise ValueError. "
    + STATS.WEIGHTS.doc)}


def _weighted_extended(stat: Any) -> str:
    own = XARRAY_METHOD.get(stat.name)
    text = ("The weights of ``obj.weighted(weights)``, as frequency weights (see "
            ":doc:`/weighted`): NaN weights follow ``nan_policy``, where xarray's own "
            "weighted methods count them as 0. ")
    if own in ("quantile", "mean", "sum", "var", "std"):
        text += f"Labelled as xarray's ``DataArrayWeighted.{own}``. "
    if stat.name == "quantile":
        text += ("xarray's weighted quantile uses Kish's effective sample size; this one "
                 "repeats each value its weight times (see :doc:`/weighted`). ")
    return text.strip()


def _weighted_calls(stat: Any) -> list[str]:
    if stat.name == "quantile":
        return ['[0.25, 0.75], "t", nan_policy="omit"', '0.5, "t", nan_policy="propagate"']
    return ['"t", nan_policy="omit"', '"t", nan_policy="propagate"']


_DA = 'da = xr.DataArray([[4.0, np.nan, 1.0], [2.0, 5.0, 3.0]], dims=("x", "t"), name="v")'
_DS = 'ds = xr.Dataset({"a": ("t", [4.0, np.nan, 1.0, 3.0]), "b": ("t", [2.0, 5.0, 1.0, 3.0])})'
_GB = ('g = xr.DataArray(list("aabbb"), dims="t")',
       'da = xr.DataArray([4.0, np.nan, 1.0, 3.0, 10.0], dims="t", coords={"g": g}, name="v")')
_TYPES = ("import xarray as xr",)

HOSTS = [
    HostSpec(
        key="xarray.DataArray",
        label="DataArray.nanstats",
        path=PATH,
        name="DataArrayStatsMixin",
        title="Statistic methods of the xarray accessors (DataArray, Dataset, GroupBy).",
        doc="The statistics of ``DataArray.nanstats``: reductions over ``dim``.",
        params=(DIM, KEEP_ATTRS, KEEPDIMS, COUNT_POLICY, *CONVENTION_PARAMS),
        order=("q", "dim", "*", "method", "interpolation", "ddof", "min_count", "weights",
               "weights_kind", "nan_policy", "skipna", "keep_attrs", "keepdims"),
        weights=True,
        param_docs=_W,
        returns=_returns("DataArray"),
        extended=_extended("DataArray"),
        see_also=_see_also("DataArray"),
        example=Example((_SETUP, _DA), "da.nanstats", wrap="{call}.values"),
        example_calls=_calls("DataArray"),
        imports=(CONVENTIONS,),
        type_imports=_TYPES,
        docs_module="xarray",
        docs_prefix="DataArray.nanstats.",
        docs_extra=("describe", "sortby", "nan_report", "groupby", "resample",
                    "plot_nan_map", "corr", "cov", *_RUNNING),
    ),
    HostSpec(
        key="xarray.Dataset",
        label="Dataset.nanstats",
        path=PATH,
        name="DatasetStatsMixin",
        doc="The statistics of ``Dataset.nanstats``: each data variable reduced over ``dim``.",
        params=(DIM, KEEP_ATTRS, KEEPDIMS, COUNT_POLICY, *CONVENTION_PARAMS),
        order=("q", "dim", "*", "method", "interpolation", "ddof", "min_count", "weights",
               "weights_kind", "nan_policy", "skipna", "keep_attrs", "keepdims"),
        weights=True,
        param_docs=_W_DS,
        statistics=tuple(n for n in STATS.STATISTICS if n not in STATS.ARG),
        returns=_returns("Dataset"),
        extended=_extended("Dataset"),
        see_also=_see_also("Dataset"),
        example=Example((_SETUP, _DS), "ds.nanstats", wrap="{call}.to_pandas()"),
        example_calls=_calls("Dataset"),
        imports=(CONVENTIONS,),
        type_imports=_TYPES,
        docs_module="xarray",
        docs_prefix="Dataset.nanstats.",
        docs_extra=("describe", "sortby", "nan_report", "groupby", "resample", "corr",
                    "cov", *_RUNNING),
    ),
    HostSpec(
        key="xarray.GroupBy",
        label="DataArray.nanstats.groupby(...)",
        path=PATH,
        name="GroupByStatsMixin",
        doc=("The statistics of ``obj.nanstats.groupby(...)`` and "
             "``obj.nanstats.resample(...)``: one value per group."),
        params=(GROUP_DIM, GROUP_AXIS, KEEP_ATTRS, ENGINE, *CONVENTION_PARAMS),
        order=("q", "dim", "*", "axis", "method", "interpolation", "ddof", "min_count",
               "nan_policy", "skipna", "keep_attrs", "engine"),
        statistics=STATS.GROUPED,
        returns=_returns("GroupBy"),
        extended=_extended("GroupBy"),
        see_also=_see_also("GroupBy"),
        example=Example((_SETUP, *_GB), 'da.nanstats.groupby("g")', wrap="{call}.values"),
        example_calls=_calls("GroupBy"),
        imports=(CONVENTIONS,),
        type_imports=_TYPES,
    ),
    HostSpec(
        key="xarray.Weighted",
        label="DataArray.weighted(w).nanstats",
        path=PATH,
        name="WeightedStatsMixin",
        doc=("The statistics of ``obj.weighted(weights).nanstats`` (DataArray and "
             "Dataset): frequency-weighted reductions over ``dim``, the policy covering "
             "the weights."),
        params=(DIM, KEEP_ATTRS, SKIPNA, INTERPOLATION),
        order=("q", "dim", "*", "method", "interpolation", "ddof", "weights_kind",
               "nan_policy", "skipna", "keep_attrs"),
        statistics=STATS.WEIGHTED,
        weights_kind=True,
        returns=lambda stat: ("xr.DataArray | xr.Dataset", (
            "DataArray or Dataset\n    As the weighted object's data, reduced over ``dim`` "
            "(dask-backed data or weights: lazy, equal bit for bit to the in-memory "
            "result; policy errors are raised when it is computed).")),
        extended=_weighted_extended,
        see_also=lambda stat: [(f"xarray.DataArray.nanstats.{stat.name}",
                                "The same with ``weights=``.")],
        example=Example((_SETUP, 'da = xr.DataArray([4.0, np.nan, 1.0, 3.0], dims="t")',
                         'w = xr.DataArray([1.0, 1.0, 2.0, 0.0], dims="t")'),
                        "da.weighted(w).nanstats", wrap="{call}.values"),
        example_calls=_weighted_calls,
        imports=(CONVENTIONS,),
        type_imports=_TYPES,
    ),
]
