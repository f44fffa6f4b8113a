"""``nanaccess describe``: ``--strict``, JSON that ``pd.read_json`` reads, progress lines
with human-readable sizes, formats told by content, and errors that name what to do."""

from __future__ import annotations

import gzip
import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from nanaccess.cli import main
from nanaccess.cli.progress import human_bytes

MESSY = "g,a,b,c\nx,1.5,2,7\ny,-nan,err,8\nx,3,4,NA\ny,4,5,9\n"


def _run(capsys: pytest.CaptureFixture, *args: object) -> tuple[int, str, str]:
    code = main(["describe", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def messy(tmp_path: Path) -> Path:
    path = tmp_path / "messy.csv"
    path.write_text(MESSY)
    return path


# -- --strict ---------------------------------------------------------------------------


def test_strict_refuses_a_dropped_column_naming_column_and_cell(messy, capsys):
    code, out, err = _run(capsys, messy, "--policy", "omit")
    assert code == 0 and "column 'b' is not numeric" in out  # the default: reported, left out
    code, out, err = _run(capsys, messy, "--policy", "omit", "--strict")
    assert code == 2 and out == ""
    assert err.startswith("nanaccess: error: --strict: a column would be left out")
    # the column, the cell's text, its row label and its line in the file
    assert "column 'b'" in err and "'err'" in err and "row 1" in err and "line 3" in err


def test_strict_names_every_dropped_column(tmp_path, capsys):
    path = tmp_path / "two.csv"
    path.write_text("a,b,c\n1,x,1\n2,2,y\n3,3,3\n4,4,4\n")
    code, _, err = _run(capsys, path, "--strict", "--format", "json")
    assert code == 2 and "2 columns would be left out" in err
    assert "column 'b'" in err and "'x'" in err and "column 'c'" in err and "'y'" in err


def test_strict_passes_clean_files_and_unrequested_columns(messy, capsys):
    # text columns are not "dropped"; a stray column not asked for is not either
    code, out, _ = _run(capsys, messy, "--strict", "--columns", "a,c", "--policy", "omit")
    assert code == 0 and "Statistics" in out
    code, _, _ = _run(capsys, messy, "--strict", "--groupby", "b", "--columns", "a")
    assert code == 0


def test_strict_from_the_console_script(messy):
    proc = subprocess.run([sys.executable, "-m", "nanaccess", "describe", str(messy),
                           "--strict"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "column 'b'" in proc.stderr and proc.stdout == ""


# -- JSON read by pd.read_json -----------------------------------------------------------


@pytest.mark.parametrize("groupby", [None, "g"])
def test_json_round_trips_through_read_json(messy, capsys, groupby):
    extra = ["--groupby", groupby] if groupby else []
    code, out, _ = _run(capsys, messy, "--format", "json", "--columns", "a,c", *extra,
                        "--stats", "count,mean,median,max")
    assert code == 0
    got = pd.read_json(io.StringIO(out), orient="table", precise_float=True)
    code, csv_out, _ = _run(capsys, messy, "--format", "csv", "--columns", "a,c", *extra,
                            "--stats", "count,mean,median,max")
    text_cols = ("column", "policy", "statistic", "text", "error")
    want = pd.read_csv(io.StringIO(csv_out), dtype=dict.fromkeys(text_cols, str),
                       keep_default_na=False, na_values={"value": [""]})
    assert list(got.columns) == list(want.columns)
    assert got["value"].dtype == np.float64
    # the same records as the CSV output, value for value (full precision)
    np.testing.assert_array_equal(got["value"].to_numpy(), want["value"].to_numpy())
    for col in text_cols:
        assert got[col].fillna("").astype(str).tolist() == \
            want[col].fillna("").astype(str).tolist(), col
    # the numbers are the library's: a = [1.5, -nan, 3, 4] under omit
    mean = got[(got.column == "a") & (got.policy == "omit") & (got.statistic == "mean")]
    if groupby is None:
        assert mean["value"].tolist() == [np.mean([1.5, 3.0, 4.0])]
    else:
        assert mean.set_index("g")["value"].to_dict() == {"x": 2.25, "y": 4.0}
    # the document keeps the file's details beside the table
    doc = json.loads(out)
    assert doc["described"] == ["a", "c"] and doc["stray_tokens"][0]["column"] == "b"
    assert len(doc["data"]) == len(doc["statistics"]) + len(
        doc["group_counts"] if groupby else doc["counts"])


def test_json_refusals_read_back(messy, capsys):
    code, out, _ = _run(capsys, messy, "--format", "json", "--columns", "a",
                        "--policy", "raise", "--stats", "median")
    assert code == 3
    got = pd.read_json(io.StringIO(out), orient="table")
    row = got[got.statistic == "median"].iloc[0]
    assert np.isnan(row["value"]) and row["error"].startswith("NaNError")


# -- progress -----------------------------------------------------------------------------


def test_human_bytes():
    assert [human_bytes(n) for n in (0, 999, 1000, 12_345_678, 40_000_000, 3.2e12)] == \
        ["0 B", "999 B", "1.0 kB", "12.3 MB", "40.0 MB", "3.2 TB"]


def test_progress_lines_in_a_log_are_human_readable(tmp_path):
    path = tmp_path / "big.csv"
    rng = np.random.default_rng(0)
    pd.DataFrame({"a": rng.random(60_000), "b": rng.random(60_000)}).to_csv(path, index=False)
    size = path.stat().st_size
    proc = subprocess.run(
        [sys.executable, "-m", "nanaccess", "describe", str(path), "--progress", "always",
         "--policy", "omit", "--stats", "mean"],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    assert "\r" not in proc.stderr
    assert f"nanaccess: reading big.csv ({human_bytes(size)})" in lines
    done = [ln for ln in lines if ln.startswith("nanaccess: reading big.csv: ")]
    assert done and done[-1].endswith(f"of {human_bytes(size)} (100%)"), lines
    assert len(done) <= 10 and not any(str(size) in ln for ln in lines)  # no raw counts
    assert "nanaccess: describing: 2 of 2 columns (100%)" in lines


# -- format by content --------------------------------------------------------------------


def _values(capsys, path: Path, *args: object) -> tuple[dict, list[str]]:
    code, out, err = _run(capsys, path, "--format", "json", "--policy", "omit",
                          "--stats", "max", *args)
    assert code == 0, err
    doc = json.loads(out)
    return {r["column"]: r["value"] for r in doc["statistics"]}, doc["notes"]


def test_parquet_named_csv_and_without_extension(tmp_path, capsys):
    pytest.importorskip("pyarrow")
    frame = pd.DataFrame({"a": [1.0, np.nan, 3.0], "n": pd.array([1, None, 5], "Int64")})
    for name in ("data.csv", "data"):
        path = tmp_path / name
        frame.to_parquet(path)
        values, notes = _values(capsys, path)
        assert values == {"a": 3.0, "n": 5}
        assert any("read as Parquet (by its content" in n for n in notes)


def test_netcdf_named_txt(tmp_path, capsys):
    netCDF4 = pytest.importorskip("netCDF4")
    for fmt, name in (("NETCDF3_CLASSIC", "data.txt"), ("NETCDF4", "data.dat")):
        path = tmp_path / name
        with netCDF4.Dataset(path, "w", format=fmt) as d:
            d.createDimension("t", 3)
            d.createVariable("v", "f8", ("t",))[:] = [1.0, np.nan, 2.5]
        values, notes = _values(capsys, path)
        assert values == {"v": 2.5} and any("read as NetCDF" in n for n in notes)


def test_compressed_and_misnamed_csv(tmp_path, capsys):
    gz = tmp_path / "export"  # gzip without any extension
    gz.write_bytes(gzip.compress(MESSY.encode()))
    values, _ = _values(capsys, gz, "--columns", "a,c")
    assert values == {"a": 4.0, "c": 9}
    text = tmp_path / "data.parquet"  # CSV text with a Parquet name
    text.write_text(MESSY)
    values, notes = _values(capsys, text, "--columns", "a")
    assert values == {"a": 4.0}
    assert any("read as CSV (by its content; its name says Parquet)" in n for n in notes)
    plain = tmp_path / "data.csv.gz"  # named compressed, but plain text
    plain.write_text(MESSY)
    values, notes = _values(capsys, plain, "--columns", "a")
    assert values == {"a": 4.0} and any("uncompressed CSV" in n for n in notes)


def test_compressed_csv_from_stdin():
    proc = subprocess.run(
        [sys.executable, "-m", "nanaccess", "describe", "-", "--format", "json",
         "--policy", "omit", "--columns", "a", "--stats", "max"],
        input=gzip.compress(MESSY.encode()), capture_output=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["statistics"][0]["value"] == 4.0


# -- errors that say what was wrong -------------------------------------------------------


def test_groupby_error_on_a_netcdf_without_coordinates(tmp_path, capsys):
    netCDF4 = pytest.importorskip("netCDF4")
    path = tmp_path / "dims.nc"
    with netCDF4.Dataset(path, "w") as d:
        d.createDimension("t", 3)
        d.createVariable("v", "f8", ("t",))[:] = [1.0, 2.0, 3.0]
    code, _, err = _run(capsys, path, "--groupby", "site")
    assert code == 2
    assert "no dimension or coordinate 'site' to group by" in err
    assert err.rstrip().endswith("group by one of: t")  # the dimension, never an empty list
    scalar = tmp_path / "scalar.nc"
    with netCDF4.Dataset(scalar, "w") as d:
        d.createVariable("v", "f8", ())[...] = 1.0
    code, _, err = _run(capsys, scalar, "--groupby", "site")
    assert code == 2 and "no dimensions or coordinates" in err
    assert not err.rstrip().endswith(":")


def test_groupby_error_on_a_csv_lists_its_columns(messy, capsys):
    code, _, err = _run(capsys, messy, "--groupby", "nope")
    assert code == 2 and "no column 'nope' to group by" in err
    assert err.rstrip().endswith("its columns are: g, a, b, c")


def test_nothing_to_describe_names_what_the_file_holds(tmp_path, capsys):
    only_key = tmp_path / "key.csv"
    only_key.write_text("g\n1\n2\n")
    code, _, err = _run(capsys, only_key, "--groupby", "g")
    assert code == 2 and "(g (the --groupby column))" in err
    text = tmp_path / "text.csv"
    text.write_text("name,city\nx,y\n")
    code, _, err = _run(capsys, text)
    assert code == 2 and "no numeric columns to describe" in err
    assert "(name (text), city (text))" in err
