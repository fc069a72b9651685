"""`xivmcp connect [APP]`: what each AI app needs to reach XIV MCP, and whether it is set up (A10);
`xivmcp token rotate`: a new MCP token (S5).

It prints the endpoint's URL, the Authorization header (the token from DATA_DIR/token) and each
app's configuration, says which app configuration files already name the endpoint, and tries an
MCP `initialize` with a short timeout to say whether the endpoint answers. Exit status 0 when it
answers with this token, 1 when it does not.

S5: the token goes over the network only to the host its data dir names (`DATA_DIR/runtime.json`:
a live process and its MCP URL). At any other URL (an --http or $XIVMCP_HTTP that names no host
of this data dir, a port some other program took) the check is made without it, and says so.
"""

from __future__ import annotations

import argparse
import json
import os
import urllib.error
import urllib.request
from pathlib import Path

from gates.contract import ENV_HTTP, read_runtime
from gates.datadir import owner_only_dir
from gates.mcp import (
    APPS,
    DEFAULT_HTTP_HOST,
    DEFAULT_HTTP_PORT,
    TOKEN_FILE,
    EndpointError,
    configured_in,
    mcp_url,
    parse_http_address,
    read_mcp_token,
    rotate_mcp_token,
)

from ._common import print_err

CHECK_SECONDS = 3.0
PLACEHOLDER = "TOKEN"

# B8: the token goes to the loopback endpoint directly, never through an HTTP proxy of the
# environment (HTTP_PROXY and friends would otherwise see the bearer token in the clear).
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "connect",
        parents=[common],
        help="how AI apps connect to XIV MCP, and whether it answers",
        epilog="Exit codes: 0 the endpoint answers with this token, 1 it does not.",
    )
    p.add_argument("app", nargs="?", choices=[*APPS, "all"], default="all", help="one app (default: all)")
    p.add_argument(
        "--http",
        metavar="HOST:PORT",
        default=None,
        help=f"the host's --http address (default: ${ENV_HTTP}, else the running host's, "
        f"else 127.0.0.1:{DEFAULT_HTTP_PORT})",
    )
    p.set_defaults(func=cmd_connect, finds_system=True)
    p = sub.add_parser("token", parents=[common], help="the MCP token AI apps send: `xivmcp token rotate`")
    p.add_argument("action", choices=["rotate"], help="rotate: make a new MCP token; the old one stops working at once")
    p.set_defaults(func=cmd_token_rotate)


def endpoint_url(http: str | None, data_dir: Path, *, named: bool = False) -> str:
    """The MCP URL to use: --http; the host of a data dir named on the command line; $XIVMCP_HTTP;
    the host of the default data dir; the default address."""
    if http:
        return mcp_url(*parse_http_address(http))
    running = read_runtime(data_dir)
    if named and running is not None and running.mcp:
        return running.mcp
    address = os.environ.get(ENV_HTTP)
    if address:
        return mcp_url(*parse_http_address(address))
    if running is not None and running.mcp:
        return running.mcp
    return mcp_url(DEFAULT_HTTP_HOST, DEFAULT_HTTP_PORT)


def token_destination(url: str, data_dir: Path) -> bool:
    """Whether `url` is the endpoint of the host `data_dir` names (its runtime file: a live process
    serving MCP there), the only listener the token may be sent to (S5)."""
    running = read_runtime(data_dir)
    return running is not None and running.mcp == url


def check_guarded(url: str, token: str | None, data_dir: Path, timeout: float = CHECK_SECONDS) -> tuple[bool, str]:
    """`check_endpoint`, with the token only if `url` is the data dir's host (S5: never to an
    unknown listener); elsewhere without it, and the message says the token was held back."""
    if token_destination(url, data_dir):
        return check_endpoint(url, token, timeout)
    answers, message = check_endpoint(url, None, timeout, data_dir=data_dir)
    return answers and token is None, message


