"""``nanaccess.nanstats(obj)``: the ``.nanstats`` accessor of ``obj``, typed.

At run time this is ``obj.nanstats``. For a type checker or an editor it names the
accessor class, which the attribute itself cannot do (pandas and xarray register
accessors at run time, so their stubs do not know them; the mypy plugin
:mod:`nanaccess.mypy_plugin` covers the attribute for mypy users).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, overload

if TYPE_CHECKING:  # the hosts' types only; nothing is imported at run time
    import dask.dataframe as dd
    import pandas as pd
    import polars as pl
    import xarray as xr
    from pandas.core.groupby import DataFrameGroupBy, SeriesGroupBy
    from pandas.core.resample import Resampler
    from pandas.core.window import ExponentialMovingWindow
    from pandas.core.window.rolling import BaseWindow
    from xarray.core.groupby import DataArrayGroupBy, DatasetGroupBy

    from .dask.dataframe import DaskDataFrameNanStats, DaskSeriesNanStats
    from .pandas.ewm import NanEwm
    from .pandas.frame import DataFrameNanStats
    from .pandas.groupby import NanGroupBy
    from .pandas.series import SeriesNanStats
    from .pandas.window import NanWindow
    from .polars.accessor import DataFrameNanStats as PolarsFrameNanStats
    from .polars.accessor import ExprNanStats, LazyFrameNanStats
    from .polars.accessor import SeriesNanStats as PolarsSeriesNanStats
    from .xarray.accessor import DataArrayNanStats, DatasetNanStats
    from .xarray.groupby import NanGroupBy as XrNanGroupBy

__all__ = ["nanstats"]


@overload
def nanstats(obj: pd.Series) -> SeriesNanStats: ...
@overload
def nanstats(obj: pd.DataFrame) -> DataFrameNanStats: ...
@overload
def nanstats(
    obj: DataFrameGroupBy[Any, Any] | SeriesGroupBy[Any, Any] | Resampler[Any],
) -> NanGroupBy: ...
@overload
def nanstats(obj: ExponentialMovingWindow[Any]) -> NanEwm: ...  # type: ignore[overload-overlap]
@overload
def nanstats(obj: BaseWindow[Any]) -> NanWindow: ...  # rolling, expanding
@overload
def nanstats(obj: xr.DataArray) -> DataArrayNanStats: ...
@overload
def nanstats(obj: xr.Dataset) -> DatasetNanStats: ...
@overload
def nanstats(obj: DataArrayGroupBy | DatasetGroupBy) -> XrNanGroupBy: ...
@overload
def nanstats(obj: dd.Series) -> DaskSeriesNanStats: ...
@overload
def nanstats(obj: dd.DataFrame) -> DaskDataFrameNanStats: ...
@overload
def nanstats(obj: pl.Series) -> PolarsSeriesNanStats: ...
@overload
def nanstats(obj: pl.DataFrame) -> PolarsFrameNanStats: ...
@overload
def nanstats(obj: pl.LazyFrame) -> LazyFrameNanStats: ...
@overload
def nanstats(obj: pl.Expr) -> ExprNanStats: ...
def nanstats(obj: Any) -> Any:
    """Return ``obj.nanstats``, typed as its accessor class.

    Parameters
    ----------
    obj : pandas, xarray, dask or polars object
        Anything nanaccess registers ``.nanstats`` on. Type checkers know the
        accessor of pandas objects (Series, DataFrame, GroupBy, Resampler, rolling,
        expanding, ewm), xarray DataArray / Dataset and their GroupBy, dask Series /
        DataFrame and polars Series / DataFrame / LazyFrame / Expr; for xarray's
        rolling and coarsen objects use the attribute.

    Returns
    -------
    accessor
        The same object as ``obj.nanstats``.

    Raises
    ------
    TypeError
        If ``obj`` has no ``.nanstats`` accessor (for xarray, dask and polars objects,
        import ``nanaccess`` first, then the library, or the other way round: both work).

    Examples
    --------
    >>> import pandas as pd
    >>> import nanaccess as na
    >>> s = pd.Series([1.0, float("nan"), 3.0])
    >>> float(na.nanstats(s).median(nan_policy="omit"))
    2.0
    """
    if not hasattr(type(obj), "nanstats"):
        raise TypeError(
            f"{type(obj).__name__} has no .nanstats accessor; nanaccess registers it on "
            "pandas, xarray, dask and polars objects")
    return obj.nanstats
