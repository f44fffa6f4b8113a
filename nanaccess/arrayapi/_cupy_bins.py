"""The CuPy engine of :mod:`.bins`: one CUDA kernel, per-block shared-memory bins.

Each block takes a stretch of one row, adds the signed 26-bit mantissa halves of its
finite values into 2 x 2048 int64 bins in shared memory (integer atomics: exact and
order-free), then adds its nonzero bins into the row's global bins. Only integer
operations touch the data, so no compiler flag (FMA contraction, fast math) can
change a bit. :func:`cupy_bins` returns None when the kernel cannot be built or run,
and :mod:`.bins` then uses its portable engine (same integers).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["cupy_bins"]

_SOURCE = r"""
extern "C" __global__
void nanaccess_exact_bins(const long long* __restrict__ bits, const long long n,
                          unsigned long long* __restrict__ out)
{
    __shared__ unsigned long long hi[2048];
    __shared__ unsigned long long lo[2048];
    for (int i = threadIdx.x; i < 2048; i += blockDim.x) { hi[i] = 0ULL; lo[i] = 0ULL; }
    __syncthreads();
    const long long row = blockIdx.y;
    const long long* p = bits + row * n;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const long long b = p[i];
        const int e = (int)((b >> 52) & 0x7FF);
        if (e == 0x7FF) continue;
        const long long m = (b & 0xFFFFFFFFFFFFFLL) | ((long long)(e > 0) << 52);
        if (m == 0) continue;
        const int sh = e > 0 ? e - 1 : 0;
        long long h = m >> 26, l = m & 0x3FFFFFFLL;
        if (b < 0) { h = -h; l = -l; }
        atomicAdd(&hi[sh], (unsigned long long)h);
        if (l) atomicAdd(&lo[sh], (unsigned long long)l);
    }
    __syncthreads();
    unsigned long long* o = out + row * 4096;
    for (int i = threadIdx.x; i < 2048; i += blockDim.x) {
        if (hi[i]) atomicAdd(&o[i], hi[i]);
        if (lo[i]) atomicAdd(&o[2048 + i], lo[i]);
    }
}
"""
_KERNEL: list[Any] = []
_THREADS = 256


def _kernel() -> Any:
    if not _KERNEL:
        import cupy

        _KERNEL.append(cupy.RawKernel(_SOURCE, "nanaccess_exact_bins"))
    return _KERNEL[0]


def device_bins(bits: Any) -> Any:
    """The (rows, 2, 2048) int64 bins on the device (hi halves, then lo halves)."""
    import cupy

    rows, n = bits.shape
    if rows > 65535:
        raise ValueError("more rows than a grid's y dimension")
    bits = cupy.ascontiguousarray(bits)
    out = cupy.zeros((rows, 2, 2048), dtype=cupy.uint64)
    dev = cupy.cuda.Device()
    sms = dev.attributes.get("MultiProcessorCount", 108)
    per_row = max(1, min(-(-n // (_THREADS * 16)), max(1, (sms * 8) // rows)))
    _kernel()((per_row, rows), (_THREADS,), (bits, np.int64(n), out))
    return out.view(cupy.int64)


def cupy_bins(bits: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(bin key, hi sum, lo sum) of the nonempty bins, as :func:`.bins._portable`;
    None when the kernel is unavailable."""
    try:
        b = device_bins(bits).get()
    except Exception:  # noqa: BLE001 - no compiler, no device: the portable engine
        return None
    r, sh = np.nonzero((b[:, 0] != 0) | (b[:, 1] != 0))
    return r * 2048 + sh, b[r, 0, sh], b[r, 1, sh]
