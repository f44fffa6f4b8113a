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
import time
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


def _sphinx_command(out: Path) -> list[str]:
    return [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
            "-d", str(out / "doctrees"), str(DOCS), str(out / "html")]


# Runs in its own process: one sphinx-build, its record written atomically when done.
_BUILD_SCRIPT = """
import json, os, subprocess, sys
cmd, out, record = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
try:
    proc = subprocess.run(cmd, cwd=sys.argv[4], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=900)
    rc, text = proc.returncode, proc.stdout + proc.stderr
except Exception as exc:  # a timeout or a missing sphinx: the docs tests report it
    rc, text = 1, repr(exc)
with open(record + ".tmp", "w", encoding="utf-8") as fh:
    json.dump({"returncode": rc, "output": text, "html": os.path.join(out, "html")}, fh)
os.replace(record + ".tmp", record)
"""


@contextmanager
def _exclusive(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (POSIX ``flock``; elsewhere no lock)."""
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


def _docs_dir(config: pytest.Config) -> Path:
    """The folder the run's one docs build lives in: shared by the xdist workers (the
    parent of their base temporary directories), the base itself without xdist."""
    base = config._tmp_path_factory.getbasetemp()  # type: ignore[attr-defined]
    return base.parent if hasattr(config, "workerinput") else base


def _start_docs_build(config: pytest.Config) -> Path:
    """Start the docs build in the background unless a worker already has; return the
    path of the record it writes when done."""
    shared = _docs_dir(config)
    record = shared / "docs-build.json"
    with _exclusive(shared / "docs-build.lock"):
        started = shared / "docs-build.started"
        if not started.exists():
            started.touch()
            out = shared / "docs"
            env = {**os.environ, "MPLBACKEND": "Agg"}
            subprocess.Popen(
                [sys.executable, "-c", _BUILD_SCRIPT, json.dumps(_sphinx_command(out)),
                 str(out), str(record), str(ROOT)],
                cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return record


def _xdist_groups(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under ``--dist loadgroup``, tag every test's id with its xdist group.

    The group is the test's ``xdist_group`` mark, else its file. Each test would
    otherwise be a unit of its own, and the two workers would walk the same file side
    by side, both compiling its numba kernels at the same time on a cold cache
    (measured on tests/pandas: 14 kernels compiled twice, a third of the compile time).
    A worker takes whole files instead, the largest first, and loads a kernel that
    another file compiled before from the on-disk cache.

    xdist adds the ``@group`` suffix itself by assigning ``item._nodeid``, which pytest
    >= 9.2 no longer reads (the id is a structured ``_id``): there its marks were
    silently ignored (the docs, mypy and cluster groups ran split over both workers).
    The suffix is written here in whichever form this pytest keeps.
    """
    if not getattr(config.option, "loadgroup", False):  # xdist workers, --dist loadgroup
        return
    for item in items:
        names = {str(m.args[0] if m.args else m.kwargs.get("name", "default"))
                 for m in item.iter_markers("xdist_group")}
        group = "_".join(sorted(names)) or item.nodeid.split("::", 1)[0]
        if item.nodeid.endswith("@" + group):  # xdist's own suffix took effect
            continue
        new = f"{item.nodeid}@{group}"
        if hasattr(type(getattr(item, "_id", None)), "parse"):  # pytest >= 9.2: a NodeId
            item._id = type(item._id).parse(new)
        else:
            item._nodeid = new


@pytest.hookimpl(trylast=True)  # after xdist's own hook
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    _xdist_groups(config, items)
    # The docs build (Sphinx, executed notebooks: minutes on 2 cores) starts as soon as
    # the tests that read it are collected, so it runs beside the other tests instead
    # of a worker waiting idle for it when the first docs test comes up.
    if any("docs_build" in getattr(item, "fixturenames", ()) for item in items):
        _start_docs_build(config)


@pytest.fixture(scope="session")
def docs_build(request: pytest.FixtureRequest) -> DocsBuild:
    """The run's one docs build, with warnings as errors.

    myst-nb executes every notebook in ``notebooks/`` during this build and fails
    it on the first cell error, so the notebooks run exactly once per test run.
    The build is started in the background right after collection (by whichever
    xdist worker gets there first, through a file lock in the run's shared temporary
    root); this fixture waits for its record.
    """
    record = _start_docs_build(request.config)
    deadline = time.monotonic() + 1200
    while not record.exists():
        if time.monotonic() > deadline:
            pytest.fail("the docs build did not finish within 20 minutes")
        time.sleep(0.5)
    d = json.loads(record.read_text(encoding="utf-8"))
    return DocsBuild(d["returncode"], d["output"], Path(d["html"]))
