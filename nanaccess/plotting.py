"""Plots: where NaNs sit (:func:`plot_nan_map`) and how the policies differ
(:func:`plot_policy_comparison`).

matplotlib is an optional dependency (``pip install "nanaccess[plot]"``); it is
imported only when a plot is drawn. The pandas and xarray accessors expose these as
``obj.nanstats.plot_nan_map()``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .core.bits import as_bits, layout_of

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

__all__ = ["plot_nan_map", "plot_policy_comparison", "classify_kinds", "KIND_NAMES"]

#: Codes returned by :func:`classify_kinds`, in the order of the map's legend.
KIND_NAMES = ("number", "quiet NaN", "negative NaN", "signaling NaN", "missing")
NUMBER, QUIET, NEGATIVE, SIGNALING, MISSING = range(5)
_KIND_COLORS = ("#f2f2f2", "#1f77b4", "#9467bd", "#d62728", "#7f7f7f")

POLICIES = ("raise", "propagate", "omit", "smallest", "largest", "totalorder")
_POLICY_MARKERS = dict(zip(POLICIES, ("P", "o", "s", "v", "^", "D"), strict=True))


def _require_matplotlib(what: str):
    try:
        import matplotlib.pyplot as plt
    except ImportError as err:
        raise ImportError(
            f"{what}() needs matplotlib, which is not installed. Install it with "
            '`pip install "nanaccess[plot]"` (or `pip install matplotlib`).'
        ) from err
    return plt


# --------------------------------------------------------------------------------------
# classification


def _values_and_missing(obj: Any) -> tuple[np.ndarray, np.ndarray]:
    """The raw values of a 1-D or N-D host object and a mask of its missing entries.

    Float values come back with their bits untouched; ``missing`` marks nulls of
    nullable / Arrow arrays, ``None``/``pd.NA`` in object arrays and ``NaT``.
    """
    if isinstance(obj, pd.Series | pd.Index):
        if isinstance(obj.dtype, np.dtype):  # plain NumPy data: the array itself
            return _array_values(obj.to_numpy(copy=False))
        if isinstance(obj.dtype, pd.ArrowDtype) or hasattr(obj.array, "_mask"):
            return _array_values(obj.array)
        # other extension types (tz-aware datetimes, categoricals, ...): NA is missing
        values = np.asarray(obj.astype(object))
        return values, np.asarray(obj.isna(), dtype=bool)
    if hasattr(obj, "variable") and hasattr(obj, "dims"):  # xarray.DataArray
        data = obj.data
        if hasattr(data, "compute") and not isinstance(data, np.ndarray):
            data = data.compute()
        return _array_values(np.asarray(data))
    if isinstance(obj, np.ma.MaskedArray):
        return np.asarray(obj.data), np.ma.getmaskarray(obj)
    return _array_values(np.asarray(obj))


def _array_values(arr: Any) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(arr, np.ndarray):
        if arr.dtype.kind in "mM":
            return arr, np.isnat(arr)
        if arr.dtype.kind == "O":
            miss = np.fromiter(
                (v is None or v is pd.NA or v is pd.NaT for v in arr.ravel().tolist()),
                dtype=bool,
                count=arr.size,
            ).reshape(arr.shape)
            return arr, miss
        return arr, np.zeros(arr.shape, dtype=bool)
    if hasattr(arr, "__arrow_array__"):  # ArrowExtensionArray: nulls beside NaNs
        import pyarrow as pa

        chunked = arr.__arrow_array__()
        pa_arr = chunked.combine_chunks() if isinstance(chunked, pa.ChunkedArray) else chunked
        valid = np.asarray(pa_arr.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
        if pa.types.is_floating(pa_arr.type):
            np_type = pa_arr.type.to_pandas_dtype()
            buf = np.frombuffer(pa_arr.buffers()[1], dtype=np_type)
            values = buf[pa_arr.offset : pa_arr.offset + len(pa_arr)]
        else:
            values = np.asarray(pa_arr.to_numpy(zero_copy_only=False))
        return values, ~valid
    if hasattr(arr, "_data") and hasattr(arr, "_mask"):  # pandas masked (nullable) arrays
        return np.asarray(arr._data), np.asarray(arr._mask, dtype=bool)
    values = np.asarray(arr, dtype=object)
    return _array_values(values)


def classify_kinds(obj: Any) -> np.ndarray:
    """Code every element as number, quiet NaN, negative NaN, signaling NaN or missing.

    Float arrays (float16/32/64) are classified on their bit patterns: NaN where the
    exponent is all ones and the mantissa non-zero, signaling where the quiet bit is
    clear, negative where the sign bit is set. A NaN that is both signaling and
    negative counts as signaling (the kind that raises).

    Parameters
    ----------
    obj : Series, DataFrame, DataArray, numpy.ndarray or array_like
        A DataFrame gives an ``(n_rows, n_columns)`` array.

    Returns
    -------
    numpy.ndarray of int8
        Codes indexing :data:`KIND_NAMES`: 0 number, 1 quiet NaN, 2 negative NaN,
        3 signaling NaN, 4 missing.

    Examples
    --------
    >>> from nanaccess.plotting import classify_kinds, KIND_NAMES
    >>> x = np.array([1.0, np.nan, -np.nan, np.inf])
    >>> x[3] = np.uint64(0x7FF0000000000001).view(np.float64)  # a signaling NaN
    >>> [KIND_NAMES[k] for k in classify_kinds(x)]
    ['number', 'quiet NaN', 'negative NaN', 'signaling NaN']
    >>> classify_kinds(pd.Series([1.5, None], dtype="Float64")).tolist()
    [0, 4]
    """
    if isinstance(obj, pd.DataFrame):
        if obj.shape[1] == 0:
            return np.zeros((obj.shape[0], 0), dtype=np.int8)
        return np.stack([classify_kinds(obj.iloc[:, j]) for j in range(obj.shape[1])], axis=1)
    values, missing = _values_and_missing(obj)
    codes = np.zeros(values.shape, dtype=np.int8)
    if values.dtype.kind == "f" and values.dtype.itemsize in (2, 4, 8):
        lay = layout_of(values.dtype)
        bits = as_bits(values)
        nan = np.isnan(values)
        codes[nan] = QUIET
        codes[nan & (bits < 0)] = NEGATIVE
        codes[nan & ((bits & lay.int_dtype.type(lay.quiet_bit)) == 0)] = SIGNALING
    elif values.dtype.kind == "O":
        flat = codes.reshape(-1)
        for i, v in enumerate(values.reshape(-1).tolist()):
            flat[i] = _object_kind(v)
    codes[missing] = MISSING
    return codes


def _object_kind(v: Any) -> int:
    from decimal import Decimal

    if v is None or v is pd.NA or v is pd.NaT:
        return MISSING
    if isinstance(v, Decimal):
        if v.is_snan():
            return SIGNALING
        if v.is_qnan():
            return NEGATIVE if v.is_signed() else QUIET
        return NUMBER
    if isinstance(v, float | np.floating) and v != v:
        return int(classify_kinds(np.asarray([v], dtype=np.asarray(v).dtype))[0])
    return NUMBER


# --------------------------------------------------------------------------------------
# NaN map


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
    plt = _require_matplotlib("plot_nan_map")
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
    cmap = ListedColormap(_KIND_COLORS)
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
        Patch(facecolor=_KIND_COLORS[k], edgecolor="0.4", label=f"{KIND_NAMES[k]} ({counts[k]})")
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


def _map_layout(obj: Any) -> tuple[np.ndarray, list, list, str | None, str | None, bool]:
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


# --------------------------------------------------------------------------------------
# policy comparison


def _stat_function(stat: str | Callable) -> tuple[str, Callable]:
    if callable(stat):
        return getattr(stat, "__name__", "stat"), stat
    import nanaccess

    fn = getattr(nanaccess, stat, None)
    if fn is None or not callable(fn):
        raise ValueError(
            f"unknown statistic {stat!r}; use a nanaccess function name such as "
            "'median', 'mean', 'min', 'max', 'quantile' or pass a callable"
        )
    return stat, fn


def _groups(data: Any) -> dict[str, Any]:
    """Name -> 1-D data for each bar group of the comparison."""
    if isinstance(data, pd.DataFrame):
        return {str(c): data[c] for c in data.columns}
    if isinstance(data, pd.Series):
        return {str(data.name) if data.name is not None else "data": data}
    if isinstance(data, Mapping):
        return {str(k): v for k, v in data.items()}
    groupby_cls = getattr(pd.api.typing, "SeriesGroupBy", None)
    if groupby_cls is not None and isinstance(data, groupby_cls):
        return {str(k): g for k, g in data}
    if hasattr(data, "dims") and hasattr(data, "variable"):  # DataArray: all values
        return {str(data.name) if data.name is not None else "data": np.ravel(data.values)}
    return {"data": data}


def policy_results(data: Any, stat: str | Callable = "median", **kwargs: Any) -> pd.DataFrame:
    """The value of ``stat`` under each policy, for each group of ``data``.

    Parameters
    ----------
    data : Series, DataFrame, SeriesGroupBy, DataArray, mapping or array_like
        A DataFrame gives one row per column, a SeriesGroupBy one per group, a mapping
        one per key.
    stat : str or callable
        A nanaccess function name ("median", "mean", ...) or a function taking
        ``(values, nan_policy=..., **kwargs)``.
    **kwargs
        Passed to the statistic (e.g. ``q=0.9`` for "quantile").

    Returns
    -------
    pandas.DataFrame
        One row per group, one column per policy (float; NaN where the result is NaN
        or missing); ``.attrs["errors"]`` maps (group, policy) to the error message
        where the policy raised, and ``.attrs["outcomes"]`` maps every (group, policy)
        without a numeric result to ``"nan"``, ``"missing"`` (a null result such as
        ``pd.NA``) or ``"raise"``.

    Examples
    --------
    >>> from nanaccess.plotting import policy_results
    >>> r = policy_results(pd.Series([1.0, 2.0, np.nan, 10.0], name="x"))
    >>> r.loc["x", ["omit", "smallest", "largest"]].tolist()
    [2.0, 1.5, 6.0]
    >>> sorted(r.attrs["errors"])
    [('x', 'raise')]
    >>> r.attrs["outcomes"]
    {('x', 'raise'): 'raise', ('x', 'propagate'): 'nan'}
    """
    from .errors import NaNError

    _, fn = _stat_function(stat)
    table: dict[str, dict[str, float]] = {}
    errors: dict[tuple[str, str], str] = {}
    outcomes: dict[tuple[str, str], str] = {}
    for name, values in _groups(data).items():
        row = {}
        for policy in POLICIES:
            try:
                result = fn(values, nan_policy=policy, **kwargs)
            except NaNError as err:
                errors[(name, policy)] = f"{type(err).__name__}: {err}"
                outcomes[(name, policy)] = "raise"
                row[policy] = np.nan
                continue
            row[policy] = _as_float(result)
            if np.isnan(row[policy]):
                outcomes[(name, policy)] = "missing" if _is_missing(result) else "nan"

        table[name] = row
    out = pd.DataFrame.from_dict(table, orient="index", columns=list(POLICIES))
    out.index.name = "group"
    out.columns.name = "nan_policy"
    out.attrs["errors"] = errors
    out.attrs["outcomes"] = outcomes
    return out


def _as_float(result: Any) -> float:
    if _is_missing(result):
        return np.nan
    try:
        return float(np.asarray(result, dtype=float).reshape(()))
    except (TypeError, ValueError):
        return np.nan


def _is_missing(result: Any) -> bool:
    return result is None or result is pd.NA or result is pd.NaT


# the bands below the value axis, top to bottom: outcomes that have no value to draw
_BANDS = (
    ("nan", "NaN"),
    ("missing", "missing (NA)"),
    ("raise", "raised NaNError"),
)
_LABEL_WIDTH = 14  # characters before a category name is wrapped


def plot_policy_comparison(
    data: Any, stat: str | Callable = "median", ax: Axes | None = None, **kwargs: Any
) -> Axes:
    """Plot ``stat`` of ``data`` under every ``nan_policy``, side by side.

    For each group (a column of a DataFrame, a group of a SeriesGroupBy, a key of a
    mapping, or the data itself) one marker per policy is drawn. Numeric results sit
    on the value axis. Outcomes without a value sit in their own labelled band
    below it, never on the value axis: "NaN" (e.g. "propagate" with NaNs present),
    "missing (NA)" (a null result such as ``pd.NA``) and "raised NaNError" (the
    "raise" policy). The band is a second axes sharing x (``ax.child_axes``) and is
    drawn only when some outcome has no value. Long category names are wrapped and,
    when many, rotated; a new figure is sized to the number of categories.

    Parameters
    ----------
    data : Series, DataFrame, SeriesGroupBy, DataArray, mapping or array_like
        See :func:`policy_results`.
    stat : str or callable, default "median"
        A nanaccess function name ("median", "mean", "quantile", ...) or a callable.
    ax : matplotlib.axes.Axes, optional
        Where to draw the value axis; a new figure is made when omitted. The band
        of non-numeric outcomes is added below it.
    **kwargs
        Passed to the statistic (e.g. ``q=0.9``).

    Returns
    -------
    matplotlib.axes.Axes
        The value axis; the outcome band, when drawn, is ``ax.child_axes[0]``.

    Raises
    ------
    ImportError
        If matplotlib is not installed (the message says how to install it).

    Examples
    --------
    >>> from nanaccess.plotting import plot_policy_comparison
    >>> df = pd.DataFrame({"a": [1.0, 2.0, np.nan, 10.0], "b": [3.0, 4.0, 5.0, 6.0]})
    >>> ax = plot_policy_comparison(df, stat="median")
    >>> ax.get_ylabel()
    'median'
    >>> band = ax.child_axes[0]
    >>> [t.get_text() for t in band.get_yticklabels()]
    ['NaN', 'raised NaNError']
    >>> [t.get_text() for t in band.get_xticklabels()]
    ['a', 'b']
    """
    plt = _require_matplotlib("plot_policy_comparison")

    stat_name, _ = _stat_function(stat)
    results = policy_results(data, stat, **kwargs)
    outcomes = results.attrs["outcomes"]
    names = [str(i) for i in results.index]
    labels, rotate = _category_labels(names)
    n = len(names)
    bands = [(kind, text) for kind, text in _BANDS if kind in outcomes.values()]
    if ax is None:
        width = min(max(6.0, 0.85 * n + 3.0), 16.0)
        height = 4.2 + (0.3 * len(bands) if bands else 0.0) + (0.6 if rotate else 0.0)
        _, ax = plt.subplots(figsize=(width, height), layout="constrained")

    xs = np.arange(n)
    offsets = np.linspace(-0.3, 0.3, len(POLICIES))
    cycle = plt.rcParams["axes.prop_cycle"].by_key().get("color", ["C0"])
    style = {
        p: {"marker": _POLICY_MARKERS[p], "color": cycle[j % len(cycle)]}
        for j, p in enumerate(POLICIES)
    }
    for j, policy in enumerate(POLICIES):
        ys = results[policy].to_numpy(dtype=float)
        numeric = np.array([(name, policy) not in outcomes for name in results.index], bool)
        ax.scatter(
            xs[numeric] + offsets[j], ys[numeric], s=55, label=policy, zorder=3, **style[policy]
        )
    _value_limits(ax, results, outcomes)
    extra = ", ".join(f"{k}={v}" for k, v in kwargs.items())
    ax.set_ylabel(f"{stat_name} ({extra})" if extra else stat_name)
    ax.set_title(f"{stat_name} under each nan_policy")
    ax.grid(axis="y", color="0.92", zorder=0)
    ax.legend(title="nan_policy", loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    bottom = ax
    if bands:
        bottom = _outcome_band(ax, results, outcomes, bands, offsets, style)
        ax.tick_params(axis="x", labelbottom=False)
    for axes in {ax, bottom}:
        axes.set_xlim(-0.6, n - 0.4)
        for k in range(1, n):
            axes.axvline(k - 0.5, color="0.85", lw=0.8, zorder=0)
    bottom.set_xticks(xs)
    if rotate:
        bottom.set_xticklabels(labels, rotation=35, ha="right", rotation_mode="anchor")
    else:
        bottom.set_xticklabels(labels)
    bottom.set_xlabel(_category_name(data))
    return ax


def _category_name(data: Any) -> str:
    """What the categories of the comparison are: "column", the groupby key, ..."""
    if isinstance(data, pd.DataFrame):
        return "column"
    keys = getattr(data, "keys", None)
    if isinstance(data, pd.api.typing.SeriesGroupBy) and isinstance(keys, str | int):
        return str(keys)
    return "group"


def _category_labels(names: list[str]) -> tuple[list[str], bool]:
    """Category names wrapped at :data:`_LABEL_WIDTH`, and whether to rotate them."""
    import textwrap

    wrapped = [
        "\n".join(textwrap.wrap(s, _LABEL_WIDTH, break_on_hyphens=False)[:3]) or s for s in names
    ]
    widest = max((len(line) for s in wrapped for line in s.split("\n")), default=0)
    return wrapped, len(names) > 12 or (len(names) > 4 and widest > 8)


def _value_limits(ax: Axes, results: pd.DataFrame, outcomes: dict) -> None:
    values = np.array(
        [results.at[g, p] for g in results.index for p in POLICIES if (g, p) not in outcomes],
        dtype=float,
    )
    values = values[np.isfinite(values)]
    if values.size:
        lo, hi = float(values.min()), float(values.max())
        pad = (hi - lo) * 0.15 or max(abs(hi) * 0.1, 1.0)
        ax.set_ylim(lo - pad, hi + pad)


def _outcome_band(ax, results, outcomes, bands, offsets, style) -> Axes:  # noqa: ANN001
    """The axes below ``ax`` holding one labelled row per outcome without a value."""
    rows = len(bands)
    height = 0.09 * rows + 0.04
    band = ax.inset_axes((0.0, -0.04 - height, 1.0, height), sharex=ax)
    row_of = {kind: rows - 1 - r for r, (kind, _) in enumerate(bands)}
    for j, policy in enumerate(POLICIES):
        pts = [
            (i + offsets[j], row_of[outcomes[(g, policy)]])
            for i, g in enumerate(results.index)
            if (g, policy) in outcomes
        ]
        if pts:
            x, y = zip(*pts, strict=True)
            band.scatter(x, y, s=45, zorder=3, gid=policy, **style[policy])
    band.set_ylim(-0.6, rows - 0.4)
    band.set_yticks([row_of[kind] for kind, _ in bands])
    band.set_yticklabels([text for _, text in bands])
    band.set_facecolor("#f6f6f6")
    for r in range(rows):
        band.axhline(r, color="0.85", lw=0.8, zorder=0)
    return band
