"""Issue 25 (reliability round 3), the core-semantics classes: one regression per
class (8 weights, 9 float32 quantiles, 10 temporal means, 11 describe, 15 odd values,
16 conventions) and their neighbours on the other hosts, dtypes and shapes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import nanaccess as na

ENGINES = ["numpy", "numba"]


# ------------------------------------------- 9. float32 quantile with a scalar q


def _f32_cases():
    rng = np.random.default_rng(9)
    return [((rng.random(int(rng.integers(2, 12))) * 100).astype(np.float32),
             float(rng.random())) for _ in range(200)]


def test_float32_scalar_q_matches_numpy_flat():
    x = np.array([1.3, 7.9, 2.2, 5.1], np.float32)
    # 1 - t in float64 then cast, as NumPy: 1 - float32(t) is an ulp off here
    bad = [(v, q) for v, q in _f32_cases()
           if na.quantile(v, q, nan_policy="omit") != np.quantile(v, q)]
    assert bad == []
    for q in np.linspace(0, 1, 41).tolist():
        got = na.quantile(x, q, nan_policy="omit")
        assert got.dtype == np.float32 and got == np.quantile(x, q)


@pytest.mark.parametrize("engine", ENGINES)
def test_float32_scalar_q_matches_numpy_on_every_host(engine):
    import dask.array as da

    import nanaccess.pandas  # noqa: F401

    with na.set_options(engine=engine):
        for v, q in _f32_cases()[:40]:
            ref = np.quantile(v, q)
            n = v.size
            hosts = {
                "rows": na.quantile(np.tile(v, (3, 1)), q, axis=1, nan_policy="omit")[1],
                "series": pd.Series(v).nanstats.quantile(q, nan_policy="omit"),
                "groupby": pd.Series(v).groupby(np.zeros(n, int)).nanstats.quantile(
                    q, nan_policy="omit").iloc[0],
                "rolling": pd.Series(v).rolling(n).nanstats.quantile(
                    q, nan_policy="omit").iloc[-1],
                "dask": na.quantile(da.from_array(v, chunks=3), q,
                                    nan_policy="omit").compute(),
            }
            assert {k: np.float32(g) for k, g in hosts.items()} == \
                {k: ref for k in hosts}, (v, q)


def test_float16_scalar_q_matches_numpy():
    for v, q in _f32_cases()[:60]:
        v = v.astype(np.float16)
        assert na.quantile(v, q, nan_policy="omit") == np.quantile(v, q)
