"""`xivmcp console [--open]`: a one-time link to the player's web console, and opening it.

The link logs a browser in once (the host trades its ticket for a session cookie, then shows the
console at a clean address); it works for two minutes. Getting it proves the player key over the
bus, as every player command does, so only this user gets in; the MCP token never opens it.
"""

from __future__ import annotations

import argparse
import html
import urllib.parse
import webbrowser
from pathlib import Path

import msgspec

from gates.contract import read_runtime
from gates.datadir import write_secret
from gates.player import ConsoleTicket, OpenConsole

from ._common import print_err
from ._player_cli import send_command
from ._player_text import print_json


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "console", parents=[common], help="a one-time link to the player's web console (--open: open it)"
    )
    p.add_argument("--open", action="store_true", help="open the link in the web browser too")
    p.add_argument("--json", action="store_true", help="print the link and its lifetime as JSON")
    p.set_defaults(func=cmd_console, finds_system=True)


def console_link(mcp_url: str, ticket: str) -> str:
    """The login link on this machine's loopback address, at the MCP endpoint's port
    (`http://0.0.0.0:8765/mcp` → `http://127.0.0.1:8765/console/login?ticket=…`): the console answers
    only there, whatever address the endpoint binds."""
    port = urllib.parse.urlsplit(mcp_url).port
    return f"http://127.0.0.1:{port}/console/login?ticket={ticket}"


OPENER_FILE = "console-open.html"
"""In the data dir: the page `--open` gives the browser, which goes on to the link."""


def _opener(data_dir: Path, link: str) -> Path:
    """An owner-only page that sends the browser on to `link`. The browser is started with this
    file's path, not the link: a program's arguments are visible to every user of the machine
    (`ps`, /proc), and the ticket in the link is good for one login (as Jupyter opens its own)."""
    path = data_dir / OPENER_FILE
    quoted = html.escape(link, quote=True)
    write_secret(
        path,
        f'<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0;url={quoted}">'
        f'<title>XIV MCP console</title><p><a href="{quoted}">Open the XIV MCP console</a></p>\n',
    )
    return path


def cmd_console(args: argparse.Namespace) -> int:
    running = read_runtime(Path(args.data_dir))
    if running is None or not running.mcp:
        print_err(
            "XIV MCP serves no web console here: start it with `xivmcp up` (the console is served beside "
            "the MCP endpoint, so not with --no-mcp)."
        )
        return 2
    mcp = running.mcp
    opened: list[bool] = []

    def show(reply: msgspec.Struct, _: dict[str, str], as_json: bool) -> None:
        assert isinstance(reply, ConsoleTicket)
        link = console_link(mcp, reply.ticket)
        if as_json:
            print_json({"url": link, "seconds": reply.seconds})
        else:
            print(link)
            print(f"(works once, for {reply.seconds:.0f} s; `xivmcp console` gives a new one)")
        if args.open:
            opened.append(webbrowser.open(_opener(Path(args.data_dir), link).as_uri()))

    code = send_command(args, build=lambda _: OpenConsole(), show=show)
    if code == 0 and args.open and not any(opened):
        print_err("No web browser could be opened here: open the link above in yours.")
    return code


__all__ = ["add_parsers", "cmd_console", "console_link"]
