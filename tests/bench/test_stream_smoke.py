"""bench/stream.py still runs and reports every figure (tiny N and T, so it cannot rot).

It runs on embedded servers of its own (``.data/bench-smoke``), stopped afterwards, so its
worker never meets the suite's Celery queue.
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
TINY = ["--n", "2", "--tokens", "10", "--rate", "100", "--ramp", "0.1"]
TINY += ["--zero-delay-turns", "2", "--zero-delay-connections", "1"]
FIGURES = (
    "ttft_added_ms",
    "token_lag_ms",
    "completion_ratio",
    "model_pace_ratio",
    "lost_tokens",
    "duplicated_tokens",
    "errors",
)


def test_stream_bench_reports_every_figure_with_no_token_lost() -> None:
    env = {**os.environ, "COUNTERSIGN_DATA_DIR": str(ROOT / ".data" / "bench-smoke")}
    for name in ("DATABASE_URL", "REDIS_URL", "PYTEST_VERSION", "LLM_BASE_URL"):
        env.pop(name, None)
    try:
        result = subprocess.run(
            [sys.executable, "bench/stream.py", *TINY],
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

    for run in (report["stack"]["2"], report["baseline_in_process"]["2"]):
        for figure in FIGURES:
            assert figure in run
        assert run["turns"] == 2
        assert run["lost_tokens"] == run["duplicated_tokens"] == run["errors"] == 0
        assert run["ttft_added_ms"]["p95"] is not None
        assert run["completion_ratio"]["p95"] is not None
    assert set(report["stack"]["2"]["peak_rss_mib"]) == {"web", "worker"}
    assert report["stack"]["2"]["peak_rss_mib"]["worker"] > 0
    assert report["zero_delay"]["stack_turns_per_s"] > 0
    assert report["zero_delay"]["baseline_turns_per_s"] > 0
    assert report["targets"]["no_lost_or_duplicated_tokens"] is True
