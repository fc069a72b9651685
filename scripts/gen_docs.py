"""Write the docs site's generated reference pages from the code, so that they cannot drift.

    python scripts/gen_docs.py           write docs/reference/{cli,gates,capabilities,builtin-tools}.md
    python scripts/gen_docs.py --check   write nothing; exit 1 and name each page that differs

The command line comes from its argparse parsers (`xivmcp.cli.build_parser`), the gates from
`gates.contract` (`GATE_SIGNATURES` and `GATE_BOOK`), the capabilities from its catalog, the
built-in tools from the real host's catalog (`REAL_HOST`) and the tools the simulated game
performs (`gates.host`). The pages are committed; tests/test_docs_generated.py renders them in
memory and fails when one differs from its file. Rendering is pure: the same code gives the same
bytes on every machine (the platform's data dir, the one value that differs, is named, not shown).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Final

if __package__ in (None, ""):  # run as a script: the project's root is importable, as under pytest
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gates.contract import (
    BUILTIN_TOOL_NAMES,
    CAPABILITIES,
    REAL_HOST,
    Mode,
    Risk,
    default_data_dir,
    is_mode_allowed,
)
from gates.host.tools._core_definitions import CORE_DEFINITIONS
from scripts import _gate_pages
from scripts._markdown import cell, generated_header, table
from xivmcp.cli import build_parser

ROOT: Final = Path(__file__).resolve().parent.parent
COMMAND: Final = "python scripts/gen_docs.py"
DATA_DIR_SHOWN: Final = "the platform's user data dir (~/.local/share/xivmcp on Linux)"


# --------------------------------------------------------------------------- the command line


def _subparsers(parser: argparse.ArgumentParser) -> Iterator[tuple[str, str, argparse.ArgumentParser]]:
    """Each sub-command: its name, its one-line help and its parser, in the order --help lists them."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            for name, sub in action.choices.items():
                yield name, helps.get(name, ""), sub


def _commands(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ("xivmcp",), exits: str = ""
) -> Iterator[tuple[tuple[str, ...], str, argparse.ArgumentParser, str]]:
    """Every command and sub-command, depth first: its words, help, parser and exit codes (its
    parser's epilog, else the nearest parent's)."""
    here = parser.epilog if parser.epilog and parser.epilog.startswith("Exit codes:") else exits
    for name, help_text, sub in _subparsers(parser):
        words = (*path, name)
        own = sub.epilog if sub.epilog and sub.epilog.startswith("Exit codes:") else here
        yield words, help_text, sub, own
        yield from _commands(sub, words, own)


def _shown(text: str | None, action: argparse.Action | None = None) -> str:
    if not text or text == argparse.SUPPRESS:
        return ""
    if action is not None and "%(" in text:
        text = text % {**vars(action), "prog": "xivmcp"}
    return text.replace(str(default_data_dir()), DATA_DIR_SHOWN)


def _default(action: argparse.Action) -> str:
    if action.nargs == 0:  # a flag: on when given
        return "off"
    if action.default is None or action.default == argparse.SUPPRESS:
        return ""
    return f"`{action.default}`"


def _argument(action: argparse.Action) -> str:
    metavar = action.metavar if isinstance(action.metavar, str) else None
    if action.choices is not None and not isinstance(action, argparse._SubParsersAction):
        return "one of " + ", ".join(f"`{c}`" for c in action.choices)
    if action.nargs == 0:
        return ""
    if not action.option_strings:  # a positional: its name says it
        return {"?": "optional", "*": "any number", "+": "one or more"}.get(str(action.nargs), "")
    name = metavar or action.dest.upper()
    repeat = {"?": f"[{name}]", "*": f"[{name} ...]", "+": f"{name} [...]"}
    return f"`{repeat.get(str(action.nargs), name)}`"


def _usage(parser: argparse.ArgumentParser, prog: str) -> str:
    """argparse's usage line, on one line whatever the terminal's width."""
    formatter = argparse.HelpFormatter(prog, width=10_000)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups)
    return formatter.format_help().strip()


