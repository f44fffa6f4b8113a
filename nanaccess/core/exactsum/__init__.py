"""Correctly rounded, permutation-invariant sums, means and variances.

Every moment statistic in nanaccess must give the same bits for every permutation of
its input. A floating-point sum in any fixed order cannot promise that, so this module
computes sums *exactly* and rounds once (round-half-even, like :func:`math.fsum`).
All functions reduce along the **last** axis; a 1-D input is one row and gives a 0-d
result, an input of shape ``(..., n)`` gives shape ``(...)``. Inputs must be free of
NaN and missing values: the caller removes those by passing ``where``. Inputs are never
modified; read-only arrays are fine.

Definitions
-----------
``exact_sum``
    Float input: the exact sum of the selected elements rounded once to float64.
    ``+inf`` and ``-inf`` together give the canonical NaN ``0x7FF8000000000000``, one
    kind of infinity gives that infinity, a finite sum beyond the float64 range gives
    ``+-inf`` as correct rounding does. The sum is ``-0.0`` only when every selected
    element is ``-0.0`` (as IEEE addition); an empty row sums to ``+0.0``.
    Integer/bool input: the exact sum as int64; :class:`OverflowError` naming the row
    when it does not fit (never a wrapped value).
``exact_mean``
    The exact sum divided by the count, rounded once (equal to :func:`statistics.mean`
    bit for bit on float data, and exact for int64 of any magnitude). Count 0 gives the
    canonical NaN; infinities as for the sum; an all ``-0.0`` row gives ``-0.0``
    (as NumPy; :func:`statistics.mean` gives ``0.0``, an equal number).
``exact_sum_of_squares``
    The exact sum of ``x * x`` rounded once.
``exact_var``
    The **exactly rounded variance**, ``round(sum((x - mu)**2) / (count - ddof))`` with
    ``mu`` the exact rational mean. It is computed as
    ``(n*Q - S*S) / (n * (n - ddof))`` with ``S`` the exact sum and ``Q`` the exact sum
    of squares held as big fixed-point integers, so nothing is rounded before the last
    step. This is better than the "round the mean, then sum squared deviations" recipe,
    which can be wrong by 50 % when the spread of the data is a few ulps of the mean,
    and it equals :func:`statistics.pvariance` (``ddof=0``) and
    :func:`statistics.variance` (``ddof=1``) bit for bit on float data, which are
    exactly rounded too. ``count - ddof <= 0`` or an infinity in the row gives the
    canonical NaN. A non-integer ``ddof`` is applied in floating point to the exactly
    rounded ``ddof=0`` variance (two more roundings, documented, rare).

How it works
------------
*Digit engine (exact, general).* Every finite float is ``m * 2**e`` with an integer
``|m| < 2**53``. Each term is cut into base ``2**26`` limbs placed at digit positions
``(e - base) // 26`` relative to a per-row base exponent (so narrow-range rows need few
digits), limbs are accumulated per (digit, row) with :func:`numpy.bincount` on float64
weights (exact while fewer than ``2**27`` limbs share a bin; longer inputs are chunked),
carries are propagated with a Python loop over *digit positions* (vectorised over rows),
and the top 53 bits plus guard and sticky bits are rounded half-even with integer
operations and :func:`numpy.ldexp` (subnormal results are exact, overflow gives inf).
Means and variances long-divide the digit vector by the count (again a loop over digit
positions) keeping a sticky remainder, then round once. Squares are exact: the 53-bit
mantissa is split in two halves and the partial products become terms.

*Extraction front end (fast, exact).* Bincounting every element is slow, so rows whose
values stay below ``2**990`` first go through Rump, Ogita and Oishi's error-free
vector extraction ("AccSum", SIAM J. Sci. Comput. 31(1), 2008): with
``sigma = 2**(M + ceil(log2(max|x|)))`` and ``2**M >= n + 2``, ``q = (sigma + x) - sigma``
is exact, the remainders ``x - q`` are exact, and ``sum(q)`` is exact in *any* order, so
NumPy's pairwise sum may compute it. Each level removes about ``53 - M`` bits; typical
data needs 2-4 levels. This runs on cache-sized blocks; each block reduces to a few
exact "level sums" per row that the digit engine then adds exactly. Squares go through
the same front end after an exact Veltkamp split (``x*x = xh*xh + 2*xh*xl + xl*xl``,
each product exact) for rows with every nonzero ``|x|`` in ``[2**-480, 2**480]``; other
rows use the digit engine directly.

*Compiled engine (numba, optional).* With numba installed (and the ``engine`` option
not "numpy"), float rows of 65 elements or more go through
:mod:`nanaccess.core._numba.exact` instead: each mantissa is added, as an unsigned
integer, to a table entry indexed by its sign and exponent (Neal's ``xsum`` large
accumulator; eight tables taken in turn, and per-entry counts when a block spans many
exponents), the entries are flushed into a fixed-point integer of 32-bit digits, and
the sum, mean or variance is rounded once from it, so the bits equal the NumPy
engine's (the tests check both against each other and against Fraction). Grouped
moments run one counting-sort pass and the same accumulation per group; mergeable
partials (dask) take the digits as Python ints. The NumPy engine stays the reference
and serves whenever numba is missing, disabled (``NANACCESS_NO_NUMBA=1``) or broken.

*Certified fast path (numba).* Before the compiled engine, sums and means of float
rows, of leading axes (in place) and of groups try a compensated sum (Ogita-Rump-Oishi
``Sum2`` in vector lanes) with a proven error bound (:mod:`nanaccess.core._numba.compensated`
states it): where the bound puts the exact sum strictly inside one float's rounding
interval, that float is the correctly rounded result; every other cell (ties, heavy
cancellation, zeros, subnormal results, infinities, NaN) goes to the compiled engine,
so the bits never depend on which path answered. A row is summed in blocks of 4096
values whose rounding errors are flushed into the sum, so its bound grows with the
block, not the row: a million values that cancel to ``1e-9`` of their magnitudes
still certify. One float64 row it refuses goes through a second certified pass,
error-free extraction in blocks (:mod:`nanaccess.core._numba.extract_sum`), before
the compiled engine: a million values of size one summing to ``1e-13`` certify.

*Gridded data (numba).* One axis (or a run of neighbouring axes) of a C- or
F-contiguous float32/64 array is reduced in place by :mod:`.axis`: the cells are the
vector lanes of a tiled kernel that skips NaNs in the same pass, settles empty and
all-zero cells itself, and certifies sums, means and variances per cell; only the
cells it refuses go to the exact kernel, as rows.

*Narrow floats.* float32 (and float16) results are the exact value rounded once to
the narrow type (:mod:`.narrow`): the float64 value is rounded again only where that
cannot differ (away from a narrow midpoint); the rare cells on a midpoint are rounded
from the exact rational, so no result is double-rounded.

Permutation invariance follows because every result is a function of the exact sum(s)
only. Integer sums split each value into 32-bit halves whose int64 sums cannot overflow.

Modules
-------
:mod:`.digits`
    the digit engine (exact, general) and the integer helpers.
:mod:`.extraction`
    the extraction front end (error-free transformation in cache-sized blocks).
:mod:`.small`
    inputs of at most a few dozen elements, with Python integers.
:mod:`.oneshot`
    :func:`exact_sum`, :func:`exact_mean`, :func:`exact_sum_of_squares`,
    :func:`exact_var` on in-memory arrays.
:mod:`.partials`
    mergeable exact partials for distributed reductions (dask).
:mod:`.certified`
    the certified compensated fast path of sums and means (numba).
:mod:`.axis`
    sums, means and variances along the axes of gridded data, in place (numba).
:mod:`.narrow`
    float32/float16 results rounded once from the exact value.
:mod:`.compiled`
    the compiled engine's entries (rows, groups, 1-D, partial digits) and the IEEE
    special cases around them.
"""

from __future__ import annotations

from .oneshot import exact_mean, exact_sum, exact_sum_of_squares, exact_var
from .partials import (
    ExactPartials,
    exact_partials,
    merge_partials,
    round_mean,
    round_sum,
    round_var,
)

__all__ = [
    "exact_sum",
    "exact_mean",
    "exact_sum_of_squares",
    "exact_var",
    "ExactPartials",
    "exact_partials",
    "merge_partials",
    "round_sum",
    "round_mean",
    "round_var",
]
