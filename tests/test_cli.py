"""The ``nanaccess`` console script, run as a subprocess on small files and bad input."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from nanaccess.data import sample_path

BIN = Path(sys.executable).parent
SCRIPT = shutil.which("nanaccess", path=str(BIN))
POLICIES = ["raise", "propagate", "omit", "smallest", "largest", "totalorder"]


def run(*args: str | os.PathLike, module: bool = False) -> subprocess.CompletedProcess:
    if module:
        cmd = [sys.executable, "-m", "nanaccess", *map(str, args)]
    else:
        assert SCRIPT is not None, (
            f"the nanaccess console script is not installed in {BIN}; "
            'run `pip install -e ".[test]"` (the README test command does)'
        )
        cmd = [SCRIPT, *map(str, args)]
    env = {**os.environ, "MPLBACKEND": "Agg", "COLUMNS": "200"}
    return subprocess.run(
        cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL, env=env, timeout=120
    )


def run_here(capsys: pytest.CaptureFixture, *args: str | os.PathLike) -> tuple[int, str, str]:
    """Run ``main`` in this process (same code path as the script, without the
    interpreter start-up): for the variants of a case already run as a subprocess."""
    from nanaccess.cli import main

    try:
        code = main([str(a) for a in args])
    except SystemExit as exc:  # argparse usage errors
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def parse_csv_output(stdout: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(NaN kinds, statistics) as text tables, from the tidy ``--format csv`` records
    (one per column x policy x statistic; counts have an empty policy)."""
    from nanaccess.cli.output import FIELDS, REPORT_COLUMNS

    tidy = pd.read_csv(io.StringIO(stdout), dtype=str, keep_default_na=False)
    lead = [c for c in tidy.columns if c not in FIELDS]  # the --groupby column
    shown = tidy["text"].where(tidy["error"] == "", tidy["error"].str.split(":").str[0])
    tidy = tidy.assign(text=shown)
    counts = tidy[tidy.policy == ""]
    kinds = counts[counts.statistic.isin(list(REPORT_COLUMNS))]
    if lead:  # per-group counts: the column totals (NetCDF/CSV kinds tests use no groups)
        kinds = kinds.assign(text=kinds.text.astype(int)).groupby(
            ["column", "statistic"], sort=False).text.sum().astype(str).reset_index()
    kinds = kinds.pivot(index="column", columns="statistic", values="text")
    kinds = kinds.rename(columns=REPORT_COLUMNS).rename_axis(columns=None)
    kinds = kinds.reindex(pd.unique(counts.column))
    stats = tidy[tidy.policy != ""]
    index = [*lead, "column"] + (["policy"] if stats.policy.nunique() > 1 else [])
    order = list(dict.fromkeys(stats.statistic))
    wide = stats.pivot(index=index, columns="statistic", values="text")[order]
    return kinds, wide.rename_axis(columns=None).reset_index()


def f64(bits: int) -> float:
    return np.array(bits, dtype=np.uint64).view(np.float64)[()]


@pytest.fixture
def small_csv(tmp_path: Path) -> Path:
    path = tmp_path / "small.csv"
    pd.DataFrame(
        {
            "g": ["x", "x", "y", "y", "y", "x"],
            "a": [1.0, np.nan, 4.0, 2.0, np.nan, 10.0],
            "b": [1, 2, 3, 4, 5, 6],
            "note": ["ok", "ok", "bad", "ok", "ok", "ok"],
        }
    ).to_csv(path, index=False, na_rep="NaN")  # NaN, not the missing-value token ""
    return path


# --------------------------------------------------------------------------------------
# the demo and the happy paths


def test_demo_describes_bundled_sample():
    proc = run("describe")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.startswith("nanaccess describe: sensors.csv (CSV, 480 rows x 7 columns)")
    kinds_line = next(line for line in out.splitlines() if line.startswith("temp_c "))
    assert kinds_line.split() == ["temp_c", "480", "460", "20", "20", "0", "0", "1", "0", "0", "0"]
    # one statistics row per (column, policy); "raise" refuses, "omit" equals pandas'
    df = pd.read_csv(sample_path())
    rows = [line.split() for line in out.splitlines() if line.startswith("temp_c ")]
    by_policy = {r[1]: r for r in rows[1:]}
    assert sorted(by_policy) == sorted(POLICIES)
    assert "NaNError" in by_policy["raise"]
    median_omit = float(by_policy["omit"][6])
    assert median_omit == pytest.approx(df.temp_c.median(), abs=1e-6)
    assert by_policy["propagate"][6] == "nan"
    assert "note: NaNError: column 'temp_c' holds 20 NaN values" in out
    assert "not described: date (text), station (text)" in out


def test_python_dash_m_is_the_same_program(small_csv: Path, capsys: pytest.CaptureFixture):
    a = run("describe", small_csv, "--policy", "omit", module=True)
    code, out, _ = run_here(capsys, "describe", small_csv, "--policy", "omit")
    assert a.returncode == code == 0, a.stderr
    assert a.stdout == out


