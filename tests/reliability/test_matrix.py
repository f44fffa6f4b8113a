"""The bad-input matrix: every public entry point x every input kind.

Entry points are generated from the package (``entry_points.py``), input kinds are
declared in ``inputs.py``. Each cell either matches a reference value (NumPy / pandas /
statistics on the NaN-free data after the policy rules) or raises an exception of a
documented type (NaNError, SignalingNaNError, TypeError, ValueError,
statistics.StatisticsError) whose message names the place (column, variable, group,
position). Every call also checks, by raw bytes, that the input was not modified.

Cells that do not apply are skipped with a written reason; ``test_matrix_report``
prints the size and counts, and fails if any skip lacks a reason. Cells that expose a
known bug are strict xfails (listed in ``KNOWN_BUGS``, each with a named regression
test below) so they flip loudly once fixed.
"""

from __future__ import annotations

import re
import statistics
import warnings
from collections import Counter
from typing import Any

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import nanaccess as na

from .entry_points import HOSTS, EntryPoint, call, entry_points
from .inputs import ABSENT, KINDS, NAME, Case, InputKind, Skip, same, snapshot

DOCUMENTED = (na.NaNError, TypeError, ValueError, statistics.StatisticsError)
# exceptions that are never a clear, documented answer even though they subclass one
# of the above (numpy.exceptions.AxisError is a ValueError *and* an IndexError, ...)
UNDOCUMENTED = (KeyError, AttributeError, IndexError, AssertionError, NotImplementedError)

# (entry point id, kind name) -> one-line bug description. Each has a regression test.
KNOWN_BUGS: dict[tuple[str, str], str] = {
}


def _cells() -> list[Any]:
    out = []
    for ep in entry_points():
        for kind in KINDS:
            marks = []
            bug = KNOWN_BUGS.get((ep.id, kind.name))
            if bug:
                marks.append(pytest.mark.xfail(strict=True, reason=f"bug: {bug}"))
            out.append(pytest.param(ep, kind, id=f"{ep.id}-{kind.name}", marks=marks))
    return out


def run_case(ep: EntryPoint, case: Case) -> None:
    """Call ``ep`` on the case's object; check result or error, and untouched input."""
    watched = [case.obj, *case.protect]
    before = [snapshot(o) for o in watched]
    exp = case.expect
    where = f"{ep.id} [{case.label}] kw={case.kw}"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            # numpy warns when it widens a signaling NaN (e.g. float32 -> float64 when
            # pandas combines columns); the contract keeps sNaN bits, so that is expected
            warnings.filterwarnings("ignore", "invalid value encountered in cast")
            result = call(ep, case.obj, **case.kw)
    except Exception as err:  # noqa: BLE001 - classified below
        _check_unmodified(watched, before, where)
        msg = str(err)
        if isinstance(err, UNDOCUMENTED) and not isinstance(err, na.NaNError):
            raise AssertionError(f"{where}: undocumented {type(err).__name__}: {msg}") from err
        if exp.raises and isinstance(err, exp.raises):
            assert re.search(exp.match, msg, re.S), (
                f"{where}: {type(err).__name__} message does not name the place "
                f"(/{exp.match}/): {msg}")
            return
        if exp.also_raises and isinstance(err, exp.also_raises):
            assert isinstance(err, DOCUMENTED + exp.also_raises)
            assert re.search(exp.also_match, msg, re.S), (
                f"{where}: {type(err).__name__} message does not name the place "
                f"(/{exp.also_match}/): {msg}")
            return
        want = exp.raises or f"value {exp.value!r}"
        raise AssertionError(f"{where}: expected {want}, got {type(err).__name__}: {msg}"
                             ) from err
    _check_unmodified(watched, before, where)
    assert not exp.raises, (
        f"{where}: expected {[t.__name__ for t in exp.raises]} /{exp.match}/, "
        f"got a result: {result!r}")
    got = case.extract(result)
    if got is ABSENT and _object_column(case.obj):
        return  # xarray Dataset reductions leave non-numeric (object) variables out
    if isinstance(exp.value, tuple) and exp.value and exp.value[0] == "bits":
        want = np.asarray(exp.value[1])
        have = np.asarray(got)
        assert have.dtype.itemsize == want.dtype.itemsize and (
            have.astype(have.dtype.newbyteorder("=")).tobytes()
            == want.astype(want.dtype.newbyteorder("=")).tobytes()), (
            f"{where}: picked element's bits changed: {have!r} vs {want!r}")
        return
    assert same(got, exp.value, exp.rtol, exp.exact_type), (
        f"{where}: got {got!r} ({type(got).__name__}), expected {exp.value!r}")


def _object_column(obj: Any) -> bool:
    return isinstance(obj, xr.Dataset) and obj[NAME].dtype.kind in "OUS"


