"""Shared helpers of the array-API tests (libraries, conversions, bit equality)."""

from __future__ import annotations

import importlib.util

import numpy as np


def cuda_cupy() -> bool:
    if importlib.util.find_spec("cupy") is None:
        return False
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # noqa: BLE001 - no driver, no device
        return False


def torch_device() -> str | None:
    if importlib.util.find_spec("torch") is None:
        return None
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


LIBS = ["strict", "numpy", "cupy", "torch"]


class Lib:
    """Converts NumPy test data to one library's arrays and back (bits kept)."""

    def __init__(self, name: str) -> None:
        self.name = name
        if name == "strict":
            import array_api_strict

            self.mod = array_api_strict
        elif name == "cupy":
            import cupy

            self.mod = cupy
        elif name == "torch":
            import torch

            self.mod = torch
            self.device = torch_device()
        else:
            self.mod = np

    def asarray(self, a: np.ndarray):
        a = np.ascontiguousarray(a) if a.ndim else a
        if self.name == "strict":
            return self.mod.asarray(a)
        if self.name == "cupy":
            return self.mod.asarray(a)
        if self.name == "torch":
            return self.mod.from_numpy(np.array(a, copy=True)).to(self.device)
        return a

    def back(self, r) -> np.ndarray:
        from nanaccess.arrayapi._shim import to_numpy

        return np.asarray(to_numpy(r))

    def fn(self, stat: str):
        """The statistic as a caller uses it: ``nanaccess.<stat>`` (the boundary's
        door), except NumPy data, which the boundary gives to the NumPy core: those go
        through the array-API door itself, so NumPy tests the generic path too."""
        import nanaccess as na
        from nanaccess.arrayapi import arrayapi_call

        if self.name != "numpy" and hasattr(na, stat):
            return getattr(na, stat)

        def call(x, *, axis=None, nan_policy=None, keepdims=False, **params):
            return arrayapi_call(stat, x, axis, nan_policy, keepdims, params)

        return call

    def check_type(self, r) -> None:
        """The result is an array of this library (not NumPy, not a scalar)."""
        if self.name == "strict":
            assert type(r).__module__.startswith("array_api_strict"), type(r)
        elif self.name == "cupy":
            assert type(r).__module__.startswith("cupy"), type(r)
        elif self.name == "torch":
            assert type(r).__module__.startswith("torch"), type(r)
            assert str(r.device).split(":")[0] == self.device
        else:
            assert type(r) is np.ndarray, type(r)  # 0-d arrays, not NumPy scalars


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal dtype, shape and bits (NaN payloads and signed zeros included)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind == "f":
        w = {2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize]
        return bool(np.array_equal(np.ascontiguousarray(a).view(w),
                                   np.ascontiguousarray(b).view(w)))
    return bool(np.array_equal(a, b))


#: NaN bit patterns per float width: quiet, negative quiet, payloads, signaling
NANS = {
    8: {"q": 0x7FF8000000000000, "neg": 0xFFF8000000000000, "payload": 0x7FF800000000ABCD,
        "negpayload": 0xFFF8000000001234, "snan": 0x7FF0000000000001,
        "negsnan": 0xFFF0000000000077},
    4: {"q": 0x7FC00000, "neg": 0xFFC00000, "payload": 0x7FC0ABCD, "negpayload": 0xFFC01234,
        "snan": 0x7F800001, "negsnan": 0xFF800077},
}


def nan_of(dtype: np.dtype, kind: str):
    dtype = np.dtype(dtype)
    u = {4: np.uint32, 8: np.uint64}[dtype.itemsize]
    return np.array(NANS[dtype.itemsize][kind], dtype=u).view(dtype)[()]


def messy(dtype, shape, seed: int, *, nans: str = "none", wide: bool = False) -> np.ndarray:
    """Test data: normals at mixed scales, signed zeros, ties, infinities where
    ``wide`` (also huge and subnormal values), and NaNs: ``nans`` is "none", "quiet"
    (arithmetic NaN, negative NaN, payloads), "signaling" (those plus an sNaN),
    "all" (every element of one row/column NaN) ."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    x = rng.normal(size=n) * 10.0 ** rng.integers(-3, 4, size=n)
    x[rng.random(n) < 0.1] = 0.0
    x[rng.random(n) < 0.1] = -0.0
    x[rng.random(n) < 0.15] = 1.5  # ties
    if wide:
        x[rng.random(n) < 0.1] = rng.choice([np.inf, -np.inf, 1e300, -1e300, 5e-324, -1e-310])
    with np.errstate(over="ignore"):  # 1e300 is inf in float32
        x = x.astype(dtype)
    if nans != "none":
        kinds = ["q", "neg", "payload", "negpayload"]
        with np.errstate(invalid="ignore"):
            arith = np.array(np.inf, dtype) - np.array(np.inf, dtype)
        picks = rng.choice(n, size=max(1, n // 6), replace=False)
        for j, i in enumerate(picks):
            x[i] = arith if j % 5 == 4 else nan_of(dtype, kinds[j % 4])
        if nans == "signaling":
            x[picks[0]] = nan_of(dtype, "snan")
            x[picks[-1]] = nan_of(dtype, "negsnan")
        if nans == "all":
            x = x.reshape(shape)
            if len(shape) > 1:
                x[0] = nan_of(dtype, "payload")
            return x
    return x.reshape(shape)
