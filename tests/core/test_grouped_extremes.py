"""Grouped min / max on the numba engine: the counting pass keeps each group's
extreme keys (``_numba/grouped._nb_count_extremes``) instead of scattering and
selecting. The picks must be the NumPy engine's bit for bit (signed zeros, NaN
payloads under "totalorder", NaNs ranked by "smallest"/"largest"), with the same
missing masks, errors and empty groups, for every float width and ints."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nanaccess import NanPolicy
from nanaccess.core import _numba as NB
from nanaccess.core._numba import grouped as nbg
from nanaccess.core.grouped import grouped_stat
from nanaccess.errors import NaNError

pytestmark = pytest.mark.skipif(not NB.AVAILABLE, reason="numba not installed or disabled")

NAN_BITS = [0x7FF8000000000000, 0xFFF8000000000000, 0x7FF8000000000123,
            0xFFF0000000000001, 0x7FF0000000000007,  # signaling
            0x8000000000000000, 0x0000000000000000, 0x7FF0000000000000, 0xFFF0000000000000]


def _run(x, codes, ngroups, stat, policy, engine, missing):
    try:
        v, m = grouped_stat(x, codes, ngroups, stat, policy=policy, engine=engine,
                            missing=missing)
    except (NaNError, ValueError) as err:
        return type(err), str(err)
    return v.dtype, v.tobytes(), None if m is None else m.tobytes()


@settings(max_examples=150, deadline=None)
@given(data=st.data(), n=st.integers(0, 80), ngroups=st.integers(1, 7),
       dtype=st.sampled_from(["f8", "f4", "f2", "i8", "u1"]),
       policy=st.sampled_from(list(NanPolicy)), stat=st.sampled_from(["min", "max"]),
       with_missing=st.booleans())
def test_extremes_equal_the_numpy_engine(data, n, ngroups, dtype, policy, stat,
                                         with_missing):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    if dtype.startswith("f"):
        x = rng.normal(size=n).round(1).astype(dtype)
        special = rng.random(n) < 0.2
        bits = np.array(NAN_BITS, np.uint64)[rng.integers(0, len(NAN_BITS), n)]
        wide = bits.view(np.float64)
        with np.errstate(invalid="ignore"):
            if dtype == "f8":
                x[special] = wide[special]
            else:  # the same kinds at the narrow width (a quiet cast keeps sign/kind)
                x[special] = wide[special].astype(dtype)
    else:
        x = rng.integers(0, 200, n).astype(dtype)
    codes = rng.integers(-1, ngroups, n)
    missing = (rng.random(n) < 0.15) if with_missing else None
    x0 = x.copy()
    got = _run(x, codes, ngroups, stat, policy, "numba", missing)
    want = _run(x, codes, ngroups, stat, policy, "numpy", missing)
    assert got == want
    assert x.tobytes() == x0.tobytes()


def test_the_extremes_pass_serves_min_and_max(monkeypatch):
    # the selection (scatter + select) must not run for a min or a max
    def refuse(self, ranks):
        raise AssertionError("selected")

    monkeypatch.setattr(nbg.NumbaSelect, "__call__", refuse)
    rng = np.random.default_rng(3)
    x = rng.normal(size=200)
    x[::17] = np.nan
    codes = rng.integers(0, 9, 200)
    for stat, fn in (("min", np.nanmin), ("max", np.nanmax)):
        got, _ = grouped_stat(x, codes, 9, stat, policy="omit", engine="numba")
        want = [fn(x[codes == g]) for g in range(9)]
        assert got.tobytes() == np.array(want).tobytes()
    with pytest.raises(AssertionError, match="selected"):
        grouped_stat(x, codes, 9, "median", policy="omit", engine="numba")
