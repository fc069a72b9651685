"""The rooms of `gates/`, `broker/` and `game/` and the way their imports point.

    contract <- datadir <- player <- host <- mcp <- runner     contract <- plugin     broker knows none of them
    broker, contract <- game (the simulated game and its client: no host, no MCP, no sqlite)

Inside the host the rooms point down, in the order of `HOST_ROOMS`: base <- policy <- tools <- calls
<- jobs <- the services and composition root at the top of `gates.host`.

Each import check runs in a fresh interpreter, so what one test imported cannot hide another's
import. The cycle check walks every import statement (TYPE_CHECKING ones included) of both packages.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import types
from importlib import import_module
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("sqlite3", "mcp", "mcp_types", "uvicorn", "starlette")
PUBLIC = (
    "gates",
    "gates.contract",
    "gates.datadir",
    "gates.host",
    "gates.mcp",
    "gates.player",
    "gates.plugin",
    "gates.runner",
    "gates.testing",
    "game",
)
ROOMS = ("broker", "gates", "game")
"""The packages whose modules the cycle and size checks walk."""
HOST_ROOMS = ("base", "policy", "tools", "calls", "jobs")
"""The host's subpackages, bottom first: each imports only those before it, never the top of `gates.host`."""


def modules_after(statement: str) -> set[str]:
    code = f"import sys\n{statement}\nprint('\\n'.join(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    return set(done.stdout.split())


def of(modules: set[str], *tops: str) -> list[str]:
    return sorted(m for m in modules if m in tops or m.startswith(tuple(f"{t}." for t in tops)))


def test_importing_the_plugin_kit_loads_no_host_no_mcp_front_and_no_heavy_library() -> None:
    loaded = modules_after("import gates.plugin")
    assert of(loaded, "gates.host", "gates.mcp", "gates.runner", *HEAVY) == []


def test_importing_the_contract_loads_nothing_else_of_gates() -> None:
    loaded = modules_after("import gates.contract")
    assert [m for m in of(loaded, "gates") if m != "gates" and not m.startswith("gates.contract")] == []
    assert of(loaded, "broker", *HEAVY) == []


def test_importing_gates_itself_loads_nothing_else() -> None:
    assert of(modules_after("import gates"), "gates") == ["gates"]


def test_the_mcp_settings_load_without_the_mcp_server() -> None:
    """`xivmcp connect` reads the endpoint's settings without loading mcp, uvicorn or starlette."""
    loaded = modules_after("from gates.mcp import McpSettings, mcp_url, read_mcp_token")
    assert of(loaded, "mcp", "mcp_types", "uvicorn", "starlette") == []


def test_importing_the_host_loads_none_of_its_rooms_until_a_name_is_used() -> None:
    """`xivmcp up` takes the data dir's lock and starts its children before it loads the host."""
    assert of(modules_after("import gates.host"), "gates.host") == ["gates.host"]
    loaded = modules_after("from gates.host import HostConfig")
    assert of(loaded, "gates.host") == ["gates.host", "gates.host.base", "gates.host.base._config"]
    import gates.host

    assert sorted(name for names in gates.host._ROOMS.values() for name in names) == sorted(gates.host.__all__)


def test_the_data_dir_and_the_players_client_load_no_host_and_no_heavy_library() -> None:
    """The command line's lock and the player's commands come without the host, sqlite or MCP."""
    loaded = modules_after("import gates.datadir, gates.player")
    assert of(loaded, "gates.host", "gates.mcp", "gates.plugin", *HEAVY) == []
    assert of(modules_after("import gates.datadir"), "gates.player", "broker") == []


def test_the_hosts_rooms_import_only_the_rooms_below_them() -> None:
    host = ROOT / "gates" / "host"
    for rank, room in enumerate(HOST_ROOMS):
        allowed = {f"gates.host.{below}" for below in HOST_ROOMS[: rank + 1]}
        for path in (host / room).rglob("*.py"):
            for name in _imports(path):
                if name.startswith("gates.host"):
                    assert name.count(".") >= 2 and ".".join(name.split(".")[:3]) in allowed, f"{path} imports {name}"


def test_every_name_the_kit_loads_on_first_use_is_exported() -> None:
    import gates.testing

    assert set(gates.testing._ON_FIRST_USE) <= set(gates.testing.__all__)


def test_a_command_loads_only_its_own_module_of_the_command_line() -> None:
    """`xivmcp broker` (a child of `xivmcp up`) starts without the host, the game or MCP."""
    loaded = modules_after("from xivmcp.cli import build_parser; build_parser('broker')")
    assert of(loaded, "xivmcp") == ["xivmcp", "xivmcp._bus_cli", "xivmcp._common", "xivmcp.cli"]
    assert of(loaded, "gates.host", "gates.mcp", "game", *HEAVY) == []
    loaded = modules_after("from xivmcp.cli import build_parser; build_parser('up')")
    assert of(loaded, "gates.host._host", "gates.runner", "broker", *HEAVY) == []


