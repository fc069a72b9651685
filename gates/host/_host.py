"""The XIV MCP host: the composition root that wires the host's services together, one per process.

    plugins ─► _gate_handlers ─► PluginRequests ─┐
    player  ─► PlayerDesk ─────► PlayerActions ──┼─► registry, policies, approvals, dependencies,
    assistant (MCP, `call`) ───► CallPath ───────┘   calls (PluginCalls), audit log, store

`Host` holds no logic of its own: it builds each service with what it needs, and offers the few
entry points the layers above use (`call_tool`, `on_change`, the services themselves). It does
not know how gates are bound to the bus (`_gate_handlers.py`), how the player reaches it
(`_desk.py`) nor how AI apps do (`gates.mcp`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import anyio.abc

from broker import PluginInterface
from gates.contract import JobInfo
from gates.datadir import owner_only_dir

from ._player_actions import PlayerActions
from ._plugin_requests import PluginRequests
from .base._audit import AuditLog
from .base._call_outcome import CallOutcome
from .base._clock import Clock, ManualClock, SystemClock
from .base._config import HostConfig
from .base._ids import process_tag
from .base._listeners import Listeners
from .base._tickets import ConsoleTickets
from .calls._call_end import CallEnd
from .calls._call_path import CallPath
from .calls._effect_watch import EffectWatch
from .calls._plugin_calls import PluginCalls
from .jobs._checks import JobChecks
from .jobs._runner import Jobs
from .jobs._store import JobStore
from .jobs._tools import JobTools
from .policy._approvals import PLUGIN_LEFT, Approval, Approvals
from .policy._dependencies import DependencyBook
from .policy._installed import InstalledPlugins
from .policy._modules import Modules
from .policy._policy import Policies
from .policy._registrations import Registrations
from .policy._registry import RegistryChange, ToolRegistry
from .policy._report import PluginReports
from .policy._state import HostState
from .policy._store import PolicyDatabase
from .tools._bag_tools import BagTools
from .tools._bell import AutomationStatus, Bell
from .tools._clickers import WindowTools
from .tools._core_definitions import CORE_DEFINITIONS, SIMULATOR_TOOLS
from .tools._core_tools import CoreTools, ProgressFn
from .tools._equip_tools import EquipTools
from .tools._game_tools import GameTools
from .tools._gear_duty_tools import GearAndDutyTools
from .tools._gil_tools import GilTools
from .tools._integrations import INTEGRATION_PLUGINS, IntegrationTools
from .tools._interaction import Interaction
from .tools._login_tools import LoginTools
from .tools._market_tools import MarketTools
from .tools._navigation import Navigation
from .tools._offer import OfferedTools
from .tools._reading_tools import reading_handlers
from .tools._retainer_tools import RetainerTools
from .tools._screen_tools import ScreenTools
from .tools._spending import Spending
from .tools._trade_tools import TradeTools

__all__ = ["MAX_AWAY", "Host"]

MAX_AWAY: Final = 4096
"""How many departed plugins the host remembers, to say Ready when one comes back (B3, B7)."""


class Host:
    """Everything the host keeps, wired together; `close()` stops running calls and closes the files.

    All of it belongs to the event loop the host was built on: the registry, the policies and
    their store, the modules, approvals, dependencies, calls, jobs, the listeners of every change
    and the audit log's writing are read and changed only by tasks on that loop (gate handlers,
    the player's desk, MCP requests, the job runner, the periodic deadline check), and every
    callback given to them runs there too. No service method awaits while it changes state, so
    each change is whole to every other task: that is how the registry is safe under many peers
    registering at once (A2), and why no service takes a lock.

    Threads that exist beside the loop, and all they may touch:

    * the audit log's syncer (``xivmcp-audit-fsync``): fsyncs the log's file, under the log's
      `_sync_lock`, which `close` and rotation take before they close the file;
    * the job store's writer, one `anyio.to_thread` call at a time: writes the batch it was
      handed to the jobs database, under the store's lock, which `load` and `close` take too;
    * the broker's liveness beacon (and, on a loop without `add_reader`, its socket watcher):
      its own socket only; what it hears reaches the loop through `call_soon_threadsafe`.

    Code on another thread reaches the host through its loop (`anyio.from_thread`), never directly.
    """

    def __init__(self, config: HostConfig, pi: PluginInterface, task_group: anyio.abc.TaskGroup) -> None:
        owner_only_dir(config.data_dir)  # B8: the decisions, the audit log and the secrets are the user's alone
        self.config = config
        self.pi = pi
        self.clock: Clock = ManualClock() if config.test_clock else SystemClock()
        limits = config.limits
        self.audit = AuditLog.in_dir(
            config.data_dir,
            max_bytes=limits.audit_max_bytes,
            keep=limits.audit_keep,
            clock=self.clock,  # a plugin's minute of audit lines is the host's (B7)
            lines_per_minute=limits.audit_lines_per_minute,
        )
        self._db = PolicyDatabase.in_dir(config.data_dir)
        self.policies = Policies(self._db)
        self.modules = Modules(self._db)  # every module of the real host (F1)
        self.registry = ToolRegistry(core=CORE_DEFINITIONS, yielding=SIMULATOR_TOOLS)
        tag = process_tag()  # B5: ids of this host process are never those of another
        self.approvals = Approvals(
            self.clock, audit=self.audit, tag=tag, max_pending_per_plugin=limits.max_pending_approvals
        )
        self.dependencies = DependencyBook()
        self.registrations = Registrations(self.registry, self.policies)
        self.reports = PluginReports(self.registry, self.policies, self.registrations, lambda: pi.peers)
        self._changes: Listeners[str | None] = Listeners("host change")
        self.console_tickets = ConsoleTickets(SystemClock())  # real time: a link's lifetime is no test's business
        self.installed = InstalledPlugins(self._db, lambda: pi.peers)
        # F3: a plugin's tools are listed with its display name, as the gate's refusals name it (F2).
        installed = self.installed
        self.offered = OfferedTools(
            self.registry,
            self.policies,
            self.modules,
            lambda: pi.peers,
            display_name=installed.display_name,
            names_version=lambda: installed.version,
        )
        self.calls = PluginCalls(
            pi,
            task_group,
            self.clock,
            on_finished=self._call_finished,
            tag=tag,
            effects=EffectWatch(pi),
            display_name=self.installed.display_name,
        )
        self.core_tools = CoreTools(
            pi=pi, registry=self.registry, offered=self.offered, reports=self.reports, call=self.call_tool
        )
        state = HostState(
            self.registry,
            self.policies,
            self.registrations,
            self.approvals,
            self.audit,
            self.changed,
            self.modules,
            self.installed,
        )
        self.call_path = CallPath(state, calls=self.calls, core=self.core_tools)
        self.plugin_requests = PluginRequests(
            state,
            dependencies=self.dependencies,
            calls=self.calls,
            auto_enable=config.auto_enable,
            limits=limits,
            output_schemas=config.simulator_extensions,
        )
        self._clock_moves: Listeners[float] = Listeners("clock moved")
        self.player = PlayerActions(
            state, clock=self.clock, expire_due=self.expire_due, clock_moved=self._clock_moves.emit
        )
        self._job_changes: Listeners[JobInfo] = Listeners("job change")
        self.job_store = JobStore.in_dir(config.data_dir)
        self.jobs = Jobs(
            store=self.job_store,
            checks=JobChecks(self.registry, self.policies),
            call_path=self.call_path,
            calls=self.calls,
            clock=self.clock,
            tag=tag,
            changed=self._job_changes.emit,
        )
        self.jobs.load()  # J11: what was running comes back paused
        self.core_tools.add_handlers(JobTools(self.jobs).handlers())
        game_tools = GameTools(pi)  # W5, W6, A8: the game tools, their windows and navigation share one GameAccess
        self.game = game_tools.game  # the console's Game tab reads the same game
        self.core_tools.add_handlers(game_tools.handlers())
        windows = WindowTools(game_tools.game)
        self.core_tools.add_handlers(windows.handlers())
        self.core_tools.add_handlers(Navigation(game_tools.game, self.jobs.sleep, self.clock.now).handlers())
        self.core_tools.add_handlers(reading_handlers(game_tools.game, self.installed))
        self.core_tools.add_handlers(ScreenTools(game_tools.game).handlers())  # take_screenshot (module screen)
        self.core_tools.add_handlers(GearAndDutyTools(game_tools.game, self.jobs.sleep).handlers())
        self.core_tools.add_handlers(LoginTools(game_tools.game, self.jobs.sleep).handlers())
        self.core_tools.add_handlers(IntegrationTools(pi).handlers())
        bell = Bell(pi)  # AutoRetainer held back while XIV MCP uses the summoning bell
        spending = Spending(game_tools.game, self.approvals, self.clock.now)  # the player's consent to spend
        self.core_tools.add_handlers(spending.handlers())
        self.core_tools.add_handlers(MarketTools(game_tools.game, bell, spending).handlers())
        self.core_tools.add_handlers(RetainerTools(game_tools.game, bell).handlers())
        self.core_tools.add_handlers(GilTools(game_tools.game, bell).handlers())
        self.core_tools.add_handlers(EquipTools(game_tools.game).handlers())
        self.core_tools.add_handlers(BagTools(game_tools.game).handlers())  # move_items sort_inventory
        self.core_tools.add_handlers(AutomationStatus(bell, windows.clickers).handlers())
        self.core_tools.add_handlers(TradeTools(game_tools.game, self.approvals).handlers())  # asks every trade
        self.core_tools.add_handlers(Interaction(game_tools.game, windows, bell).handlers())
        # A5, W7: an integration's tools are offered while its plugin is on the bus, so its coming and
        # going (or the host's own return to the bus, which may find it gone) changes the tools.
        pi.on_peer_change(self._integration_peer_changed)
        pi.on_connection_change(lambda connected: self.changed(None))
        self._away: dict[str, None] = {}
        """Plugins that left with tools registered, oldest first (at most `MAX_AWAY`)."""
        self.registry.on_change(self._registry_changed)

    def close(self) -> None:
        self.calls.disposing()
        self.job_store.close()
        self._db.close()
        self.audit.close()

    # --- what the layers above use -------------------------------------------------------

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None,
        *,
        on_progress: ProgressFn | None = None,
        on_approval: Callable[[Approval], None] | None = None,
    ) -> CallOutcome:
        """Run a tool as the assistant would: through the player's settings (see `CallPath`)."""
        return await self.call_path.call_tool(name, arguments, on_progress=on_progress, on_approval=on_approval)

    def on_change(self, callback: Callable[[str | None], None]) -> Callable[[], None]:
        """Call `callback(plugin)` whenever the tools that may run, or the plugin's card, can have
        changed: `plugin` is the one concerned, or None when it may be any."""
        return self._changes.add(callback)

    def on_job_change(self, callback: Callable[[JobInfo], None]) -> Callable[[], None]:
        """Call `callback(job)` whenever a job or one of its steps changes (the jobs resource)."""
        return self._job_changes.add(callback)

    def on_clock_moved(self, callback: Callable[[float], None]) -> Callable[[], None]:
        """Call `callback(now)` whenever the player moves a --test-clock host's clock (`advance-clock`):
        what counts down on it, an approval window's two minutes, is to be shown again."""
        return self._clock_moves.add(callback)

    def changed(self, plugin: str | None = None) -> None:
        self._changes.emit(plugin)

    def expire_due(self) -> None:
        """Enforce the deadlines that are due (approval windows, cancelled calls, P7)."""
        self.approvals.expire_due()
        self.calls.expire_due()
        self.audit.summarise_due()
        self.jobs.tick()

    # --- plugins coming and going ----------------------------------------------------------

    def plugin_left(self, name: str) -> None:
        """Tools are offered only while their process is connected; what it asked for goes with it."""
        self.calls.plugin_left(name)
        self.policies.clear_session(name)
        self.dependencies.forget(name)
        self.approvals.withdraw_of(name, PLUGIN_LEFT)
        if self.registry.tools_of(name):
            self.registry.unregister_all(name)
            self._away[name] = None
            while len(self._away) > MAX_AWAY:
                del self._away[next(iter(self._away))]

    def is_away(self, name: str) -> bool:
        """Whether `name` left with tools registered and has not been welcomed back yet."""
        return name in self._away

    def plugin_came_back(self, name: str) -> bool:
        """A process joined the bus: True if it had tools here when it left (B3: say Ready, so a
        raw plugin, which registers on Ready, registers again without code of its own)."""
        if name not in self._away:
            return False
        del self._away[name]
        return True

    def forget_disconnected(self) -> None:
        """After the bus came back: drop tools of plugins that are not connected (they re-register)."""
        connected = set(self.pi.peers)
        for name in self.reports.names():
            if name not in connected and self.registry.tools_of(name):
                self.plugin_left(name)

    # --- plumbing ------------------------------------------------------------------------

    def _integration_peer_changed(self, name: str, joined: bool, reason: str) -> None:
        if name in INTEGRATION_PLUGINS:
            self.changed(None)

    def _registry_changed(self, change: RegistryChange) -> None:
        self.changed(change.owner)

    def _call_finished(self, end: CallEnd) -> None:
        self.call_path.call_finished(end)
