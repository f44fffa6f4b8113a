"""Host specs of the window accessors (``s.rolling(7).nanstats``, ``s.expanding().nanstats``)
(see :mod:`apigen.render`)."""

from __future__ import annotations

from typing import Any

from .hosts_pandas import INTERPOLATION, PANDAS_METHOD, _picks
from .render import STATS, Example, HostParam, HostSpec, package_functions

#: the statistics the window engines compute (the table's WINDOWED)
_WINDOWED = STATS.WINDOWED

_FUNCS = package_functions()

_SETUP = "import numpy as np, pandas as pd, nanaccess  # noqa: F401"

NUMERIC_ONLY = HostParam(
    "numeric_only", "False", "bool",
    "Leave out non-numeric columns (otherwise they raise TypeError).",
    annotation="bool",
)
ENGINE = HostParam(
    "engine", "None", '{None, "numpy", "numba"}',
    "Kernel: None reads the ``engine`` option (numba slides order statistics over "
    "large inputs when installed); every engine gives the same bits.",
    annotation="str | None",
)

_Q = {"q": "Quantile(s) in [0, 1]; a sequence gives one column per ``q`` (a Series) or "
           "an inner column level of ``q`` (a DataFrame)."}


def _extended(stat: Any) -> str:
    own = PANDAS_METHOD.get(stat.name)
    text = (f"Labelled as pandas' ``Rolling.{own}`` (index, columns, name). " if own
            else "Labelled as pandas' own window methods (index, columns, name). ")
    text += ("Each window's value is exactly the plain statistic of that window's values "
             "under the same policy; windows holding fewer than ``min_periods`` values "
             "(after the policy) give NaN (``pd.NA`` for nullable and Arrow columns). ")
    if stat.family == "count":
        text += ("A count takes no ``nan_policy``: it counts the numbers (``min_periods`` "
                 "counts every row, as pandas). ")
    return (text + _picks(stat)).strip()


def _see_also(stat: Any) -> list[tuple[str, str]]:
    out = []
    if stat.name in _FUNCS:
        out.append((f"nanaccess.{stat.name}", "The same statistic of any array-like."))
    own = PANDAS_METHOD.get(stat.name)
    if own and own in ("median", "quantile", "min", "max", "mean", "var", "std", "sum",
                       "count"):
        out.append((f"pandas.api.typing.Rolling.{own}", "pandas' own method (NaN-blind)."))
    return out


def _returns(stat: Any) -> tuple[str, str]:
    return "pd.Series | pd.DataFrame", (
        "Series or DataFrame\n    One value per window, labelled as pandas' own window "
        "result (float64 for integer data; floats keep their dtype).")


HOSTS = [
    HostSpec(
        key="pandas.Window",
        label="Rolling.nanstats",
        path="nanaccess/pandas/_generated_window.py",
        name="WindowStatsMixin",
        title="Statistic methods of the pandas window accessors (Rolling, Expanding).",
        doc=("The statistics of ``obj.rolling(...).nanstats`` and "
             "``obj.expanding(...).nanstats``: one value per window and column."),
        params=(NUMERIC_ONLY, INTERPOLATION, ENGINE),
        order=("q", "ddof", "*", "numeric_only", "interpolation", "nan_policy", "engine"),
        imports=("from .._conventions import interpolation_method",),
        pandas_defaults=True,
        defaults={"q": 0.5},
        param_docs=_Q,
        statistics=_WINDOWED,
        returns=_returns,
        extended=_extended,
        see_also=_see_also,
        example=Example(
            (_SETUP, 's = pd.Series([4.0, np.nan, 1.0, 3.0, 10.0], index=list("abcde"))'),
            "s.rolling(3, min_periods=1).nanstats",
        ),
        type_imports=("import pandas as pd",),
        docs_module="pandas.api.typing",
        docs_prefix="Rolling.nanstats.",
    ),
]

XR_KEEP_ATTRS = HostParam(
    "keep_attrs", "None", "bool, optional",
    "Keep ``attrs`` on the result; None follows xarray's ``keep_attrs`` option (True by "
    "default).",
    annotation="bool | None",
)


def _xr_extended(stat: Any) -> str:
    return ("Labelled as xarray's own window reductions (dims, coords, name, attrs). Each "
            "window's (or block's) value is exactly the plain statistic of its values under "
            "the same policy; rolling windows holding fewer than ``min_periods`` values "
            "(after the policy) give NaN. " + _picks(stat)).strip()


def _xr_returns(stat: Any) -> tuple[str, str]:
    return "Any", ("DataArray or Dataset\n    Labelled as xarray's own rolling / coarsen "
                   "result; a sequence ``q`` adds a leading ``quantile`` dimension.")


HOSTS.append(
    HostSpec(
        key="xarray.Window",
        label="DataArrayRolling.nanstats",
        path="nanaccess/xarray/_generated_window.py",
        name="XrWindowStatsMixin",
        title="Statistic methods of the xarray window accessors (rolling, coarsen).",
        doc=("The statistics of ``obj.rolling(dim=w).nanstats`` and "
             "``obj.coarsen(dim=w).nanstats``: one value per window (or block)."),
        params=(XR_KEEP_ATTRS, ENGINE),
        order=("q", "*", "ddof", "keep_attrs", "nan_policy", "engine"),
        statistics=_WINDOWED,
        returns=_xr_returns,
        extended=_xr_extended,
        see_also=lambda stat: ([(f"nanaccess.{stat.name}", "The same statistic of any "
                                 "array-like.")] if stat.name in _FUNCS else []),
        docs_module="xarray.computation.rolling",
        docs_prefix="DataArrayRolling.nanstats.",
        example=Example(
            ("import numpy as np, xarray as xr, nanaccess  # noqa: F401",
             'da = xr.DataArray([4.0, np.nan, 1.0, 3.0, 10.0], dims="time")',
             "r = da.rolling(time=3, min_periods=1)"),
            "r.nanstats",
            wrap="{call}.values",
        ),
    )
)
