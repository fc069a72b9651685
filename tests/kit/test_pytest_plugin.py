"""The pytest plugin as a plugin author meets it (K2): their test files, run by a pytest of their own.

Each test writes an author's test folder with `pytester` and runs pytest on it in a subprocess
(the plugin loads from its `pytest11` entry point, as it does for them), bounded by
`--timeout` inside and by `INNER` outside. A passing file must pass; a failing one must fail for
its own reason, with the report saying it; options are checked; a shared system is reset between
tests; and what a test costs after the first is measured.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
INNER = 150.0
"""Seconds one inner pytest run may take in all (it starts a system or two)."""


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "--timeout=60", *args, timeout=INNER)


def write_example(pytester: pytest.Pytester) -> None:
    for name in ("my_plugin.py", "test_my_plugin.py"):
        (pytester.path / name).write_text((EXAMPLES / name).read_text(encoding="utf-8"), encoding="utf-8")


def test_k2_the_example_test_file_of_a_plugin_author_passes(pytester: pytest.Pytester) -> None:
    write_example(pytester)
    result = run(pytester)
    result.assert_outcomes(passed=5)


def test_k2_an_assertion_on_the_game_after_a_call_fails_the_test_and_shows_the_plugins_output(
    pytester: pytest.Pytester,
) -> None:
    write_example(pytester)
    pytester.makepyfile(
        test_wrong_expectation="""
        import pytest

        @pytest.mark.xivmcp(auto_enable=True)
        def test_buying_is_free(assistant, game, plugin_process):
            plugin_process.start("my_plugin.py").expect("Restock: registered")
            assert not assistant.call_tool("restock_buy", {"count": 2}).is_error
            assert game.state().player.gil == 100_000, "buying should cost nothing"
        """
    )
    result = run(pytester, "test_wrong_expectation.py")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*AssertionError: buying should cost nothing*",
            "*xivmcp plugin my_plugin (pid *)*",
            "*Restock: registered 3 tools*",
        ]
    )


CARELESS = '''
import argparse

import anyio

from game import GameClient
from gates.plugin import Plugin

plugin = Plugin("Careless")
games: list[GameClient] = []


@plugin.tool(capabilities=["game_ui"])
async def careless_greet() -> str:
    """Greets the party in chat (declaring only game_ui, though chat needs chat_send)."""
    await games[0].send_chat("Hello!", "party")
    return "greeted"


async def serve(bus: str) -> None:
    async with plugin.connected(bus) as client:
        games.append(GameClient(client.pi))
        await client.wait_registered()
        print("Careless: registered", flush=True)
        await anyio.sleep_forever()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--bus", required=True)
    anyio.run(serve, parser.parse_args().bus)
'''


def test_k2_a_tool_with_an_undeclared_effect_fails_its_test_with_the_hosts_suspension(
    pytester: pytest.Pytester,
) -> None:
    """The author expects two greetings; XIV MCP suspends the plugin after the first (T2, W4)."""
    pytester.makepyfile(
        careless_plugin=CARELESS,
        test_careless="""
        import pytest

        @pytest.mark.asyncio
        async def test_greeting_twice(async_player, async_assistant, plugin_process):
            await plugin_process.start("careless_plugin.py").expect_async("Careless: registered")
            await async_player.enable("Careless")
            await async_player.mode("Careless", "game_ui", "allow")
            for _ in range(2):
                result = await async_assistant.call_tool("careless_greet")
                assert not result.is_error, result.text
        """,
    )
    result = run(pytester)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*AssertionError: Careless is suspended by XIV MCP (careless_greet: *(not declared))*"]
    )


def test_k2_a_marker_with_an_unknown_option_is_a_usage_error_naming_it(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.xivmcp(autoenable=True)
        def test_misspelt(player):
            pass
        """
    )
    result = run(pytester)
    assert result.ret != 0
    result.stdout.fnmatch_lines(
        ["*has no option autoenable; its options are auto_enable, test_clock, world and simulator_extensions*"]
    )


