"""The bad-input kinds of the reliability matrix, and the reference each cell is checked
against.

An :class:`InputKind` declares the hosts it applies to and builds, for one entry point,
either a list of :class:`Case` objects (a host object, the call keywords and an
:class:`Expect`: a reference value, or exception types plus a regex the message must
match) or a :class:`Skip` with a written reason.

The references come from NumPy, pandas and :mod:`statistics` applied to the NaN-free
part of the data, after the policy rules of the contract (``nan-semantics.md`` section
2): signaling NaN -> ``SignalingNaNError`` (except "totalorder"), "raise" with NaN or
missing -> ``NaNError``, "omit" drops them, "propagate" gives a NaN (or the host's
missing value). Nothing here imports nanaccess' internals.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd
import scipy.stats as scipy_stats
import xarray as xr

import nanaccess as na

from .entry_points import GROUPED_HOSTS, HOSTS, PANDAS_HOSTS, XARRAY_HOSTS, EntryPoint

ALL_HOSTS = frozenset(HOSTS)
NAME = "temp"  # the column / variable holding the bad data: messages must name it

# --------------------------------------------------------------------- expectations


class _Sentinel:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


NAN = _Sentinel("NAN")  # a float NaN (not pd.NA)
NA = _Sentinel("NA")  # pd.NA
MISSING_ANY = _Sentinel("MISSING_ANY")  # NaN, pd.NA, None or NaT
ANYTHING = _Sentinel("ANYTHING")  # any result (unknown entry point): only generic checks
ABSENT = _Sentinel("ABSENT")  # the variable is left out of a Dataset result (numeric_only)


@dataclass
class Expect:
    value: Any = None
    raises: tuple[type[BaseException], ...] = ()
    match: str = ""
    rtol: float = 0.0
    exact_type: bool = False  # Decimal / Fraction results keep their type
    also_raises: tuple[type[BaseException], ...] = ()  # a value OR this exception is fine
    also_match: str = ""

    @property
    def is_error(self) -> bool:
        return bool(self.raises)


def value(v: Any, rtol: float = 0.0, **kw: Any) -> Expect:
    return Expect(value=v, rtol=rtol, **kw)


def raises(types: Any, match: str) -> Expect:
    return Expect(raises=types if isinstance(types, tuple) else (types,), match=match)


@dataclass
class Case:
    label: str  # variant, e.g. "ndarray/omit"
    obj: Any  # the host object handed to entry_points.call
    kw: dict[str, Any]
    expect: Expect
    extract: Callable[[Any], Any] = lambda r: r  # result -> comparable
    protect: list[Any] = field(default_factory=list)  # objects whose bytes must not change


@dataclass
class Skip:
    reason: str


# --------------------------------------------------------------- element classes


def _is_missing(v: Any) -> bool:
    return v is None or v is pd.NA or v is pd.NaT


def classify(v: Any) -> str:
    """'num', 'nan', 'snan', 'missing' or 'other' for one element."""
    if _is_missing(v):
        return "missing"
    if isinstance(v, Decimal):
        return "snan" if v.is_snan() else "nan" if v.is_nan() else "num"
    if isinstance(v, np.floating | float):
        if not math.isnan(v):
            return "num"
        arr = np.asarray(v)
        bits = int(arr.astype(arr.dtype.newbyteorder("=")).view(f"u{arr.itemsize}"))
        mant = {2: 10, 4: 23, 8: 52}[arr.itemsize]
        return "nan" if bits >> (mant - 1) & 1 else "snan"
    if isinstance(v, bool | np.bool_ | int | np.integer | Fraction):
        return "num"
    return "other"


def elements(col: Any) -> list[Any]:
    if isinstance(col, np.ndarray):
        return [col[i] for i in range(col.size)] if col.ndim else [col[()]]
    return list(col)


# ------------------------------------------------------------------ references


def _np_method(method: str) -> str:
    return {"inclusive": "linear", "exclusive": "weibull"}.get(method, method)


def _rtol(dtype: Any) -> float:
    dt = np.dtype(dtype) if dtype is not None else np.dtype(np.float64)
    if dt.kind != "f":
        return 1e-12
    return {2: 2e-3, 4: 1e-6}.get(dt.itemsize, 1e-12)


def _frac_quantile(nums: list, q: float) -> Fraction:
    a = sorted(Fraction(x) for x in nums)
    h = (len(a) - 1) * Fraction(q)
    lo = math.floor(h)
    hi = min(lo + 1, len(a) - 1)
    return a[lo] + (a[hi] - a[lo]) * (h - lo)


def stat_of_numbers(name: str, nums: list, *, dtype: Any, form: str, q: Any = 0.5,
                    method: str = "linear", ddof: int = 0, positions: list[int] | None = None,
                    labels: list | None = None) -> Expect:
    """Reference for ``name`` over NaN-free ``nums`` (after the policy removed NaNs).

    ``form`` is "array" (NumPy / labelled data) or "list" (a plain Python iterable,
    statistics-module behaviour). ``positions`` are the numbers' positions (for arg*),
    ``labels`` their index labels (for idx*/labelled arg*).
    """
    n = len(nums)
    obj_path = dtype is None  # Python objects (list of Decimal / int / Fraction)
    if name == "quantiles":
        try:
            return value(statistics.quantiles(nums, n=4, method="exclusive"), rtol=1e-12)
        except statistics.StatisticsError:
            return raises(statistics.StatisticsError, "")
        except OverflowError:
            # statistics' float arithmetic overflows on huge ints; the contract asks for
            # the exact result (section 4): the same formula on Fractions
            return value(statistics.quantiles([Fraction(x) for x in nums], n=4,
                                              method="exclusive"))
    if n == 0:
        if name in ("argmin", "argmax", "idxmin", "idxmax"):
            # decision 7: ValueError naming the row (StatisticsError is a ValueError)
            return raises(ValueError, "empty|no value|row|nothing")
        if form == "list" and name not in ("sum",):
            return raises(statistics.StatisticsError, "empty|no .*data|at least")
        if name == "sum":
            return value(0)
        return value(NAN)
    if name in ("argmin", "argmax", "idxmin", "idxmax"):
        nums = [x.item() if isinstance(x, np.generic) else x for x in nums]
        keyed = sorted(range(n), key=lambda i: (Fraction(nums[i]), i))
        pick = keyed[0] if name in ("argmin", "idxmin") else keyed[-1]
        if name in ("argmax", "idxmax"):  # first occurrence of the largest
            top = Fraction(nums[pick])
            pick = min(i for i in range(n) if Fraction(nums[i]) == top)
        # argmin / argmax are positions on every host (issue 25); idxmin / idxmax labels
        if name.startswith("idx"):
            return value(ANYTHING) if labels is None else value(labels[pick])
        return value(positions[pick])
    if obj_path or form == "list" and not all(isinstance(x, float) for x in nums):
        return _object_reference(name, nums, q=q, method=method, ddof=ddof)
    a = np.asarray(nums, dtype=dtype)
    wide = a.astype(np.float64)
    if name == "median":
        return value(np.median(a).astype(a.dtype) if a.dtype.kind == "f" else np.median(a),
                     rtol=0)
    if name == "median_low":
        return value(np.sort(a)[(n - 1) // 2])
    if name == "median_high":
        return value(np.sort(a)[n // 2])
    if name == "quantile":
        return value(np.quantile(a, q, method=_np_method(method)), rtol=_rtol(a.dtype))
    if name == "min":
        return value(a.min())
    if name == "max":
        return value(a.max())
    if name == "sum":
        return value(math.fsum(wide.tolist()) if a.dtype.kind == "f" else int(a.sum()),
                     rtol=_rtol(a.dtype))
    if name == "mean":
        return value(np.mean(wide), rtol=_rtol(a.dtype))
    if name in ("var", "std"):
        if n - ddof <= 0:
            return value(NAN)
        fn = np.var if name == "var" else np.std
        return value(fn(wide, ddof=ddof), rtol=_rtol(a.dtype))
    if name == "iqr":  # scipy's own (defaults rng=(25, 75), linear)
        return value(scipy_stats.iqr(a), rtol=_rtol(a.dtype))
    if name == "mad":
        return value(scipy_stats.median_abs_deviation(a), rtol=_rtol(a.dtype))
    raise AssertionError(f"no reference for {name}")


def _object_reference(name: str, nums: list, *, q: Any, method: str, ddof: int) -> Expect:
    exact = any(isinstance(x, Decimal | Fraction) for x in nums)
    n = len(nums)
    try:
        if name == "median":
            return value(statistics.median(nums), exact_type=exact)
        if name == "median_low":
            return value(statistics.median_low(nums), exact_type=exact)
        if name == "median_high":
            return value(statistics.median_high(nums), exact_type=exact)
        if name == "min":
            return value(min(nums, key=Fraction), exact_type=exact)
        if name == "max":
            return value(max(nums, key=Fraction), exact_type=exact)
        if name == "quantile":
            return value(_frac_quantile(nums, q) if _np_method(method) == "linear" else ANYTHING)
        if name == "sum":
            return value(sum(Fraction(x) for x in nums))
        if name == "mean":
            return value(statistics.mean(nums), rtol=1e-12)
        if name == "iqr":  # exact, on Fractions (the statistics-module way)
            return value(float(_frac_quantile(nums, 0.75) - _frac_quantile(nums, 0.25)),
                         rtol=1e-12)
        if name == "mad":
            fr = [Fraction(x) for x in nums]
            center = statistics.median(fr)
            return value(float(statistics.median([abs(x - center) for x in fr])),
                         rtol=1e-12)
        if name in ("var", "std"):
            if n - ddof <= 0:
                return value(NAN, also_raises=(statistics.StatisticsError,))
            fn = {("var", 0): statistics.pvariance, ("var", 1): statistics.variance,
                  ("std", 0): statistics.pstdev, ("std", 1): statistics.stdev}[name, ddof]
            return value(fn(nums), rtol=1e-12)
    except OverflowError:
        # statistics overflows converting to float; the contract asks for exact results
        exact_val = sum(Fraction(x) for x in nums) / n if name == "mean" else ANYTHING
        return value(exact_val, also_raises=(OverflowError,),
                     also_match=r"row|position|column|too large")
    raise AssertionError(f"no object reference for {name}")


# ------------------------------------------------------------ policy application


def location_regex(host: str, *, group: Any = None) -> str:
    """What an error message must name for this host."""
    if host == "function":
        return r"position|index|column|variable"
    if host in ("series", "frame", "agg"):
        return rf"(column|Series) '{NAME}'"  # agg sees one group's Series: no group name
    if host in ("sgroupby", "dfgroupby"):
        return rf"column '{NAME}'" + (rf" in group '{group}'" if group is not None else "")
    return rf"variable '{NAME}'"


def policy_reference(ep: EntryPoint, elems: list, policy: str, *, host: str, form: str,
                     dtype: Any, labels: list | None = None, q: Any = 0.5,
                     method: str = "linear", nullable: bool = False) -> Expect:
    """Reference for one 1-D column under ``policy`` (contract section 2)."""
    name = ep.name
    fam = ep.family
    classes = [classify(v) for v in elems]
    if "other" in classes:
        raise AssertionError("non-numeric data needs a kind-specific expectation")
    has_s = "snan" in classes
    has_nan = "nan" in classes
    has_miss = "missing" in classes
    loc = location_regex(host)
    ddof = 1 if host in PANDAS_HOSTS else 0
    if fam == "sort" and policy == "propagate":
        return raises(ValueError, "propagate")
    if has_s and policy != "totalorder":
        return raises(na.SignalingNaNError, "signaling NaN.*" if host == "function" else loc)
    if policy == "raise" and (has_nan or has_miss):
        word = "NaN" if has_nan else "missing"
        return raises(na.NaNError, rf"{loc}.*{word}|{word}.*{loc}" if host != "function"
                      else rf"{word}.*(position|index)")
    if policy in ("smallest", "largest", "totalorder") and (has_nan or has_miss or has_s):
        raise AssertionError("NaN-ordering policies need a kind-specific expectation")
    positions = [i for i, c in enumerate(classes) if c == "num"]
    nums = [elems[i] for i in positions]
    nums = [x.item() if isinstance(x, np.generic) and dtype is None else x for x in nums]
    labs = [labels[i] for i in positions] if labels is not None else None
    if policy == "propagate" and (has_nan or has_miss) and fam == "quantiles":
        return value(np.full(3, np.nan))
    if policy == "propagate" and (has_nan or has_miss) and fam in ("order", "moment", "spread"):
        if has_nan:
            return value(NAN)
        return value(NA if nullable else MISSING_ANY)
    if policy == "propagate" and has_nan and fam == "arg":
        # decision 6: points at the propagating NaN, the greatest under totalOrder
        # (first of them): x86's arithmetic NaNs are negative, np.nan positive
        nans = [i for i, c in enumerate(classes) if c == "nan"]
        keys = [int(na.totalorder_key(np.float64(elems[i]))) for i in nans]
        first = nans[keys.index(max(keys))]
        if classes.count("nan") == len(classes) or classes.count("nan") == 1:
            if name.startswith("idx"):  # labels; argmax: positions
                return value(ANYTHING) if labels is None else value(labels[first])
            return value(first)
        return value(ANYTHING)
    if policy == "propagate" and has_miss and fam == "arg" and "num" not in classes:
        # decision 6: never points at a missing value -> nothing to point at
        return raises(ValueError, "empty|no value|row|nothing")
    if fam in ("order", "moment", "arg", "quantiles", "spread"):
        exp = stat_of_numbers(name, nums, dtype=dtype, form=form, q=q, method=method,
                              ddof=ddof, positions=positions, labels=labs)
        if nullable and exp.value is NAN and not exp.raises:
            exp.value = NA
        return exp
    if fam == "sort":
        return _sort_reference(name, elems, classes, policy, dtype)
    raise AssertionError(f"family {fam} has no policy reference")


def _sort_reference(name: str, elems: list, classes: list, policy: str, dtype: Any) -> Expect:
    keep = [i for i, c in enumerate(classes) if c == "num" or policy != "omit"]
    nums = np.asarray([elems[i] for i in keep], dtype=dtype or np.float64)
    if name == "sort":
        return value(np.sort(nums, kind="stable"))
    if name == "argsort":
        return value(np.asarray(keep)[np.argsort(nums, kind="stable")])
    if name == "sort_values":
        return value(np.sort(nums, kind="stable"))
    if name == "rank":
        full = np.asarray([float(e) if c == "num" else np.nan for e, c in zip(elems, classes,
                                                                            strict=True)])
        return value(pd.Series(full).rank(method="average").to_numpy())
    raise AssertionError(name)


def report_reference(elems: list) -> Expect:
    classes = [classify(v) for v in elems]
    counts = {
        "values": len(elems),
        "numbers": classes.count("num"),
        "nan": classes.count("nan") + classes.count("snan"),
        "signaling_nan": classes.count("snan"),
        "missing": classes.count("missing"),
    }
    return value(counts)


# ---------------------------------------------------------------- comparisons


def _isnan_like(x: Any) -> bool:
    try:
        return bool(np.isnan(x)) if not isinstance(x, Decimal) else x.is_nan()
    except (TypeError, ValueError):
        return False


def _unwrap(x: Any) -> Any:
    if isinstance(x, xr.DataArray):
        x = x.values
    if isinstance(x, np.ndarray) and x.ndim == 0:
        x = x[()]
    return x


def same(result: Any, expected: Any, rtol: float = 0.0, exact_type: bool = False) -> bool:
    if isinstance(result, xr.DataArray | xr.Dataset) and "statistic" in result.dims:
        result = result.to_pandas()  # xarray describe: a "statistic" dimension
    result = _unwrap(result)
    if expected is ANYTHING:
        return True
    if expected is ABSENT or result is ABSENT:
        return result is expected
    if isinstance(result, np.floating) and not exact_type:
        result = float(result)
    if isinstance(expected, np.floating) and not exact_type:
        expected = float(expected)
    if expected is MISSING_ANY:
        return result is None or result is pd.NA or result is pd.NaT or _isnan_like(result)
    if expected is NA:
        return result is pd.NA
    if expected is NAN:
        return result is not pd.NA and _isnan_like(result)
    if isinstance(expected, dict):
        if isinstance(result, pd.Series | pd.DataFrame):
            result = result.to_dict()
        if not isinstance(result, dict):
            return False
        keys_r = {_key(k) for k in result}
        keys_e = {_key(k) for k in expected}
        if not set(keys_e) <= keys_r:
            return False
        rmap = {_key(k): v for k, v in result.items()}
        return all(same(rmap[_key(k)], v, rtol, exact_type) for k, v in expected.items())
    if isinstance(expected, np.ndarray | list):
        r = np.asarray(result.to_numpy() if hasattr(result, "to_numpy") else result)
        e = np.asarray(expected)
        if r.shape != e.shape:
            return False
        if e.dtype.kind in "fc" or r.dtype.kind in "fc":
            return bool(np.allclose(r.astype(float), e.astype(float), rtol=rtol, atol=0,
                                    equal_nan=True)) if rtol else bool(
                np.array_equal(r.astype(float), e.astype(float), equal_nan=True))
        return bool(np.array_equal(r, e))
    if result is pd.NA or result is None:
        return False
    if isinstance(expected, Decimal) and expected.is_nan():
        return isinstance(result, Decimal) and str(result) == str(expected)
    if exact_type and type(result) is not type(expected):
        return False
    if _isnan_like(expected):
        return _isnan_like(result)
    if isinstance(expected, str | tuple) or not isinstance(
            expected, int | float | np.number | Decimal | Fraction):
        return _key(result) == _key(expected)
    try:
        if rtol == 0 or isinstance(expected, Decimal | Fraction | int):
            return Fraction(result) == Fraction(expected) or (
                rtol > 0 and math.isclose(float(result), float(expected), rel_tol=rtol))
        return math.isclose(float(result), float(expected), rel_tol=rtol, abs_tol=0)
    except (TypeError, ValueError, OverflowError):
        return False


def _key(k: Any) -> Any:
    if isinstance(k, np.generic):
        k = k.item()
    if isinstance(k, float) and math.isnan(k):
        return "<nan>"
    if k is None or k is pd.NA:
        return "<nan>"
    return k


# ------------------------------------------------------------------ raw bytes


def snapshot(obj: Any) -> Any:
    """Raw bytes of everything an object holds (values, masks, index, coords)."""
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind == "O":
            return ("O", obj.shape, [repr(x) for x in obj.ravel().tolist()])
        return (obj.dtype.str, obj.shape, obj.tobytes(order="A"), obj.flags.writeable)
    if isinstance(obj, np.ma.MaskedArray):
        return (snapshot(np.ma.getdata(obj)), snapshot(np.ma.getmaskarray(obj)))
    if isinstance(obj, pd.Series):
        return ("S", obj.name, snapshot(obj.index), _array_bytes(obj.array))
    if isinstance(obj, pd.DataFrame):
        return ("F", snapshot(obj.columns), snapshot(obj.index),
                [_array_bytes(obj.iloc[:, i].array) for i in range(obj.shape[1])])
    if isinstance(obj, pd.MultiIndex):
        return ("MI", [snapshot(lev) for lev in obj.levels], [c.tobytes() for c in obj.codes])
    if isinstance(obj, pd.Index):
        return ("I", str(obj.dtype), _array_bytes(obj.array))
    if isinstance(obj, xr.DataArray):
        return ("DA", obj.name, obj.dims, snapshot(np.asarray(obj.variable.data)),
                sorted((str(k), snapshot(np.asarray(v.values))) for k, v in obj.coords.items()),
                repr(obj.attrs))
    if isinstance(obj, xr.Dataset):
        return ("DS", sorted((str(k), snapshot(v)) for k, v in obj.data_vars.items()),
                sorted((str(k), snapshot(np.asarray(v.values))) for k, v in obj.coords.items()))
    if isinstance(obj, list | tuple):
        return (type(obj).__name__, [repr(x) + type(x).__name__ for x in obj])
    if hasattr(obj, "obj") and hasattr(obj, "groups"):  # a pandas GroupBy
        return snapshot(obj.obj)
    if hasattr(obj, "_obj"):  # nanaccess' own grouping wrappers
        return snapshot(obj._obj)
    return repr(obj)


def _array_bytes(arr: Any) -> Any:
    if isinstance(arr, pd.arrays.NumpyExtensionArray):
        return snapshot(arr.to_numpy())
    if hasattr(arr, "_data") and hasattr(arr, "_mask"):
        return (str(arr.dtype), snapshot(arr._data), snapshot(arr._mask))
    if isinstance(arr, pd.Categorical):
        return ("cat", snapshot(arr.categories), arr.codes.tobytes())
    try:
        return (str(arr.dtype), snapshot(np.asarray(arr)))
    except Exception:  # noqa: BLE001 - arrow etc.
        return (str(arr.dtype), repr(list(arr)))


# ------------------------------------------------------------------ host builders

OK = "ok"  # a clean companion column / variable (errors must not name it)


def _extract_frame(r: Any) -> Any:
    if isinstance(r, pd.DataFrame):
        if NAME not in r.index and NAME not in r.columns:
            return ABSENT  # describe leaves string / other object columns out
        return r.loc[NAME] if NAME in r.index else r[NAME]
    if isinstance(r, pd.Series):
        return r[NAME]
    return r


def _extract_grouped(r: Any) -> Any:
    if isinstance(r, pd.DataFrame) and isinstance(r.columns, pd.MultiIndex):
        r = r[NAME]  # describe / nan_report of a DataFrameGroupBy: (column, row)
    if isinstance(r, pd.DataFrame) and NAME not in r.columns:
        # one column's describe / nan_report table (groups x rows): {group: {row: v}}
        return {g: dict(row.items()) for g, row in r.iterrows()}
    if isinstance(r, pd.DataFrame):
        r = r[NAME]
    if isinstance(r, pd.Series):
        return dict(r.items())
    return r


def _extract_dataset(r: Any) -> Any:
    if isinstance(r, xr.Dataset):
        return r[NAME] if NAME in r.data_vars else ABSENT
    if isinstance(r, pd.DataFrame):
        return r.loc[NAME]
    return r


def _extract_xgroupby(r: Any) -> Any:
    if isinstance(r, xr.DataArray) and r.ndim == 1:
        return dict(zip(r[r.dims[0]].values.tolist(), r.values.tolist(), strict=True))
    if isinstance(r, pd.DataFrame):  # a grouped nan_report (groups x kinds)
        return {g: dict(row.items()) for g, row in r.iterrows()}
    return r


def default_keys(n: int) -> list[str]:
    return ["a" if i % 2 == 0 else "b" for i in range(n)]


def make_series(col: Any, *, index: Any = None, dtype: Any = None) -> pd.Series:
    return pd.Series(col, index=index, name=NAME, dtype=dtype, copy=False)


def build(host: str, col: Any, *, index: Any = None, keys: Any = None, dtype: Any = None,
          groupby_kw: dict | None = None) -> tuple[Any, Callable[[Any], Any]]:
    """The host object holding ``col`` (named ``NAME``), and its result extractor."""
    n = len(col) if np.ndim(col) else 1
    gkw = groupby_kw or {}
    if host == "function":
        return col, lambda r: r
    s = make_series(col, index=index, dtype=dtype)
    if host == "series":
        return s, lambda r: r
    if host == "frame":
        ok = pd.Series(np.arange(n, dtype=np.float64), index=s.index, name=OK)
        return pd.concat([s, ok], axis=1), _extract_frame
    keys = default_keys(n) if keys is None else keys
    if host in ("sgroupby", "dfgroupby", "agg"):
        df = pd.DataFrame({"g": pd.Series(keys, index=s.index) if not isinstance(
            keys, pd.Series) else keys.set_axis(s.index), NAME: s})
        if host == "sgroupby":
            return s.groupby(df["g"], **gkw), _extract_grouped
        if host == "dfgroupby":
            return df.groupby("g", **gkw), _extract_grouped
        return df.groupby("g", **gkw)[NAME], _extract_grouped
    values = np.asarray(col) if dtype is None else np.asarray(col, dtype=dtype)
    coords = {"t": ("t", list(index))} if index is not None else {}
    if values.ndim == 0:
        da = xr.DataArray(values, name=NAME)
    else:
        da = xr.DataArray(values, dims="t", name=NAME, coords=coords)
    if host == "dataarray":
        return da, lambda r: r
    if host == "dataset":
        ok = xr.DataArray(np.arange(values.size, dtype=np.float64).reshape(values.shape),
                          dims=da.dims)
        return xr.Dataset({NAME: da, OK: ok}), _extract_dataset
    if host == "xgroupby":
        da = da.assign_coords(g=("t", np.asarray(keys, dtype=object)))
        return da.nanstats.groupby("g", **gkw), _extract_xgroupby
    raise AssertionError(host)


# ------------------------------------------------------------- standard cases


def _group_members(keys: list, dropna: bool = True) -> dict[Any, list[int]]:
    out: dict[Any, list[int]] = {}
    for i, k in enumerate(keys):
        if dropna and (k is None or (isinstance(k, float) and math.isnan(k))):
            continue
        out.setdefault(k, []).append(i)
    return dict(sorted(out.items(), key=lambda kv: (_key(kv[0]) == "<nan>", str(kv[0]))))


def _merge_groups(per_group: dict[Any, Expect]) -> Expect:
    errs = [e for e in per_group.values() if e.is_error]
    if errs:
        for e in errs:
            if na.SignalingNaNError in e.raises:
                return e
        return errs[0]
    vals = {k: e.value for k, e in per_group.items()}
    rtol = max((e.rtol for e in per_group.values()), default=0.0)
    also = tuple({t for e in per_group.values() for t in e.also_raises})
    match = "|".join(e.also_match for e in per_group.values() if e.also_raises)
    return value(vals, rtol=rtol, also_raises=also, also_match=match)


def column_reference(ep: EntryPoint, elems: list, policy: str | None, *, host: str,
                     form: str, dtype: Any, labels: list | None = None,
                     nullable: bool = False, q: Any = 0.5) -> Expect:
    fam = ep.family
    if fam == "unknown":
        return value(ANYTHING, also_raises=DOCUMENTED, also_match=".")
    if ep.name == "nan_report":
        return report_reference(elems)
    if fam == "count":
        classes = [classify(v) for v in elems]
        if ep.takes("nan_policy") and "snan" in classes:
            # a count that takes nan_policy (xarray's, default "omit") follows the
            # policy rules: signaling NaNs raise (spec section 2); pandas' counts take
            # no policy and count numbers
            return raises(na.SignalingNaNError, location_regex(host))
        return value(classes.count("num"))
    if ep.name == "describe":
        pol = policy or "raise"
        e = policy_reference(_MEAN_EP, elems, pol, host=host, form=form, dtype=dtype)
        if e.is_error:
            return e
        classes = [classify(v) for v in elems]
        try:
            nums = [float(v) for v, c in zip(elems, classes, strict=True) if c == "num"]
        except OverflowError:
            # describe is a float64 table: an exact value beyond it is an error that
            # names the column
            return raises(OverflowError, rf"(column|variable) '{NAME}'.*too large")
        if pol == "propagate" and len(nums) < len(elems):
            return value({"count": len(nums)})
        ref = {"count": len(nums)}
        if nums:
            ref.update(mean=float(np.mean(nums)), min=min(nums), max=max(nums))
        # float16/float32 means are rounded to the input dtype (decisions.md 1)
        return value(ref, rtol=max(_rtol(dtype), 1e-12))
    if fam == "classify":
        return classify_reference(ep.name, elems, dtype)
    return policy_reference(ep, elems, policy or "raise", host=host, form=form, dtype=dtype,
                            labels=labels, nullable=nullable, q=q)


_MEAN_EP = EntryPoint("function", "mean", ())


def classify_reference(name: str, elems: list, dtype: Any) -> Expect:
    classes = [classify(v) for v in elems]
    shape = np.shape(elems) if dtype is None else (len(elems),)
    if name == "isnan":
        return value(np.asarray([c in ("nan", "snan") for c in classes]).reshape(shape))
    if name == "issignaling":
        return value(np.asarray([c == "snan" for c in classes]).reshape(shape))
    return value(ANYTHING)  # nan_payload / totalorder_key: see test_invariants


DOCUMENTED = (na.NaNError, TypeError, ValueError, statistics.StatisticsError)


def standard_cases(ep: EntryPoint, col: Any, policies: list[str | None], *,
                   dtype: Any = None, index: list | None = None, keys: list | None = None,
                   list_form: bool = True, nullable: bool = False, series_dtype: Any = None,
                   q: Any = 0.5, array_form: bool = True, tag: str = "") -> list[Case]:
    """Cases of ``ep`` on 1-D ``col`` under each policy, with the policy reference."""
    host = ep.host
    cases = []
    elems = elements(col)
    kw_base: dict[str, Any] = {"q": q} if ep.takes("q") else {}
    if not ep.takes("nan_policy") or ep.family == "count":
        policies = [None]  # count: its own default policy
    for policy in policies:
        kw = dict(kw_base)
        if policy is not None:
            kw["nan_policy"] = policy
        label = f"{tag}{policy or 'default'}"
        if host == "function":
            forms = []
            if array_form:
                forms.append(("ndarray", col, "array"))
            if list_form:
                forms.append(("list", [x.item() if isinstance(x, np.generic) else x
                                       for x in elems], "list"))
            for fname, data, form in forms:
                exp = column_reference(ep, elements(data) if form == "list" else elems, policy,
                                       host=host, form=form,
                                       dtype=dtype if form == "array" else None, q=q)
                if form == "list" and ep.family == "classify":
                    exp = value(ANYTHING, also_raises=(TypeError,), also_match=".")
                cases.append(Case(f"{fname}/{label}", data, kw, exp))
            continue
        obj, extract = build(host, col, index=index, keys=keys, dtype=series_dtype)
        labels = list(index) if index is not None else list(range(len(elems)))
        if host in GROUPED_HOSTS:
            kk = default_keys(len(elems)) if keys is None else list(keys)
            per = {g: column_reference(ep, [elems[i] for i in idx], policy, host=host,
                                       form="array", dtype=dtype, nullable=nullable, q=q,
                                       labels=[labels[i] for i in idx])
                   for g, idx in _group_members(kk).items()}
            exp = _merge_groups(per)
        else:
            exp = column_reference(ep, elems, policy, host=host, form="array", dtype=dtype,
                                   labels=labels if host in PANDAS_HOSTS else None,
                                   nullable=nullable, q=q)
            if host in XARRAY_HOSTS and ep.family == "arg":
                exp = value(ANYTHING, also_raises=DOCUMENTED, also_match=".")
        cases.append(Case(label, obj, kw, exp, extract))
    return cases


# ------------------------------------------------------------------- the kinds

SKIP_OBJECT = ("returns a grouping object or draws a plot; no statistic to check (its "
               "statistics are the rows of the grouped hosts)")
NOT_GROUPED = "grouping kind: only GroupBy hosts have groups"
UNGROUPED_HOSTS = ALL_HOSTS - GROUPED_HOSTS
STD_POLICIES = ["raise", "omit", "propagate"]
STATS = frozenset({"order", "arg", "quantiles", "moment", "sort"})


@dataclass
class InputKind:
    name: str
    hosts: frozenset[str]
    cases: Callable[[EntryPoint], list[Case] | Skip]
    host_reasons: dict[str, str] = field(default_factory=dict)
    doc: str = ""

    def expect(self, ep: EntryPoint) -> list[Case] | Skip:
        if ep.family == "object":
            return Skip(SKIP_OBJECT)
        if ep.host not in self.hosts:
            return Skip(self.host_reasons.get(ep.host, f"{self.name} has no {ep.host} form"))
        return self.cases(ep)


def _type_error_cases(ep: EntryPoint, col: Any, list_col: list | None, func_regex: str,
                      policies: tuple[str, ...] = ("raise", "omit"), *,
                      left_out: bool = False) -> list[Case]:
    """Non-numeric data: statistics raise TypeError naming the column / position;
    ``left_out``: a Dataset's statistics leave the variable out, never raising
    (strings and other objects that are not numbers, decision 16; issue 25)."""
    lab_regex = f"'{NAME}'"
    regex = func_regex if ep.host == "function" else lab_regex
    if ep.family in ("report", "count", "classify", "unknown"):
        exp = value(ANYTHING, also_raises=(TypeError,), also_match=regex)
    elif ep.host == "dataset" and left_out and ep.family != "sort":
        exp = value(ABSENT)
    elif ep.host == "dataset":
        # xarray's Dataset reductions leave non-numeric variables out (numeric_only)
        exp = value(ABSENT, also_raises=(TypeError,), also_match=regex)
    else:
        exp = raises(TypeError, regex)
    kw_base: dict[str, Any] = {"q": 0.5} if ep.takes("q") else {}
    out = []
    for policy in (policies if ep.takes("nan_policy") else (None,)):
        kw = dict(kw_base, **({"nan_policy": policy} if policy else {}))
        if ep.host == "function":
            out.append(Case(f"ndarray/{policy}", col, kw, exp))
            if list_col is not None:
                out.append(Case(f"list/{policy}", list_col, kw, exp))
            continue
        obj, extract = build(ep.host, col)
        out.append(Case(f"{policy}", obj, kw, exp, extract))
    return out


def _strings(ep: EntryPoint) -> list[Case]:
    return (_type_error_cases(ep, np.array(["b", "a", "c"]), ["b", "a", "c"],
                              r"str|non-numeric|dtype|<U", left_out=True)
            + _type_error_cases(ep, np.array(["b", None, "a"], dtype=object), None,
                                r"str|non-numeric|position", left_out=True))


def _complex(ep: EntryPoint) -> list[Case]:
    col = np.array([1 + 1j, 2.0, 3j])
    if ep.family == "classify":
        exp = value(np.isnan(col) if ep.name == "isnan" else ANYTHING,
                    also_raises=(TypeError,), also_match="complex")
        return [Case("ndarray", col, {}, exp)]
    return _type_error_cases(ep, col, col.tolist(), r"complex")


def _mixed(ep: EntryPoint) -> list[Case]:
    vals = [1.0, "a", (2,), None]
    return _type_error_cases(ep, np.array(vals, dtype=object), vals,
                             r"position|'a'|str|tuple|non-numeric", left_out=True)


def _empty(ep: EntryPoint) -> list[Case] | Skip:
    if ep.host == "xgroupby":
        return Skip("xarray itself refuses to group an empty array (ValueError 'g must not "
                    "be empty' from DataArray.groupby, before nanaccess is called)")
    return standard_cases(ep, np.array([], dtype=np.float64), STD_POLICIES,
                          dtype=np.float64)


def _all_nan(ep: EntryPoint) -> list[Case]:
    return standard_cases(ep, np.array([np.nan] * 3), STD_POLICIES, dtype=np.float64)


def _all_missing(ep: EntryPoint) -> list[Case]:
    if ep.host == "function":
        cases = standard_cases(ep, [None, None, None], STD_POLICIES, dtype=None,
                               array_form=False)
        masked = np.ma.masked_all(3, dtype=np.float64)
        for policy in STD_POLICIES if ep.takes("nan_policy") else [None]:
            kw = {"nan_policy": policy} if policy else {}
            if ep.takes("q"):
                kw["q"] = 0.5
            if ep.family in ("order", "moment", "arg", "quantiles", "sort"):
                exp = policy_reference(ep, [None] * 3, policy, host="function", form="array",
                                       dtype=np.float64)
            else:
                exp = column_reference(ep, [None] * 3, policy, host="function", form="array",
                                       dtype=np.float64)
            if ep.family == "classify":
                exp = value(ANYTHING, also_raises=(TypeError,), also_match=".")
            cases.append(Case(f"masked/{policy}", masked, kw, exp))
        return cases
    if ep.host in PANDAS_HOSTS:
        return standard_cases(ep, [None, None, None], STD_POLICIES, dtype=np.float64,
                              series_dtype="Float64", nullable=True)
    return standard_cases(ep, np.array([None, None, None], dtype=object), STD_POLICIES,
                          dtype=None)


def _single(ep: EntryPoint) -> list[Case]:
    return (standard_cases(ep, np.array([3.5]), ["raise", "omit", "totalorder"],
                           dtype=np.float64)
            + standard_cases(ep, np.array([np.nan]), ["omit"], dtype=np.float64,
                             tag="nan/"))


def _snan(dt: Any) -> Any:
    return na.make_nan(1, signaling=True, dtype=dt)


def _signaling(ep: EntryPoint) -> list[Case]:
    cases = []
    for dt in (np.float16, np.float32, np.float64):
        col = np.array([1.0, 0.0, 2.0], dtype=dt)
        col[1] = _snan(dt)
        assert classify(col[1]) == "snan"
        name = np.dtype(dt).name
        # python floats keep float64 sNaN bits; narrower widths would be widened (quieted)
        cases += standard_cases(ep, col, ["raise", "omit", "propagate"], dtype=dt,
                                list_form=dt is np.float64, tag=f"{name}/")
        cases += _totalorder_snan_cases(ep, col, name)
    return cases


def _totalorder_snan_cases(ep: EntryPoint, col: np.ndarray, tag: str) -> list[Case]:
    """Under "totalorder" +sNaN sorts above +inf and nothing signals (spec section 2)."""
    if not ep.takes("nan_policy") or ep.family not in ("order", "arg", "moment", "sort",
                                                       "spread"):
        return []
    dt = col.dtype
    snan = col[1]
    ref: dict[str, Any] = {
        "median": dt.type(2.0), "median_low": dt.type(2.0), "median_high": dt.type(2.0),
        "quantile": dt.type(2.0), "min": dt.type(1.0), "max": snan,
        "argmin": 0, "argmax": 1, "idxmin": 0, "idxmax": 1,
        "mean": NAN, "var": NAN, "std": NAN, "sum": NAN,
        # [1, sNaN, 2]: the 0.75 quantile lies between 2 and +sNaN (that NaN, quieted);
        # the deviations are 1, sNaN (kept), 0, whose median is 1
        "iqr": NAN, "mad": dt.type(1.0),
        "sort": np.array([1.0, 2.0, np.nan]), "argsort": np.array([0, 2, 1]),
        "sort_values": np.array([1.0, 2.0, np.nan]), "rank": np.array([1.0, 3.0, 2.0]),
    }
    if ep.name not in ref:
        return []
    kw: dict[str, Any] = {"nan_policy": "totalorder"}
    if ep.takes("q"):
        kw["q"] = 0.5
    exp = value(ref[ep.name])
    if ep.host in GROUPED_HOSTS:
        return []  # groups of one or two elements: covered by the ungrouped hosts
    if ep.host in XARRAY_HOSTS and ep.family == "arg":
        return []
    obj, extract = build(ep.host, col)
    out = [Case(f"{tag}/totalorder", obj, kw, exp, extract)]
    if ep.name == "max":  # the picked sNaN keeps its exact bits (spec section 3)
        out[-1].expect.value = ANYTHING
        out.append(Case(f"{tag}/totalorder-bits", obj, kw, Expect(value=("bits", snan)),
                        extract))
    return out


def _huge_ints(ep: EntryPoint) -> list[Case]:
    vals = [10**1000, 1, 2, 7]
    if ep.family == "classify":
        exp = value(np.zeros(4, bool) if ep.name in ("isnan", "issignaling") else ANYTHING,
                    also_raises=(TypeError,), also_match="int|object")
        return [Case("list", vals, {}, exp)]
    if ep.family == "sort":
        if ep.host != "function" and ep.name != "sort_values" and ep.name != "rank":
            return Skip("no sort entry point on this host")  # pragma: no cover
        kw = {"nan_policy": "raise"}
        ref = {"sort": sorted(vals), "argsort": [1, 2, 3, 0], "sort_values": sorted(vals),
               "rank": [4.0, 1.0, 2.0, 3.0]}[ep.name]
        obj, extract = build(ep.host, np.array(vals, dtype=object))
        return [Case("object", obj, kw, value(np.array(ref, dtype=object)
                                              if ep.name != "rank" else np.array(ref)),
                     extract)]
    return standard_cases(ep, np.array(vals, dtype=object), ["raise", "omit"], dtype=None)


DEC = [Decimal("1.5"), Decimal("NaN123"), Decimal("-NaN7"), Decimal("2.5")]


def _decimal_nan(ep: EntryPoint) -> list[Case]:
    col = np.array(DEC, dtype=object)
    if ep.family == "classify":
        exp = value(np.array([False, True, True, False]) if ep.name == "isnan" else ANYTHING,
                    also_raises=(TypeError,), also_match="Decimal|object")
        return [Case("list", list(DEC), {}, exp), Case("object", col, {}, exp)]
    if ep.family == "sort":
        return _decimal_sort(ep, col)
    cases = standard_cases(ep, col, ["raise", "omit"], dtype=None, list_form=True)
    if not ep.takes("nan_policy") or ep.family not in ("order", "moment"):
        return cases
    extra = {("propagate", n): Decimal("NaN123") for n in FAMILY_ORDER_MOMENT}
    extra.update({("totalorder", "median"): Decimal("2.0"),
                  ("totalorder", "median_low"): Decimal("1.5"),
                  ("totalorder", "median_high"): Decimal("2.5"),
                  ("totalorder", "min"): Decimal("-NaN7"),
                  ("totalorder", "max"): Decimal("NaN123")})
    for policy in ("propagate", "totalorder"):
        ref = extra.get((policy, ep.name))
        if ref is None:
            continue
        kw: dict[str, Any] = {"nan_policy": policy}
        if ep.takes("q"):
            kw["q"] = 0.5
        if ep.host in GROUPED_HOSTS:
            continue  # groups split the payloads; covered ungrouped
        obj, extract = build(ep.host, col if ep.host != "function" else list(DEC))
        cases.append(Case(policy, obj, kw, value(ref, exact_type=True), extract))
    return cases


FAMILY_ORDER_MOMENT = ("median", "median_low", "median_high", "min", "max", "mean", "sum",
                       "quantile")


def _decimal_sort(ep: EntryPoint, col: np.ndarray) -> list[Case]:
    # totalorder: -NaN7 < 1.5 < 2.5 < NaN123
    order = [2, 0, 3, 1]
    ref = {"sort": [str(DEC[i]) for i in order], "argsort": order,
           "sort_values": [str(DEC[i]) for i in order], "rank": [2.0, 4.0, 1.0, 3.0]}
    obj, extract = build(ep.host, col if ep.host != "function" else list(DEC))

    def ext(r: Any, _e: Callable = extract) -> Any:
        r = _e(r)
        if ep.name in ("sort", "sort_values"):
            return [str(x) for x in np.asarray(r, dtype=object).tolist()]
        return r

    return [Case("totalorder", obj, {"nan_policy": "totalorder"},
                 value(np.array(ref[ep.name]) if ep.name != "sort" and ep.name != "sort_values"
                       else ref[ep.name]), ext)]


def _readonly(ep: EntryPoint) -> list[Case]:
    col = np.array([3.0, np.nan, 1.0, 2.0, 8.0])
    col.setflags(write=False)
    return standard_cases(ep, col, STD_POLICIES, dtype=np.float64)


def _zero_d(ep: EntryPoint) -> list[Case]:
    cases = []
    for tag, v in (("3.5", 3.5), ("nan", np.nan)):
        col = np.array(v)
        if ep.family == "sort":
            kw = {"nan_policy": "totalorder"}
            obj, extract = build(ep.host, col)
            cases.append(Case(f"{tag}/sort", obj, kw,
                              value(ANYTHING, also_raises=(ValueError, TypeError),
                                    also_match="axis|0-d|dimension|scalar")))
            continue
        if ep.family == "arg" and ep.host == "function":
            pols = ["omit"] if tag == "3.5" else []
            cases += [Case(f"{tag}/{p}", col, {"nan_policy": p}, value(0)) for p in pols]
            continue
        new = standard_cases(ep, col, ["raise", "omit"], dtype=np.float64,
                             list_form=False, tag=f"{tag}/")
        for c in new:
            exp = c.expect
            if ep.family == "classify" and isinstance(exp.value, np.ndarray):
                exp.value = exp.value.reshape(())  # elementwise of a 0-d array is 0-d
            if ep.host == "function" and exp.is_error and na.NaNError in exp.raises:
                # a 0-d array has one element and no position to name
                exp.match = "NaN" if tag == "nan" else exp.match
        cases += new
    return cases


def _noncontiguous(ep: EntryPoint) -> list[Case]:
    base = np.arange(30, dtype=np.float64).reshape(5, 6) * 1.5
    base[2, 3] = np.nan
    col = base[:, 3]  # strided column, holds the NaN
    rev = base[::-1, ::2].T[1]  # reversed, strided
    assert not col.flags.c_contiguous and not rev.flags.c_contiguous
    cases = standard_cases(ep, col, STD_POLICIES, dtype=np.float64, tag="column/")
    cases += standard_cases(ep, rev, ["raise", "omit"], dtype=np.float64, list_form=False,
                            tag="reversed/")
    for c in cases:
        c.protect.append(base)
    return cases


def _bigendian(ep: EntryPoint) -> list[Case]:
    cases = []
    for dt in (">f8", ">f4", ">i8"):
        vals = [3.0, np.nan, 1.0, 2.0, 8.0] if dt[1] == "f" else [3, 9, 1, 2, 8]
        col = np.array(vals, dtype=dt)
        cases += standard_cases(ep, col, STD_POLICIES, dtype=dt, list_form=False,
                                tag=f"{dt}/")
    return cases


def _float16(ep: EntryPoint) -> list[Case]:
    col = np.array([1.0, 2.5, np.nan, 4.0, 0.5, 3.0], dtype=np.float16)
    return standard_cases(ep, col, STD_POLICIES, dtype=np.float16, list_form=False)


def _unknown_policy(ep: EntryPoint) -> list[Case] | Skip:
    if not ep.takes("nan_policy"):
        return Skip("entry point takes no nan_policy")
    col = np.array([1.0, 2.0, 4.0])
    regex = r"ignore.*'omit'|'omit'.*ignore"
    out = []
    for bad in ("ignore", "OMIT ", "nan"):
        obj, extract = build(ep.host, col)
        kw: dict[str, Any] = {"nan_policy": bad}
        if ep.takes("q"):
            kw["q"] = 0.5
        out.append(Case(bad, obj, kw, raises(ValueError, regex.replace("ignore",
                                                                      _re_escape(bad)))))
    return out


def _re_escape(s: str) -> str:
    import re

    return re.escape(s)


def _bad_q(ep: EntryPoint) -> list[Case] | Skip:
    col = np.array([1.0, 2.0, 4.0, 8.0])
    out = []
    if ep.takes("q"):
        for q in (1.5, -0.1, np.nan, [0.5, 2.0]):
            obj, extract = build(ep.host, col)
            out.append(Case(f"q={q}", obj, {"q": q, "nan_policy": "omit"},
                            raises(ValueError, r"\bq\b|quantile")))
        return out
    if ep.takes("percentiles"):
        for p in ([1.5], [-0.2], [np.nan]):
            obj, extract = build(ep.host, col)
            out.append(Case(f"percentiles={p}", obj, {"percentiles": p, "nan_policy": "omit"},
                            raises(ValueError, r"percentile")))
        return out
    if ep.takes("n") and ep.family == "quantiles":
        for n in (0, -1):
            out.append(Case(f"n={n}", col, {"n": n, "nan_policy": "omit"},
                            raises(statistics.StatisticsError, r"\bn\b")))
        return out
    return Skip("entry point takes no q / percentiles / n")


def _duplicate_labels(ep: EntryPoint) -> list[Case]:
    col = np.array([1.0, np.nan, 3.0, 2.0, 5.0])
    index = ["a", "b", "b", "a", "c"]
    if ep.host == "function":
        s = make_series(col, index=index)
        out = []
        for case in standard_cases(ep, col, STD_POLICIES, dtype=np.float64, list_form=False):
            exp = case.expect
            if exp.is_error and na.NaNError in exp.raises:
                exp = raises(exp.raises, r"index 'b'")
            elif ep.family == "arg" and not exp.is_error:
                exp = value(ANYTHING)  # label or position: both name the place
            elif ep.family == "classify":
                exp = value(ANYTHING, also_raises=(TypeError,), also_match=".")
            out.append(Case(case.label.replace("ndarray", "Series"), s, case.kw, exp))
        return out
    cases = standard_cases(ep, col, STD_POLICIES, dtype=np.float64, index=index)
    for c in cases:
        if c.expect.is_error and na.NaNError in c.expect.raises:
            where = r"t='b'" if ep.host in XARRAY_HOSTS else r"index 'b'"
            c.expect = raises(c.expect.raises, rf"{c.expect.match}.*{where}|{where}")
    return cases


def _multiindex(ep: EntryPoint) -> list[Case] | Skip:
    col = np.array([1.0, np.nan, 3.0, 2.0])
    rows = pd.MultiIndex.from_tuples([(2024, "x"), (2024, "y"), (2025, "x"), (2025, "y")],
                                     names=["year", "site"])
    cols = pd.MultiIndex.from_tuples([("m", NAME), ("m", OK)])
    key = ("m", NAME)
    if ep.host in XARRAY_HOSTS:
        return Skip("xarray has no MultiIndex columns (variables are flat names); stacked "
                    "dims are plain labels there")
    df = pd.DataFrame(np.column_stack([col, np.arange(4.0)]), index=rows, columns=cols)
    s = df[key].rename(NAME)
    # labels are tuples; numpy scalars inside are shown as np.int64(2024): see
    # test_regression_multiindex_label_repr
    loc_row = r"index \((np\.int64\()?2024\)?, 'y'\)"
    loc_col = r"column \('m', 'temp'\)"
    out = []
    for policy in STD_POLICIES if ep.takes("nan_policy") else [None]:
        kw: dict[str, Any] = {"nan_policy": policy} if policy else {}
        if ep.takes("q"):
            kw["q"] = 0.5
        pol = policy or "raise"
        host = ep.host
        if host in ("function", "frame"):
            obj, label = (df, "frame")
        elif host == "series":
            obj, label = (s, "series")
        elif host == "sgroupby":
            obj, label = (s.groupby(level="year"), "grouped")
        elif host == "dfgroupby":
            obj, label = (df.groupby(level="year"), "grouped")
        else:  # agg
            obj, label = (df[key].groupby(level="year"), "grouped")
        if ep.family == "classify" or ep.family == "sort" and host == "function":
            out.append(Case(f"{label}/{policy}", obj, kw,
                            value(ANYTHING, also_raises=DOCUMENTED, also_match=".")))
            continue
        if label == "grouped":
            per = {2024: [1.0, np.nan], 2025: [3.0, 2.0]}
            exp = _merge_groups({g: column_reference(ep, v, pol if policy else None,
                                                     host="sgroupby", form="array",
                                                     dtype=np.float64)
                                 for g, v in per.items()})
        else:
            exp = column_reference(ep, elements(col), policy,
                                   host="function" if host == "function" else "series",
                                   form="array", dtype=np.float64, labels=list(rows))
            if host == "function" and ep.family == "arg":
                exp = value(ANYTHING, also_raises=DOCUMENTED, also_match=".")
        if exp.is_error and na.NaNError in exp.raises:
            exp = raises(exp.raises, loc_row if label == "series" else rf"{loc_col}.*{loc_row}"
                         if label == "frame" else f"'{NAME}'")
        out.append(Case(f"{label}/{policy}", obj, kw, exp,
                        _mi_extract(label, key)))
    return out


def _mi_extract(label: str, key: tuple) -> Callable[[Any], Any]:
    def ext(r: Any) -> Any:
        if label == "series":
            return r
        if isinstance(r, pd.DataFrame):
            if key in r.index:
                r = r.loc[key]
            elif key in r.columns or label != "grouped":
                r = r[key]
        elif isinstance(r, pd.Series) and label == "frame":
            r = r[key]
        if label == "grouped" and isinstance(r, pd.DataFrame):
            # a grouped describe / nan_report table (groups x rows): {group: {row: v}}
            return {g: dict(row.items()) for g, row in r.iterrows()}
        if label == "grouped" and isinstance(r, pd.Series):
            return dict(r.items())
        return r
    return ext


def _grouped(ep: EntryPoint, col: Any, keys: Any, policies: list[str],
             gkw: dict, members: dict[Any, list[int]], tag: str,
             empty_groups: tuple = ()) -> list[Case]:
    out = []
    elems = elements(col)
    for policy in policies if ep.takes("nan_policy") else [None]:
        kw: dict[str, Any] = {"nan_policy": policy} if policy else {}
        if ep.takes("q"):
            kw["q"] = 0.5
        per = {g: column_reference(ep, [elems[i] for i in idx], policy, host=ep.host,
                                   form="array", dtype=np.float64)
               for g, idx in members.items()}
        exp = _merge_groups(per)
        if exp.is_error and na.NaNError in exp.raises and ep.host != "agg":
            exp = raises(exp.raises, rf"{exp.match}|group")
        obj, extract = build(ep.host, col, keys=keys, groupby_kw=gkw)
        out.append(Case(f"{tag}{policy}", obj, kw, exp, extract))
    return out


def _empty_groups(ep: EntryPoint) -> list[Case]:
    col = np.array([1.0, 2.0, np.nan, np.nan, 4.0])
    keys = ["a", "a", "b", "b", "a"]
    out = _grouped(ep, col, keys, STD_POLICIES, {}, {"a": [0, 1, 4], "b": [2, 3]}, "")
    for c in out:  # the error must name the group whose values are all NaN
        if c.expect.is_error and na.NaNError in c.expect.raises and ep.host != "agg":
            c.expect.match = r"group 'b'"
    empty = np.array([], dtype=np.float64)
    if ep.host != "xgroupby":
        out += _grouped(ep, empty, [], ["raise", "omit"], {}, {}, "no-rows/")
    return out


def _categorical(ep: EntryPoint) -> list[Case] | Skip:
    if ep.host == "xgroupby":
        return Skip("xarray group keys carry no categories (nothing unobserved to keep)")
    col = np.array([1.0, 2.0, 3.0, 5.0])
    keys = pd.Categorical(["a", "a", "b", "b"], categories=["a", "b", "c"])
    out = []
    for observed in (False, True):
        members: dict[Any, list[int]] = {"a": [0, 1], "b": [2, 3]}
        if not observed:
            members["c"] = []
        out += _grouped(ep, col, pd.Series(keys), ["raise", "omit"],
                        {"observed": observed}, members, f"observed={observed}/")
    return out


def _nan_keys(ep: EntryPoint) -> list[Case]:
    col = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    keys = ["a", np.nan, "b", "a", np.nan]
    out = _grouped(ep, col, keys, ["raise", "omit"], {}, {"a": [0, 3], "b": [2]},
                   "dropna=True/")
    if ep.host != "xgroupby":
        out += _grouped(ep, col, keys, ["omit"], {"dropna": False},
                        {"a": [0, 3], "b": [2], np.nan: [1, 4]}, "dropna=False/")
    return out


_ZERO_D_REASON = ("a 0-d array has no pandas form (pandas makes it a length-1 Series: the "
                  "single-element kind)")
_MI_HOSTS = ALL_HOSTS

KINDS: list[InputKind] = [
    InputKind("strings", ALL_HOSTS, _strings),
    InputKind("complex", ALL_HOSTS, _complex),
    InputKind("mixed_objects", ALL_HOSTS, _mixed),
    InputKind("empty", ALL_HOSTS, _empty),
    InputKind("all_nan", ALL_HOSTS, _all_nan),
    InputKind("all_missing", ALL_HOSTS, _all_missing),
    InputKind("single_element", ALL_HOSTS, _single),
    InputKind("signaling_nan", ALL_HOSTS, _signaling),
    InputKind("huge_ints", ALL_HOSTS, _huge_ints),
    InputKind("decimal_nan_payloads", ALL_HOSTS, _decimal_nan),
    InputKind("readonly", ALL_HOSTS, _readonly),
    InputKind("zero_d", frozenset({"function", "dataarray", "dataset"}), _zero_d,
              {h: _ZERO_D_REASON for h in PANDAS_HOSTS}
              | {"xgroupby": "a 0-d DataArray has no dimension to group along"}),
    InputKind("noncontiguous", ALL_HOSTS, _noncontiguous),
    InputKind("bigendian", ALL_HOSTS - {"agg"}, _bigendian,
              {"agg": "pandas' own groupby split (take_1d) refuses big-endian buffers "
                      "before any .agg callable runs (plain .agg(lambda s: s.median()) "
                      "fails the same way); the grouped nanstats hosts cover the data"}),
    InputKind("float16", ALL_HOSTS, _float16),
    InputKind("unknown_policy", ALL_HOSTS, _unknown_policy),
    InputKind("bad_q", ALL_HOSTS, _bad_q),
    InputKind("duplicate_labels", ALL_HOSTS, _duplicate_labels),
    InputKind("multiindex", ALL_HOSTS, _multiindex),
    InputKind("empty_groups", GROUPED_HOSTS, _empty_groups,
              dict.fromkeys(UNGROUPED_HOSTS, NOT_GROUPED)),
    InputKind("categorical_unobserved", GROUPED_HOSTS, _categorical,
              dict.fromkeys(UNGROUPED_HOSTS, NOT_GROUPED)),
    InputKind("nan_group_keys", GROUPED_HOSTS, _nan_keys,
              dict.fromkeys(UNGROUPED_HOSTS, NOT_GROUPED)),
]

# the kinds of issue 25 (round 3) live in their own module (this one is long enough)
from .inputs_round3 import ROUND3_KINDS  # noqa: E402

KINDS += ROUND3_KINDS
