"""The console's parts without processes: sessions, tickets, the actions table, the cards' words
and the templates' escaping."""

from __future__ import annotations

from typing import Any

import pytest

from gates.console._actions import ACTIONS, command_of
from gates.console._panels import capability_rows, review_text, state_line
from gates.console._sessions import MAX_SESSIONS, SESSION_IDLE, Sessions
from gates.console._views import templates
from gates.contract import (
    Answer,
    CapabilityMode,
    DependencyEntry,
    DependencyState,
    Mode,
    PluginState,
    RefusedError,
)
from gates.host import ManualClock
from gates.host.base._tickets import MAX_TICKETS, TICKET_LIFETIME, ConsoleTickets
from gates.player import (
    AnswerApproval,
    Awaits,
    ClearSession,
    ConsentedTool,
    ConsentPlugin,
    ControlJob,
    EnablePlugin,
    KeepDisabled,
    LiftSuspension,
    PluginCard,
    PluginView,
    SetMode,
    SetModule,
    SetToolSetting,
    ToolCard,
    ToolView,
)

# --- sessions ------------------------------------------------------------------------------------


class FakeMonotonic:
    """A monotonic clock as the test sets it (given to `Sessions`: patching `time.monotonic` itself
    would move the clock of every thread of this test process too)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def monotonic() -> FakeMonotonic:
    fake = FakeMonotonic()
    fake.now = 1000.0  # a whole number: "exactly the idle time" stays exact in floating point
    return fake


def test_a_session_is_found_by_its_cookie_until_it_ends() -> None:
    sessions = Sessions()
    session = sessions.start()
    assert sessions.find(session.id) is session and len(sessions) == 1
    assert sessions.find(session.id + "x") is None
    assert sessions.find(session.csrf) is None  # the CSRF token is no cookie
    assert sessions.find("") is None and sessions.find(None) is None
    sessions.end(session)
    assert sessions.find(session.id) is None and len(sessions) == 0
    sessions.end(session)  # ending twice is nothing


def test_sessions_are_random_and_their_csrf_tokens_differ() -> None:
    sessions = Sessions()
    first, second = sessions.start(), sessions.start()
    assert len({first.id, first.csrf, second.id, second.csrf}) == 4
    assert len(first.id) >= 40  # 32 random bytes, URL-safe
    assert first.csrf_matches(first.csrf)
    assert not first.csrf_matches(second.csrf)
    assert not first.csrf_matches(None) and not first.csrf_matches("")


def test_past_the_limit_the_session_idle_longest_goes(monotonic: FakeMonotonic) -> None:
    sessions = Sessions(limit=3, clock=monotonic)
    a, b, c = sessions.start(), sessions.start(), sessions.start()
    monotonic.now += 1
    assert sessions.find(a.id) is a  # a was seen now: b is the one idle longest
    d = sessions.start()
    assert len(sessions) == 3
    assert sessions.find(b.id) is None
    assert [sessions.find(s.id) for s in (a, c, d)] == [a, c, d]


def test_the_default_limit_is_max_sessions() -> None:
    sessions = Sessions()
    started = [sessions.start() for _ in range(MAX_SESSIONS + 1)]
    assert len(sessions) == MAX_SESSIONS
    assert sessions.find(started[0].id) is None and sessions.find(started[-1].id) is started[-1]


def test_an_idle_session_expires_and_a_used_one_does_not(monotonic: FakeMonotonic) -> None:
    sessions = Sessions(clock=monotonic)
    used, idle = sessions.start(), sessions.start()
    for _ in range(3):  # each request moves the used one's idle time on
        monotonic.now += SESSION_IDLE * 0.6
        assert sessions.find(used.id) is used
    assert sessions.find(idle.id) is None
    assert len(sessions) == 1  # forgotten, not only refused
    monotonic.now += SESSION_IDLE
    assert sessions.find(used.id) is used  # exactly the idle time is still in time
    monotonic.now += SESSION_IDLE + 0.001
    assert sessions.find(used.id) is None


def test_a_session_is_seen_when_made(monotonic: FakeMonotonic) -> None:
    assert Sessions(clock=monotonic).start().seen == monotonic.now


# --- tickets -------------------------------------------------------------------------------------


def test_a_ticket_is_good_once() -> None:
    # SPEC: C2
    tickets = ConsoleTickets(ManualClock())
    ticket = tickets.issue()
    assert len(ticket) >= 40
    assert tickets.redeem(ticket) is True
    assert tickets.redeem(ticket) is False
    assert tickets.redeem("made-up") is False and tickets.redeem("") is False
    assert tickets.issue() != ticket


def test_a_ticket_expires_on_the_clock() -> None:
    clock = ManualClock()
    tickets = ConsoleTickets(clock)
    assert tickets.lifetime == TICKET_LIFETIME
    in_time, late = tickets.issue(), tickets.issue()
    clock.advance(TICKET_LIFETIME)
    assert tickets.redeem(in_time) is True  # at its deadline, still in time
    clock.advance(0.001)
    assert tickets.redeem(late) is False


class SetClock:
    """A clock the test sets, backwards too (ManualClock only goes forward)."""

    def __init__(self) -> None:
        self.at = 0.0

    def now(self) -> float:
        return self.at


def test_a_late_ticket_is_used_up_by_the_try() -> None:
    clock = SetClock()
    tickets = ConsoleTickets(clock)
    ticket = tickets.issue()
    clock.at = TICKET_LIFETIME + 1
    assert tickets.redeem(ticket) is False
    clock.at = 0.0
    assert tickets.redeem(ticket) is False  # gone, not only late


def test_a_ticket_lifetime_is_the_hosts_choice() -> None:
    clock = ManualClock()
    tickets = ConsoleTickets(clock, lifetime=5)
    ticket = tickets.issue()
    clock.advance(5.5)
    assert tickets.lifetime == 5 and tickets.redeem(ticket) is False


def test_past_the_limit_the_oldest_ticket_goes() -> None:
    tickets = ConsoleTickets(ManualClock())
    issued = [tickets.issue() for _ in range(MAX_TICKETS + 1)]
    assert tickets.redeem(issued[0]) is False
    assert all(tickets.redeem(t) for t in issued[1:])
    small = ConsoleTickets(ManualClock(), limit=2)
    a, b, c = small.issue(), small.issue(), small.issue()
    assert [small.redeem(t) for t in (a, b, c)] == [False, True, True]


# --- the actions table ---------------------------------------------------------------------------


FORMS: dict[str, tuple[dict[str, str], object]] = {
    "enable": ({"plugin": "P", "digest": "d1"}, EnablePlugin(plugin="P", digest="d1")),
    "consent": ({"plugin": "P", "digest": "d2"}, ConsentPlugin(plugin="P", digest="d2")),
    "keep_disabled": ({"plugin": "P"}, KeepDisabled(plugin="P")),
    "lift": ({"plugin": "P"}, LiftSuspension(plugin="P")),
    "clear_session": ({"plugin": "P"}, ClearSession(plugin="P")),
    "mode": (
        {"plugin": "P", "target": "spend_gil", "mode": "ask"},
        SetMode(plugin="P", target="spend_gil", mode="ask"),
    ),
    "answer": (
        {"approval_id": "a1", "answer": "approve_session"},
        AnswerApproval(approval_id="a1", answer=Answer.APPROVE_SESSION),
    ),
    "module": (
        {"module": "m", "what": "changes", "mode": "allow"},
        SetModule(module="m", what="changes", mode="allow"),
    ),
    "tool": ({"tool": "t", "setting": "group"}, SetToolSetting(tool="t", setting="group")),
    "job": ({"id": "j1", "action": "pause"}, ControlJob(id="j1", action="pause")),
}


def test_every_action_is_tested() -> None:
    assert set(FORMS) == set(ACTIONS)


@pytest.mark.parametrize("action", sorted(FORMS))
def test_each_action_builds_its_command(action: str) -> None:
    form, command = FORMS[action]
    extra = {**form, "csrf": "token", "tab": "plugins"}  # the page's own fields are not the command's
    assert command_of(action, extra) == command


@pytest.mark.parametrize("action", sorted(FORMS))
def test_each_action_refuses_a_form_missing_a_field(action: str) -> None:
    form, _ = FORMS[action]
    for name in form:
        if action == "module" and name == "mode":
            continue  # on / off need no mode
        for lacking in ({k: v for k, v in form.items() if k != name}, {**form, name: ""}):
            with pytest.raises(RefusedError) as refused:
                command_of(action, lacking)
            assert str(refused.value) == f"The form has no {name!r}: reload the page and try again."


def test_a_module_turned_on_or_off_needs_no_mode() -> None:
    assert command_of("module", {"module": "m", "what": "off"}) == SetModule(module="m", what="off", mode=None)
    assert command_of("module", {"module": "m", "what": "on", "mode": ""}) == SetModule(module="m", what="on")


def test_an_unknown_action_or_answer_is_refused() -> None:
    with pytest.raises(RefusedError, match=r"^The console has no action 'self_destruct': reload the page\.$"):
        command_of("self_destruct", {"plugin": "P"})
    with pytest.raises(RefusedError, match="'answer' must be approve_once, approve_session, always_allow or decline."):
        command_of("answer", {"approval_id": "a1", "answer": "maybe"})


# --- the cards' words ----------------------------------------------------------------------------


def tool_card(name: str, mode: Mode, capabilities: list[str] | None = None) -> ToolCard:
    return ToolCard(name=name, mode=mode, read_only=not capabilities, capabilities=capabilities or [])


def tool_view(name: str, mode: Mode, description: str = "Does a thing.", **more: Any) -> ToolView:
    return ToolView(
        name=name,
        description=description,
        read_only=False,
        destructive=False,
        capabilities=["game_ui"],
        mode=mode,
        **more,
    )


def view_of(
    state: PluginState,
    *,
    tools: list[ToolCard] | None = None,
    connected: bool = True,
    awaits: Awaits | None = None,
    consented: list[ConsentedTool] | None = None,
    dependencies: list[DependencyEntry] | None = None,
    description: str = "Does a thing.",
    display_name: str = "My Plugin",
    suspend_reason: str | None = None,
) -> PluginView:
    cards = tools if tools is not None else [tool_card("p_look", Mode.ALLOW), tool_card("p_act", Mode.ASK, ["game_ui"])]
    card = PluginCard(
        name="P",
        state=state,
        connected=connected,
        suspend_reason=suspend_reason,
        digest="d1",
        tools=cards,
        capabilities=[CapabilityMode(id="game_ui", mode=Mode.ASK), CapabilityMode(id="read_game", mode=Mode.ALLOW)],
        awaits=awaits,
    )
    return PluginView(
        card=card,
        display_name=display_name,
        version="1.0.0",
        tools=[tool_view(t.name, t.mode, description) for t in cards],
        consented=consented or [],
        dependencies=dependencies or [],
    )


@pytest.mark.parametrize(
    ("state", "line"),
    [
        (PluginState.UNDECIDED, "Waiting for your decision · 2 tool(s)"),
        (PluginState.KEPT_DISABLED, "Kept disabled · 2 tool(s)"),
        (PluginState.AWAITING_CONSENT, "Paused: waiting for your consent · 2 tool(s)"),
        (PluginState.SUSPENDED, "Suspended · 2 tool(s)"),
        (PluginState.ENABLED, "Enabled · 2 tool(s) · 1 ask first"),
    ],
)
def test_state_line_of_each_state(state: PluginState, line: str) -> None:
    assert state_line(view_of(state)) == line
    assert state_line(view_of(state, connected=False)) == "Not loaded"


def test_state_line_counts_asks_denials_and_broken_dependencies() -> None:
    tools = [tool_card("a", Mode.ASK, ["game_ui"]), tool_card("b", Mode.DENY, ["spend_gil"]), tool_card("c", Mode.DENY)]
    assert state_line(view_of(PluginState.ENABLED, tools=tools)) == "Enabled · 3 tool(s) · 1 ask first · 2 denied"
    assert state_line(view_of(PluginState.ENABLED, tools=[tool_card("a", Mode.ALLOW)])) == "Enabled · 1 tool(s)"
    deps = [
        DependencyEntry(tool=t, plugin=None, state=s, message="", install=[])
        for t, s in (("x", DependencyState.OK), ("y", DependencyState.TOOL_MISSING), ("z", DependencyState.NOT_ENABLED))
    ]
    line = state_line(view_of(PluginState.SUSPENDED, dependencies=deps))
    assert line == "Suspended · 2 tool(s) · its jobs miss 2 tool(s)"


def test_review_text_says_what_a_plugin_waits_for() -> None:
    first = Awaits(new_tools=["p_look", "p_act"], new_capabilities=["spend_gil", "game_ui", "read_game"])
    text = review_text(view_of(PluginState.UNDECIDED, awaits=first))
    assert text == "Wants to register with XIV MCP. Tools: p_look, p_act. It asks to: spend gil, use game windows."
    grown = Awaits(new_tools=["p_act"], new_capabilities=["game_ui"])
    consented = [ConsentedTool(name="p_look", capabilities=[])]
    paused = review_text(view_of(PluginState.AWAITING_CONSENT, awaits=grown, consented=consented))
    assert (
        paused == "Changed its registration; its tools are paused. New tools: p_act. Newly asks to: use game windows."
    )
    kept = review_text(view_of(PluginState.KEPT_DISABLED, awaits=grown, consented=consented))
    assert kept == "Changed its registration. New tools: p_act. Newly asks to: use game windows."
    reading_only = Awaits(new_tools=[], new_capabilities=["read_game"])
    assert review_text(view_of(PluginState.UNDECIDED, awaits=reading_only)) == "Wants to register with XIV MCP."


@pytest.mark.parametrize("state", list(PluginState))
def test_review_text_is_none_when_nothing_waits(state: PluginState) -> None:
    assert review_text(view_of(state)) is None
    waits = Awaits(new_tools=["p_act"], new_capabilities=[])
    assert review_text(view_of(state, awaits=waits, tools=[])) is None  # nothing registered (yet)


# --- the templates -------------------------------------------------------------------------------


SCRIPT = "<script>alert(1)</script>"
IMAGE = '<img src=x onerror="alert(1)">'


def common(csrf: str = "tok") -> dict[str, Any]:
    return {
        "tab": "plugins",
        "csrf": csrf,
        "said": None,
        "failed": False,
        "query": {},
        "now_ms": 0,
        "version": "0",
        "mcp_url": "http://127.0.0.1:1/mcp",
        "base": "/console/key",
    }


def test_the_plugins_template_escapes_plugin_text() -> None:
    # SPEC: S3
    view = view_of(
        PluginState.SUSPENDED,
        description=f"Reads {SCRIPT} and {IMAGE}",
        display_name=f"Evil {SCRIPT}",
        suspend_reason=f"it did {IMAGE}",
        awaits=Awaits(new_tools=[SCRIPT], new_capabilities=[]),
    )
    html = (
        templates()
        .get_template("plugins.html")
        .render(
            views=[view],
            rows={"P": capability_rows(view)},
            lines={"P": state_line(view)},
            reviews={"P": f"New tools: {SCRIPT}."},
            audit_file="/tmp/audit.jsonl",
            **common(csrf='"><script>x</script>'),
        )
    )
    assert SCRIPT not in html and IMAGE not in html and "<script>x" not in html
    assert "Evil &lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "Suspended: it did &lt;img" in html
    assert "New tools: &lt;script&gt;alert(1)&lt;/script&gt;." in html
    assert 'value="&#34;&gt;&lt;script&gt;x&lt;/script&gt;"' in html  # an attribute cannot be broken out of


def test_a_rows_tools_template_escapes_their_descriptions() -> None:
    # SPEC: S3
    view = view_of(PluginState.ENABLED, description=f"Reads {SCRIPT} and {IMAGE}")
    [row, *_] = [r for r in capability_rows(view) if r.tools]
    html = templates().get_template("tools.html").render(row=row, name="P", **common())
    assert SCRIPT not in html and IMAGE not in html
    assert "Reads &lt;script&gt;alert(1)&lt;/script&gt; and &lt;img src=x onerror=&#34;alert(1)&#34;&gt;" in html


def test_every_template_and_a_string_template_autoescape() -> None:
    env = templates()
    assert env.from_string("{{ text }}").render(text=SCRIPT) == "&lt;script&gt;alert(1)&lt;/script&gt;"
    assert env.get_template("refused.html").render(message=SCRIPT).count("&lt;script&gt;") == 1
    said = env.get_template("said.html").render(said=IMAGE, failed=True)
    assert IMAGE not in said and "&lt;img" in said


def test_a_steps_result_is_shown_as_escaped_json_and_cut() -> None:
    env = templates()
    shown = env.from_string("{{ value | brief_json }}").render(value={"said": SCRIPT, "n": 1})
    assert shown == "{&#34;said&#34;: &#34;&lt;script&gt;alert(1)&lt;/script&gt;&#34;, &#34;n&#34;: 1}"
    long = env.from_string("{{ value | brief_json }}").render(value="x" * 500)
    assert long == "&#34;" + "x" * 198 + "…"  # 200 characters of JSON, the quote escaped for HTML
