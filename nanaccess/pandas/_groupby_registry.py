"""Everything nanaccess needs from pandas GroupBy internals, in one small module.

pandas has no public GroupBy accessor registry (pandas#35403), and no public way to
get a GroupBy's row codes aligned with its result index (``ngroup()`` numbers only the
observed groups, so it disagrees with the result index under ``observed=False``).
This module is the only place that touches them:

* ``.nanstats`` is set on the classes exported by :mod:`pandas.api.typing`
  (``DataFrameGroupBy``, ``SeriesGroupBy``) as a non-caching descriptor;
* :func:`grouping_info` reads ``gb._grouper.ids`` / ``result_index`` / ``ngroups``;
* :func:`selected_obj` reads ``gb._obj_with_exclusions``;
* :func:`column_dtypes` reads ``DataFrame._mgr.get_dtypes()`` (``df.dtypes`` builds a
  Series indexed by the columns: more than a small frame's median costs);
* :func:`numpy_values` reads ``Series._values`` (the stored NumPy array: the public
  ``.values`` / ``.to_numpy()`` wrap it in a read-only view, which costs more than a
  small column's median).

``tests/pandas/test_registry.py`` fails loudly if any of these move.
"""

from __future__ import annotations

import warnings
from typing import Any, cast

import numpy as np
import pandas as pd

__all__ = ["GroupByAccessor", "register_groupby_accessor", "grouping_info", "selected_obj",
           "GROUPBY_CLASSES", "numpy_values", "column_dtypes", "frame_column"]

try:
    from pandas.api.typing import DataFrameGroupBy, SeriesGroupBy
except ImportError as exc:  # pragma: no cover - exercised only if pandas moves them
    raise ImportError(
        f"nanaccess needs pandas.api.typing.DataFrameGroupBy / SeriesGroupBy "
        f"(pandas {pd.__version__} does not export them)"
    ) from exc

GROUPBY_CLASSES = (DataFrameGroupBy, SeriesGroupBy)


class GroupByAccessor:
    """Descriptor: ``gb.<name>`` builds ``accessor(gb)``; the class gives the accessor."""

    def __init__(self, name: str, accessor: type[Any]) -> None:
        self._name = name
        self._accessor = accessor

    def __get__(self, obj: Any, owner: type[Any] | None = None) -> Any:
        if obj is None:
            return self._accessor
        return self._accessor(obj)


def register_groupby_accessor(name: str, accessor: type[Any]) -> None:
    """Add ``accessor`` as ``name`` on pandas' DataFrameGroupBy and SeriesGroupBy."""
    for cls in GROUPBY_CLASSES:
        existing = cls.__dict__.get(name)
        if existing is not None and not isinstance(existing, GroupByAccessor):
            warnings.warn(
                f"registration of accessor {accessor!r} under name {name!r} for type "
                f"{cls!r} is overriding a preexisting attribute with the same name.",
                UserWarning,
                stacklevel=2,
            )
        setattr(cls, name, GroupByAccessor(name, accessor))


def _internals_error(what: str) -> RuntimeError:
    return RuntimeError(
        f"nanaccess cannot read {what} from this pandas {pd.__version__} GroupBy; pandas "
        "changed its internals (see nanaccess/pandas/_groupby_registry.py)"
    )


def grouping_info(gb: Any) -> tuple[np.ndarray, int, pd.Index]:
    """(row codes (intp, -1 = dropped), number of groups, result index) of a GroupBy.

    The codes index into the result index exactly as pandas' own aggregations use it
    (``sort``, ``dropna``, ``observed`` and categorical keys included).
    """
    if _is_grouped_resampler(gb):
        return _grouped_resample_info(gb)
    try:
        grouper = gb._grouper
        codes = _grouper_codes(grouper)
        result_index = grouper.result_index
        ngroups = int(grouper.ngroups)
    except AttributeError as exc:
        raise _internals_error("the group codes (_grouper.ids/result_index)") from exc
    if len(result_index) != ngroups:
        raise _internals_error("a result index matching ngroups")
    return codes, ngroups, result_index


def _grouper_codes(grouper: Any) -> np.ndarray:
    """A grouper's row codes (intp, -1 = dropped; ``ids``, pandas 3.0 and later)."""
    return np.asarray(grouper.ids, dtype=np.intp)


