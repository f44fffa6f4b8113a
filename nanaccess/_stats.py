"""The one table of statistics: every list of statistic names in nanaccess reads it.

An entry says what a statistic is, not how a host spells it: its family (which engine
computes it), its parameters, whether the result is a picked element (so it keeps the
input's dtype and bits), and a summary line for docs and ``--help``. The engines, the
generated accessors (``tools/generate_api.py``), the CLI and the reliability matrix
all iterate over :data:`STATISTICS`; adding a statistic is one entry here plus its
kernel. This module imports nothing of nanaccess (every layer may read it).

Families
--------
``order``
    a value at a rank of the policy's order (median, quantiles, min, max): the
    selection engines.
``arg``
    the position of such a value (argmin, argmax).
``moment``
    exact sums and what derives from them (mean, var, std, sum).
``count``
    how many numbers there are.
``spread``
    differences of order statistics (iqr, mad): computed from order statistics by
    the core, so every host that reduces gets them.

What else an entry defines
--------------------------
``compose``
    how a derived statistic is built from other entries (a :class:`Compose`: iqr is
    the difference of two quantiles, mad the median of the deviations from the
    median); :mod:`nanaccess.core.compose` runs the recipe once for every shape
    (flat, grouped, windows, dask), so no engine composes by name.
``dtype``
    the result-dtype rule (:func:`result_dtype`): a function of the input dtype and
    the parameters, so no host runs the engine on a probe array to learn it.
    ``tests/core/test_result_dtype.py`` holds every engine to it.
``empty``
    what a reduction over nothing gives: ``"nan"`` (the missing value), ``"zero"``
    (sum and count, as pandas) or ``"one"`` (prod, as pandas).
``higher``
    exact power sums and products (skew, kurt, sem, prod): :mod:`nanaccess.core.higher`.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal, cast

import numpy as np

__all__ = [
    "Statistic",
    "Param",
    "STATISTICS",
    "get",
    "names",
    "ORDER",
    "ARG",
    "MOMENT",
    "SPREAD",
    "HIGHER",
    "WINDOWED",
    "REDUCTIONS",
    "GROUPED",
    "PICKS",
    "MEDIANS",
    "WEIGHTED",
    "WEIGHTS",
    "Compose",
    "COMPOSED",
    "result_dtype",
    "PICK_METHODS",
    "served_by",
    "SUMS",
    "MEANS",
    "LINEAR",
    "SQUARES",
    "ROOTS",
    "VARIANCES",
    "COUNTS",
    "TAKES_Q",
    "EXTREMES",
    "MIDPOINT_MEDIANS",
    "RANK_MIN",
    "RANK_MAX",
    "LOW_MEDIANS",
    "HIGH_MEDIANS",
    "QUANTILES",
    "INT_RESULTS",
    "DATETIME_REFUSED",
    "ORDER_FAMILIES",
    "MOMENT_FAMILIES",
    "DEVICE_KERNELS",
    "DEVICE_RECIPES",
]

Family = Literal["order", "arg", "moment", "count", "spread", "higher"]
#: result-dtype rules (:func:`result_dtype`)
DtypeRule = Literal["kept", "interpolated", "quantile", "variance", "deviation", "sum",
                    "index", "count"]

#: quantile methods whose result is one stored element (kept dtype and bits)
PICK_METHODS = ("lower", "higher", "nearest", "inverted_cdf", "closest_observation")


@dataclass(frozen=True)
class Compose:
    """How a derived statistic is built from another entry of the table.

    ``recipe`` names the composition of :mod:`nanaccess.core.compose`:

    ``"difference"``
        ``of`` at the two quantiles ``rng / 100``, upper minus lower (iqr).
    ``"deviation"``
        ``of`` of ``|x - of(x)|`` (each value's deviation from its own output's
        ``of``), divided by ``scale`` (mad).
    ``"ratio"``
        ``of`` divided by the square root of the count of values (sem = std/sqrt(n)).
    """

    recipe: Literal["difference", "deviation", "ratio"]
    #: the statistic it is made of
    of: str


@dataclass(frozen=True)
class Param:
    """A statistic's own keyword (beyond data, axis/dim and nan_policy)."""

    name: str
    default: object
    #: numpydoc type line
    type: str
    #: numpydoc description (one paragraph)
    doc: str
    #: default on the pandas accessors where it differs (ddof=1 as pandas)
    pandas_default: object = None
    #: the parameter has no default (``q`` of quantile)
    required: bool = False


