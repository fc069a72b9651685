"""The change log in-process (W2, B7): numbered, bounded, and each delta what the change did."""

from __future__ import annotations

import msgspec

from game import Change, GameSnapshot, SnapshotDelta, replay
from game._changes import MAX_CHANGES, ChangeLog, delta_between

BEFORE = GameSnapshot(
    logged_in=True,
    content_id=1,
    territory=1185,
    world=74,
    gil=1_000,
    currencies={28: 500, 25: 100},
    item_total=40,
    chat_sent=3,
)


def _fill(log: ChangeLog, count: int) -> None:
    for n in range(count):
        log.append(at=float(n), by="P", capability="game_ui", kind="window", summary=f"{n}", delta=SnapshotDelta())


def test_w2_a_delta_is_the_difference_of_the_snapshots_and_leaves_out_what_stayed() -> None:
    after = GameSnapshot(
        logged_in=True,
        content_id=2,
        territory=1188,
        world=74,
        gil=700,
        currencies={28: 450, 25: 100},
        item_total=42,
        chat_sent=3,
    )
    delta = delta_between(BEFORE, after)
    assert delta == SnapshotDelta(gil=-300, currencies={28: -50}, item_total=2, territory=1188, content_id=2)
    assert delta_between(BEFORE, BEFORE) == SnapshotDelta()
    # replay is its inverse: applying the change's delta to the snapshot before gives the one after
    change = Change(seq=1, at=0.0, by="P", capability="spend_gil", kind="gil", summary="", delta=delta)
    assert replay(BEFORE, [change]) == after
    logged_out = GameSnapshot(
        **{**msgspec.structs.asdict(after), "logged_in": False, "world": 21, "currencies": {28: 0, 25: 0}}
    )
    back = Change(seq=2, at=0.0, by="P", capability="x", kind="x", summary="", delta=delta_between(after, logged_out))
    assert replay(BEFORE, [change, back]) == logged_out


def test_b7_the_log_keeps_the_newest_ten_thousand_and_says_when_it_no_longer_reaches_back() -> None:
    log = ChangeLog()
    _fill(log, MAX_CHANGES + 5)
    assert log.seq == MAX_CHANGES + 5
    page = log.since(0, MAX_CHANGES, 10**9)
    assert not page.complete and page.changes[0].seq == 6 and len(page.changes) == MAX_CHANGES
    page = log.since(5, 10, 10**9)  # the oldest kept is 6: nothing after 5 was dropped
    assert page.complete and [c.seq for c in page.changes] == list(range(6, 16)) and page.more


def test_w2_since_picks_the_changes_after_it_oldest_first_and_stops_at_the_limit_or_the_budget() -> None:
    log = ChangeLog()
    _fill(log, 30)
    page = log.since(10, 5, 10**9)
    assert [c.seq for c in page.changes] == [11, 12, 13, 14, 15] and page.complete and page.more
    page = log.since(25, 100, 10**9)
    assert [c.seq for c in page.changes] == [26, 27, 28, 29, 30] and page.complete and not page.more
    small = log.since(0, 100, 600)  # a few changes' worth of bytes
    assert 0 < len(small.changes) < 30 and small.more and small.complete
    assert log.since(30, 10, 10**9).changes == []


def test_w2_since_after_the_newest_seq_is_not_complete_a_new_game_started_since() -> None:
    log = ChangeLog()
    _fill(log, 3)
    page = log.since(7, 10, 10**9)
    assert page.changes == [] and not page.complete and not page.more


def test_b7_a_long_summary_is_cut() -> None:
    log = ChangeLog()
    change = log.append(at=0.0, by="P", capability="chat_send", kind="chat", summary="x" * 1000, delta=SnapshotDelta())
    assert len(change.summary) == 200 and change.summary.endswith("…")
