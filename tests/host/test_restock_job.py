"""The jobs guide's sample job "Restock, then store" end to end on the default world, all real processes
(J2, J6, J9, A8): walk to the vendor, buy, walk to the bell, call the retainer, hand the items over,
each step's result feeding the next. With AutoRetainer processing retainers at the bell, the
retainer step fails with the real host's words and the job is pending until it is retried.

The job is the one the jobs guide starts (read from docs/guides/jobs.md), so the page cannot drift
from what is tested.
vnavmesh is the test's own peer (tests/host/plugins/game_peers.py); the walks end when the test
moves the game's clock.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from game import GameClient
from gates.host.tools._bell import AUTORETAINER_BUSY

from ._game_session import Assistant, fresh, made_since, snapshot, start_game_allowing
from ._system import WAIT, XivMcpSystem
from .plugins.game_peers import NavmeshPeer, navmesh_peer

pytestmark = pytest.mark.asyncio


@pytest.fixture(scope="module")
def shops(system: XivMcpSystem) -> Iterator[XivMcpSystem]:
    """The module's system, with Game & navigation, Market & purchases and Items & retainers changes allowed."""
    yield start_game_allowing(system, "game_navigation", "market", "items_retainers")


GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guides" / "jobs.md"


def restock_job() -> dict[str, Any]:
    """The job the jobs guide's `xivmcp call start_job` line starts."""
    found = re.search(r"^xivmcp call start_job '(\{\"name\": \"Restock, then store\".*)'$", GUIDE.read_text(), re.M)
    assert found is not None, "docs/guides/jobs.md no longer starts the job Restock, then store"
    job: dict[str, Any] = json.loads(found[1])
    return job


async def job_now(assistant: Assistant, job_id: str, *states: str) -> dict[str, Any]:
    """The job once it is in one of `states` (each look a round trip to the host, under a timeout)."""
    with anyio.fail_after(WAIT * 2):
        while (job := (await assistant.result("get_job", {"id": job_id}))["job"])["state"] not in states:
            assert job["state"] in ("queued", "running"), job
    found: dict[str, Any] = job
    return found


async def walk(navmesh: NavmeshPeer, game: GameClient) -> None:
    """vnavmesh got a path; the walk ends on the game's clock."""
    await navmesh.next_path()
    await game.advance_clock(30)


async def test_j9_restock_then_store_runs_end_to_end_each_result_feeding_the_next(shops: XivMcpSystem) -> None:
    async with fresh(shops) as (assistant, game), navmesh_peer(shops.endpoint, assistant.pi) as navmesh:
        _, seq = await snapshot(game)
        started = await assistant.result("start_job", restock_job())
        job_id = started["started"]["id"]
        await walk(navmesh, game)  # to the Material Supplier
        await walk(navmesh, game)  # to the bell, once bought
        job = await job_now(assistant, job_id, "completed")
        results = {step["id"]: step["result"] for step in job["steps"]}
        assert results["walk"]["at"]["name"] == "Material Supplier"
        assert (results["buy"]["bought"], results["buy"]["from"]) == (5, "Material Supplier")
        assert results["bell"]["arrived"] is True
        assert results["open"] == {"opened": "Ququru"}
        assert results["store"]["results"][0]["to"] == "Ququru"  # {{open.opened}}
        assert results["store"]["results"][0]["quantityMoved"] == 25  # the 20 held and the 5 bought
        acting = [c for c in await made_since(game, seq) if c[0] == "XivMcp" and c[1] != "move_character"]
        assert acting == [
            ("XivMcp", "spend_gil", "paid 1,600 gil for 5 × Hi-Potion"),
            ("XivMcp", "move_items", "received 5 × Hi-Potion from Material Supplier"),
            ("XivMcp", "game_ui", "called Ququru at the bell"),
            ("XivMcp", "move_items", "entrusted 25 × Hi-Potion to Ququru"),
            ("XivMcp", "game_ui", "dismissed Ququru"),
        ]
        ququru = (await game.retainers()).retainers[0]
        assert {(i.item_id, i.count) for i in ququru.items} == {(2, 500), (4554, 25)}


async def test_a8_j6_with_autoretainer_busy_at_the_bell_the_job_waits_pending_until_retried(
    shops: XivMcpSystem,
) -> None:
    autoretainer = shops.start_plugin("plugins_sample.autoretainer", "--seconds", "600")
    try:
        await autoretainer.expect("AutoRetainer: ready")
        async with fresh(shops) as (assistant, game), navmesh_peer(shops.endpoint, assistant.pi) as navmesh:
            start = (await game.position()).position
            await game.set_position(-8.0, 30.0)  # the player at the bell: AutoRetainer starts processing
            await autoretainer.expect("AutoRetainer: processing retainers at the bell")
            await game.set_position(start.x, start.z)
            started = await assistant.result("start_job", restock_job())
            job_id = started["started"]["id"]
            await walk(navmesh, game)
            await walk(navmesh, game)
            job = await job_now(assistant, job_id, "pending")
            failed = next(step for step in job["steps"] if step["state"] == "failed")
            assert (failed["id"], failed["error"]) == ("open", AUTORETAINER_BUSY)
            assert (await game.retainers()).open == "Ququru"  # AutoRetainer's own call, untouched

            with anyio.fail_after(WAIT):
                await assistant.pi.get_ipc_subscriber("AutoRetainer.PluginState.AbortAllTasks").invoke_action()
            await autoretainer.expect("AutoRetainer: done")
            await assistant.result("update_job", {"id": job_id, "action": "retry", "resume": True})
            job = await job_now(assistant, job_id, "completed")
            assert job["steps"][-1]["result"]["completed"] == 1
            await autoretainer.expect("AutoRetainer: suppressed")
            await autoretainer.expect("AutoRetainer: released")
    finally:
        autoretainer.kill()
