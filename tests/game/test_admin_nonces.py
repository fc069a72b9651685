"""The nonces in front of the game's admin gates (F4, B7): each good once, for its caller, for a
while, and a bounded number of them, whoever asks. In-process, on `game._admin.AdminDoor` with a
clock the test moves (its own, not the game's: a nonce's lifetime is real time)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from game import GameGate
from game._admin import AdminDoor, admin_mac
from game._args import AdminHelloArgs
from game._errors import Refusal
from gates.contract import PLAYER_KEY_FILE, ProofPurpose, tagged_mac

KEY = "the player's key"
SET_GIL = {"path": "gil", "value": 5}


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def door(tmp_path: Path, clock: Clock, **limits: int) -> AdminDoor:
    (tmp_path / PLAYER_KEY_FILE).write_text(KEY + "\n", encoding="utf-8")
    return AdminDoor(tmp_path / PLAYER_KEY_FILE, now=clock, lifetime=60.0, **limits)


def nonce(admin: AdminDoor, caller: str) -> str:
    return admin.hello(AdminHelloArgs(nonce="c"), caller).nonce


def call(admin: AdminDoor, caller: str, nonce: str) -> bool:
    """Whether `caller`'s Game.Set with a proof over `nonce` is let through."""
    sent = json.dumps({**SET_GIL, "proof": {"nonce": nonce, "mac": admin_mac(KEY, nonce, "Game.Set", SET_GIL)}})
    try:
        admitted = admin.admit(GameGate.SET, sent, caller)
    except Refusal:
        return False
    assert json.loads(admitted) == SET_GIL  # the arguments, without the proof
    return True


def test_f4_the_games_answer_proves_the_key_it_reads(tmp_path: Path) -> None:
    reply = door(tmp_path, Clock()).hello(AdminHelloArgs(nonce="client's"), "Cli")
    assert reply.proof == tagged_mac(KEY, ProofPurpose.GAME, "client's")


def test_f4_a_nonce_is_good_once_for_its_caller_within_its_lifetime(tmp_path: Path) -> None:
    clock = Clock()
    admin = door(tmp_path, clock)
    first = nonce(admin, "Cli")
    assert not call(admin, "Plugin", first)  # not the plugin's to use, even with the right MAC
    assert call(admin, "Cli", first)  # and the plugin's try did not use it up
    assert not call(admin, "Cli", first)  # good once
    late = nonce(admin, "Cli")
    clock.now += 60.0
    assert not call(admin, "Cli", late)


def test_b7_one_callers_nonces_are_bounded_and_crowd_out_only_its_own(tmp_path: Path) -> None:
    admin = door(tmp_path, Clock(), per_caller=4, limit=100)
    players = nonce(admin, "Cli")
    floods = [nonce(admin, "Plugin") for _ in range(10)]
    assert call(admin, "Cli", players)
    assert [call(admin, "Plugin", n) for n in floods] == [False] * 6 + [True] * 4


def test_b7_every_callers_nonces_together_are_bounded_oldest_forgotten_first(tmp_path: Path) -> None:
    admin = door(tmp_path, Clock(), per_caller=4, limit=8)
    held = [nonce(admin, f"Peer{i}") for i in range(10)]
    assert [call(admin, f"Peer{i}", n) for i, n in enumerate(held)] == [False] * 2 + [True] * 8


@pytest.mark.parametrize("sent", ["", "{}", "[1]", "{not json", '{"path": "gil", "value": 5, "proof": null}'])
def test_f4_a_call_without_a_proof_is_refused_saying_who_may_call(tmp_path: Path, sent: str) -> None:
    with pytest.raises(Refusal, match=r"^only the player rewrites the world this way \(`xivmcp game set PATH VALUE`"):
        door(tmp_path, Clock()).admit(GameGate.SET, sent, "Plugin")


def test_f4_without_a_key_file_every_admin_gate_and_the_hello_refuse(tmp_path: Path) -> None:
    admin = AdminDoor(None)
    with pytest.raises(Refusal, match="started without a data dir"):
        admin.hello(AdminHelloArgs(nonce="c"), "Cli")
    with pytest.raises(Refusal, match="--data-dir DATA_DIR"):
        admin.admit(GameGate.RESET, "{}", "Cli")


def test_f4_a_client_nonce_is_one_to_128_characters(tmp_path: Path) -> None:
    admin = door(tmp_path, Clock())
    for bad in ("", "x" * 129):
        with pytest.raises(Refusal, match="`nonce` takes a random nonce of 1 to 128 characters"):
            admin.hello(AdminHelloArgs(nonce=bad), "Cli")
