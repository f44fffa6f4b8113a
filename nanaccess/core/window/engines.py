"""Which engine serves a window reduction: one table, read in order.

Each row of :data:`ENGINES` names an engine, the table's kernel families it serves
(:attr:`nanaccess._stats.Statistic.kernel_family`, never statistic names), whether
it is compiled (then the ``engine`` option chooses it, from
:data:`SLIDING_MIN_PAIRS` pairs under "auto"), and what else the input must be
(dtype, missing values, monotone bounds). :func:`run_engines` asks each row in
turn; the first that serves the input answers, and the result records its name
(``WindowReduced.engine``).

=================  =========================  =======================================
engine             kernel families            input
=================  =========================  =======================================
fused order        select (one pass)          native float32/64, no missing value;
                                              NaNs absent or removed by the policy
                                              (else it hands over at run time)
fused moment       sum, mean, var             native float32/64, no missing value
count              count                      any (prefix counts)
integer sum        sum                        int, uint, bool (prefix sums, O(n))
integer moment     mean, var                  int beyond 2**53 (Python-int prefix sums)
narrow moment      sum, mean, var             datetime / timedelta sums and means,
                                              float16 moments (exact integer sums)
sliding order      select                     numeric, monotone bounds (compiled)
sliding moment     sum, mean, var             native float32/64, monotone (compiled)
sliding mad        mad (deviation recipe)     float16/32/64, monotone (compiled)
sliding higher     higher (skew, kurt)        float32/64, ints within 2**53 (compiled;
                                              each window certified, else reference)
reference          every statistic            every input (the tested reference)
=================  =========================  =======================================

The two fused engines also serve :class:`.bounds.FixedWindows` (no bound arrays) and
need no masks, counts or plans at the data's size; the others run after the policy's
errors are raised (:mod:`.scan`) and the counts made.

"omit" is applied once: :attr:`Job.gone` (NaNs and missing values) and
:attr:`Job.takes` (the elements that take a rank under the policy) are made here,
and every engine after the fused ones reads them; windows holding a value the
policy keeps but an engine does not serve are handed to the reference engine
(:func:`.reference.patched`) by that engine's ``redo`` mask.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal, overload

import numpy as np

from ... import _stats
from ...errors import NaNError
from ...options import NanPolicy
from .. import _numba
from ..interp import METHODS, validate_q
from ..policy import RULES
from ..spread import check_scale, divide_by_scale
from . import reference as ref
from .bounds import FixedWindows, is_monotone
from .higher import slide_higher
from .intsum import int_window_sum
from .moments import bigint_moment, fused_moment, moment_ok, slide_moment
from .narrow import narrow_moment
from .order import fused_ok, fused_order, slide_order, sliding_ok
from .scan import Masks, window_counts  # noqa: F401  (Job.masks)

__all__ = ["Job", "Engine", "ENGINES", "run_engines", "SLIDING_MIN_PAIRS"]

#: under "auto", the compiled engines serve inputs whose windows hold at least this
#: many elements in all (below, the reference engine is as fast and needs no JIT)
SLIDING_MIN_PAIRS = 20_000

_LOG = logging.getLogger("nanaccess")


@dataclass
class Job:
    """One window reduction as the engines see it: ``x2`` ``(n, ncols)``, its missing
    mask, the bounds (``start`` may be a :class:`.bounds.FixedWindows`, ``end``
    None), the statistic's table entry, policy, ``engine`` option, parameters and
    ``min_periods``; ``masks`` is set once the policy's errors are checked."""

    x2: np.ndarray
    miss2: np.ndarray | None
    start: Any
    end: Any
    stat: str
    entry: _stats.Statistic
    policy: NanPolicy
    engine: str | None
    params: dict[str, Any]
    min_periods: int
    pairs: int
    width: int
    masks: Masks | None = None

    @property
    def fixed(self) -> bool:
        return isinstance(self.start, FixedWindows)

    @property
    def family(self) -> str | None:
        """The table's kernel family, or the compose recipe of a composed statistic."""
        c = self.entry.compose
        return self.entry.kernel_family if c is None else c.recipe

    @property
    def native_float(self) -> bool:
        dt = self.x2.dtype
        return dt.kind == "f" and dt.itemsize in (4, 8) and dt.isnative

    @property
    def no_missing(self) -> bool:
        return self.miss2 is None or not self.miss2.any()

    @cached_property
    def monotone(self) -> bool:
        return is_monotone(self.start, self.end)

    @cached_property
    def gone(self) -> np.ndarray | None:
        """NaNs and missing values (None: neither), the elements "omit" removes."""
        out = None
        for mask in (self.masks.nan, self.masks.missing):
            if mask is not None:
                out = mask if out is None else (out | mask)
        return out

    @cached_property
    def kept_gone(self) -> np.ndarray | None:
        """Windows holding a NaN or missing value the policy keeps (None: none can):
        an engine that serves numbers only hands these to the reference engine."""
        if self.gone is None or RULES[self.policy].removes:
            return None
        return window_counts(self.gone, self.start, self.end, self.x2.shape[1]) > 0

    def numbers(self) -> np.ndarray:
        """The elements that are numbers (bool, ``x2``'s shape)."""
        return np.ones(self.x2.shape, bool) if self.gone is None else ~self.gone

    def compiled(self) -> bool:
        """The ``engine`` option picks the compiled engines for this size."""
        return _numba.choose_engine(self.engine, size=self.pairs,
                                    min_size=SLIDING_MIN_PAIRS) == "numba"

    def order_params(self) -> tuple[np.ndarray | None, str, bool]:
        """(q array or None, method, q is a scalar) of an order statistic."""
        method = self.params.get("method", "linear")
        if method not in METHODS:
            raise ValueError(f"unknown quantile method {method!r}; expected one of "
                             f"{METHODS}")
        if self.stat not in _stats.TAKES_Q:
            return None, method, True
        if self.params.get("q") is None:
            raise TypeError(f"{self.stat} needs q")
        qv = validate_q(self.params["q"])
        return np.atleast_1d(np.asarray(qv, np.float64)).ravel(), method, np.ndim(qv) == 0

    def patched(self, values: Any, vmiss: Any, redo: Any) -> Any:
        return ref.patched(values, vmiss, redo, self.x2, self.miss2, self.start, self.end,
                           self.stat, self.policy, self.engine, self.params)


