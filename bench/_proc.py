"""Child processes for the benchmarks, portable to Windows (no fork, no signals, no sleeps).

The parent starts `python -m <module> --role ROLE …` (or, with `Children.start_command`, one of
the project's own programs such as `python -m xivmcp host …`) with pipes on stdin and stdout. A child
talks back in whole lines on stdout, each `WORD rest` (`ready tcp://…`, `result {json}`); the
parent waits for a given word with a bounded timeout. Closing the child's stdin asks it to stop
(a child that supports it watches for EOF); whatever is still running after that is terminated,
then killed, and always waited for.
"""

from __future__ import annotations

import contextlib
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType

ROOT = Path(__file__).resolve().parent.parent
"""The project root, put on the children's PYTHONPATH so `-m bench.…` resolves from anywhere."""


class ChildError(RuntimeError):
    """A child process failed to start, crashed, or did not answer in time."""


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
    ) -> None:
        """`python -m module --role role *args`, or `python *command` when `command` is given (a
        program of the project's own, such as `-m xivmcp broker …`; `role` then only names it)."""
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])])
        env["PYTHONUNBUFFERED"] = "1"
        self.role = role
        self.graceful = graceful
        self.proc = subprocess.Popen(
            [sys.executable, *(command if command is not None else ["-m", module, "--role", role, *args])],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=None,  # the parent's stderr: diagnostics stay visible, stdout stays clean
            text=True,
            encoding="utf-8",
        )
        self._lines: queue.Queue[str | None] = queue.Queue()
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
                self._lines.put(line.rstrip("\r\n"))
        self._lines.put(None)

    def expect(self, word: str, timeout: float) -> str:
        """Wait up to `timeout` seconds for a line `word …` and return the rest of it.

        Other lines are copied to stderr; EOF (the child exited) or the timeout raise ChildError.
        """
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ChildError(f"{self!r} did not report {word!r} within {timeout:g} s")
            try:
                line = self._lines.get(timeout=remaining)
            except queue.Empty:
                continue
            if line is None:
                try:
                    code: int | str = self.proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    code = "unknown"
                raise ChildError(f"{self!r} closed its output (exit code {code}) before reporting {word!r}")
            head, _, rest = line.partition(" ")
            if head == word:
                return rest
            print(f"[{self.role}] {line}", file=sys.stderr, flush=True)

    def stop(self, timeout: float = 5.0) -> None:
        """Ask (close stdin), then terminate, then kill; always wait for the process."""
        proc = self.proc
        if proc.stdin is not None:
            with contextlib.suppress(OSError):
                proc.stdin.close()
        if self.graceful and proc.poll() is None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout)
        if proc.poll() is None:
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


class Children:
    """Every child of one benchmark setup; leaving the `with` block stops them all, newest first."""

    def __init__(self, module: str) -> None:
        self._module = module
        self._children: list[Child] = []

    def start(self, role: str, *args: str, graceful: bool = False) -> Child:
        child = Child(self._module, role, args, graceful=graceful)
        self._children.append(child)
        return child

    def start_command(self, name: str, *command: str, graceful: bool = False) -> Child:
        """`python *command` (for instance `-m xivmcp host …`), known as `name` in messages."""
        child = Child(self._module, name, graceful=graceful, command=command)
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
                child.stop()
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
