"""Fixtures of the plugin kit's end-to-end test: one broker and host (with MCP) for the module.

The host runs with --auto-enable, so a plugin's tools are offered once it registers. Every
process is killed by pid in teardown (`XivMcpSystem.close`).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.mcp.xiv_mcp_support import ROOT, XivSystem

AUTHORED = "tests.plugin.plugins.authored_plugin"


@pytest.fixture(scope="module")
def authored_system(tmp_path_factory: pytest.TempPathFactory) -> Iterator[XivSystem]:
    """A broker, a host with MCP, and the `authored_plugin` process on its bus. The host runs with the
    simulator's extensions: these tests show what the kit declares (outputSchema, structuredContent,
    P5), which the real XIV MCP does not pass on (F3)."""
    flags = ("--auto-enable", "--test-clock", "--simulator-extensions", "--http", "127.0.0.1:0")
    system = XivSystem(tmp_path_factory.mktemp("authored"), *flags, cwd=ROOT)
    with system:
        system.start()
        system.start_plugin(AUTHORED, name="authored")
        yield system
