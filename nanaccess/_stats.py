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
``higher``
    exact power sums and products (skew, kurt, sem, prod): :mod:`nanaccess.core.higher`.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

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
    "REDUCTIONS",
    "GROUPED",
    "PICKS",
    "MEDIANS",
    "WEIGHTED",
    "WEIGHTS",
]

Family = Literal["order", "arg", "moment", "count", "spread", "higher"]


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

    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)

    @property
    def weight_params(self) -> tuple[Param, ...]:
        """``(WEIGHTS,)`` for a weighted statistic, else ``()``."""
        return (WEIGHTS,) if self.weighted else ()


_TABLE = (
    Statistic("median", "order", False, "Median (the mean of the two middle values).",
              rank="median", weighted=True),
    Statistic("median_low", "order", True, "Low median: the smaller middle element, as stored.",
              rank="median_low", weighted=True),
    Statistic("median_high", "order", True,
              "High median: the larger middle element, as stored.", rank="median_high",
              weighted=True),
    Statistic("quantile", "order", False, "Quantile(s) with NumPy's methods.",
              (_Q, _METHOD), rank="quantile", weighted=True),
    Statistic("min", "order", True, "Smallest value under the policy's order, as stored.",
              rank="min"),
    Statistic("max", "order", True, "Largest value under the policy's order, as stored.",
              rank="max"),
    Statistic("argmin", "arg", False, "Position of the first smallest value.", rank="min",
              grouped=False),
    Statistic("argmax", "arg", False, "Position of the first largest value.", rank="max",
              grouped=False),
    Statistic("mean", "moment", False, "Arithmetic mean from the exact sum, rounded once.",
              weighted=True),
    Statistic("var", "moment", False, "Variance, exactly rounded.", (_DDOF,), weighted=True),
    Statistic("std", "moment", False, "Standard deviation: the square root of var.",
              (_DDOF,), weighted=True),
    Statistic("sum", "moment", False, "Exact sum rounded once (as math.fsum).", weighted=True),
    Statistic("count", "count", False, "Number of numbers (NaN and missing excluded)."),
    Statistic("iqr", "spread", False,
              "Interquartile range: the difference of two quantiles, as scipy.stats.iqr.",
              (_RNG, _METHOD)),
    Statistic("mad", "spread", False,
              "Median absolute deviation from the median, as "
              "scipy.stats.median_abs_deviation.", (_SCALE,)),
    Statistic("skew", "higher", False,
              "Skewness from the exact power sums, within 1 ulp (correctly rounded).",
              (_BIAS,)),
    Statistic("kurt", "higher", False,
              "Kurtosis from the exact power sums, correctly rounded.", (_BIAS, _FISHER)),
    Statistic("sem", "higher", False,
              "Standard error of the mean from the exact sums, correctly rounded.",
              (_SEM_DDOF,)),
    Statistic("prod", "higher", False, "Product, correctly rounded (overflow gives inf)."),
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
#: order statistics whose result is one stored element (no arithmetic)
PICKS = tuple(s.name for s in _TABLE if s.picks)
#: the medians (the rank rule of :func:`nanaccess.core.plan.median_ranks`)
MEDIANS = tuple(s.name for s in _TABLE if s.rank in ("median", "median_low", "median_high"))
#: statistics that take frequency ``weights=``
WEIGHTED = tuple(s.name for s in _TABLE if s.weighted)
