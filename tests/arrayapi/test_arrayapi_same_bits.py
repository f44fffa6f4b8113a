"""Every statistic of the table on array-API data: NumPy's bits, the caller's type.

Each case runs the same statistic on NumPy data through :func:`nanaccess.core.reduce.reduce`
(the reference) and on the library's array through the boundary
(``nanaccess.<stat>``), then compares dtype, shape and bits, or the error's type and
message. A counter on the host fallback checks that float order statistics and
moments really ran on the device engines.
"""

from __future__ import annotations

import numpy as np
import pytest

import nanaccess as na
from nanaccess import _stats
from nanaccess.arrayapi import reduce as xreduce
from nanaccess.core.reduce import reduce
from nanaccess.options import NanPolicy

from .helpers import messy, same_bits

POLICIES = [p.value for p in NanPolicy]
METHODS = ["linear", "lower", "higher", "nearest", "midpoint", "inverted_cdf",
           "averaged_inverted_cdf", "closest_observation", "interpolated_inverted_cdf",
           "hazen", "weibull", "median_unbiased", "normal_unbiased"]


def _params(stat: str) -> list[dict]:
    if stat == "quantile":
        return [{"q": 0.3, "method": m} for m in METHODS] + [{"q": [0.0, 0.25, 0.5, 1.0]}]
    if stat in ("var", "std"):
        return [{"ddof": 0}, {"ddof": 1}, {"ddof": 1.5}]
    if stat == "iqr":
        return [{}, {"rng": (10, 90), "method": "nearest"}]
    if stat == "mad":
        return [{}, {"scale": "normal"}]
    return [{}]


@pytest.fixture
def host_calls(monkeypatch):
    """How often the host fallback answered."""
    calls = []
    real = xreduce.host_reduce

    def counted(*a, **k):
        calls.append(a[1])
        return real(*a, **k)

    monkeypatch.setattr(xreduce, "host_reduce", counted)
    return calls


def _reference(x, stat, axis, policy, params):
    try:
        return reduce(x, stat, axis=axis, policy=NanPolicy(policy), **params).values, None
    except Exception as err:  # noqa: BLE001 - the same error is expected
        return None, err


def _check(lib, x, stat, axis, policy, params):
    want, err = _reference(x, stat, axis, policy, params)
    fn = lib.fn(stat)
    if err is not None:
        with pytest.raises(type(err)) as got:
            fn(lib.asarray(x), axis=axis, nan_policy=policy, **params)
        assert str(got.value) == str(err)
        return "error"
    r = fn(lib.asarray(x), axis=axis, nan_policy=policy, **params)
    lib.check_type(r)
    back = lib.back(r)
    assert same_bits(back, np.asarray(want)), (stat, axis, policy, params, back, want)
    return "ok"


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("stat", list(_stats.STATISTICS))
@pytest.mark.parametrize("nans", ["none", "quiet", "signaling", "all"])
def test_every_statistic_every_policy(lib, host_calls, dtype, stat, nans):
    x = messy(dtype, (4, 9), seed=len(stat) + 7 * len(nans), nans=nans)
    device_family = _stats.get(stat).family in ("order", "arg", "moment", "count") \
        or stat == "iqr" or (stat == "mad" and nans == "none")
    for policy in POLICIES:
        for axis in (None, 0, 1, (0, 1)):
            every = _params(stat)  # every method / ddof along the rows of unequal counts
            for params in every if axis == 1 else every[:1] + every[-1:]:
                before = len(host_calls)
                outcome = _check(lib, x, stat, axis, policy, params)
                if device_family and outcome == "ok":
                    assert len(host_calls) == before, (stat, policy, axis, "ran on the host")


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("stat", ["median", "quantile", "min", "max", "sum", "mean", "var", "std"])
def test_one_dimensional_wide_values(lib, dtype, stat):
    """Infinities, huge values and subnormals (squares beyond the split: the host)."""
    x = messy(dtype, (41,), seed=3, nans="quiet", wide=True)
    for policy in POLICIES:
        for params in _params(stat):
            _check(lib, x, stat, None, policy, params)


@pytest.mark.parametrize("stat", ["median", "quantile", "sum", "var", "max"])
def test_three_dimensional_axes_keepdims(lib, stat):
    x = messy("float64", (3, 4, 5), seed=11, nans="quiet")
    params = _params(stat)[-1]
    for axis in ((0, 2), (2, 0), 1, (-1,)):
        want = reduce(x, stat, axis=axis, policy=NanPolicy.OMIT, keepdims=True,
                      **params).values
        got = lib.fn(stat)(lib.asarray(x), axis=axis, nan_policy="omit", keepdims=True,
                           **params)
        assert same_bits(lib.back(got), want)


def test_full_reduction_is_a_zero_d_array(lib):
    x = lib.asarray(np.array([3.0, 1.0, 2.0]))
    r = lib.fn("median")(x)
    lib.check_type(r)
    assert lib.back(r).shape == ()
    assert float(lib.back(r)) == 2.0


