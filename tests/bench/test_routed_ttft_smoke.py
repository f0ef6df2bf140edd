"""bench/routed_ttft.py still runs and reports routed and baseline figures (one round).

Like the streaming smoke test, on embedded servers of its own (``.data/bench-smoke``), stopped
afterwards. No timing is asserted: only that every figure is there.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]


def test_routed_ttft_bench_reports_routed_and_baseline_turns() -> None:
    env = {**os.environ, "COUNTERSIGN_DATA_DIR": str(ROOT / ".data" / "bench-smoke")}
    for name in ("DATABASE_URL", "REDIS_URL", "PYTEST_VERSION", "LLM_BASE_URL"):
        env.pop(name, None)
    try:
        result = subprocess.run(
            [sys.executable, "bench/routed_ttft.py", "--rounds", "1"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=280,
        )
    finally:
        subprocess.run(
            [sys.executable, "manage.py", "infra", "down"], cwd=ROOT, env=env, timeout=60
        )
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout)

    for kind in ("routed_small_talk", "routed_cancel", "agent_knowledge"):
        assert report[kind]["ttft"]["p50_ms"] > 0
        assert report[kind]["turn"]["p50_ms"] >= report[kind]["ttft"]["p50_ms"]
