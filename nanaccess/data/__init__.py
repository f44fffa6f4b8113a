"""Bundled sample data: a daily weather table with gaps, and NaNs that keep their bits.

``sensors.csv`` and ``forensic.parquet`` are written by
:mod:`nanaccess.data.make_sample` (see there for what each holds).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

if TYPE_CHECKING:  # xarray is imported by sensors_dataarray's caller's .to_xarray()
    import xarray as xr

__all__ = [
    "sample_path",
    "load_sensors",
    "load_forensic",
    "sensors_dataarray",
    "PAYLOAD_TAGS",
]

from .make_sample import PAYLOAD_TAGS

_HERE = Path(__file__).resolve().parent
_FILES = ("sensors.csv", "forensic.parquet")


def sample_path(name: str = "sensors.csv") -> Path:
    """Path of a bundled sample file.

    Parameters
    ----------
    name : {"sensors.csv", "forensic.parquet"}
        Which file.

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> from nanaccess.data import sample_path
    >>> sample_path().name
    'sensors.csv'
    >>> sample_path("forensic.parquet").exists()
    True
    """
    if name not in _FILES:
        raise ValueError(f"unknown sample file {name!r}; bundled files: {', '.join(_FILES)}")
    return _HERE / name


def load_sensors() -> pd.DataFrame:
    """The daily weather table: 4 stations x 120 days, with gaps.

    Columns ``date`` (datetime64), ``station`` (str), and the float columns
    ``temp_c``, ``humidity_pct``, ``pressure_hpa``, ``wind_ms``, ``precip_mm``. The
    gaps are canonical quiet NaNs (all CSV can hold): station "airport" has none,
    "harbour" a few scattered ones, "hill" a ten-day outage of temperature and wind in
    February, and "north" a pressure sensor that never reported.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> from nanaccess.data import load_sensors
    >>> df = load_sensors()
    >>> df.shape
    (480, 7)
    >>> df.groupby("station")["temp_c"].apply(lambda s: int(s.isna().sum()))
    station
    airport     0
    harbour     6
    hill       10
    north       4
    Name: temp_c, dtype: int64
    """
    df = pd.read_csv(sample_path("sensors.csv"), parse_dates=["date"])
    return df


def load_forensic(dtype_backend: str = "pyarrow") -> pd.DataFrame:
    """Hourly readings whose NaNs differ in sign, payload and the quiet bit, plus nulls.

    Read from ``forensic.parquet``, which stores every float bit for bit. Column
    ``temp_c`` holds NaNs made by ``0/0`` (negative on x86) and two nulls;
    ``humidity_pct`` NaNs tagged with payloads 1, 2, 3 (see
    :data:`nanaccess.data.PAYLOAD_TAGS`); ``pressure_hpa`` a signaling NaN, an
    ``inf - inf`` NaN and four trailing nulls.

    Parameters
    ----------
    dtype_backend : {"pyarrow", "numpy"}
        "pyarrow" (default) keeps nulls apart from NaNs (Arrow ``double`` columns);
        "numpy" gives float64 columns, where each null becomes the canonical NaN.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``time``.

    Raises
    ------
    ImportError
        If pyarrow is not installed (``pip install "nanaccess[io]"``).

    Examples
    --------
    >>> from nanaccess.data import load_forensic
    >>> df = load_forensic("numpy")
    >>> hum = df["humidity_pct"].to_numpy()
    >>> sorted({hex(b) for b in hum.view("u8")[np.isnan(hum)]})
    ['0x7ff8000000000001', '0x7ff8000000000002', '0x7ff8000000000003']
    >>> int(load_forensic()["pressure_hpa"].isna().sum())  # nulls only, not NaNs
    4
    """
    if dtype_backend not in ("pyarrow", "numpy"):
        raise ValueError(f"dtype_backend must be 'pyarrow' or 'numpy', not {dtype_backend!r}")
    try:
        import pyarrow.parquet as pq
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(
            'load_forensic() needs pyarrow: pip install "nanaccess[io]" (or pip install pyarrow)'
        ) from None
    table = pq.read_table(sample_path("forensic.parquet"))
    if dtype_backend == "pyarrow":
        df = table.to_pandas(types_mapper=pd.ArrowDtype)
    else:
        df = pd.DataFrame(
            {
                name: _column_to_numpy(table.column(name))
                for name in table.column_names
                if name != "time"
            }
        )
        df.insert(0, "time", table.column("time").to_numpy())
    return cast("pd.DataFrame", df.set_index("time"))


def _column_to_numpy(col: Any) -> np.ndarray:
    """float64 values of an Arrow column, bit for bit; nulls become canonical NaN."""
    from .._arrow import float_values

    values, nulls = float_values(col)
    if nulls is not None:
        values[nulls] = np.nan
    return values.astype(np.float64, copy=False)


def sensors_dataarray(variable: str = "temp_c") -> xr.DataArray:
    """One variable of the weather table as a ``(station, time)`` DataArray.

    Parameters
    ----------
    variable : str
        A float column of :func:`load_sensors`.

    Returns
    -------
    xarray.DataArray

    Examples
    --------
    >>> from nanaccess.data import sensors_dataarray
    >>> da = sensors_dataarray()
    >>> da.dims, da.shape
    (('station', 'time'), (4, 120))
    >>> int(da.isnull().sum())
    20
    """
    df = load_sensors()
    if variable not in df.columns or variable in ("date", "station"):
        raise ValueError(f"no float variable {variable!r} in the sensors table")
    da = df.rename(columns={"date": "time"}).set_index(["station", "time"])[variable].to_xarray()
    da.attrs.update(
        units={"temp_c": "degC", "humidity_pct": "%", "pressure_hpa": "hPa"}.get(
            variable, {"wind_ms": "m s-1", "precip_mm": "mm"}.get(variable, "")
        )
    )
    return da
