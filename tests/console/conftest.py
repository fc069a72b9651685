"""The console's tests: one system per test file (broker, host with its HTTP endpoint, game).

The host runs with --test-clock, so no approval window declines by itself while a browser is
slow, and without --auto-enable: the player enables plugins on the page.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from gates.testing import XivMcpSystem

ROOT = Path(__file__).resolve().parents[2]


class ConsoleSystem(XivMcpSystem):
    """A system whose player asks for console links and acts from the command line."""

    def xivmcp(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(self.cli(*args), cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)
        if check and done.returncode != 0:
            raise AssertionError(f"xivmcp {' '.join(args)} failed ({done.returncode}): {done.stderr}")
        return done

    def console_link(self) -> str:
        """A fresh one-time link, as `xivmcp console` prints it."""
        return self.xivmcp("console").stdout.split()[0]

    @property
    def base(self) -> str:
        """`http://127.0.0.1:PORT`, where the console and /mcp are served."""
        return self.mcp_url.removesuffix("/mcp")


@pytest.fixture(scope="module")
def system(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ConsoleSystem]:
    with ConsoleSystem(tmp_path_factory.mktemp("console"), "--test-clock", "--http", "127.0.0.1:0", cwd=ROOT) as s:
        s.start()
        s.start_game("--test-clock")
        yield s