@dataclass(frozen=True)
class Engine:
    """A row of :data:`ENGINES`. ``run`` returns the fused engines' ``(values,
    missing, count, filled)`` or the others' ``(values, missing, holes)``; None hands
    the job to the next row (a fused kernel met a NaN the policy keeps; an integer
    sum past int64 rows; a dtype the narrow sums do not take)."""

    name: str
    families: frozenset[str]
    fused: bool
    compiled: bool
    accepts: Callable[[Job], bool]
    run: Callable[[Job], Any]

    def serves(self, job: Job) -> bool:
        return job.family in self.families and self.accepts(job) and (
            not self.compiled or job.compiled())


def _fused_order(job: Job) -> Any:
    q_arr, method, scalar = job.order_params()
    got = fused_order(job.x2, job.start, job.end, job.stat, job.policy, q_arr, method,
                      width=job.width, minp=int(job.min_periods))
    if got is None:
        return None
    v, count, filled = got
    return (v[0] if scalar else v), None, count, filled


def _fused_moment(job: Job) -> Any:
    x2 = job.x2
    with np.errstate(invalid="ignore"):  # a float32 sNaN widens quietly
        wide = x2.astype(np.float64, copy=False)
    got = fused_moment(wide, job.start, job.end, job.stat, job.policy,
                       int(job.params.get("ddof", 0)), source=x2)
    if got is None:
        return None
    values, count, redo = got
    rows = np.flatnonzero(redo.any(axis=1)) if redo is not None else ()
    if len(rows):
        start, end = job.start.arrays() if job.fixed else (job.start, job.end)
        values[rows] = ref.window_reference(x2, None, start[rows], end[rows], job.stat,
                                            job.policy, job.engine, job.params)[0]
    with np.errstate(over="ignore"):  # float32 overflows to inf, as rounded
        values = values.astype(x2.dtype, copy=False)
    return values, None, count, False


def _count(job: Job) -> Any:
    gone = window_counts(job.masks.nan, job.start, job.end, job.x2.shape[1]) + \
        window_counts(job.masks.missing, job.start, job.end, job.x2.shape[1])
    return ((job.end - job.start)[:, None] - gone).astype(np.int64), None, None


def _int_sum(job: Job) -> Any:
    got = int_window_sum(job.x2, job.miss2, job.start, job.end,
                         not RULES[job.policy].removes)
    return None if got is None else (got[0], got[1], None)


def _int_moment(job: Job) -> Any:
    """Means and variances of integers of any magnitude from prefix sums of Python
    integers, rounded once; windows holding a missing value the policy keeps (or too
    few values for ``ddof``) from the reference engine."""
    values, served = bigint_moment(job.x2, job.numbers(), job.start, job.end,
                                   np.arange(job.start.size), job.stat,
                                   int(job.params.get("ddof", 0)))
    redo = ~served
    if job.kept_gone is not None:
        redo |= job.kept_gone
    return job.patched(values, None, redo)


def _narrow(job: Job) -> Any:
    got = narrow_moment(job.x2, job.masks, job.start, job.end, job.stat, job.policy,
                        job.params)
    return None if got is None else job.patched(*got)


def _sliding_order(job: Job) -> Any:
    q_arr, method, scalar = job.order_params()
    v, m, h = slide_order(job.x2, job.masks, job.start, job.end, job.stat, job.policy,
                          q_arr, method)
    return (v[0], m[0], None if h is None else h[0]) if scalar else (v, m, h)


