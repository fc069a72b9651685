"""Child processes for the benchmarks, portable to Windows (no fork, no sleeps): the one harness
every bench starts its processes with, and what a child costs (memory, CPU).

The parent starts `python -m <module> --role ROLE …` (or, with `Children.start_command`, one of
the project's own programs such as `python -m xivmcp host …`) with pipes on stdin and stdout. A child
talks back in whole lines on stdout, each `WORD rest` (`ready tcp://…`, `result {json}`); the
parent waits for a given word with a bounded timeout. Closing the child's stdin asks it to stop
(a child that supports it watches for EOF); whatever is still running after that is terminated
(its whole process group, for a child started in a group of its own), then killed, and always
waited for.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parent.parent
"""The project root, put on the children's PYTHONPATH so `-m bench.…` resolves from anywhere."""

STOP_TIMEOUT = 5.0
"""Seconds a child has to exit after each step of `Child.stop`."""


class ChildError(RuntimeError):
    """A child process failed to start, crashed, or did not answer in time."""


def project_env() -> dict[str, str]:
    """This process's environment with the project root first on PYTHONPATH."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])])
    return env


class Child:
    """One child process and the lines it writes on stdout."""

    def __init__(
        self,
        module: str,
        role: str,
        args: Sequence[str] = (),
        *,
        graceful: bool = False,
        command: Sequence[str] | None = None,
        env: Mapping[str, str] | None = None,
        quiet: bool = False,
        own_group: bool = False,
    ) -> None:
        """`python -m module --role role *args`, or `python *command` when `command` is given (a
        program of the project's own, such as `-m xivmcp broker …`; `role` then only names it).

        `env` replaces the default environment (`project_env()`, unbuffered). A `quiet` child's
        stderr and the lines nobody expects are dropped (a hundred plugins' chatter would drown the
        table); otherwise both reach our stderr. A child in its `own_group` is stopped by signalling
        the group, so whatever it started stops with it."""
        if env is None:
            env = project_env()
            env["PYTHONUNBUFFERED"] = "1"
        self.role = role
        self.graceful = graceful
        self.quiet = quiet
        self.own_group = own_group
        self._group_terminated = False
        group: dict[str, Any] = {}
        if own_group:
            if sys.platform == "win32":
                group["creationflags"] = subprocess.CREATE_NEW_PROCESS_GROUP
            else:
                group["start_new_session"] = True
        self.proc = subprocess.Popen(
            [sys.executable, *(command if command is not None else ["-m", module, "--role", role, *args])],
            cwd=ROOT,
            env=dict(env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            # The parent's stderr: diagnostics stay visible, stdout stays clean.
            stderr=subprocess.DEVNULL if quiet else None,
            text=True,
            encoding="utf-8",
            **group,
        )
        self._lines: queue.Queue[tuple[float, str] | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, name=f"bench-{role}-stdout", daemon=True)
        self._reader.start()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def __repr__(self) -> str:
        return f"<{self.role} pid {self.pid}>"

    def _read(self) -> None:
        stdout = self.proc.stdout
        assert stdout is not None
        with contextlib.suppress(OSError, ValueError):
            for line in stdout:
                # Stamped here, as it arrives: a bench may time how soon a line came.
                self._lines.put((time.perf_counter(), line.rstrip("\r\n")))
        self._lines.put(None)

    def _expect(self, word: str, deadline: float, timeout: float) -> tuple[str, float]:
        """The rest of the next line `word …` and when it arrived; `timeout` only names the limit."""
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ChildError(f"{self!r} did not report {word!r} within {timeout:g} s")
            try:
                item = self._lines.get(timeout=remaining)
            except queue.Empty:
                continue
            if item is None:
                try:
                    code: int | str = self.proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    code = "unknown"
                raise ChildError(f"{self!r} closed its output (exit code {code}) before reporting {word!r}")
            arrived, line = item
            head, _, rest = line.partition(" ")
            if head == word:
                return rest, arrived
            self._aside(line)

    def _aside(self, line: str) -> None:
        """A line nobody waits for: copied to stderr, unless the child is quiet."""
        if not self.quiet:
            print(f"[{self.role}] {line}", file=sys.stderr, flush=True)

    def expect(self, word: str, timeout: float) -> str:
        """Wait up to `timeout` seconds for a line `word …` and return the rest of it.

        Other lines are copied to stderr; EOF (the child exited) or the timeout raise ChildError.
        """
        return self._expect(word, time.monotonic() + timeout, timeout)[0]

    def expect_each(self, word: str, prefixes: Sequence[str], timeout: float) -> dict[str, str]:
        """The rest after each prefix of the lines `word PREFIX…`, one line per prefix, in whatever
        order they come (the project's programs say `xivmcp host: …` in an order of their own)."""
        return {prefix: rest for prefix, (rest, _) in self._expect_each(word, prefixes, timeout).items()}

    def expect_arrival(self, word: str, prefix: str, timeout: float) -> float:
        """When (`time.perf_counter()`) the line `word PREFIX…` arrived, however late it is asked."""
        return self._expect_each(word, [prefix], timeout)[prefix][1]

    def _expect_each(self, word: str, prefixes: Sequence[str], timeout: float) -> dict[str, tuple[str, float]]:
        deadline = time.monotonic() + timeout
        found: dict[str, tuple[str, float]] = {}
        while len(found) < len(prefixes):
            rest, arrived = self._expect(word, deadline, timeout)
            prefix = next((p for p in prefixes if p not in found and rest.startswith(p)), None)
            if prefix is None:
                self._aside(f"{word} {rest}")
            else:
                found[prefix] = (rest[len(prefix) :], arrived)
        return found

    def send(self, line: str) -> None:
        """Write one line to the child's stdin."""
        stdin = self.proc.stdin
        assert stdin is not None
        stdin.write(line + "\n")
        stdin.flush()

    def wait(self, timeout: float) -> int:
        """Wait until the child exits by itself; its exit code (ChildError after `timeout`)."""
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise ChildError(f"{self!r} did not exit within {timeout:g} s") from None

    def stop(self, timeout: float = STOP_TIMEOUT) -> None:
        """Ask (close stdin), then terminate, then kill; always wait for the process."""
        proc = self.proc
        if proc.stdin is not None:
            with contextlib.suppress(OSError):
                proc.stdin.close()
        if self.graceful and proc.poll() is None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout)
        if self.own_group and not self._group_terminated:
            self._terminate_group()  # even if the leader has exited: what it started may not have
        elif proc.poll() is None:
            proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        self._reader.join(timeout)
        if proc.stdout is not None:
            with contextlib.suppress(OSError):
                proc.stdout.close()

    def _terminate_group(self) -> None:
        self._group_terminated = True  # once: later, its number may be another group's
        with contextlib.suppress(ProcessLookupError, OSError):
            if sys.platform == "win32":
                self.proc.send_signal(signal.CTRL_BREAK_EVENT)
            else:
                os.killpg(self.proc.pid, signal.SIGTERM)


class Children:
    """Every child of one benchmark setup; leaving the `with` block stops them all, newest first."""

    def __init__(self, module: str, *, stop_timeout: float = STOP_TIMEOUT) -> None:
        self._module = module
        self._stop_timeout = stop_timeout
        self._children: list[Child] = []

    def start(self, role: str, *args: str, graceful: bool = False, quiet: bool = False) -> Child:
        child = Child(self._module, role, args, graceful=graceful, quiet=quiet)
        self._children.append(child)
        return child

    def start_command(self, name: str, *command: str, graceful: bool = False, quiet: bool = False) -> Child:
        """`python *command` (for instance `-m xivmcp host …`), known as `name` in messages."""
        child = Child(self._module, name, graceful=graceful, command=command, quiet=quiet)
        self._children.append(child)
        return child

    def running(self) -> list[Child]:
        """The children started so far, oldest first."""
        return list(self._children)

    def stop_all(self) -> None:
        errors: list[BaseException] = []
        while self._children:
            child = self._children.pop()
            try:
                child.stop(self._stop_timeout)
            except BaseException as exc:  # keep stopping the others, then re-raise
                errors.append(exc)
        if errors:
            raise errors[0]

    def __enter__(self) -> Children:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop_all()


def write_pid_files(folder: str, pids: Mapping[str, int]) -> None:
    """FOLDER/NAME.pid for each process, for a profiler to attach to (`py-spy record --pid …`)."""
    os.makedirs(folder, exist_ok=True)
    for name, pid in pids.items():
        Path(folder, f"{name}.pid").write_text(f"{pid}\n", encoding="ascii")


# --- what a child costs (Linux: /proc; None or NaN elsewhere) --------------------------------


class Memory(NamedTuple):
    peak_mb: float | None
    """VmHWM: the most resident memory the process has had."""
    resident_mb: float | None
    """VmRSS: its resident memory now."""


def memory_mb(pid: int) -> Memory:
    """A process's peak and current resident memory in MB, from /proc/PID/status."""
    try:
        text = Path(f"/proc/{pid}/status").read_text(encoding="ascii")
    except OSError:
        return Memory(None, None)
    values: dict[str, float] = {}
    for line in text.splitlines():
        key, _, rest = line.partition(":")
        if key in ("VmHWM", "VmRSS"):
            values[key] = int(rest.split()[0]) / 1024  # kB
    return Memory(values.get("VmHWM"), values.get("VmRSS"))


def cpu_seconds(pid: int) -> float:
    """CPU seconds (user and system) a process has used so far, from /proc/PID/stat."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# --- the child's side ----------------------------------------------------------------------


def report(word: str, *parts: object) -> None:
    """Write one protocol line to the parent."""
    print(word, *parts, flush=True)


def on_stdin_eof(callback: Callable[[], object]) -> None:
    """Call `callback()` from a daemon thread once the parent closes our stdin."""

    def watch() -> None:
        with contextlib.suppress(OSError, ValueError):
            while sys.stdin.read(4096):
                pass
        callback()

    threading.Thread(target=watch, name="bench-stdin-eof", daemon=True).start()


def stdin_eof_event() -> asyncio.Event:
    """An event of the running asyncio loop, set once the parent closes our stdin."""
    event = asyncio.Event()
    loop = asyncio.get_running_loop()

    def set_soon() -> None:
        with contextlib.suppress(RuntimeError):  # the loop is already closed
            loop.call_soon_threadsafe(event.set)

    on_stdin_eof(set_soon)
    return event


def run_async(main: Callable[[], Awaitable[None]]) -> None:
    """anyio on asyncio, with the loop ZeroMQ's descriptor needs (a selector loop on Windows)."""
    import anyio

    import broker

    anyio.run(main, backend="asyncio", backend_options=broker.loop_options())