def selected_obj(gb: Any) -> pd.DataFrame | pd.Series:
    """The Series / DataFrame a GroupBy aggregates (grouping columns excluded; a
    grouped resample's ``on`` column too, as pandas leaves it out)."""
    if _is_grouped_resampler(gb):
        obj = selected_obj(gb._groupby)
        key = gb._timegrouper.key
        if key is not None and isinstance(obj, pd.DataFrame):
            obj = obj.loc[:, obj.columns != key]
        return obj
    try:
        return cast("pd.DataFrame | pd.Series", gb._obj_with_exclusions)
    except AttributeError as exc:
        raise _internals_error("the selected columns (_obj_with_exclusions)") from exc


def selected_positions(gb: Any) -> tuple[pd.DataFrame, list[int]] | None:
    """``(frame, positions)`` of the columns a plain ``df.groupby(keys)`` aggregates
    (every column but the grouping ones, duplicates kept), read without building
    :func:`selected_obj`'s frame: pandas' ``_obj_with_exclusions`` drops the keys from
    the column index, the largest cost of a small grouped call. None for selections
    (``gb[cols]``), resamplers, MultiIndex columns and pandas versions without
    ``exclusions``."""
    if type(gb) is not DataFrameGroupBy or getattr(gb, "_selection", True) is not None:
        return None
    exclusions, obj = getattr(gb, "exclusions", None), getattr(gb, "obj", None)
    if not isinstance(exclusions, frozenset) or type(obj) is not pd.DataFrame or \
            isinstance(obj.columns, pd.MultiIndex):  # (drop's partial keys: not here)
        return None
    return obj, [i for i, c in enumerate(obj.columns) if c not in exclusions]


def _is_grouped_resampler(gb: Any) -> bool:
    """``df.groupby(k).resample(f)`` (pandas' ``_GroupByMixin`` resamplers): a
    resampler holding the GroupBy it resamples group by group."""
    return isinstance(gb, Resampler) and hasattr(gb, "_groupby") and \
        hasattr(gb, "_timegrouper")


def _grouped_resample_info(gb: Any) -> tuple[np.ndarray, int, pd.Index]:
    """:func:`grouping_info` of ``df.groupby(k).resample(f)``: each group's rows in
    time order fill that group's bins in order (a bin is a span of time), so the
    sizes pandas gives each bin (``gb.size()``, its result index) number the rows,
    sorted by (group, time), bin by bin; rows whose key or time is missing are left
    out (-1), as pandas leaves them out."""
    try:
        outer = gb._groupby
        tg = gb._timegrouper
        frame = outer.obj
    except AttributeError as exc:
        raise _internals_error("the grouped resampler's GroupBy (_groupby, "
                               "_timegrouper)") from exc
    ocodes, _, okeys = grouping_info(outer)
    if tg.key is not None:
        times = pd.Index(frame[tg.key])
    elif tg.level is not None:
        times = frame.index.get_level_values(tg.level)
    else:
        times = frame.index
    sizes = gb.size()
    result_index = sizes.index
    counts = np.asarray(sizes, dtype=np.int64)
    kept = np.flatnonzero((ocodes >= 0) & ~np.asarray(pd.isna(times)))
    by_time = kept[np.asarray(times.take(kept).argsort(kind="stable"))]
    order = by_time[np.argsort(ocodes[by_time], kind="stable")]
    codes = np.full(ocodes.size, -1, np.intp)
    if int(counts.sum()) != order.size:
        raise _internals_error("bin sizes matching the grouped rows")
    codes[order] = np.repeat(np.arange(counts.size, dtype=np.intp), counts)
    # each non-empty bin's group (the levels before the time) is its rows' group
    full = np.flatnonzero(counts)
    firsts = order[np.cumsum(counts)[full] - counts[full]]
    bin_keys = result_index.droplevel(-1).take(full) if result_index.nlevels > 1 else None
    if bin_keys is None or not bin_keys.equals(okeys.take(ocodes[firsts])):
        raise _internals_error("bins in the order of the groups")
    return codes, int(counts.size), result_index


# ------------------------------------------------------------------------- windows
# ``s.rolling(...).nanstats``, ``s.expanding().nanstats`` and ``s.resample(...).nanstats``:
# pandas has no public accessor registry for its window and resampler objects either.

try:
    from pandas.api.typing import Expanding, Resampler, Rolling
except ImportError as exc:  # pragma: no cover - exercised only if pandas moves them
    raise ImportError(
        f"nanaccess needs pandas.api.typing.Rolling / Expanding / Resampler "
        f"(pandas {pd.__version__} does not export them)"
    ) from exc


def _grouped_window_classes() -> tuple[type[Any], ...]:
    """The classes of ``gb.rolling(...)`` and ``gb.expanding()``.

    :mod:`pandas.api.typing` spells them ``RollingGroupby`` up to pandas 3.0 and
    ``RollingGroupBy`` from 3.1: the classes of two tiny public-API instances are the
    same in every version.
    """
    gb = pd.Series([0.0]).groupby([0])
    return type(gb.rolling(1)), type(gb.expanding())


