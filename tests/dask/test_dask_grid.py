"""Exact moments along an axis of gridded dask data (issue 30).

* float32 / float16 results are the exact value rounded **once** (before, the dask
  partials were rounded to float64 and then again to float32: ``sum(float32 [1,
  2**-24, 2**-80])`` gave 1.0 instead of 1.0000001); checked against Fraction
  references built to sit next to a float32 midpoint.
* The reduced axis whole in every chunk: one task per chunk runs the in-memory tiled
  engine (:mod:`nanaccess.dask.grid`), equal to the core bit for bit, lazy, every
  policy, C and F order, axis 0 and -1; the reduced axis across chunks: the exact
  partials, equal to the core as well.
"""

from __future__ import annotations

from fractions import Fraction

import dask
import dask.array as da
import numpy as np
import pytest

import nanaccess.dask.final as final_mod
import nanaccess.dask.moments as moments_mod
from nanaccess.core import _numba as nb
from nanaccess.core.moments import moment_stat
from nanaccess.dask.array import dask_moment_stat
from nanaccess.errors import NaNError
from nanaccess.options import option_context

POLICIES = ["raise", "propagate", "omit", "smallest", "largest", "totalorder"]
STATS = ["sum", "mean", "var", "std", "count"]


@pytest.fixture(autouse=True)
def _sync_scheduler():
    with dask.config.set(scheduler="sync"):
        yield


def _bits(a) -> np.ndarray:
    a = np.asarray(a)
    return a.view(f"u{a.itemsize}") if a.dtype.kind == "f" else a


def assert_same(got, want) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype)
    assert np.array_equal(_bits(got), _bits(want)), f"\n got: {got!r}\nwant: {want!r}"


def round_once(q: Fraction, dtype) -> float:
    """``q`` rounded once to ``dtype``, half-even, by exact comparisons."""
    dt = np.dtype(dtype).type
    c = dt(float(q))  # within one ulp of the answer
    best = None
    for cand in (np.nextafter(c, dt(-np.inf)), c, np.nextafter(c, dt(np.inf))):
        err = abs(Fraction(float(cand)) - q)
        even = int(np.asarray(cand).view(f"u{np.dtype(dtype).itemsize}")) % 2 == 0
        if best is None or err < best[0] or (err == best[0] and even):
            best = (err, cand)
    return float(best[1])


