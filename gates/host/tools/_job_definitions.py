"""The assistant's job tools (J10), as XIV MCP defines them: core tools of the module `jobs`.

start_job  list_jobs  get_job  update_job  pause_job  resume_job  cancel_job  wait
"""

from __future__ import annotations

from typing import Any, Final

from gates.contract import ToolDefinition

__all__ = ["JOB_DEFINITIONS", "LOG_LINES_DEFAULT", "LOG_LINES_MAX", "object_schema"]

LOG_LINES_DEFAULT: Final = 30
LOG_LINES_MAX: Final = 200


def object_schema(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    """A JSON schema of an object with these properties (the core tools' schemas are all objects)."""
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = list(required)
    return schema


_ID: Final = {"type": "string", "description": "The job's id (as start_job and list_jobs return it) or its name."}
_STEPS: Final = {
    "type": "array",
    "description": "The steps, run one after another: each {tool, args?, id?, note?}. An id names the step "
    "for later steps' placeholders such as {{farm.kills}}; without one it is s1, s2, ...",
    "items": object_schema(
        {
            "id": {"type": "string"},
            "tool": {"type": "string", "description": "Any tool but the job tools."},
            "args": {"type": "object"},
            "note": {"type": "string"},
        },
        ("tool",),
    ),
}

JOB_DEFINITIONS: Final[tuple[ToolDefinition, ...]] = (
    ToolDefinition(
        name="start_job",
        description="Starts a background job: its steps run one after another in XIV MCP, without you, for as "
        "long as they take. Returns the job's id; follow it with get_job. A failed step makes the job pending "
        "until update_job.",
        input_schema=object_schema(
            {"name": {"type": "string", "description": "What the job does."}, "steps": _STEPS}, ("name", "steps")
        ),
        destructive=True,
    ),
    ToolDefinition(
        name="list_jobs",
        description="The jobs: id, name, state, the step they are at, and why they wait.",
        input_schema=object_schema(
            {"include_finished": {"type": "boolean", "description": "Also completed and cancelled ones. Default true."}}
        ),
        read_only=True,
    ),
    ToolDefinition(
        name="get_job",
        description="One job: each step (tool, args, state, result, error, started, finished, attempts) and "
        "the last lines of its log.",
        input_schema=object_schema(
            {
                "id": _ID,
                "log_lines": {
                    "type": "integer",
                    "minimum": 0,
                    "maximum": LOG_LINES_MAX,
                    "description": f"How many log lines. Default {LOG_LINES_DEFAULT}, max {LOG_LINES_MAX}.",
                },
            },
            ("id",),
        ),
        read_only=True,
    ),
    ToolDefinition(
        name="update_job",
        description="Changes a job that is not running a step: retry or skip its failed step, append steps, or "
        "replace the steps not yet run. With resume true it goes on at once; else resume_job.",
        input_schema=object_schema(
            {
                "id": _ID,
                "action": {"type": "string", "enum": ["retry", "skip", "append", "replace_remaining"]},
                "steps": _STEPS,
                "resume": {"type": "boolean", "description": "Go on at once. Default false."},
            },
            ("id", "action"),
        ),
        destructive=True,
    ),
    ToolDefinition(
        name="pause_job",
        description="Pauses a job: its running step is cancelled (the plugin stops safely). resume_job runs "
        "that step again from the start.",
        input_schema=object_schema({"id": _ID}, ("id",)),
        destructive=True,
    ),
    ToolDefinition(
        name="resume_job",
        description="Resumes a paused job at the step it was paused in, from the start of that step.",
        input_schema=object_schema({"id": _ID}, ("id",)),
        destructive=True,
    ),
    ToolDefinition(
        name="cancel_job",
        description="Cancels a job: its running step is cancelled, the rest never runs.",
        input_schema=object_schema({"id": _ID}, ("id",)),
        destructive=True,
    ),
    ToolDefinition(
        name="wait",
        description="Waits 'seconds' (0 to 604800) or 'until' a time (ISO 8601 UTC). As a job step it blocks "
        "nothing else; called directly it lives within your request's time limit.",
        input_schema=object_schema(
            {"seconds": {"type": "number", "minimum": 0, "maximum": 604800}, "until": {"type": "string"}}
        ),
        read_only=True,
    ),
)
