"""The public functions: one entry per statistic, dispatching on the kind of input.

The classification functions (:mod:`nanaccess.api_classify`) and the sorts
(:mod:`nanaccess.api_sorting`) have modules of their own and are importable from here.

Every statistic function is a signature and a docstring; the one boundary
(:func:`nanaccess._boundary.statistic`, the idea of scipy's ``_axis_nan_policy``)
refuses keywords the function does not take, resolves the policy once and hands the
data to the core (see :mod:`nanaccess._boundary`).
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from . import _stats
from ._boundary import Axis, host_of, labelled_errors, split_host, statistic
from .api_classify import isnan, issignaling, nan_payload, nan_report
from .api_sorting import argsort, rank, sort
from .core import classify as _classify
from .core.objects import object_order_stat
from .core.reduce import reduce
from .options import resolve_policy
from .typing import NanPolicyArg

__all__ = [*_stats.names("order", "arg", "moment", "spread"), "quantiles", "sort",
           "argsort", "rank", "isnan", "issignaling", "nan_payload", "nan_report"]


@statistic
def median(data: Any, *, axis: Axis = None, weights: Any = None,
           nan_policy: NanPolicyArg = None,
           keepdims: bool = False) -> Any:
    """Median of ``data`` under an explicit ``nan_policy``.

    Raises
    ------
    NaNError
        Under "raise" when a NaN or missing value is present.
    SignalingNaNError
        For a signaling NaN under every policy but "totalorder".
    statistics.StatisticsError
        Empty iterable (or nothing left under "omit").

    Examples
    --------
    >>> import nanaccess as na
    >>> nan = float("nan")
    >>> data = [nan, 1, 2, 3, 4]
    >>> na.median(data, nan_policy="omit"), na.median(data[::-1], nan_policy="omit")
    (2.5, 2.5)
    >>> na.median([nan] * 4 + [1, 2, 3, 4, 5, 6, 7], nan_policy="smallest")  # the stored int
    2
    >>> na.median([1.7e308, 1.7e308])
    1.7e+308
    >>> na.median(np.array([[1.0, np.nan], [3.0, 4.0]]), axis=1, nan_policy="omit")
    array([1. , 3.5])
    >>> na.median([1.0, 2.0, 3.0], weights=[1, 1, 5])  # as median([1, 2, 3, 3, 3, 3, 3])
    3.0
    """


@statistic
def median_low(data: Any, *, axis: Axis = None, weights: Any = None,
               nan_policy: NanPolicyArg = None,
               keepdims: bool = False) -> Any:
    """Low median: the smaller middle element, returned exactly as stored.

    Parameters as :func:`median`; with ``weights`` the element at the lower middle
    position of the repeated data.

    Examples
    --------
    >>> import nanaccess as na
    >>> na.median_low([1, 3, 5, 7])
    3
    >>> na.median_low(np.array([4.0, np.nan, 1.0]), nan_policy="largest")
    np.float64(4.0)
    """


@statistic
def median_high(data: Any, *, axis: Axis = None, weights: Any = None,
                nan_policy: NanPolicyArg = None,
                keepdims: bool = False) -> Any:
    """High median: the larger middle element, returned exactly as stored.

    Parameters as :func:`median`; with ``weights`` the element at the upper middle
    position of the repeated data.

    Examples
    --------
    >>> import nanaccess as na
    >>> na.median_high([1, 3, 5, 7])
    5
    """


@statistic
def quantile(data: Any, q: Any, *, axis: Axis = None, method: str = "linear",
             weights: Any = None, nan_policy: NanPolicyArg = None,
             keepdims: bool = False) -> Any:
    """Quantile(s) ``q`` in [0, 1], with NumPy's methods.

    Examples
    --------
    >>> import nanaccess as na
    >>> na.quantile(np.array([1.0, 2.0, np.inf]), 0.5)
    np.float64(2.0)
    >>> na.quantile(np.array([1.0, 2.0, 3.0, 4.0, np.nan]), [0.25, 0.75], nan_policy="omit")
    array([1.75, 3.25])
    >>> na.quantile(np.array([1.0, 2.0, 3.0]), 0.5, weights=[3, 1, 1], method="inverted_cdf")
    np.float64(1.0)
    """


def quantiles(data: Any, *, n: int = 4, method: str = "exclusive",
              nan_policy: NanPolicyArg = None) -> list[Any]:
    """Cut points dividing ``data`` into ``n`` intervals, as :func:`statistics.quantiles`.

    Parameters
    ----------
    data : iterable or array_like
        Python numbers (exact for Fraction, Decimal, huge ints), a NumPy/masked array,
        a pandas column or a dask array (lazy: one task).
    n : int, default 4
        Number of intervals (``n - 1`` cut points).
    method : {"exclusive", "inclusive"}, default "exclusive"
        As :func:`statistics.quantiles`.
    nan_policy : {"raise", "propagate", "omit", "smallest", "largest", "totalorder"}, optional
        What NaNs mean; None uses ``nanaccess.get_options()["nan_policy"]``.

    Returns
    -------
    list
        The ``n - 1`` cut points, Python numbers as :func:`statistics.quantiles`
        gives them (a lazy object array for dask input).

    Examples
    --------
    >>> import nanaccess as na
    >>> na.quantiles([1, 2, 3, 4, 5, 6, 7, 8, float("nan")], n=4, nan_policy="omit")
    [2.25, 4.5, 6.75]
    """
    policy = resolve_policy(nan_policy)
    host = host_of(data)
    if host == "iterable":
        vals = list(data)
    elif host == "dask":
        # lazy, as every dask entry point: one task computes the cut points
        from .dask.typed_dask import delayed, from_delayed

        task = delayed(_quantiles_array)(data, n, method, policy)
        return from_delayed(task, shape=(n - 1 if n > 1 else 0,), dtype=object)
    else:
        # a missing slot (masked, nullable, Arrow) is missing, never NaN
        arr, missing = _classify.values_and_missing(data, split=split_host)
        arr = np.asarray(arr).ravel()
        if missing is not None:
            missing = np.asarray(missing, dtype=bool).ravel()
        if arr.dtype.kind == "f" or missing is not None:
            # the policy's checks on the bits: a conversion to Python floats would
            # quiet float16/float32 signaling NaNs
            with labelled_errors(data):
                if arr.size:
                    reduce(arr, "min", policy=policy, missing=missing)
        vals = arr.tolist()
        if missing is not None and missing.any():
            vals = [None if m else v for v, m in zip(vals, missing.tolist(), strict=True)]
    with labelled_errors(data):
        return cast("list[Any]",
               object_order_stat(vals, "quantiles", n=n, method=method, policy=policy,
                                 statistics_compat=True))


def _quantiles_array(data: Any, n: int, method: str, policy: Any) -> np.ndarray:
    """The cut points as an object array (the task of a lazy dask ``quantiles``; at
    module level, so workers unpickle it by reference)."""
    return np.array(quantiles(data, n=n, method=method, nan_policy=policy), dtype=object)


@statistic
def min(data: Any, *, axis: Axis = None, nan_policy: NanPolicyArg = None,
        keepdims: bool = False) -> Any:  # noqa: A001 - numpy's name
    """Smallest value under the policy's order (-0.0 below +0.0), exactly as stored.

    Examples
    --------
    >>> import nanaccess as na
    >>> na.min([0.0, -0.0, 3.0])
    -0.0
    >>> na.min(np.array([2.0, np.nan]), nan_policy="smallest")
    np.float64(nan)
    """


@statistic
def max(data: Any, *, axis: Axis = None, nan_policy: NanPolicyArg = None,
        keepdims: bool = False) -> Any:  # noqa: A001 - numpy's name
    """Largest value under the policy's order, exactly as stored.

    Examples
    --------
    >>> import nanaccess as na
    >>> na.max(np.array([2.0, np.nan, 5.0]), nan_policy="omit")
    np.float64(5.0)
    """


@statistic
def argmin(data: Any, *, axis: int | None = None, nan_policy: NanPolicyArg = None) -> Any:
    """Index of the first smallest value (flat index for ``axis=None``, as NumPy).

    Examples
    --------
    >>> import nanaccess as na
    >>> na.argmin(np.array([3.0, np.nan, 1.0]), nan_policy="omit")
    np.int64(2)
    """


@statistic
def argmax(data: Any, *, axis: int | None = None, nan_policy: NanPolicyArg = None) -> Any:
    """Index of the first largest value (flat index for ``axis=None``, as NumPy).

    Examples
    --------
    >>> import nanaccess as na
    >>> na.argmax(np.array([3.0, np.nan, 1.0]), nan_policy="largest")
    np.int64(1)
    """


# ----------------------------------------------------------------- moment statistics


@statistic
def mean(data: Any, *, axis: Axis = None, weights: Any = None,
         nan_policy: NanPolicyArg = None,
         keepdims: bool = False) -> Any:
    """Arithmetic mean, computed from the exact sum and rounded once.

    So the result is the same for every order of the data, and equals
    :func:`statistics.mean` bit for bit on floats. With ``weights`` (frequency
    weights, as :func:`median`) it is ``sum(w x) / sum(w)`` from exact sums, rounded
    once: :func:`statistics.fmean` with weights, correctly rounded.

    Examples
    --------
    >>> import nanaccess as na
    >>> na.mean([1.0, float("nan"), 2.0], nan_policy="omit")
    1.5
    >>> na.mean([1e100, 1.0, -1e100])
    0.3333333333333333
    >>> na.mean([1.0, 2.0, 4.0], weights=[2, 1, 1])
    2.0
    """


@statistic
def var(data: Any, *, axis: Axis = None, ddof: float = 0, weights: Any = None,
        weights_kind: str = "frequency", nan_policy: NanPolicyArg = None,
        keepdims: bool = False) -> Any:
    """Variance with ``ddof`` (default 0 as NumPy/xarray), exactly rounded.

    With ``weights`` (frequency weights, as :func:`median`):
    ``sum(w (x - m)**2) / (sum(w) - ddof)`` with ``m`` the exact weighted mean, so
    ``ddof`` subtracts from the total weight; exact, rounded once. Non-integer
    frequency weights with ``sum(w) - ddof < 1`` raise :class:`TotalWeightError`.
    ``weights_kind="reliability"``: :func:`numpy.cov`'s ``aweights``, the divisor
    ``sum(w) - ddof * sum(w**2) / sum(w)``.

    Examples
    --------
    >>> import nanaccess as na
    >>> na.var([1.0, 2.0, 3.0, 4.0]), na.var([1.0, 2.0, 3.0, 4.0], ddof=1)
    (1.25, 1.6666666666666667)
    >>> na.var([1.0, 2.0, 4.0], weights=[0.2, 0.3, 0.5], ddof=1, weights_kind="reliability")
    2.5161290322580645
    """


@statistic
def std(data: Any, *, axis: Axis = None, ddof: float = 0, weights: Any = None,
        weights_kind: str = "frequency", nan_policy: NanPolicyArg = None,
        keepdims: bool = False) -> Any:
    """Standard deviation: the square root of :func:`var` (``weights`` as there).

    Examples
    --------
    >>> import nanaccess as na
    >>> na.std(np.array([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]))
    np.float64(2.0)
    """


@statistic
def sum(data: Any, *, axis: Axis = None, weights: Any = None,  # noqa: A001
        nan_policy: NanPolicyArg = None,
        keepdims: bool = False) -> Any:
    """Exact sum rounded once (as :func:`math.fsum`); ints are exact or raise OverflowError.

    With ``weights`` (frequency weights, as :func:`median`): the exact ``sum(w x)``
    rounded once (ints with integer weights stay exact ints).

    Examples
    --------
    >>> import nanaccess as na
    >>> na.sum([0.1] * 10)
    1.0
    >>> na.sum(np.array([1.0, np.nan]), nan_policy="omit")
    np.float64(1.0)
    """


# ----------------------------------------------------------------- spread statistics


@statistic
def iqr(data: Any, *, axis: Axis = None, rng: tuple[float, float] = (25, 75),
        method: str = "linear", nan_policy: NanPolicyArg = None,
        keepdims: bool = False) -> Any:
    """Interquartile range: the difference of two quantiles, as :func:`scipy.stats.iqr`.

    Parameters
    ----------
    data : iterable or array_like
        As :func:`median`.
    axis : None, int or tuple of ints
        Axes to reduce (arrays only). None reduces all.
    rng : tuple of two floats
        Percentiles (0-100) whose difference is returned; taken in increasing order,
        as scipy.
    method : str
        Quantile method, as :func:`quantile`.
    nan_policy : {"raise", "propagate", "omit", "smallest", "largest", "totalorder"}
        What NaNs mean; default from :func:`nanaccess.get_options` ("raise").
    keepdims : bool
        Keep reduced axes with length one (arrays only).

    Returns
    -------
    scalar or ndarray
        Floats keep their dtype (float32 stays float32); ints give float64;
        datetime64/timedelta64 give timedelta64; Fractions and Decimals stay exact.
        A NaN at either quantile makes the result that NaN, quieted.

    Raises
    ------
    NaNError
        Under "raise" when a NaN or missing value is present.
    SignalingNaNError
        For a signaling NaN under every policy but "totalorder".
    statistics.StatisticsError
        Empty iterable (or nothing left under "omit").

    Examples
    --------
    >>> import nanaccess as na
    >>> na.iqr([1.0, 2.0, 3.0, 4.0, float("nan")], nan_policy="omit")
    1.5
    >>> from fractions import Fraction
    >>> na.iqr([Fraction(1), Fraction(2), Fraction(4)])
    Fraction(3, 2)
    >>> na.iqr(np.array([[1.0, 5.0, 9.0], [2.0, np.nan, 4.0]]), axis=1, nan_policy="omit")
    array([4., 1.])
    """


@statistic
def mad(data: Any, *, axis: Axis = None, scale: float | str = 1.0,
        nan_policy: NanPolicyArg = None, keepdims: bool = False) -> Any:
    """Median absolute deviation, as :func:`scipy.stats.median_abs_deviation`.

    ``median(|x - median(x)|) / scale``, both medians under ``nan_policy``.

    Parameters
    ----------
    data : iterable or array_like
        As :func:`median`.
    axis : None, int or tuple of ints
        Axes to reduce (arrays only). None reduces all.
    scale : float or "normal"
        Divisor of the result; "normal" (0.67449...) makes it estimate the standard
        deviation of normal data.
    nan_policy : {"raise", "propagate", "omit", "smallest", "largest", "totalorder"}
        What NaNs mean; default from :func:`nanaccess.get_options` ("raise"). A NaN
        keeps its own bits as its deviation, so it ranks among the deviations as it
        ranks in the median.
    keepdims : bool
        Keep reduced axes with length one (arrays only).

    Returns
    -------
    scalar or ndarray
        Floats keep their dtype; ints give float64; Fractions and Decimals stay exact
        (up to the division by ``scale``).

    Raises
    ------
    NaNError
        Under "raise" when a NaN or missing value is present.
    SignalingNaNError
        For a signaling NaN under every policy but "totalorder".
    statistics.StatisticsError
        Empty iterable (or nothing left under "omit").

    Examples
    --------
    >>> import nanaccess as na
    >>> na.mad([1.0, 2.0, 3.0, 4.0, 100.0])
    1.0
    >>> na.mad(np.array([1.0, 2.0, np.nan, 4.0]), nan_policy="omit")
    np.float64(1.0)
    >>> round(na.mad([1.0, 2.0, 3.0, 4.0, 100.0], scale="normal"), 4)
    1.4826
    """


# ------------------------------------------------- higher moments and products (issue 23)


@statistic
def skew(data: Any, *, axis: Axis = None, bias: bool = False, nan_policy: NanPolicyArg = None,
         keepdims: bool = False) -> Any:
    """Skewness from the exact power sums, correctly rounded (pandas' and scipy's).

    The sums of ``x``, ``x**2`` and ``x**3`` are computed exactly and the skewness
    rounded once, so the result is a permutation-invariant function of the values,
    unharmed by a large offset (values near 1e9 with unit spread).

    Parameters
    ----------
    data : iterable or array_like
        Numbers (float16/32/64, ints, bools); pandas and xarray objects go to their
        ``.nanstats`` accessors.
    axis : None, int or tuple of ints
        Axes to reduce (arrays only). None reduces all.
    bias : bool
        False (default, as ``Series.skew``): the adjusted Fisher-Pearson coefficient
        ``G1``, NaN below 3 values; True: the biased ``g1`` of :func:`scipy.stats.skew`.
        Constant data give 0.0 (False, as pandas) or NaN (True, as scipy).
    nan_policy : {"raise", "propagate", "omit", "smallest", "largest", "totalorder"}
        What NaNs mean; default from :func:`nanaccess.get_options` ("raise"). A policy
        that keeps NaNs gives the NaN greatest under totalOrder, as stored.
    keepdims : bool
        Keep reduced axes with length one (arrays only).

    Returns
    -------
    scalar or ndarray
        float64 (float32 data give float32); an infinity in the data gives NaN.

    Examples
    --------
    >>> import nanaccess as na
    >>> na.skew([1.0, 2.0, 4.0, 8.0, float("nan")], nan_policy="omit")
    1.1376243669576889
    >>> float(na.skew(np.array([1e9 + 1, 1e9 + 2, 1e9 + 4]), bias=True))
    0.3818017741606063
    """


@statistic
def kurt(data: Any, *, axis: Axis = None, bias: bool = False, fisher: bool = True,
         nan_policy: NanPolicyArg = None, keepdims: bool = False) -> Any:
    """Kurtosis from the exact power sums, correctly rounded (pandas' and scipy's).

    Parameters
    ----------
    data : iterable or array_like
        As :func:`skew`.
    axis : None, int or tuple of ints
        Axes to reduce (arrays only). None reduces all.
    bias : bool
        False (default, as ``Series.kurt``): the bias-corrected excess kurtosis ``G2``,
        NaN below 4 values; True: the biased moment ratio of :func:`scipy.stats.kurtosis`.
    fisher : bool
        True (default): excess kurtosis (normal data give 0.0); False: Pearson's (3.0).
    nan_policy : {"raise", "propagate", "omit", "smallest", "largest", "totalorder"}
        As :func:`skew`.
    keepdims : bool
        Keep reduced axes with length one (arrays only).

    Returns
    -------
    scalar or ndarray
        As :func:`skew`.

    Examples
    --------
    >>> import nanaccess as na
    >>> na.kurt([1.0, 2.0, 4.0, 8.0, 3.0])
    2.0210170763745543
    >>> na.kurt([1.0, 2.0, 4.0, 8.0, 3.0], bias=True, fisher=False)
    2.505254269093639
    """


@statistic
def sem(data: Any, *, axis: Axis = None, ddof: float = 1, weights: Any = None,
        weights_kind: str = "frequency", nan_policy: NanPolicyArg = None,
        keepdims: bool = False) -> Any:
    """Standard error of the mean, ``sqrt(var(ddof) / N)``, correctly rounded.

    With ``weights``: the weighted variance (as :func:`var`, ``weights_kind`` too)
    over the effective count, ``sum(w)`` for frequency weights and
    ``sum(w)**2 / sum(w**2)`` (Kish's) for reliability weights; the square root of
    the rounded ratio (as :func:`std`).

    Parameters
    ----------
    data : iterable or array_like
        As :func:`skew`.
    axis : None, int or tuple of ints
        Axes to reduce (arrays only). None reduces all.
    ddof : float
        Delta degrees of freedom of the variance (default 1, as pandas and
        :func:`scipy.stats.sem`); ``N - ddof <= 0`` gives NaN.
    weights : array_like, optional
        Frequency (or reliability) weights, as :func:`var`.
    weights_kind : {"frequency", "reliability"}
        As :func:`var`.
    nan_policy : {"raise", "propagate", "omit", "smallest", "largest", "totalorder"}
        As :func:`skew`.
    keepdims : bool
        Keep reduced axes with length one (arrays only).

    Returns
    -------
    scalar or ndarray
        As :func:`skew`.

    Examples
    --------
    >>> import nanaccess as na
    >>> na.sem([1.0, 2.0, 3.0, 4.0])
    0.6454972243679028
    """


@statistic
def prod(data: Any, *, axis: Axis = None, nan_policy: NanPolicyArg = None,
         keepdims: bool = False) -> Any:
    """Product, correctly rounded: the exact product of the values rounded once.

    A product beyond the float64 range is ``+-inf`` and one below it a subnormal or
    zero, as correct rounding gives (NumPy's running product may overflow on the way
    to a representable result; this one does not); ``0 * inf`` is NaN; an empty
    product is 1.0.

    Parameters
    ----------
    data : iterable or array_like
        As :func:`skew`; ints beyond 2**53 are multiplied exactly too.
    axis : None, int or tuple of ints
        Axes to reduce (arrays only). None reduces all.
    nan_policy : {"raise", "propagate", "omit", "smallest", "largest", "totalorder"}
        As :func:`skew`.
    keepdims : bool
        Keep reduced axes with length one (arrays only).

    Returns
    -------
    scalar or ndarray
        float64 (float32 data give float32).

    Examples
    --------
    >>> import nanaccess as na
    >>> na.prod([3.0, 0.1, 0.1, 0.1])  # NumPy's running product: 0.003000000000000001
    0.0030000000000000005
    >>> na.prod([1e200, 1e200, 1e-200])
    1e+200
    """