def test_k2_a_shared_system_is_back_at_its_start_whatever_the_test_before_left(pytester: pytest.Pytester) -> None:
    """Decisions, modes, module settings, a waiting approval, a running job, the world and the audit
    log of one test are gone for the next, on the same processes (the host's `reset`, `Game.Reset`)."""
    pytester.makepyfile(
        test_isolation="""
        from plugins_sample import decorated

        AT_START = {}

        def test_1_changes_everything(xivmcp_system, player, assistant, game, plugin_process):
            AT_START.update(host=xivmcp_system.harness.host.pid, modules=player.modules(), world=game.state())
            plugin_process.start(decorated.plugin).wait_registered()
            player.enable("Decorated")
            player.mode("Decorated", "decorated_status", "deny")
            player.module("game_data", "off")
            player.tool("get_position", "deny")
            player.module("game_navigation", "changes", "ask")
            player.start_call("clear_map_flag")  # left waiting for the player
            assert player.wait_approval("clear_map_flag").plugin == "XivMcp"
            started = assistant.call_tool("start_job", {"name": "Wait an hour", "steps": [
                {"tool": "wait", "args": {"seconds": 3600}}]})
            assert not started.is_error, started.text
            game.set("gil", 1)
            assert player.plugins().plugins and player.jobs() and player.audit() and game.changes()

        def test_2_finds_the_system_at_its_start(xivmcp_system, player, game):
            assert xivmcp_system.harness.host.pid == AT_START["host"]  # the same processes, reset
            assert player.plugins().plugins == []
            assert player.approvals() == []
            assert player.jobs() == []
            assert player.modules() == AT_START["modules"]
            assert player.audit() == []
            assert game.changes() == []
            assert game.state() == AT_START["world"]
        """
    )
    result = run(pytester, "-p", "no:randomly")
    result.assert_outcomes(passed=2)


COST = """
import json, os, pytest
from plugins_sample import decorated

N = int(os.environ["KIT_COST_N"])

def seen(system):
    with open(os.environ["KIT_SEEN_FILE"], "a") as out:
        out.write(json.dumps([system.harness.host.pid, system.tests_begun]) + "\\n")

@pytest.mark.parametrize("n", range(N))
def test_player_and_game(n, player, game, xivmcp_system):
    assert player.plugins().plugins == []
    assert game.changes() == []
    seen(xivmcp_system)

@pytest.mark.parametrize("n", range(N))
def test_player_game_and_a_plugin_process(n, player, game, plugin_process, xivmcp_system):
    plugin_process.start(decorated.plugin).wait_registered()
    assert player.enable("Decorated").state == "enabled"
    assert game.changes() == []
    seen(xivmcp_system)
"""

COST_CONFTEST = """
import json, os

SPENT = {}

def pytest_runtest_logreport(report):
    SPENT[report.nodeid] = SPENT.get(report.nodeid, 0.0) + report.duration  # setup + call + teardown

def pytest_sessionfinish(session):
    with open(os.environ["KIT_COST_FILE"], "w") as out:
        json.dump(SPENT, out)
"""


def test_k2_tests_on_a_shared_system_run_on_one_system_started_once_and_reset_between(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """N tests with `player` + `game`, then N that also start a plugin process, in one session:
    every one runs on the same host process, each after a reset, so only the first pays for
    starting the system. Each test's setup + call + teardown, as pytest reports them, is printed
    (9/10's target: under 0.3 s a test after the first); no test asserts time."""
    n = 20
    spent_file, seen_file = pytester.path / "spent.json", pytester.path / "seen.jsonl"
    monkeypatch.setenv("KIT_COST_N", str(n))
    monkeypatch.setenv("KIT_COST_FILE", str(spent_file))
    monkeypatch.setenv("KIT_SEEN_FILE", str(seen_file))
    pytester.makeconftest(COST_CONFTEST)
    pytester.makepyfile(test_cost=COST)
    run(pytester).assert_outcomes(passed=2 * n)
    seen = [json.loads(line) for line in seen_file.read_text(encoding="utf-8").splitlines()]
    assert len({pid for pid, _ in seen}) == 1  # one host for the whole session
    assert [begun for _, begun in seen] == list(range(1, 2 * n + 1))  # each test began (after a reset)
    spent = json.loads(spent_file.read_text(encoding="utf-8"))
    plain = [seconds for test, seconds in spent.items() if "test_player_and_game" in test]
    with_plugin = [seconds for test, seconds in spent.items() if "a_plugin_process" in test]
    rest = plain[1:]
    with capsys.disabled():
        print(
            f"\nper-test cost over {n} tests: first {plain[0]:.3f} s (starts the system); after it median "
            f"{statistics.median(rest):.3f} s, max {max(rest):.3f} s; with a plugin process median "
            f"{statistics.median(with_plugin):.3f} s, max {max(with_plugin):.3f} s"
        )
