"""``nanaccess describe`` input: missing tokens vs NaN, separators, stdin, stray tokens,
Parquet nulls; each on a file written in the test and checked against NumPy/pandas."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from nanaccess.cli import main, read_table


def run_json(capsys: pytest.CaptureFixture, *args: object) -> tuple[int, dict, str]:
    code = main(["describe", *map(str, args), "--format", "json"])
    out, err = capsys.readouterr()
    return code, json.loads(out), err


def counts(doc: dict, column: str, group: object = None) -> dict[str, int]:
    key = "counts" if group is None else "group_counts"
    return {
        r["statistic"].removeprefix("n_"): r["value"]
        for r in doc[key]
        if r["column"] == column and (group is None or group in r.values())
    }


def stat(doc: dict, column: str, name: str, policy: str = "omit") -> dict:
    (rec,) = [
        r for r in doc["statistics"]
        if r["column"] == column and r["statistic"] == name and r["policy"] == policy
    ]
    return rec


TOKENS = ["1", "", "NA", "N/A", "NULL", "None", "#N/A", "nan", "NaN", "-nan", "2.5", "-NaN"]


def test_missing_tokens_are_missing_and_nan_keeps_its_sign(
    tmp_path: Path, capsys: pytest.CaptureFixture
):
    path = tmp_path / "tokens.csv"
    path.write_text("a,b\n" + "".join(f"{t},{i}\n" for i, t in enumerate(TOKENS)))
    code, doc, err = run_json(capsys, path, "--policy", "omit")
    assert code == 0, err
    c = counts(doc, "a")
    assert c["missing"] == 6  # "", NA, N/A, NULL, None, #N/A
    assert c["nan"] == 4 and c["negative_nan"] == 2  # nan, NaN, -nan, -NaN
    assert c["numbers"] == 2 and c["values"] == len(TOKENS)
    assert stat(doc, "a", "median")["value"] == np.median([1.0, 2.5])
    # the column itself: nullable, the NaN slots keep their sign bits
    col = read_table(path).data["a"]
    assert str(col.dtype) == "Float64"
    values = col.array._data
    assert np.signbit(values[[9, 11]]).all() and not np.signbit(values[[7, 8]]).any()
    assert col.array._mask.sum() == 6  # the mask holds the missing values only


def test_missing_and_nan_per_group(tmp_path: Path, capsys: pytest.CaptureFixture):
    path = tmp_path / "g.csv"
    path.write_text("g,x\na,1\na,NA\na,nan\nb,\nb,-nan\nb,-nan\nb,4\n")
    code, doc, err = run_json(capsys, path, "--groupby", "g", "--policy", "totalorder")
    assert code == 0, err
    a, b = counts(doc, "x", "a"), counts(doc, "x", "b")
    assert (a["missing"], a["nan"], a["negative_nan"]) == (1, 1, 0)
    assert (b["missing"], b["nan"], b["negative_nan"]) == (1, 2, 2)
    # totalorder puts -nan first: b's min is a negative NaN, shown with its sign
    (b_min,) = [r for r in doc["statistics"] if r["g"] == "b" and r["statistic"] == "min"]
    assert b_min["value"] is None and b_min["text"] == "-nan"


def test_na_values_thousands_decimal_and_sep(tmp_path: Path, capsys: pytest.CaptureFixture):
    path = tmp_path / "eu.csv"
    path.write_text('x;y\n"1.234,5";-999\n2,25;7\n;8\n"10.000,0";9\n')
    code, doc, err = run_json(
        capsys, path, "-d", ";", "--thousands", ".", "--decimal", ",", "--na-values", "-999",
        "--policy", "omit", "--stats", "median,max,sum",
    )
    assert code == 0, err
    x = np.array([1234.5, 2.25, 10000.0])
    assert stat(doc, "x", "median")["value"] == np.median(x)
    assert stat(doc, "x", "sum")["value"] == x.sum()
    assert counts(doc, "x")["missing"] == 1 and counts(doc, "y")["missing"] == 1
    assert stat(doc, "y", "max")["value"] == 9


@pytest.mark.parametrize(("name", "sep_args"), [("t.tsv", []), ("t.txt", []), ("t.csv", []),
                                                 ("t.dat.csv", ["-d", "tab"])])
def test_tab_separated(tmp_path: Path, capsys: pytest.CaptureFixture, name: str, sep_args):
    path = tmp_path / name
    path.write_text("a\tb\n1.5\t2\n2.5\tNA\n4\t6\n")
    code, doc, err = run_json(capsys, path, *sep_args, "--policy", "omit")
    assert code == 0, err
    assert doc["described"] == ["a", "b"]
    assert stat(doc, "a", "mean")["value"] == np.mean([1.5, 2.5, 4.0])
    assert counts(doc, "b")["missing"] == 1


def test_stray_token_is_reported_not_fatal(tmp_path: Path, capsys: pytest.CaptureFixture):
    path = tmp_path / "stray.csv"
    lines = ["id,temp,wind", "1,1.5,3", "2,2.0,4", "", '3,"err",5', "4,3.5,x?", "5,4.0,7",
             "6,oops,8"]
    path.write_text("\n".join(lines) + "\n")
    code, doc, err = run_json(capsys, path, "--policy", "omit")
    assert code == 0, err  # the other columns are described
    assert doc["described"] == ["id"]
    strays = {s["column"]: s for s in doc["stray_tokens"]}
    # temp: 'err' and 'oops'; row label 2 (0-based data row), line 5 (the blank line counts)
    assert strays["temp"] == {"column": "temp", "count": 2, "first": "err", "row": 2, "line": 5}
    assert strays["wind"]["first"] == "x?" and strays["wind"]["line"] == 6
    note = "column 'temp' is not numeric: row 2 holds 'err', which is not a number"
    assert any(n.startswith(note) for n in doc["notes"])
    # the table shows the same report as a note; asking for the column is an error (exit 2)
    assert main(["describe", str(path), "--policy", "omit"]) == 0
    assert "2 such values; first on line 5" in capsys.readouterr().out
    assert main(["describe", str(path), "--columns", "temp"]) == 2
    assert "column 'temp' is not numeric: row 2 holds 'err'" in capsys.readouterr().err


def test_columns_takes_a_comma_list_and_keeps_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture
):
    path = tmp_path / "abc.csv"
    path.write_text("a,b,c\n1,2,3\n4,5,6\n")
    # --columns before FILE used to swallow it (nargs="+") and describe the bundled sample
    code, doc, err = run_json(capsys, "--columns", "a,c", path, "--policy", "omit")
    assert code == 0, err
    assert doc["source"] == str(path) and doc["described"] == ["a", "c"]
    code = main(["describe", "--columns", "b", "--columns", "a", str(path), "--format", "json"])
    assert code == 0
    assert json.loads(capsys.readouterr().out)["described"] == ["b", "a"]


def test_encoding(tmp_path: Path, capsys: pytest.CaptureFixture):
    path = tmp_path / "latin.csv"
    path.write_bytes("température,x\n1,2\n3,4\n".encode("latin-1"))
    code, doc, err = run_json(capsys, path, "--encoding", "latin-1", "--policy", "omit")
    assert code == 0, err
    assert doc["described"] == ["température", "x"]
    with pytest.raises(SystemExit) as exc:  # argparse: a usage error
        main(["describe", str(path), "--encoding", "no-such-codec"])
    assert exc.value.code == 2 and "unknown encoding" in capsys.readouterr().err


def test_big_integers_stay_exact(tmp_path: Path, capsys: pytest.CaptureFixture):
    path = tmp_path / "ints.csv"
    big = 2**62 + 1
    path.write_text(f"n\n{big}\nNA\n1\n")
    code, doc, err = run_json(capsys, path, "--policy", "omit", "--stats", "max,min")
    assert code == 0, err
    assert stat(doc, "n", "max")["value"] == big  # not rounded through float64
    assert counts(doc, "n")["missing"] == 1


def _stdin(data: bytes, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "nanaccess", "describe", "-", *args],
        input=data, capture_output=True, timeout=120,
    )


def test_stdin_csv_and_parquet(tmp_path: Path):
    proc = _stdin(b"a,b\n1,NA\n2,nan\n4,3\n", "--format", "json", "--policy", "omit")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["source"] == "<stdin>" and doc["format"] == "CSV"
    assert stat(doc, "a", "median")["value"] == 2.0
    assert counts(doc, "b")["missing"] == 1 and counts(doc, "b")["nan"] == 1

    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    buf = io.BytesIO()
    pq.write_table(pa.table({"x": pa.array([1, None, 3], type=pa.int64())}), buf)
    proc = _stdin(buf.getvalue(), "--format", "json", "--policy", "omit")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["format"] == "Parquet" and counts(doc, "x")["missing"] == 1


def test_parquet_integer_nulls_stay_missing(tmp_path: Path, capsys: pytest.CaptureFixture):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    path = tmp_path / "nulls.parquet"
    ints = [5, None, 7, None, 1]
    floats = np.array([1.0, np.nan, 3.0, 0.0, -np.nan])
    pq.write_table(
        pa.table({
            "i": pa.array(ints, type=pa.int32()),
            "f": pa.array(floats, mask=np.array([0, 0, 0, 1, 0], bool)),
        }),
        path,
    )
    table = read_table(path)
    assert str(table.data["i"].dtype) == "Int32"
    code, doc, err = run_json(capsys, path, "--policy", "omit", "--stats", "median,max,sum")
    assert code == 0, err
    ci, cf = counts(doc, "i"), counts(doc, "f")
    assert (ci["missing"], ci["nan"], ci["numbers"]) == (2, 0, 3)
    assert (cf["missing"], cf["nan"], cf["negative_nan"], cf["numbers"]) == (1, 2, 1, 2)
    present = pd.Series([v for v in ints if v is not None])
    assert stat(doc, "i", "median")["value"] == present.median()
    assert stat(doc, "i", "sum")["value"] == present.sum()
    assert stat(doc, "f", "max")["value"] == 3.0
    # propagate: a missing value gives a missing result, a NaN a NaN
    code, doc, _ = run_json(capsys, path, "--policy", "propagate", "--stats", "max")
    assert stat(doc, "i", "max", "propagate")["text"] == "<NA>"
    assert stat(doc, "f", "max", "propagate")["value"] is None  # NaN or missing: no number
