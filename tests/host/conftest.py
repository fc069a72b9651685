"""Fixtures of the host tests: the system as real processes, once per module or per test.

Every process is killed by pid and reaped in teardown, whether the test passed or not (see
`_system.XivMcpSystem.close`). In-process hosts are not fixtures but `async with inprocess_host(...)`
blocks in the test itself: pytest-asyncio runs an async fixture's setup and teardown in different
tasks, and the host's task group must be entered and left by the same one.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ._system import XivMcpSystem, host_system


@pytest.fixture(scope="module")
def system(tmp_path_factory: pytest.TempPathFactory) -> Iterator[XivMcpSystem]:
    """Broker and host (`--test-clock`) as processes, shared by the tests of one module."""
    with host_system(tmp_path_factory.mktemp("system")) as started:
        yield started


@pytest.fixture
def fresh_system(tmp_path: Path) -> Iterator[XivMcpSystem]:
    """Broker and host (`--test-clock`) as processes, for one test (which may kill and restart them)."""
    with host_system(tmp_path) as started:
        yield started
