"""Test-suite configuration: hypothesis profiles and the one shared docs build.

Hypothesis profiles (select with ``HYPOTHESIS_PROFILE``, default ``ci``):

* ``ci``: deterministic (derandomized), 50 examples per property, no deadline, so a
  run on a loaded 2-core machine neither flakes nor changes between runs.
* ``nightly``: 1000 random examples per property, for a scheduled long run.
* ``dev``: 10 examples, for a quick local loop.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    max_examples=50,
    deadline=None,
    derandomize=True,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "nightly",
    max_examples=1000,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", max_examples=10, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
NOTEBOOKS = ROOT / "notebooks"


@dataclass(frozen=True)
class DocsBuild:
    """Result of one ``sphinx-build -W`` run of ``docs/`` (notebooks executed)."""

    returncode: int
    output: str
    html: Path

    def page(self, name: str) -> str:
        """Text of the built HTML page ``name`` (e.g. ``"semantics"``)."""
        path = self.html / f"{name}.html"
        assert path.exists(), f"docs build produced no {path.name}:\n{self.output[-3000:]}"
        return path.read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def docs_build(tmp_path_factory: pytest.TempPathFactory) -> DocsBuild:
    """Build the docs once per test process, with warnings as errors.

    myst-nb executes every notebook in ``notebooks/`` during this build and fails
    it on the first cell error, so the notebooks run exactly once per test run.
    Tests that use this fixture carry ``@pytest.mark.xdist_group("docs")``; with the
    README's ``--dist loadgroup`` they share one worker and so one build.
    """
    out = tmp_path_factory.mktemp("docs")
    env = {**os.environ, "MPLBACKEND": "Agg"}
    cmd = [
        sys.executable,
        "-m",
        "sphinx",
        "-W",
        "--keep-going",
        "-q",
        "-b",
        "html",
        "-d",
        str(out / "doctrees"),
        str(DOCS),
        str(out / "html"),
    ]
    proc = subprocess.run(
        cmd,
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=900,
    )
    return DocsBuild(proc.returncode, proc.stdout + proc.stderr, out / "html")
