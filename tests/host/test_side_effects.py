"""The side-effect rules as the real host judges them (T2, W3), and who is blamed for what (W2)."""

from __future__ import annotations

import pytest

from game import Change, GameSnapshot, SnapshotDelta, replay
from gates.host.policy._side_effects import analyze, judge, suspension_reason

BEFORE = GameSnapshot(
    logged_in=True,
    content_id=1,
    territory=1185,
    world=74,
    gil=10_000,
    currencies={28: 500, 25: 100},
    item_total=40,
    chat_sent=3,
)


def after(**changes: object) -> GameSnapshot:
    fields = {f: getattr(BEFORE, f) for f in GameSnapshot.__struct_fields__}
    fields.update(changes)
    return GameSnapshot(**fields)  # type: ignore[arg-type]


def change(by: str, **delta: object) -> Change:
    return Change(seq=1, at=0.0, by=by, capability="x", kind="x", summary="", delta=SnapshotDelta(**delta))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("changed", "effect", "detail", "covered_by"),
    [
        ({"gil": 8_800}, "spent_gil", "1,200 gil spent.", ("spend_gil",)),
        ({"territory": 1188}, "moved", "Zone 1185 → 1188.", ("move_character", "combat")),
        ({"world": 75}, "moved", "World 74 → 75.", ("move_character", "combat")),
        ({"currencies": {28: 450, 25: 100}}, "spent_currency", "50 of currency 28 spent.", ("spend_currency",)),
        (
            {"item_total": 37},
            "items_removed",
            "3 items left the inventory.",
            ("move_items", "trade_items", "discard_items", "spend_currency"),
        ),
        ({"chat_sent": 5}, "chat_sent", "2 chat message(s) sent.", ("chat_send",)),
        ({"logged_in": False}, "logged_out_or_switched", "Logged out.", ("login",)),
        ({"content_id": 2}, "logged_out_or_switched", "Switched to another character.", ("login",)),
    ],
)
def test_each_effect_needs_its_capabilities(
    changed: dict[str, object], effect: str, detail: str, covered_by: tuple[str, ...]
) -> None:
    # SPEC: W3
    [found] = analyze(BEFORE, after(**changed), declared=[])
    assert (found.effect, found.detail, found.covered_by, found.undeclared) == (effect, detail, covered_by, True)
    for capability in covered_by:
        [covered] = analyze(BEFORE, after(**changed), declared=[capability])
        assert not covered.undeclared


def test_gains_never_count() -> None:
    gained = after(gil=20_000, item_total=50, currencies={28: 900, 25: 100})
    assert analyze(BEFORE, gained, declared=[]) == []


def test_nothing_is_checked_when_logged_out_before() -> None:
    logged_out = after(logged_in=False)
    assert analyze(logged_out, after(gil=0), declared=[]) == []
    verdict = judge("P", [], logged_out, after(gil=0), [change("P", gil=-10_000)], complete=True)
    assert not verdict.checked and verdict.undeclared == ()


def test_a_logout_ends_the_check() -> None:
    effects = analyze(BEFORE, after(logged_in=False, gil=0, chat_sent=9), declared=["login"])
    assert [e.effect for e in effects] == ["logged_out_or_switched"]


def test_replay_applies_only_the_given_changes() -> None:
    mine = [change("P", gil=-300, item_total=2), change("P", territory=1188), change("P", currencies={28: -5})]
    replayed = replay(BEFORE, mine)
    assert (replayed.gil, replayed.item_total, replayed.territory, replayed.currencies[28]) == (9_700, 42, 1188, 495)


def test_f4_an_effect_another_process_made_during_the_call_is_judged_and_explained() -> None:
    # SPEC: W3
    changes = [change("Player", gil=-5_000), change("P", chat_sent=1)]
    verdict = judge("P", ["chat_send"], BEFORE, after(gil=5_000, chat_sent=4), changes, complete=True)
    assert [e.detail for e in verdict.undeclared] == ["5,000 gil spent."]
    assert verdict.to_json()["effects"][0]["by"] == ["Player"]
    assert verdict.explain("P") == [
        "5,000 gil spent, by Player during the call: XIV MCP cannot tell who did it and judges P's call "
        "by the whole difference."
    ]


def test_f4_a_gain_by_another_process_hides_the_plugins_spending_as_in_the_real_host() -> None:
    """The real host sees one gil total before and after: 300 spent and 1,000 gained is a gain."""
    changes = [change("P", gil=-300), change("Other", gil=+1_000)]
    verdict = judge("P", [], BEFORE, after(gil=10_700), changes, complete=True)
    assert verdict.effects == ()


def test_f4_items_are_one_total_so_a_discard_hidden_by_a_gain_is_not_seen_as_in_the_real_host() -> None:
    changes = [change("P", item_total=-1), change("P", item_total=+1)]
    verdict = judge("P", [], BEFORE, after(item_total=BEFORE.item_total), changes, complete=True)
    assert verdict.effects == ()


def test_without_the_whole_log_the_whole_difference_is_judged() -> None:
    verdict = judge("P", [], BEFORE, after(gil=9_000), [], complete=False)
    assert [e.effect for e in verdict.undeclared] == ["spent_gil"] and not verdict.attributed
    assert verdict.to_json() == {"effects": [verdict.effects[0].to_json()], "attributed": False}


def test_the_suspension_reason_is_worded_as_the_real_host_words_it() -> None:
    # SPEC: W4
    effects = analyze(BEFORE, after(gil=8_800, chat_sent=4), declared=[])
    assert suspension_reason("careless_buy", effects) == (
        "careless_buy: 1,200 gil spent. 1 chat message(s) sent. (not declared)"
    )
