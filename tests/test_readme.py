"""The README tells the truth: every `bash` and `python` block of it runs, in order, against a
private system, and the numbers it quotes are the code's.

The blocks run under the harness of `tests/_blocks.py`, as every page of docs/ does
(tests/test_docs_blocks.py); its docstring is the reference for the marks (`<!-- readme-test:
skip: REASON -->`, `plugin NAME`, `file F.py`, ...; `readme-test:` and `docs-test:` are the same).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bench import fuzz, soak
from broker import DEFAULT_ENDPOINT, BrokerConfig
from gates.contract import DEFAULT_BUS, REAL_HOST
from gates.host import APPROVAL_TIMEOUT, HostLimits
from gates.host.jobs._room import MAX_BYTES_PER_OWNER, MAX_JOBS_PER_OWNER
from gates.host.jobs._runner import MAX_JOBS
from gates.mcp import DEFAULT_HTTP_PORT, HttpLimits
from scripts import gen_docs
from tests._blocks import ROOT, Session, System, mark_problems, read_page

README = ROOT / "README.md"
DOCS = ROOT / "docs"


def test_every_block_is_run_or_says_why_not() -> None:
    page = read_page(README)
    assert len(page.blocks) >= 4  # the front door: the two commands, a session, a plugin and its check
    assert mark_problems(page) == []


def test_the_numbers_the_readme_quotes_are_the_codes() -> None:
    """The README and the pages it links quote these (most moved from the README to the pages)."""
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
        gen_docs.builtin_count_line(gen_docs.simulated_builtins()): True,  # as `xivmcp tools --builtin` ends
    }
    for phrase, holds in quoted.items():
        assert phrase in text, f"neither the README nor a page of docs/ says {phrase!r} any more"
        assert holds, phrase


@pytest.fixture
def session(tmp_path: Path) -> Iterator[Session]:
    system = System(tmp_path)
    started = Session(system, "README.md")
    try:
        yield started
    finally:
        started.close()
        system.close()


@pytest.mark.timeout(300)
def test_every_block_of_the_readme_runs_against_a_private_system(session: Session) -> None:
    session.run_page(read_page(README))
