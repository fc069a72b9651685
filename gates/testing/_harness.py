"""The process harness: a private XIV MCP system as real processes, for tests of plugins and of XIV MCP itself.

The pytest plugin (`pytest_plugin`) is built on it; our own tests use it directly.

    with XivMcpSystem(tmp_path) as system:          # nothing is shared with the user's own system
        system.start()                              # a broker on a free loopback port, then the host
        plugin = system.start_plugin("plugins_sample.myplugin")
        plugin.wait_line("MyPlugin: registered myplugin_restock")
        subprocess.run(system.cli("enable", "MyPlugin"), check=True)

Every process is started with `subprocess.Popen`, remembered, and stopped by pid in `close()`
(kill -9, and reaped), whatever the test did. A process's stdout is read line by line by a
thread, so a test waits for a line (an event), never for time to pass: `wait_line` blocks, and
`expect` awaits the same without blocking an event loop. Readiness is a line each program prints
once it can be used: the broker's "listening" once bound, the host's "ready" once the broker
holds its gates (and, with MCP, after "MCP endpoint URL"), the game's "ready" likewise. The data
dir is the system's own temporary folder. On Windows a kill is `TerminateProcess` and a process
group is not used.
"""

from __future__ import annotations

import contextlib
import os
import random
import re
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import IO, Final, Self

import anyio.to_thread

import broker
from gates.contract import ENV_DATA_DIR, PLAYER_KEY_FILE
from gates.datadir import owner_only_dir, secret

__all__ = ["START_TIMEOUT", "Process", "XivMcpSystem", "free_endpoint", "free_port", "xivmcp_argv"]

START_TIMEOUT: Final = 20.0
"""Seconds a process may take to print a readiness line (a loaded 2-core CI machine starts slowly)."""


SPARE_PORTS: Final = range(20000, 32768)
"""Where `free_port` looks: below the ephemeral ports (32768 up on Linux, 49152 up on Windows and
macOS), from which the system gives every outgoing connection its local port. A port the kernel
hands out for `bind(0)` comes from that same range, so a busy test run's own connections could
take it before the caller binds it (a broker then fails to bind, and its system waits on another's)."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago (the caller binds it soon, or retries):
    one of `SPARE_PORTS` at random (another test process picks the same one 1 time in 12,768), else
    whatever the system gives."""
    for _ in range(64):
        port = random.choice(SPARE_PORTS)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        found: int = s.getsockname()[1]
        return found


def free_endpoint() -> str:
    """A bus endpoint on a free loopback port: ``tcp://127.0.0.1:PORT``."""
    return f"tcp://127.0.0.1:{free_port()}"


def xivmcp_argv(*args: str) -> list[str]:
    """The argv of `xivmcp ARGS` with this interpreter (no reliance on PATH)."""
    return [sys.executable, "-m", "xivmcp", *args]


