"""The plugin author's own plugin as a real process on the test's system (the `plugin_process` fixture).

    plugin = plugin_process.start(my_plugin.plugin)        # a gates.plugin.Plugin object
    plugin.wait_registered()                               # "MyPlugin: registered 3 tools"
    other = plugin_process.start("my_other_plugin.py")     # a script, next to the test file
    legacy = plugin_process.start("mypkg.plugin", "-v")    # a module: python -m mypkg.plugin --bus ... -v
    legacy.expect("MyPkg: registered")                     # a line it prints, whatever it is
    plugin.kill(); plugin.restart()                        # failure tests: kill -9, then start again

A `Plugin` object is started by `python -m gates.testing._launch MODULE NAME`, which imports it
from the module that holds it, so it must be a module-level name of an importable module. Every
process gets `--bus` (the test's system), this test process's import path (what the test can
import, the plugin can), stdout collected line by line and stderr in the system's logs. At the
test's end each one is stopped (SIGINT: it leaves the bus at once, then kill -9 by pid).
"""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path
from typing import Final

import anyio.to_thread

from gates.contract import ENV_DATA_DIR
from gates.plugin import Plugin

from ._harness import START_TIMEOUT, Process, XivMcpSystem
from ._launch import registered_line

__all__ = ["PluginProcess", "PluginProcesses", "PluginTarget"]

PluginTarget = str | Path | Plugin
"""What `PluginProcesses.start` runs: a module name, a script path, or a `Plugin` object."""

_MODULE: Final = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")
_LAUNCH: Final = "gates.testing._launch"
_REGISTERED: Final = re.compile(r"\S+: registered \d+ tools?$")
"""The line the kit prints once XIV MCP has been sent every tool (`registered_line`)."""


class PluginProcess:
    """One of the test's plugin processes: its output, and the failures a test makes happen to it."""

    def __init__(
        self, harness: XivMcpSystem, argv: list[str], label: str, internal_name: str | None, env: dict[str, str]
    ) -> None:
        self._harness = harness
        self._argv = argv
        self._env = env
        self.label = label
        """A name for logs and reports: the module's last part, the script's stem, or the InternalName."""
        self.internal_name = internal_name
        """The plugin's InternalName when the kit knows it (a `Plugin` object), else None."""
        self.starts = 0
        self.process = self._spawn()

    def __repr__(self) -> str:
        return f"<PluginProcess {self.label} pid {self.pid}>"

    def _spawn(self) -> Process:
        self.starts += 1
        suffix = "" if self.starts == 1 else f"-{self.starts}"
        return self._harness.spawn(self._argv, f"plugin-{self.label}{suffix}", env=self._env)

    @property
    def pid(self) -> int:
        """The process id of the plugin's process (the new one after `restart`)."""
        return self.process.pid

    @property
    def returncode(self) -> int | None:
        """The exit code once it ended (negative: the signal that ended it), else None."""
        return self.process.returncode

    @property
    def lines(self) -> list[str]:
        """Every line it printed on stdout so far (this start's)."""
        return list(self.process.lines)

    def stderr(self) -> str:
        """What it wrote on stderr so far (its log file)."""
        log = self.process.log
        return log.read_text(encoding="utf-8", errors="replace") if log is not None and log.exists() else ""

    def expect(self, prefix: str, within: float = START_TIMEOUT) -> str:
        """The next line it prints (after those already taken) that starts with `prefix`; blocks."""
        return self.process.wait_line(prefix, within)

    async def expect_async(self, prefix: str, within: float = START_TIMEOUT) -> str:
        """`expect` without blocking the test's event loop."""
        return await self.process.expect(prefix, within)

    def wait_registered(self, within: float = START_TIMEOUT) -> str:
        """Wait until XIV MCP has been sent every tool: the line "NAME: registered N tools" that the
        kit prints (the launcher of a `Plugin` object, and `plugin.run()` in a module or script).
        A raw-gates plugin prints its own lines: wait for one of them with `expect`."""
        if self.internal_name is not None:
            return self.expect(registered_line(self.internal_name), within)
        deadline = time.monotonic() + within
        while True:  # the InternalName is not known here: any kit plugin's registered line
            line = self.expect("", max(0.0, deadline - time.monotonic()))
            if _REGISTERED.match(line):
                return line

    async def wait_registered_async(self, within: float = START_TIMEOUT) -> str:
        """`wait_registered` without blocking the test's event loop."""
        return await anyio.to_thread.run_sync(self.wait_registered, within, abandon_on_cancel=True)

    def kill(self) -> None:
        """kill -9 by pid, and reap: the bus notices it gone within seconds (B2)."""
        self.process.kill()

    def stop(self) -> None:
        """Stop it as Ctrl-C does (it leaves the bus at once), kill -9 if it has not ended soon after."""
        self.process.stop()

    async def stop_async(self) -> None:
        """`stop` without blocking the test's event loop."""
        await anyio.to_thread.run_sync(self.process.stop)

    def restart(self) -> PluginProcess:
        """kill -9, then start the same command again (a crash and a reload); this same handle."""
        self.kill()
        self.process = self._spawn()
        return self

    def output(self) -> str:
        """Its stdout and stderr, for a failed test's report."""
        return "\n".join([f"$ {' '.join(self._argv)}", *self.lines, "--- stderr ---", self.stderr()])


