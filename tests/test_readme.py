"""The README tells the truth: every `bash` and `python` block of it runs, in order, against a
private system, and the numbers it quotes are the code's.

A block is run unless the line before it is `<!-- readme-test: skip: REASON -->`. A bash block
runs line by line in a temporary folder (comments after ` # ` are the reader's, not the shell's):
a command that serves (`xivmcp up`, a sample plugin, `xivmcp gate watch`) is started in the
background and waited for (its "ready" or "registered" line); any other must exit 0. A python
block is a script that must exit 0; one marked `readme-test: plugin NAME` is a plugin, started in
the background and waited for until XIV MCP lists NAME's tools (`plugin NAME as FILE.py` saves it
as FILE.py first, for later blocks), and one marked `readme-test: file FILE.py` is only saved, for
a later block to import, test or check. The environment points every
default at the private system: `XIVMCP_DATA_DIR`, `XIVMCP_BUS`, `XIVMCP_HTTP`, and the fixed
ports the README names are swapped for free ones.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bench import fuzz, soak
from broker import DEFAULT_ENDPOINT, BrokerConfig
from gates.contract import BUILTIN_TOOL_NAMES, DEFAULT_BUS, REAL_HOST
from gates.host import APPROVAL_TIMEOUT, HostLimits
from gates.host.jobs._room import MAX_BYTES_PER_OWNER, MAX_JOBS_PER_OWNER
from gates.host.jobs._runner import MAX_JOBS
from gates.host.tools._core_definitions import CORE_DEFINITIONS
from gates.mcp import DEFAULT_HTTP_PORT, HttpLimits
from gates.testing import Process, free_port

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
"""The site's pages, where most of the numbers the README quoted now live (the README links them)."""
COMMAND_TIMEOUT = 30.0
_BLOCK = re.compile(r"(?:<!-- readme-test: (?P<mark>[^\n]*?) -->\n)?```(?P<lang>bash|python)\n(?P<body>.*?)```", re.S)
_COMMENT = re.compile(r"\s+#\s.*$")
_SERVES: dict[str, str] = {
    r"^xivmcp up\b": "xivmcp host: ready",
    r"^python -m plugins_sample\.(vnavmesh|yesalready|autoretainer)\b": ": ready",  # they register no tools
    r"^python -m plugins_sample\.\w+": ": registered",
    r"^xivmcp gate watch\b": "",
}
"""Commands that run until stopped, and the line that says each is ready ("": none)."""
_RUNNABLE_MARK = r"plugin [A-Za-z]\w*( as [\w.]+\.py)?|file [\w.]+\.py"
"""`plugin NAME [as FILE.py]`: a plugin, started in the background (saved as FILE.py when named, so
later blocks can import or start it); `file FILE.py`: saved as FILE.py for later blocks, not run."""


@dataclass(frozen=True)
class Block:
    lang: str
    body: str
    mark: str
    line: int


def readme_blocks() -> list[Block]:
    text = README.read_text(encoding="utf-8")
    return [
        Block(m["lang"], m["body"], (m["mark"] or "").strip(), text.count("\n", 0, m.start()) + 1)
        for m in _BLOCK.finditer(text)
    ]


def test_every_block_is_run_or_says_why_not() -> None:
    blocks = readme_blocks()
    assert len(blocks) >= 4  # the front door: the two commands, a session, a plugin, its check
    for block in blocks:
        if block.mark.startswith("skip"):
            assert re.fullmatch(r"skip: \S.{10,}", block.mark), f"README line {block.line}: say why it is skipped"
        else:
            assert block.mark == "" or re.fullmatch(_RUNNABLE_MARK, block.mark), block.mark


def test_the_numbers_the_readme_quotes_are_the_codes() -> None:
    text = "\n".join(page.read_text(encoding="utf-8") for page in [README, *sorted(DOCS.rglob("*.md"))])
    limits = HostLimits()
    quoted = {
        f"broker on {DEFAULT_BUS}": DEFAULT_BUS == DEFAULT_ENDPOINT,
        f"MCP on 127.0.0.1:{DEFAULT_HTTP_PORT}": True,
        f"else\n`{DEFAULT_BUS}`": True,
        f"a frozen one after {BrokerConfig().peer_timeout:g} s": True,
        "declined after two minutes": APPROVAL_TIMEOUT == 120,
        f"{limits.max_tools_per_plugin} tools per plugin": True,
        f"descriptions up to {limits.max_description:,}": True,
        f"input schemas up to {limits.max_schema_bytes // 1024} KiB": True,
        f"{limits.max_pending_approvals} approvals waiting per plugin": True,
        f"rotates\nat {limits.audit_max_bytes // (1024 * 1024)} MiB and keeps {limits.audit_keep} old files": True,
        f"({fuzz.DEFAULT_EXAMPLES:,} examples)": True,
        f"{soak.DEFAULT_PLUGINS} plugins, {soak.DEFAULT_CALLS:,} calls": True,
        f"at most {HttpLimits().max_connections}\nconnections": True,
        f"gives each {HttpLimits().header_seconds:g} seconds to send its\nrequest head": True,
        f"Jobs: {MAX_JOBS:,} in all": True,
        f"{MAX_JOBS_PER_OWNER:,} jobs and {MAX_BYTES_PER_OWNER // 2**20} MiB of stored job": True,
        f"({len(REAL_HOST.tools)} are\nknown": True,
        _builtins_simulated(): True,
    }
    for phrase, holds in quoted.items():
        assert phrase in text, f"neither the README nor a page of docs/ says {phrase!r} any more"
        assert holds, phrase


