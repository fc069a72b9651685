"""`xivmcp keys …`: the bus's CURVE keys (S4), and how a plugin on another machine joins.

No secret travels: the other machine makes its own pair, and only public keys are copied.

    player's machine:   xivmcp keys show                     the bus's public key
    other machine:      xivmcp keys new -- SERVER_KEY        a client pair there; prints its public key
    player's machine:   xivmcp keys allow NAME -- CLIENT_KEY the bus admits it from now on

A Z85 key may begin with '-': the `--` keeps it from being read as an option.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from broker import CurveClient, CurveServer, IpcRefusedError, add_client
from gates.datadir import owner_only_dir

from ._common import print_err

CLIENTS_DIR = "bus-clients"


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser) -> None:
    keys = sub.add_parser("keys", help="the bus's CURVE keys: who may join it (S4)")
    ksub = keys.add_subparsers(dest="keys_cmd", required=True)
    k = ksub.add_parser("show", parents=[common], help="the bus's public key, and how another machine joins")
    k.set_defaults(func=cmd_keys_show)
    k = ksub.add_parser("new", parents=[common], help="on another machine: a client pair for the bus of SERVER_KEY")
    k.add_argument("server_key", help="the bus's public key, as `xivmcp keys show` prints it")
    k.set_defaults(func=cmd_keys_new)
    k = ksub.add_parser("allow", parents=[common], help="admit another machine's client key to this bus")
    k.add_argument("name", help="a name for that machine, such as 'laptop'")
    k.add_argument("client_key", help="its public key, as `xivmcp keys new` printed it there")
    k.set_defaults(func=cmd_keys_allow)


def join_instructions(server_key: str) -> str:
    """How a plugin on another machine joins the bus whose public key is `server_key`."""
    return (
        f"To let a plugin on another machine join: there, run `xivmcp keys new -- {server_key}`; "
        "then here, `xivmcp keys allow NAME -- KEY` with the key it printed."
    )


def cmd_keys_show(args: argparse.Namespace) -> int:
    data_dir = Path(args.data_dir)
    owner_only_dir(data_dir)
    try:
        server = CurveServer.in_dir(data_dir)
    except IpcRefusedError as exc:
        print_err(str(exc))
        return 2
    print(f"bus public key: {server.public}")
    print(join_instructions(server.public))
    return 0


def cmd_keys_new(args: argparse.Namespace) -> int:
    data_dir = Path(args.data_dir)
    owner_only_dir(data_dir)
    try:
        client = CurveClient.new(args.server_key)
        client.save(data_dir)
    except FileExistsError:
        print_err(f"{data_dir} already holds a bus client key; use another --data-dir for another bus.")
        return 1
    except IpcRefusedError as exc:
        print_err(str(exc))
        return 2
    print(f"client public key: {client.public}")
    print(f"On the player's machine, run: xivmcp keys allow NAME -- {client.public}")
    return 0


def cmd_keys_allow(args: argparse.Namespace) -> int:
    data_dir = Path(args.data_dir)
    owner_only_dir(data_dir)
    try:
        path = add_client(data_dir / CLIENTS_DIR, args.name, args.client_key)
    except IpcRefusedError as exc:
        print_err(str(exc))
        return 2
    print(f"admitted {args.name}: {path} (the bus reads it at the key's next knock)")
    return 0
