"""Fixtures of the MCP endpoint's tests: one broker and host for the session, plugins per test.

The host runs with --auto-enable, so a plugin's tools are offered once it registers, and with
--test-clock, so no approval window closes by itself; without the simulator's extensions, so the
assistant sees what the real host shows (F3; test_simulator_extensions.py has a host with them).
Tests that change a player setting put it back. Every process is killed by pid (SIGKILL) in teardown.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator

import anyio
import anyio.to_thread
import pytest
import pytest_asyncio

import broker
from gates.testing import Process

from .xiv_mcp_support import ROOT, START, StartPlugin, XivSystem

INTERNAL_NAMES = {
    "myplugin": "MyPlugin",
    "raw_gates": "RawPlugin",
    "growing": "GrowingPlugin",
    "many_tools_plugin.py": "ManyTools",
    "careless": "Careless",
    "conformance": "Conformance",
}


@pytest.fixture(scope="session")
def xiv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[XivSystem]:
    flags = ("--auto-enable", "--test-clock", "--http", "127.0.0.1:0")
    with XivSystem(tmp_path_factory.mktemp("xivmcp"), *flags, cwd=ROOT) as system:
        system.start()
        system.start_game("--test-clock")  # what the sample plugins' tools act on
        yield system


@pytest_asyncio.fixture
async def start_plugin(xiv: XivSystem) -> AsyncIterator[StartPlugin]:
    """`await start_plugin("myplugin", *args)` runs `python -m plugins_sample.myplugin --bus …`;
    `await start_plugin(path)` a script of this directory. Stopped by pid in teardown."""
    started: list[tuple[str, Process]] = []

    async def start(name: str, *args: str) -> Process:
        target = str(ROOT / "tests" / "mcp" / "plugins" / name) if name.endswith(".py") else f"plugins_sample.{name}"
        plugin = xiv.start_plugin(target, *args)
        started.append((INTERNAL_NAMES[name], plugin))
        return plugin

    try:
        yield start
    finally:
        for _, plugin in started:
            await anyio.to_thread.run_sync(plugin.stop)
        if started:
            # The next test's plugin has the same InternalName: the bus (and so the host, which
            # hears of peers through it, in order) must be done with this one first.
            async with broker.connect(xiv.bus, f"McpTests{os.getpid()}") as pi:
                with anyio.fail_after(START):
                    for name, _ in started:
                        await pi.wait_peer_gone(name)
