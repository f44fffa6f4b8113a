"""The CuPy engine of the histogram selection of one long row (:mod:`.order`).

Radix selection on the totalOrder keys: one kernel pass counts the keys per value of
their top 12 bits, a second pass counts, among the keys of the bucket holding a wanted
rank, the next 12 bits; the keys sharing those 24 top bits (a few thousand for most
data, every key of a constant row at worst) are gathered and sorted. Counts use
per-block shared-memory histograms with warp-aggregated atomics (one atomic per
distinct bucket of a warp, not per key), so data crowded in a few buckets does not
serialise. :func:`hist_select` returns None when the kernel cannot be built or run.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

__all__ = ["hist_select"]

_TEMPLATE = r"""
extern "C" __global__
void @NAME@(const @T@* __restrict__ keys, const long long n, const int shift,
            const int flip, const int fshift, const long long fvalue,
            const int use_filter, unsigned long long* __restrict__ out)
{
    __shared__ unsigned int hist[4096];
    for (int i = threadIdx.x; i < 4096; i += blockDim.x) hist[i] = 0u;
    __syncthreads();
    const long long stride = (long long)gridDim.x * blockDim.x;
    const int lane = threadIdx.x & 31;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const @T@ k = keys[i];
        int bucket = ((int)((k >> shift) & 0xFFF)) ^ flip;
        if (use_filter && (long long)(k >> fshift) != fvalue) bucket = 4096;
        const unsigned int active = __activemask();
        const unsigned int peers = __match_any_sync(active, bucket);
        if (bucket < 4096 && lane == __ffs(peers) - 1)
            atomicAdd(&hist[bucket], (unsigned int)__popc(peers));
    }
    __syncthreads();
    for (int i = threadIdx.x; i < 4096; i += blockDim.x)
        if (hist[i]) atomicAdd(&out[i], (unsigned long long)hist[i]);
}
"""
_TYPES = {8: ("nanaccess_hist12_64", "long long"), 4: ("nanaccess_hist12_32", "int")}
_KERNELS: dict[int, Any] = {}
_THREADS = 256


def source(width: int) -> str:
    name, ctype = _TYPES[width]
    return _TEMPLATE.replace("@NAME@", name).replace("@T@", ctype)


def _kernel(width: int) -> Any:
    if width not in _KERNELS:
        import cupy

        _KERNELS[width] = cupy.RawKernel(source(width), _TYPES[width][0])
    return _KERNELS[width]


def _hist(row: Any, shift: int, flip: int, fshift: int = 0, fvalue: int | None = None
          ) -> np.ndarray:
    """Counts of the 12-bit field at ``shift`` (XOR ``flip``) of the keys whose
    ``k >> fshift`` equals ``fvalue`` (all keys when None), as NumPy uint64."""
    import cupy

    n = row.shape[0]
    out = cupy.zeros(4096, dtype=cupy.uint64)
    sms = cupy.cuda.Device().attributes.get("MultiProcessorCount", 108)
    blocks = max(1, min(-(-n // (_THREADS * 16)), sms * 8))
    _kernel(row.dtype.itemsize)((blocks,), (_THREADS,), (
        row, np.int64(n), np.int32(shift), np.int32(flip), np.int32(fshift),
        np.int64(0 if fvalue is None else fvalue), np.int32(fvalue is not None), out))
    return cast("np.ndarray", out.get().astype(np.int64))


def hist_select(row: Any, kth: np.ndarray) -> np.ndarray | None:
    """Keys at the sorted distinct ranks ``kth`` of the 1-D CuPy keys ``row``
    (int32/int64 totalOrder keys); None when the kernel is unavailable."""
    try:
        import cupy

        row = cupy.ascontiguousarray(row)
        width = row.dtype.itemsize * 8
        cum1 = np.cumsum(_hist(row, width - 12, 0x800))
        level2: dict[int, np.ndarray] = {}
        gathered: dict[int, Any] = {}
        out = np.empty(kth.size, dtype=row.dtype)
        for i, r in enumerate(kth.tolist()):
            b1 = int(np.searchsorted(cum1, r, side="right"))
            below = int(cum1[b1 - 1]) if b1 else 0
            top = b1 - 2048  # the signed value of the keys' top 12 bits
            if b1 not in level2:
                level2[b1] = np.cumsum(_hist(row, width - 24, 0, width - 12, top))
            cum2 = level2[b1]
            b2 = int(np.searchsorted(cum2, r - below, side="right"))
            below += int(cum2[b2 - 1]) if b2 else 0
            prefix = top * 4096 + b2  # the keys' top 24 bits, signed
            if prefix not in gathered:
                gathered[prefix] = cupy.sort(row[(row >> (width - 24)) == prefix])
            out[i] = gathered[prefix][r - below].item()
        return out
    except Exception:  # noqa: BLE001 - no compiler, no device: the portable selection
        return None
