"""Runs the `bash` and `python` blocks of the README and of every page in docs/ against a private system.

How a page's blocks are run, and the marks that change it (for whoever writes a page)
-------------------------------------------------------------------------------------
Every fenced block opened with ```` ```bash ```` or ```` ```python ```` runs, in the page's order,
in the private system's folder (the pages that share a system share it, and a later page may
overwrite a file an earlier one saved), against that system: the environment points every default at it
(`XIVMCP_DATA_DIR`, `XIVMCP_BUS`, `XIVMCP_HTTP`), and the fixed ports the pages name (37520,
37521, 40000, 40001) are swapped for free ones. Other fences (```` ```text ````, ```` ```toml ````,
```` ```mermaid ````, ...) are not run.

* A **bash** block runs line by line (a comment after ` # ` is the reader's, not the shell's).
  A line that serves is started in the background and waited for: `xivmcp up` (until "xivmcp
  host: ready"), `python -m plugins_sample.NAME` (until it registered, or is ready), `xivmcp gate
  watch`, and `python FILE.py` for a FILE.py saved as a plugin (below). Any other line must exit
  0 within 30 s: show an expected refusal as `xivmcp call ... || true`.
* A **python** block is a script that must exit 0.

The line right before a block's fence may mark it, as `<!-- docs-test: MARK -->` (the README's
`<!-- readme-test: MARK -->` is the same mark under its old name):

    <!-- docs-test: skip: REASON -->        not run; REASON (10 characters or more) says why
    <!-- docs-test: plugin NAME -->         a python block that is a plugin: started in the background,
                                            waited for until `xivmcp plugins` lists NAME's tools
    <!-- docs-test: plugin NAME as F.py --> the same, saved as F.py first, for later blocks to import
    <!-- docs-test: file F.py -->           saved as F.py, not run (a test file, a module to import)
    <!-- docs-test: file F.py plugin NAME --> saved as F.py, not run; a later bash line `python F.py`
                                            starts it in the background and waits for NAME's tools

A page may also hold, on a line of its own, `<!-- docs-test: before: COMMAND -->`: a bash line run
before the page's first block, unseen by readers (HTML comments are not shown), for what the page
takes as done, for example `<!-- docs-test: before: xivmcp up -->`.

Private systems are shared. A page's `xivmcp up ARGS` reuses the system of an earlier page's
identical line (so a page should start by running what it needs, even if another page did),
and restarts it if another page left a different one running; each page's other background
processes (plugins, watchers) are stopped when the page ends, so their names are free again. A
page must not rely on what another page left (settings, the game's state); one that must start
from nothing holds `<!-- docs-test: fresh system -->` and gets a private system of its own.
A block that cannot run here (it installs, takes minutes, needs the real game) is marked skip.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from gates.testing import Process, free_port

ROOT: Final = Path(__file__).resolve().parent.parent
COMMAND_TIMEOUT: Final = 30.0
_MARK: Final = r"<!-- (?:docs|readme)-test: (?P<mark>[^\n]*?) -->"
_BLOCK: Final = re.compile(rf"(?:{_MARK}\n)?```(?P<lang>bash|python)\n(?P<body>.*?)```", re.S)
_BEFORE: Final = re.compile(r"^<!-- (?:docs|readme)-test: before: (?P<command>.+?) -->$", re.M)
_FRESH: Final = re.compile(r"^<!-- (?:docs|readme)-test: fresh system -->$", re.M)
_COMMENT: Final = re.compile(r"\s+#\s.*$")
_SERVES: Final[dict[str, str]] = {
    r"^xivmcp up\b": "xivmcp host: ready",
    r"^python -m plugins_sample\.(vnavmesh|yesalready|autoretainer)\b": ": ready",  # they register no tools
    r"^python -m plugins_sample\.\w+": ": registered",
    r"^xivmcp gate watch\b": "",
}
"""Commands that run until stopped, and the line that says each is ready ("": none)."""
RUNNABLE_MARK: Final = r"plugin [A-Za-z]\w*( as [\w.]+\.py)?|file [\w.]+\.py( plugin [A-Za-z]\w*)?"
"""The marks of a block that runs (or is saved): any other mark but `skip: REASON` is a mistake."""


@dataclass(frozen=True)
class Block:
    lang: str
    body: str
    mark: str
    line: int


@dataclass(frozen=True)
class Page:
    """A Markdown file's runnable blocks and what it asks of the harness."""

    path: Path
    blocks: list[Block]
    before: list[str]
    fresh: bool

    @property
    def name(self) -> str:
        """Its path from the project's root (a page elsewhere, as in the harness's own tests: its file name)."""
        return self.path.relative_to(ROOT).as_posix() if self.path.is_relative_to(ROOT) else self.path.name


