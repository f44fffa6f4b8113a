"""The NaN map (:func:`plot_nan_map`): where NaNs and missing values sit, each kind in
its colour, long axes binned into pixels. matplotlib is imported only when a plot is
drawn (:func:`require_matplotlib`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .kinds import KIND_NAMES, NUMBER, classify_kinds

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

__all__ = ["plot_nan_map", "require_matplotlib", "KIND_COLORS", "MAX_CELLS"]

#: the colour of each kind of :data:`.kinds.KIND_NAMES`
KIND_COLORS = ("#f2f2f2", "#1f77b4", "#9467bd", "#d62728", "#7f7f7f")


def require_matplotlib(what: str) -> Any:
    try:
        import matplotlib.pyplot as plt
    except ImportError as err:
        raise ImportError(
            f"{what}() needs matplotlib, which is not installed. Install it with "
            '`pip install "nanaccess[plot]"` (or `pip install matplotlib`).'
        ) from err
    return plt


#: How a pixel that holds several elements is coloured: the most telling kind wins, so a
#: lone NaN among thousands of numbers is never averaged away (signaling > negative NaN >
#: quiet NaN > missing > number).
_PIXEL_PRIORITY = np.array([0, 2, 3, 4, 1], dtype=np.int8)  # rank by kind code
_KIND_BY_PRIORITY = np.argsort(_PIXEL_PRIORITY).astype(np.int8)

#: The most cells drawn along one axis; more elements are binned into pixels.
MAX_CELLS = 400


def plot_nan_map(
    obj: Any,
    ax: Axes | None = None,
    *,
    title: str | None = None,
    max_cells: int = MAX_CELLS,
) -> Axes:
    """Draw where the NaNs and missing values of ``obj`` sit, coloured by kind.

    Each element is one cell: numbers light grey, quiet NaNs blue, negative NaNs
    purple, signaling NaNs red, missing values (nulls, ``None``, ``pd.NA``, ``NaT``)
    dark grey. The legend gives the count of each kind.

    Long axes are binned, never subsampled: when an axis holds more than
    ``max_cells`` elements, consecutive elements share one cell and the cell takes the
    most telling kind it holds (signaling NaN, then negative NaN, then quiet NaN, then
    missing, then number). A single NaN among thousands of numbers therefore always
    shows; the axis label says how many elements a cell holds.

    Parameters
    ----------
    obj : Series, DataFrame, DataArray or numpy.ndarray
        At most two dimensions. A DataFrame is drawn with one horizontal strip per
        column (the index runs along x); a 2-D DataArray with its first dim along y
        and its second along x, oriented as xarray plots it (a numeric y coordinate
        grows upwards, so north is at the top of a latitude/longitude map); 1-D data
        as a single strip.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure is made when omitted.
    title : str, optional
        Axes title; by default the object's name, if it has one.
    max_cells : int, default 400
        The most cells along either axis before elements are binned.

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ImportError
        If matplotlib is not installed (the message says how to install it).
    ValueError
        For data of more than two dimensions.

    Examples
    --------
    >>> from nanaccess.plotting import plot_nan_map
    >>> df = pd.DataFrame({"a": [1.0, np.nan, 3.0], "b": [-np.nan, 2.0, 5.0]})
    >>> ax = plot_nan_map(df)
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['a', 'b']
    >>> [t.get_text() for t in ax.get_legend().get_texts()]
    ['number (4)', 'quiet NaN (1)', 'negative NaN (1)']

    A lone NaN in a long series still gets its cell:

    >>> s = pd.Series(np.arange(10_000.0), name="x")
    >>> s.iloc[4321] = np.nan
    >>> ax = plot_nan_map(s, max_cells=100)
    >>> ax.get_xlabel()
    'position (100 per cell)'
    >>> int((np.asarray(ax.images[0].get_array()) == 1).sum())
    1
    """
    plt = require_matplotlib("plot_nan_map")
    from matplotlib.colors import BoundaryNorm, ListedColormap
    from matplotlib.patches import Patch

    if max_cells < 1:
        raise ValueError(f"max_cells must be at least 1, got {max_cells}")
    codes, ylabels, xlabels, ylabel, xlabel, flip = _map_layout(obj)
    counts = np.bincount(codes.ravel(), minlength=len(KIND_NAMES))
    cells, ystarts, ywidth = _bin_axis(codes, 0, max_cells)
    cells, xstarts, xwidth = _bin_axis(cells, 1, max_cells)
    if ax is None:
        height = min(1.2 + 0.35 * max(cells.shape[0], 1), 8.0)
        _, ax = plt.subplots(figsize=(8, height), layout="constrained")
    cmap = ListedColormap(KIND_COLORS)
    norm = BoundaryNorm(np.arange(-0.5, len(KIND_NAMES)), cmap.N)
    ax.imshow(
        cells,
        aspect="auto",
        interpolation="nearest",
        cmap=cmap,
        norm=norm,
        origin="lower" if flip else "upper",
    )

    ny, nx = cells.shape
    yticks = np.arange(ny) if ny <= 30 else _spread_ticks(ny, 8)
    ax.set_yticks(yticks)
    ax.set_yticklabels([_short_label(ylabels[ystarts[i]]) for i in yticks])
    xticks = _spread_ticks(nx, 8)
    ax.set_xticks(xticks)
    ax.set_xticklabels([_short_label(xlabels[xstarts[i]]) for i in xticks], rotation=30, ha="right")
    xlabel = _binned_label(xlabel, xwidth)
    ylabel = _binned_label(ylabel, ywidth)
    if xlabel:
        ax.set_xlabel(xlabel)
    if ylabel:
        ax.set_ylabel(ylabel)
    handles = [
        Patch(facecolor=KIND_COLORS[k], edgecolor="0.4", label=f"{KIND_NAMES[k]} ({counts[k]})")
        for k in range(len(KIND_NAMES))
        if counts[k] or k == NUMBER
    ]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    name = title if title is not None else getattr(obj, "name", None)
    if isinstance(name, str) and name:
        ax.set_title(name)
    return ax


def _bin_axis(codes: np.ndarray, axis: int, max_cells: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Merge runs of ``width`` elements along ``axis`` into one cell (the most telling kind).

    Returns the binned codes, the first element's position of each cell and the width.
    """
    n = codes.shape[axis]
    width = max(1, -(-n // max_cells))
    starts = np.arange(0, n, width)
    if width == 1:
        return codes, starts, 1
    ranks = _PIXEL_PRIORITY[codes]
    binned = np.maximum.reduceat(ranks, starts, axis=axis)
    return _KIND_BY_PRIORITY[binned], starts, width


def _spread_ticks(n: int, most: int) -> np.ndarray:
    return np.unique(np.linspace(0, max(n - 1, 0), num=min(n, most)).round().astype(int))


def _binned_label(label: str | None, width: int) -> str | None:
    if width == 1:
        return label
    return f"{label or 'position'} ({width} per cell)"


def _short_label(v: Any) -> str:
    if isinstance(v, pd.Timestamp | np.datetime64):
        ts = pd.Timestamp(v)
        return ts.strftime("%Y-%m-%d") if ts == ts.normalize() else ts.strftime("%m-%d %H:%M")
    return str(v)


def _map_layout(obj: Any) -> tuple[np.ndarray, list[Any], list[Any], str | None, str | None, bool]:
    """(codes as (y, x), y labels, x labels, y axis name, x axis name, y grows upwards)."""
    if isinstance(obj, pd.DataFrame):
        codes = classify_kinds(obj).T
        return codes, list(obj.columns), list(obj.index), None, _index_name(obj.index), False
    if isinstance(obj, pd.Series):
        codes = classify_kinds(obj)[np.newaxis, :]
        return (
            codes,
            [obj.name if obj.name is not None else ""],
            list(obj.index),
            None,
            (_index_name(obj.index)),
            False,
        )
    if hasattr(obj, "dims") and hasattr(obj, "variable"):  # DataArray
        if obj.ndim > 2:
            raise ValueError(
                f"plot_nan_map draws at most 2 dimensions; this DataArray has dims "
                f"{tuple(obj.dims)}: select (.isel) or stack dims first"
            )
        codes = classify_kinds(obj)
        labels = [
            list(obj[d].values) if d in obj.coords else list(range(obj.sizes[d])) for d in obj.dims
        ]
        if obj.ndim == 1:
            return codes[np.newaxis, :], [obj.name or ""], labels[0], None, str(obj.dims[0]), False
        if obj.ndim == 0:
            return codes.reshape(1, 1), [obj.name or ""], [""], None, None, False
        y = obj.dims[0]
        # xarray draws a numeric y coordinate growing upwards (north at the top of a map)
        flip = y in obj.coords and obj[y].dtype.kind in "iuf" and _ascending(obj[y].values)
        return codes, labels[0], labels[1], str(y), str(obj.dims[1]), flip
    arr = obj if isinstance(obj, np.ndarray) else np.asarray(obj)
    if arr.ndim > 2:
        raise ValueError(
            f"plot_nan_map draws at most 2 dimensions; got an array of shape {arr.shape}"
        )
    codes = classify_kinds(obj).reshape((1, -1) if arr.ndim < 2 else arr.shape)
    return codes, list(range(codes.shape[0])), list(range(codes.shape[1])), None, None, False


def _ascending(values: np.ndarray) -> bool:
    return values.size > 1 and bool(values[-1] > values[0])


def _index_name(index: pd.Index) -> str | None:
    return None if index.name is None else str(index.name)
