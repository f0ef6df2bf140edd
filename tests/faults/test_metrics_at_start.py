"""Every series docs/operations.md lists is exported from start-up, at zero (issue #30): an
alert on ``increase(agent_errors_total[5m])`` or a dashboard panel has a series to read before
the first error, not "no data" that looks like health."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from tests.e2e.processes import ROOT, start_daphne

pytestmark = pytest.mark.e2e


def _documented_series() -> list[str]:
    text = (ROOT / "docs" / "operations.md").read_text()
    table = text.split("## Metrics", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| `([a-z_]+)` \|", table, flags=re.MULTILINE)


def test_a_fresh_web_process_exports_every_documented_series_at_zero(
    stack_env: dict[str, str], tmp_path: Path
) -> None:
    samples = tmp_path / "metrics"
    samples.mkdir()
    process, port = start_daphne({**stack_env, "PROMETHEUS_MULTIPROC_DIR": str(samples)}, tmp_path)
    try:
        exposition = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=10).text
    finally:
        process.stop()

    series = _documented_series()
    assert "agent_errors_total" in series
    missing = [
        name
        for name in series
        if not re.search(rf"^{name}(_count|_bucket)?[{{ ]", exposition, flags=re.MULTILINE)
    ]
    assert missing == []
    assert re.search(r'^agent_errors_total\{type="recursion_limit"\} 0\.0$', exposition, re.M)
