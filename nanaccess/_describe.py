"""``describe``: the same rows on every host, computed per column by the core.

Rows: ``count`` (numbers), ``nan``, ``missing``, ``mean``, ``std``, ``min``, the
percentiles (default 25%, 50%, 75%; exactly those asked for otherwise, as pandas 3:
no 50% is added, and ``[]`` gives none) and ``max``.
The counts come from :func:`nanaccess.core.classify`'s report, the statistics from
:func:`nanaccess.core.reduce.reduce` under the caller's policy; every value is a
float64 (describe is a table). A host (pandas, xarray, dask) calls
:func:`describe_values` once per column or variable and labels the result; errors
reach it as the core raised them, with positions into the values it passed.

Examples
--------
>>> import numpy as np
>>> from nanaccess.options import NanPolicy
>>> d = describe_values(np.array([1.0, np.nan, 3.0]), None, NanPolicy.OMIT)
>>> list(d), d["count"], d["mean"]
(['count', 'nan', 'missing', 'mean', 'std', 'min', '25%', '50%', '75%', 'max'], 2.0, 2.0)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from . import _stats
from .core.classify import report_array
from .core.reduce import reduce
from .options import NanPolicy, chosen_option, resolve_policy

__all__ = ["COUNT_ROWS", "describe_values", "describe_policy", "percentiles", "pct_label",
           "row_labels"]

#: the counting rows, before the statistics
COUNT_ROWS = ("count", "nan", "missing")
#: the statistic rows before the percentiles (``max`` follows them)
_LEADING = ("mean", "std", "min")


def describe_policy(nan_policy: Any) -> NanPolicy:
    """The policy of describe's statistic rows on every host.

    ``nan_policy`` when passed; else the policy the user chose with
    ``set_options(nan_policy=...)`` or ``option_context(nan_policy=...)`` (still in
    force here) when it computes a value (every policy but "raise"); else "omit".
    describe exists to show the NaNs (its count rows report every kind of value), so
    only an explicit ``nan_policy="raise"`` makes it raise: a process-wide "raise" is
    the library's own default, set to guard the statistics, not to hide the report.

    Examples
    --------
    >>> import nanaccess as na
    >>> str(describe_policy(None)), str(describe_policy("raise"))
    ('omit', 'raise')
    >>> with na.option_context(nan_policy="propagate"):
    ...     str(describe_policy(None))
    'propagate'
    >>> with na.option_context(nan_policy="raise"):
    ...     str(describe_policy(None))
    'omit'
    """
    if nan_policy is not None:
        return resolve_policy(nan_policy)
    chosen = chosen_option("nan_policy")
    return NanPolicy.OMIT if chosen in (None, NanPolicy.RAISE) else chosen


def percentiles(ps: Sequence[float] | None) -> list[float]:
    """The sorted percentiles describe shows: the default 0.25, 0.5, 0.75, else those
    given (no 0.5 added, as pandas 3); ValueError outside [0, 1] or for duplicates.

    Examples
    --------
    >>> percentiles(None), percentiles([0.9, 0.1]), percentiles([])
    ([0.25, 0.5, 0.75], [0.1, 0.9], [])
    """
    if ps is None:
        return [0.25, 0.5, 0.75]
    given = [float(p) for p in (np.atleast_1d(ps) if np.ndim(ps) == 0 else ps)]
    out = sorted(set(given))
    if len(out) < len(given):
        raise ValueError("percentiles cannot contain duplicates")
    for p in out:
        if not 0 <= p <= 1:
            raise ValueError("percentiles should all be in the interval [0, 1]")
    return out


def pct_label(p: float) -> str:
    """``0.25`` -> ``"25%"`` (pandas' row names).

    Examples
    --------
    >>> pct_label(0.25), pct_label(0.125)
    ('25%', '12.5%')
    """
    return f"{p * 100:.10g}%"


def row_labels(ps: Sequence[float] | None = None) -> list[str]:
    """The row names of describe, in order.

    Examples
    --------
    >>> row_labels([0.5])
    ['count', 'nan', 'missing', 'mean', 'std', 'min', '50%', 'max']
    """
    return [*COUNT_ROWS, *_LEADING, *map(pct_label, percentiles(ps)), "max"]


def _as_float(value: Any, miss: Any, subject: str, row: str) -> float:
    if miss is not None and bool(np.asarray(miss)):
        return np.nan
    v = np.asarray(value)
    if v.dtype.kind in "mM":
        return float(v.view(np.int64)) if not np.isnat(v) else np.nan
    if v.dtype.kind in "fiub":
        return float(v.astype(np.float64))
    try:
        return float(v[()])
    except OverflowError:
        # exact object results (huge ints, Fractions) beyond float64: say where
        raise OverflowError(
            f"{subject}: the {row} is too large for describe's float64 table; compute it "
            "with the statistic's own method for the exact value"
        ) from None


def describe_values(
    values: np.ndarray,
    missing: np.ndarray | None,
    policy: NanPolicy,
    ps: Sequence[float] | None = None,
    *,
    ddof: float = 1,
    subject: str = "data",
) -> dict[str, float]:
    """describe's rows of one column (all of ``values``), as float64 numbers.

    Parameters
    ----------
    values : ndarray
        Any dtype the core reduces (datetimes give their int64 nanoseconds).
    missing : bool ndarray or None
        Missing entries of ``values``.
    policy : NanPolicy
        Resolved by the host.
    ps : sequence of float, optional
        Percentiles in [0, 1] (see :func:`percentiles`).
    ddof : float
        Of the ``std`` row (1, as pandas' describe).
    subject : str
        Names the column in an OverflowError (a huge exact result).

    Returns
    -------
    dict
        Row name -> float, in :func:`row_labels` order.

    Examples
    --------
    >>> import numpy as np
    >>> from nanaccess.options import NanPolicy
    >>> d = describe_values(np.array([1.0, np.nan]), None, NanPolicy.PROPAGATE, [0.5])
    >>> d["nan"], d["mean"], d["50%"]
    (1.0, nan, nan)
    """
    qs = percentiles(ps)
    rep = report_array(values, missing)
    out = {row: float(rep[key]) for row, key in zip(
        COUNT_ROWS, ("numbers", "nan", "missing"), strict=True)}

    def stat(name: str, **params: Any) -> Any:
        return reduce(values, name, policy=policy, missing=missing, **params)

    for name in _LEADING:
        r = stat(name, ddof=ddof) if name in _stats.SQUARES else stat(name)
        out[name] = _as_float(r.values, r.missing, subject, name)
    if qs:
        r = stat("quantile", q=qs)
        for j, p in enumerate(qs):
            out[pct_label(p)] = _as_float(r.values[j],
                                          None if r.missing is None else r.missing[j],
                                          subject, pct_label(p))
    r = stat("max")
    out["max"] = _as_float(r.values, r.missing, subject, "max")
    return out
