"""Every `bash` and `python` block of the guides (docs/guides/) runs against a private system, or says why not.

The other half of `test_docs_blocks.py` (see its docstring; the two longest guides run there), in
a file of its own so that the two halves run in two test processes at once.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._blocks import System
from tests.test_docs_blocks import GUIDES, GUIDES_HERE, run_page

PAGES = sorted(path for path in GUIDES.rglob("*.md") if path.name not in GUIDES_HERE)


def test_there_are_guides() -> None:
    assert len(PAGES) >= 10


@pytest.mark.timeout(300)
@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.relative_to(GUIDES).as_posix())
def test_every_block_of_the_guide_runs_against_a_private_system(
    path: Path, docs_system: System, tmp_path: Path
) -> None:
    run_page(path, docs_system, tmp_path)
