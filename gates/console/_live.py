"""The console follows the host: which panels changed, as server-sent events.

One `LiveHub` per console listens to the host once (its changes, jobs, approvals asked, audit
lines, the game's changes, the game coming and going) and tells every open page which panels to
fetch again, as one event ``change`` whose data is their names (``plugins approvals``). Names pile
up while a page is slow to read them, so a burst of a thousand calls is one event per page, not a
thousand; the page's script (`static/console.js`) fetches each named panel it shows.

A page's stream ends when its session does (logged out, or idle too long) and when the host goes
down; at most `MAX_PAGES` are open at once.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Final

import anyio
from sse_starlette import ServerSentEvent

from game import GAME_NAME
from gates.host import AuditEntry, AuditKind, Host

__all__ = ["MAX_PAGES", "PANELS", "LiveHub"]

PANELS: Final = ("plugins", "approvals", "modules", "jobs", "audit", "game", "connect", "info")
_BY_AUDIT_KIND: Final = {
    AuditKind.APPROVAL: ("approvals",),
    AuditKind.CALL: ("approvals",),
    AuditKind.DECISION: ("plugins",),
    AuditKind.REGISTRATION: ("plugins",),
    AuditKind.CONSENT: ("plugins",),
    AuditKind.SUSPENSION: ("plugins",),
    AuditKind.SETTING: ("plugins", "modules"),
    AuditKind.DEPENDENCIES: ("plugins",),
}
"""Besides the audit panel itself, what an audit line can change on the page. A call changes no
card (a suspension, a decision has a line of its own): a busy assistant does not close the
tool lists a player has open."""
MAX_PAGES: Final = 64
"""Open pages at once; one more is refused (`full`)."""


class _Page:
    """One open page's stream: the panels changed since it last read."""

    def __init__(self) -> None:
        self.dirty: set[str] = set()
        self.wake = anyio.Event()

    def mark(self, panels: tuple[str, ...]) -> None:
        self.dirty.update(panels)
        self.wake.set()


class LiveHub:
    """Every open page's stream, fed by the host's listeners (all on the host's loop)."""

    def __init__(self, host: Host) -> None:
        self._pages: set[_Page] = set()
        self._closed = anyio.Event()
        self._unsubscribe: list[Callable[[], None]] = [
            host.on_change(lambda _: self.publish("plugins", "modules", "connect")),
            host.on_job_change(lambda _: self.publish("jobs")),
            host.approvals.on_request(lambda _: self.publish("approvals")),
            host.on_clock_moved(lambda _: self.publish("approvals")),  # a test clock's countdown
            host.audit.on_record(self._audited),
            host.game.on_change(self._game_changed),
            host.pi.on_peer_change(self._peer_changed),
        ]

    def _audited(self, entry: AuditEntry) -> None:
        self.publish("audit", *_BY_AUDIT_KIND.get(AuditKind(entry.kind), ()))

    async def _game_changed(self, _: object) -> None:
        self.publish("game")

    def _peer_changed(self, name: str, joined: bool, reason: str) -> None:
        self.publish("info", *(("game",) if name == GAME_NAME else ()))

    def publish(self, *panels: str) -> None:
        """Tell every open page that these panels changed."""
        for page in self._pages:
            page.mark(panels)

    @property
    def pages(self) -> int:
        return len(self._pages)

    @property
    def full(self) -> bool:
        """Whether `MAX_PAGES` pages are open: another is refused."""
        return len(self._pages) >= MAX_PAGES

    async def events(self, still_in: Callable[[], bool], ping: float) -> AsyncIterator[ServerSentEvent]:
        """One page's events: ``change`` with the panels to fetch again, until `close`, or until
        `still_in()` says its session ended (looked at on each change and at least every `ping` s)."""
        page = _Page()
        self._pages.add(page)
        try:
            while not self._closed.is_set() and still_in():
                with anyio.move_on_after(ping):
                    await page.wake.wait()
                page.wake = anyio.Event()
                if page.dirty and not self._closed.is_set() and still_in():
                    names = " ".join(name for name in PANELS if name in page.dirty)
                    page.dirty.clear()
                    yield ServerSentEvent(data=names, event="change")
        finally:
            self._pages.discard(page)

    def close(self) -> None:
        """End every page's stream (the host is going down), and stop listening to the host."""
        self._closed.set()
        for page in self._pages:
            page.wake.set()
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe.clear()
