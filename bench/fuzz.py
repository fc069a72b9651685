"""Fuzz every host gate and the player's gates through the real bus, with hypothesis (G2, B7).

    python -m bench.fuzz                      # 10,000 examples against a fresh broker and host
    python -m bench.fuzz --examples 500       # fewer
    python -m bench.fuzz --json               # the figures as one JSON object on stdout

Each example calls one gate (`XivMcp.*`, `XivMcp.Player`, `XivMcp.PlayerHello`) with arbitrary
arguments: any arity from none to five, strings (unicode, control characters, huge ones), JSON
documents (nested deep, wide, huge), numbers, booleans, nulls, lists and objects. A reply must
be what the contract promises: `{"ok": true, …}` or `{"ok": false, "error": "…"}` as JSON text
(`ApiVersion`: 2, `IsReady`: true), or an error of the bus framework itself (`IpcError`: wrong
arity or type, a payload over the bus's limit), never anything else, and the host must keep
answering: every 50 examples, and at the end, `ApiVersion` must answer 2 and the host process
must be alive. The broker and the host are real processes (`gates.testing.XivMcpSystem`), the
fuzzer is a peer in this process. The test suite runs a few hundred examples
(`tests/host/test_fuzz.py`); this command runs as many as asked and prints how many it tried
and how many failed.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import anyio
import anyio.from_thread
from hypothesis import HealthCheck, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

import broker
from gates.contract import GATE_SIGNATURES, Gate
from gates.player import PLAYER_GATE, PLAYER_HELLO_GATE
from gates.testing import XivMcpSystem

GATES: tuple[str, ...] = (*(g.value for g in GATE_SIGNATURES), PLAYER_GATE, PLAYER_HELLO_GATE)
CHECK_EVERY = 50
DEFAULT_EXAMPLES = 10_000
CALL_TIMEOUT = 10.0
FUZZER = "Fuzzer"


def _json_values() -> st.SearchStrategy[Any]:
    scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=50)
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=12), inner, max_size=6),
        max_leaves=40,
    )


def _documents() -> st.SearchStrategy[str]:
    """JSON text: arbitrary values, the contract's shapes with odd contents, deep and huge ones."""
    shaped = st.fixed_dictionaries(
        {},
        optional={
            "name": st.text(max_size=80),
            "description": st.text(max_size=80),
            "capabilities": st.lists(st.text(max_size=20) | st.sampled_from(["game_ui", "spend_gil"]), max_size=4),
            "readOnly": _json_values(),
            "inputSchema": _json_values(),
            "tools": st.lists(_json_values(), max_size=4),
            "capability": st.text(max_size=40),
            "summary": st.text(max_size=80),
            "cmd": st.sampled_from(["plugins", "enable", "mode", "call", "answer", "audit", "fly"]),
            "plugin": st.text(max_size=20),
            "nonce": st.text(max_size=40),
            "mac": st.text(max_size=70),
        },
    )
    deep = st.integers(min_value=100, max_value=3000).map(lambda n: "[" * n + "]" * n)
    wide = st.integers(min_value=1000, max_value=20000).map(lambda n: json.dumps(list(range(n))))
    huge = st.integers(min_value=10_000, max_value=400_000).map(lambda n: json.dumps({"name": "x" * n}))
    return st.one_of(_json_values().map(json.dumps), shaped.map(json.dumps), deep, wide, huge)


def _strings() -> st.SearchStrategy[str]:
    huge = st.integers(min_value=10_000, max_value=600_000).map(lambda n: "é" * n)
    odd = st.sampled_from(["", " ", "\n", "\x00", "XivMcp", FUZZER, "Fuzzer\n", "c1-000000", "a1-000000", "null"])
    return st.one_of(st.text(), odd, huge, _documents())


_ARITY: dict[str, int] = {
    **{g.value: len(sig.params) for g, sig in GATE_SIGNATURES.items()},
    PLAYER_GATE: 2,
    PLAYER_HELLO_GATE: 1,
}


def _calls() -> st.SearchStrategy[tuple[str, list[Any]]]:
    """A gate and its arguments: mostly the right number of strings (or nulls), so the host's own
    checks are what is fuzzed; else any arity and any JSON type, which the bus itself refuses."""
    anything = st.lists(st.one_of(_strings(), _json_values()), max_size=5)

    def for_gate(gate: str) -> st.SearchStrategy[tuple[str, list[Any]]]:
        fitting = st.lists(st.one_of(_strings(), st.none()), min_size=_ARITY[gate], max_size=_ARITY[gate])
        arguments = st.sampled_from((True, True, True, False)).flatmap(lambda fit: fitting if fit else anything)
        return st.tuples(st.just(gate), arguments)

    return st.sampled_from(GATES).flatmap(for_gate)


@dataclass
class FuzzReport:
    examples: int
    tried: int = 0
    failed: int = 0
    framework_errors: int = 0
    """Calls the bus itself refused (wrong arity or type, payload over its limit): allowed."""
    refusals: int = 0
    """Replies `{"ok": false, "error": …}`."""
    seconds: float = 0.0
    host_alive: bool = False
    failures: list[str] = field(default_factory=list)
    """The first few failures, each with its gate and arguments (cut)."""