def _check_unmodified(watched: list, before: list, where: str) -> None:
    after = [snapshot(o) for o in watched]
    assert after == before, f"{where}: the input was modified"


@pytest.mark.parametrize(("ep", "kind"), _cells())
def test_cell(ep: EntryPoint, kind: InputKind) -> None:
    spec = kind.expect(ep)
    if isinstance(spec, Skip):
        assert spec.reason.strip(), f"{ep.id} x {kind.name}: skipped without a reason"
        pytest.skip(spec.reason)
    assert spec, f"{ep.id} x {kind.name}: no cases built"
    for case in spec:
        run_case(ep, case)


# ------------------------------------------------------------------ the report


def matrix_summary() -> dict[str, Any]:
    eps = entry_points()
    skipped: Counter[str] = Counter()
    by_host: Counter[str] = Counter(ep.host for ep in eps)
    n_cases = 0
    for ep in eps:
        for kind in KINDS:
            try:
                spec = kind.expect(ep)
            except Exception:  # noqa: BLE001 - the cell itself reports it (xfail/fail)
                n_cases += 1
                continue
            if isinstance(spec, Skip):
                skipped[spec.reason] += 1
            else:
                n_cases += len(spec)
    total = len(eps) * len(KINDS)
    n_skip = sum(skipped.values())
    n_xfail = len(KNOWN_BUGS)
    return {
        "entry_points": len(eps),
        "by_host": dict(by_host),
        "input_kinds": len(KINDS),
        "cells": total,
        "skipped": n_skip,
        "xfail": n_xfail,
        "passing": total - n_skip - n_xfail,
        "calls": n_cases,
        "skip_reasons": dict(skipped),
    }


def test_matrix_report(capsys: pytest.CaptureFixture) -> None:
    s = matrix_summary()
    lines = [
        f"reliability matrix: {s['entry_points']} entry points x {s['input_kinds']} input "
        f"kinds = {s['cells']} cells ({s['calls']} calls)",
        f"  passing {s['passing']}, xfail (known bugs) {s['xfail']}, skipped {s['skipped']}",
        "  entry points by host: " + ", ".join(f"{h}={s['by_host'].get(h, 0)}" for h in HOSTS),
        "  skip reasons:",
        *(f"    {n:4d}  {r}" for r, n in sorted(s["skip_reasons"].items(), key=lambda x: -x[1])),
    ]
    with capsys.disabled():
        print("\n" + "\n".join(lines))
    assert all(r.strip() for r in s["skip_reasons"]), "a cell is skipped without a reason"
    assert s["entry_points"] >= 100 and s["input_kinds"] >= 23  # round 3 adds kinds
    assert set(KNOWN_BUGS) <= {(ep.id, k.name) for ep in entry_points() for k in KINDS}
    # every public statistic in nanaccess.__all__ is in the matrix
    fn_names = {ep.name for ep in entry_points() if ep.host == "function"}
    assert {"median", "quantile", "mean", "sort", "rank"} <= fn_names
    assert s["passing"] > s["skipped"]


def test_entry_points_follow_the_package() -> None:
    """A method added to an accessor class shows up in the matrix by itself."""
    cls = type(pd.Series([1.0]).nanstats)
    cls.zz_probe = lambda self, *, nan_policy=None: 0  # type: ignore[attr-defined]
    try:
        entry_points.cache_clear()
        assert any(ep.id == "series.zz_probe" for ep in entry_points())
    finally:
        del cls.zz_probe
        entry_points.cache_clear()


# ------------------------------------------------------- regression tests (bugs)


def test_regression_strings_dataarray_keyerror() -> None:
    da = xr.DataArray(np.array(["b", "a"]), dims="t", name="temp")
    with pytest.raises(TypeError, match="'temp'"):
        da.nanstats.mean(nan_policy="omit")


def test_regression_zero_d_dataarray_nan_raise() -> None:
    with pytest.raises(na.NaNError, match="variable 'temp'"):
        xr.DataArray(np.array(np.nan), name="temp").nanstats.median(nan_policy="raise")


def test_regression_zero_d_dataarray_var() -> None:
    assert float(xr.DataArray(np.array(3.5), name="temp").nanstats.var()) == 0.0


def test_regression_bigendian_agg() -> None:
    # .agg(callable) on big-endian data fails inside pandas' split before nanaccess
    # runs (the matrix skips agg x bigendian for that reason); the grouped accessor
    # reads the buffers itself and works
    df = pd.DataFrame({"g": ["a", "b", "a"], "temp": np.array([3.0, 1.0, 2.0], ">f8")})
    got = df.groupby("g")["temp"].nanstats.median(nan_policy="omit")
    assert got.to_dict() == {"a": 2.5, "b": 1.0}
    with pytest.raises(ValueError, match="Big-endian"):
        df.groupby("g")["temp"].agg(lambda s: s.median())


