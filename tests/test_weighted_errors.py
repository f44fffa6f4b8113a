"""The weights' errors carry their facts as data (issue 13): ``WeightsValueError``.

Negative or infinite weights, and NaN / missing weights under an ordering policy, are
a :class:`nanaccess.errors.WeightsValueError` (a ``ValueError``) with ``what``,
``count``, ``position``, ``value`` and ``policy``; the adapters relabel it from
``position`` through :func:`nanaccess._labels.relabel_weights` (no message parsing).
"""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest

import nanaccess as na
from nanaccess._labels import IndexLocation, relabel_weights
from nanaccess.errors import NaNError, WeightsValueError


def _raised(fn, *args, **kwargs) -> BaseException:
    with pytest.raises(ValueError) as info:
        fn(*args, **kwargs)
    return info.value


@pytest.mark.parametrize("bad", [-2.0, np.inf, -np.inf])
@pytest.mark.parametrize("stat", ["median", "mean"])
def test_negative_or_infinite_weight_carries_position_and_value(bad, stat):
    w = np.array([[1.0, 1.0], [1.0, 1.0], [bad, 1.0], [bad, 1.0]])
    err = _raised(getattr(na, stat), np.ones((4, 2)), weights=w, axis=0, nan_policy="omit")
    assert type(err) is WeightsValueError
    assert (err.what, err.count, err.position, err.value, err.subject) == (
        "negative or infinite", 2, (2, 0), bad, "weights")
    assert str(err) == (f"weights must be non-negative and finite: 2 weight(s) are not "
                        f"(first at position (2, 0): {bad!r})")


@pytest.mark.parametrize("policy", ["smallest", "largest", "totalorder"])
def test_nan_weight_under_ordering_policy_carries_position_and_policy(policy):
    err = _raised(na.quantile, [1.0, 2.0, 3.0, 4.0], 0.3, weights=[1.0, 2.0, np.nan, np.nan],
                  nan_policy=policy)
    assert type(err) is WeightsValueError
    assert (err.what, err.count, err.position, err.policy) == ("NaN", 2, (2,), policy)
    assert str(err).startswith("weights holds 2 NaN values (first at position 2): a weight "
                               f"has no place in an order, so nan_policy='{policy}'")


def test_missing_weight_under_ordering_policy_carries_what():
    w = np.ma.masked_array([1.0, 1.0, 3.0], mask=[0, 1, 0])
    err = _raised(na.median, [1.0, 2.0, 3.0], weights=w, nan_policy="largest")
    assert (type(err), err.what, err.count, err.position) == (WeightsValueError, "missing",
                                                               1, (1,))
    assert "weights holds 1 missing value (first at position 1)" in str(err)


def test_nan_weight_under_raise_stays_a_nanerror():
    err = _raised(na.median, [1.0, 2.0, 3.0], weights=[1.0, np.nan, 1.0])
    assert type(err) is NaNError and err.subject == "weights" and err.position == (1,)


def test_pickling_keeps_every_field():
    err = WeightsValueError(what="NaN", count=3, position=(1, 2), subject="weights",
                            policy="largest", group="g")
    new = relabel_weights(err, "weights (column 'w')", lambda pos: f"row {pos[0]}")
    for e in (err, new, WeightsValueError(count=1, position=(4,), value=-1.5)):
        back = pickle.loads(pickle.dumps(e))
        assert type(back) is WeightsValueError and str(back) == str(e)
        assert vars(back) == vars(e)
    assert new.location == "row 1" and new.position == (1, 2) and new.group == "g"
    assert str(new).startswith("weights (column 'w') holds 3 NaN values (first at row 1)")


def test_relabel_weights_leaves_other_errors_alone():
    other = ValueError("weights of shape (2,) do not broadcast")
    data_err = NaNError(count=1, position=(0,))
    locate = IndexLocation(pd.Index(["a"]))
    assert relabel_weights(other, "w", locate) is other
    assert relabel_weights(data_err, "w", locate) is data_err


def test_relabel_does_not_read_the_message():
    """The label comes from ``position``: a message that names no position still gets
    the label (the old adapters parsed "position N" out of the text)."""
    err = WeightsValueError("weights are bad", count=1, position=(2,), value=-1.0)
    new = relabel_weights(err, "weights", IndexLocation(pd.Index(list("xyz"))))
    assert "(first at index 'z': -1.0)" in str(new)


def test_pandas_grouped_rows_map_positions_to_labels():
    df = pd.DataFrame({"g": [None, "a", None, "a", "b"], "x": [1.0, 2.0, 3.0, 4.0, 5.0],
                       "w": [1.0, 1.0, 1.0, np.inf, 1.0]}, index=list("pqrst"))
    with pytest.raises(WeightsValueError) as info:
        df.groupby("g").nanstats.mean(weights="w")
    err = info.value
    # the core saw rows q, s, t: position 1 of those is row 's'
    assert err.position == (1,) and err.location == "index 's'"
    assert err.subject == "weights (column 'w')" and err.value == np.inf
    assert str(err) == ("weights (column 'w') must be non-negative and finite: 1 weight(s) "
                        "are not (first at index 's': inf)")


def test_pandas_ordering_policy_label():
    s = pd.Series([1.0, 2.0, 3.0], index=list("abc"))
    with pytest.raises(WeightsValueError) as info:
        s.nanstats.median(weights=pd.Series([1.0, np.nan, 1.0], index=list("abc")),
                          nan_policy="smallest")
    assert info.value.location == "index 'b'" and info.value.policy == "smallest"


def test_xarray_label_from_position():
    xr = pytest.importorskip("xarray")
    da = xr.DataArray(np.ones((2, 3)), dims=("x", "t"), coords={"t": [10, 20, 30]})
    w = xr.DataArray([1.0, -1.0, 1.0], dims="t", coords={"t": [10, 20, 30]})
    with pytest.raises(WeightsValueError) as info:
        da.nanstats.median("t", weights=w)
    assert info.value.location == "t=20" and info.value.value == -1.0
