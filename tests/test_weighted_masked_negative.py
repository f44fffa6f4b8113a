"""A masked (missing) weight is missing whatever value hides under its mask (issue 13).

A pandas ``Float64`` NA or a NumPy masked entry keeps some number in its data buffer;
a negative one there must not make a ``ValueError`` of "negative weight": the policy
decides the missing weight ("omit" drops its pair, "raise" refuses it, "propagate"
makes the result missing), on the eager and the lazy (dask) paths alike.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import nanaccess as na
from nanaccess.errors import NaNError, WeightsValueError

X = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
HIDDEN = np.array([1.0, -7.0, 2.0, -np.inf, 1.0])  # hidden values under the mask
MASK = np.array([False, True, False, True, False])
KEPT = ~MASK


def _float64_na() -> pd.Series:
    arr = pd.arrays.FloatingArray(HIDDEN.copy(), MASK.copy())
    assert arr.isna().tolist() == MASK.tolist()  # the negative values really hide there
    return pd.Series(arr)


def _masked() -> np.ma.MaskedArray:
    return np.ma.masked_array(HIDDEN.copy(), mask=MASK.copy())


@pytest.mark.parametrize("make", [_float64_na, _masked])
@pytest.mark.parametrize(("stat", "kw"), [("median", {}), ("mean", {}),
                                          ("quantile", {"q": 0.3}), ("sum", {})])
def test_omit_drops_the_pair_whatever_hides(make, stat, kw):
    got = getattr(na, stat)(X, weights=make(), nan_policy="omit", **kw)
    want = getattr(na, stat)(X[KEPT], weights=HIDDEN[KEPT], nan_policy="omit", **kw)
    assert np.asarray(got).tobytes() == np.asarray(want).tobytes()


@pytest.mark.parametrize("make", [_float64_na, _masked])
def test_raise_refuses_the_missing_weight_not_its_value(make):
    with pytest.raises(NaNError) as info:
        na.median(X, weights=make(), nan_policy="raise")
    assert type(info.value) is not WeightsValueError
    assert info.value.subject == "weights" and info.value.position == (1,)


@pytest.mark.parametrize("make", [_float64_na, _masked])
def test_propagate_gives_a_missing_result(make):
    got = na.median(X, weights=make(), nan_policy="propagate")
    assert got is np.ma.masked or pd.isna(got)


def test_an_unmasked_negative_weight_still_fails():
    w = np.ma.masked_array(HIDDEN.copy(), mask=[False, False, False, True, False])
    with pytest.raises(WeightsValueError) as info:
        na.median(X, weights=w, nan_policy="omit")
    assert info.value.position == (1,) and info.value.value == -7.0


def test_series_accessor_with_nullable_weights():
    s = pd.Series(X)
    got = s.nanstats.median(weights=_float64_na(), nan_policy="omit")
    assert got == na.median(X[KEPT], weights=HIDDEN[KEPT])


def test_grouped_accessor_with_nullable_weight_column():
    df = pd.DataFrame({"k": [0, 0, 1, 1, 1], "v": X, "w": _float64_na()})
    got = df.groupby("k").nanstats.median(weights="w", nan_policy="omit")
    # group 0 keeps (1, weight 1); group 1 keeps (3, weight 2) and (5, weight 1): the
    # repeated data 3, 3, 5 has median 3
    assert got["v"].tolist() == [1.0, 3.0]


def test_dask_path_agrees():
    da = pytest.importorskip("dask.array")
    w = _masked()
    for chunks in (2, 5):
        lazy = na.median(da.from_array(X, chunks=chunks),
                         weights=da.from_array(w, chunks=chunks), nan_policy="omit")
        assert float(lazy.compute()) == na.median(X[KEPT], weights=HIDDEN[KEPT])
        with pytest.raises(NaNError):
            na.median(da.from_array(X, chunks=chunks), weights=da.from_array(w, chunks=chunks),
                      nan_policy="raise").compute()
