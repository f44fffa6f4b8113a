"""Grouped float64 sum / mean without the separate NaN scan (issue 14): the certified
kernel skips the NaNs itself and its flags decide, through the policy, whether its
answer stands; otherwise the scan-then-reduce path answers. Either way the values,
missing masks, counts and errors equal the scan path's, under every policy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nanaccess.core import _numba as NB
from nanaccess.core.exactsum import certified, compiled
from nanaccess.core.grouped import entry, grouped_stat
from nanaccess.errors import NaNError
from nanaccess.options import NanPolicy, option_context

pytestmark = pytest.mark.skipif(not NB.AVAILABLE, reason="numba not installed or disabled")

POLICIES = [p.value for p in NanPolicy]
SNAN = np.array([0x7FF0000000000001], dtype=np.uint64).view(np.float64)[0]
QNAN_NEG = np.array([0xFFF8000000000123], dtype=np.uint64).view(np.float64)[0]


@pytest.fixture
def spy(monkeypatch):
    """Counts the calls in which the certified columns answered."""
    calls = {"answered": 0}
    real = entry.certified_columns

    def wrapped(*args, **kwargs):
        got = real(*args, **kwargs)
        calls["answered"] += got is not None
        return got

    monkeypatch.setattr(entry, "certified_columns", wrapped)
    return calls


def _run(x, codes, ngroups, stat, policy):
    """(values, missing, counts) or the error's (type, message, position, group, count)."""
    counts: list = []
    try:
        v, m = grouped_stat(x, codes, ngroups, stat, policy=policy, counts_out=counts)
    except (NaNError, ValueError, TypeError) as err:
        return (type(err), str(err), getattr(err, "position", None),
                getattr(err, "group", None), getattr(err, "count", None))
    return v, m, counts


def _scan_path(monkeypatch, *args):
    with monkeypatch.context() as mp:
        mp.setattr(entry, "certified_columns", lambda *a, **k: None)
        return _run(*args)


def _numpy_engine(*args):
    with option_context(engine="numpy"):
        return _run(*args)


def _same(a, b) -> bool:
    if isinstance(a[0], type) or isinstance(b[0], type):
        return a == b
    (va, ma, ca), (vb, mb, cb) = a, b
    if va.dtype != vb.dtype or va.shape != vb.shape or va.tobytes() != vb.tobytes():
        return False
    if (ma is None) != (mb is None) or (ma is not None and not np.array_equal(ma, mb)):
        return False
    return len(ca) == len(cb) and all(np.array_equal(p, q) for p, q in zip(ca, cb, strict=True))


def _data(seed: int, n: int, ngroups: int, nan_groups: int, kind: str, ncols: int = 1,
          first: int = 3):
    """Values with NaNs (``kind``: "nan", "snan", "none") in ``nan_groups`` groups from
    ``first`` on (1 and 2: the hard groups, which the exact engine takes), two hard
    groups (zeros, cancellation) and some rows in no group."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(-1, ngroups, size=n)
    x = rng.normal(size=(n, ncols)) * 10.0 ** rng.integers(-3, 4, size=(n, ncols))
    x[codes == 1] = 0.0  # group 1: zeros, some negative
    x[(codes == 1) & (rng.random(n) < 0.5)] = -0.0
    hard = np.flatnonzero(codes == 2)
    if hard.size >= 3:  # group 2: heavy cancellation (the exact engine's case)
        x[hard[:3]] = np.array([1e300, 1.0, -1e300])[:, None]
    for g in range(nan_groups):
        rows = np.flatnonzero(codes == g + first)[:2]
        if kind != "none" and rows.size:
            x[rows[0]] = QNAN_NEG if kind == "nan" else SNAN
            if rows.size > 1:
                x[rows[1]] = np.nan
    if kind != "clean":  # NaNs outside every group never count
        x[codes == -1] = np.where(rng.random(((codes == -1).sum(), ncols)) < 0.3, np.nan,
                                  x[codes == -1])
    if kind == "snan" and not nan_groups:  # a signaling NaN outside every group
        out = np.flatnonzero(codes == -1)
        if out.size:
            x[out[0]] = SNAN
    return (x[:, 0] if ncols == 1 else x), codes


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("stat", ["sum", "mean"])
@pytest.mark.parametrize("kind,nan_groups", [("clean", 0), ("none", 0), ("nan", 1),
                                             ("nan", 3), ("snan", 1), ("snan", 0)])
def test_equals_scan_path(monkeypatch, spy, policy, stat, kind, nan_groups):
    x, codes = _data(7, 400, 12, nan_groups, kind)
    args = (x, codes, 12, stat, policy)
    got = _run(*args)
    assert _same(got, _scan_path(monkeypatch, *args))
    assert _same(got, _numpy_engine(*args))
    # the certified columns answer when the policy drops what the groups held (a
    # signaling NaN is dropped silently by no policy: "omit" raises, "totalorder" ranks
    # it; NaNs outside every group are not seen); a policy that refuses NaNs looks at
    # the whole column first (any NaN: the scan path, without the kernel's pass)
    held = kind not in ("none", "clean") and nan_groups > 0
    dropped = kind == "clean" or (policy == "omit" and not (held and kind == "snan"))
    assert spy["answered"] == int(dropped)


@pytest.mark.parametrize("policy", POLICIES)
def test_two_columns_and_hard_groups_fall_back(monkeypatch, spy, policy):
    monkeypatch.setattr(certified, "MIN_SIZE", 0)
    monkeypatch.setattr(compiled, "MIN_SIZE", 0)
    x, codes = _data(11, 300, 6, 3, "nan", ncols=2, first=1)
    certified.reset_stats()
    for stat in ("sum", "mean"):
        args = (x, codes, 6, stat, policy)
        got = _run(*args)
        assert _same(got, _scan_path(monkeypatch, *args))
        assert _same(got, _numpy_engine(*args))
    if policy == "omit":
        assert spy["answered"] == 2  # (two statistics, each call once)
        assert certified.stats()["fallback"] > 0  # the hard groups took the exact engine


def test_raise_message_names_the_group_and_position(monkeypatch):
    x, codes = _data(5, 200, 8, 1, "nan")
    got = _run(x, codes, 8, "mean", "raise")
    assert got[0] is NaNError and got[3] == 3 and "group 3" in got[1]
    assert got == _scan_path(monkeypatch, x, codes, 8, "mean", "raise")


def test_signaling_nan_raises_under_omit(monkeypatch):
    x, codes = _data(5, 200, 8, 1, "snan")
    got = _run(x, codes, 8, "sum", "omit")
    assert issubclass(got[0], NaNError) and "signaling" in got[1]
    assert got == _scan_path(monkeypatch, x, codes, 8, "sum", "omit")


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), ngroups=st.integers(1, 40),
       nan_groups=st.integers(0, 3), kind=st.sampled_from(["none", "nan", "snan"]),
       stat=st.sampled_from(["sum", "mean"]), policy=st.sampled_from(POLICIES),
       n=st.integers(65, 500))
def test_property_equals_scan_path(seed, ngroups, nan_groups, kind, stat, policy, n):
    x, codes = _data(seed, n, ngroups, nan_groups, kind)
    args = (x, codes, ngroups, stat, policy)
    with pytest.MonkeyPatch.context() as mp:
        assert _same(_run(*args), _scan_path(mp, *args))
