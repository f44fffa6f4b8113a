"""Masked weights and masked data on the lazy weighted path (issue 13): the policy
covers them as in the eager path, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

import nanaccess as na

da = pytest.importorskip("dask.array")

_STATS = (("median", {}), ("quantile", {"q": [0.2, 0.9]}), ("mean", {}),
          ("var", {"ddof": 1}), ("sum", {}), ("median_low", {}))


def _data(seed: int = 7):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(10, 7))
    x[3, 1] = np.nan
    # totals beyond ddof + 1 in every cell (fractional frequency weights below that
    # raise TotalWeightError, issue 23; tests/core/test_weights_kind.py)
    w = 4 * rng.random((10, 7))
    wmask = np.zeros((10, 7), bool)
    wmask[[1, 6], [2, 4]] = True
    xmask = np.zeros((10, 7), bool)
    xmask[8, 5] = True
    return x, np.ma.masked_array(w, mask=wmask), xmask


def _same(lazy, eager) -> None:
    assert isinstance(lazy, da.Array)
    got = np.asarray(lazy.compute())
    want = np.asarray(eager)
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), (got, want)


@pytest.mark.parametrize("policy", ["omit", "propagate"])
@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize(("stat", "kw"), _STATS)
def test_masked_numpy_weights_follow_the_policy(stat, kw, axis, policy):
    x, w, _ = _data()
    eager = getattr(na, stat)(x, weights=w, axis=axis, nan_policy=policy, **kw)
    lazy = getattr(na, stat)(da.from_array(x, chunks=(4, 3)), weights=w, axis=axis,
                             nan_policy=policy, **kw)
    _same(lazy, eager)


@pytest.mark.parametrize(("stat", "kw"), _STATS)
def test_masked_dask_weights_and_masked_dask_data(stat, kw):
    x, w, xmask = _data(8)
    xm = np.ma.masked_array(x, mask=xmask)
    eager = getattr(na, stat)(xm, weights=w, axis=1, nan_policy="omit", **kw)
    lazy = getattr(na, stat)(da.from_array(xm, chunks=(4, 3)),
                             weights=da.from_array(w, chunks=(5, 7)), axis=1,
                             nan_policy="omit", **kw)
    _same(lazy, eager)


def test_masked_weights_change_the_result():
    """The masks are not ignored: dropping the masked pairs moves the median."""
    x = np.array([1.0, 2.0, 3.0, 4.0])
    w = np.ma.masked_array([1.0, 1.0, 1.0, 9.0], mask=[0, 0, 0, 1])
    lazy = na.median(da.from_array(x, chunks=2), weights=w, nan_policy="omit")
    assert float(lazy.compute()) == 2.0
    assert float(na.median(x, weights=w.data, nan_policy="omit")) == 4.0


def test_1d_masked_weights_along_an_axis():
    x, w, _ = _data(9)
    w1 = np.ma.masked_array(w.data[:, 0], mask=[0, 1, 0, 0, 0, 0, 0, 1, 0, 0])
    eager = na.median(x, weights=w1, axis=0, nan_policy="omit")
    _same(na.median(da.from_array(x, chunks=(4, 3)), weights=w1, axis=0, nan_policy="omit"),
          eager)


@pytest.mark.parametrize(("policy", "exc", "match"), [
    ("raise", na.NaNError, "weights holds .* missing value"),
    ("largest", ValueError, "weights holds .* missing value.*a weight has no place"),
])
def test_refusing_policies_raise_at_compute(policy, exc, match):
    x, w, _ = _data(10)
    lazy = na.median(da.from_array(x, chunks=(4, 3)), weights=w, axis=1, nan_policy="omit")
    lazy.compute()  # "omit" drops the masked pairs
    x = np.where(np.isnan(x), 0.0, x)
    lazy = na.median(da.from_array(x, chunks=(4, 3)), weights=w, axis=1, nan_policy=policy)
    with pytest.raises(exc, match=match):
        lazy.compute()
    with pytest.raises(exc, match=match):
        na.median(x, weights=w, axis=1, nan_policy=policy)


def test_masked_data_missing_under_raise():
    x, w, xmask = _data(11)
    x = np.where(np.isnan(x), 0.0, x)
    lazy = na.mean(da.from_array(np.ma.masked_array(x, mask=xmask), chunks=4),
                   weights=w.data, axis=0)
    with pytest.raises(na.NaNError, match="missing"):
        lazy.compute()
