"""Output of ``nanaccess describe``: tidy records, shown as a table, CSV or JSON.

One record per column x policy x statistic (and per group with ``--groupby``); the
counts of each kind of value (``nan_report``'s names with an ``n_`` prefix: ``n_nan``,
``n_missing``, ...) are records too, with an empty policy. Fields:
``[group,] column, policy, statistic, value, text, error``:

* ``value``: the number at full precision (``repr`` round-trips), empty (CSV) / null
  (JSON) for a NaN, a missing result or an error;
* ``text``: the value as the table shows it (``3.5``, ``-nan``, ``snan(1)``, ``<NA>``);
* ``error``: ``"NaNError: column 'a' holds ..."`` when the policy refused the data.

Examples
--------
>>> import numpy as np
>>> value_fields(np.float64(0.1) + 0.2), value_fields(-np.float64("nan")), value_fields(None)
((0.30000000000000004, '0.3'), (None, '-nan'), (None, '<NA>'))
"""

from __future__ import annotations

import json
import math
from typing import Any, TextIO

import numpy as np
import pandas as pd

__all__ = [
    "FIELDS", "COUNT_NAMES", "REPORT_COLUMNS", "value_fields", "show_table", "show_csv",
    "show_json", "table_schema",
]

#: the fields of a record after the group column
FIELDS = ("column", "policy", "statistic", "value", "text", "error")
#: nan_report's names -> the statistic names of the count records (``n_nan``: a bare
#: "nan" would be read back as NaN by ``pd.read_csv``)
COUNT_NAMES = {
    k: f"n_{k}"
    for k in ("values", "numbers", "nan", "quiet_nan", "signaling_nan", "negative_nan",
              "distinct_payloads", "posinf", "neginf", "missing")
}
#: count record names -> the short headers of the table
REPORT_COLUMNS = {
    "n_values": "values",
    "n_numbers": "numbers",
    "n_nan": "nan",
    "n_quiet_nan": "quiet",
    "n_signaling_nan": "signaling",
    "n_negative_nan": "negative",
    "n_distinct_payloads": "payloads",
    "n_posinf": "+inf",
    "n_neginf": "-inf",
    "n_missing": "missing",
}


def value_fields(value: Any) -> tuple[int | float | None, str]:
    """(number at full precision or None, the text the table shows)."""
    if value is None or value is pd.NA or value is pd.NaT:
        return None, "<NA>"
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, float | np.floating):
        if math.isnan(value):
            return None, _nan_text(value)
        return float(value), f"{float(value):.6g}"
    if isinstance(value, bool | np.bool_):
        return int(value), str(int(value))
    if isinstance(value, int | np.integer):
        return int(value), str(int(value))
    return None, str(value)


def _nan_text(value: Any) -> str:
    from ..core.bits import layout_of

    a = np.asarray(value).reshape(1)
    lay = layout_of(a.dtype)
    bits = int(a.view(lay.uint_dtype)[0])
    payload = bits & lay.payload_mask
    sign = "-" if bits & lay.sign_bit else ""
    name = "nan" if bits & lay.quiet_bit else "snan"
    if not payload:
        return f"{sign}{name}"
    return f"{sign}{name}({payload if payload < 1 << 16 else hex(payload)})"


def _wide(records: pd.DataFrame, index: list[str], names: list[str]) -> pd.DataFrame:
    """records -> one row per index, one column per statistic (the shown text)."""
    err = records["error"]
    # a refused cell shows the error's class name (records are few: no hot path)
    short = err.map(lambda e: e.split(":")[0] if isinstance(e, str) else None)
    shown = records["text"].where(err.isna(), short)
    wide = records.assign(text=shown).pivot(index=index, columns="statistic", values="text")
    return wide.reindex(columns=names).reindex(records.set_index(index).index.unique())


def show_table(
    out: TextIO,
    header: str,
    counts: pd.DataFrame,
    group_counts: pd.DataFrame | None,
    stats: pd.DataFrame,
    *,
    stat_names: list[str],
    groupby: str | None,
    one_policy: bool,
    title: str,
    sections: list[tuple[str, pd.DataFrame]],
    notes: list[str],
    noun: str = "column",
) -> None:
    """The aligned text tables (pandas' ``to_string``)."""
    print(header, file=out)
    print(file=out)
    for name, frame in sections:  # NetCDF: variables and coordinates
        print(name, file=out)
        print(frame.to_string(), file=out)
        print(file=out)
    print("NaN kinds", file=out)
    print(_wide(counts, ["column"], list(REPORT_COLUMNS)).rename(columns=REPORT_COLUMNS)
          .rename_axis(index=noun, columns=None).to_string(), file=out)
    if group_counts is not None and len(group_counts):
        print(file=out)
        print(f"NaN kinds, by {groupby}", file=out)
        wide = _wide(group_counts, [str(groupby), "column"], list(REPORT_COLUMNS))
        print(wide.rename(columns=REPORT_COLUMNS).rename_axis(columns=None)
              .rename_axis(index={"column": noun}).to_string(sparsify=False), file=out)
    print(file=out)
    print(title, file=out)
    index = ([str(groupby)] if groupby is not None else []) + ["column"]
    index += [] if one_policy else ["policy"]
    if len(stats):
        wide = _wide(stats, index, stat_names).rename_axis(columns=None)
        wide = wide.rename_axis(index={"column": noun})
        print(wide.to_string(sparsify=False), file=out)
    if notes:
        print(file=out)
        for n in notes:
            print(f"note: {n}", file=out)


def tidy(records: list[dict[Any, Any]], groupby: str | None) -> pd.DataFrame:
    """The records as one frame with the documented columns, in order."""
    cols = ([str(groupby)] if groupby is not None else []) + list(FIELDS)
    # object columns: ints stay exact ints (no float64 round trip), floats keep repr
    return pd.DataFrame(
        {c: pd.Series([r.get(c) for r in records], dtype=object) for c in cols}, columns=cols
    )


def show_csv(out: TextIO, frame: pd.DataFrame) -> None:
    """One CSV table, read back by ``pd.read_csv`` without options."""
    frame.to_csv(out, index=False, lineterminator="\n")


def show_json(out: TextIO, doc: dict[Any, Any]) -> None:
    """One JSON document; numbers at full precision (``json`` writes ``repr``:
    pandas' ``to_json`` stops at 15 significant digits)."""
    json.dump(_jsonable(doc), out, indent=1, allow_nan=False)
    out.write("\n")


def table_schema(groupby: str | None) -> dict[Any, Any]:
    """pandas' Table Schema of the records (``orient="table"``): ``value`` a number
    (float64 when read back), every other field a string.

    Examples
    --------
    >>> [f["type"] for f in table_schema(None)["fields"]]
    ['string', 'string', 'string', 'number', 'string', 'string']
    """
    names = ([str(groupby)] if groupby is not None else []) + list(FIELDS)
    fields = [{"name": n, "type": "number" if n == "value" else "string"} for n in names]
    return {"fields": fields, "pandas_version": "1.4.0"}


def records_of(frame: pd.DataFrame) -> list[dict[Any, Any]]:
    """The frame's rows as dicts, pandas' missing values as None."""
    clean = frame.astype(object).where(frame.notna(), None)
    return clean.to_dict(orient="records")


def _jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return _jsonable(x.tolist())
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, float) and not math.isfinite(x):
        return repr(x)  # attributes such as _FillValue = nan: JSON has no NaN
    if isinstance(x, bytes):
        return x.decode("utf-8", "replace")
    if x is None or isinstance(x, bool | int | float | str):
        return x
    return str(x)
