"""`xivmcp check PLUGIN` (K1): a plugin run against a private system, and what the real host would refuse, pause
or suspend.

    from gates.checking import CheckOptions, CheckTarget, run_check, to_text
    report = run_check(CheckTarget.module("plugins_sample.careless"), CheckOptions(examples=5))
    print(to_text(report))                    # or to_json(report), to_junit(report)
    raise SystemExit(report.exit_code)        # 1 on any error, 0 with warnings only

Its rooms: the report and its findings (`_report`), the arguments to call with (`_arguments`),
the definitions (`_definitions`), the player's side of the private system (`_session`), a
call's audit line, typed (`_call_line`), what a call showed (`_verdicts`), the run itself
(`_run`), the renderers (`_render`), and the script that runs the plugin with its registrations
written down (`_record_registrations`). It stands where the testing kit stands: it uses the host
only through the player's API (`PlayerClient`), the host's public names (`AuditKind`,
`CANCEL_GRACE`) and the shipped harness, never the host's internals.
"""

from ._render import to_json, to_junit, to_text
from ._report import Check, CheckReport, Finding, Rule, Severity, ToolChecked
from ._run import CheckOptions, CheckTarget, TargetKind, run_check
from ._session import CheckAbortedError, PluginStartError

__all__ = [
    "Check",
    "CheckAbortedError",
    "CheckOptions",
    "CheckReport",
    "CheckTarget",
    "Finding",
    "PluginStartError",
    "Rule",
    "Severity",
    "TargetKind",
    "ToolChecked",
    "run_check",
    "to_json",
    "to_junit",
    "to_text",
]
