"""The Python-object path: exact statistics on sequences of Python objects.

This is the path for plain lists (when the fast float path does not apply) and for
NumPy/pandas object arrays. It handles ints of any size, ``bool``, ``Fraction``,
``Decimal`` (quiet and signaling NaNs, payloads, signs), Python floats, NumPy scalars,
missing values (``None``, ``pd.NA``, ``NaT``) and mixtures of all of them, with the
same NaN contract as the array path (see the "NaN semantics" page).

Every element is classified once (fast paths for plain int/float/Fraction/Decimal);
order statistics sort the numbers once by value and break ties inside runs of equal
values only, so that the result realises the fixed total order of the contract:

* numbers by value, then by type rank ``int < Fraction < Decimal < float`` for equal
  values (``bool`` and NumPy integers count as int, NumPy floats as float), Decimals
  among themselves by :meth:`decimal.Decimal.compare_total`, floats by IEEE totalOrder
  (``-0.0 < +0.0``), and finally by the name of the concrete type, so that equal keys
  mean objects of the same type with the same bits;
* NaNs by IEEE totalOrder: sign, then signaling below quiet for positive NaNs
  (mirrored for negative ones), then payload (mirrored for negative ones), then type
  rank and type name (not mirrored, as for numbers); where they go relative to the
  numbers depends on the policy;
* missing values after everything else (among themselves by type name).

Arithmetic follows :mod:`statistics` (exact for int, Fraction and Decimal, result types
as ``statistics``), with the repairs the contract asks for: no overflow for huge ints
(the exact ``Fraction``) or huge floats, interpolation weights of exactly zero are
picks, NaNs made by arithmetic are the canonical NaN, NaN neighbours are quieted.

Examples
--------
>>> from decimal import Decimal
>>> from nanaccess.core.objects import object_order_stat
>>> nan = float("nan")
>>> object_order_stat([nan, 1, 2, 3, 4], "median", policy="omit")
2.5
>>> object_order_stat([1, 2, 3, 4, nan, nan, nan, nan, 5, 6, 7], "median", policy="largest")
6
>>> object_order_stat([Decimal("-NaN123"), 1], "median", policy="propagate")
Decimal('-NaN123')

Modules
-------
:mod:`.classify`
    one object -> number / NaN / missing / other (:func:`classify_object`).
:mod:`.scan`
    the fixed order's keys and the one classification pass with the policy checks
    (:func:`object_sort_keys`).
:mod:`.arith`
    exact midpoints, weighted means and interpolations.
:mod:`.order`
    :func:`object_order_stat` (ranks from :func:`nanaccess.core.plan.rank_plan`).
:mod:`.moments`
    :func:`object_moment_stat`.
:mod:`.rows`
    object arrays along an axis, one call per output row.
:mod:`.spread`
    exact differences, deviations and scaling for iqr and mad.
"""

from __future__ import annotations

from .classify import CANONICAL_NAN, classify_object
from .moments import MOMENT_STATS, object_moment_stat
from .order import ORDER_STATS, QUANTILE_METHODS, object_order_stat
from .rows import object_rows_moment_stat, object_rows_order_stat
from .scan import object_sort_keys
from .spread import object_deviations, object_difference, object_scale

__all__ = [
    "classify_object",
    "object_order_stat",
    "object_moment_stat",
    "object_sort_keys",
    "object_rows_order_stat",
    "object_rows_moment_stat",
    "object_difference",
    "object_deviations",
    "object_scale",
    "CANONICAL_NAN",
    "ORDER_STATS",
    "MOMENT_STATS",
    "QUANTILE_METHODS",
]
