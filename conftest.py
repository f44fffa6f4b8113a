"""Root pytest configuration: shared by ``tests/`` and the package doctests.

Doctests (``--doctest-modules`` over ``nanaccess/``) get ``np``, ``pd``, ``xr`` and
``na`` (= ``nanaccess``) in their namespace, NumPy's legacy global random state is
seeded before each one, and matplotlib never opens a window.
"""

from __future__ import annotations

import os

os.environ.setdefault("MPLBACKEND", "Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
import xarray as xr  # noqa: E402

DOCTEST_SEED = 20240105


@pytest.fixture(autouse=True)
def _doctest_namespace(doctest_namespace: dict) -> None:
    import nanaccess

    np.random.seed(DOCTEST_SEED)
    doctest_namespace.update(
        np=np,
        pd=pd,
        xr=xr,
        na=nanaccess,
        rng=np.random.default_rng(DOCTEST_SEED),
    )


# xarray's own median/quantile (the references in the xarray tests) would JIT-compile
# numbagg once per worker (~30 s on 2 cores); the NumPy path gives the same numbers.
xr.set_options(use_numbagg=False, use_flox=False)
