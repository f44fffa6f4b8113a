"""``nanaccess describe`` on NetCDF: each variable over its own dimensions, fill values
missing, stored NaNs kept, dims/attributes shown, coordinates listed apart."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from nanaccess.cli import main, read_table

netCDF4 = pytest.importorskip("netCDF4")


def run_json(capsys: pytest.CaptureFixture, *args: object) -> tuple[int, dict]:
    code = main(["describe", *map(str, args), "--format", "json"])
    out, err = capsys.readouterr()
    assert out, err
    return code, json.loads(out)


def counts(doc: dict, column: str) -> dict[str, int]:
    return {r["statistic"].removeprefix("n_"): r["value"] for r in doc["counts"]
            if r["column"] == column}


def stat(doc: dict, column: str, name: str, policy: str = "omit", **group: object) -> object:
    (rec,) = [
        r for r in doc["statistics"]
        if r["column"] == column and r["statistic"] == name and r["policy"] == policy
        and all(r.get(k) == v for k, v in group.items())
    ]
    return rec["value"]


TEMP = np.arange(24.0).reshape(6, 4)
TEMP[0, 0] = np.nan  # a real NaN stored in the file
TEMP[2, 2] = -np.nan  # a negative one
TEMP[1, 1] = -999.0  # the fill value: missing
ELEV = np.array([10, -1, 30, 40, 50, 60], dtype=np.int32)  # -1: missing_value


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    """temp(t, x) with _FillValue -999 and stored NaNs; elev(t) int with missing_value;
    packed(t) int16 with scale_factor/add_offset and a fill; coords t, x and site(x)."""
    path = tmp_path / "mixed.nc"
    with netCDF4.Dataset(path, "w") as d:
        d.title = "test"
        d.createDimension("t", 6)
        d.createDimension("x", 4)
        d.createVariable("t", "f8", ("t",))[:] = np.arange(6) * 10.0
        d.createVariable("x", "f8", ("x",))[:] = [0.5, 1.5, 2.5, 3.5]
        site = d.createVariable("site", str, ("x",))
        site[:] = np.array(["a", "a", "b", "b"], dtype=object)
        temp = d.createVariable("temp", "f8", ("t", "x"), fill_value=-999.0)
        temp.set_auto_mask(False)
        temp.units = "K"
        temp.coordinates = "site"
        temp[:] = TEMP
        elev = d.createVariable("elev", "i4", ("t",))
        elev.set_auto_mask(False)
        elev.missing_value = np.int32(-1)
        elev.long_name = "elevation"
        elev[:] = ELEV
        packed = d.createVariable("packed", "i2", ("t",), fill_value=np.int16(-32767))
        packed.set_auto_maskandscale(False)
        packed.scale_factor = 0.5
        packed.add_offset = 100.0
        packed[:] = np.array([0, 2, -32767, 4, 6, 8], dtype=np.int16)
    return path


def test_each_variable_over_its_own_dimensions(mixed: Path, capsys: pytest.CaptureFixture):
    code, doc = run_json(capsys, mixed, "--policy", "omit", "--stats", "count,min,median,max")
    assert code == 0
    # elev has its own 6 values (not 24 with 18 "missing"), one of them missing_value
    e = counts(doc, "elev")
    assert (e["values"], e["numbers"], e["missing"], e["nan"]) == (6, 5, 1, 0)
    present = np.array([10, 30, 40, 50, 60])
    assert stat(doc, "elev", "median") == np.median(present)
    assert stat(doc, "elev", "min") == 10 and stat(doc, "elev", "max") == 60
    for policy in ("smallest", "largest", "totalorder"):  # used to print nan
        code, d2 = run_json(capsys, mixed, "--policy", policy, "--columns", "elev",
                            "--stats", "min")
        assert d2["statistics"][0]["text"] != "nan"
    # temp: 24 values; the fill is missing, the stored NaNs stay NaN with their sign
    t = counts(doc, "temp")
    assert (t["values"], t["missing"], t["nan"], t["negative_nan"]) == (24, 1, 2, 1)
    numbers = TEMP[~np.isnan(TEMP) & (TEMP != -999.0)]
    assert stat(doc, "temp", "median") == np.median(numbers)
    assert t["numbers"] == numbers.size


def test_scale_offset_and_fill(mixed: Path, capsys: pytest.CaptureFixture):
    xr = pytest.importorskip("xarray")
    code, doc = run_json(capsys, mixed, "--policy", "omit", "--columns", "packed",
                         "--stats", "mean,max")
    assert code == 0
    assert counts(doc, "packed")["missing"] == 1
    with xr.open_dataset(mixed) as ds:  # xarray's own decoding as the reference
        ref = ds["packed"].values
    assert stat(doc, "packed", "mean") == np.nanmean(ref)
    assert stat(doc, "packed", "max") == np.nanmax(ref)


def test_dims_attributes_and_coordinates(mixed: Path, capsys: pytest.CaptureFixture):
    code, doc = run_json(capsys, mixed, "--policy", "omit")
    assert code == 0
    assert set(doc["variables"]) == {"temp", "elev", "packed"}
    assert doc["variables"]["temp"]["dims"] == {"t": 6, "x": 4}
    assert doc["variables"]["temp"]["attrs"]["units"] == "K"
    assert doc["variables"]["elev"]["attrs"]["missing_value"] == -1
    assert set(doc["coordinates"]) == {"t", "x", "site"}
    assert {r["column"] for r in doc["counts"]} == {"temp", "elev", "packed"}
    assert main(["describe", str(mixed), "--policy", "omit"]) == 0
    out = capsys.readouterr().out
    variables = out.split("Variables\n")[1].split("\n\n")[0]
    assert "t=6, x=4" in variables and "units='K'" in variables
    assert "long_name='elevation'" in variables
    coords = out.split("Coordinates\n")[1].split("\n\n")[0]
    assert {line.split()[0] for line in coords.splitlines()[2:]} == {"t", "x", "site"}


def test_groupby_a_coordinate(mixed: Path, capsys: pytest.CaptureFixture):
    code, doc = run_json(capsys, mixed, "--policy", "omit", "--groupby", "site",
                         "--stats", "max,count")
    assert code == 0
    # site is on x: temp is split by it; elev and packed have no x and are noted
    a_cols = np.isin(np.arange(4), [0, 1])
    for key, cols in (("a", a_cols), ("b", ~a_cols)):
        part = TEMP[:, cols]
        ok = part[~np.isnan(part) & (part != -999.0)]
        assert stat(doc, "temp", "max", site=key) == ok.max()
        assert stat(doc, "temp", "count", site=key) == ok.size
    assert any("not grouped" in n and "elev" in n for n in doc["notes"])
    # by a dimension coordinate: every variable on t
    code, doc = run_json(capsys, mixed, "--policy", "omit", "--groupby", "t",
                         "--stats", "max")
    assert code == 0
    assert stat(doc, "elev", "max", t=20.0) == 30


def test_raise_names_the_variable_and_its_labels(mixed: Path, capsys: pytest.CaptureFixture):
    code, doc = run_json(capsys, mixed, "--policy", "raise", "--columns", "temp",
                         "--stats", "median")
    assert code == 3
    err = doc["statistics"][0]["error"]
    assert err.startswith("NaNError: variable 'temp' holds") and "t=0.0, x=0.5" in err


def test_reader_keeps_variables_apart(mixed: Path):
    table = read_table(mixed)
    assert table.frame is None
    assert {k: len(v) for k, v in table.data.items()} == {"temp": 24, "elev": 6, "packed": 6}
    assert str(table.data["elev"].dtype) == "Int32"


@pytest.mark.parametrize("fmt", ["NETCDF3_CLASSIC", "NETCDF3_64BIT_OFFSET", "NETCDF4"])
def test_every_format_from_a_file_and_from_stdin(tmp_path: Path, fmt: str):
    """One reader (netCDF4) for NetCDF3 and NetCDF4, from a path or stdin's bytes."""
    import io

    path = tmp_path / "f.nc"
    with netCDF4.Dataset(path, "w", format=fmt) as d:
        d.createDimension("t", 4)
        v = d.createVariable("v", "f8", ("t",), fill_value=-1.0)
        v.set_auto_mask(False)
        v[:] = np.array([1.0, -1.0, np.nan, 4.0])
    for table in (read_table(path), read_table("-", stdin=io.BytesIO(path.read_bytes()))):
        v = table.data["v"]
        assert str(v.dtype) == "Float64" and v.isna().tolist() == [False, True, False, False]
        assert np.isnan(v.array._data[2]) and v.array._data[3] == 4.0


