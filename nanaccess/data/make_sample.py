"""Regenerate the bundled sample data in ``nanaccess/data/``.

Run ``python -m nanaccess.data.make_sample`` (needs pyarrow). The output is
deterministic (fixed seed), so re-running it gives byte-identical CSV and the same
values in the Parquet file.

Two files are written:

``sensors.csv``
    A realistic daily weather table: 4 stations x 120 days (2024-01-01 ...
    2024-04-29), with the gaps real loggers have: a station with none, scattered
    missing readings, a ten-day outage of an iced sensor, and a pressure sensor that
    never reported. The gaps are written as ``NaN`` (a NaN reading, which pandas reads
    as the canonical quiet NaN); an empty cell would be a missing value (no bits, no
    sign), which is what the CLI reports it as.

``forensic.parquet``
    48 hourly readings of three sensors whose gaps keep their bit patterns, since
    Parquet stores IEEE floats bit for bit and has real nulls beside them: NaNs made
    by ``0/0`` (negative on x86), by ``inf - inf``, NaNs tagged with payloads as error
    codes, a signaling NaN from a legacy logger, and nulls (missing, not NaN).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["sensors_frame", "forensic_columns", "write_samples", "PAYLOAD_TAGS"]

HERE = Path(__file__).resolve().parent
SEED = 20240105

#: Payload tags used in ``forensic.parquet``: NaN payload -> meaning.
PAYLOAD_TAGS = {1: "sensor offline", 2: "out of range", 3: "checksum failure"}

_STATIONS = {
    # name: (mean temp, seasonal amplitude, noise, humidity, pressure offset)
    "airport": (4.0, 7.0, 2.0, 72.0, 0.0),
    "harbour": (6.5, 5.0, 1.5, 84.0, 1.5),
    "hill": (-1.5, 8.0, 2.5, 78.0, -95.0),
    "north": (1.0, 6.5, 2.2, 80.0, -4.0),
}


def sensors_frame(seed: int = SEED) -> pd.DataFrame:
    """The daily weather table written to ``sensors.csv`` (before CSV rounding)."""
    rng = np.random.default_rng(seed)
    days = pd.date_range("2024-01-01", periods=120, freq="D")
    t = np.arange(days.size)
    frames = []
    for name, (mean, amp, noise, hum, poff) in _STATIONS.items():
        temp = mean + amp * (t / days.size) ** 1.5 + rng.normal(0, noise, t.size)
        humidity = np.clip(hum + rng.normal(0, 8, t.size) - 0.05 * t, 20, 100)
        pressure = 1013 + poff + np.cumsum(rng.normal(0, 2.5, t.size)) * 0.6
        wind = rng.gamma(2.0, 2.2 if name != "hill" else 3.4, t.size)
        rain = np.where(rng.random(t.size) < 0.35, rng.gamma(1.2, 3.0, t.size), 0.0)
        df = pd.DataFrame(
            {
                "date": days,
                "station": name,
                "temp_c": temp.round(1),
                "humidity_pct": humidity.round(0),
                "pressure_hpa": pressure.round(1),
                "wind_ms": wind.round(1),
                "precip_mm": rain.round(1),
            }
        )
        if name == "harbour":  # scattered dropped readings
            for col, k in (("temp_c", 6), ("humidity_pct", 4), ("wind_ms", 3)):
                df.loc[rng.choice(t.size, k, replace=False), col] = np.nan
        elif name == "hill":  # iced sensors: a ten-day outage in February
            df.loc[(df.date >= "2024-02-10") & (df.date < "2024-02-20"), ["temp_c", "wind_ms"]] = (
                np.nan
            )
            df.loc[rng.choice(t.size, 2, replace=False), "precip_mm"] = np.nan
        elif name == "north":  # a pressure sensor that never reported, logger glitches
            df["pressure_hpa"] = np.nan
            df.loc[[4, 5, 6, 57], "temp_c"] = np.nan
        frames.append(df)
    return pd.concat(frames, ignore_index=True)


def _nan_bits(payload: int = 0, *, negative: bool = False, signaling: bool = False) -> int:
    bits = 0x7FF0000000000000 | payload
    if not signaling:
        bits |= 0x0008000000000000
    if negative:
        bits |= 0x8000000000000000
    return bits


def forensic_columns(seed: int = SEED) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The columns of ``forensic.parquet``: name -> (float64 values, null mask).

    The values are real IEEE doubles whose NaNs differ in sign, payload and the quiet
    bit; the mask marks nulls (missing values, which have no bits).
    """
    rng = np.random.default_rng(seed + 1)
    n = 48
    hours = np.arange(n)
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    # temperature: a ratio computed by firmware, 0/0 when the reference reads 0
    temp = (12 + 4 * np.sin(hours / 24 * 2 * np.pi) + rng.normal(0, 0.4, n)).round(2)
    ref = np.ones(n)
    ref[[7, 8, 30]] = 0.0
    with np.errstate(invalid="ignore", divide="ignore"):
        temp = np.where(ref == 0, (temp * ref) / ref, temp)  # 0/0: NaN (negative on x86)
    temp_mask = np.zeros(n, bool)
    temp_mask[[20, 21]] = True  # logger dropped the rows: nulls
    out["temp_c"] = (temp, temp_mask)

    # humidity: the driver tags failed reads with payload codes
    hum = (70 + 10 * np.cos(hours / 24 * 2 * np.pi) + rng.normal(0, 1.5, n)).round(1)
    bits = hum.view(np.uint64).copy()
    for idx, code in ((3, 1), (4, 1), (15, 2), (33, 3), (40, 1)):
        bits[idx] = _nan_bits(code)
    hum = bits.view(np.float64)
    out["humidity_pct"] = (hum, np.zeros(n, bool))

    # pressure: a legacy logger writes a signaling NaN; a calibration step did inf - inf
    pres = (1012 + np.cumsum(rng.normal(0, 0.3, n))).round(2)
    bits = pres.view(np.uint64).copy()
    bits[11] = _nan_bits(0x4000000000000 >> 2, signaling=True)  # 0x7FF1000000000000
    with np.errstate(invalid="ignore"):
        bits[25] = (np.array([np.inf]) - np.array([np.inf])).view(np.uint64)[0]
    pres = bits.view(np.float64)
    pres_mask = np.zeros(n, bool)
    pres_mask[44:] = True
    out["pressure_hpa"] = (pres, pres_mask)
    return out


def write_samples(directory: Path | str = HERE) -> list[Path]:
    """Write ``sensors.csv`` and ``forensic.parquet`` into ``directory``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    directory = Path(directory)
    csv = directory / "sensors.csv"
    df = sensors_frame()
    df.to_csv(csv, index=False, date_format="%Y-%m-%d", lineterminator="\n", na_rep="NaN")

    cols = forensic_columns()
    n = len(next(iter(cols.values()))[0])
    time = pd.date_range("2024-03-01", periods=n, freq="h").to_numpy()
    arrays = {"time": pa.array(time)}
    for name, (values, mask) in cols.items():
        # pa.array(ndarray, mask=...) keeps the float bits; from_pandas would turn NaN
        # into null, so it is not used here
        arrays[name] = pa.array(values, type=pa.float64(), mask=mask)
    table = pa.table(arrays)
    parquet = directory / "forensic.parquet"
    pq.write_table(table, parquet, compression="zstd")
    return [csv, parquet]


if __name__ == "__main__":  # pragma: no cover
    for path in write_samples():
        print(f"wrote {path}")