def _check_reply(gate: str, reply: object) -> str | None:
    """Why `reply` breaks the contract, or None."""
    if gate == Gate.API_VERSION:
        return None if reply == 2 else f"ApiVersion answered {reply!r}"
    if gate == Gate.IS_READY:
        return None if reply is True else f"IsReady answered {reply!r}"
    if not isinstance(reply, str):
        return f"answered {type(reply).__name__}, not a JSON string"
    try:
        document = json.loads(reply)
    except ValueError:
        return f"answered text that is not JSON: {reply[:80]!r}"
    if not isinstance(document, dict) or not isinstance(document.get("ok"), bool):
        return f'answered {reply[:80]!r}, not {{"ok": …}}'
    if document["ok"] is False and not (isinstance(document.get("error"), str) and document["error"]):
        return f"refused without a message: {reply[:80]!r}"
    return None


async def _call(pi: broker.PluginInterface, gate: str, args: list[Any]) -> tuple[str, object]:
    """("reply", value) or ("framework", error message)."""
    try:
        with anyio.fail_after(CALL_TIMEOUT):
            return "reply", await pi.get_ipc_subscriber(gate).invoke_func(*args)
    except broker.IpcError as exc:
        return "framework", f"{type(exc).__name__}: {exc}"


async def _alive(pi: broker.PluginInterface) -> bool:
    try:
        with anyio.fail_after(CALL_TIMEOUT):
            return bool(await pi.get_ipc_subscriber(Gate.API_VERSION).invoke_func() == 2)
    except (broker.IpcError, TimeoutError):
        return False


@contextmanager
def _fuzzer(endpoint: str) -> Iterator[tuple[anyio.from_thread.BlockingPortal, broker.PluginInterface]]:
    with anyio.from_thread.start_blocking_portal() as portal:
        cm = portal.wrap_async_context_manager(broker.connect(endpoint, FUZZER))
        with cm as pi:
            portal.call(pi.get_ipc_subscriber(Gate.IS_READY).wait_ready)
            yield portal, pi


def run(root: Path, examples: int, *, seed: int | None = None) -> FuzzReport:
    """Start a broker and a host under `root`, fuzz them with `examples` examples, stop them."""
    report = FuzzReport(examples=examples)
    started = time.monotonic()
    with XivMcpSystem(root, "--test-clock", "--no-mcp") as system:
        system.start()
        with _fuzzer(system.endpoint) as (portal, pi):

            @settings(
                max_examples=examples,
                deadline=None,
                database=None,
                derandomize=seed is None,
                suppress_health_check=list(HealthCheck),
            )
            @given(call=_calls())
            def example(call: tuple[str, list[Any]]) -> None:
                gate, args = call
                report.tried += 1
                kind, value = portal.call(_call, pi, gate, args)
                if kind == "framework":
                    report.framework_errors += 1
                    problem = None if str(value).startswith("Ipc") else str(value)
                else:
                    problem = _check_reply(gate, value)
                    if problem is None and isinstance(value, str) and '"ok":false' in value.replace(" ", ""):
                        report.refusals += 1
                if problem is None and report.tried % CHECK_EVERY == 0 and not portal.call(_alive, pi):
                    problem = "the host stopped answering ApiVersion"
                if problem is not None:
                    report.failed += 1
                    if len(report.failures) < 10:
                        report.failures.append(f"{gate}{_short(args)}: {problem}")

            (example if seed is None else hypothesis_seed(seed)(example))()
            report.host_alive = portal.call(_alive, pi) and system.host is not None and system.host.returncode is None
    report.seconds = round(time.monotonic() - started, 1)
    return report


def _short(args: list[Any]) -> str:
    text = json.dumps(args, ensure_ascii=True)
    return f"({text[1:-1][:120]}{'…' if len(text) > 122 else ''})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.fuzz", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--examples", type=int, default=DEFAULT_EXAMPLES, help=f"how many examples (default {DEFAULT_EXAMPLES:,})"
    )
    parser.add_argument("--seed", type=int, default=None, help="vary the examples (default: the same every run)")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="xivmcp-fuzz-") as root:
        report = run(Path(root), args.examples, seed=args.seed)
    if args.json:
        print(json.dumps(asdict(report)))
    else:
        print(f"fuzzed {len(GATES)} gates through the real bus (broker and host as processes)")
        print(f"examples asked  {report.examples:>8,}")
        print(f"tried           {report.tried:>8,}")
        print(f"failed          {report.failed:>8,}")
        print(f"refused (ok:false)   {report.refusals:>8,}")
        print(f"framework errors     {report.framework_errors:>8,}   (wrong arity or type, payload over the bus limit)")
        print(f"host alive at end    {'yes' if report.host_alive else 'NO'}")
        print(f"seconds         {report.seconds:>8}")
        for failure in report.failures:
            print(f"FAILED {failure}")
    return 0 if report.failed == 0 and report.host_alive else 1


if __name__ == "__main__":
    sys.exit(main())