def _arguments_table(actions: list[argparse.Action]) -> list[str]:
    rows = []
    for action in actions:
        if isinstance(action, argparse._HelpAction | argparse._SubParsersAction):
            continue
        name = ", ".join(f"`{o}`" for o in action.option_strings) or f"`{action.metavar or action.dest}`"
        rows.append([name, _argument(action), _default(action), cell(_shown(action.help, action))])
    return table(["argument", "value", "default", "what it does"], rows) if rows else []


def render_cli(parser: argparse.ArgumentParser | None = None) -> str:
    parser = parser or build_parser()
    commands = list(_commands(parser))
    top = [c for c in commands if len(c[0]) == 2]
    # The options every command takes (`parents=[common]`): the same action objects in most commands.
    seen: dict[int, int] = {}
    for _, _, sub, _ in top:
        for action in sub._actions:
            seen[id(action)] = seen.get(id(action), 0) + 1
    common_ids = {key for key, count in seen.items() if count > len(top) // 2}
    common = [a for a in top[0][2]._actions if id(a) in common_ids]
    lines = [
        generated_header(COMMAND, "the argparse parsers of `xivmcp.cli.build_parser`"),
        "# Command line",
        "",
        cell(_shown(parser.description)),
        "",
        f"Exit codes, unless a command says otherwise: {_shown(parser.epilog).removeprefix('Exit codes: ')}",
        "",
        "## Commands",
        "",
        *table(
            ["command", "what it does"],
            [[f"[`{' '.join(w)}`](#{'-'.join(w)})", cell(_shown(h))] for w, h, _, _ in commands],
        ),
        "",
        "## Options every command takes",
        "",
        "All but `xivmcp check` take these; each command's table lists its own options only.",
        "",
        *_arguments_table(common),
        "",
    ]
    for words, help_text, sub, exits in commands:
        lines += [f"## {' '.join(words)} {{#{'-'.join(words)}}}", "", cell(_shown(help_text)) + "", ""]
        if sub.description:
            lines += [cell(_shown(sub.description)), ""]
        lines += ["```text", _usage(sub, " ".join(words)), "```", ""]
        own = [a for a in sub._actions if id(a) not in common_ids]
        subs = [a for a in sub._actions if isinstance(a, argparse._SubParsersAction)]
        lines += _arguments_table(own) or ["No arguments of its own."]
        lines.append("")
        if subs:
            names = ", ".join(f"[`{n}`](#{'-'.join((*words, n))})" for n in subs[0].choices)
            lines += [f"Sub-commands: {names}.", ""]
        if any(id(a) in common_ids for a in sub._actions):
            lines += ["Takes the [options every command takes](#options-every-command-takes).", ""]
        lines += [f"Exit codes: {_shown(exits).removeprefix('Exit codes: ')}", ""]
    return "\n".join(lines)


# --------------------------------------------------------------------------- capabilities


def render_capabilities() -> str:
    rows = [
        [
            f"`{c.id.value}`",
            c.risk.value,
            cell(c.title),
            cell(c.description),
            c.default.value,
            ", ".join(m.value for m in Mode if is_mode_allowed(c.risk, m)),
        ]
        for c in CAPABILITIES
    ]
    return "\n".join(
        [
            generated_header(COMMAND, "the capability catalog, `gates.contract.CAPABILITIES`"),
            "# Capabilities",
            "",
            "What a tool may do, declared in its definition's `capabilities`. The player sets each one's mode "
            "per plugin: `allow` runs it, `ask` asks during the call, `deny` refuses it. Before the player "
            "chooses, only low-risk capabilities run without asking; a critical one is never always allowed.",
            "",
            f"Risks, lowest first: {', '.join(f'`{r.value}`' for r in Risk)}.",
            "",
            *table(["id", "risk", "title", "what the player reads", "default", "modes the player may set"], rows),
            "",
        ]
    )


# --------------------------------------------------------------------------- built-in tools


def simulated_builtins() -> frozenset[str]:
    """The real host's tools the simulated game performs (as `xivmcp tools --builtin` counts them)."""
    return frozenset({d.name for d in CORE_DEFINITIONS} & BUILTIN_TOOL_NAMES)


def builtin_count_line(simulated: frozenset[str]) -> str:
    """The line `xivmcp tools --builtin` ends with (and the README quotes)."""
    core = {m.id for m in REAL_HOST.modules if m.plugin is None}
    in_core = sum(t.module in core for t in REAL_HOST.tools)
    driven = len(REAL_HOST.modules) - len(core)
    return (
        f"simulated here: {len(simulated)} of {len(REAL_HOST.tools)} built-in tools ({in_core} core in "
        f"{len(core)} modules, {len(REAL_HOST.tools) - in_core} in {driven} integrations)"
    )


def render_builtin_tools(simulated: frozenset[str] | None = None) -> str:
    simulated = simulated_builtins() if simulated is None else simulated
    lines = [
        generated_header(COMMAND, "the real host's catalog (`gates/contract/real_host_catalog.json`) and `gates.host`"),
        "# Built-in tools",
        "",
        "XIV MCP's own tools, by module as `/xivmcp → Modules` shows them. Every name is the real host's and "
        "reserved: a plugin cannot register one. The simulated game performs some of them; a call of any other "
        "fails saying it is not simulated, and its settings are kept and judged as the real host judges them. "
        "`xivmcp tools --builtin` lists the same against a running host.",
        "",
        f"**{builtin_count_line(simulated)}**",
        "",
        "## Modules",
        "",
    ]
    module_rows = []
    for m in REAL_HOST.modules:
        tools = [t for t in REAL_HOST.tools if t.module == m.id]
        done = sum(t.name in simulated for t in tools)
        module_rows.append(
            [
                f"[`{m.id}`](#{m.id.lower()})",
                cell(m.title),
                f"`{m.plugin}`" if m.plugin else "core",
                m.reading.value if m.reading else "",
                m.changes.value if m.changes else "",
                f"{done} of {len(tools)}",
            ]
        )
    lines += [*table(["module", "title", "integration of", "reading", "changes", "simulated"], module_rows), ""]
    for m in REAL_HOST.modules:
        tools = sorted((t for t in REAL_HOST.tools if t.module == m.id), key=lambda t: (not t.read_only, t.name))
        driven = f" Offered while `{m.plugin}` is loaded." if m.plugin else ""
        lines += [f"## {m.id} {{#{m.id.lower()}}}", "", f"**{cell(m.title)}.** {cell(m.description)}{driven}", ""]
        rows = []
        for t in tools:
            flags = (("not in a plugin's job", t.not_for_plugins), ("dev builds only", t.dev_only))
            notes = [note for note, on in flags if on]
            access = "reading" if t.read_only else "changes, destructive" if t.destructive else "changes"
            rows.append(
                [f"`{t.name}`", access, "yes" if t.name in simulated else "no", cell(t.summary), "; ".join(notes)]
            )
        lines += [*table(["tool", "access", "simulated", "what it does", "notes"], rows), ""]
    return "\n".join(lines)


# --------------------------------------------------------------------------- writing and checking


PAGES: Final[dict[str, Callable[[], str]]] = {
    "docs/reference/cli.md": lambda: render_cli(),
    "docs/reference/gates.md": lambda: _gate_pages.render_gates(COMMAND),
    "docs/reference/capabilities.md": render_capabilities,
    "docs/reference/builtin-tools.md": lambda: render_builtin_tools(),
}
"""Each generated page, by its path from the project's root, and what renders it."""


def stale_pages(root: Path = ROOT) -> list[str]:
    """The generated pages whose file is missing or differs from what the code renders now."""
    stale = []
    for path, render in PAGES.items():
        file = root / path
        if not file.exists() or file.read_text(encoding="utf-8") != render():
            stale.append(path)
    return stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description="Write the docs site's generated reference pages.")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a page differs")
    args = parser.parse_args(argv)
    if args.check:
        stale = stale_pages()
        for path in stale:
            print(f"{path} differs from the code; run `{COMMAND}`", file=sys.stderr)
        return 1 if stale else 0
    for path, render in PAGES.items():
        file = ROOT / path
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(render(), encoding="utf-8", newline="\n")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
