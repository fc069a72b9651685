"""Every rule id the issues done so far cover is named by some test (tests/requirements.py)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

TESTS = Path(__file__).resolve().parent
DONE = (1, 2, 3, 4, 5, 6, 7, 8, 9)
"""The issues whose rules must be named by tests."""

_TEST_NAME = re.compile(r"^\s*(?:async\s+)?def\s+(test_\w+)", re.MULTILINE)
_SPEC_COMMENT = re.compile(r"#\s*SPEC:\s*([A-Z]\d+(?:\s*,\s*[A-Z]\d+)*)")


def load_manifest() -> ModuleType:
    spec = importlib.util.spec_from_file_location("tests_requirements", TESTS / "requirements.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def named_rules(text: str) -> set[str]:
    """The rule ids a test file names: tokens of its test names, and `# SPEC: …` comments."""
    named = set()
    for name in _TEST_NAME.findall(text):
        named |= {token.upper() for token in name.split("_") if re.fullmatch(r"[tgjapbwkfscd]\d{1,2}", token)}
    for ids in _SPEC_COMMENT.findall(text):
        named |= {i.strip() for i in ids.split(",")}
    return named


def test_the_manifest_lists_well_formed_rule_ids_and_each_issue_covers_known_ones() -> None:
    manifest = load_manifest()
    assert all(re.fullmatch(r"[TGJAPBWKFSCD]\d{1,2}", rule) for rule in manifest.RULES)
    for issue, rules in manifest.ISSUES.items():
        assert set(rules) <= set(manifest.RULES), issue
        assert len(set(rules)) == len(rules), issue


def test_every_rule_of_the_issues_done_is_named_by_some_test() -> None:
    manifest = load_manifest()
    named: dict[str, list[str]] = {}
    for path in sorted(TESTS.rglob("test_*.py")):
        if path == Path(__file__).resolve():
            continue
        for rule in named_rules(path.read_text(encoding="utf-8")):
            named.setdefault(rule, []).append(str(path.relative_to(TESTS)))
    missing = [rule for issue in DONE for rule in manifest.ISSUES[issue] if rule not in named]
    assert missing == [], f"no test names {missing}: add a test (or a `# SPEC: X` comment to one)"


def test_the_rule_finder_reads_test_names_and_spec_comments() -> None:
    text = "async def test_g4_t1_a_tool_must_declare(x):\n    pass  # SPEC: G8, A3\ndef helper_g9(): ...\n"
    assert named_rules(text) == {"G4", "T1", "G8", "A3"}