def check_endpoint(
    url: str, token: str | None, timeout: float = CHECK_SECONDS, *, data_dir: Path | None = None
) -> tuple[bool, str]:
    """Try an MCP initialize; (answers with this token, what happened). `data_dir` given: the token
    was held back, for no host of that data dir runs at `url`."""
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "xivmcp-connect", "version": "1"},
        },
    }
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
    try:
        with _DIRECT.open(request, timeout=timeout) as response:
            reply = json.loads(response.read() or b"{}")
            session = response.headers.get("Mcp-Session-Id")
    except urllib.error.HTTPError as exc:
        if exc.code == 401 and data_dir is not None:
            return False, (
                f"{url} asks for a token, but no XIV MCP host of the data dir {data_dir} runs there "
                "(its runtime.json names none), so the token was not sent. Start XIV MCP with "
                f"`xivmcp up --data-dir {data_dir}`, or give the --data-dir of the host that runs there."
            )
        if exc.code == 401:
            return False, (
                f"{url} answers but refuses this token: is the host running with another --data-dir? "
                "Use the same --data-dir as `xivmcp up`."
            )
        return False, f"{url} answers with HTTP {exc.code}; is it XIV MCP?"
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        return False, f"Nothing answers at {url} ({reason}). Start XIV MCP with `xivmcp up` (same --data-dir)."
    if session:
        _end_session(url, token, session, timeout)
    if "error" in reply:
        return False, f"{url} answers with an error: {reply['error'].get('message')}; is it XIV MCP?"
    result = reply.get("result") or {}
    info = result.get("serverInfo") or {}
    name, version = info.get("name", "?"), info.get("version", "?")
    if name != "XivMcp":
        return False, f"{url} answers, but as {name!r}, not XIV MCP."
    return True, f"XIV MCP answers at {url} ({name} {version}, protocol {result.get('protocolVersion')})."


def _end_session(url: str, token: str | None, session: str, timeout: float) -> None:
    headers = {"Mcp-Session-Id": session, **({"Authorization": f"Bearer {token}"} if token else {})}
    try:
        _DIRECT.open(urllib.request.Request(url, headers=headers, method="DELETE"), timeout=timeout).close()
    except (urllib.error.URLError, OSError):
        pass


def cmd_connect(args: argparse.Namespace) -> int:
    try:
        url = endpoint_url(args.http, Path(args.data_dir), named=args.data_dir_named)
    except EndpointError as exc:
        print_err(str(exc))
        return 2
    try:
        token: str | None = read_mcp_token(Path(args.data_dir))
    except FileNotFoundError as exc:
        token = None
        print_err(f"{exc}\nThe snippets below say {PLACEHOLDER} where the token goes.")
    auth = f"Bearer {token or PLACEHOLDER}"
    print(f"URL: {url}")
    print(f"Header: Authorization: {auth}")
    for key, (title, snippet, paths) in APPS.items():
        if args.app not in ("all", key):
            continue
        found = configured_in(paths(), url)
        where = f" (already set up in {', '.join(map(str, found))})" if found else ""
        print(f"\n== {title}{where}\n{snippet(url, auth)}")
    answers, message = check_guarded(url, token, Path(args.data_dir))
    print(f"\n{message}")
    return 0 if answers else 1


def cmd_token_rotate(args: argparse.Namespace) -> int:
    """A new MCP token in the data dir. The running host checks the token file at each request,
    so the old token stops working at once, with no restart (which would end every app's session)."""
    data_dir = Path(args.data_dir)
    owner_only_dir(data_dir)
    rotate_mcp_token(data_dir)
    running = read_runtime(data_dir)
    now = (
        f"the running host (pid {running.pid}) takes it at its next request"
        if running is not None
        else "XIV MCP uses it from its next start"
    )
    print(
        f"A new MCP token is in {data_dir / TOKEN_FILE}; the old one no longer opens the endpoint ({now}).\n"
        "Give your AI apps the new one: `xivmcp connect` shows it, with each app's configuration."
    )
    return 0