class Process:
    """A child process: its stdout collected line by line by a thread, stopped by pid."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        log: Path | None = None,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
        new_session: bool = False,
    ) -> None:
        """Start `argv`; stderr goes to `log` (appended) or to this process's stderr. With
        `new_session` (POSIX) the child leads a process group, and `kill` ends the whole group."""
        self.argv = list(argv)
        self.log = log
        self.new_session = new_session and os.name == "posix"
        stderr: IO[bytes] | None = None
        if log is not None:
            log.parent.mkdir(parents=True, exist_ok=True)
            stderr = log.open("ab")
        try:
            self.popen = subprocess.Popen(
                self.argv,
                cwd=cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=stderr,
                start_new_session=self.new_session,
            )
        finally:
            if stderr is not None:
                stderr.close()
        self.lines: list[str] = []
        self._seen = 0
        self._changed = threading.Condition()
        self._eof = False
        assert self.popen.stdout is not None
        threading.Thread(target=self._read, args=(self.popen.stdout,), daemon=True).start()

    def __repr__(self) -> str:
        return f"<Process {self.pid} {' '.join(self.argv[1:4])}>"

    @property
    def pid(self) -> int:
        """The child's process id."""
        return self.popen.pid

    @property
    def returncode(self) -> int | None:
        """The exit code once it ended (negative: the signal that ended it), else None."""
        return self.popen.poll()

    def _read(self, stream: IO[bytes]) -> None:
        with contextlib.suppress(OSError, ValueError):
            for raw in stream:
                with self._changed:
                    self.lines.append(raw.decode(errors="replace").rstrip("\r\n"))
                    self._changed.notify_all()
        with self._changed:
            self._eof = True
            self._changed.notify_all()

    def wait_line(self, prefix: str, timeout: float = START_TIMEOUT) -> str:
        """The next line (after those already taken) that starts with `prefix`; blocks up to `timeout`."""
        with self._changed:
            while True:
                while self._seen < len(self.lines):
                    line = self.lines[self._seen]
                    self._seen += 1
                    if line.startswith(prefix):
                        return line
                if self._eof:
                    raise AssertionError(
                        f"{self.argv[1:]} ended (exit {self.popen.wait()}) before printing {prefix!r}: "
                        f"{self.lines[-20:]}{self._stderr_tail()}"
                    )
                if not self._changed.wait(timeout):
                    said = f"{self.lines}{self._stderr_tail()}"
                    raise AssertionError(f"{self.argv[1:]} did not print {prefix!r} within {timeout} s: {said}")

    async def expect(self, prefix: str, within: float = START_TIMEOUT) -> str:
        """`wait_line` without blocking the event loop."""
        return await anyio.to_thread.run_sync(self.wait_line, prefix, within, abandon_on_cancel=True)

    async def readline(self, within: float = START_TIMEOUT) -> str:
        """The next line, whatever it says."""
        return await self.expect("", within)

    async def wait(self, within: float = START_TIMEOUT) -> int:
        """Wait (without blocking the event loop) until the process ends; its exit code."""
        return await anyio.to_thread.run_sync(self.popen.wait, within, abandon_on_cancel=True)

    def skip_to_end(self) -> None:
        """Forget the lines printed so far: `wait_line` and `expect` then wait for new ones."""
        with self._changed:
            self._seen = len(self.lines)

    def _stderr_tail(self) -> str:
        if self.log is None:
            return ""
        try:
            return "; stderr: " + self.log.read_text(errors="replace")[-2000:]
        except OSError:
            return ""

    def send_signal(self, sig: int) -> None:
        """Send signal `sig` (`signal.SIGSTOP` to freeze it, say) if the child still runs; else nothing."""
        if self.popen.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self.popen.send_signal(sig)

    def kill(self) -> None:
        """kill -9 by pid (the whole group for a process started in a session of its own), and reap."""
        if self.new_session:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.popen.pid, signal.SIGKILL)  # also children it left behind
        elif self.popen.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self.popen.kill()
        self.popen.wait(10)
        if self.popen.stdout is not None:
            self.popen.stdout.close()

    def terminate(self, timeout: float = START_TIMEOUT, sig: int = signal.SIGTERM) -> int:
        """Send `sig` (SIGTERM) by pid and wait for the exit code; kill -9 and fail if it does not end."""
        self.send_signal(sig)
        try:
            return self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"{self.argv[1:]} did not stop on signal {sig} within {timeout} s") from None

    def stop(self, grace: float = 5.0) -> None:
        """Ask it to stop (SIGINT: a plugin leaves the bus at once, so its name is free again), then
        kill -9 whatever is still running after `grace` seconds."""
        if self.popen.poll() is None:
            self.send_signal(signal.SIGINT if os.name == "posix" else signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.popen.wait(grace)
        self.kill()


class XivMcpSystem:
    """A broker, the XIV MCP host and plugins as separate processes, in a folder of their own.

    `root` holds the data dir (`root/data`) and one stderr log per process (`root/logs`).
    `host_args` are passed to every `xivmcp host` this system starts (for example
    ``("--test-clock", "--no-mcp")``); with MCP, `mcp_url` and `token` are set once it listens.
    """

    def __init__(self, root: Path, *host_args: str, cwd: Path | None = None, curve: bool = False) -> None:
        """With `curve`, the bus admits only processes holding the data dir's CURVE key, as the bus
        of `xivmcp up` does (S4): the broker makes the keys and notes them in the data dir, and
        every process this system starts finds them there (``XIVMCP_DATA_DIR`` is set for it)."""
        self.root = root
        self.data_dir = root / "data"
        self.logs = root / "logs"
        self.endpoint = free_endpoint()
        self.host_args = host_args
        self.cwd = cwd
        self.curve = curve
        self.broker: Process | None = None
        self.host: Process | None = None
        self.game: Process | None = None
        self.mcp_url = ""
        self.token = ""
        self.procs: list[Process] = []

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    @property
    def common(self) -> list[str]:
        """``--bus ENDPOINT --data-dir DIR``: the options that point a command at this system."""
        return ["--bus", self.endpoint, "--data-dir", str(self.data_dir)]

    def spawn(
        self, argv: Sequence[str], name: str, *, new_session: bool = False, env: dict[str, str] | None = None
    ) -> Process:
        """Start any process as part of this system (stopped by `close`); stderr to `logs/NAME.log`;
        `env` is its whole environment (default: this process's)."""
        if env is None and self.curve:  # where its client finds the bus's key (`gates.plugin.bus_keys`)
            env = {**os.environ, ENV_DATA_DIR: str(self.data_dir.resolve())}
        proc = Process(argv, log=self.logs / f"{name}.log", cwd=self.cwd, env=env, new_session=new_session)
        self.procs.append(proc)
        return proc

    def start(self) -> XivMcpSystem:
        """The broker, then the host; returns once the host's gates are on the bus."""
        self.start_broker()
        self.start_host()
        return self

    def start_broker(self, *extra: str) -> Process:
        """`xivmcp broker`, once it listens; on a new free port if this one was taken meanwhile."""
        keys = ("--curve", "--data-dir", str(owner_only_dir(self.data_dir))) if self.curve else ()
        for attempt in range(3):
            proc = self.spawn(xivmcp_argv("broker", "--bus", self.endpoint, *keys, *extra), "broker")
            try:
                proc.wait_line("xivmcp broker: listening")
            except AssertionError:
                proc.kill()
                if attempt == 2:
                    raise
                self.endpoint = free_endpoint()
                continue
            self.broker = proc
            return proc
        raise AssertionError("unreachable")

    def start_host(self, *extra: str) -> Process:
        """`xivmcp host` on this system; returns once it said "ready" (its gates are at the broker)."""
        proc = self.launch_host(*extra)
        self.wait_host_ready(proc)
        return proc

    def launch_host(self, *extra: str) -> Process:
        """`xivmcp host` on this system, not waited for: start others meanwhile, then `wait_host_ready`.

        Its MCP endpoint listens on a free port unless told ``--http`` or ``--no-mcp``: the
        default one (37521) belongs to the user's own `xivmcp up`, which may be running."""
        args = (*self.host_args, *extra)
        if not any(a == "--no-mcp" or a == "--http" or a.startswith("--http=") for a in args):
            args = (*args, "--http", "127.0.0.1:0")
        self.host = proc = self.spawn(xivmcp_argv("host", *self.common, *args), "host")
        return proc

    def wait_host_ready(self, proc: Process) -> None:
        """Wait until the host `proc` said "ready"; with MCP, take its URL and token first."""
        if "--no-mcp" not in proc.argv:
            self.mcp_url = proc.wait_line("xivmcp host: MCP endpoint ").split()[4].rstrip(";")
            self.token = (self.data_dir / "token").read_text(encoding="utf-8").strip()
        proc.wait_line("xivmcp host: ready")

    def start_game(self, *extra: str) -> Process:
        """`xivmcp game` on this system's bus (`extra`: ``--test-clock``, ``--world FILE`` ...); returns
        once it said "ready" (the broker holds its `Game.*` gates)."""
        proc = self.launch_game(*extra)
        self.wait_game_ready(proc)
        return proc

    def launch_game(self, *extra: str) -> Process:
        """`xivmcp game` on this system's bus, not waited for (then `wait_game_ready`)."""
        self.game = proc = self.spawn(xivmcp_argv("game", *self.common, *extra), "game")
        return proc

    @staticmethod
    def wait_game_ready(proc: Process) -> None:
        """Wait until the game `proc` said "ready" (the broker holds its `Game.*` gates)."""
        proc.wait_line("xivmcp game: ready")

    def player_key(self) -> str:
        """The player key of this system's data dir, made now (owner-only, as the host makes it) if no
        host has made it yet. The game's admin gates answer only this key (F4): a system with a game
        and no host makes it here; with a host, ask once the host is ready (it makes the key)."""
        return secret(owner_only_dir(self.data_dir) / PLAYER_KEY_FILE, "player key")

    def bus_keys(self) -> broker.CurveClient | None:
        """The key pair a process of this user joins this system's bus with: the data dir's, once
        the broker made it, on a CURVE system; None on a plain one."""
        return broker.CurveClient.load(self.data_dir) if self.curve else None

    def connect(self, name: str, **options: float) -> contextlib.AbstractAsyncContextManager[broker.PluginInterface]:
        """`broker.connect` to this system's bus as `name`, with its key on a CURVE system."""
        return broker.connect(self.endpoint, name, curve=self.bus_keys(), **options)

    def plugin_data_dir(self, label: str) -> Path:
        """A data dir of a plugin's own (`root/plugin-data/LABEL`), for its ``XIVMCP_DATA_DIR``: no
        player key and no MCP token (B8). On a CURVE system it holds a key pair of the plugin's own,
        which the broker admits by name (`bus-clients/LABEL.pub`), and the note of this bus, so the
        plugin joins as a plugin of this user does, and its InternalName is bound to its own key."""
        name = re.sub(r"[^A-Za-z0-9_-]", "_", label)[:64] or "plugin"
        own = owner_only_dir(self.root / "plugin-data" / name)
        if self.curve and broker.CurveClient.load(own) is None:
            server = broker.CurveServer.in_dir(self.data_dir)  # the broker's keys, made as it started
            keys = broker.CurveClient.new(server.public)
            keys.save(own)
            assert server.clients_dir is not None
            broker.add_client(server.clients_dir, name, keys.public)
            broker.note_bus(own, self.endpoint, server.public)
        return own

    def start_plugin(self, target: str, *args: str, name: str | None = None) -> Process:
        """A plugin on this system's bus: a module (``plugins_sample.myplugin``) or a script path."""
        argv = [sys.executable, target] if target.endswith(".py") else [sys.executable, "-m", target]
        label = name or (Path(target).stem if target.endswith(".py") else target.rpartition(".")[2])
        return self.spawn([*argv, "--bus", self.endpoint, *args], label)

    def cli(self, *args: str) -> list[str]:
        """The argv of `xivmcp ARGS` pointed at this system, as the player types it."""
        return xivmcp_argv(*args, *self.common)

    def close(self) -> None:
        """Kill every process of this system by pid (the last started first) and reap them."""
        for proc in reversed(self.procs):
            proc.kill()
