"""Types for annotating code that calls nanaccess (as :mod:`numpy.typing` for NumPy).

Examples
--------
>>> from nanaccess.typing import NanPolicyArg
>>> def robust_median(values: list[float], policy: NanPolicyArg = "omit") -> float:
...     import nanaccess as na
...     return na.median(values, nan_policy=policy)
>>> robust_median([1.0, float("nan"), 3.0])
2.0
"""

from __future__ import annotations

from typing import Literal, TypeAlias

from .options import NanPolicy

__all__ = ["NanPolicyName", "NanPolicyArg"]

#: the six policy names a type checker accepts for ``nan_policy=``
NanPolicyName: TypeAlias = Literal[
    "raise", "propagate", "omit", "smallest", "largest", "totalorder"
]
#: what every ``nan_policy=`` parameter takes: a name, a :class:`NanPolicy`, or None
#: (the current default, see :func:`nanaccess.set_options`)
NanPolicyArg: TypeAlias = NanPolicyName | NanPolicy | None
