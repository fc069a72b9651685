"""`xivmcp check` on a plugin that buys from a vendor and stores items with a retainer (K1, T2, W4).

The check needs nothing new for the market and retainers: the game's snapshot already shows gil
spent on a purchase and items entrusted to a retainer (they leave the bags), and the host's verdict
judges them as the real analyzer does. The plugin is tests/host/plugins/errand_plugin.py.
"""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from gates.checking import CheckReport, Rule

from ._running import run_check_cli

pytestmark = pytest.mark.timeout(300)


def test_k1_check_reports_an_undeclared_purchase_retainer_transfer_and_sale(tmp_path: Path) -> None:
    # SPEC: K1, T2, W4
    run = run_check_cli(tmp_path, "tests/host/plugins/errand_plugin.py", "--json", last="{")
    assert run.code == 1, run.stderr
    report = msgspec.json.decode(run.lines[-1], type=CheckReport)
    assert report.plugin == "Errand" and report.warnings == []
    found = {f.tool: f for f in report.errors}
    # the declared one is clean
    assert set(found) == {"errand_buy_undeclared", "errand_store_undeclared", "errand_sell_undeclared"}
    bought, stored = found["errand_buy_undeclared"], found["errand_store_undeclared"]
    assert bought.rule == stored.rule == Rule.UNDECLARED_EFFECT
    assert bought.message.startswith("XIV MCP would suspend Errand: errand_buy_undeclared: ")
    assert " gil spent. (not declared)" in bought.message and "(spend_gil)" in bought.message
    assert stored.message.startswith("XIV MCP would suspend Errand: errand_store_undeclared: ")
    assert " items left the inventory. (not declared)" in stored.message and "move_items" in stored.message
    sold = found["errand_sell_undeclared"]
    assert sold.message.startswith("XIV MCP would suspend Errand: errand_sell_undeclared: ")
    assert " items left the inventory. (not declared)" in sold.message