_Q = Param("q", None, "float or sequence of float",
           "Quantile(s) in [0, 1]. A sequence adds a leading quantile dimension.",
           required=True)
_METHOD = Param("method", "linear",
                '{"linear", "lower", "higher", "nearest", "midpoint", "inclusive", '
                '"exclusive", "weibull", "hazen", "median_unbiased", "normal_unbiased", '
                '"inverted_cdf", "averaged_inverted_cdf", "closest_observation", '
                '"interpolated_inverted_cdf"}',
                "Quantile method: NumPy's 13 methods, as :func:`numpy.quantile` "
                "(\"inclusive\" = \"linear\", \"exclusive\" = \"weibull\"). \"lower\", "
                "\"higher\", \"nearest\", \"inverted_cdf\" and \"closest_observation\" pick "
                "a stored value; a weight of exactly zero is a pick too.")
_DDOF = Param("ddof", 0, "float",
              "Delta degrees of freedom: the divisor is ``N - ddof`` (fractional values "
              "are allowed).", pandas_default=1)
_RNG = Param("rng", (25, 75), "tuple of two floats",
             "Percentiles (0-100) whose difference is returned, as :func:`scipy.stats.iqr`.")
_BIAS = Param("bias", False, "bool",
              "False (the default, as pandas): the bias-corrected sample statistic "
              "(scipy's ``bias=False``); True: the biased moment ratio.")
_FISHER = Param("fisher", True, "bool",
                "True: excess kurtosis (normal data give 0.0), as pandas and scipy; False: "
                "Pearson's kurtosis (normal data give 3.0).")
_SEM_DDOF = Param("ddof", 1, "float",
                  "Delta degrees of freedom of the variance: ``sqrt(var(ddof) / N)``, as "
                  "pandas and :func:`scipy.stats.sem`.")
_SCALE = Param("scale", 1.0, 'float or "normal"',
               "Divide the median absolute deviation by this, as "
               ":func:`scipy.stats.median_abs_deviation` (\"normal\" is 0.67449, so the "
               "result estimates the standard deviation of normal data).")

#: the keyword of the weighted statistics (``Statistic.weighted``); kept apart from
#: ``Statistic.params`` since only hosts that align weights with their data take it
#: (the generator's ``HostSpec.weights``)
WEIGHTS = Param(
    "weights", None, "array_like, optional",
    "Frequency weights: how many times each value counts (non-negative, finite; for "
    "integer weights the result is the unweighted statistic of the data with each value "
    "repeated its weight times, real weights extend it continuously). A weight of zero "
    "drops its value. The policy covers the weights too: a NaN or missing weight raises "
    "``NaNError`` under \"raise\", drops its pair under \"omit\", makes the result NaN "
    "under \"propagate\" and is a ``ValueError`` under the ordering policies; negative or "
    "infinite weights are a ``ValueError`` (see :doc:`/weighted`).")
#: the second keyword of the weighted spread statistics (``Statistic.weights_kind``):
#: what a weight means to ``ddof``
WEIGHTS_KIND = Param(
    "weights_kind", "frequency", '{"frequency", "reliability"}',
    "What the weights mean to ``ddof`` (with ``weights`` only). \"frequency\": counts, "
    "``ddof`` subtracts from the total weight ``V1 = sum(w)``; non-integer weights whose "
    "total leaves ``V1 - ddof < 1`` (normalized weights with ``ddof=1``) raise "
    "``TotalWeightError``, integer weights with ``V1 <= ddof`` give NaN as unweighted data "
    "with too few values. \"reliability\": :func:`numpy.cov`'s ``aweights``, the divisor "
    "is ``V1 - ddof * V2 / V1`` with ``V2 = sum(w**2)`` (scale-free; NaN where it is not "
    "positive). sem divides by the effective count: ``V1`` (frequency) or ``V1**2 / V2`` "
    "(reliability).")


