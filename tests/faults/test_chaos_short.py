"""A short seeded run of the fault schedule (bench/chaos.py, issue 30 item 3) holds every invariant.

The bench starts its own stack (embedded servers under ``.data/chaos-test``, two daphne, two
workers, beat, the demo tenants) in a process of its own, injects one fault of each kind while
clients talk and an approver decides, and prints its findings as JSON. The full run (thousands
of turns, ten faults of each kind) is in docs/operations.md "Fault schedule".
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

# The run itself is a few minutes; a first run on a fresh checkout also migrates its database.
pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]

REPO = Path(__file__).resolve().parents[2]
SEED = 30
_NOT_PASSED = {
    "PYTEST_VERSION",
    "DATABASE_URL",
    "REDIS_URL",
    "LLM_BASE_URL",
    "COUNTERSIGN_DATA_DIR",
    # The suite's metrics folder and test lane: the bench's processes count in their own.
    "PROMETHEUS_MULTIPROC_DIR",
    "PYTEST_XDIST_WORKER",
}


def test_a_short_seeded_fault_schedule_injects_every_kind_and_breaks_no_invariant() -> None:
    # The bench's own servers (never the suite's, never a DATABASE_URL of the environment).
    data = REPO / ".data" / "chaos-test"
    env = {k: v for k, v in os.environ.items() if k not in _NOT_PASSED}
    bench = subprocess.Popen(
        [
            sys.executable,
            str(REPO / "bench" / "chaos.py"),
            f"--seed={SEED}",
            "--turns=40",
            "--clients=8",
            "--decisions=10",
            "--faults-per-kind=1",
            "--duration=90",
            f"--data-dir={data}",
        ],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its daphne and workers go with it if it must be killed
    )
    try:
        stdout, stderr = bench.communicate(timeout=840)
    finally:
        if bench.poll() is None:
            os.killpg(bench.pid, signal.SIGKILL)
        subprocess.run(
            [sys.executable, "manage.py", "infra", "down"],
            cwd=REPO,
            env={**env, "COUNTERSIGN_DATA_DIR": str(data)},
            timeout=120,
            check=False,
        )
    assert stdout, stderr[-4000:]
    report = json.loads(stdout)

    assert report["violation_count"] == 0, json.dumps(report["violations"], indent=1)
    injected = {kind: fault["count"] for kind, fault in report["faults"].items()}
    assert all(count >= 1 for count in injected.values()), injected
    assert report["turn_endings"].get("done:complete", 0) > 0
    assert report["decisions"] > 0
