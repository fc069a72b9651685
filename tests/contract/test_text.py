"""`gates.contract.escaped` and its kin: text from others, safe to show (S3)."""

from __future__ import annotations

import json

import pytest

from gates.contract import RefusedError, control_characters_in, escaped, escaped_json, refuse_control_characters


def test_s3_escaped_shows_c0_c1_del_bidi_and_surrogates_as_escapes_and_leaves_text_alone() -> None:
    # SPEC: S3
    assert escaped("Buy 3 potions\r\x1b[2KFree gil") == "Buy 3 potions\\r\\x1b[2KFree gil"
    assert escaped("a\nb\tc\x00\x7f\x85\x9b") == "a\\nb\\tc\\x00\\x7f\\x85\\x9b"
    assert escaped("pay \u202e0001 gil\u2066") == "pay \\u202e0001 gil\\u2066"
    assert escaped("\ud800\ufffe") == "\\ud800\\ufffe"
    assert escaped("Tuliyollal · été · 20 × Hi-Potion 🧪") == "Tuliyollal · été · 20 × Hi-Potion 🧪"
    assert escaped(escaped("\x1b")) == "\\x1b"  # an escape is plain text: shown as it is


def test_s3_escaped_json_is_the_same_json_with_nothing_raw() -> None:
    # SPEC: S3
    value = {"summary": "a\x1b\x85\u202eb", "été": 1}
    text = escaped_json(json.dumps(value, ensure_ascii=False))
    assert json.loads(text) == value and not any(c in text for c in "\x1b\x85\u202e") and "été" in text


def test_s3_control_characters_are_refused_naming_the_gate_and_the_field() -> None:
    # SPEC: S3
    assert control_characters_in("plain \u202e text") == ""  # bidi is shown escaped, not refused
    assert control_characters_in("a\x1b\r\x1b\x9b") == "\\x1b, \\r, \\x9b"
    with pytest.raises(RefusedError) as refused:
        refuse_control_characters("XivMcp.ReportProgress", "progress line", "12 kills\x1b[2K")
    assert str(refused.value) == (
        "XivMcp.ReportProgress refused the progress line: it holds control characters (\\x1b), which would "
        "let it hide or rewrite what the player reads. Send plain text on one line, without escape sequences."
    )
    refuse_control_characters("XivMcp.ReportProgress", "progress line", "12 kills, été")  # nothing to refuse
