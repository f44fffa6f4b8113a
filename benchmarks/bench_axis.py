"""Median and quantile along an axis of a 2-D float64 array under "omit".

Default: a 1000 x 10000 array with 1 % NaN, reduced along each axis, against
``bottleneck.nanmedian``, ``numbagg.nanmedian`` / ``nanquantile``, ``np.nanmedian`` /
``np.nanquantile`` and xarray's ``DataArray.median(dim=...)`` / ``quantile``. The
target (ratio <= 1.0) is against the fastest of bottleneck and numbagg, reported as
its own row ("fastest of bottleneck, numbagg").
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from common import float_data, log, make_row, optional_import, time_interleaved

import nanaccess as na

__all__ = ["run", "SHAPE"]

SHAPE = (1000, 10000)
QS = [0.1, 0.5, 0.9]
TARGET = 1.0
_COMPILED = ("bottleneck", "numbagg")


def _refs(stat: str, x: np.ndarray, axis: int) -> dict[str, Any]:
    refs: dict[str, Any] = {}
    bn = optional_import("bottleneck")
    nb = optional_import("numbagg")
    xr = optional_import("xarray")
    if stat == "median":
        if bn is not None:
            refs["bottleneck"] = lambda: bn.nanmedian(x, axis=axis)
        if nb is not None and hasattr(nb, "nanmedian"):
            refs["numbagg"] = lambda: nb.nanmedian(x, axis=axis)
        refs["np.nanmedian"] = lambda: np.nanmedian(x, axis=axis)
        if xr is not None:
            da = xr.DataArray(x, dims=("a", "b"))
            dim = da.dims[axis]
            refs["xarray.median"] = lambda: da.median(dim=dim)
    else:
        if nb is not None and hasattr(nb, "nanquantile"):
            refs["numbagg"] = lambda: nb.nanquantile(x, QS, axis=axis)
        refs["np.nanquantile"] = lambda: np.nanquantile(x, QS, axis=axis)
        if xr is not None:
            da = xr.DataArray(x, dims=("a", "b"))
            dim = da.dims[axis]
            refs["xarray.quantile"] = lambda: da.quantile(QS, dim=dim)
    return refs


def run(shape: Sequence[int] = SHAPE, *, repeats: int = 5, nan_pct: float = 1.0,
        stats: Sequence[str] = ("median", "quantile"), axes: Sequence[int] = (0, 1),
        references: Sequence[str] | None = None, out_dir: Path | str | None = None,
        write: bool = True, name: str = "axis"
        ) -> list[dict[str, Any]]:
    """Time the along-axis cases; return the rows and write ``<name>.json`` / ``.md``.

    Parameters
    ----------
    shape : (int, int)
        Shape of the 2-D array.
    repeats : int
        Interleaved repeats (median reported).
    nan_pct : float
        NaN share in percent.
    stats : sequence of {"median", "quantile"}
        Statistics to time.
    axes : sequence of int
        Axes to reduce, one at a time.
    references : sequence of str, optional
        Only these references (names as in the rows: "bottleneck", "numbagg",
        "np.nanmedian", "np.nanquantile", "xarray.median", "xarray.quantile"); default
        all installed. numbagg compiles on its first call (a minute or more).
    out_dir : path, optional
        Where to write (default ``benchmarks/results``).
    write : bool
        Write the result files.
    name : str
        Result file stem.

    Returns
    -------
    list of dict
        Result rows (schema in :mod:`common`); ``case`` is e.g. ``"median axis=0"``
        and ``n`` the number of elements.
    """
    x = float_data(0, nan_pct, seed=1, shape=tuple(shape))
    rows: list[dict[str, Any]] = []
    for stat in stats:
        for axis in axes:
            if stat == "median":
                def mine(axis=axis):
                    return na.median(x, axis=axis, nan_policy="omit")
            else:
                def mine(axis=axis):
                    return na.quantile(x, QS, axis=axis, nan_policy="omit")
            refs = _refs(stat, x, axis)
            if references is not None:
                refs = {k: v for k, v in refs.items() if k in references}
            t = time_interleaved({"nanaccess": mine, **refs}, repeats=repeats)
            case = f"{stat} axis={axis} of {shape[0]}x{shape[1]}"
            compiled = [r for r in _COMPILED if r in refs]
            if compiled:
                fastest = min(compiled, key=lambda r: t[r])
                rows.append(make_row(case, x.size, "omit", t["nanaccess"],
                                     f"fastest of {', '.join(compiled)} ({fastest})",
                                     t[fastest], nan_pct=nan_pct, target=TARGET))
            for ref in refs:
                rows.append(make_row(case, x.size, "omit", t["nanaccess"], ref, t[ref],
                                     nan_pct=nan_pct))
            log(f"axis {case}: " + ", ".join(f"{r}={t['nanaccess'] / t[r]:.2f}x" for r in refs))
    if write:
        from common import write_results

        write_results(name, rows, out_dir)
    return rows
