"""Run a bench script the way its smoke test needs: on embedded servers of its own
(``.data/bench-smoke-<script>``, so its worker never meets the suite's Celery queue, and two
smoke tests in two test processes never share one), stopped afterwards, and its JSON report
parsed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def run_bench(script: str, *args: str) -> dict[str, Any]:
    data = ROOT / ".data" / f"bench-smoke-{Path(script).stem}"
    env = {**os.environ, "COUNTERSIGN_DATA_DIR": str(data)}
    # Nor the suite's servers, test lane or metrics folder: the bench counts in its own.
    for name in (
        "DATABASE_URL",
        "REDIS_URL",
        "PYTEST_VERSION",
        "LLM_BASE_URL",
        "PYTEST_XDIST_WORKER",
        "PROMETHEUS_MULTIPROC_DIR",
    ):
        env.pop(name, None)
    try:
        result = subprocess.run(
            [sys.executable, script, *args],
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
    report: dict[str, Any] = json.loads(result.stdout)
    return report
