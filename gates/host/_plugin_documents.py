"""The documents plugins send with RequestApproval and StartJob, read as the real host reads them (G9, G10).

The real host does not decode these two into types: it parses the JSON into nodes and picks the
fields it needs (`XivMcp/Api/PluginApi.cs`), so it refuses in its own words ("The request needs
'capability'.", "'steps' must be a non-empty array.", …) and lets through what a typed decoder
would refuse: a step that is not an object is skipped, `args` that is not an object becomes
`{}`, an `id`, `tool` or `note` that is not a string is taken as its JSON text. The contract's
typed decoders (`decode_approval_request`, `decode_job`) stay for code that builds these
documents; the host reads plugins' documents here, so its refusals are the real host's.

Invalid JSON is "Invalid JSON: …" as in the real host, with this parser's explanation after the
colon (the real host's is .NET's). A `capability`, `summary` or `name` that is there but not a
string gets the message of a missing one (the real host answers with .NET's conversion error).
"""

from __future__ import annotations

from typing import Any

import msgspec

from gates.contract import ApprovalRequest, InvalidDocumentError, Job, JobStep, encode_json

from .policy._approvals import SUMMARY_LIMIT, SUMMARY_NEEDED

__all__ = ["parse_approval_request", "parse_plugin_job"]

_decode = msgspec.json.Decoder().decode


def _parse(text: str | None) -> Any:
    try:
        return _decode(text or "")
    except msgspec.DecodeError as exc:
        raise InvalidDocumentError(f"Invalid JSON: {exc}") from None


def parse_approval_request(text: str | None) -> ApprovalRequest:
    """`RequestApproval`'s requestJson: `{"capability", "summary"}`, the summary cut at 200 characters."""
    request = _parse(text)
    if not isinstance(request, dict):
        raise InvalidDocumentError("The request must be a JSON object { capability, summary }.")
    capability = request.get("capability")
    if not isinstance(capability, str):
        raise InvalidDocumentError("The request needs 'capability'.")
    summary = request.get("summary")
    if not isinstance(summary, str) or not summary.strip():
        raise InvalidDocumentError(SUMMARY_NEEDED)
    return ApprovalRequest(capability=capability, summary=summary[:SUMMARY_LIMIT])


def parse_plugin_job(text: str | None) -> Job:
    """`StartJob`'s jobJson: `{"name", "steps": [{"id", "tool", "args", "note"}, …]}`."""
    document = _parse(text)
    if not isinstance(document, dict):
        raise InvalidDocumentError("The job must be a JSON object { name, steps }.")
    name = document.get("name")
    if not isinstance(name, str):
        raise InvalidDocumentError("The job needs a 'name'.")
    steps = document.get("steps")
    if not isinstance(steps, list) or not steps:
        raise InvalidDocumentError("'steps' must be a non-empty array.")
    return Job(name=name, steps=[_step(step) for step in steps if isinstance(step, dict)])


def _step(step: dict[str, Any]) -> JobStep:
    tool = _text(step.get("tool"))
    if tool is None:
        raise InvalidDocumentError("Each step needs 'tool'.")
    args = step.get("args")
    return JobStep(
        id=_text(step.get("id")) or "",
        tool=tool,
        args=args if isinstance(args, dict) else {},
        note=_text(step.get("note")),
    )


def _text(value: Any) -> str | None:
    """A field as the real host takes it (`node?.ToString()`): a string as it is, another value as its JSON."""
    if value is None:
        return None
    return value if isinstance(value, str) else encode_json(value)
