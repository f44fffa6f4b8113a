"""The command line: ``nanaccess describe [FILE]`` and ``nanaccess warm``.

Modules: :mod:`.command` (argument parsing and the commands; :func:`main` is the
console script ``nanaccess`` and ``python -m nanaccess``), :mod:`.readers` (CSV,
Parquet and NetCDF into one table of columns, with :mod:`.readers_csv` and
:mod:`.readers_netcdf`), :mod:`.stats` (the statistics of a column or group under each
policy) and :mod:`.output` (tidy csv/json records and the printed tables).
"""

from __future__ import annotations

from .command import CLIError, describe, main, read_table

__all__ = ["main", "describe", "CLIError", "read_table"]
