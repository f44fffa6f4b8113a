"""Every generated polars method x every policy x the messy input kinds, against the
plain function on the same values (a NumPy masked array: the mask is polars' nulls).

The methods come from the generated mixins, so a statistic added to the table joins
this matrix without touching the file. Every namespace (Series, DataFrame, LazyFrame,
Expr inside ``group_by().agg``, ``df.nanstats.group_by``) must give the same value, bit
for bit, and must not modify its input.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import nanaccess as na
from nanaccess import _stats

pl = pytest.importorskip("polars")

from nanaccess.polars import _generated  # noqa: E402

POLICIES = ["raise", "propagate", "omit", "smallest", "largest", "totalorder"]
STATS = [name for name, _ in inspect.getmembers(_generated.SeriesStatsMixin,
                                                 inspect.isfunction)
         if not name.startswith("_") and name in _stats.STATISTICS]


def _negative_nan():
    with np.errstate(invalid="ignore"):
        return -abs(np.float64(np.inf) - np.float64(np.inf))


def _inputs():
    rng = np.random.default_rng(5)
    plain = rng.normal(size=9)
    arith = plain.copy()
    arith[[1, 6]] = _negative_nan()  # NaNs made by arithmetic (negative on x86)
    payload = plain.copy()
    payload[3] = na.make_nan(77)
    ints = rng.integers(-50, 50, 9)
    return {
        "float": (plain, None),
        "arithmetic NaN + null": (arith, [4]),
        "payload NaN": (payload, None),
        "all null": (plain, list(range(9))),
        "int with null": (ints, [0, 8]),
        "float32 + NaN": (arith.astype(np.float32), [2]),
    }


INPUTS = _inputs()


def _reference(stat, values, nulls, policy):
    mask = np.zeros(len(values), bool)
    if nulls:
        mask[nulls] = True
    kw = {"ddof": 1} if stat in ("var", "std") else {}
    if stat == "quantile":
        kw["q"] = 0.5
    if stat == "count":
        return int((~mask & ~np.isnan(values.astype(np.float64))).sum())
    fn = getattr(na, stat)
    return fn(np.ma.masked_array(values, mask=mask), nan_policy=policy, **kw)


def _same(got, want, nulls=False):
    """Bit-equal; a missing result is None in polars where the masked array (a NumPy
    host) gives the canonical NaN (the spec's "host's missing value")."""
    if want is np.ma.masked or np.ma.is_masked(want) or want is None:
        return got is None
    if got is None:
        canonical = np.float64(np.nan).view(np.uint64)
        return nulls and np.asarray(want).astype(np.float64).view(np.uint64) == canonical
    a, b = np.asarray(got), np.asarray(want)
    if a.dtype.kind == "f" and b.dtype.kind == "f":
        return a.astype(np.float64).view(np.uint64) == b.astype(np.float64).view(np.uint64)
    return a == b


@pytest.mark.parametrize("kind", list(INPUTS))
@pytest.mark.parametrize("policy", POLICIES)
def test_every_namespace_agrees_with_the_plain_function(kind, policy):
    values, nulls = INPUTS[kind]
    s = pl.Series("x", values)
    if nulls:
        s = s.scatter(nulls, None)
    df = pl.DataFrame({"k": ["a"] * len(values), "x": s})
    before = df.clone()
    for stat in STATS:
        kw = {} if stat == "count" else {"nan_policy": policy}
        try:
            want = _reference(stat, values, nulls, policy)
        except (na.NaNError, TypeError, ValueError) as err:
            with pytest.raises(type(err)):
                getattr(s.nanstats, stat)(**kw)
            if stat in _stats.GROUPED:
                with pytest.raises(type(err)):
                    getattr(df.nanstats.group_by("k"), stat)(**kw)
            continue
        got = getattr(s.nanstats, stat)(**kw)
        assert _same(got, want, bool(nulls)), (stat, got, want)
        frame = getattr(df.select("x").nanstats, stat)(**kw)["x"][0]
        lazy = getattr(df.lazy().select("x").nanstats, stat)(**kw).collect()["x"][0]
        agg = df.group_by("k").agg(getattr(pl.col("x").nanstats, stat)(**kw))["x"][0]
        others = [("frame", frame), ("lazy", lazy), ("expr", agg)]
        if stat in _stats.GROUPED:
            others.append(("group_by", getattr(df.nanstats.group_by("k"), stat)(**kw)["x"][0]))
        for name, other in others:
            assert _same(other, got), (stat, name, other, got)
    assert df.equals(before, null_equal=True)
