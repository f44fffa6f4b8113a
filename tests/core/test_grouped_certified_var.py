"""Grouped float64 var / std without the separate NaN scan (issue 14's neighbour:
grouped var "omit" with pandas' ddof=1): ``certified_columns(..., ddof=...)`` answers
when the policy drops what the groups held; its values, missing masks and counts equal
the scan path's bit for bit under every policy and ddof.

The grouped entry (``core/grouped/entry.py``) passes the statistic's ``ddof`` for
var / std; the reference here is the same entry with ``ddof=None`` forced (variances
then stay on the scan path, as before the certified kernels served them).
"""

from __future__ import annotations

import numpy as np
import pytest
from test_grouped_certified import POLICIES, _data, _same

from nanaccess.core import _numba as NB
from nanaccess.core.grouped import entry, grouped_stat
from nanaccess.core.grouped.moments import certified_columns
from nanaccess.errors import NaNError

pytestmark = pytest.mark.skipif(not NB.AVAILABLE, reason="numba not installed or disabled")


def _run(x, codes, ngroups, stat, policy, ddof):
    counts: list = []
    try:
        v, m = grouped_stat(x, codes, ngroups, stat, policy=policy, ddof=ddof,
                            counts_out=counts)
    except (NaNError, ValueError, TypeError) as err:
        return (type(err), str(err), getattr(err, "position", None),
                getattr(err, "group", None), getattr(err, "count", None))
    return v, m, counts


def _spy(monkeypatch, calls, *, scan_only=False):
    """Record whether ``certified_columns`` answered; ``scan_only``: as before the
    certified variances (``ddof=None``: variances on the scan path)."""
    def wrapped(*args, ddof=None, **kwargs):
        got = certified_columns(*args, **kwargs, ddof=None if scan_only else ddof)
        calls.append(got is not None)
        return got

    monkeypatch.setattr(entry, "certified_columns", wrapped)


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("stat", ["var", "std"])
@pytest.mark.parametrize("ddof", [0, 1, 2, 0.5])
@pytest.mark.parametrize("kind,nan_groups", [("clean", 0), ("nan", 3), ("snan", 1)])
def test_equals_scan_path(monkeypatch, policy, stat, ddof, kind, nan_groups):
    x, codes = _data(7, 400, 12, nan_groups, kind)
    args = (x, codes, 12, stat, policy, ddof)
    with monkeypatch.context() as mp:
        _spy(mp, [], scan_only=True)
        scan = _run(*args)
    calls: list = []
    with monkeypatch.context() as mp:
        _spy(mp, calls)
        got = _run(*args)
    assert _same(got, scan)
    answered = ddof == int(ddof) and (
        kind == "clean" or (policy == "omit" and kind != "snan"))
    assert calls == [answered]


def test_without_ddof_variances_are_left_to_the_scan_path():
    x, codes = _data(3, 200, 5, 1, "nan")
    for stat in ("var", "std"):
        assert certified_columns(x[:, None], codes, 5, stat, "omit") is None


def test_single_row_groups_and_fallbacks(monkeypatch):
    """Groups of one row (``n - ddof <= 0``), constant groups (a zero variance) and
    cancellation: not certified, so the exact engine answers those groups."""
    rng = np.random.default_rng(5)
    codes = np.repeat(np.arange(6), [1, 2, 50, 50, 80, 1])
    x = rng.normal(size=codes.size)
    x[codes == 1] = 3.0
    x[codes == 3] = 1e8 + rng.integers(0, 3, size=50)
    x[np.flatnonzero(codes == 4)[:3]] = np.nan
    for ddof in (0, 1):
        for stat in ("var", "std"):
            args = (x, codes, 6, stat, "omit", ddof)
            with monkeypatch.context() as mp:
                _spy(mp, [], scan_only=True)
                scan = _run(*args)
            calls: list = []
            with monkeypatch.context() as mp:
                _spy(mp, calls)
                assert _same(_run(*args), scan)
            assert calls == [True]