@dataclass(frozen=True)
class Statistic:
    """One statistic of the table."""

    name: str
    family: Family
    #: the result is one of the input's elements, exactly as stored (dtype and bits)
    picks: bool
    summary: str
    params: tuple[Param, ...] = ()
    #: which ranks an order statistic selects (see :func:`nanaccess.core.plan.rank_plan`)
    rank: str | None = None
    #: computed for every group in one pass by the grouped engines
    grouped: bool = True
    #: takes frequency ``weights=`` (the weighted engine, :mod:`nanaccess.core.weighted`)
    weighted: bool = False
    #: takes ``weights_kind=`` with its weights (frequency or reliability weights: the
    #: spread statistics, whose ``ddof`` needs to know what a weight counts)
    weights_kind: bool = False
    #: the weighted engine computes it as ``sqrt(var(ddof) / n)`` with ``n`` the
    #: (effective) count of the weights (sem)
    over_count: bool = False
    #: how it is built from other entries (None: an engine computes it directly)
    compose: Compose | None = None
    #: the result-dtype rule (None: from the family and ``picks``; see :func:`result_dtype`)
    dtype: DtypeRule | None = None
    #: a reduction over nothing: ``"nan"`` (the missing value) or ``"zero"``
    empty: Literal["nan", "zero", "one"] = "nan"
    #: the kernel family that serves it (None: the family's): ``"select"`` (order
    #: statistics), ``"arg"``, ``"sum"``, ``"mean"``, ``"var"`` (sums of squares;
    #: std too), ``"count"``, ``"higher"`` (exact power sums and products:
    #: skew, kurt, sem, prod); composed statistics have none
    kernel: Literal["select", "arg", "sum", "mean", "var", "count", "higher"] | None = None
    #: the kernel's result is square-rooted (std of the var kernel)
    root: bool = False

    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)

    @property
    def weight_params(self) -> tuple[Param, ...]:
        """``(WEIGHTS,)`` for a weighted statistic (``(WEIGHTS, WEIGHTS_KIND)`` for one
        that takes ``weights_kind``), else ``()``."""
        if not self.weighted:
            return ()
        return (WEIGHTS, WEIGHTS_KIND) if self.weights_kind else (WEIGHTS,)

    @property
    def kernel_family(self) -> str | None:
        """:attr:`kernel`, or the family's kernel (None for a composed statistic)."""
        if self.kernel is not None or self.compose is not None:
            return self.kernel
        return {"order": "select", "arg": "arg", "count": "count",
                "higher": "higher"}.get(self.family)

    @property
    def dtype_rule(self) -> DtypeRule:
        """:attr:`dtype`, or the family's rule when the entry names none."""
        if self.dtype is not None:
            return self.dtype
        if self.picks:
            return "kept"
        by_family: dict[str, DtypeRule] = {"arg": "index", "count": "count",
                                           "spread": "deviation"}
        return by_family.get(self.family, "interpolated")


_TABLE = (
    Statistic("median", "order", False, "Median (the mean of the two middle values).",
              rank="median", weighted=True),
    Statistic("median_low", "order", True, "Low median: the smaller middle element, as stored.",
              rank="median_low", weighted=True),
    Statistic("median_high", "order", True,
              "High median: the larger middle element, as stored.", rank="median_high",
              weighted=True),
    Statistic("quantile", "order", False, "Quantile(s) with NumPy's methods.",
              (_Q, _METHOD), rank="quantile", weighted=True, dtype="quantile"),
    Statistic("min", "order", True, "Smallest value under the policy's order, as stored.",
              rank="min"),
    Statistic("max", "order", True, "Largest value under the policy's order, as stored.",
              rank="max"),
    Statistic("argmin", "arg", False, "Position of the first smallest value.", rank="min",
              grouped=False),
    Statistic("argmax", "arg", False, "Position of the first largest value.", rank="max",
              grouped=False),
    Statistic("mean", "moment", False, "Arithmetic mean from the exact sum, rounded once.",
              weighted=True, kernel="mean"),
    Statistic("var", "moment", False, "Variance, exactly rounded.", (_DDOF,), weighted=True,
              weights_kind=True, dtype="variance", kernel="var"),
    Statistic("std", "moment", False, "Standard deviation: the square root of var.",
              (_DDOF,), weighted=True, weights_kind=True, dtype="deviation", kernel="var",
              root=True),
    Statistic("sum", "moment", False, "Exact sum rounded once (as math.fsum).", weighted=True,
              dtype="sum", empty="zero", kernel="sum"),
    Statistic("count", "count", False, "Number of numbers (NaN and missing excluded).",
              empty="zero"),
    Statistic("iqr", "spread", False,
              "Interquartile range: the difference of two quantiles, as scipy.stats.iqr.",
              (_RNG, _METHOD), compose=Compose("difference", "quantile")),
    Statistic("mad", "spread", False,
              "Median absolute deviation from the median, as "
              "scipy.stats.median_abs_deviation.", (_SCALE,),
              compose=Compose("deviation", "median")),
    Statistic("skew", "higher", False,
              "Skewness from the exact power sums, within 1 ulp (correctly rounded).",
              (_BIAS,)),
    Statistic("kurt", "higher", False,
              "Kurtosis from the exact power sums, correctly rounded.", (_BIAS, _FISHER)),
    Statistic("sem", "higher", False,
              "Standard error of the mean from the exact sums, correctly rounded.",
              (_SEM_DDOF,), weighted=True, weights_kind=True, over_count=True),
    Statistic("prod", "higher", False, "Product, correctly rounded (overflow gives inf).",
              empty="one"),
)

