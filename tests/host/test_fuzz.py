"""Every host gate and the player's gates, fuzzed through the real bus (G2, B7): a few hundred
examples here; `python -m bench.fuzz --examples 10000` runs more."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import fuzz


@pytest.mark.timeout(240)
def test_g2_every_gate_answers_ok_or_a_framework_error_whatever_it_is_sent(tmp_path: Path) -> None:
    # SPEC: G2, B7
    report = fuzz.run(tmp_path, examples=300)
    assert report.failures == [] and report.failed == 0
    assert report.tried >= 300 and report.host_alive
    assert report.refusals > 0 and report.framework_errors > 0  # both kinds of answer were exercised
