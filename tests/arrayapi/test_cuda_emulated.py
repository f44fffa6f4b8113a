"""The exact-sum CUDA kernels' arithmetic, run on the CPU: the kernel source compiled
as C++ with a small shim (one thread per block, blocks one after another, so the
barriers hold and atomics are plain additions), against the portable bins.

This checks what the GPU check cannot show on small data: the window kernel's 128-bit
carries and borrows, its moves of the window, the values sent outside it and the
split of the accumulator into bins. Skipped without a C++ compiler (CI has g++).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from nanaccess.arrayapi import _cupy_bins
from nanaccess.arrayapi.bins import _assemble, _portable

from .helpers import messy, nan_of

_SHIM = r"""
#include <cstdio>
#include <cstdint>
#include <vector>
struct Dim { long long x, y, z; };
static Dim threadIdx, blockIdx, blockDim, gridDim;
#define __global__
#define __shared__ static
#define __restrict__
#define __syncthreads()
template <class T> T atomicAdd(T* p, T v) { T old = *p; *p += v; return old; }
"""
_MAIN = r"""
int main() {
    long long rows, n, grid;
    if (fread(&rows, 8, 1, stdin) != 1 || fread(&n, 8, 1, stdin) != 1
        || fread(&grid, 8, 1, stdin) != 1) return 2;
    std::vector<@BITS@> data(rows * n);
    if ((long long)fread(data.data(), sizeof(@BITS@), rows * n, stdin) != rows * n) return 3;
    std::vector<unsigned long long> out(rows * 4096, 0ULL), flags(rows * 5, 0ULL);
    gridDim = {grid, rows, 1}; blockDim = {1, 1, 1}; threadIdx = {0, 0, 0};
    for (long long y = 0; y < rows; ++y)
        for (long long x = 0; x < grid; ++x) {
            blockIdx = {x, y, 0};
            @NAME@(data.data(), n, out.data(), flags.data());
        }
    fwrite(out.data(), 8, out.size(), stdout);
    fwrite(flags.data(), 8, flags.size(), stdout);
    return 0;
}
"""


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    cxx = shutil.which("g++") or shutil.which("c++")
    if cxx is None:
        pytest.skip("no C++ compiler")
    built = {}
    root = tmp_path_factory.mktemp("kernels")
    for width in (4, 8):
        for kind in ("plain", "window"):
            lay = _cupy_bins._LAYOUTS[width]
            name = lay["NAME"] + f"_{kind}"
            src = (_SHIM + _cupy_bins.source(width, kind).replace('extern "C" ', "")
                   + _MAIN.replace("@BITS@", lay["BITS"]).replace("@NAME@", name))
            path = Path(root) / f"{name}.cpp"
            path.write_text(src)
            exe = Path(root) / name
            got = subprocess.run([cxx, "-O1", "-std=c++14", "-w", "-o", str(exe), str(path)],
                                 capture_output=True, text=True, timeout=300)
            assert got.returncode == 0, got.stderr[-3000:]
            built[width, kind] = exe
    return built


def _run(exe: Path, bits: np.ndarray, grid: int) -> tuple[np.ndarray, np.ndarray]:
    rows, n = bits.shape
    head = np.array([rows, n, grid], dtype=np.int64).tobytes()
    got = subprocess.run([str(exe)], input=head + np.ascontiguousarray(bits).tobytes(),
                         capture_output=True, timeout=120)
    assert got.returncode == 0, got.returncode
    words = np.frombuffer(got.stdout, dtype=np.int64)
    return words[:rows * 4096].reshape(rows, 2, 2048), words[rows * 4096:].reshape(rows, 5)


def _ints(b: np.ndarray) -> list[int]:
    r, sh = np.nonzero((b[:, 0] != 0) | (b[:, 1] != 0))
    return _assemble(r * 2048 + sh, b[r, 0, sh], b[r, 1, sh], b.shape[0])


def _want(x2: np.ndarray) -> list[int]:
    """The portable engine's exact sums (float32 data as float64, as the kernel)."""
    x64 = np.where(np.isnan(x2), 0.0, x2).astype(np.float64)
    return _assemble(*_portable(x64.view(np.int64), np), x2.shape[0])


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("data", ["messy", "wide", "cancel", "huge", "tiny"])
def test_window_kernel_sums(programs, dtype, data):
    rng = np.random.default_rng(len(data))
    if data in ("messy", "wide"):
        x = messy(dtype, (2, 3000), seed=4, nans="quiet", wide=data == "wide")
    elif data == "cancel":  # one big value and its negation around many small ones
        v = rng.normal(size=(2, 3000)) * 2.0 ** rng.integers(-40, 40, size=(2, 3000))
        v[:, ::100] = 2.0 ** 60
        v[:, 50::100] = -(2.0 ** 60)
        x = v.astype(dtype)
    elif data == "huge":  # exponents at the top of the range (the window cannot reach)
        big = np.finfo(dtype).max
        x = (rng.random((2, 3000)) * big * rng.choice([-1, 1], (2, 3000))).astype(dtype)
    else:  # subnormals and tiny values
        tiny = np.finfo(dtype).smallest_subnormal
        x = (rng.integers(-2**20, 2**20, (2, 3000)) * tiny).astype(dtype)
    x[0, 11] = nan_of(dtype, "snan")
    bits = x.view({4: np.int32, 8: np.int64}[np.dtype(dtype).itemsize])
    want = _want(x)
    for grid in (1, 3, 7):
        b, f = _run(programs[x.dtype.itemsize, "window"], bits, grid)
        assert _ints(b) == want, (grid, data)
        bp, fp = _run(programs[x.dtype.itemsize, "plain"], bits, grid)
        assert _ints(bp) == want and np.array_equal(f, fp)
    assert f[0, 0] == np.isnan(x[0]).sum() and f[0, 1] >= 1


def test_window_kernel_many_values_a_thread(programs):
    """4096 values of one thread at the window's widest shift: the 128-bit headroom."""
    x = np.full((1, 4096), np.nextafter(2.0 ** 30, np.inf))
    x[0, 0] = 2.0 ** -31  # the window's base, so 2**30 values sit at its top
    x[0, 1::2] = -np.nextafter(2.0 ** 30, 0)
    b, _ = _run(programs[8, "window"], x.view(np.int64), 1)
    assert _ints(b) == _want(x)
