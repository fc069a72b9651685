"""The fidelity ledger and the code agree on which real host we follow and which of its tests we port (F5, F6).

Two tables of docs/fidelity.md are checked here, so a re-read of the real project cannot leave the
page behind:

* the commits read: the same files at the same commits as `gates.contract.REAL_HOST_READ`, which
  `xivmcp --version` and every check report print;
* the real host's own tests: every row marked `ported` has its function in this folder, named as
  README.md says, and every function here (but this file's) has its row; a row not ported says why.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from gates.contract import REAL_HOST_READ

HERE = Path(__file__).resolve().parent
LEDGER = HERE.parent.parent / "docs" / "fidelity.md"
_COMMIT_ROW = re.compile(r"^\| `(?P<path>[^`]+)` \| `(?P<commit>[0-9a-f]{8})` \|$")
_TEST_ROW = re.compile(
    r"^\| (?P<file>[A-Za-z]+Tests)\.cs @(?P<commit>[0-9a-f]{7,8}) \| (?P<method>[A-Za-z0-9_.]+) \| (?P<here>.+) \|$"
)
_VERDICTS = ("ported", "not observable: ", "kept: ")


def _section(title: str) -> list[str]:
    lines = LEDGER.read_text(encoding="utf-8").splitlines()
    start = lines.index(title)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    return lines[start:end]


def _commit_rows() -> list[tuple[str, str]]:
    lines = LEDGER.read_text(encoding="utf-8").splitlines()
    start = lines.index("| file | commit |")
    rows: list[tuple[str, str]] = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        found = _COMMIT_ROW.match(line)
        assert found, f"docs/fidelity.md: a row of the commits table is not '| `path` | `commit` |': {line!r}"
        rows.append((found["path"], found["commit"]))
    return rows


def _function_name(file: str, method: str) -> tuple[str, str]:
    """The test file and function a real test is ported as (tests/real_host/README.md)."""
    cls, _, name = method.rpartition(".")
    return f"test_{file.lower()}.py", f"test_{(cls or file).lower()}_{name.lower()}"


def _ported_functions() -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    for path in sorted(HERE.glob("test_*.py")):
        if path.name == Path(__file__).name:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test_"):
                found.add((path.name, node.name))
    return found


def test_the_ledgers_commits_are_the_ones_the_code_reports() -> None:
    # SPEC: F5
    assert _commit_rows() == [(file.path, file.commit) for file in REAL_HOST_READ.files], (
        "docs/fidelity.md's table of commits and gates/contract/_real_host.py differ: change both together"
    )


def test_every_real_test_the_ledger_ports_is_here_and_every_test_here_is_in_the_ledger() -> None:
    # SPEC: F6
    section = _section("## The real host's own tests (F6)")
    rows = [line for line in section if line.startswith("| ") and "Tests.cs" in line]
    assert rows, "the ledger lists none of the real host's tests"
    ported: set[tuple[str, str]] = set()
    seen: set[tuple[str, str]] = set()
    for line in rows:
        row = _TEST_ROW.match(line)
        assert row, f"docs/fidelity.md: not a row '| File.cs @commit | Method | here |': {line!r}"
        key = (row["file"], row["method"])
        assert key not in seen, f"{row['file']}.{row['method']} is listed twice"
        seen.add(key)
        here = row["here"]
        assert here.startswith(_VERDICTS), f"{key}: say ported, 'not observable: why' or 'kept: why', not {here!r}"
        if here.startswith("ported"):
            ported.add(_function_name(row["file"], row["method"]))
    present = _ported_functions()
    missing = sorted(ported - present)
    assert not missing, f"ported in the ledger, but no such test in tests/real_host: {missing}"
    unlisted = sorted(present - ported)
    assert not unlisted, f"tests in tests/real_host that the ledger does not list as ported: {unlisted}"
