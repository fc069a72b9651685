"""Benchmarks for the bus; run `python -m bench.bus` (see its --help)."""
