"""Errors of the lazy weighted path name the global count and first position (issue 13):
the same type, message and fields as the eager path on the same data, whatever the
chunking, when the first bad value sits in a later chunk and several chunks hold some."""

from __future__ import annotations

import numpy as np
import pytest

import nanaccess as na

da = pytest.importorskip("dask.array")

_FIELDS = ("count", "position", "value", "what", "subject", "kind", "group")


def _error(fn):
    with pytest.raises((na.NaNError, ValueError)) as info:
        out = fn()
        if hasattr(out, "compute"):
            out.compute()
    err = info.value
    return type(err), str(err), {f: getattr(err, f, None) for f in _FIELDS}


def _data(seed: int = 3):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(12, 10))
    w = rng.random((12, 10)) + 0.5
    return x, w


def _same(stat, x, w, axis, policy, chunks=(5, 4), wchunks=None, **kw):
    want = _error(lambda: getattr(na, stat)(x, weights=w, axis=axis, nan_policy=policy, **kw))
    lw = w if wchunks is None else da.from_array(w, chunks=wchunks)
    got = _error(lambda: getattr(na, stat)(da.from_array(x, chunks=chunks), weights=lw,
                                            axis=axis, nan_policy=policy, **kw))
    assert got == want
    return got


@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize("wchunks", [None, (7, 3)])
@pytest.mark.parametrize(("stat", "kw"), [("median", {}), ("quantile", {"q": [0.1, 0.7]}),
                                          ("mean", {})])
def test_nan_data_under_raise_names_the_global_first(stat, kw, axis, wchunks):
    x, w = _data()
    x[1, 1] = np.nan
    w[1, 1] = 0.0  # a zero weight drops the pair before the check: not the first
    x[7, 3] = np.nan  # the first counted, in the second row block
    x[11, 9] = x[9, 6] = np.nan  # more, in later blocks
    _, msg, fields = _same(stat, x, w, axis, "raise", wchunks=wchunks, **kw)
    assert fields["count"] == 3 and fields["position"] == (7, 3), msg


@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize("wchunks", [None, (7, 3), (12, 10)])
def test_nan_weights_under_raise_name_the_global_first(axis, wchunks):
    x, w = _data(4)
    w[8, 2] = np.nan
    w[10, 9] = w[11, 0] = np.nan
    x[3, 3] = np.nan  # data NaNs are checked after the weights
    kind, msg, fields = _same("median", x, w, axis, "raise", wchunks=wchunks)
    assert issubclass(kind, na.NaNError) and fields["subject"] == "weights"
    assert fields["count"] == 3 and fields["position"] == (8, 2), msg


@pytest.mark.parametrize("policy", ["omit", "propagate", "raise", "largest"])
@pytest.mark.parametrize("wchunks", [None, (5, 6)])
def test_negative_and_infinite_weights_name_the_global_first(policy, wchunks):
    x, w = _data(5)
    w[9, 7] = -1.5
    w[6, 8] = np.inf  # the first in C order, in a later block than (0, *)
    w[11, 1] = -3.0
    kind, msg, fields = _same("median", x, w, 1, policy, wchunks=wchunks)
    assert kind is na.WeightsValueError
    assert (fields["count"], fields["position"], fields["value"]) == (3, (6, 8), np.inf), msg


def test_one_dimensional_weights_along_an_axis_keep_their_own_positions():
    x, _ = _data(6)
    w = np.linspace(0.5, 2.0, 10)
    w[6], w[8] = -2.0, -1.0
    _, _, fields = _same("median", x, w, 1, "omit", chunks=(4, 3), wchunks=(3,))
    assert (fields["count"], fields["position"], fields["value"]) == (2, (6,), -2.0)
    ints = np.arange(1, 13)
    ints[[5, 9]] = -4
    _, _, fields = _same("median", x, ints, 0, "omit", chunks=(4, 3))
    assert (fields["count"], fields["position"], fields["value"]) == (2, (5,), -4)


def test_nan_weights_under_an_ordering_policy_are_a_value_error():
    x, w = _data(7)
    w[5, 9] = w[10, 2] = np.nan
    kind, msg, fields = _same("median", x, w, 0, "largest", wchunks=(6, 5))
    assert kind is na.WeightsValueError and fields["what"] == "NaN"
    assert fields["count"] == 2 and fields["position"] == (5, 9), msg


def test_masked_weights_and_masked_data_under_raise():
    x, w = _data(8)
    wm = np.zeros(w.shape, bool)
    wm[9, 4] = wm[10, 1] = True
    mw = np.ma.masked_array(w, mask=wm)
    _, _, fields = _same("median", x, mw, 1, "raise")
    assert fields["count"] == 2 and fields["position"] == (9, 4)
    xm = np.ma.masked_array(x, mask=np.zeros(x.shape, bool))
    xm[6, 7] = xm[11, 0] = np.ma.masked
    want = _error(lambda: na.median(xm, weights=w, axis=1, nan_policy="raise"))
    got = _error(lambda: na.median(da.from_array(xm, chunks=(5, 4)), weights=w, axis=1,
                                   nan_policy="raise"))
    assert got == want and got[2]["count"] == 2 and got[2]["position"] == (6, 7)


def test_a_part_of_the_result_raises_the_global_error():
    """Every block of the result raises the global first, even a block whose own
    data are clean."""
    x, w = _data(9)
    x[10, 5] = np.nan
    want = _error(lambda: na.median(x, weights=w, axis=1, nan_policy="raise"))
    lazy = na.median(da.from_array(x, chunks=(4, 10)), weights=w, axis=1,
                     nan_policy="raise")
    assert _error(lambda: lazy[:4]) == want


def test_clean_data_are_unchanged_by_the_records():
    x, w = _data(10)
    for policy in ("raise", "omit"):
        lazy = na.median(da.from_array(x, chunks=(5, 4)), weights=da.from_array(w, chunks=4),
                         axis=0, nan_policy=policy)
        eager = na.median(x, weights=w, axis=0, nan_policy=policy)
        assert np.asarray(lazy.compute()).tobytes() == np.asarray(eager).tobytes()
