"""Host keywords users type, translated once: ``skipna=``, ``interpolation=``, ``min_count=``.

pandas and xarray users write ``skipna=False`` and ``quantile(interpolation=...)``;
the generated accessor methods (``tools/generate_api.py``) accept them and pass them
through the functions here before the hook sees its arguments, so every host reads
them the same way:

* ``skipna=True`` is ``nan_policy="omit"``, ``skipna=False`` is ``"propagate"``;
  both given and disagreeing is a ``ValueError`` naming both;
* ``interpolation=`` is pandas' name of ``method=`` (both given and disagreeing: a
  ``ValueError``);
* ``min_count`` (pandas' and xarray's ``sum``): a result over fewer values than
  ``min_count`` is the host's missing value (:func:`below_min_count`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["SKIPNA_POLICY", "NA_OPTIONS", "skipna_policy", "interpolation_method",
           "below_min_count", "check_na_option"]

#: pandas' ``rank(na_option=)`` choices
NA_OPTIONS = ("keep", "top", "bottom")

#: what ``skipna`` means as a policy
SKIPNA_POLICY = {True: "omit", False: "propagate"}


def skipna_policy(skipna: bool | None, nan_policy: Any) -> Any:
    """``nan_policy`` with pandas' ``skipna`` folded in (None: not given).

    Examples
    --------
    >>> skipna_policy(True, None), skipna_policy(None, "raise"), skipna_policy(False, None)
    ('omit', 'raise', 'propagate')
    >>> skipna_policy(True, "raise")
    Traceback (most recent call last):
    ...
    ValueError: skipna=True is nan_policy="omit", not nan_policy='raise': pass one of them
    """
    if skipna is None:
        return nan_policy
    if not isinstance(skipna, bool | np.bool_):
        raise TypeError(f"skipna must be True, False or None, got {skipna!r}")
    implied = SKIPNA_POLICY[bool(skipna)]
    if nan_policy is not None and str(getattr(nan_policy, "value", nan_policy)) != implied:
        raise ValueError(
            f'skipna={bool(skipna)} is nan_policy="{implied}", not '
            f"nan_policy={str(getattr(nan_policy, 'value', nan_policy))!r}: pass one of them"
        )
    return implied


def interpolation_method(interpolation: str | None, method: str) -> str:
    """``method`` with pandas' ``interpolation`` folded in (None: not given).

    ``method``'s default ("linear") yields to ``interpolation``; any other ``method``
    must agree with it.

    Examples
    --------
    >>> interpolation_method("lower", "linear"), interpolation_method(None, "hazen")
    ('lower', 'hazen')
    """
    if interpolation is None:
        return method
    if method not in ("linear", interpolation):
        raise ValueError(
            f"interpolation={interpolation!r} and method={method!r} disagree; "
            "interpolation is pandas' name of method: pass one of them"
        )
    return interpolation


def below_min_count(count: Any, min_count: int) -> np.ndarray:
    """Where a result saw fewer than ``min_count`` values (bool, ``count``'s shape).

    Examples
    --------
    >>> below_min_count(np.array([0, 1, 2]), 2).tolist()
    [True, True, False]
    """
    if isinstance(min_count, bool) or not isinstance(min_count, int | np.integer):
        raise TypeError(f"min_count must be an integer, got {min_count!r}")
    return np.asarray(count) < int(min_count)


def check_na_option(na_option: str | None, nan_policy: Any) -> None:
    """Validate pandas' ``rank(na_option=)``; it places NaN and missing values itself
    ("keep": a NaN rank, "top" / "bottom": tied at the first / last ranks), so it
    cannot be combined with a ``nan_policy`` that places them (only "raise" is left,
    which it cannot honour either).

    Examples
    --------
    >>> check_na_option("top", None)
    >>> check_na_option("top", "largest")
    Traceback (most recent call last):
    ...
    ValueError: na_option='top' places the NaNs; pass it without nan_policy='largest'
    """
    if na_option is None:
        return
    if na_option not in NA_OPTIONS:
        raise ValueError(f"na_option must be one of {NA_OPTIONS}, got {na_option!r}")
    if nan_policy is not None:
        raise ValueError(
            f"na_option={na_option!r} places the NaNs; pass it without "
            f"nan_policy={str(getattr(nan_policy, 'value', nan_policy))!r}"
        )
