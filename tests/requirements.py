"""The rules of docs/rules.md ("the checklist"), and which issue's tests must name each one.

Each id here is a heading of docs/rules.md (`docs/rules.md#g8`), which states the rule in full;
the summaries below are reminders, not the rule. tests/test_rules.py checks that the two hold
the same ids.

A test names a rule in its name (`test_g6_at_most_64_tools`, `test_a3_t1_deny_…`) or with a
comment `# SPEC: G8` (several: `# SPEC: G3, T6`). `tests/test_requirements.py` checks that
every rule of the issues done so far is named by some test, so a gap shows up as a failure.
"""

from __future__ import annotations

from typing import Final

RULES: Final[dict[str, str]] = {
    # Tools (seeds/000)
    "T1": "A tool that is not read-only declares capabilities; the player sets each to allow, ask or deny.",
    "T2": "An undeclared effect suspends the plugin (state suspended, with a reason); the audit log records it.",
    "T3": "Arguments reach the handler as sent; the handler checks them; a refused call changes nothing.",
    "T4": "A tool error reaches the assistant as its message; any other exception as 'TypeName: message'.",
    "T5": "A tool with no arguments may leave the input schema out.",
    "T6": "A plugin cannot use the host's own tool names.",
    "T7": "Registering a new tool later pauses the plugin until the player consents again.",
    # Gates (seeds/001)
    "G1": "Host gates XivMcp.<Gate>, a plugin's <InternalName>.XivMcp.<Gate>; ApiVersion answers 2.",
    "G2": 'Host gates reply {"ok": true, …} or {"ok": false, "error": "…"} and never raise into the caller.',
    "G3": "owner is the caller's InternalName; a peer cannot act as another owner.",
    "G4": "Tool definition rules: capabilities unless readOnly, not readOnly and destructive, known ids.",
    "G5": "States undecided, kept_disabled, enabled, awaiting_consent, suspended; GetStatus's shape.",
    "G6": "Dependencies: replace, clear, built-ins alone, plugin fields, https or official, at most 64.",
    "G7": "Invoke replies result, error or pending; CompleteCall / FailCall, also from inside Invoke.",
    "G8": "Cancel is optional; no time limit on pending calls; two minutes after a Cancel; approvals expire.",
    "G9": "RequestApproval -> {approvalId, state}; GetApproval -> pending, approved or denied.",
    "G10": "ReportProgress, StartJob, GetJob, ListJobs, PauseJob, ResumeJob, CancelJob.",
    "G11": "Ready is broadcast when the host is up and Disposing when it goes down.",
    # Long-running tools and jobs (seeds/002)
    "J1": "A quick tool returns at once; a long-running tool runs as long as its work takes.",
    "J2": "A job runs its steps one after another without the assistant.",
    "J3": "A direct call lives within the app's request time limit; when the app gives up it is cancelled.",
    "J4": "Pausing or cancelling a job cancels the running call; two minutes to stop; 'Cancelled.'.",
    "J5": "Progress lines go to the job log, cut at 300 characters, dropped for direct calls.",
    "J6": "A failed step makes the job pending until the assistant retries, skips or changes it.",
    "J7": "A resumed job runs the paused step again from the start with the same arguments.",
    "J8": "One acting step at a time; read-only tools and waiting steps neither blocked nor blocking.",
    "J9": "Placeholders in a step's args are filled from earlier steps' results.",
    "J10": "The assistant's job tools; job and step states; job-control tools cannot be steps.",
    "J11": "Jobs, steps, results and logs are durable: after a restart unfinished jobs are back paused.",
    "J12": "A step is checked against the player's settings when it starts; a plugin controls only its jobs.",
    # Architecture (seeds/003)
    "A1": "MCP Streamable HTTP, JSON responses, localhost only, bearer token, no foreign origins.",
    "A2": "The registry is safe under concurrency; a change becomes notifications/tools/list_changed.",
    "A3": "The gate decides each call: allow, ask (an approval the player answers) or deny.",
    "A4": "Snapshots before and after third-party calls give side effects; the audit log records every call.",
    "A5": "Providers carry trust: core, maintained (only while loaded), third-party (consent, …).",
    "A6": "The player is asked again only when a plugin's registration grows.",
    "A7": "Jobs run independently of any app connection.",
    "A8": "While the host drives game windows it pauses the plugins that would fight it.",
    "A9": "Each cache is an MCP resource; subscribers get notifications/resources/updated.",
    "A10": "Connect: what each AI app needs to connect, and whether it is set up.",
    "A11": "Maps: map and world coordinates, and route plans.",
    "A12": "Diagnostics: a self-test runner.",
    # Authoring from code (seeds/004)
    "P1": "A tool is a decorated function; the name defaults to snake_case of the function.",
    "P2": "A read-only marker; toolsets; list_toolsets, search_tools and call_tool.",
    "P3": "The docstring is the description, and its parameter docs the parameter descriptions.",
    "P4": "The schema comes from type hints; tolerant binding; unknown argument names fail loudly.",
    "P5": "A declared return type advertises an outputSchema; truncated lists return counts; paging.",
    "P6": "An exception becomes an error result written for the assistant.",
    "P7": "A call the framework loop does not pick up within 30 seconds is cancelled with a message.",
    # Life on the bus
    "B1": "Busy is not dead: a process whose loop is blocked for seconds keeps its name, gates and tools.",
    "B2": "Gone is noticed: a killed process within 3 s, a frozen one past the liveness window.",
    "B3": "Back is whole: a process that reconnects gets its gates, subscriptions and tools back.",
    "B4": "A restarted process gets the name of one that just died; two live ones are refused.",
    "B5": "Call and approval ids are unique across host processes; an id the host did not issue is refused.",
    "B6": "A caller that gives up frees its call at the broker; in-flight limits per caller and provider.",
    "B7": "Every table and log has a bound with a clear error or rotation.",
    "B8": "Secrets never travel: the player's key by challenge and response; owner-only files.",
    # The world (the simulated game, seeds/000 and 003)
    "W1": "The game is a peer with gates and a client; deterministic; a test clock; a world from a file.",
    "W2": "Every change is recorded with its process and capability; snapshots with the real host's fields.",
    "W3": "Effects as the real host judges them; gains never count; nothing is checked while logged out.",
    "W4": "An undeclared effect under two minutes suspends and clears session approvals; longer is flagged.",
    "W5": "The core game tools in modules with reading and changes modes, per-tool settings, refusals.",
    "W6": "navigate_to walks with the navigation plugin or flags and waits; wait_until_arrived times out.",
    "W7": "Install states from the plugins on the bus; a maintained integration only while loaded.",
    "W8": "While the host drives game windows, auto-accept plugins are paused and released after.",
    # The plugin author's kit
    "K1": "xivmcp check PLUGIN reports as text, JSON and JUnit what the real host would refuse or suspend.",
    "K2": "A pytest plugin: a private system, the player, the assistant, the game, the author's plugin.",
    "K3": "The player's decisions have a documented Python API, the same as the CLI's.",
    "K4": "The kit runs in-process for unit tests and across processes, with the same declarations.",
    # Fidelity: the real host (IndividualGather/xiv-mcp) is the reference (issue 19).
    "F1": "Every built-in tool of the real host is known: reserved with its message, accepted in jobs and deps.",
    "F2": "Installed plugins drive owner checks, display names in messages and the dependency states.",
    "F3": "The assistant sees what the real host shows; the simulator's extensions are off by default.",
    "F4": "The whole before/after difference is judged, whoever made each change; admin gates answer the player.",
    "F5": "Every known difference from the real host is in the fidelity ledger; each kept one has a test.",
    "F7": "The MCP endpoint answers HTTP as the real McpServer does; its resources are caches in the real shapes.",
    # A bus nobody can abuse (the trust boundary is this OS user; issue 20).
    "S1": "A plugin's private gates and the CLI's own gates answer only the host; ids are unguessable.",
    "S2": "No unbounded work for broker or host; queues bounded in bytes; a slow reader is cut off.",
    "S3": "Text from a plugin, the game or the bus is shown escaped; control characters refused.",
    "S4": "Only this OS user's processes join by default; remote ones with the player's keys; name bound to key.",
    "S5": "The endpoint and console bound connections and header time; the assistant's token never opens the console.",
    # The player's window and the docs (issues 22 and 23).
    "C1": "The console shows what the /xivmcp window shows, plus the game; live; acts by the typed protocol.",
    "C2": "The console opens by a single-use link proven by the key; POST, exact Origin, CSRF token.",
    "D1": "The reference is generated from the code and a test fails when it drifts; every doc example runs.",
}

