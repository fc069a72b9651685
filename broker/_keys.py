"""Who may join the bus (S4): CURVE key pairs, kept in owner-only files of a directory.

ZeroMQ's CURVE encrypts every connection and proves each side's key; a ZAP handler at the
broker (`_transport.RouterTransport`) admits a client only if its public key is in the allowed
list. The design, the simplest that keeps out whoever holds no secret:

    DIR/bus-server.key        the broker's pair            {"public": ..., "secret": ...}
    DIR/bus-client.key        this user's client pair, and the broker's public key
                              {"server": ..., "public": ..., "secret": ...}
    DIR/bus-clients/NAME.pub  one more allowed client public key per line-file (remote plugins)
    DIR/bus.json              where a broker with these keys listens {"bus": ..., "key": ..., "pid": ...}
    DIR/bus-names.jsonl       each InternalName bound to a key, one line a binding {"name":, "key":}

`DIR` is the 0700 data dir; every file is created owner-only (0600) and never rewritten. A
process of this user reads `bus-client.key` and joins with no extra step; another OS user cannot
read it, so its connection is refused before the broker reads a byte of it (it learns nothing,
not even a Welcome). A remote machine joins with a client pair of its own whose public key the
player put in `bus-clients/` (`add_client`); the broker reads that folder again when it meets a
key it does not know, so an added key works without a restart. No secret crosses the bus (B8):
CURVE sends only public keys, and proves the secrets by its handshake.

The ZAP handler gives each connection its client key as its User-Id, and the broker binds an
InternalName to the key that first took it (`_router_peers.Sessions`): another key is refused the
name, and the same key takes it back after a restart of its process (B4). The bindings outlive the
broker (`NameBindings`): a broker started again on the same data dir knows them, so a key cannot
take a name while the bus is down and come back as that plugin.
This user's processes share one key, so a name is bound to a machine's key, not to one plugin:
the boundary is the OS user (S4), as for the player key and the data dir. (The test harness gives
each plugin under test a key of its own, admitted by name, so there a name is one plugin's.)

The bus uses CURVE when `BrokerConfig.curve` is set: `xivmcp up` sets it unless told `--no-curve`.
A client on this machine uses its key for a bus that the data dir names as keyed: `bus.json`,
written by a broker process once it listens, or the host's `runtime.json` (`bus_key`); a bus the
data dir does not name is joined without a key, as a plain bus must be.

This module knows files and keys, not ZeroMQ (`_transport` makes the key pairs), and not the data
dir's other files.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from ._errors import IpcRefusedError
from ._transport import new_keypair

__all__ = [
    "BUS_FILE",
    "CLIENTS_DIR",
    "CLIENT_FILE",
    "SERVER_FILE",
    "CurveClient",
    "CurveServer",
    "note_bus",
    "noted_bus_key",
]

SERVER_FILE: Final = "bus-server.key"
CLIENT_FILE: Final = "bus-client.key"
CLIENTS_DIR: Final = "bus-clients"
BUS_FILE: Final = "bus.json"
NAMES_FILE: Final = "bus-names.jsonl"
_Z85_KEY: Final = re.compile(r"[0-9A-Za-z.\-:+=^!/*?&<>()\[\]{}@%$#]{40}")
"""A Z85-encoded 32-byte key: 40 characters of ZeroMQ's Z85 alphabet."""


