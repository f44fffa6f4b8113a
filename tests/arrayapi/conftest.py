"""Fixtures of the array-API tests: the same tests on every library present.

``lib`` runs a test on ``array_api_strict`` and on NumPy through the array-API path
here; on a machine with CUDA it adds CuPy and PyTorch on the GPU (skipped where the
library or the device is absent), so ``pytest tests/arrayapi`` is the GPU check.
"""

from __future__ import annotations

import pytest

from .helpers import LIBS, Lib, cuda_cupy, torch_device


@pytest.fixture(params=LIBS)
def lib(request) -> Lib:
    name = request.param
    if name == "strict":
        pytest.importorskip("array_api_strict")
    if name == "cupy" and not cuda_cupy():
        pytest.skip("CuPy with a CUDA device is not available")
    if name == "torch" and torch_device() is None:
        pytest.skip("torch is not installed")
    pytest.importorskip("array_api_compat")
    return Lib(name)