def test_csv_values_under_omit(small_csv: Path):
    proc = run(
        "describe",
        small_csv,
        "--policy",
        "omit",
        "--format",
        "csv",
        "--stats",
        "count,mean,min,median,max,q90",
    )
    assert proc.returncode == 0, proc.stderr
    kinds, stats = parse_csv_output(proc.stdout)
    assert kinds.loc["a", "nan"] == "2" and kinds.loc["a", "numbers"] == "4"
    assert kinds.loc["b", "nan"] == "0"
    a = stats.set_index("column").loc["a"]
    values = np.array([1.0, 4.0, 2.0, 10.0])
    assert int(a["count"]) == 4
    assert float(a["median"]) == pytest.approx(np.median(values))
    assert float(a["mean"]) == pytest.approx(values.mean())
    assert float(a["q90"]) == pytest.approx(np.quantile(values, 0.9))
    assert (float(a["min"]), float(a["max"])) == (1.0, 10.0)
    assert "note" not in list(stats.columns), "text column must not be described"


def test_policy_raise_exits_3_and_names_the_column(small_csv: Path):
    proc = run("describe", small_csv, "--policy", "raise")
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "NaNError" in proc.stdout
    assert "column 'a' holds 2 NaN values" in proc.stdout
    # column b has no NaN: its statistics are there
    b_row = [line for line in proc.stdout.splitlines() if line.startswith("b ")][1]
    assert "NaNError" not in b_row and b_row.split()[-1] == "6"


def test_groupby(small_csv: Path, capsys: pytest.CaptureFixture):
    code, out, err = run_here(
        capsys,
        "describe",
        small_csv,
        "--groupby",
        "g",
        "--policy",
        "smallest",
        "--format",
        "csv",
        "--stats",
        "median,min",
    )
    assert code == 0, err
    _, stats = parse_csv_output(out)
    a = stats[stats.column == "a"].set_index("g")
    # group x: [1, nan, 10] -> nan sorts first -> median 1; y: [4, 2, nan] -> median 2
    assert float(a.loc["x", "median"]) == 1.0
    assert float(a.loc["y", "median"]) == 2.0
    assert a.loc["x", "min"] == "nan"
    assert list(stats.columns) == ["g", "column", "median", "min"]


def test_parquet_keeps_nan_kinds_and_nulls(tmp_path: Path, capsys: pytest.CaptureFixture):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    values = np.array(
        [
            1.0,
            f64(0xFFF8000000000000),
            f64(0x7FF800000000002A),
            3.0,
            f64(0x7FF0000000000001),
            2.0,
            5.0,
        ],
    )
    mask = np.array([False, False, False, False, False, False, True])
    path = tmp_path / "kinds.parquet"
    pq.write_table(pa.table({"x": pa.array(values, mask=mask)}), path)

    proc = run("describe", path, "--format", "csv", "--policy", "totalorder")
    assert proc.returncode == 0, proc.stderr
    kinds, stats = parse_csv_output(proc.stdout)
    row = kinds.loc["x"].astype(int)
    assert row["values"] == 7 and row["numbers"] == 3 and row["missing"] == 1
    assert row["nan"] == 3 and row["signaling"] == 1 and row["negative"] == 1
    assert row["quiet"] == 2 and row["payloads"] == 3
    # totalorder: -qNaN < 1 < 2 < 3 < +sNaN < +qNaN(42) < missing; min is the -NaN
    x = stats.set_index("column").loc["x"]
    assert x["min"] == "-nan"
    assert x["max"] == "<NA>"

    # the signaling NaN makes "omit" refuse: exit 3
    code, out, _ = run_here(capsys, "describe", path, "--policy", "omit")
    assert code == 3
    assert "SignalingNaNError" in out


def test_netcdf(tmp_path: Path, capsys: pytest.CaptureFixture):
    xr = pytest.importorskip("xarray")
    temp = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, f64(0xFFF8000000000007)]])
    ds = xr.Dataset(
        {"temp": (("station", "time"), temp), "wind": (("station", "time"), np.ones((2, 3)))},
        coords={"station": ["a", "b"], "time": pd.date_range("2024-01-01", periods=3)},
    )
    path = tmp_path / "small.nc"
    try:
        ds.to_netcdf(path)
    except (ImportError, ValueError) as err:  # pragma: no cover - no NetCDF writer
        pytest.skip(f"no NetCDF backend: {err}")
    proc = run("describe", path, "--policy", "omit", "--format", "csv")
    assert proc.returncode == 0, proc.stderr
    kinds, stats = parse_csv_output(proc.stdout)
    assert list(kinds.index) == ["temp", "wind"]  # coordinates are not described
    assert kinds.loc["temp", "nan"] == "2" and kinds.loc["temp", "negative"] == "1"
    assert float(stats.set_index("column").loc["temp", "median"]) == 3.5

    code, out, err = run_here(
        capsys,
        "describe",
        path,
        "--policy",
        "omit",
        "--groupby",
        "station",
        "--format",
        "csv",
        "--stats",
        "max",
    )
    assert code == 0, err
    _, stats = parse_csv_output(out)
    t = stats[stats.column == "temp"].set_index("station")["max"]
    assert t.to_dict() == {"a": "3", "b": "5"}


