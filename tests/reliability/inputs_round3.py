"""Input kinds of the reliability matrix added by issue 25 (round 3), core semantics.

``arithmetic_nan``: NaNs made by arithmetic (``0.0 / 0.0``, ``inf - inf``), which are
*negative* on x86, beside ``np.nan``. Every policy's reference is the one of
:func:`.inputs.policy_reference`; the sorts also run under their default policy,
which must put every NaN last (spec section 5: "largest"; rank "omit"), where
NumPy's and pandas' own sorts put them, whatever the NaN's sign.
"""

from __future__ import annotations

import numpy as np

from .entry_points import EntryPoint
from .inputs import (
    ALL_HOSTS,
    STD_POLICIES,
    Case,
    InputKind,
    _sort_reference,
    build,
    classify,
    elements,
    standard_cases,
)

__all__ = ["ROUND3_KINDS"]


def arithmetic_nans() -> np.ndarray:
    """``[3, 0/0, 1, inf - inf, 2, nan]``: two arithmetic NaNs and a positive one."""
    with np.errstate(invalid="ignore"):
        return np.array([3.0, np.float64(0) / np.float64(0), 1.0, np.inf - np.inf, 2.0,
                         np.nan])


def _arithmetic_nan(ep: EntryPoint) -> list[Case]:
    col = arithmetic_nans()
    cases = standard_cases(ep, col, STD_POLICIES, dtype=np.float64, tag="arith/")
    if ep.family == "sort" and ep.host in ("function", "series") and ep.name != "sortby":
        elems = elements(col)
        classes = [classify(v) for v in elems]
        for policy in (None, "largest"):
            exp = _sort_reference(ep.name, elems, classes, policy, np.float64)
            kw = {} if policy is None else {"nan_policy": policy}
            if ep.name == "rank" and policy == "largest":
                continue  # ranks NaNs (pandas' rank has no such reference); see "omit"
            if ep.host == "function":
                cases.append(Case(f"arith/ndarray/{policy or 'default'}", col, kw, exp))
            else:
                obj, extract = build(ep.host, col)
                cases.append(Case(f"arith/{policy or 'default'}", obj, kw, exp, extract))
    return cases


ROUND3_KINDS = [
    InputKind("arithmetic_nan", ALL_HOSTS, _arithmetic_nan,
              doc="NaNs made by arithmetic (negative on x86) beside np.nan"),
]
