"""What the array-API path needs beyond the standard, one small function per need.

The array API standard has no bit view, no partition, no "to NumPy" and no scatter
add; each is written here once per library (NumPy, CuPy, PyTorch, JAX,
``array_api_strict``), and the rest of :mod:`nanaccess.arrayapi` calls only these and
standard functions of the namespace ``xp`` that :func:`namespace` returns.
"""

from __future__ import annotations

import os
from typing import Any, cast

import numpy as np

__all__ = ["library", "namespace", "device_of", "to_numpy", "from_numpy", "np_dtype",
           "bits_view", "partition", "bincount"]

#: the library of each array type seen (array_api_compat's tests cost tens of
#: microseconds a call, several calls a statistic: on the GPU that was ~20 % of a sum)
_LIBRARY: dict[type[Any], str] = {}
_NAMESPACE: dict[type[Any], Any] = {}


def library(x: Any) -> str:
    """``"numpy"``, ``"cupy"``, ``"torch"``, ``"jax"``, ``"strict"`` or ``"other"``."""
    kind = _LIBRARY.get(type(x))
    if kind is not None:
        return kind
    import array_api_compat as c

    kind = "other"
    for name, test in (("numpy", c.is_numpy_array), ("cupy", c.is_cupy_array),
                       ("torch", c.is_torch_array), ("jax", c.is_jax_array)):
        if test(x):
            kind = name
            break
    else:
        if type(x).__module__.split(".")[0] == "array_api_strict":
            kind = "strict"
    if kind != "jax":  # JAX tracers and arrays share types with other meanings
        _LIBRARY[type(x)] = kind
    return kind


def namespace(x: Any) -> Any:
    """The (array_api_compat-wrapped) namespace of ``x`` (cached per array type for
    CuPy and NumPy, whose namespace depends on the type alone)."""
    xp = _NAMESPACE.get(type(x))
    if xp is not None:
        return xp
    from array_api_compat import array_namespace

    xp = array_namespace(x)
    if library(x) in ("cupy", "numpy"):
        _NAMESPACE[type(x)] = xp
    return xp


def device_of(x: Any) -> Any:
    from array_api_compat import device

    return device(x)


def to_numpy(x: Any) -> np.ndarray:
    """A NumPy array with the bits of ``x`` (copied from a device; NaN payloads and
    signaling NaNs kept: a memory copy, no arithmetic)."""
    lib = library(x)
    if lib == "numpy":
        return cast("np.ndarray", x)
    if lib == "cupy":
        return cast("np.ndarray", x.get())
    if lib == "torch":
        return cast("np.ndarray", x.detach().cpu().numpy())
    try:
        return np.from_dlpack(x)
    except (TypeError, BufferError, RuntimeError, AttributeError):
        return np.asarray(x)


def from_numpy(a: np.ndarray, like: Any) -> Any:
    """``a`` as an array of ``like``'s namespace on ``like``'s device (bits kept)."""
    a = np.asarray(a, order="C")  # 0-d stays 0-d
    lib = library(like)
    if lib == "numpy":
        return a
    if lib == "cupy":
        import cupy

        with cupy.cuda.Device(like.device.id):
            # copied as a 1-D buffer: CuPy fills a 0-d array from a Python scalar, and
            # its fill writes zero bytes for any value == 0, so -0.0 came back +0.0
            return cupy.asarray(a.reshape(-1)).reshape(a.shape)
    if lib == "torch":
        import torch

        return torch.from_numpy(a.copy()).to(like.device)
    xp = namespace(like)
    if lib == "strict":
        return xp.asarray(a, device=like.device)
    return xp.asarray(a, device=device_of(like))


def np_dtype(x: Any) -> np.dtype:
    """The NumPy dtype with the same name as ``x``'s dtype (a TypeError if none)."""
    if isinstance(x.dtype, np.dtype):  # NumPy, CuPy
        return x.dtype
    name = str(x.dtype).rsplit(".", 1)[-1]
    try:
        return np.dtype(name)
    except TypeError:
        raise TypeError(f"no NumPy dtype for {x.dtype!r}") from None


_INT_OF = {4: "int32", 8: "int64", 2: "int16"}


def bits_view(x: Any, xp: Any) -> Any:
    """The bits of float array ``x`` as a signed integer array of the same width (a
    view where the library has one, else a copy of the bits)."""
    width = np_dtype(x).itemsize
    name = _INT_OF[width]
    lib = library(x)
    if lib in ("numpy", "cupy"):
        return x.view(name)
    if lib == "torch":
        import torch

        return x.view(getattr(torch, name))
    if lib == "jax":
        import jax

        return jax.lax.bitcast_convert_type(x, getattr(xp, name))
    # array_api_strict and others: the bits through DLPack/NumPy, same device
    return from_numpy(to_numpy(x).view(name), like=x)


def partition(keys: Any, k: int) -> Any | None:
    """``keys`` (rows, n) partitioned along axis 1 so rank ``k`` of every row is in
    place (NumPy, CuPy), or None where the library has no partition (sort instead)."""
    lib = library(keys)
    if os.environ.get("NANACCESS_XP_SORT") == "1":  # benchmarks: a sort instead
        return None
    if lib == "numpy":
        return np.partition(keys, k, axis=1)
    if lib == "cupy":
        import cupy

        return cupy.partition(keys, k, axis=1)
    return None


def bincount(x: Any, minlength: int) -> Any | None:
    """Counts of the non-negative ints ``x`` (1-D, device) in ``minlength`` bins (NumPy,
    CuPy, PyTorch), or None where the library has none (the standard has none)."""
    lib = library(x)
    if lib == "numpy":
        return np.bincount(x, minlength=minlength)
    if lib == "cupy":
        import cupy

        return cupy.bincount(x, minlength=minlength)
    if lib == "torch":
        import torch

        return torch.bincount(x, minlength=minlength)
    return None
