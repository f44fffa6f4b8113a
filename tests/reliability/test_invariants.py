"""Invariants of the contract as properties (hypothesis).

Example counts come from the profile in ``tests/conftest.py`` (``HYPOTHESIS_PROFILE``:
"ci" by default, "nightly" for the long run); ``@settings`` here only lowers them for
the slower paths (dask).

* permutation invariance, bit for bit (spec section 7 / 3);
* "omit" equals the result on the NaN-free data;
* NaN-free data gives the reference result under every policy;
* no input is ever modified (raw bytes compared);
* the dask path equals the NumPy path bit for bit (section 6).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import nanaccess as na

POLICIES = [p.value for p in na.NanPolicy]
ORDER = ["median", "median_low", "median_high", "min", "max"]
MOMENT = ["mean", "var", "std", "sum"]
STATS = ORDER + ["quantile"] + MOMENT
DTYPES = [np.float64, np.float32, np.float16]


def _bits(x: object) -> bytes:
    a = np.asarray(x)
    return a.dtype.str.encode() + a.tobytes()


def _call(stat: str, data: object, **kw: object) -> object:
    if stat == "quantile":
        return na.quantile(data, 0.3, **kw)
    return getattr(na, stat)(data, **kw)


def _outcome(stat: str, data: object, **kw: object) -> object:
    """Bits of the result, or the exception type (both must be order independent)."""
    try:
        return _bits(_call(stat, data, **kw))
    except (na.NaNError, ValueError, TypeError) as err:
        return type(err).__name__


@st.composite
def float_arrays(draw: st.DrawFn, nan: bool = True) -> np.ndarray:
    dtype = draw(st.sampled_from(DTYPES))
    elems = st.floats(width=np.finfo(dtype).bits, allow_nan=nan, allow_infinity=True)
    arr = draw(hnp.arrays(dtype, st.integers(1, 40), elements=elems))
    if nan and draw(st.booleans()):
        # NaNs with payloads and signs (quiet only: signaling ones raise)
        k = draw(st.integers(0, arr.size - 1))
        payload = draw(st.integers(1, 2 ** (np.finfo(dtype).nmant - 1) - 1))
        arr[k] = na.make_nan(payload, negative=draw(st.booleans()), dtype=dtype)
    return arr


@given(float_arrays(), st.sampled_from(STATS), st.sampled_from(POLICIES), st.randoms())
def test_permutation_invariance_bit_for_bit(x, stat, policy, rnd) -> None:
    perm = np.array(rnd.sample(range(x.size), x.size))
    assert _outcome(stat, x, nan_policy=policy) == _outcome(stat, x[perm], nan_policy=policy)


@given(float_arrays(), st.sampled_from(STATS))
def test_omit_equals_nan_free_result(x, stat) -> None:
    clean = x[~np.isnan(x)]
    if clean.size == 0:
        got = _call(stat, x, nan_policy="omit")
        assert (got == 0) if stat == "sum" else np.isnan(got)
        return
    assert _outcome(stat, x, nan_policy="omit") == _outcome(stat, clean, nan_policy="omit")


def _reference(stat: str, x: np.ndarray) -> float:
    w = x.astype(np.float64)
    return {
        "median": lambda: np.median(x),
        "median_low": lambda: np.sort(x)[(x.size - 1) // 2],
        "median_high": lambda: np.sort(x)[x.size // 2],
        "min": lambda: x.min(),
        "max": lambda: x.max(),
        "quantile": lambda: np.quantile(x, 0.3),
        "mean": lambda: np.mean(w),
        "var": lambda: np.var(w),
        "std": lambda: np.std(w),
        "sum": lambda: np.sum(w),
    }[stat]()


@given(float_arrays(nan=False).filter(lambda a: np.isfinite(a).all()),
       st.sampled_from(STATS), st.sampled_from(POLICIES))
def test_nan_free_data_gives_reference_under_every_policy(x, stat, policy) -> None:
    with np.errstate(all="ignore"):
        ref = _reference(stat, x)
        got = _call(stat, x, nan_policy=policy)
    if not np.isfinite(ref):  # NumPy overflowed where nanaccess is exact (spec 4)
        return
    tol = {np.dtype(np.float64): 1e-12, np.dtype(np.float32): 1e-6}.get(x.dtype, 2e-3)
    if stat in ORDER:  # picked / midpoint: equal as numbers
        assert float(got) == pytest.approx(float(ref), rel=tol if stat == "median" else 0)
    else:
        assert float(got) == pytest.approx(float(ref), rel=tol, abs=tol * float(
            np.abs(x.astype(np.float64)).max() ** (2 if stat == "var" else 1)))
    # every policy agrees bit for bit
    assert _bits(got) == _bits(_call(stat, x, nan_policy="totalorder"))


@given(float_arrays(), st.sampled_from(STATS + ["sort", "argsort", "rank"]),
       st.sampled_from(POLICIES), st.booleans())
def test_input_never_modified(x, stat, policy, readonly) -> None:
    before = x.tobytes()
    if readonly:
        x.setflags(write=False)
    try:
        if stat in ("sort", "argsort", "rank"):
            getattr(na, stat)(x, nan_policy=policy)
        else:
            _call(stat, x, nan_policy=policy)
    except (na.NaNError, ValueError, TypeError):
        pass
    assert x.tobytes() == before


@settings(max_examples=15, suppress_health_check=[HealthCheck.too_slow])
@given(float_arrays(), st.sampled_from(STATS), st.sampled_from(POLICIES),
       st.integers(1, 7))
def test_dask_path_equals_numpy_path(x, stat, policy, chunk) -> None:
    da = pytest.importorskip("dask.array")
    lazy = da.from_array(x, chunks=chunk)
    want = _outcome(stat, x, nan_policy=policy)
    try:
        got = _bits(np.asarray(_call(stat, lazy, nan_policy=policy).compute(
            scheduler="synchronous")))
    except (na.NaNError, ValueError, TypeError) as err:
        got = type(err).__name__
    assert got == want