#: name -> :class:`Statistic`, in the order of the docs
STATISTICS: MappingProxyType[str, Statistic] = MappingProxyType({s.name: s for s in _TABLE})


def names(*families: Family, grouped: bool | None = None) -> tuple[str, ...]:
    """Names of the statistics of ``families`` (all when none is given), in table order."""
    return tuple(
        s.name for s in _TABLE
        if (not families or s.family in families) and (grouped is None or s.grouped == grouped)
    )


def get(name: str) -> Statistic:
    """The table entry for ``name``; a ``ValueError`` listing the known names otherwise."""
    try:
        return STATISTICS[name]
    except KeyError:
        raise ValueError(
            f"unknown statistic {name!r}; expected one of {', '.join(STATISTICS)}"
        ) from None


ORDER = names("order")
ARG = names("arg")
MOMENT = names("moment")
SPREAD = names("spread")
HIGHER = names("higher")
#: every statistic that reduces data to one value per output cell
REDUCTIONS = tuple(STATISTICS)
#: statistics the grouped engines compute (one pass over all groups)
GROUPED = names(grouped=True)
#: the statistics the window engines compute: every grouped one; of the higher family
#: skew and kurt (pandas' rolling ones; sem and prod have no windowed form yet)
WINDOWED = tuple(n for n in GROUPED
                 if get(n).kernel_family != "higher" or n in ("skew", "kurt"))
#: order statistics whose result is one stored element (no arithmetic)
PICKS = tuple(s.name for s in _TABLE if s.picks)
#: the medians (the rank rule of :func:`nanaccess.core.plan.median_ranks`)
MEDIANS = tuple(s.name for s in _TABLE if s.rank in ("median", "median_low", "median_high"))
#: statistics that take frequency ``weights=``
WEIGHTED = tuple(s.name for s in _TABLE if s.weighted)
#: weighted statistics that take ``weights_kind`` (frequency or reliability weights)
WEIGHTS_KINDS = frozenset(s.name for s in _TABLE if s.weights_kind)
#: the choices of ``weights_kind``
WEIGHTS_KIND_CHOICES = ("frequency", "reliability")
#: weighted statistics computed as ``sqrt(var / n)`` (n the weights' effective count)
OVER_COUNT = frozenset(s.name for s in _TABLE if s.over_count)
#: statistics built from other entries (:attr:`Statistic.compose`)
COMPOSED = tuple(s.name for s in _TABLE if s.compose is not None)


def served_by(kernel: str) -> frozenset[str]:
    """Names of the statistics the kernel family ``kernel`` serves (engines read these
    sets, never lists of names)."""
    return frozenset(s.name for s in _TABLE if s.kernel_family == kernel)


#: the exact-sum kernel's statistics (the sum itself)
SUMS = served_by("sum")
#: the mean kernel's
MEANS = served_by("mean")
#: sum and mean: first powers only (no squares)
LINEAR = SUMS | MEANS
#: the sum-of-squares kernel's (var, std)
SQUARES = served_by("var")
#: results the kernel square-roots (std)
ROOTS = frozenset(s.name for s in _TABLE if s.root)
#: the variance itself (squares, no root)
VARIANCES = SQUARES - ROOTS
#: the counting statistics
COUNTS = served_by("count")
#: order statistics that take ``q`` (quantile)
TAKES_Q = frozenset(s.name for s in _TABLE if any(p.name == "q" for p in s.params))
#: the smallest and largest value (rank rules min / max)
EXTREMES = frozenset(s.name for s in _TABLE if s.family == "order" and s.rank in ("min", "max"))
#: the median that averages its two middle values (rank rule median)
MIDPOINT_MEDIANS = frozenset(s.name for s in _TABLE if s.rank == "median")


