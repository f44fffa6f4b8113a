"""A few long rows (a DataFrame's columns) select row by row (``core.select._gather``):
the same bits as the shared rank-window path, and NumPy's ``nanmedian``/``nanquantile``."""

from __future__ import annotations

import numpy as np
import pytest

import nanaccess as na
from nanaccess.core import select

POLICIES = ["omit", "propagate", "smallest", "largest", "totalorder"]
CASES = [("median", {}), ("quantile", {"q": 0.9}), ("quantile", {"q": [0.1, 0.5, 0.75]}),
         ("quantile", {"q": 0.3, "method": "midpoint"}), ("median_low", {}), ("median_high", {})]


def _data(rows: int, n: int, dtype: str) -> np.ndarray:
    rng = np.random.default_rng(rows * 7 + n)
    x = rng.standard_normal((rows, n)).astype(dtype)
    for r in range(rows):  # NaN counts differ by row: the rows' ranks differ
        x[r, rng.random(n) < 0.002 * (r + 1)] = np.nan
    x[0, :5] = -np.nan
    return x


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_long_rows_match_the_window_path(monkeypatch, policy, dtype):
    x = _data(4, select._LONG_ROW + 17, dtype)
    got = {(s, str(kw)): getattr(na, s)(x, axis=1, nan_policy=policy, **kw) for s, kw in CASES}
    monkeypatch.setattr(select, "_FEW_ROWS", 0)
    for s, kw in CASES:
        want = getattr(na, s)(x, axis=1, nan_policy=policy, **kw)
        g = got[(s, str(kw))]
        assert g.dtype == want.dtype and g.tobytes() == want.tobytes(), (s, kw)


@pytest.mark.parametrize("rows", [1, 3, select._FEW_ROWS, select._FEW_ROWS + 1])
def test_long_rows_match_numpy(rows):
    x = _data(rows, select._LONG_ROW, "float64")
    np.testing.assert_array_equal(na.median(x, axis=1, nan_policy="omit"),
                                  np.nanmedian(x, axis=1))
    np.testing.assert_array_equal(na.quantile(x, [0.25, 0.9], axis=1, nan_policy="omit"),
                                  np.nanquantile(x, [0.25, 0.9], axis=1))