def test_progress_bar_on_request(small_csv: Path, capsys: pytest.CaptureFixture):
    shown = run("describe", small_csv, "--policy", "omit", "--progress", "always")
    assert shown.returncode == 0, shown.stderr
    assert "reading small.csv" in shown.stderr
    code, out, err = run_here(
        capsys, "describe", small_csv, "--policy", "omit", "--progress", "never"
    )
    assert code == 0 and err == ""
    assert out == shown.stdout  # the bar goes to stderr only
    code, _, err = run_here(capsys, "describe", small_csv, "--policy", "omit")
    assert code == 0 and err == ""  # a small file gets no bar by default


def test_progress_bar_shown_for_large_files(
    small_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
):
    from nanaccess.cli import command as cli
    from nanaccess.cli import readers as _readers

    monkeypatch.setattr(cli, "PROGRESS_BYTES", 16)  # every test file counts as large
    monkeypatch.setattr(_readers, "PROGRESS_BYTES", 16)  # (reading and describing)
    code, _, err = run_here(capsys, "describe", small_csv, "--policy", "omit")
    assert code == 0 and "reading small.csv" in err and "describing" in err
    pq = pytest.importorskip("pyarrow.parquet")
    pa = pytest.importorskip("pyarrow")
    path = tmp_path / "big.parquet"
    pq.write_table(pa.table({"x": [1.0, 2.0, 3.0]}), path, row_group_size=1)
    code, out, err = run_here(capsys, "describe", path, "--policy", "omit")
    assert code == 0 and "reading big.parquet" in err and "row group" in err
    assert "x " in out


# --------------------------------------------------------------------------------------
# bad input


def test_missing_file(tmp_path: Path):
    proc = run("describe", tmp_path / "nope.csv")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "nanaccess: error: no such file:" in proc.stderr and "nope.csv" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("data.xlsx", b"PK\x03\x04", "cannot tell the format of"),
        ("data.xlsx", b"PK\x03\x04rest", "a zip archive"),
        ("data.bin", b"\x00\x01\x02binary", "cannot tell the format of"),
        # no magic bytes: text is read as CSV (by content); the error says the name disagrees
        ("data.parquet", b"name,city\nx,y\n", "its name says Parquet"),
        ("data.nc", b"name\nx\n", "its name says NetCDF"),
        ("data.csv", b"", "the file is empty"),
    ],
)
def test_unreadable_input(
    tmp_path: Path, name: str, content: bytes, message: str, capsys: pytest.CaptureFixture
):
    path = tmp_path / name
    path.write_bytes(content)
    code, out, err = run_here(capsys, "describe", path)
    assert code == 2, out
    assert message in err and err.startswith("nanaccess: error: ")
    assert "Traceback" not in err


def test_unreadable_input_from_the_script(tmp_path: Path):
    path = tmp_path / "data.parquet"
    path.write_bytes(b"\x00this is not parquet")
    proc = run("describe", path)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "nanaccess: error: cannot tell the format of" in proc.stderr
    assert "binary content" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_non_numeric_column(tmp_path: Path, capsys: pytest.CaptureFixture):
    path = tmp_path / "broken.csv"
    path.write_text("station,temp\nA,1.5\nA,2.0\nB,err\nB,3.5\n")
    proc = run("describe", path)
    assert proc.returncode == 2
    assert "column 'temp' is not numeric: row 2 holds 'err', which is not a number" in proc.stderr
    # asking for a text column explicitly is an error too
    code, _, err = run_here(capsys, "describe", path, "--columns", "station")
    assert code == 2
    assert "column 'station' is not numeric" in err


def test_no_numeric_columns_and_unknown_columns(
    small_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture
):
    text = tmp_path / "text.csv"
    text.write_text("name,city\nann,paris\nbob,rome\n")
    code, _, err = run_here(capsys, "describe", text)
    assert code == 2 and "no numeric columns to describe" in err
    code, _, err = run_here(capsys, "describe", small_csv, "--groupby", "nope")
    assert code == 2 and "no column 'nope' to group by" in err
    code, _, err = run_here(capsys, "describe", small_csv, "--columns", "zzz")
    assert code == 2 and "no column 'zzz'" in err


def test_usage_errors(small_csv: Path, capsys: pytest.CaptureFixture):
    code, _, err = run_here(capsys, "describe", small_csv, "--stats", "median,bogus")
    assert code == 2 and "unknown statistic 'bogus'" in err
    code, _, err = run_here(capsys, "describe", small_csv, "--policy", "ignore")
    assert code == 2 and "invalid choice" in err
    code, _, err = run_here(capsys)
    assert code == 2 and "describe" in err
    code, out, _ = run_here(capsys, "--version")
    assert code == 0 and out.startswith("nanaccess ")
