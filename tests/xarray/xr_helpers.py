"""Shared helpers of the xarray adapter tests."""

import contextlib

import numpy as np
import xarray as xr


def assert_matches_xarray(got, want):
    """Labels (dims, coords, name, attrs) identical; values within 1 ulp.

    xarray's median is ``nanquantile(0.5)``, i.e. ``a + (b - a) * 0.5``, which can
    differ from NumPy's ``(a + b) / 2`` (the core's rule, spec section 4) in the last
    bit; the exact comparison against NumPy is in the tests below.
    """
    got = got.compute()
    if isinstance(want, xr.Dataset):
        for name in want.data_vars:
            assert_matches_xarray(got[name], want[name])
        xr.testing.assert_identical(got.copy(data={k: want[k].values for k in want.data_vars}),
                                    want)
        return
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got.values, want.values, rtol=1e-15, atol=1e-16)
    else:
        np.testing.assert_array_equal(got.values, want.values)
    xr.testing.assert_identical(got.copy(data=want.values), want)


class _CountingScheduler:
    """A scheduler that counts computes (as cf_xarray's ``raise_if_dask_computes``)."""

    def __init__(self, max_computes: int) -> None:
        self.total = 0
        self.max_computes = max_computes

    def __call__(self, dsk, keys, **kwargs):
        import dask

        self.total += 1
        if self.total > self.max_computes:
            raise RuntimeError(f"too many dask computes: {self.total} > {self.max_computes}")
        return dask.get(dsk, keys, **kwargs)


@contextlib.contextmanager
def raise_if_dask_computes(max_computes: int = 0):
    """Fail if the block computes dask data more than ``max_computes`` times."""
    import dask

    with dask.config.set(scheduler=_CountingScheduler(max_computes)):
        yield
