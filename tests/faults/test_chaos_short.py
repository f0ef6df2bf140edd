"""A short seeded run of the fault schedule (bench/chaos.py, issue 30 item 3) holds every invariant.

The bench starts its own stack (embedded servers under ``.data/chaos-test``, two daphne, two
workers, beat, the demo tenants) in a process of its own, injects one fault of each kind while
clients talk and an approver decides, and prints its findings as JSON. The full run (thousands
of turns, ten faults of each kind) is in docs/operations.md "Fault schedule".
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
SEED = 30


def test_a_short_seeded_fault_schedule_injects_every_kind_and_breaks_no_invariant() -> None:
    # Without PYTEST_VERSION the bench's Django is a plain process's, not the test suite's.
    env_free_of_pytest = {k: v for k, v in os.environ.items() if k != "PYTEST_VERSION"}
    run = subprocess.run(
        [
            sys.executable,
            str(REPO / "bench" / "chaos.py"),
            f"--seed={SEED}",
            "--turns=40",
            "--clients=8",
            "--decisions=10",
            "--faults-per-kind=1",
            "--duration=90",
            f"--data-dir={REPO / '.data' / 'chaos-test'}",
        ],
        cwd=REPO,
        env=env_free_of_pytest,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert run.stdout, run.stderr[-4000:]
    report = json.loads(run.stdout)

    assert report["violation_count"] == 0, json.dumps(report["violations"], indent=1)
    injected = {kind: fault["count"] for kind, fault in report["faults"].items()}
    assert all(count >= 1 for count in injected.values()), injected
    assert report["turn_endings"].get("done:complete", 0) > 0
    assert report["decisions"] > 0
