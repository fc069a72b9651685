"""The author's own plugin as a real process (K2): a module, a script or a `Plugin` object; its output;
kill and restart for failure tests; and what the kit says when a target cannot be started."""

from __future__ import annotations

from pathlib import Path

import pytest

from gates.plugin import Plugin
from gates.testing import PluginProcesses, SyncAssistant, SyncPlayer
from plugins_sample import decorated

HERE = Path(__file__).resolve().parent
EXAMPLE = HERE.parents[1] / "examples" / "my_plugin.py"
SIGKILL_EXIT = -9


def test_k2_a_module_runs_with_the_bus_and_its_arguments(plugin_process: PluginProcesses) -> None:
    plugin = plugin_process.start("plugins_sample.myplugin", "--seconds-per-kill", "1000")
    assert plugin.expect("MyPlugin: registered myplugin_restock").endswith("(undecided)")
    assert plugin.internal_name is None and plugin.label == "myplugin"


RUN_SAYS = """
from gates.plugin import Plugin

plugin = Plugin("RunSays")


@plugin.tool(read_only=True)
def runsays_hello() -> str:
    \"\"\"Says hello.\"\"\"
    return "hello"


plugin.run()
"""


def test_k2_a_script_that_calls_plugin_run_says_when_it_has_registered(
    plugin_process: PluginProcesses, tmp_path: Path
) -> None:
    # plugin.run() prints what the samples print: a newcomer sees it joined, a test waits for the line
    script = tmp_path / "run_says.py"
    script.write_text(RUN_SAYS, encoding="utf-8")
    plugin = plugin_process.start(script)
    assert plugin.wait_registered() == "RunSays: registered 1 tool"
    assert plugin.lines[0].startswith("RunSays: connected to tcp://127.0.0.1:")


def test_k2_a_script_path_runs_it_and_its_stdout_is_kept(plugin_process: PluginProcesses) -> None:
    plugin = plugin_process.start(EXAMPLE)
    plugin.expect("Restock: registered")
    assert plugin.lines == ["Restock: registered 3 tools"]
    assert "$ " in plugin.output() and "Restock: registered 3 tools" in plugin.output()


@pytest.mark.xivmcp(auto_enable=True)
def test_k2_a_plugin_object_runs_in_a_process_of_its_own_and_says_when_it_has_registered(
    assistant: SyncAssistant, plugin_process: PluginProcesses
) -> None:
    plugin = plugin_process.start(decorated.plugin)
    assert plugin.wait_registered() == "Decorated: registered 5 tools"
    assert plugin.internal_name == "Decorated"
    assert assistant.call_tool("decorated_status").structured == {"flag": None, "kills": 0, "gil": 100_000}


def test_k2_kill_and_restart_make_a_crash_and_a_reload(
    player: SyncPlayer, assistant: SyncAssistant, plugin_process: PluginProcesses
) -> None:
    plugin = plugin_process.start(decorated.plugin)
    plugin.wait_registered()
    player.enable("Decorated")
    first = plugin.pid

    plugin.kill()
    assert plugin.returncode == SIGKILL_EXIT
    plugin.restart()
    plugin.wait_registered()

    assert plugin.pid != first and plugin.starts == 2
    assert not assistant.call_tool("decorated_status").is_error  # consented before: still enabled


def test_k2_targets_that_cannot_be_started_are_refused_saying_what_to_pass(plugin_process: PluginProcesses) -> None:
    with pytest.raises(ValueError, match="There is no script .*no_such_plugin.py: a relative path starts at"):
        plugin_process.start("no_such_plugin.py")
    with pytest.raises(ValueError, match="neither a module name"):
        plugin_process.start("not a module")
    with pytest.raises(ValueError, match="takes no arguments"):
        plugin_process.start(decorated.plugin, "-v")
    with pytest.raises(ValueError, match="not a module-level name of any imported module"):
        plugin_process.start(Plugin("Nowhere"))
    assert plugin_process.started == []


def test_k2_a_failing_plugin_process_shows_why_on_stderr(plugin_process: PluginProcesses) -> None:
    broken = plugin_process.start("plugins_sample.myplugin", "--no-such-option")
    assert broken.process.popen.wait(20) == 2  # argparse's exit
    assert "unrecognized arguments: --no-such-option" in broken.stderr()
