"""How the policies differ: the value of one statistic under each of the six
policies (:func:`policy_results`), and its plot (:func:`plot_policy_comparison`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

from .. import api
from ..errors import NaNError
from .nan_map import require_matplotlib

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

__all__ = ["policy_results", "plot_policy_comparison", "POLICIES"]

POLICIES = ("raise", "propagate", "omit", "smallest", "largest", "totalorder")
_POLICY_MARKERS = dict(zip(POLICIES, ("P", "o", "s", "v", "^", "D"), strict=True))


def _stat_function(stat: str | Callable[..., Any]) -> tuple[str, Callable[..., Any]]:
    if callable(stat):
        return getattr(stat, "__name__", "stat"), stat
    fn = getattr(api, stat, None)
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


def policy_results(data: Any, stat: str | Callable[..., Any] = "median",
                   **kwargs: Any) -> pd.DataFrame:
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
    data: Any, stat: str | Callable[..., Any] = "median", ax: Axes | None = None, **kwargs: Any
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
    plt = require_matplotlib("plot_policy_comparison")

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


def _value_limits(ax: Axes, results: pd.DataFrame, outcomes: dict[Any, Any]) -> None:
    values = np.array(
        [results.at[g, p] for g in results.index for p in POLICIES if (g, p) not in outcomes],
        dtype=float,
    )
    values = values[np.isfinite(values)]
    if values.size:
        lo, hi = float(values.min()), float(values.max())
        pad = (hi - lo) * 0.15 or max(abs(hi) * 0.1, 1.0)
        ax.set_ylim(lo - pad, hi + pad)


def _outcome_band(ax: Any, results: Any, outcomes: Any, bands: Any, offsets: Any,
                  style: Any) -> Axes:  # noqa: ANN001
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
    return cast("Axes", band)
