"""``ds.nanstats.corr(other, dim)`` / ``ds.nanstats.cov(other, dim)``: per data variable.

Following the discussion of xarray#6507 (``xr.corr`` / ``xr.cov`` on Datasets): each
data variable of the Dataset is paired with ``other``, a DataArray (every variable
against it) or a Dataset (the variable of the same name; a variable ``other`` lacks
is a ``ValueError`` naming it), and reduced over ``dim`` exactly as
:func:`nanaccess.xarray.bivariate.bivariate` does for DataArrays (xarray's alignment
and broadcasting, the policy, errors naming the variable and coordinates). The
result is a Dataset of the same variable names; the Dataset's attrs are kept.
"""

from __future__ import annotations

from typing import Any

import xarray as xr

from .._labels import subject
from .bivariate import bivariate

__all__ = ["dataset_bivariate", "DatasetBivariate"]


def dataset_bivariate(stat: str, ds: xr.Dataset, other: Any, **kw: Any) -> xr.Dataset:
    """``stat`` ("corr" or "cov") of every data variable of ``ds`` with ``other``.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> ds = xr.Dataset({"a": ("t", [1.0, 2.0, np.nan, 4.0]), "b": ("t", [4.0, 1.0, 0.0, 2.0])})
    >>> out = dataset_bivariate("corr", ds, 3 * ds["a"] + 1e7, dim="t", nan_policy="omit")
    >>> float(out["a"]), round(float(out["b"]), 4)
    (1.0, -0.5)
    """
    if not isinstance(ds, xr.Dataset):
        raise TypeError(f"expected a Dataset, got {type(ds).__name__}")
    if not isinstance(other, xr.Dataset | xr.DataArray):
        raise TypeError("other must be a DataArray or a Dataset, not "
                        f"{type(other).__name__}")
    if isinstance(other, xr.Dataset):
        lacking = [n for n in ds.data_vars if n not in other.data_vars]
        if lacking:
            raise ValueError(f"other lacks the data variable(s) {lacking} of the Dataset: "
                             "a Dataset pairs its variables by name (pass a DataArray to "
                             "pair every variable with it)")
    out = {}
    for name, var in ds.data_vars.items():  # one call per variable (each is vectorised)
        peer = other[name] if isinstance(other, xr.Dataset) else other
        if var.dtype.kind not in "fiub":
            raise TypeError(f"{subject('variable', name)} has dtype {var.dtype}: "
                            "covariance and correlation need numbers")
        try:
            out[name] = bivariate(stat, var, peer, **kw)
        except ValueError as err:
            if "dimensions" in str(err) and "not found" in str(err):
                raise ValueError(f"{subject('variable', name)}: {err}") from None
            raise
    return xr.Dataset(out, attrs=ds.attrs)


class DatasetBivariate:
    """``ds.nanstats.corr(other, dim=)`` / ``cov(other, dim=, ddof=)``."""

    _obj: xr.Dataset

    def corr(self, other: xr.DataArray | xr.Dataset, dim: Any = None, *,
             method: str = "pearson", min_periods: int | None = None,
             nan_policy: Any = None) -> xr.Dataset:
        """Correlation of every data variable with ``other`` over ``dim`` (as
        :func:`xarray.corr` per variable), exact.

        Parameters
        ----------
        other : xarray.DataArray or xarray.Dataset
            A DataArray pairs with every variable; a Dataset pairs its variables by name.
        dim : str or sequence of str, optional
            Dimensions to reduce (default all).
        method : {"pearson", "spearman", "kendall"}
        min_periods : int, optional
        nan_policy : str, optional

        Returns
        -------
        xarray.Dataset

        Examples
        --------
        >>> import xarray as xr, nanaccess  # noqa: F401
        >>> ds = xr.Dataset({"a": ("t", [1.0, 2.0, 3.0]), "b": ("t", [3.0, 1.0, 2.0])})
        >>> ds.nanstats.corr(ds["a"], "t", nan_policy="omit")["b"].item()
        -0.5
        """
        return dataset_bivariate("corr", self._obj, other, dim=dim, method=method,
                                 min_periods=min_periods, nan_policy=nan_policy)

    def cov(self, other: xr.DataArray | xr.Dataset, dim: Any = None, *, ddof: int = 1,
            min_periods: int | None = None, nan_policy: Any = None) -> xr.Dataset:
        """Covariance of every data variable with ``other`` over ``dim`` (as
        :func:`xarray.cov` per variable), correctly rounded.

        Parameters
        ----------
        other : xarray.DataArray or xarray.Dataset
            As :meth:`corr`.
        dim : str or sequence of str, optional
        ddof : int, default 1
        min_periods : int, optional
        nan_policy : str, optional

        Returns
        -------
        xarray.Dataset

        Examples
        --------
        >>> import xarray as xr, nanaccess  # noqa: F401
        >>> ds = xr.Dataset({"a": ("t", [1.0, 2.0, 3.0]), "b": ("t", [3.0, 1.0, 2.0])})
        >>> ds.nanstats.cov(ds, "t", nan_policy="omit")["a"].item()
        1.0
        """
        return dataset_bivariate("cov", self._obj, other, dim=dim, ddof=ddof,
                                 min_periods=min_periods, nan_policy=nan_policy)