@dataclass(frozen=True, slots=True)
class CurveClient:
    """What a client needs to join a CURVE bus: the broker's public key and its own pair (Z85)."""

    server: str
    public: str
    secret: str = ""

    def __repr__(self) -> str:  # the secret never reaches a log or a traceback
        return f"CurveClient(server={self.server!r}, public={self.public!r})"

    @classmethod
    def load(cls, directory: Path) -> CurveClient | None:
        """The client pair kept in `directory` (a data dir), or None if it holds none."""
        try:
            data = json.loads((directory / CLIENT_FILE).read_text(encoding="utf-8"))
            keys = cls(server=data["server"], public=data["public"], secret=data["secret"])
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise IpcRefusedError(
                f"The bus key file {directory / CLIENT_FILE} cannot be read ({exc}); "
                "remove it and restart `xivmcp up` to make a new one."
            ) from exc
        for key in (keys.server, keys.public, keys.secret):
            _check_key(key, directory / CLIENT_FILE)
        return keys

    @classmethod
    def new(cls, server: str) -> CurveClient:
        """A new client pair for the broker whose public key is `server`."""
        _check_key(server, Path("the server key"))
        public, secret = new_keypair()
        return cls(server=server, public=public, secret=secret)

    def save(self, directory: Path) -> None:
        """Write this pair as `directory`'s client key file, owner-only (it must not exist yet)."""
        _write_owner_only(
            directory / CLIENT_FILE, {"server": self.server, "public": self.public, "secret": self.secret}
        )