def result_dtype(stat: str, dtype: Any, **params: Any) -> np.dtype:
    """The dtype of ``stat``'s result for input ``dtype`` (its table rule), with no
    probe run; object input gives object. Results over nothing or missing may widen
    where the dtype has no missing value (an int pick of nothing is a float NaN): the
    rule is the dtype of the values the statistic produces.

    ``kept``: the input dtype (a picked element). ``interpolated``: floats kept, ints
    and bools float64, datetimes and timedeltas kept. ``quantile``: ``kept`` for the
    methods that pick (:data:`PICK_METHODS`), else ``interpolated``. ``variance``:
    floats kept, everything else float64. ``deviation``: floats kept, ints and bools
    float64, datetimes and timedeltas the timedelta of their unit. ``sum``: floats
    and timedeltas kept, signed ints and bools int64, unsigned uint64. ``index`` and
    ``count``: int64.

    Examples
    --------
    >>> result_dtype("median", "int32"), result_dtype("median_low", "int32")
    (dtype('float64'), dtype('int32'))
    >>> result_dtype("quantile", "int8", q=0.5, method="lower")
    dtype('int8')
    >>> result_dtype("iqr", "datetime64[s]")
    dtype('<m8[s]')
    """
    dt = np.dtype(dtype)
    dt = dt if dt.isnative else dt.newbyteorder("=")  # results are native-endian
    rule = get(stat).dtype_rule
    if dt.kind == "O":
        return cast("np.dtype", dt)
    if rule == "quantile":
        rule = "kept" if params.get("method", "linear") in PICK_METHODS else "interpolated"
    if rule == "kept":
        return cast("np.dtype", dt)
    if rule in ("index", "count"):
        return np.dtype(np.int64)
    if dt.kind == "f":
        return cast("np.dtype", dt)
    if rule == "variance" or dt.kind in "biu" and rule != "sum":
        return np.dtype(np.float64)
    if rule == "sum":
        return np.dtype(np.uint64) if dt.kind == "u" else (
            np.dtype(np.int64) if dt.kind in "bi" else dt)
    if rule == "deviation" and dt.kind == "M":
        return cast("np.dtype", np.dtype(dt.str.replace("M8", "m8")))
    return cast("np.dtype", dt)


#: the statistics whose rank rule is the smallest value (min, argmin) / the largest
#: (max, argmax): which end of the order a selection keeps
RANK_MIN = frozenset(s.name for s in _TABLE if s.rank == "min")
RANK_MAX = frozenset(s.name for s in _TABLE if s.rank == "max")
#: the medians that pick the lower / the upper middle element
LOW_MEDIANS = frozenset(s.name for s in _TABLE if s.rank == "median_low")
HIGH_MEDIANS = frozenset(s.name for s in _TABLE if s.rank == "median_high")
#: order statistics at given quantiles ``q`` (the result gains a quantile label)
QUANTILES = TAKES_Q
#: statistics whose result is an int64 (counts and positions: dtype rules count, index)
INT_RESULTS = frozenset(s.name for s in _TABLE if s.dtype_rule in ("count", "index"))
#: statistics undefined on datetimes (a variance or a sum of instants has no unit)
DATETIME_REFUSED = frozenset(s.name for s in _TABLE if s.dtype_rule in ("variance", "sum"))
#: the families the selection engines serve (order statistics and their positions)
ORDER_FAMILIES = frozenset(("order", "arg"))
#: the families the exact-sum engines serve (moments and counts)
MOMENT_FAMILIES = frozenset(("moment", "count"))
#: kernel families and compositions the array-API device engines run (the rest go to
#: the NumPy core)
DEVICE_KERNELS = frozenset(("select", "arg", "sum", "mean", "var", "count"))
DEVICE_RECIPES = frozenset(("difference", "deviation"))
