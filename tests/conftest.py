"""Test-suite configuration: hypothesis profiles and the one shared docs build.

Hypothesis profiles (select with ``HYPOTHESIS_PROFILE``, default ``ci``):

* ``ci``: deterministic (derandomized), 50 examples per property, no deadline, so a
  run on a loaded 2-core machine neither flakes nor changes between runs.
* ``nightly``: 1000 random examples per property, for a scheduled long run.
* ``dev``: 10 examples, for a quick local loop.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
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

# Deterministic engines: a kernel not compiled yet compiles in the caller's thread (the
# default "background" would serve first calls with NumPy), here and in subprocesses.
os.environ.setdefault("NANACCESS_COMPILE", "foreground")
import nanaccess  # noqa: E402

nanaccess.set_options(compile=os.environ["NANACCESS_COMPILE"])

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


def _sphinx_build(out: Path) -> DocsBuild:
    """Run ``sphinx-build -W`` of ``docs/`` into ``out``."""
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


@contextmanager
def _exclusive(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (POSIX ``flock``; elsewhere no lock, so each
    worker builds its own copy)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    with open(path, "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def docs_build(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> DocsBuild:
    """Build the docs once per test run, with warnings as errors.

    myst-nb executes every notebook in ``notebooks/`` during this build and fails
    it on the first cell error, so the notebooks run exactly once per test run.
    Under pytest-xdist the workers share one build through a file lock in the run's
    temporary root (pytest-xdist's recipe for a session fixture run once): the first
    worker that needs it builds, the others wait and read its record. This does not
    depend on ``--dist loadgroup`` grouping (which pytest 9.2 + xdist 3.8 no longer
    honour: xdist sets ``item._nodeid``, which pytest 9.2 does not read).
    """
    if worker_id == "master":  # not under xdist
        return _sphinx_build(tmp_path_factory.mktemp("docs"))
    shared = tmp_path_factory.getbasetemp().parent  # one per run, shared by the workers
    record = shared / "docs-build.json"
    with _exclusive(shared / "docs-build.lock"):
        if record.exists():
            d = json.loads(record.read_text(encoding="utf-8"))
            return DocsBuild(d["returncode"], d["output"], Path(d["html"]))
        build = _sphinx_build(shared / "docs")
        record.write_text(json.dumps({"returncode": build.returncode, "output": build.output,
                                      "html": str(build.html)}), encoding="utf-8")
        return build