#: ``RollingGroupBy`` and ``ExpandingGroupBy`` (whatever this pandas calls them)
WINDOW_GROUPBY_CLASSES = _grouped_window_classes()

#: the window classes ``.nanstats`` is set on (their GroupBy forms subclass them)
WINDOW_CLASSES = (Rolling, Expanding)
RESAMPLER_CLASSES = (Resampler,)


def register_window_accessor(name: str, accessor: type[Any],
                             classes: tuple[type[Any], ...]) -> None:
    """Add ``accessor`` as ``name`` on pandas' window (or resampler) ``classes``."""
    for cls in classes:
        existing = cls.__dict__.get(name)
        if existing is not None and not isinstance(existing, GroupByAccessor):
            warnings.warn(
                f"registration of accessor {accessor!r} under name {name!r} for type "
                f"{cls!r} is overriding a preexisting attribute with the same name.",
                UserWarning,
                stacklevel=2,
            )
        setattr(cls, name, GroupByAccessor(name, accessor))


def window_parts(w: Any) -> dict[str, Any]:
    """What a pandas Rolling / Expanding (or their GroupBy forms) holds.

    Keys: ``obj`` (the selected Series / DataFrame), ``expanding`` (bool), ``window``
    (int, offset or BaseIndexer), ``freq`` (bool: a time-based window), ``min_periods``,
    ``center``, ``closed``, ``step``, ``times`` (the index or ``on`` column of a
    time-based window), ``grouper`` (a GroupBy's grouper, else None) and ``as_index``
    (False: a ``groupby(..., as_index=False)`` window, whose keys become columns).
    """
    try:
        obj = w._selected_obj
        freq = getattr(w, "_win_freq_i8", None) is not None
        times = w._on if freq else None
        grouper = w._grouper if isinstance(w, WINDOW_GROUPBY_CLASSES) or hasattr(
            w, "_as_index") else None
    except AttributeError as exc:
        raise _internals_error("the window's data (_selected_obj, _on, _win_freq_i8)") from exc
    return {
        "obj": obj,
        "expanding": isinstance(w, Expanding),
        "window": getattr(w, "window", None),
        "freq": freq,
        "min_periods": w.min_periods,
        "center": bool(getattr(w, "center", False)),
        "closed": getattr(w, "closed", None),
        "step": getattr(w, "step", None),
        "on": getattr(w, "on", None),
        "times": times,
        "grouper": grouper,
        "as_index": bool(getattr(w, "_as_index", True)),
    }


def grouper_info(grouper: Any) -> tuple[np.ndarray, int, pd.Index]:
    """(row codes, number of groups, result index) of a window GroupBy's grouper."""
    try:
        return _grouper_codes(grouper), int(grouper.ngroups), grouper.result_index
    except AttributeError as exc:
        raise _internals_error("the window GroupBy's group codes (_grouper.ids)") from exc


def numpy_values(s: pd.Series) -> np.ndarray:
    """The NumPy array a Series of a NumPy dtype stores (read-only use), without the
    public accessors' view; the public ``.values`` when pandas stores something else."""
    v = getattr(s, "_values", None)
    return v if type(v) is np.ndarray else s.values


def plain_values(s: pd.Series) -> np.ndarray | None:
    """The NumPy array a Series of a NumPy dtype stores (read-only use), else None:
    one attribute read, for the small-call lane of the Series accessor."""
    v = getattr(s, "_values", None)
    return v if type(v) is np.ndarray else None


def column_dtypes(df: pd.DataFrame) -> list[Any]:
    """The dtype of each column of ``df``, in order (``list(df.dtypes)``, cheaply)."""
    try:
        return list(df._mgr.get_dtypes())
    except AttributeError:  # pragma: no cover - pandas moved it
        return list(df.dtypes)


def frame_column(df: pd.DataFrame, i: int) -> np.ndarray | pd.Series:
    """Column ``i`` of ``df`` (by position): the NumPy array pandas stores for it (read-only
    use) when it stores one, else the Series. ``df.iloc[:, i]`` builds a Series and
    looks its label up (~80 us in pandas 3 with string labels: as much as a grouped
    median of 1e3 rows); the grouped hook needs only the values and the label it has."""
    try:
        v = getattr(df, "_get_column_array")(i)  # noqa: B009  (pandas' private reader)
    except (AttributeError, IndexError, TypeError):  # pragma: no cover - pandas moved it
        v = None
    return v if type(v) is np.ndarray else df.iloc[:, i]