class PluginProcesses:
    """Starts the test's plugin processes on its system; `stop_all` ends them (the fixture's teardown)."""

    def __init__(self, harness: XivMcpSystem, test_dir: Path) -> None:
        """`test_dir` is the test file's folder: relative script paths start there."""
        self._harness = harness
        self._test_dir = test_dir
        self.started: list[PluginProcess] = []

    def start(self, target: PluginTarget, *args: str) -> PluginProcess:
        """Start a plugin process: a `Plugin` object, a script (``x.py``), or a module (``pkg.mod``).

        `args` follow ``--bus ENDPOINT`` on its command line (a `Plugin` object takes none).
        """
        bus = ["--bus", self._harness.endpoint]
        if isinstance(target, Plugin):
            if args:
                raise ValueError(
                    f"A Plugin object ({target.internal_name}) is started by the kit and takes no arguments, not "
                    f"{args!r}; start the module that runs it instead (plugin_process.start('pkg.module', ...))."
                )
            module, attribute = _where_defined(target)
            argv = [sys.executable, "-m", _LAUNCH, module, attribute, *bus]
            label, internal_name = target.internal_name, target.internal_name
        elif isinstance(target, Path) or target.endswith(".py"):
            script = self._script(Path(target))
            argv, label, internal_name = [sys.executable, str(script), *bus, *args], script.stem, None
        elif _MODULE.fullmatch(target):
            argv, label, internal_name = [sys.executable, "-m", target, *bus, *args], target.rpartition(".")[2], None
        else:
            raise ValueError(
                f"{target!r} is neither a module name (pkg.module), a script path (plugin.py) nor a "
                "gates.plugin.Plugin object; pass one of those."
            )
        # A data dir of its own (B8: not the player's), with its own key on the CURVE bus (S4).
        env = {**_child_environment(), ENV_DATA_DIR: str(self._harness.plugin_data_dir(label))}
        process = PluginProcess(self._harness, argv, label, internal_name, env)
        self.started.append(process)
        return process

    def _script(self, path: Path) -> Path:
        script = path if path.is_absolute() else self._test_dir / path
        if not script.is_file():
            raise ValueError(
                f"There is no script {script}: a relative path starts at the test file's folder "
                f"({self._test_dir}); give the script's path from there, or an absolute one."
            )
        return script

    def stop_all(self) -> None:
        """Stop every process this test started (each leaves the bus at once; kill -9 after a grace)."""
        for process in self.started:
            process.stop()


def _child_environment() -> dict[str, str]:
    """This process's environment, with its import path: what the test imports, the plugin can."""
    paths = [p for p in sys.path if p]
    inherited = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": os.pathsep.join([*paths, *([inherited] if inherited else [])])}


def _where_defined(plugin: Plugin) -> tuple[str, str]:
    """The module and name under which `plugin` is a module-level object, for a new process to import.

    A test module that imported it (``from my_plugin import plugin``) also holds it; the module
    that is not a test module is preferred, being the one that made it and importable by its name.
    """
    found: list[tuple[str, str]] = []
    for module_name, module in list(sys.modules.items()):
        if module_name == "__main__":
            continue
        namespace = getattr(module, "__dict__", None)
        if not isinstance(namespace, dict):
            continue
        found += [(module_name, key) for key, value in list(namespace.items()) if value is plugin]
    if not found:
        raise ValueError(
            f"The Plugin {plugin.internal_name!r} is not a module-level name of any imported module, so a new process "
            "cannot import it: create it at the top of a module (plugin = Plugin(...)) and pass that object, or "
            "start the module that runs it (plugin_process.start('pkg.module'))."
        )
    return min(found, key=lambda where: (_is_test_module(where[0]), where[0].count("."), where))


def _is_test_module(module_name: str) -> bool:
    last = module_name.rpartition(".")[2]
    return last.startswith("test_") or last.endswith("_test") or last == "conftest"
