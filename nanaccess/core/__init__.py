"""The NumPy-only core: classification, totalOrder keys, selection, moments.

Nothing in here knows about labels (pandas, xarray) or lazy arrays (dask); the
adapters translate those to plain arrays with an ``axis`` and back.
"""