def midpoint_rows(dtype, rng) -> np.ndarray:
    """Rows whose exact sum (and mean: four values) sits a hair off a ``dtype``
    midpoint, so rounding to float64 first lands on the midpoint: 1, half an ulp of 1,
    and a tiny nudge of either sign (which float64 cannot hold next to 1)."""
    eps = float(np.finfo(dtype).eps)
    tiny = float(np.finfo(dtype).tiny) if dtype == np.float16 else 2.0**-80
    rows = []
    for _ in range(12):
        big = float(rng.choice([1.0, 2.0, 0.5, -1.0, 3.0]))
        rows.append(
            [big, big * eps / 2 * (1 if big != 3.0 else 2), float(rng.choice([tiny, -tiny])), 0.0]
        )
    return np.array(rows, dtype=dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("chunks", [(3, 2), (3, 4)])  # across the axis / whole in chunks
def test_narrow_moments_rounded_once(dtype, chunks):
    rng = np.random.default_rng(30)
    x = midpoint_rows(dtype, rng)
    dx = da.from_array(x, chunks=chunks)
    for stat in ["sum", "mean"]:
        got = dask_moment_stat(dx, stat, axis=1, policy="omit").compute()
        exact = [sum((Fraction(float(v)) for v in row), Fraction(0)) for row in x]
        if stat == "mean":
            exact = [e / x.shape[1] for e in exact]
        want = np.array([round_once(e, dtype) for e in exact], dtype=dtype)
        assert_same(got, want)
        assert_same(got, moment_stat(x, stat, axis=1, policy="omit")[0])
    # the case of the note: float64 first gives 1.0
    one = np.array([1, 2**-24, 2**-80], dtype=np.float32)
    for ch in (2, 3):
        assert float(dask_moment_stat(da.from_array(one, chunks=ch), "sum").compute()) == float(
            np.float32(1) + np.float32(2**-23)
        )


def test_narrow_var_std_match_fraction():
    """float32 var / std from the exact variance, rounded once (std: the correctly
    rounded square root, checked by exact squares), both dask paths."""
    rng = np.random.default_rng(31)
    x = (rng.standard_normal((64, 9)) * 2.0 ** rng.integers(-8, 8, (64, 9))).astype("f4")
    x[rng.random(x.shape) < 0.1] = np.nan
    for chunks in [(64, 3), (16, 3)]:
        dx = da.from_array(x, chunks=chunks)
        var = dask_moment_stat(dx, "var", axis=0, ddof=1, policy="omit").compute()
        std = dask_moment_stat(dx, "std", axis=0, ddof=1, policy="omit").compute()
        for j in range(x.shape[1]):
            col = [Fraction(float(v)) for v in x[:, j] if not np.isnan(v)]
            n = len(col)
            mu = sum(col, Fraction(0)) / n
            v = sum(((c - mu) ** 2 for c in col), Fraction(0)) / (n - 1)
            assert float(var[j]) == round_once(v, np.float32)
            s = Fraction(float(std[j]))
            up = Fraction(float(np.nextafter(std[j], np.float32(np.inf))))
            dn = Fraction(float(np.nextafter(std[j], np.float32(0))))
            assert ((s + dn) / 2) ** 2 <= v <= ((s + up) / 2) ** 2
        assert_same(var, moment_stat(x, "var", axis=0, ddof=1, policy="omit")[0])
        assert_same(std, moment_stat(x, "std", axis=0, ddof=1, policy="omit")[0])


def grid(rng, shape, dtype, order):
    """Gridded data: NaN over "land" (every time step), scattered NaN, NaN from
    arithmetic, signed zeros, a few infinities."""
    a = rng.standard_normal(shape).astype(dtype)
    a[:, rng.random(shape[1:]) < 0.3] = np.nan
    a[rng.random(shape) < 0.02] = -0.0
    with np.errstate(invalid="ignore"):
        a[rng.random(shape) < 0.01] = np.float64(np.inf) - np.float64(np.inf)
    a[0, 0, 0] = np.inf
    return np.asfortranarray(a) if order == "F" else np.ascontiguousarray(a)


@pytest.mark.parametrize("dtype", ["f4", "f8"])
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("axis", [0, -1])
@pytest.mark.parametrize("layout", ["whole", "split", "regrid"])
def test_grid_equals_core(dtype, order, axis, layout):
    """``whole``: the reduced axis in one chunk (per-chunk engine); ``split``: across
    small chunks (the exact partials); ``regrid``: across chunks large enough to be
    rechunked with the axis whole (the per-chunk engine after a bounded rechunk)."""
    rng = np.random.default_rng(hash((dtype, order, axis, layout)) % 2**32)
    shape = (40, 20, 30) if layout == "regrid" else (40, 6, 11)
    x = grid(rng, shape, dtype, order)
    n = x.shape[axis]
    chunks = list(shape) if layout == "regrid" else [20, 3, 6]
    chunks[axis] = n if layout == "whole" else n // 4 if layout == "regrid" else n // 2
    dx = da.from_array(x, chunks=tuple(chunks))
    layers = str(dict(dask_moment_stat(dx, "mean", axis=axis, policy="omit").dask.layers))
    assert ("rechunk" in layers) == (layout == "regrid")
    for i, stat in enumerate(STATS):
        for policy in POLICIES[i % 2 :: 2] if stat != "count" else POLICIES[1:]:
            ddof = 1 if stat in ("var", "std") and policy == "omit" else 0
            try:
                want, _ = moment_stat(x, stat, axis=axis, ddof=ddof, policy=policy)
            except NaNError as err:
                r = dask_moment_stat(dx, stat, axis=axis, ddof=ddof, policy=policy)
                with pytest.raises(NaNError) as got_err:
                    r.compute()
                assert str(got_err.value) == str(err)
                continue
            got = dask_moment_stat(dx, stat, axis=axis, ddof=ddof, policy=policy)
            assert_same(got.compute(), want)
            kept = dask_moment_stat(
                dx, stat, axis=axis, ddof=ddof, policy=policy, keepdims=True
            ).compute()
            assert_same(kept, np.expand_dims(want, axis))


@pytest.mark.skipif(not nb.AVAILABLE, reason="the tiled pass is a numba kernel")
def test_grid_is_one_pass_per_chunk_and_lazy(monkeypatch):
    """Whole reduced axes: no exact partials, no separate NaN scan under omit, nothing
    computed when the graph is built; the data are not modified."""
    rng = np.random.default_rng(3)
    x = grid(rng, (50, 8, 12), "f4", "C")
    before = x.copy()
    dx = da.from_array(x, chunks=(50, 4, 6))

    def boom(*a, **k):
        raise AssertionError("not on this path")

    monkeypatch.setattr(moments_mod, "_moment_chunk", boom)
    monkeypatch.setattr(final_mod, "block_record", boom)
    with dask.config.set(scheduler=boom):  # any compute at build time fails
        r = dask_moment_stat(dx, "mean", axis=0, policy="omit")
    with option_context(engine="numba", compile="foreground"):
        got = r.compute()
    assert_same(got, moment_stat(x, "mean", axis=0, policy="omit")[0])
    assert np.array_equal(_bits(x), _bits(before))


def test_grid_raise_names_the_global_position():
    x = np.arange(2 * 6 * 10, dtype="f4").reshape(2 * 6, 10) + 0.5
    x[7, 8] = np.nan
    dx = da.from_array(x, chunks=(12, 5))
    r = dask_moment_stat(dx, "std", axis=0, policy="raise")
    with pytest.raises(NaNError) as got:
        r.compute()
    with pytest.raises(NaNError) as want:
        moment_stat(x, "std", axis=0, policy="raise")
    assert str(got.value) == str(want.value)
