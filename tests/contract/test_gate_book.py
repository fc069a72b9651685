"""The gate book (`gates.contract.GATE_BOOK`, the source of docs/reference/gates.md) covers the whole contract."""

from __future__ import annotations

import msgspec

from gates.contract import GATE_BOOK, GATE_SIGNATURES, MESSAGE_SIGNATURES, PLUGIN_GATE_SIGNATURES


def test_every_gate_message_and_plugin_gate_has_a_page() -> None:
    names = {*GATE_SIGNATURES, *MESSAGE_SIGNATURES, *PLUGIN_GATE_SIGNATURES}
    assert set(GATE_BOOK) == names


def test_each_page_says_what_the_gate_does_and_sends_documents_for_its_own_parameters() -> None:
    signatures = {**GATE_SIGNATURES, **MESSAGE_SIGNATURES, **PLUGIN_GATE_SIGNATURES}
    for name, page in GATE_BOOK.items():
        assert page.summary.endswith("."), name
        assert set(page.sends) <= set(signatures[name].names), name
        if signatures[name].returns is str and name in GATE_SIGNATURES:  # a reply document, or {"ok": true}
            assert page.reply is None or issubclass(page.reply, msgspec.Struct), name
