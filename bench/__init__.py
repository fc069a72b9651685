"""Benchmarks, each run as `python -m bench.NAME` (see its --help): bus, mcp, jobs, scale, soak,
startup, fuzz.

A bench module holds its own roles and orchestration; what several share is in the private modules:
`_proc` (the child-process harness), `_system` (the project's programs as children), `_stats`
(figures, percentiles, rounds), `_report` (tables and the --json pieces), `_cli` (the command
line), `_profile` (--profile), `_mcp_client` (the raw MCP client and its load), and the pieces one
bench keeps apart by concept: `_zmq_peers` (bench.bus's bare ZeroMQ baselines), `_sdk_server`
(bench.mcp's SDK baseline), `_job_batch` (bench.jobs's batches of jobs).
"""
