"""docs/rules.md and tests/requirements.RULES hold the same rule ids.

The page states each rule in full under a heading `### G8 — Title { #g8 }`; the `{ #g8 }` is the
anchor (Markdown attribute lists, `attr_list` in MkDocs) that `docs/rules.md#g8` links to. The
manifest holds the ids tests must name. A rule added to one and not the other fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.requirements import RULES

RULES_PAGE = Path(__file__).resolve().parents[1] / "docs" / "rules.md"
_RULE_HEADING = re.compile(r"^### (?P<id>[A-Z]\d{1,2}) — \S.* \{ #(?P<anchor>[a-z]\d{1,2}) \}$")
_RULE_LINK = re.compile(r"\]\(#(?P<anchor>[a-z]\d{1,2})\)")


def rule_headings(text: str) -> list[str]:
    """The rule ids of the page's `###` headings, in order; a malformed one raises ValueError."""
    ids = []
    for line in text.splitlines():
        if not line.startswith("### "):
            continue
        match = _RULE_HEADING.match(line)
        if match is None:
            raise ValueError(f"{line!r} is not a rule heading: write `### G8 — Title {{ #g8 }}`")
        if match["anchor"] != match["id"].lower():
            raise ValueError(f"{line!r}: the anchor of {match['id']} is #{match['id'].lower()}")
        ids.append(match["id"])
    return ids


def test_the_rules_page_and_the_manifest_hold_the_same_ids() -> None:
    ids = rule_headings(RULES_PAGE.read_text(encoding="utf-8"))
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})
    assert sorted(set(RULES) - set(ids)) == [], "in tests/requirements.RULES, no heading in docs/rules.md"
    assert sorted(set(ids) - set(RULES)) == [], "a heading in docs/rules.md, not in tests/requirements.RULES"


def test_every_rule_link_on_the_page_has_its_heading() -> None:
    text = RULES_PAGE.read_text(encoding="utf-8")
    anchors = {rule.lower() for rule in rule_headings(text)}
    assert {link["anchor"] for link in _RULE_LINK.finditer(text)} <= anchors


def test_the_heading_reader_reads_a_rule_heading() -> None:
    assert rule_headings("# The rules\n## Gates\n### G8 — Cancel and time limits { #g8 }\n") == ["G8"]


@pytest.mark.parametrize(
    "heading",
    ["### G8 — Cancel and time limits", "### G8 — Cancel { #g9 }", "### G8 Cancel { #g8 }", "### Gates"],
)
def test_the_heading_reader_refuses_a_heading_that_would_not_link(heading: str) -> None:
    with pytest.raises(ValueError, match="G8|rule heading"):
        rule_headings(heading)
