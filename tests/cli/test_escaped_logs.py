"""S3 in each program's own logging: a log line of a kit plugin, a sample or the game quotes
other processes' words (tools, names, errors), and shows their control characters escaped, as the
command line's log does (`tests/cli/test_escaped_text.py`)."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize(
    "setup",
    [
        "from gates.plugin._entry import parse_command_line; parse_command_line('X', ['--bus', 'tcp://127.0.0.1:1'])",
        "import sys; sys.argv = ['x', '--bus', 'tcp://127.0.0.1:1']; "
        "from plugins_sample._run import parse_args; parse_args('x')",
        "import game._peer as g; g.run_game = lambda config: 0; g.main(['--bus', 'tcp://127.0.0.1:1'])",
    ],
    ids=["kit-plugin", "sample-plugin", "game"],
)
def test_s3_a_log_line_of_a_plugin_or_the_game_shows_control_characters_escaped(setup: str) -> None:
    """Each program's own logging, not only the command line's, escapes what it quotes."""
    code = f"{setup}\nimport logging\nlogging.getLogger('t').warning('tool %s', 'farm\\r\\x1b[2K')"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30, check=False)
    assert "tool farm\\r\\x1b[2K" in done.stderr and "\x1b" not in done.stderr, done.stderr
