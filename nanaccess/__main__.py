"""``python -m nanaccess``: the command line (see :mod:`nanaccess.cli`)."""

from __future__ import annotations

from nanaccess.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