def test_nan_fill_value_and_scaled_nan_keep_stored_nan_bits(tmp_path: Path):
    """A NaN _FillValue (xarray's default for floats) marks no stored NaN missing, and
    NaN payload and sign survive scale_factor / add_offset; times become dates."""
    bits = np.array([0x7FF8000000000007, 0xFFF8000000000000, 0x4000000000000000],
                    dtype=np.uint64)
    path = tmp_path / "nanfill.nc"
    with netCDF4.Dataset(path, "w") as d:
        d.createDimension("time", 3)
        t = d.createVariable("time", "f8", ("time",))
        t.units, t.calendar = "days since 2024-01-01", "proleptic_gregorian"
        t[:] = [0.0, 1.0, 2.0]
        for name in ("nanfill", "scaled"):
            v = d.createVariable(name, "f8", ("time",), fill_value=np.nan)
            v.set_auto_maskandscale(False)
            if name == "scaled":
                v.scale_factor, v.add_offset = 2.0, 1.0
            v[:] = bits.view(np.float64)
    table = read_table(path)
    for name, last in (("nanfill", 2.0), ("scaled", 5.0)):
        s = table.data[name]
        assert s.dtype == np.float64  # nothing missing: a plain float column
        assert s.to_numpy()[:2].view(np.uint64).tolist() == bits[:2].tolist()
        assert s.iloc[2] == last
    assert list(table.data["nanfill"].index) == list(
        np.array(["2024-01-01", "2024-01-02", "2024-01-03"], dtype="datetime64[ns]"))
