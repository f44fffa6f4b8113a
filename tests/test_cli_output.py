"""``nanaccess describe`` output: tidy CSV/JSON read back without options and compared
value by value at full precision, errors in their own field, progress, help, exit codes."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import nanaccess as na
from nanaccess.cli import main

POLICIES = ["raise", "propagate", "omit", "smallest", "largest", "totalorder"]
STATS = ["count", "mean", "std", "var", "sum", "min", "median", "max", "q10", "q0.5"]


@pytest.fixture
def data(tmp_path: Path) -> tuple[Path, pd.DataFrame]:
    rng = np.random.default_rng(15)
    x = rng.standard_normal(40) / 3  # digits beyond 15 significant ones
    x[[3, 17]] = np.nan
    frame = pd.DataFrame({"g": np.repeat(["p", "q"], 20), "x": x, "y": rng.random(40) * 1e6})
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False, na_rep="nan")  # floats: repr, every digit
    return path, frame


def expected(s: pd.Series, stat: str, policy: str) -> float | None:
    """What the library computes for one cell (None: refused, NaN or missing)."""
    try:
        if stat == "count":
            return float((~s.isna()).sum())
        if stat.startswith("q"):
            value = na.quantile(s.to_numpy(), float(stat[1:]) / 100, nan_policy=policy)
        else:
            ddof = {"ddof": 1} if stat in ("std", "var") else {}
            value = getattr(na, stat)(s.to_numpy(), nan_policy=policy, **ddof)
    except na.NaNError:
        return None
    value = float(value)
    return None if np.isnan(value) else value


def _run(capsys: pytest.CaptureFixture, *args: object) -> tuple[int, str, str]:
    code = main(["describe", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_round_trip_at_full_precision(data, capsys: pytest.CaptureFixture, fmt: str):
    path, frame = data
    code, out, err = _run(capsys, path, "--format", fmt, "--stats", ",".join(STATS))
    assert code == 0, err
    if fmt == "csv":
        tidy = pd.read_csv(io.StringIO(out))  # no options
        assert tidy["value"].dtype == np.float64  # never text in the numeric column
    else:
        tidy = pd.DataFrame(json.loads(out)["statistics"])
    stats = tidy[tidy.policy.notna()]
    assert len(stats) == 2 * len(POLICIES) * len(STATS)  # column x policy x statistic
    checked = 0
    for rec in stats.itertuples():
        want = expected(frame[rec.column], rec.statistic, rec.policy)
        got = rec.value
        if want is None:
            assert got is None or np.isnan(got), rec
        else:
            assert got == want, (rec, want)  # exactly: repr round trip
            checked += 1
    assert checked > 40
    # an error is its own field; its cell has no number
    refused = stats[stats.policy == "raise"]
    x_err = refused[(refused.column == "x") & (refused.statistic == "median")].iloc[0]
    assert x_err.error.startswith("NaNError: column 'x' holds 2 NaN values")
    assert pd.isna(x_err.value)
    assert refused[refused.column == "y"].error.isna().all()


def test_csv_counts_and_groups(data, capsys: pytest.CaptureFixture):
    path, frame = data
    code, out, err = _run(capsys, path, "--format", "csv", "--groupby", "g",
                          "--policy", "omit", "--stats", "median")
    assert code == 0, err
    tidy = pd.read_csv(io.StringIO(out))
    assert list(tidy.columns) == ["g", "column", "policy", "statistic", "value", "text",
                                  "error"]
    counts = tidy[tidy.policy.isna()].set_index(["g", "column", "statistic"])["value"]
    for key, part in frame.groupby("g"):
        assert counts[(key, "x", "n_nan")] == part.x.isna().sum()
        assert counts[(key, "x", "n_numbers")] == part.x.notna().sum()
        med = tidy[(tidy.g == key) & (tidy.column == "x") & (tidy.statistic == "median")]
        assert med.value.item() == float(na.median(part.x.to_numpy(), nan_policy="omit"))


def test_json_document(data, capsys: pytest.CaptureFixture):
    path, _ = data
    code, out, _ = _run(capsys, path, "--format", "json", "--policy", "raise")
    assert code == 3  # exit codes hold for every format
    doc = json.loads(out)
    assert doc["format"] == "CSV" and doc["described"] == ["x", "y"]
    assert doc["not_described"] == {"g": "text"}
    assert any(n.startswith("NaNError: column 'x'") for n in doc["notes"])

    def refuse(name: str) -> None:
        raise AssertionError(f"not strict JSON: {name}")

    json.loads(out, parse_constant=refuse)  # no NaN / Infinity tokens


def test_table_is_pandas_to_string(data, capsys: pytest.CaptureFixture):
    path, frame = data
    code, out, _ = _run(capsys, path, "--policy", "omit", "--stats", "median")
    assert code == 0
    stats = out.split('Statistics (nan_policy="omit")\n')[1].split("\n\n")[0]
    median = float(na.median(frame.x.to_numpy(), nan_policy="omit"))
    want = pd.DataFrame({"median": [f"{median:.6g}", f"{frame.y.median():.6g}"]},
                        index=pd.Index(["x", "y"], name="column")).to_string()
    assert stats == want


def test_help_says_qnn_is_a_percentile(capsys: pytest.CaptureFixture):
    with pytest.raises(SystemExit):
        main(["describe", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "qNN, the NN-th PERCENTILE: q90 is the 0.9 quantile" in text
    assert "q0.5 the 0.5th percentile (the 0.005 quantile" in text
    assert "--sep" in text and "--thousands" in text and "--na-values" in text


def test_q_is_a_percentile(data, capsys: pytest.CaptureFixture):
    path, frame = data
    code, out, _ = _run(capsys, path, "--format", "json", "--policy", "omit",
                        "--columns", "y", "--stats", "q0.5,q50")
    stats = {r["statistic"]: r["value"] for r in json.loads(out)["statistics"]}
    assert stats["q0.5"] == np.quantile(frame.y, 0.005)
    assert stats["q50"] == np.median(frame.y)


def test_progress_is_plain_lines_in_a_log(data):
    path, _ = data
    proc = subprocess.run(
        [sys.executable, "-m", "nanaccess", "describe", str(path), "--progress", "always",
         "--policy", "omit"],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "\r" not in proc.stderr  # no bar frames in a redirected log
    assert "nanaccess: reading d.csv" in proc.stderr and "nanaccess: describing" in proc.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="pty")
def test_progress_is_a_bar_on_a_terminal(data):
    pytest.importorskip("tqdm")
    import fcntl
    import pty
    import struct
    import termios

    path, _ = data
    leader, follower = pty.openpty()
    # a terminal 100 columns wide (a fresh pty has 0: tqdm would draw an empty bar)
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "nanaccess", "describe", str(path), "--progress",
             "always", "--policy", "omit"],
            stdout=subprocess.PIPE, stderr=follower, timeout=120,
        )
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(leader)
    assert proc.returncode == 0
    shown = b"".join(chunks).decode(errors="replace")
    assert "\r" in shown and "describing" in shown  # tqdm's bar


def test_exit_codes(data, tmp_path: Path, capsys: pytest.CaptureFixture):
    path, _ = data
    assert _run(capsys, path, "--policy", "omit")[0] == 0
    assert _run(capsys, path)[0] == 0  # "all": errors are shown, not fatal
    assert _run(capsys, path, "--policy", "raise", "--format", "csv")[0] == 3
    assert _run(capsys, path, "--policy", "raise", "--columns", "y")[0] == 0
    assert _run(capsys, tmp_path / "none.csv", "--format", "json")[0] == 2
    with pytest.raises(SystemExit) as exc:
        main(["describe", str(path), "--format", "xml"])
    assert exc.value.code == 2
