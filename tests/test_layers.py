"""The layers, enforced: the import-linter contracts of ``pyproject.toml`` (the core
imports no host library and no adapter, not even inside a function; hosts reach the
lean small-data paths only through the core entry points) must all be kept."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

pytest.importorskip("importlinter")

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_import_contracts_are_kept():
    exe = pathlib.Path(sys.executable).with_name("lint-imports")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "importlinter.cli"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(cmd + ["--no-cache"], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert "BROKEN" not in out.stdout and "KEPT" in out.stdout


def test_contracts_name_the_host_libraries():
    """The core's contract forbids every host library (a new host is added here)."""
    text = (ROOT / "pyproject.toml").read_text()
    for name in ("pandas", "xarray", "dask", "polars", "nanaccess.pandas",
                 "nanaccess.xarray", "nanaccess.dask"):
        assert f'"{name}"' in text
