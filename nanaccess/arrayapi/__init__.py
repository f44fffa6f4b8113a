"""Statistics of arrays from any library implementing the array API standard (CuPy,
PyTorch, JAX, ``array_api_strict``), on their device, with NumPy's bits.

The boundary (:func:`nanaccess._boundary.call`) sends such arrays here through one
door, :func:`arrayapi_call` (:func:`nanaccess._boundary.host_of` says which arrays:
CuPy, torch, JAX, ``array_api_strict`` and any non-NumPy array with
``__array_namespace__``); results are arrays of the caller's namespace on the
caller's device. See ``docs/gpu.md``.

Modules (one job each):

* :mod:`._shim`: what the standard lacks, per library (bit views, partition, host
  copies);
* :mod:`.common`: rows, totalOrder keys and the NaN survey on the device;
* :mod:`.order`: order statistics (selection on keys, values made by the NumPy core);
* :mod:`.longrow`, :mod:`._cupy_scan`: one long row's median/quantiles by sample
  selection (one fused pass);
* :mod:`.bins`, :mod:`._cupy_bins`: exact sums as per-exponent integer bins;
* :mod:`.moments`: exact sum/mean/var/std/count, rounded once by the NumPy core;
* :mod:`.grouped`: grouped order statistics (one sort by group and key);
* :mod:`.reduce`: the entry points and the host fallback.
"""

from __future__ import annotations

from .grouped import grouped_order_xp
from .reduce import arrayapi_call, host_reduce, reduce_xp

__all__ = ["arrayapi_call", "reduce_xp", "host_reduce", "grouped_order_xp"]