def test_the_host_runs_without_loading_the_mcp_front() -> None:
    loaded = modules_after("import gates.host, gates.runner")
    assert of(loaded, "mcp", "mcp_types", "uvicorn", "starlette", "gates.mcp._http", "gates.mcp._server") == []


def test_only_the_host_and_the_mcp_front_use_sqlite_or_mcp() -> None:
    for room in ("gates/contract", "gates/plugin", "broker", "game"):
        for path in (ROOT / room).rglob("*.py"):
            imported = {name.split(".")[0] for name in _imports(path)}
            assert imported.isdisjoint({"sqlite3", "mcp", "uvicorn", "starlette"}), path


def test_importing_the_game_and_its_client_loads_no_host_no_mcp_front_and_no_heavy_library() -> None:
    """A plugin process imports `game` for `GameClient`: it must not pull in XIV MCP's host."""
    loaded = modules_after("import game")
    assert of(loaded, "gates.host", "gates.mcp", "gates.plugin", "gates.runner", "gates.testing", *HEAVY) == []


def test_the_game_imports_only_the_standard_library_msgspec_anyio_broker_and_the_contract() -> None:
    allowed_third_party = {"msgspec", "anyio", "broker"}
    for path in (ROOT / "game").rglob("*.py"):
        for name in _imports(path, _module_name(path)):
            top = name.split(".")[0]
            if top == "game" or top in sys.stdlib_module_names or top in allowed_third_party:
                continue
            assert name == "gates.contract" or name.startswith("gates.contract."), f"{path} imports {name}"


def test_the_contract_and_the_host_import_no_networking() -> None:
    """The host talks to other processes only through `broker`'s API; the contract through nothing."""
    for room, allowed in (("gates/contract", set()), ("gates/host", {"broker"})):
        for path in (ROOT / room).rglob("*.py"):
            imported = {name.split(".")[0] for name in _imports(path)}
            forbidden = {"zmq", "socket", "asyncio", "http", "mcp", "broker"} - allowed
            assert imported.isdisjoint(forbidden), f"{path} imports {sorted(imported & forbidden)}"


@pytest.mark.parametrize("name", PUBLIC)
def test_all_is_exactly_what_each_room_exports(name: str) -> None:
    module = import_module(name)
    exported = module.__all__
    assert len(exported) == len(set(exported)), f"{name}.__all__ names something twice"
    for key in exported:
        assert getattr(module, key) is not None  # gates.mcp imports its server's names on first use
    if hasattr(module, "__path__"):  # a package: everything public it holds is exported
        public = {
            key
            for key, value in vars(module).items()
            if not key.startswith("_") and not isinstance(value, types.ModuleType) and key != "annotations"
        }
        assert public <= set(exported)
    else:  # a module: every class and function it defines is exported or private
        defined = {
            key
            for key, value in vars(module).items()
            if not key.startswith("_") and getattr(value, "__module__", None) == name
        }
        assert defined <= set(exported)


def test_no_import_cycle_between_modules() -> None:
    files = [p for room in ROOMS for p in (ROOT / room).rglob("*.py")]
    names = {_module_name(p): p for p in files}
    graph: dict[str, set[str]] = {}
    for name, path in names.items():
        edges = {i for i in _imports(path, name) if i in names and i != name}
        if path.name == "__init__.py":  # a package re-exporting its own rooms is not a cycle
            edges = {e for e in edges if not e.startswith(name + ".")}
        graph[name] = {e for e in edges if not (names[e].name == "__init__.py" and name.startswith(e + "."))}
    cycle = _find_cycle(graph)
    assert cycle is None, " -> ".join(cycle or [])


def test_no_module_is_over_400_lines_without_saying_why_and_none_over_600() -> None:
    """Over 400 lines a module says in its docstring why it reads best whole ("Long because ...");
    none is over 600."""
    long = {}
    for room in ROOMS:
        for p in (ROOT / room).rglob("*.py"):
            text = p.read_text(encoding="utf-8")
            n = len(text.splitlines())
            if n > 600 or (n > 400 and "long because" not in (ast.get_docstring(ast.parse(text)) or "").lower()):
                long[str(p.relative_to(ROOT))] = n
    assert long == {}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, name: str | None = None) -> set[str]:
    """Every module an import statement of `path` names (relative ones resolved against `name`)."""
    name = name or _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found.add(module)
            found |= {f"{module}.{alias.name}" for alias in node.names}
    return found


def _find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state and (found := visit(nxt)) is not None:
                return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)) is not None:
            return found
    return None


def test_the_command_lines_table_names_the_module_of_every_command() -> None:
    """`xivmcp COMMAND` loads `_COMMANDS[COMMAND]` alone: it must be the module that adds COMMAND."""
    import argparse

    from xivmcp import cli

    common = argparse.ArgumentParser(add_help=False)
    added: dict[str, str] = {}
    for module in cli._MODULES:
        sub = argparse.ArgumentParser().add_subparsers()
        import_module(f"xivmcp.{module}").add_parsers(sub, common)
        added.update(dict.fromkeys(sub.choices, module))
    assert cli._COMMANDS == added
