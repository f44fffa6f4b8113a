"""The API generator behind ``tools/generate_api.py`` (engine: :mod:`apigen.render`;
host specs: ``apigen/hosts_*.py``)."""