def test_regression_empty_rank() -> None:
    assert na.rank(np.array([], dtype=np.float64), nan_policy="omit").shape == (0,)


def test_regression_all_nan_rank_omit() -> None:
    got = pd.Series([np.nan] * 3, name="temp").nanstats.rank(nan_policy="omit")
    assert got.isna().all()


def test_regression_zero_d_sort() -> None:
    # a 0-d array sorts as its one element (as np.sort(x, axis=None)), no internal error
    got = na.sort(np.array(3.5))
    assert got.shape == (1,) and got[0] == 3.5
    assert na.argsort(np.array(np.nan)).tolist() == [0]


def test_regression_huge_ints_xarray_count() -> None:
    da = xr.DataArray(np.array([10**1000, 1, 2], dtype=object), dims="t", name="temp")
    assert int(da.nanstats.count()) == 3


def test_regression_signaling_nan_float32_quantiles() -> None:
    x = np.array([1.0, 0.0, 2.0, 3.0], np.float32)
    x[1] = na.make_nan(1, signaling=True, dtype=np.float32)
    with pytest.raises(na.SignalingNaNError):
        na.quantiles(x, nan_policy="omit")


def test_regression_duplicate_labels_sort_series() -> None:
    s = pd.Series([1.0, np.nan], index=["b", "b"], name="temp")
    with pytest.raises(na.NaNError, match="index 'b'"):
        na.sort(s, nan_policy="raise")


def test_regression_multiindex_label_repr() -> None:
    idx = pd.MultiIndex.from_tuples([(2024, "x"), (2024, "y")])
    s = pd.Series([1.0, np.nan], index=idx, name="temp")
    with pytest.raises(na.NaNError, match=r"index \(2024, 'y'\)"):
        s.nanstats.median(nan_policy="raise")


def test_regression_complex_dataarray_message() -> None:
    with pytest.raises(TypeError, match="'temp'"):
        xr.DataArray(np.array([1j, 2.0]), dims="t", name="temp").nanstats.median()


def test_regression_mixed_objects_sort() -> None:
    with pytest.raises(TypeError, match="position"):
        na.sort([1.0, "a", (2,), None], nan_policy="raise")


# ------------------------------------------- regression tests (fixed in this round)


def test_regression_huge_ints_series_sort_values_and_rank() -> None:
    s = pd.Series(np.array([10**1000, 1, 2, 7], dtype=object), name="temp")
    assert s.nanstats.sort_values(nan_policy="raise").tolist() == [1, 2, 7, 10**1000]
    assert s.nanstats.sort_values(ascending=False).index.tolist() == [0, 3, 2, 1]
    assert s.nanstats.rank(nan_policy="raise").tolist() == [4.0, 1.0, 2.0, 3.0]


def test_regression_decimal_nan_payloads_series_sort_values() -> None:
    from decimal import Decimal

    s = pd.Series([Decimal("1.5"), Decimal("NaN123"), Decimal("-NaN7"), None], name="temp")
    got = s.nanstats.sort_values(nan_policy="totalorder")
    assert [str(x) for x in got.tolist()] == ["-NaN7", "1.5", "NaN123", "None"]
    with pytest.raises(na.NaNError, match="column 'temp'.*index 1"):
        s.nanstats.sort_values(nan_policy="raise")


def test_regression_signaling_nan_series_rank_omit() -> None:
    x = np.array([1.0, 0.0, 2.0], np.float16)
    x[1] = na.make_nan(1, signaling=True, dtype=np.float16)
    with pytest.raises(na.SignalingNaNError, match="'temp'"):
        pd.Series(x, name="temp").nanstats.rank(nan_policy="omit")


def test_regression_signaling_nan_groupby_count() -> None:
    # pandas' counts take no policy: they count numbers, as Series.nanstats.count
    x = np.array([1.0, 0.0, 2.0], np.float16)
    x[1] = na.make_nan(1, signaling=True, dtype=np.float16)
    s = pd.Series(x, name="temp")
    assert s.nanstats.count() == 2
    assert s.groupby(["a", "b", "a"]).nanstats.count().to_dict() == {"a": 2, "b": 0}


def test_regression_signaling_nan_frame_max_keeps_bits() -> None:
    x = np.array([1.0, 0.0, 2.0], np.float32)
    x[1] = na.make_nan(5, signaling=True, dtype=np.float32)
    df = pd.DataFrame({"temp": x, "ok": np.arange(3.0)})
    got = df.nanstats.max(nan_policy="totalorder")["temp"]
    assert got.dtype == np.float32 and got.tobytes() == x[1].tobytes()
    # without a signaling NaN the common dtype stays (pandas' rules)
    x[1] = np.nan
    assert df.assign(temp=x).nanstats.max(nan_policy="totalorder").dtype == np.float64