def test_payload_and_negative_nan_kept_by_propagate(lib):
    from .helpers import nan_of

    for dtype in ("float64", "float32"):
        neg = nan_of(dtype, "negpayload")
        pos = nan_of(dtype, "payload")
        x = np.array([1.0, neg, 2.0], dtype=dtype)
        for stat in ("median", "sum", "mean", "max", "std"):
            got = lib.back(lib.fn(stat)(lib.asarray(x), nan_policy="propagate"))
            assert same_bits(got, np.array(neg, dtype=dtype)), stat
        x = np.array([neg, 1.0, pos], dtype=dtype)  # the greater NaN under totalOrder
        got = lib.back(lib.fn("median")(lib.asarray(x), nan_policy="propagate"))
        assert same_bits(got, np.array(pos, dtype=dtype))


def test_signaling_nan_raises_except_totalorder(lib):
    from .helpers import nan_of

    x = np.array([1.0, nan_of("float64", "snan"), 2.0])
    for policy in ("omit", "propagate", "smallest", "largest"):
        with pytest.raises(na.SignalingNaNError):
            lib.fn("median")(lib.asarray(x), nan_policy=policy)
    got = lib.back(lib.fn("max")(lib.asarray(x), nan_policy="totalorder"))
    assert same_bits(got, x[1])


def test_int_and_bool_data_take_the_host(lib):
    if lib.name == "strict":
        import array_api_strict as xp

        x = xp.asarray([3, 1, 2, 7], dtype=xp.int64)
    else:
        x = lib.asarray(np.array([3, 1, 2, 7], dtype=np.int64))
    assert int(lib.back(lib.fn("median_low")(x))) == 2
    assert float(lib.back(lib.fn("mean")(x))) == 3.25
    if lib.name == "strict":
        return  # the standard has no float16
    h = np.array([1.5, -0.0, np.nan, 2.5], dtype=np.float16)  # float16: the host too
    for stat in ("median", "max", "sum"):
        want = reduce(h, stat, policy=NanPolicy.OMIT).values
        got = lib.fn(stat)(lib.asarray(h), nan_policy="omit")
        lib.check_type(got)
        assert same_bits(lib.back(got), want), stat


def test_weights_on_the_host(lib):
    x = np.array([1.0, 2.0, 3.0, np.nan])
    w = np.array([1.0, 0.0, 3.0, 1.0])
    want = reduce(x, "mean", policy=NanPolicy.OMIT, weights=w).values
    got = lib.fn("mean")(lib.asarray(x), weights=lib.asarray(w), nan_policy="omit")
    lib.check_type(got)
    assert same_bits(lib.back(got), want)


def test_unknown_keyword_is_a_type_error(lib):
    with pytest.raises(TypeError):
        lib.fn("median")(lib.asarray(np.array([1.0])), q=0.5)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("data", ["messy", "ties", "wide"])
def test_histogram_selection_of_one_long_row(lib, monkeypatch, dtype, data):
    """The histogram step (used from 2**20 elements) on short rows: every policy, the
    even-median pair, far-apart quantiles, a bucket holding every key."""
    from nanaccess.arrayapi import order

    monkeypatch.setattr(order, "HIST_MIN", 0)
    used = []
    real = order._hist_select
    monkeypatch.setattr(order, "_hist_select", lambda *a: used.append(1) or real(*a))
    if data == "ties":
        x = np.full(40, 2.5, dtype=dtype)
        x[::7] = np.nan
    else:
        x = messy(dtype, (60,), seed=21, nans="quiet", wide=data == "wide")
    for policy in POLICIES:
        for stat, params in (("median", {}), ("median_low", {}), ("max", {}),
                             ("quantile", {"q": [0.0, 0.01, 0.5, 0.51, 0.99, 1.0]}),
                             ("quantile", {"q": 0.3, "method": "nearest"})):
            _check(lib, x, stat, None, policy, params)
            _check(lib, x[:-1], stat, None, policy, params)  # odd and even counts
    assert used or lib.name == "strict"  # the standard has no bincount: a sort there


def test_boundary_sends_array_api_data_through_one_door(monkeypatch):
    """host_of names array-API arrays; NumPy arrays keep the NumPy core."""
    import array_api_strict as xp

    from nanaccess import _boundary
    from nanaccess.arrayapi import reduce as door

    assert _boundary.host_of(xp.asarray([1.0])) == "arrayapi"
    assert _boundary.host_of(np.array([1.0])) == "array"
    seen = []
    real = door.reduce_xp
    monkeypatch.setattr(door, "reduce_xp", lambda *a, **k: seen.append(a[1]) or real(*a, **k))
    na.quantile(xp.asarray([1.0, 2.0]), 0.5, nan_policy="omit")
    na.quantile(np.array([1.0, 2.0]), 0.5, nan_policy="omit")
    assert seen == ["quantile"]
