"""``window_reduce``: a statistic of every window, each exactly the plain reduction.

The contract: output ``i`` equals ``reduce(x[start[i]:end[i]], stat, policy=...)``
bit for bit (same NaN rules, same picked bits, same exact sums), except where the
window holds fewer than ``min_periods`` values the policy leaves: there the result
is the empty fill (NaN; the adapters give ``pd.NA`` for nullable data).

Engines
-------
:mod:`.engines` holds the table of which engine serves which statistic (by the
table's kernel families), dtype, policy and shape, asked in order: the fused
compiled kernels first (no masks or counts at the data's size), then, once the
policy's errors are raised, the exact integer and temporal sums, the sliding
compiled engines and the reference engine (:mod:`.reference`, the grouped engine
over the expanded windows), which every other engine is tested against. The result
names the engine that answered (``WindowReduced.engine``).

Counts (``count``, and ``min_periods``) come from prefix sums: ``O(n)``.
The policy's errors are raised before any engine runs (:mod:`.scan`), naming the
first window that holds a forbidden value (``err.group``) and the value's position.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from ... import _stats
from ...options import NanPolicy, resolve_policy
from ..compose import compose
from ..grouped.common import widen
from ..policy import RULES, empty_value
from .bounds import FixedWindows
from .engines import SLIDING_MIN_PAIRS, Job, run_engines
from .reference import CHUNK
from .scan import Masks, check, masks_of, window_counts

__all__ = ["WindowReduced", "window_reduce", "CHUNK", "SLIDING_MIN_PAIRS"]

#: fixed windows are passed to the kernels as numbers from this many outputs (fewer:
#: as bound arrays, which every engine reads)
FIXED_MIN_OUTPUTS = 4096
#: integer data widened exactly to float64 for these (the float engines serve them):
#: the mean, sum-of-squares and deviation (mad) kernels
WIDENED = _stats.MEANS | _stats.SQUARES | frozenset(
    s for s in _stats.COMPOSED if _stats.get(s).compose.recipe == "deviation")


@dataclass
class WindowReduced:
    """What :func:`window_reduce` returns.

    ``values``: ``(nout,)`` or ``(nout, ncols)``, with a leading quantile axis for an
    array ``q``, as NumPy hosts hold them (float64 with NaN where an integer result
    has no value); ``missing``: None or a bool array of ``values``' shape (results that
    are the host's missing value); ``count``: int64 ``(nout,)`` / ``(nout, ncols)``,
    the values each window holds after the policy (numbers, plus NaN and missing
    values unless the policy removes them); ``short``: bool, the count's shape,
    windows with fewer than ``min_periods`` values (their value is the empty fill).
    ``exact``: the results in the dtype the statistic keeps (as
    :class:`nanaccess.core.grouped.GroupedReduced`): integer and bool picks and exact
    integer sums stay integers, ``holes`` (None or bool, ``values``' shape) marking
    those with no value (short windows, missing results; 0 there); None: ``values``.
    """

    values: np.ndarray
    missing: np.ndarray | None
    count: np.ndarray
    short: np.ndarray
    exact: np.ndarray | None = None
    holes: np.ndarray | None = None
    #: the engine that answered (a row of :data:`.engines.ENGINES`; None: composed)
    engine: str | None = None

    @property
    def empty(self) -> np.ndarray:
        """Outputs with nothing left, or too few values (bool, the count's shape)."""
        return cast("np.ndarray", self.short | (self.count == 0))


def window_reduce(
    x: Any,
    start: Any,
    end: Any,
    stat: str,
    *,
    policy: NanPolicy | str,
    missing: Any = None,
    min_periods: int = 0,
    engine: str | None = None,
    **params: Any,
) -> WindowReduced:
    """Reduce every window ``x[start[i]:end[i]]`` with ``stat`` under ``policy``.

    Parameters
    ----------
    x : numpy.ndarray
        ``(n,)`` or ``(n, ncols)`` (the columns share the windows): float16/32/64,
        int/uint, bool, datetime64/timedelta64 (NaT is missing) or object.
    start, end : array_like of int
        ``(nout,)`` bounds into the first axis (see :mod:`.bounds`); ``end < start``
        is an empty window. ``start`` may be a :class:`.bounds.FixedWindows` (``end``
        None): fixed windows the compiled kernels bound themselves.
    stat : str
        A name of :data:`nanaccess._stats.GROUPED`.
    policy : NanPolicy or str
    missing : numpy.ndarray of bool, optional
        Missing entries of ``x``'s shape.
    min_periods : int
        Windows holding fewer values (after the policy) give the empty fill.
    engine : {None, "auto", "numpy", "numba"}
        None reads the ``engine`` option; "numba" slides order statistics.
    **params
        The statistic's own parameters (``q``, ``method``, ``ddof``, ``rng``, ``scale``).

    Returns
    -------
    WindowReduced

    Raises
    ------
    NaNError, SignalingNaNError
        ``.group`` is the first output whose window holds a forbidden value,
        ``.position`` the value's position in ``x``.

    Examples
    --------
    >>> from nanaccess.core.window import fixed_bounds
    >>> x = np.array([1.0, np.nan, 3.0, 4.0, 10.0])
    >>> s, e = fixed_bounds(5, 3)
    >>> window_reduce(x, s, e, "median", policy="omit", min_periods=2).values
    array([nan, nan, 2. , 3.5, 4. ])
    """
    policy = resolve_policy(policy)
    entry = _stats.get(stat)
    if stat not in _stats.GROUPED:
        raise ValueError(f"{stat!r} has no windowed form; expected one of "
                         f"{', '.join(_stats.GROUPED)}")
    unknown = set(params) - set(entry.param_names)
    if unknown:
        raise TypeError(f"{stat}() got unexpected keyword(s) {sorted(unknown)}")
    x = np.asarray(x)
    if x.ndim not in (1, 2):
        raise ValueError(f"window_reduce needs 1-D or 2-D data, got shape {x.shape}")
    if entry.compose is not None and entry.compose.recipe in WindowShape.recipes:
        shape = WindowShape(start, end, policy, missing, min_periods, engine)
        values, vmiss = compose(entry, shape, x, **params)
        got = shape.got
        return WindowReduced(values, vmiss, got.count, got.short)
    one_d = x.ndim == 1
    x2 = x[:, None] if one_d else x
    n, ncols = x2.shape
    miss2 = None
    if missing is not None:
        mm = np.asarray(missing, dtype=bool)
        if mm.shape != x.shape:
            raise ValueError(f"missing must have the shape of x {x.shape}, got {mm.shape}")
        miss2 = mm[:, None] if one_d else mm
    if stat in WIDENED and x2.dtype.kind in "iub" and _fits_float(x2, miss2):
        # every integer an exact double: the float engines' exactly rounded mean and
        # variance are those of the same numbers
        x2 = x2.astype(np.float64)
    job = Job(x2, miss2, start, end, stat, entry, policy, engine, params,
              int(min_periods), 0, 0)
    if isinstance(start, FixedWindows):
        if end is not None or start.n != n:
            raise ValueError(f"FixedWindows over {n} rows go with end=None")
        if start.nout >= FIXED_MIN_OUTPUTS:
            job.pairs, job.width = start.nout * start.width * ncols, start.width
            ran = run_engines(job, fused=True)
            if ran is not None:
                return _result(*ran[1], min_periods, one_d, engine=ran[0])
        start, end = start.arrays()
    start = np.asarray(start, dtype=np.int64).ravel()
    end = np.asarray(end, dtype=np.int64).ravel()
    if start.shape != end.shape:
        raise ValueError("start and end must have the same length")
    if start.size and (start.min() < 0 or end.max() > n):
        raise ValueError(f"window bounds must lie in [0, {n}]")
    lengths = end - start
    if start.size and lengths.min() < 0:  # end < start: an empty window
        start = np.minimum(start, end)
        np.maximum(lengths, 0, out=lengths)
    job.start, job.end = start, end
    job.pairs = int(lengths.sum()) * ncols  # (output, element) pairs: the engines' size
    job.width = int(lengths.max(initial=0))
    ran = run_engines(job, fused=True)
    if ran is not None:  # the fused kernels: no masks, counts or plans at full size
        return _result(*ran[1], min_periods, one_d, engine=ran[0])
    job.masks = masks = masks_of(x2, miss2)
    check(masks, start, end, policy, x.shape)
    count = _count(masks, start, end, ncols, policy)
    name, (values, vmiss, holes) = run_engines(job, fused=False)
    return _result(values, vmiss, count, False, min_periods, one_d, holes, engine=name)


@dataclass
class WindowShape:
    """The windows as a :class:`nanaccess.core.compose.Shape` for the recipes that
    need no per-value center (a value lies in many windows: mad goes through the
    reference engine, the grouped engine over the expanded windows). ``got`` keeps
    the last :class:`WindowReduced`, whose counts the composed result shares."""

    start: Any
    end: Any
    policy: NanPolicy
    missing: Any
    min_periods: int
    engine: str | None
    got: WindowReduced | None = None
    name: str = "window"
    recipes = frozenset({"difference", "ratio"})

    def stat(self, name: Any, x: Any, *, center: Any = False, **params: Any) -> Any:
        self.got = window_reduce(x, self.start, self.end, name, policy=self.policy,
                                 missing=self.missing, min_periods=self.min_periods,
                                 engine=self.engine, **params)
        return self.got.values, self.got.missing

    def count(self, x: Any) -> Any:
        return self.got.count

    def each(self, fn: Any, *arrays: Any, dtype: Any, drop_lead: Any = False, **kw: Any) -> Any:
        return fn(*arrays, **kw)


def _fits_float(x2: np.ndarray, miss2: np.ndarray | None) -> bool:
    """Every (present) integer of ``x2`` is an exact double (``|v| <= 2**53``)."""
    if x2.dtype.itemsize < 8 or x2.dtype.kind == "b" or not x2.size:
        return True
    v = x2 if miss2 is None else x2[~miss2]
    if not v.size:
        return True
    return int(v.max()) <= 2**53 and (x2.dtype.kind == "u" or int(v.min()) >= -2**53)


def _result(values: Any, vmiss: Any, count: Any, filled: Any, min_periods: Any, one_d: Any,
            holes: Any = None, *,
            engine: Any = None) -> WindowReduced:
    """The :class:`WindowReduced` of an engine's ``(values, missing, count)`` (2-D
    columns); ``filled``: the short windows hold the empty fill already; ``holes``:
    integer results with no value (``values`` then holds them as integers)."""
    short = count < int(min_periods)
    exact = None
    if values.dtype.kind in "iub":  # integers kept in exact; values as NumPy hosts
        gap = np.broadcast_to(short, values.shape)
        for extra in (holes, vmiss):
            if extra is not None:
                gap = gap | extra
        exact, holes = values, (gap if gap.any() else None)
        if holes is not None and (vmiss is not None or short.any()):
            exact = values.copy()
            exact[holes] = 0
        values = widen(exact, holes)
        if vmiss is not None:
            vmiss = vmiss & ~np.broadcast_to(short, vmiss.shape)
    elif not filled and short.any():
        values, vmiss = _fill_short(values, vmiss, short)
    if one_d:
        values, vmiss = values[..., 0], None if vmiss is None else vmiss[..., 0]
        count, short = count[:, 0], short[:, 0]
        if exact is not None:
            exact = exact[..., 0]
            holes = None if holes is None else holes[..., 0]
    if vmiss is not None and not vmiss.any():
        vmiss = None
    return WindowReduced(values, vmiss, count, short, exact, holes, engine)


def _count(masks: Masks, start: Any, end: Any, ncols: Any, policy: Any) -> np.ndarray:
    """Values each window holds after the policy (int64, (nout, ncols))."""
    lengths = np.broadcast_to((end - start)[:, None], (start.size, ncols))
    if not RULES[policy].removes:
        return np.ascontiguousarray(lengths, dtype=np.int64)
    gone = lengths * 0
    for mask in (masks.nan, masks.missing):
        gone = gone + window_counts(mask, start, end, ncols)
    return cast("np.ndarray", (lengths - gone).astype(np.int64))


def _fill_short(values: Any, vmiss: Any, short: Any) -> Any:
    """The empty fill (NaN, NaT) where a window holds too few values."""
    if values.dtype.kind not in "fmMO":
        values = values.astype(np.float64)
    else:
        values = values.copy()
    mask = np.broadcast_to(short, values.shape)
    fill = float("nan") if values.dtype.kind == "O" else empty_value(values.dtype, "median")
    values[mask] = fill
    if vmiss is not None:
        vmiss = vmiss & ~mask
    return values, vmiss
