"""What the console ships is what we checked: htmx pinned by its hash, and templates that cannot
run a plugin's text (no inline script, no event handler attributes, no `|safe`, no inline style:
the page's CSP forbids all of them, so any of them would also break the page)."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import gates.console

PACKAGE = Path(gates.console.__file__).parent
HTMX_SHA256 = "d6fdc75f204e6bdefa99b69bf1e6d4ac69b8a364f77929f45c13476b4000f717"
"""htmx.org 2.0.11's dist/htmx.min.js (npm), 0BSD: `npm pack htmx.org@2.0.11`, then sha256sum.
To update: take the new release's file from the npm registry, read its changes, run the browser
tests, and pin its hash here."""


def test_htmx_is_the_release_we_pinned() -> None:
    data = (PACKAGE / "static" / "htmx.min.js").read_bytes()
    assert hashlib.sha256(data).hexdigest() == HTMX_SHA256
    assert (PACKAGE / "static" / "htmx.LICENSE.txt").read_text(encoding="utf-8").startswith("Zero-Clause BSD")


def test_templates_hold_no_inline_script_handler_style_or_unescaped_value() -> None:
    problems = []
    for template in sorted((PACKAGE / "templates").glob("*.html")):
        text = template.read_text(encoding="utf-8")
        for pattern, what in (
            (r"<script(?![^>]*\bsrc=)", "an inline <script>"),
            (r"\son[a-z]+\s*=", "an event handler attribute"),
            (r"\sstyle\s*=", "an inline style"),
            (r"\|\s*safe\b", "a value marked safe"),
            (r"autoescape\s+false", "autoescaping turned off"),
            (r"hx-on", "an htmx inline handler (it evaluates script)"),
        ):
            problems += [f"{template.name}: {what}" for _ in re.finditer(pattern, text)]
    assert problems == []


def test_the_page_script_loads_from_the_package_only() -> None:
    page = (PACKAGE / "templates" / "page.html").read_text(encoding="utf-8")
    sources = re.findall(r'<script src="([^"]+)"', page) + re.findall(r'<link[^>]+href="([^"]+)"', page)
    assert sources and all(source.startswith("/console/static/") for source in sources), sources
    for source in sources:
        assert (PACKAGE / "static" / source.removeprefix("/console/static/")).is_file()
