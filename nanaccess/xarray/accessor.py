"""``DataArray.nanstats`` and ``Dataset.nanstats``: xarray accessors of the core.

The statistic methods (median, quantile, var, iqr, ...) are generated from the
statistics table into :mod:`._generated` (``tools/generate_api.py``); each calls the
``_reduce`` hook here, which hands the object to :func:`.reduction.reduce` (or
:func:`.reduction.arg_reduce`). This module holds what is not table-shaped: describe,
sortby, nan_report, groupby / resample and plots.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import xarray as xr

from .. import _labels, _stats
from .._describe import pct_label, percentiles, row_labels
from ..errors import NaNError
from ..options import resolve_policy
from ..typing import NanPolicyArg
from ._common import variable_subject
from ._generated import DataArrayStatsMixin, DatasetStatsMixin
from .bivariate import DataArrayBivariate
from .dataset_bivariate import DatasetBivariate
from .groupby import NanGroupBy, factorized_groupby, null_below
from .masks import kind_masks
from .reduction import arg_reduce, nan_report, quantile, reduce
from .running import RunningMixin  # cumsum, ewm, ... along a dim (issue 23)

__all__ = ["DataArrayNanStats", "DatasetNanStats", "reduce", "quantile", "nan_report"]

if TYPE_CHECKING:  # xarray's own are untyped: a class decorator returns the class
    from typing import TypeVar

    _C = TypeVar("_C", bound=type)

    def register_dataarray_accessor(name: str) -> Callable[[_C], _C]: ...

    def register_dataset_accessor(name: str) -> Callable[[_C], _C]: ...
else:
    register_dataarray_accessor = xr.register_dataarray_accessor
    register_dataset_accessor = xr.register_dataset_accessor



class _NanStatsBase:
    """What the DataArray and Dataset accessors share beyond the generated methods."""

    _obj: Any

    def __init__(self, obj: Any) -> None:
        self._obj = obj

    def _reduce(self, stat: str, *, dim: Any = None, nan_policy: Any = None,
                min_count: int = 0, **kwargs: Any) -> Any:
        """The hook of every generated statistic: :func:`.reduction.reduce`."""
        if kwargs.get("weights") is None:
            kwargs.pop("weights", None)
        elif min_count:
            raise TypeError("sum(weights=...) takes no min_count")
        if stat in _stats.ARG:
            return arg_reduce(self._obj, stat, dim, nan_policy=nan_policy, **kwargs)
        out = reduce(self._obj, stat, dim, nan_policy=nan_policy, **kwargs)
        if min_count:
            # the numbers a sum saw (what is left after "omit"; any NaN left makes the
            # sum NaN already): counted under "totalorder", which raises for nothing
            count = self.count(dim, nan_policy="totalorder",
                               keepdims=kwargs.get("keepdims", False))
            out = null_below(out, count, min_count)
        return out

    def describe(self, dim: Hashable | Sequence[Hashable] | None = None, *,
                 percentiles: Sequence[float] | None = None, nan_policy: NanPolicyArg = None,
                 ddof: float = 1) -> Any:
        """Summary statistics along ``dim``, as pandas' ``describe``.

        Adds a ``statistic`` dimension with the rows of every host
        (:mod:`nanaccess._describe`): count (numbers), nan, missing, mean, std
        (``ddof=1`` as pandas' describe), min, the percentiles (default 25%, 50%,
        75%) and max, all float64. describe exists to show the NaNs, so it does not
        raise by itself: the counts report every kind of value and the statistics
        are computed under "omit" unless ``nan_policy`` is passed or the user chose a
        policy other than "raise" with ``set_options`` / ``option_context`` (then
        that one).

        Parameters
        ----------
        dim : hashable or sequence of hashable, optional
            Dimension(s) to summarise over; None (default) summarises all.
        percentiles : sequence of float, optional
            Percentiles to include, in [0, 1] (default ``[0.25, 0.5, 0.75]``), as
            pandas' ``describe``.
        nan_policy : {"raise", "propagate", "omit", "smallest", "largest", "totalorder"}, optional
            Policy of the statistics rows; default: the policy chosen with
            ``set_options`` / ``option_context`` (but "raise"), else "omit" (the
            counts always report every kind of value).
        ddof : float, default 1
            Delta degrees of freedom of the ``std`` row (1 as pandas' describe).

        Returns
        -------
        DataArray or Dataset
            The object reduced over ``dim`` with a new ``statistic`` dimension
            (coordinate labels ``count``, ``nan``, ``missing``, ``mean``, ``std``,
            ``min``, the percentiles, ``max``), float64.

        Examples
        --------
        >>> import numpy as np, xarray as xr, nanaccess.xarray
        >>> da = xr.DataArray([1.0, np.nan, 2.0, 3.0], dims="t", name="v")
        >>> d = da.nanstats.describe(nan_policy="omit")
        >>> d.sel(statistic=["count", "nan", "missing", "50%"]).values
        array([3., 1., 0., 2.])
        """
        from .._describe import describe_policy

        policy = describe_policy(nan_policy)
        return self._relabelled(lambda: self._describe(dim, percentiles, policy, ddof))

    def _describe(self, dim: Any, ps: Any, nan_policy: Any, ddof: float) -> Any:
        qs = percentiles(ps)
        nan, missing = kind_masks(self._obj)
        parts = {
            "count": self.count(dim, nan_policy=nan_policy),
            "nan": nan.sum(dim),
            "missing": missing.sum(dim),
            "mean": self.mean(dim, nan_policy=nan_policy),
            "std": self.std(dim, ddof=ddof, nan_policy=nan_policy),
            "min": self.min(dim, nan_policy=nan_policy),
        }
        qv = self.quantile(qs, dim, nan_policy=nan_policy)
        for q in qs:
            parts[pct_label(q)] = qv.sel(quantile=q, drop=True)
        parts["max"] = self.max(dim, nan_policy=nan_policy)
        rows = row_labels(ps)
        cast = [parts[r].astype(np.float64) for r in rows]
        out = xr.concat(cast, dim="statistic", coords="minimal", compat="override",
                        join="override")
        return out.assign_coords(statistic=rows)

    def sortby(self, variables: Any = None, ascending: bool = True, *,
               nan_policy: NanPolicyArg = None) -> Any:
        """Reorder along the dimension of 1-D ``variables`` by their values, as
        :meth:`xarray.DataArray.sortby`, under an explicit ``nan_policy`` (default
        "largest": every NaN after every number, NaNs among themselves in totalOrder;
        "smallest" puts them first, "totalorder" orders -NaN first and +NaN last; -0.0
        before +0.0 always). Ties keep their order (stable); with several keys the
        first is the primary one, as in xarray. ``ascending=False`` reverses the whole
        order (so NaNs then come first).

        Parameters
        ----------
        variables : DataArray, str or list of them, optional
            1-D keys sharing one dimension (names of variables/coordinates allowed);
            None sorts a 1-D DataArray by its own values.
        ascending : bool, default True
            Sort ascending; False reverses the whole order.
        nan_policy : {"totalorder", "smallest", "largest", "raise", "propagate", "omit"}
            Where NaNs go; None means "largest" (a sort must place every value, so it
            is not governed by ``set_options(nan_policy=...)``).

        Returns
        -------
        DataArray or Dataset
            The object reordered along the keys' dimension (coords and attrs kept).

        Examples
        --------
        >>> import numpy as np, xarray as xr, nanaccess.xarray
        >>> da = xr.DataArray([3.0, np.nan, 1.0], dims="t", coords={"t": [10, 20, 30]})
        >>> da.nanstats.sortby(da, nan_policy="smallest").t.values
        array([20, 30, 10])
        """
        from ..api import argsort

        obj = self._obj
        resolve_policy(nan_policy)
        if variables is None:  # a 1-D DataArray sorts by its own values
            if not isinstance(obj, xr.DataArray) or obj.ndim != 1:
                raise ValueError("sortby needs `variables` unless the object is a 1-D "
                                 "DataArray (which then sorts by its own values)")
            variables = obj
        keys = variables if isinstance(variables, list) else [variables]
        keys = [obj[k] if isinstance(k, str) else k for k in keys]
        dims = {k.dims for k in keys}
        if len(dims) != 1 or len(next(iter(dims))) != 1:
            raise ValueError("sortby keys must be 1-D and share one dimension")
        dim = keys[0].dims[0]
        # stable sorts from the last key to the first: the first key is the primary
        # one, as in xarray's sortby
        order = np.arange(obj.sizes[dim])
        for key in keys[::-1]:
            vals = np.asarray(key.values)[order]
            order = order[self._relabelled(lambda v=vals: argsort(v, nan_policy=nan_policy),
                                           name=key.name)]
        if not ascending:
            order = order[::-1]
        return obj.isel({dim: order})

    def _relabelled(self, fn: Callable[[], Any], name: Hashable | None = None) -> Any:
        """Run ``fn``; restate NaN/Type/OverflowErrors naming the variable."""
        name = getattr(self._obj, "name", None) if name is None else name
        try:
            return fn()
        except NaNError as err:
            if name is None:
                raise
            raise _labels.relabel(err, variable_subject(name)) from None
        except (TypeError, OverflowError) as err:
            if name is None or _labels.fmt_label(name) in str(err):
                raise
            raise _labels.restate(err, variable_subject(name)) from None

    def nan_report(self, dim: Hashable | Sequence[Hashable] | None = None) -> Any:
        """Counts of numbers, NaNs by kind, infinities and missing values.

        Parameters
        ----------
        dim : str, sequence of str or ``...``, optional
            Dimension(s) to count over, keeping the others (``...``: every
            dimension). Not given: the whole object, as a pandas table.

        Returns
        -------
        pandas.Series, pandas.DataFrame, DataArray or Dataset
            Without ``dim``: for a DataArray, a Series indexed by kind (``values``,
            ``numbers``, ``nan``, ``quiet_nan``, ``signaling_nan``, ``negative_nan``,
            ``distinct_payloads``, ``posinf``, ``neginf``, ``missing``); for a
            Dataset, a DataFrame with one row per data variable. With ``dim``: the
            same counts per cell of the kept dims, int64, with a new leading ``kind``
            dimension labelled by those keys (as ``describe``'s ``statistic``): a
            DataArray for a DataArray, a Dataset (one count variable per data
            variable, strings included) for a Dataset; lazy on dask data.

        Examples
        --------
        >>> import numpy as np, xarray as xr, nanaccess.xarray
        >>> da = xr.DataArray([[1.0, np.nan], [np.nan, np.nan]], dims=("x", "t"))
        >>> int(da.nanstats.nan_report()["nan"])
        3
        >>> da.nanstats.nan_report(dim="t").sel(kind="nan").values
        array([1, 2])
        """
        if dim is None:
            return nan_report(self._obj)
        from .report import report_over

        return report_over(self._obj, dim)

    def groupby(self, group: Any, **kwargs: Any) -> NanGroupBy:
        """Grouped statistics: ``da.nanstats.groupby("time.month").median(...)``.

        Parameters
        ----------
        group : str, DataArray or mapping
            As :meth:`xarray.DataArray.groupby`.
        **kwargs
            Passed to :meth:`xarray.DataArray.groupby` (e.g. ``squeeze``,
            ``restore_coord_dims``).

        Returns
        -------
        NanGroupBy
            An object with the statistic methods (``median``, ``quantile``, ...,
            ``describe``, ``nan_report``), each reducing every group in one pass and
            labelled as xarray's own GroupBy results.

        Examples
        --------
        >>> import numpy as np, pandas as pd, xarray as xr, nanaccess.xarray
        >>> t = pd.date_range("2024-01-30", periods=4)
        >>> da = xr.DataArray([1.0, np.nan, 3.0, 5.0], dims="time", coords={"time": t})
        >>> da.nanstats.groupby("time.month").median(nan_policy="omit").values
        array([1., 4.])
        """
        fast = None if kwargs else factorized_groupby(self._obj, group)
        return NanGroupBy(self._obj, fast or self._obj.groupby(group, **kwargs))

    def resample(self, indexer: Any = None, **kwargs: Any) -> NanGroupBy:
        """Resampled statistics: ``da.nanstats.resample(time="1D").median(...)``.

        Parameters
        ----------
        indexer : mapping of hashable to str, optional
            Dimension to frequency, as :meth:`xarray.DataArray.resample`.
        **kwargs
            The ``dim=freq`` form of ``indexer`` and xarray's resample options
            (``closed``, ``label``, ``offset``, ...).

        Returns
        -------
        NanGroupBy
            An object with the statistic methods, one result per resampled bin,
            labelled as xarray's own resample results.

        Examples
        --------
        >>> import numpy as np, pandas as pd, xarray as xr, nanaccess.xarray
        >>> t = pd.date_range("2024-01-01", periods=4, freq="12h")
        >>> da = xr.DataArray([1.0, np.nan, 3.0, 5.0], dims="time", coords={"time": t})
        >>> da.nanstats.resample(time="1D").max(nan_policy="omit").values
        array([1., 5.])
        """
        return NanGroupBy(self._obj, self._obj.resample(indexer, **kwargs), resample=True)


@register_dataarray_accessor("nanstats")
class DataArrayNanStats(DataArrayBivariate, _NanStatsBase, DataArrayStatsMixin, RunningMixin):
    """``DataArray.nanstats``: exact, NaN-explicit statistics (see the NaN semantics page).

    Examples
    --------
    >>> import numpy as np, xarray as xr, nanaccess.xarray
    >>> da = xr.DataArray([[1.0, np.nan], [3.0, 4.0]], dims=("x", "y"))
    >>> da.nanstats.median("x", nan_policy="omit").values
    array([2., 4.])
    """

    def plot_nan_map(self, ax: Any = None) -> Any:
        """Plot where the NaNs are (:func:`nanaccess.plotting.plot_nan_map`).

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Axes to draw into; a new figure when None.

        Returns
        -------
        matplotlib.axes.Axes
            The axes drawn into.

        Examples
        --------
        >>> import numpy as np, xarray as xr, nanaccess.xarray
        >>> da = xr.DataArray([[1.0, np.nan], [3.0, 4.0]], dims=("x", "y"))
        >>> callable(da.nanstats.plot_nan_map)
        True
        """
        from ..plotting import plot_nan_map

        return plot_nan_map(self._obj, ax=ax)


@register_dataset_accessor("nanstats")
class DatasetNanStats(DatasetBivariate, _NanStatsBase, DatasetStatsMixin, RunningMixin):
    """``Dataset.nanstats``: the statistics per data variable.

    Examples
    --------
    >>> import numpy as np, xarray as xr, nanaccess.xarray
    >>> ds = xr.Dataset({"a": ("t", [1.0, np.nan, 5.0])})
    >>> float(ds.nanstats.median(nan_policy="omit")["a"])
    3.0
    """