def _sliding_moment(job: Job) -> Any:
    x2 = job.x2
    with np.errstate(invalid="ignore"):  # a float32 sNaN widens quietly
        wide = x2.astype(np.float64, copy=False)
    values, redo = slide_moment(wide, job.masks, job.start, job.end, job.stat,
                                job.policy, int(job.params.get("ddof", 0)))
    with np.errstate(over="ignore"):  # float32 overflows to inf, as rounded
        values = values.astype(x2.dtype, copy=False)
    return job.patched(values, None, redo)


def _sliding_mad(job: Job) -> Any:
    """The sorted-buffer kernel over the numbers (O(n log w)); windows holding a NaN
    or missing value the policy keeps, or an infinity, from the reference engine."""
    from .._numba.window_mad import slide_mad

    x2 = job.x2
    out, redo = slide_mad(x2.T, job.numbers().T, job.start, job.end)
    values, redo = out.T.copy(), redo.T
    if job.kept_gone is not None:
        redo = redo | job.kept_gone
    values = divide_by_scale(values, check_scale(job.params.get("scale", 1.0)))
    return job.patched(values, None, redo)


def _sliding_higher(job: Job) -> Any:
    """skew / kurt of every window from prefix double-double power sums, each window
    certified to its correctly rounded value; the windows the bound leaves open (and
    those holding a NaN the policy keeps) from the reference engine."""
    got = slide_higher(job.x2, job.masks, job.start, job.end, job.stat, job.policy,
                       job.params, job.engine, job.pairs, min_pairs=SLIDING_MIN_PAIRS)
    return None if got is None else job.patched(*got)


def _reference(job: Job) -> Any:
    return ref.window_reference(job.x2, job.miss2, job.start, job.end, job.stat,
                                job.policy, job.engine, job.params)


def _kind(kinds: str) -> Callable[[Job], bool]:
    return lambda job: job.x2.dtype.kind in kinds


_ANY = frozenset({"select", "arg", "sum", "mean", "var", "count", "higher", "difference",
                  "ratio", "deviation"})
_MOMENTS = frozenset({"sum", "mean", "var"})

#: the engines, in the order they are asked (see the module docstring)
ENGINES: tuple[Engine, ...] = (
    Engine("fused order", frozenset({"select"}), True, True,
           lambda job: job.pairs > 0 and fused_ok(job.x2, job.miss2), _fused_order),
    Engine("fused moment", _MOMENTS, True, True,
           lambda job: job.pairs > 0 and job.native_float and job.no_missing and
           moment_ok(job.stat, job.params), _fused_moment),
    Engine("count", frozenset({"count"}), False, False, lambda job: True, _count),
    Engine("integer sum", frozenset({"sum"}), False, False, _kind("iub"), _int_sum),
    Engine("integer moment", frozenset({"mean", "var"}), False, False,
           lambda job: job.x2.dtype.kind in "iu" and moment_ok(job.stat, job.params),
           _int_moment),
    Engine("narrow moment", _MOMENTS, False, False,
           lambda job: job.x2.dtype.kind in "mM" or job.x2.dtype == np.float16, _narrow),
    Engine("sliding order", frozenset({"select"}), False, True,
           lambda job: sliding_ok(job.x2, "order", job.monotone), _sliding_order),
    Engine("sliding moment", _MOMENTS, False, True,
           lambda job: job.native_float and job.monotone and
           moment_ok(job.stat, job.params), _sliding_moment),
    Engine("sliding mad", frozenset({"deviation"}), False, True,
           lambda job: job.x2.dtype.kind == "f" and job.x2.dtype.isnative and
           job.monotone, _sliding_mad),
    # chooses numba itself (it hands over, returning None, to the reference engine)
    Engine("sliding higher", frozenset({"higher"}), False, False, lambda job: True,
           _sliding_higher),
    Engine("reference", _ANY, False, False, lambda job: True, _reference),
)


@overload
def run_engines(job: Job, fused: Literal[False]) -> tuple[str, Any]: ...


@overload
def run_engines(job: Job, fused: bool) -> tuple[str, Any] | None: ...


def run_engines(job: Job, fused: bool) -> tuple[str, Any] | None:
    """``(engine name, its result)`` from the first row of :data:`ENGINES` of this
    stage (``fused``: before the masks; None when no fused row answers) that serves
    ``job``. A compiled engine that fails (a broken numba install) hands over to the
    next row with the ``engine`` option's fallback rule; the policy's errors pass."""
    for eng in ENGINES:
        if eng.fused != fused or not eng.serves(job):
            continue
        try:
            got = eng.run(job)
        except NaNError:
            raise
        except Exception as exc:
            if not eng.compiled:
                raise
            _numba.fallback(exc, job.engine)
            continue
        if got is not None:
            _LOG.debug("window %s: the %s engine", job.stat, eng.name)
            return eng.name, got
    return None
