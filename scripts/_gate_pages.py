"""docs/reference/gates.md: every gate of the contract, from `gates.contract` (scripts/gen_docs.py).

Each gate's signature is `GATE_SIGNATURES` (and the messages' and plugin gates'), what it means is
`GATE_BOOK`; the documents it is sent and answers are the msgspec Structs themselves, shown by their
wire names and JSON types, and every Struct they hold is shown once at the end.
"""

from __future__ import annotations

import enum
import types
import typing
from collections.abc import Mapping
from typing import Any, Final

import msgspec

from gates.contract import (
    GATE_BOOK,
    GATE_SIGNATURES,
    HOST_NAME,
    MAX_ERROR_TEXT,
    MESSAGE_SIGNATURES,
    PLUGIN_GATE_SIGNATURES,
    GatePage,
    GateSignature,
    InvokeError,
    InvokePending,
    InvokeResult,
)
from scripts._markdown import cell, generated_header, table

_JSON: Final[Mapping[object, str]] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    type(None): "null",
    Any: "any JSON",
}


def _anchor(name: str) -> str:
    return name.lower().replace(".", "").replace("<", "").replace(">", "")


def json_type(tp: object, found: set[type[msgspec.Struct]]) -> str:
    """A Python annotation as the JSON it carries; the Structs met are added to `found`."""
    if tp in _JSON:
        return _JSON[tp]
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (types.UnionType, typing.Union):
        return " or ".join(json_type(a, found) for a in args)
    if origin in (list, tuple, set, frozenset):
        return f"array of {json_type(args[0], found)}" if args else "array"
    if origin is dict or tp is dict:
        return f"object of {json_type(args[1], found)}" if args and args[1] is not Any else "object"
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return "string: " + " \\| ".join(f"`{m.value}`" for m in tp)
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
        found.add(tp)
        return f"[{tp.__name__}](#{tp.__name__.lower()})"
    return cell(str(tp))


def fields_table(struct: type[msgspec.Struct], found: set[type[msgspec.Struct]]) -> list[str]:
    rows = []
    for f in msgspec.structs.fields(struct):
        optional = f.default is not msgspec.NODEFAULT or f.default_factory is not msgspec.NODEFAULT
        rows.append([f"`{f.encode_name}`", json_type(f.type, found), "" if optional else "yes"])
    return table(["field", "JSON type", "required"], rows)


def _signature(name: str, signature: GateSignature) -> str:
    params = ", ".join(f"{n}: {_JSON[t]}" for n, t in zip(signature.names, signature.params, strict=True))
    returns = "" if signature.returns is type(None) else f" -> {_JSON[signature.returns]}"
    return f"`{name}({params}){returns}`"


def _reply(page: GatePage, plugin_gate: bool, found: set[type[msgspec.Struct]]) -> str:
    if plugin_gate:
        if page.reply is None:
            return "nothing (an action)"
        kinds = (InvokeResult, InvokeError, InvokePending)
        return "one of " + ", ".join(json_type(k, found) for k in kinds) + ", as a JSON string"
    if page.reply is None:
        return '`{"ok": true}`'
    if isinstance(page.reply, type) and issubclass(page.reply, msgspec.Struct):
        return f'`{{"ok": true, ...}}` with the fields of {json_type(page.reply, found)}'
    return f"a plain {_JSON[page.reply]}, not a reply document"


def _gate_section(name: str, page: GatePage, signature: GateSignature, found: set[type[msgspec.Struct]]) -> list[str]:
    plugin_gate = name in PLUGIN_GATE_SIGNATURES
    shown = f"<InternalName>.{HOST_NAME}.{name}" if plugin_gate else name
    lines = [f"### {cell(shown)} {{#{_anchor(shown)}}}", "", cell(page.summary), ""]
    lines += [f"- Signature: {_signature(shown, signature)}"]
    for param, document in page.sends.items():
        lines.append(f"- `{param}`: a JSON {json_type(document, found)}")
    if signature.returns is not type(None):
        lines.append(f"- Reply: {_reply(page, plugin_gate, found)}")
    if page.refusals:
        lines.append('- Refused (`{"ok": false, "error": ...}`) when:')
        lines += [f"    - {cell(r)}" for r in page.refusals]
    return [*lines, ""]


def render_gates(command: str) -> str:
    found: set[type[msgspec.Struct]] = set()
    groups = (
        ("Host gates", "Provided by XIV MCP; called by plugins.", GATE_SIGNATURES),
        ("Messages", "Sent by XIV MCP to every subscriber; nothing is answered.", MESSAGE_SIGNATURES),
        (
            "Plugin gates",
            f"Provided by each plugin, named `<InternalName>.{HOST_NAME}.<Gate>`; called by XIV MCP.",
            PLUGIN_GATE_SIGNATURES,
        ),
    )
    lines = [
        generated_header(command, "`gates.contract` (`GATE_SIGNATURES`, `GATE_BOOK` and the documents)"),
        "# Gates",
        "",
        "The plugin contract, API version 2: every gate's name, signature, reply and refusals. Every parameter "
        "is a string (a JSON document where the name ends in `Json`); a host gate answers a JSON string, "
        '`{"ok": true, ...}` or `{"ok": false, "error": "..."}`, and never raises into the caller. An error '
        f"text is at most {MAX_ERROR_TEXT:,} characters.",
        "",
    ]
    for title, intro, signatures in groups:
        rows = []
        for name in signatures:
            shown = f"<InternalName>.{HOST_NAME}.{name}" if name in PLUGIN_GATE_SIGNATURES else name
            rows.append([f"[`{shown}`](#{_anchor(shown)})", cell(GATE_BOOK[name].summary)])
        lines += [f"## {title}", "", intro, "", *table(["gate", "what it does"], rows), ""]
        for name, signature in signatures.items():
            lines += _gate_section(name, GATE_BOOK[name], signature, found)
    lines += ["## Documents", "", "The JSON documents the gates carry, by their msgspec Struct in `gates.contract`."]
    lines.append("")
    done: set[type[msgspec.Struct]] = set()
    while pending := sorted(found - done, key=lambda s: s.__name__):
        for struct in pending:
            done.add(struct)
            doc = cell((struct.__doc__ or "").strip().split("\n\n")[0]) if struct.__doc__ else ""
            lines += [f"### {struct.__name__}", "", *([doc, ""] if doc else []), *fields_table(struct, found), ""]
    return "\n".join(lines)
