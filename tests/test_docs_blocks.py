"""Every `bash` and `python` block of every page in docs/ runs against a private system, or says why not.

One test per page, under the README's harness (`tests/_blocks.py`, whose docstring is the reference
for the marks: `<!-- docs-test: skip: REASON -->`, `plugin NAME`, `file F.py`, `before: COMMAND`,
`fresh system`). Pages share one private system (each `xivmcp up` line is started once and reused)
so that the pages cost little more than their own commands; a page marked `fresh system` gets one
of its own.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._blocks import ROOT, Page, Session, System, mark_problems, read_page

DOCS = ROOT / "docs"
ALL_PAGES = sorted(DOCS.rglob("*.md"))
GUIDES = DOCS / "guides"
GUIDES_HERE = frozenset({"jobs.md", "simulated-game.md"})
"""Guides run here rather than in `test_docs_guides.py`: the two longest, each on a system of its own."""
PAGES = [path for path in ALL_PAGES if GUIDES not in path.parents or path.name in GUIDES_HERE]
"""The pages this file runs; the other guides run in `test_docs_guides.py`, so that the two halves
take about as long and run in two test processes at once (a file runs in one: `--dist loadfile`)."""


def test_every_block_of_the_docs_is_run_or_says_why_not() -> None:
    # SPEC: D1
    problems = [problem for path in ALL_PAGES for problem in mark_problems(read_page(path))]
    assert problems == []


@pytest.mark.timeout(300)
@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.relative_to(DOCS).as_posix())
def test_every_block_of_the_page_runs_against_a_private_system(
    path: Path, docs_system: System, tmp_path: Path
) -> None:
    # SPEC: D1
    run_page(path, docs_system, tmp_path)


def run_page(path: Path, shared_system: System, tmp_path: Path) -> None:
    """Run one page's blocks: on the shared system, or on one of its own if it says `fresh system`."""
    page = read_page(path)
    if not any(not b.mark.startswith("skip") for b in page.blocks) and not page.before:
        return  # nothing to run: no system needed
    if not page.fresh:
        _run(page, shared_system)
        return
    system = System(tmp_path)
    try:
        _run(page, system)
    finally:
        system.close()


def _run(page: Page, system: System) -> None:
    session = Session(system, page.name)
    try:
        session.run_page(page)
    finally:
        session.close()


# --- the harness itself: what it reads from a page, and that a block that cannot run fails ----------

_SAMPLE = """# A page

<!-- docs-test: before: xivmcp up -->
<!-- docs-test: fresh system -->

<!-- docs-test: file hello.py plugin Hello -->
```python
print("a plugin")
```

<!-- readme-test: skip: shows a command that installs things -->
```bash
pip install something
```

```text
not run
```

<!-- docs-test: skip -->
```bash
true
```

<!-- docs-test: plugins Hello -->
```python
pass
```
"""


def test_a_page_is_read_with_its_marks_and_its_own_lines(tmp_path: Path) -> None:
    path = tmp_path / "page.md"
    path.write_text(_SAMPLE, encoding="utf-8")
    page = read_page(path)
    assert page.before == ["xivmcp up"] and page.fresh
    assert [(b.lang, b.mark) for b in page.blocks] == [
        ("python", "file hello.py plugin Hello"),
        ("bash", "skip: shows a command that installs things"),
        ("bash", "skip"),
        ("python", "plugins Hello"),
    ]
    problems = mark_problems(page)
    assert len(problems) == 2
    assert "say why it is skipped" in problems[0] and "unknown mark 'plugins Hello'" in problems[1]


@pytest.mark.parametrize(
    "block",
    ["```bash\necho fine\nfalse   # a line that fails\n```", "```python\nraise SystemExit(3)\n```"],
    ids=["bash", "python"],
)
def test_an_unmarked_block_that_cannot_run_fails_the_page(tmp_path: Path, block: str) -> None:
    path = tmp_path / "page.md"
    path.write_text(f"# A page\n\n{block}\n", encoding="utf-8")
    system = System(tmp_path / "system")
    with pytest.raises(AssertionError, match=r"page\.md line [35]: .*exited"):
        _run(read_page(path), system)
