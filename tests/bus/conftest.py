"""Fixtures of the bus tests that speak raw ZeroMQ to a broker, beside the suite's (tests/conftest.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio
import zmq
import zmq.asyncio


@pytest_asyncio.fixture
async def zmq_context() -> AsyncIterator[zmq.asyncio.Context]:
    """A context of the test's own, destroyed with linger 0 so no socket outlives the test."""
    ctx = zmq.asyncio.Context()
    try:
        yield ctx
    finally:
        ctx.destroy(linger=0)