def _builtins_simulated() -> str:
    """The count `xivmcp tools --builtin` ends with, from the real host's catalog and the host's own tools."""
    performed = {d.name for d in CORE_DEFINITIONS} & BUILTIN_TOOL_NAMES
    core = {m.id for m in REAL_HOST.modules if m.plugin is None}
    in_core = sum(t.module in core for t in REAL_HOST.tools)
    driven = len(REAL_HOST.modules) - len(core)
    return (
        f"simulated here: {len(performed)} of {len(REAL_HOST.tools)} built-in tools ({in_core} core in "
        f"{len(core)} modules, {len(REAL_HOST.tools) - in_core} in {driven} integrations)"
    )


class Session:
    """The private system the README's blocks run against, and what they started."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.cwd = root / "work"
        self.cwd.mkdir()
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
        self.background: list[Process] = []

    def private(self, command: str) -> str:
        for port, free in self.swap.items():
            command = command.replace(port, free)
        return re.sub(r"^(xivmcp|python)\b", lambda m: _program(m[1]), command)

    def run_line(self, line: str, where: str) -> None:
        command = _COMMENT.sub("", line).strip()
        if not command:
            return
        for pattern, ready in _SERVES.items():
            if re.match(pattern, command):
                proc = self.start(self.private(command), where)
                if ready:
                    proc.wait_line(ready) if ready.startswith("xivmcp") else _wait_containing(proc, ready)
                return
        done = self.run(["bash", "-c", self.private(command)])
        assert done.returncode == 0, f"{where}: `{command}` exited {done.returncode}: {done.stdout} {done.stderr}"

    def run(self, argv: list[str]) -> subprocess.CompletedProcess[str]:
        """Run to its end in the session's folder and environment."""
        return subprocess.run(
            argv, cwd=self.cwd, env=self.env, capture_output=True, text=True, timeout=COMMAND_TIMEOUT, check=False
        )

    def start(self, command: str, where: str) -> Process:
        log = self.root / "logs" / f"background-{len(self.background)}.log"
        proc = Process(["bash", "-c", f"exec {command}"], log=log, cwd=self.cwd, env=self.env, new_session=True)
        self.background.append(proc)
        return proc

    def run_python(self, block: Block) -> None:
        named = re.search(r"(?:^file | as )([\w.]+\.py)$", block.mark)
        script = self.cwd / (named[1] if named else f"readme_{block.line}.py")
        script.write_text(self.private(block.body), encoding="utf-8")
        where = f"README line {block.line}"
        if block.mark.startswith("file "):
            return
        if block.mark.startswith("plugin "):
            name = block.mark.split()[1]
            self.start(f"{sys.executable} {script}", where)
            self.wait_for_tools(name, where)
            return
        done = self.run([sys.executable, str(script)])
        assert done.returncode == 0, f"{where}: the script exited {done.returncode}: {done.stdout} {done.stderr}"

    def wait_for_tools(self, plugin: str, where: str) -> None:
        """Until `xivmcp plugins` lists the plugin with its tools (a state, looked at a bounded number of times)."""
        for _ in range(50):
            listing = self.run([*_program("xivmcp").split(), "plugins", "--json"])
            assert listing.returncode == 0, listing.stderr
            cards = [c for c in json.loads(listing.stdout)["plugins"] if c["name"] == plugin]
            if cards and cards[0]["tools"]:
                return
        raise AssertionError(f"{where}: {plugin} never showed its tools in `xivmcp plugins`")

    def close(self) -> None:
        for proc in reversed(self.background):
            proc.kill()


def _program(name: str) -> str:
    return f"{sys.executable} -m xivmcp" if name == "xivmcp" else sys.executable


def _wait_containing(proc: Process, text: str) -> None:
    while text not in proc.wait_line(""):
        pass


@pytest.fixture
def session(tmp_path: Path) -> Iterator[Session]:
    started = Session(tmp_path)
    try:
        yield started
    finally:
        started.close()


@pytest.mark.timeout(300)
def test_every_block_of_the_readme_runs_against_a_private_system(session: Session) -> None:
    for block in readme_blocks():
        if block.mark.startswith("skip"):
            continue
        if block.lang == "bash":
            for offset, line in enumerate(block.body.splitlines(), start=1):
                session.run_line(line, f"README line {block.line + offset}")
        else:
            session.run_python(block)
