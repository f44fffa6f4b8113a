"""The public classification functions: ``isnan``, ``issignaling``, ``nan_payload``
and ``nan_report`` (re-exported by :mod:`nanaccess.api` and the package)."""

from __future__ import annotations

import functools
from typing import Any, cast

from ._boundary import host_of, split_host
from .core import classify as _classify

__all__ = ["isnan", "issignaling", "nan_payload", "nan_report"]


# ------------------------------------------------------------------ classification
# The core's classification with the host's split (nullable / Arrow pandas columns:
# values and missing slots read from the buffers) passed as a parameter, and pandas /
# xarray objects' reports handed to their accessors: the core knows no host.


@functools.wraps(_classify.isnan)
def isnan(x: Any, missing: Any = None) -> Any:
    x, missing = _classify.values_and_missing(x, missing, split=split_host)
    return _classify.isnan(x, missing)


@functools.wraps(_classify.issignaling)
def issignaling(x: Any, missing: Any = None) -> Any:
    x, missing = _classify.values_and_missing(x, missing, split=split_host)
    return _classify.issignaling(x, missing)


@functools.wraps(_classify.nan_payload)
def nan_payload(x: Any, missing: Any = None) -> Any:
    x, missing = _classify.values_and_missing(x, missing, split=split_host)
    return _classify.nan_payload(x, missing)


@functools.wraps(_classify.nan_report)
def nan_report(data: Any) -> dict[str, int]:
    if host_of(data) in ("pandas", "xarray"):
        return cast("dict[str, int]", data.nanstats.nan_report())
    return _classify.nan_report(data)