def read_page(path: Path) -> Page:
    text = path.read_text(encoding="utf-8")
    blocks = []
    for m in _BLOCK.finditer(text):
        mark = (m["mark"] or "").strip()
        if mark.startswith("before:") or mark == "fresh system":  # a page's line, not a block's mark
            mark = ""
        blocks.append(Block(m["lang"], m["body"], mark, text.count("\n", 0, m.start()) + 1))
    before = [m["command"] for m in _BEFORE.finditer(text)]
    return Page(path, blocks, before, bool(_FRESH.search(text)))


def mark_problems(page: Page) -> list[str]:
    """Marks that are not of the syntax above (a skip without a reason, a misspelt mark)."""
    problems = []
    for block in page.blocks:
        where = f"{page.name} line {block.line}"
        if block.mark.startswith("skip"):
            if not re.fullmatch(r"skip: \S.{10,}", block.mark):
                problems.append(f"{where}: say why it is skipped (`skip: REASON`, 10 characters or more)")
        elif block.mark and not re.fullmatch(RUNNABLE_MARK, block.mark):
            problems.append(f"{where}: unknown mark {block.mark!r}")
    return problems


class System:
    """A private system's address (data dir, ports, environment) and the `xivmcp up` running on it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.cwd = root / "work"
        self.cwd.mkdir(parents=True)
        bus, http = free_port(), free_port()
        self.swap = {"37520": str(bus), "37521": str(http), "40000": str(free_port()), "40001": str(free_port())}
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("XIVMCP_")},
            "XIVMCP_DATA_DIR": str(root / "data"),
            "XIVMCP_BUS": f"tcp://127.0.0.1:{bus}",
            "XIVMCP_HTTP": f"127.0.0.1:{http}",
            "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
            "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
        }
        self.ups: dict[str, tuple[Process, str]] = {}
        """Each running `xivmcp up` by its command line, with the page that started it."""
        self._logs = 0

    def private(self, command: str) -> str:
        for port, free in self.swap.items():
            command = command.replace(port, free)
        return re.sub(r"^(xivmcp|python)\b", lambda m: _program(m[1]), command)

    def start(self, command: str) -> Process:
        self._logs += 1
        log = self.root / "logs" / f"background-{self._logs}.log"
        return Process(["bash", "-c", f"exec {command}"], log=log, cwd=self.cwd, env=self.env, new_session=True)

    def up(self, command: str, page: str) -> None:
        """`xivmcp up ...` for `page`: the running one of that command line, else a new one (and any
        other page's, which would hold the same ports, stopped first)."""
        if command in self.ups:
            return
        for other, (proc, by) in list(self.ups.items()):
            if by != page:
                proc.stop()
                del self.ups[other]
        proc = self.start(self.private(command))
        self.ups[command] = (proc, page)
        proc.wait_line("xivmcp host: ready")

    def close(self) -> None:
        for proc, _ in reversed(self.ups.values()):
            proc.kill()
        self.ups.clear()


class Session:
    """One page's run on a system: the processes it started and the plugins it saved."""

    def __init__(self, system: System, page: str) -> None:
        self.system = system
        self.page = page
        self.background: list[Process] = []
        self.plugin_files: dict[str, str] = {}
        """F.py -> NAME, from `file F.py plugin NAME` marks: `python F.py` starts that plugin."""

    def run_page(self, page: Page) -> None:
        for command in page.before:
            self.run_line(command, f"{page.name}: before")
        for block in page.blocks:
            if block.mark.startswith("skip"):
                continue
            if block.lang == "bash":
                for offset, line in enumerate(block.body.splitlines(), start=1):
                    self.run_line(line, f"{page.name} line {block.line + offset}")
            else:
                self.run_python(block, f"{page.name} line {block.line}")

    def run_line(self, line: str, where: str) -> None:
        command = _COMMENT.sub("", line).strip()
        if not command:
            return
        if re.match(r"^xivmcp up\b", command):
            self.system.up(command, self.page)
            return
        script = re.match(r"^python ([\w.]+\.py)\b", command)
        if script and script[1] in self.plugin_files:
            self.background.append(self.system.start(self.system.private(command)))
            self.wait_for_tools(self.plugin_files[script[1]], where)
            return
        for pattern, ready in _SERVES.items():
            if re.match(pattern, command):
                proc = self.system.start(self.system.private(command))
                self.background.append(proc)
                if ready:
                    _wait_containing(proc, ready)
                return
        done = self.run(["bash", "-c", self.system.private(command)])
        assert done.returncode == 0, f"{where}: `{command}` exited {done.returncode}: {done.stdout} {done.stderr}"

    def run(self, argv: list[str]) -> subprocess.CompletedProcess[str]:
        """Run to its end in the system's folder and environment."""
        return subprocess.run(
            argv,
            cwd=self.system.cwd,
            env=self.system.env,
            capture_output=True,
            text=True,
            timeout=COMMAND_TIMEOUT,
            check=False,
        )

    def run_python(self, block: Block, where: str) -> None:
        named = re.search(r"(?:^file | as )([\w.]+\.py)\b", block.mark)
        stem = re.sub(r"\W", "_", Path(self.page).stem)
        script = self.system.cwd / (named[1] if named else f"{stem}_{block.line}.py")
        script.write_text(self.system.private(block.body), encoding="utf-8")
        if block.mark.startswith("file "):
            plugin = re.search(r" plugin (\w+)$", block.mark)
            if plugin:
                self.plugin_files[script.name] = plugin[1]
            return
        if block.mark.startswith("plugin "):
            self.background.append(self.system.start(f"{sys.executable} {script}"))
            self.wait_for_tools(block.mark.split()[1], where)
            return
        done = self.run([sys.executable, str(script)])
        assert done.returncode == 0, f"{where}: the script exited {done.returncode}: {done.stdout} {done.stderr}"

    def wait_for_tools(self, plugin: str, where: str) -> None:
        """Until `xivmcp plugins` lists the plugin with its tools (a state, looked at a bounded number of times)."""
        for _ in range(50):
            listing = self.run([*_program("xivmcp").split(), "plugins", "--json"])
            assert listing.returncode == 0, f"{where}: `xivmcp plugins` failed (is a system up?): {listing.stderr}"
            cards = [c for c in json.loads(listing.stdout)["plugins"] if c["name"] == plugin]
            if cards and cards[0]["tools"]:
                return
        raise AssertionError(f"{where}: {plugin} never showed its tools in `xivmcp plugins`")

    def close(self) -> None:
        """Stop what the page started (SIGINT first: a plugin leaves the bus, its name is free again)."""
        for proc in self.background:
            proc.send_signal(signal.SIGINT)
        deadline = time.monotonic() + 3.0
        for proc in self.background:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.popen.wait(max(0.0, deadline - time.monotonic()))
            proc.kill()
        self.background.clear()


def _program(name: str) -> str:
    return f"{sys.executable} -m xivmcp" if name == "xivmcp" else sys.executable


def _wait_containing(proc: Process, text: str) -> None:
    while text not in proc.wait_line(""):
        pass
