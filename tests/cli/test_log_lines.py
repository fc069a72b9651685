"""The command line's log lines (a host's stderr) show the text they quote escaped (S3)."""

from __future__ import annotations

import io
import logging

from gates.contract import EscapedLogFormatter


def test_s3_a_log_line_quoting_a_plugin_shows_its_control_characters_escaped() -> None:
    # SPEC: S3
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(EscapedLogFormatter("%(levelname)s %(message)s"))
    log = logging.getLogger("tests.s3")
    log.addHandler(handler)
    try:
        log.warning("%s: XIV MCP rejected a tool: %s", "Plug\x1b[2K", "bad\r\nname\u202e")
    finally:
        log.removeHandler(handler)
    assert out.getvalue() == "WARNING Plug\\x1b[2K: XIV MCP rejected a tool: bad\\r\\nname\\u202e\n"