ISSUES: Final[dict[int, tuple[str, ...]]] = {
    # 1: the bus (broker/). Its behaviour is the plugin framework's IPC, which has no rule id of
    # its own in docs/rules.md; tests/bus covers it.
    1: (),
    # 2: the XIV MCP host on the bus (gates/, xivmcp/, plugins_sample/).
    2: (
        *(f"T{n}" for n in range(1, 8)),
        *(f"G{n}" for n in range(1, 10)),
        "G11",
        "A2",
        "A3",
        "A5",
        "A6",
    ),
    # 3: the MCP endpoint (gates/mcp, the core tools, `xivmcp connect`): tests/mcp, and P7,
    # which PluginCalls enforces on the host's clock, in tests/host.
    3: ("A1", "A2", "A9", "A10", "A12", "P2", "P5", "P6", "P7"),
    # 4: gates/ in rooms by audience. No rule of its own; tests/test_layering.py checks the rooms.
    4: (),
    # 5: a plugin's life on the bus: tests/bus (broker side), tests/host (host side).
    5: tuple(f"B{n}" for n in range(1, 9)),
    # 6: the first hour (runtime file, status, names, the README's blocks). No rule of its own:
    # tests/host/test_first_hour.py and tests/test_readme.py.
    6: (),
    # 7: background jobs: tests/host/test_jobs.py (and the placeholders' property tests).
    7: ("G10", *(f"J{n}" for n in range(1, 13)), "A7"),
    # 8: the simulated game (game/, tests/game), side effects and the core game tools (tests/host).
    8: ("T2", "T3", "A4", "A5", "A8", "A11", *(f"W{n}" for n in range(1, 9))),
    # 9: the plugin author's kit: tests/plugin (authoring), tests/kit (the pytest plugin), tests/check.
    9: (*(f"P{n}" for n in range(1, 7)), *(f"K{n}" for n in range(1, 5))),
    # 18: rooms, second pass. No rule of its own: tests/test_layering.py pins the host's rooms.
    18: (),
    # 19: faithful verdicts: the real host's catalog, installed plugins, what the assistant sees, the
    # whole difference judged, the job and approval gates, the fidelity ledger (docs/fidelity.md).
    19: tuple(f"F{n}" for n in range(1, 6)),
    # 20: a bus nobody can abuse: private gates, bounded work, escaped text, keys, the endpoint.
    20: tuple(f"S{n}" for n in range(1, 6)),
    # 22: the player's web console: tests/console (in a real browser, over HTTP, and without processes).
    22: ("C1", "C2"),
    # 23: the docs: the generated reference pages and every page's blocks (tests/test_docs_*.py).
    23: ("D1",),
}
"""The rule ids each issue covers; every one must be named by some test."""