def test_regression_bigendian_series_sort_values() -> None:
    s = pd.Series(np.array([3.0, np.nan, 1.0], ">f8"), name="temp")
    got = s.nanstats.sort_values(nan_policy="omit")
    assert got.tolist() == [1.0, 3.0] and got.index.tolist() == [2, 0]


def test_regression_all_missing_list_argmin_propagate() -> None:
    # the list path agrees with the masked-array path: nothing to point at
    with pytest.raises(ValueError, match="empty"):
        na.argmin([None, None, None], nan_policy="propagate")
    assert na.argmin([1.0, None, 0.5], nan_policy="propagate") == 2


@pytest.mark.parametrize("fn", ["sort", "argsort", "rank", "quantiles"])
def test_regression_all_missing_masked_raise_says_missing(fn: str) -> None:
    with pytest.raises(na.NaNError, match="missing.*position 0"):
        getattr(na, fn)(np.ma.masked_all(3, dtype=np.float64), nan_policy="raise")


def test_regression_all_missing_masked_quantiles_omit() -> None:
    x = np.ma.array([1.0, 2.0, 99.0, 3.0, 4.0], mask=[0, 0, 1, 0, 0])
    assert na.quantiles(x, nan_policy="omit") == na.quantiles([1.0, 2.0, 3.0, 4.0])


def test_regression_multiindex_quantiles_frame_labels() -> None:
    rows = pd.MultiIndex.from_tuples([(2024, "x"), (2024, "y")])
    df = pd.DataFrame({("m", "temp"): [1.0, np.nan], ("m", "ok"): [1.0, 2.0]}, index=rows)
    with pytest.raises(na.NaNError, match=r"column \('m', 'temp'\).*index \(2024, 'y'\)"):
        na.quantiles(df, nan_policy="raise")


def test_regression_huge_ints_describe_names_column() -> None:
    s = pd.Series(np.array([10**1000, 1, 2, 7], dtype=object), name="temp")
    with pytest.raises(OverflowError, match="column 'temp'.*too large"):
        s.nanstats.describe(nan_policy="raise")


def test_regression_decimal_nan_payloads_frame_describe_raise() -> None:
    from decimal import Decimal

    df = pd.DataFrame({"temp": [Decimal("1.5"), Decimal("NaN1")], "ok": [1.0, 2.0],
                       "s": ["a", "b"]})
    with pytest.raises(na.NaNError, match="column 'temp'"):
        df.nanstats.describe(nan_policy="raise")
    got = df.nanstats.describe(nan_policy="omit")
    assert list(got.columns) == ["temp", "ok"] and got.loc["count", "temp"] == 1


def test_regression_decimal_nan_payloads_dataset_raise() -> None:
    from decimal import Decimal

    ds = xr.Dataset({"temp": ("t", np.array([Decimal("1.5"), Decimal("NaN1")], object)),
                     "s": ("t", np.array(["a", "b"], object))})
    with pytest.raises(na.NaNError, match="variable 'temp'"):
        ds.nanstats.median(nan_policy="raise")
    got = ds.nanstats.median(nan_policy="omit")
    assert "s" not in got and got["temp"].item() == Decimal("1.5")


def test_regression_huge_ints_dataarray_median() -> None:
    da = xr.DataArray(np.array([10**1000, 1, 2], dtype=object), dims="t", name="temp")
    assert da.nanstats.median().item() == 2
    assert da.nanstats.groupby(xr.DataArray(["a", "a", "b"], dims="t")).max().values.tolist(
        ) == [10**1000, 2]


def test_regression_complex_xgroupby_names_variable() -> None:
    da = xr.DataArray(np.array([1j, 2.0]), dims="t", name="temp",
                      coords={"g": ("t", ["a", "b"])})
    with pytest.raises(TypeError, match="variable 'temp'.*complex"):
        da.nanstats.groupby("g").median()


def test_regression_signaling_nan_dataarray_count_raises() -> None:
    # xarray's count takes nan_policy (default "omit"): sNaN raises as the spec says
    x = np.array([1.0, 0.0], np.float64)
    x[1] = na.make_nan(1, signaling=True)
    da = xr.DataArray(x, dims="t", name="temp")
    with pytest.raises(na.SignalingNaNError, match="variable 'temp'"):
        da.nanstats.count()
    da.nanstats.count(nan_policy="totalorder")  # nothing signals under "totalorder"


def test_regression_zero_d_isnan_shape() -> None:
    assert na.isnan(np.array(np.nan)).shape == ()


def test_regression_strings_totalorder_key_names_position() -> None:
    with pytest.raises(TypeError, match="position 1|'a'"):
        na.totalorder_key(np.array([1.0, "a"], dtype=object))
