"""``window_reduce``: a statistic of every window, each exactly the plain reduction.

The contract: output ``i`` equals ``reduce(x[start[i]:end[i]], stat, policy=...)``
bit for bit (same NaN rules, same picked bits, same exact sums), except where the
window holds fewer than ``min_periods`` values the policy leaves: there the result
is the empty fill (NaN; the adapters give ``pd.NA`` for nullable data).

Engines
-------
reference (NumPy, every statistic, every dtype)
    The windows are expanded into (output, element) pairs and reduced by
    :func:`nanaccess.core.grouped.grouped_reduce` with the output as the group code:
    exact by construction, ``O(sum of window lengths)`` work and memory, done in
    chunks of outputs (:data:`CHUNK` pairs at most).
fused (numba; float32/64 without missing values, NaNs absent or removed)
    :func:`.order.fused_order`: keys from the bits as they are read, counts, the rank
    plan looked up by count and the midpoint / lerp all in one kernel pass;
    :func:`.moments.fused_moment`: exact sums and means of float64 (float32 widened)
    on two fixed bins (exact doubles), rounded once per output; variances certified
    from fixed bins of S and Q, the outputs not certified from the exact expansion.
    Tried first; they hand back (None) what they do not serve.
sliding (numba; order statistics of native data, sums and means of float64)
    :mod:`.order`: one sorted buffer slides along the data, ``O(n log w)`` search;
    :mod:`.moments`: an exact expansion that values enter and leave without rounding,
    rounded once per output. Chosen by :func:`nanaccess.core._numba.choose_engine`
    (the ``engine`` option).

integer sums (NumPy; any engine)
    :mod:`.intsum`: prefix sums of two 32-bit halves, exact, ``O(n)``; a column past
    int64 becomes float64 (each sum rounded once), as pandas. Integer means and
    variances are widened exactly to float64 (``|v| <= 2**53``) or summed as Python
    integers (:func:`.moments.bigint_moment`); integer picks and sums keep their
    dtype in ``WindowReduced.exact``.
temporal sums and means, float16 moments (NumPy; any engine)
    :mod:`.narrow`: exact integer prefix sums (int64 nanoseconds; float16 as integers
    of 2**-24), the mean truncated toward zero (times) or each result rounded once
    to float16, ``O(n)``.
mad (numba)
    :mod:`nanaccess.core._numba.window_mad`: one sorted buffer, the deviations'
    median by selection in two sorted runs, ``O(n log w)``.

Counts (``count``, and ``min_periods``) come from prefix sums: ``O(n)``.
The policy's errors are raised before any engine runs (:mod:`.scan`), naming the
first window that holds a forbidden value (``err.group``) and the value's position.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ... import _stats
from ...errors import NaNError
from ...options import NanPolicy, resolve_policy
from .. import _numba
from ..compose import compose
from ..grouped import grouped_reduce
from ..grouped.common import widen
from ..interp import validate_q
from ..policy import RULES, empty_value
from ..spread import check_scale, divide_by_scale
from .bounds import FixedWindows, is_monotone
from .higher import slide_higher
from .intsum import int_window_sum
from .moments import fused_moment, moment_ok, slide_moment
from .narrow import narrow_moment
from .order import fused_ok, fused_order, slide_order, sliding_ok
from .scan import Masks, check, masks_of, window_counts

__all__ = ["WindowReduced", "window_reduce", "CHUNK", "SLIDING_MIN_PAIRS"]

#: (output, element) pairs the reference engine expands at most at once
CHUNK = 1 << 22
#: fixed windows are passed to the kernels as numbers from this many outputs (fewer:
#: as bound arrays, which every engine reads)
FIXED_MIN_OUTPUTS = 4096
#: integer data widened exactly to float64 for these (the float engines serve them)
WIDENED = ("mean", "var", "std", "mad")
#: under "auto", the sliding engine serves inputs whose windows hold at least this
#: many elements in all (below, the reference engine is as fast and needs no JIT)
SLIDING_MIN_PAIRS = 20_000


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

    @property
    def empty(self) -> np.ndarray:
        """Outputs with nothing left, or too few values (bool, the count's shape)."""
        return self.short | (self.count == 0)


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
    if isinstance(start, FixedWindows):
        if end is not None or start.n != n:
            raise ValueError(f"FixedWindows over {n} rows go with end=None")
        fast = _fast_fixed(x2, miss2, start, stat, policy, engine, params, min_periods)
        if fast is not None:
            return _result(*fast, min_periods, one_d)
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
    pairs = int(lengths.sum()) * ncols  # (output, element) pairs: the engines' size
    fast = _fast_order(x2, miss2, start, end, stat, policy, engine, params, pairs,
                       int(lengths.max(initial=0)), min_periods)
    if fast is None:
        fast = _fast_moment(x2, miss2, start, end, stat, policy, engine, params, pairs)
    if fast is not None:  # the fused kernels: no masks, counts or plans at full size
        return _result(*fast, min_periods, one_d)
    masks = masks_of(x2, miss2)
    check(masks, start, end, policy, x.shape)
    count = _count(masks, start, end, ncols, policy)
    values, vmiss, holes = _values(x2, masks, miss2, start, end, stat, entry.family,
                                   policy, engine, params)
    return _result(values, vmiss, count, False, min_periods, one_d, holes)


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

    def stat(self, name, x, *, center=False, **params):
        self.got = window_reduce(x, self.start, self.end, name, policy=self.policy,
                                 missing=self.missing, min_periods=self.min_periods,
                                 engine=self.engine, **params)
        return self.got.values, self.got.missing

    def count(self, x):
        return self.got.count

    def each(self, fn, *arrays, dtype, drop_lead=False, **kw):
        return fn(*arrays, **kw)


def _fits_float(x2: np.ndarray, miss2: np.ndarray | None) -> bool:
    """Every (present) integer of ``x2`` is an exact double (``|v| <= 2**53``)."""
    if x2.dtype.itemsize < 8 or x2.dtype.kind == "b" or not x2.size:
        return True
    v = x2 if miss2 is None else x2[~miss2]
    if not v.size:
        return True
    return int(v.max()) <= 2**53 and (x2.dtype.kind == "u" or int(v.min()) >= -2**53)


def _result(values, vmiss, count, filled, min_periods, one_d, holes=None) -> WindowReduced:
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
    return WindowReduced(values, vmiss, count, short, exact, holes)


def _count(masks: Masks, start, end, ncols, policy) -> np.ndarray:
    """Values each window holds after the policy (int64, (nout, ncols))."""
    lengths = np.broadcast_to((end - start)[:, None], (start.size, ncols))
    if not RULES[policy].removes:
        return np.ascontiguousarray(lengths, dtype=np.int64)
    gone = lengths * 0
    for mask in (masks.nan, masks.missing):
        gone = gone + window_counts(mask, start, end, ncols)
    return (lengths - gone).astype(np.int64)


def _values(x2, masks, miss2, start, end, stat, family, policy, engine, params):
    """``(values (..., nout, ncols), missing, holes)`` of every window (``holes``:
    integer results with no value, see :class:`WindowReduced`)."""
    if family == "count":
        gone = window_counts(masks.nan, start, end, x2.shape[1]) + window_counts(
            masks.missing, start, end, x2.shape[1])
        return ((end - start)[:, None] - gone).astype(np.int64), None, None
    if stat == "sum" and x2.dtype.kind in "iub":  # prefix sums of two halves: O(n)
        got = int_window_sum(x2, miss2, start, end, not RULES[policy].removes)
        if got is not None:
            return got[0], got[1], None
    if stat in WIDENED and stat != "mad" and x2.dtype.kind in "iu" and \
            moment_ok(stat, params):  # beyond 2**53 (else widened): exact integers, O(n)
        return _int_moment(x2, masks, miss2, start, end, stat, policy, engine, params)
    got = narrow_moment(x2, masks, start, end, stat, policy, params)
    if got is not None:  # temporal sums and means, float16 moments: exact integers, O(n)
        return _patched(*got, x2, miss2, start, end, stat, policy, engine, params)
    pairs = int((end - start).sum()) * x2.shape[1]
    monotone = is_monotone(start, end)
    if stat in _stats.ORDER and sliding_ok(x2, "order", monotone) and \
            _numba.choose_engine(engine, size=pairs, min_size=SLIDING_MIN_PAIRS) == "numba":
        try:
            return _sliding(x2, masks, start, end, stat, policy, params, engine)
        except NaNError:
            raise
        except Exception as exc:  # a broken numba install: the reference engine
            _numba.fallback(exc, engine)
    if moment_ok(stat, params) and x2.dtype in (np.float64, np.float32) and monotone and \
            x2.dtype.isnative and \
            _numba.choose_engine(engine, size=pairs, min_size=SLIDING_MIN_PAIRS) == "numba":
        try:  # float32 widened exactly, the float64 result cast (as the reference)
            with np.errstate(invalid="ignore"):  # a float32 sNaN widens quietly
                wide = x2.astype(np.float64, copy=False)
            values, redo = slide_moment(wide, masks, start, end, stat, policy,
                                        int(params.get("ddof", 0)))
            with np.errstate(over="ignore"):  # float32 overflows to inf, as rounded
                values = values.astype(x2.dtype, copy=False)
        except Exception as exc:  # a broken numba install: the reference engine
            _numba.fallback(exc, engine)
        else:  # outputs the expansion does not serve: the reference engine
            return _patched(values, None, redo, x2, miss2, start, end, stat, policy,
                            engine, params)
    if stat == "mad" and x2.dtype in (np.float64, np.float32) and x2.dtype.isnative and \
            monotone and \
            _numba.choose_engine(engine, size=pairs, min_size=SLIDING_MIN_PAIRS) == "numba":
        try:
            return _sliding_mad(x2, masks, miss2, start, end, policy, engine, params)
        except Exception as exc:  # a broken numba install: the reference engine
            _numba.fallback(exc, engine)
    got = slide_higher(x2, masks, start, end, stat, policy, params, engine, pairs)
    if got is not None:  # skew/kurt certified per window; the rest: reference engine
        return _patched(*got, x2, miss2, start, end, stat, policy, engine, params)
    return _reference(x2, miss2, start, end, stat, policy, engine, params)


def _patched(values, vmiss, redo, x2, miss2, start, end, stat, policy, engine, params):
    """``(values, missing, None)`` with the windows ``redo`` marks from the reference
    engine."""
    rows = np.flatnonzero(redo.any(axis=1))
    if rows.size:
        ref, rmiss, _ = _reference(x2, miss2, start[rows], end[rows], stat, policy,
                                   engine, params)
        values[rows] = ref
        if rmiss is not None or vmiss is not None:
            vmiss = np.zeros(values.shape, bool) if vmiss is None else vmiss.copy()
            vmiss[rows] = False if rmiss is None else rmiss
    if vmiss is not None and not vmiss.any():
        vmiss = None
    return values, vmiss, None


def _int_moment(x2, masks, miss2, start, end, stat, policy, engine, params):
    """``(values, missing, None)``: means and variances of integers of any magnitude
    from prefix sums of Python integers (:func:`.moments.bigint_moment`), rounded once;
    windows holding a missing value the policy keeps (or too few values for ``ddof``)
    from the reference engine."""
    from .moments import bigint_moment

    gone = masks.missing
    take = np.ones(x2.shape, bool) if gone is None else ~gone
    rows = np.arange(start.size)
    values, served = bigint_moment(x2, take, start, end, rows, stat,
                                   int(params.get("ddof", 0)))
    redo = ~served
    if gone is not None and not RULES[policy].removes:
        redo |= window_counts(gone, start, end, x2.shape[1]) > 0
    return _patched(values, None, redo, x2, miss2, start, end, stat, policy, engine,
                    params)


def _sliding_mad(x2, masks, miss2, start, end, policy, engine, params):
    """``(values, missing, None)`` of a moving mad: the sorted-buffer kernel
    (:func:`nanaccess.core._numba.window_mad.slide_mad`, O(n log w)) over the
    numbers; windows holding a NaN or missing value the policy keeps, or an
    infinity, from the reference engine."""
    from .._numba.window_mad import slide_mad

    ncols = x2.shape[1]
    gone = None
    for mask in (masks.nan, masks.missing):
        if mask is not None:
            gone = mask if gone is None else (gone | mask)
    take = np.ones(x2.shape, bool) if gone is None else ~gone
    out, redo = slide_mad(x2.T, take.T, start, end)
    values, redo = out.T.copy(), redo.T
    if gone is not None and not RULES[policy].removes:
        redo = redo | (window_counts(gone, start, end, ncols) > 0)
    values = divide_by_scale(values, check_scale(params.get("scale", 1.0)))
    return _patched(values, None, redo, x2, miss2, start, end, "mad", policy, engine,
                    params)


def _order_params(stat, params):
    """(q array or None, method, q is a scalar) of an order statistic's parameters."""
    from ..interp import METHODS

    method = params.get("method", "linear")
    if method not in METHODS:
        raise ValueError(f"unknown quantile method {method!r}; expected one of {METHODS}")
    if stat != "quantile":
        return None, method, True
    if params.get("q") is None:
        raise TypeError("quantile needs q")
    qv = validate_q(params["q"])
    return np.atleast_1d(np.asarray(qv, np.float64)).ravel(), method, np.ndim(qv) == 0


def _fast_order(x2, miss2, start, end, stat, policy, engine, params, pairs, width,
                min_periods):
    """``((values, None, count, filled) or None)``: the fused kernel of float order
    statistics where it applies (:func:`.order.fused_ok`, monotone bounds, the numba
    engine); ``start`` may be a :class:`.bounds.FixedWindows` (``end`` None)."""
    if stat not in _stats.ORDER or not pairs:
        return None
    if _numba.choose_engine(engine, size=pairs, min_size=SLIDING_MIN_PAIRS) != "numba" or \
            not fused_ok(x2, miss2):
        return None
    q_arr, method, scalar = _order_params(stat, params)
    try:
        got = fused_order(x2, start, end, stat, policy, q_arr, method, width=width,
                          minp=int(min_periods))
    except Exception as exc:  # a broken numba install: the other engines
        _numba.fallback(exc, engine)
        return None
    if got is None:
        return None
    v, count, filled = got
    return (v[0] if scalar else v), None, count, filled


def _fast_fixed(x2, miss2, fixed, stat, policy, engine, params, min_periods):
    """:func:`_fast_order` / :func:`_fast_moment` on fixed windows without bound
    arrays (None: the caller makes the arrays and goes the general way)."""
    if fixed.nout < FIXED_MIN_OUTPUTS:
        return None
    pairs = fixed.nout * fixed.width * x2.shape[1]
    got = _fast_order(x2, miss2, fixed, None, stat, policy, engine, params, pairs,
                      fixed.width, min_periods)
    if got is None:
        got = _fast_moment(x2, miss2, fixed, None, stat, policy, engine, params, pairs)
    return got


def _fast_moment(x2, miss2, start, end, stat, policy, engine, params, pairs):
    """``((values, None, count, False) or None)``: exact moving sums, means, variances
    and standard deviations of native float64 or float32 data
    (:func:`.moments.fused_moment`; ``start`` may be a :class:`.bounds.FixedWindows`);
    outputs it cannot round here go to the reference engine. float32 is widened
    exactly and the float64 result cast, as the reference engine rounds it."""
    if not moment_ok(stat, params) or not pairs or x2.dtype not in (np.float64, np.float32) \
            or not x2.dtype.isnative or (miss2 is not None and miss2.any()):
        return None
    if _numba.choose_engine(engine, size=pairs, min_size=SLIDING_MIN_PAIRS) != "numba":
        return None
    try:
        with np.errstate(invalid="ignore"):  # a float32 sNaN widens quietly
            wide = x2.astype(np.float64, copy=False)
        got = fused_moment(wide, start, end, stat, policy, int(params.get("ddof", 0)),
                           source=x2)
    except Exception as exc:  # a broken numba install: the other engines
        _numba.fallback(exc, engine)
        return None
    if got is None:
        return None
    values, count, redo = got
    rows = np.flatnonzero(redo.any(axis=1)) if redo is not None else ()
    if len(rows):
        if end is None:  # FixedWindows
            start, end = start.arrays()
        values[rows] = _reference(x2, None, start[rows], end[rows], stat, policy, engine,
                                  params)[0]
    with np.errstate(over="ignore"):  # float32 overflows to inf, as rounded
        values = values.astype(x2.dtype, copy=False)
    return values, None, count, False


def _sliding(x2, masks, start, end, stat, policy, params, engine):
    method = params.get("method", "linear")
    q_arr = None
    scalar = True
    if stat == "quantile":
        if params.get("q") is None:
            raise TypeError("quantile needs q")
        qv = validate_q(params["q"])
        scalar = np.ndim(qv) == 0
        q_arr = np.atleast_1d(np.asarray(qv, np.float64)).ravel()
    from ..interp import METHODS

    if method not in METHODS:
        raise ValueError(f"unknown quantile method {method!r}; expected one of {METHODS}")
    v, m, h = slide_order(x2, masks, start, end, stat, policy, q_arr, method)
    if scalar:
        v, m, h = v[0], m[0], None if h is None else h[0]
    return v, m, h


def _reference(x2, miss2, start, end, stat, policy, engine, params):
    """``(values, missing, holes)``: the grouped engine over the expanded windows, in
    chunks of outputs (integer picks and sums kept as the grouped engine keeps them)."""
    lengths = end - start
    nout = start.size
    bounds = [0]
    if nout:
        csum = np.cumsum(lengths)
        b = 0
        while b < nout:  # outputs [b, nb) hold at most CHUNK pairs (at least one output)
            base = csum[b - 1] if b else 0
            nb = int(np.searchsorted(csum, base + CHUNK, side="right"))
            nb = max(nb, b + 1)
            bounds.append(nb)
            b = nb
    vals, miss, holes = [], [], []
    for b0, b1 in zip(bounds[:-1], bounds[1:], strict=True):
        ln = lengths[b0:b1]
        codes = np.repeat(np.arange(b1 - b0, dtype=np.intp), ln)
        offs = np.cumsum(ln) - ln
        idx = np.arange(codes.size, dtype=np.int64) - np.repeat(offs, ln) + np.repeat(
            start[b0:b1], ln)
        sub_miss = None if miss2 is None else miss2[idx]
        try:
            red = grouped_reduce(x2[idx], codes, b1 - b0, stat, policy=policy,
                                 missing=sub_miss, engine=engine, **params)
        except NaNError as err:  # object data: restate in x's frame
            raise _in_frame(err, idx, b0, x2.shape[1]) from None
        vals.append(red.exact)
        miss.append(red.missing)
        holes.append(red.holes)
    if not vals:  # no window: the dtype the grouped engine gives (int picks kept)
        try:
            red = grouped_reduce(x2[:0], np.zeros(0, np.intp), 0, stat, policy=policy,
                                 missing=None if miss2 is None else miss2[:0],
                                 engine=engine, **params)
            return red.exact, None, None
        except (TypeError, ValueError):
            return (*_no_outputs(x2, stat, params), None)
    lead = vals[0].ndim - 2
    if len({v.dtype for v in vals}) > 1:  # chunks of several dtypes: as NumPy hosts
        vals = [widen(v, h).astype(np.float64) for v, h in zip(vals, holes, strict=True)]
        holes = [None]
    out = np.concatenate(vals, axis=lead)
    return out, _joined(miss, vals, lead), _joined(holes, vals, lead)


def _joined(masks: list, vals: list, lead: int) -> np.ndarray | None:
    """Per-chunk bool masks (None: all False) as one array along the outputs."""
    if all(m is None for m in masks):
        return None
    return np.concatenate([np.zeros(v.shape, bool) if m is None else m
                           for v, m in zip(vals, masks, strict=True)], axis=lead)


def _no_outputs(x2, stat, params):
    lead = (len(np.atleast_1d(params["q"])),) if (stat == "quantile" and np.ndim(
        params.get("q")) > 0) else ()
    dt = x2.dtype if x2.dtype.kind in "fmM" else np.dtype(np.float64)
    return np.empty(lead + (0, x2.shape[1]), dtype=dt), None


def _in_frame(err: NaNError, idx: np.ndarray, b0: int, ncols: int) -> NaNError:
    """A grouped error on the expanded rows restated with ``x``'s row and the output."""
    pos = err.position
    position = pos
    if pos:
        row = int(idx[int(pos[0])])
        position = (row,) + tuple(pos[1:])
    group = None if err.group is None else int(err.group) + b0
    return type(err)(count=err.count, kind=err.kind, position=position,
                     subject=f"window {group}", group=group)


def _fill_short(values, vmiss, short):
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