@dataclass(frozen=True, slots=True)
class CurveServer:
    """The broker's CURVE keys (Z85) and the client keys it admits.

    `allowed` are admitted from the start; `clients_dir`, if set, holds more (`*.pub` files),
    read again whenever an unknown key knocks."""

    public: str
    secret: str
    allowed: frozenset[str] = frozenset()
    clients_dir: Path | None = None
    names_file: Path | None = None
    """Where the broker keeps the InternalNames it bound to keys (`NameBindings`); None: in memory."""

    def __repr__(self) -> str:
        return f"CurveServer(public={self.public!r}, allowed={len(self.allowed)} keys)"

    def admits(self, key: str) -> bool:
        """Whether a client with public key `key` (Z85) may join."""
        if key in self.allowed:
            return True
        return self.clients_dir is not None and key in _admitted.read(self.clients_dir)

    @classmethod
    def in_dir(cls, directory: Path) -> CurveServer:
        """The broker's keys kept in `directory` (a 0700 data dir), made on first use: the
        broker's pair, this user's client pair (which it admits), and the folder of more."""
        server_file = directory / SERVER_FILE
        if not server_file.exists():
            public, secret = new_keypair()
            with contextlib.suppress(FileExistsError):  # another broker made it meanwhile
                _write_owner_only(server_file, {"public": public, "secret": secret})
        try:
            data = json.loads(server_file.read_text(encoding="utf-8"))
            public, secret = data["public"], data["secret"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise IpcRefusedError(
                f"The bus key file {server_file} cannot be read ({exc}); remove it to make a new one "
                "(every remote plugin will then need the new public key)."
            ) from exc
        _check_key(public, server_file)
        _check_key(secret, server_file)
        client = CurveClient.load(directory)
        if client is None or client.server != public:
            client_public, client_secret = new_keypair()
            client = CurveClient(server=public, public=client_public, secret=client_secret)
            with contextlib.suppress(FileNotFoundError):
                (directory / CLIENT_FILE).unlink()  # made for a server key that is gone
            client.save(directory)
        clients_dir = directory / CLIENTS_DIR
        clients_dir.mkdir(mode=0o700, exist_ok=True)
        return cls(
            public=public,
            secret=secret,
            allowed=frozenset({client.public}),
            clients_dir=clients_dir,
            names_file=directory / NAMES_FILE,
        )


class NameBindings:
    """The InternalNames a broker bound to CURVE keys, kept in an append-only owner-only file so
    that a broker started again knows them (S4). A line is written only for a new binding, which
    is rare (a plugin's first join); reading drops malformed lines, and rewrites the file with the
    newest bindings once it holds more than `compact_over` lines."""

    def __init__(self, path: Path, compact_over: int = 131072) -> None:
        self.path = path
        self._compact_over = compact_over

    def load(self) -> list[tuple[str, str]]:
        """The bindings, oldest first (a later line for a name is a binding made after the older
        one was forgotten, and wins)."""
        pairs: list[tuple[str, str]] = []
        try:
            with self.path.open(encoding="utf-8", errors="replace") as lines:
                for line in lines:
                    try:
                        data = json.loads(line)
                    except ValueError:
                        continue
                    name, key = (data.get("name"), data.get("key")) if isinstance(data, dict) else (None, None)
                    if isinstance(name, str) and isinstance(key, str) and _Z85_KEY.fullmatch(key):
                        pairs.append((name, key))
        except OSError:
            return pairs
        if len(pairs) > self._compact_over:
            pairs = pairs[-self._compact_over // 2 :]
            temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}")
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.writelines(json.dumps({"name": n, "key": k}) + "\n" for n, k in pairs)
            os.replace(temporary, self.path)
        return pairs

    def append(self, name: str, key: str) -> None:
        """Keep one new binding (a line, flushed; an error is logged by the caller's loop, not raised
        into the Hello that made it: the name is bound in memory either way)."""
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as out:
            out.write(json.dumps({"name": name, "key": key}) + "\n")


class _Admitted:
    """The keys of a clients folder, read again only when the folder changed (its mtime): a
    stranger knocking again and again costs a stat, not a read of every file."""

    def __init__(self) -> None:
        self._seen: dict[Path, tuple[int, frozenset[str]]] = {}

    def read(self, clients_dir: Path) -> frozenset[str]:
        try:
            stamp = clients_dir.stat().st_mtime_ns
        except OSError:
            return frozenset()
        seen = self._seen.get(clients_dir)
        if seen is None or seen[0] != stamp:
            seen = self._seen[clients_dir] = (stamp, read_clients(clients_dir))
        return seen[1]


_admitted: Final = _Admitted()


def read_clients(clients_dir: Path) -> frozenset[str]:
    """The public keys in `clients_dir`'s `*.pub` files (a malformed line is skipped)."""
    keys: set[str] = set()
    with contextlib.suppress(OSError):
        for path in clients_dir.glob("*.pub"):
            with contextlib.suppress(OSError, UnicodeDecodeError):
                keys.update(line.strip() for line in path.read_text(encoding="utf-8").splitlines())
    return frozenset(key for key in keys if _Z85_KEY.fullmatch(key))


def add_client(clients_dir: Path, name: str, public: str) -> Path:
    """Admit the client public key `public` under `name` (a file `name.pub`, owner-only)."""
    if not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", name):
        raise IpcRefusedError(f"{name!r} is not a key name: use 1-64 letters, digits, '_' or '-'.")
    _check_key(public, Path(f"{name}.pub"))
    clients_dir.mkdir(mode=0o700, exist_ok=True)
    path = clients_dir / f"{name}.pub"
    temporary = clients_dir / f".{name}.{os.getpid()}"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(public + "\n")
    os.replace(temporary, path)  # a rename: the folder's mtime changes, so the broker reads it again
    return path


def note_bus(directory: Path, endpoint: str, public: str) -> None:
    """Say in `directory` that the broker of this process listens on `endpoint` with the public key
    `public`, so this user's processes find the key to join it with before any host has written
    `runtime.json` (a broker started alone, or a plugin that starts before the host)."""
    temporary = directory / f".{BUS_FILE}.{os.getpid()}"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump({"bus": endpoint, "key": public, "pid": os.getpid()}, out)
    os.replace(temporary, directory / BUS_FILE)  # whole or not at all, for a reader at any moment


def noted_bus_key(directory: Path, endpoint: str) -> str | None:
    """The public key `directory`'s `bus.json` names for the broker on `endpoint`, or None (no
    note, a note of another endpoint, or one that cannot be read)."""
    try:
        data = json.loads((directory / BUS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("bus") != endpoint:
        return None
    key = data.get("key")
    return key if isinstance(key, str) and _Z85_KEY.fullmatch(key) else None


def _check_key(key: object, where: Path) -> None:
    if not isinstance(key, str) or not _Z85_KEY.fullmatch(key):
        raise IpcRefusedError(
            f"{where} holds something that is not a CURVE key (40 Z85 characters): "
            "copy the key again as `xivmcp keys show` or `xivmcp keys new` printed it."
        )


def _write_owner_only(path: Path, data: dict[str, str]) -> None:
    """Create `path` readable by its owner only, whole (a reader never sees half of it): a
    temporary file, then a hard link, which fails with FileExistsError if `path` exists."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(data, out)
        os.link(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
