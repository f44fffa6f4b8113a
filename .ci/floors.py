#!/usr/bin/env python3
"""Print pip constraints pinning every declared floor: ``name>=X`` becomes ``name==X``.

Read from pyproject.toml: the core dependencies and the extras named on the command
line (default: dask, io). CI's second run installs nanaccess under these constraints,
so the lowest versions pyproject.toml promises are the versions tested. Environment
markers are kept (a pin applies where its requirement does).

    python .ci/floors.py dask io > floors.txt
    pip install -c floors.txt -e ".[dask,io]"
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

REQ = re.compile(r"^\s*([A-Za-z0-9_.-]+)(\[[^\]]*\])?\s*([^;]*?)\s*(;.*)?$")


def floors(extras: list[str]) -> list[str]:
    project = tomllib.loads(
        (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())["project"]
    reqs = list(project["dependencies"])
    for extra in extras:
        reqs += project["optional-dependencies"][extra]
    pins: dict[str, str] = {}
    for req in reqs:
        name, _, spec, marker = REQ.match(req).groups()
        if name == "nanaccess":  # an extra naming others: they are listed themselves
            continue
        low = re.search(r">=\s*([^,\s]+)", spec)
        if low:
            pins[name.lower()] = f"{name.lower()}=={low.group(1)}{' ' + marker if marker else ''}"
    return sorted(pins.values())


if __name__ == "__main__":
    print("\n".join(floors(sys.argv[1:] or ["dask", "io"])))
