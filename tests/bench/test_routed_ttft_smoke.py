"""bench/routed_ttft.py still runs and reports routed and baseline figures (one round).

Like the streaming smoke test, on embedded servers of its own (``.data/bench-smoke-routed_ttft``),
stopped afterwards. No timing is asserted: only that every figure is there.
"""

from __future__ import annotations

import pytest

from tests.bench.runner import run_bench

# On servers of its own (tests/bench/runner.py): it can run beside any other test. It times
# things, but asserts no time.
pytestmark = pytest.mark.e2e


def test_routed_ttft_bench_reports_routed_and_baseline_turns() -> None:
    report = run_bench("bench/routed_ttft.py", "--rounds", "1")

    for kind in ("routed_small_talk", "routed_cancel", "agent_knowledge"):
        assert report[kind]["ttft"]["p50_ms"] > 0
        assert report[kind]["turn"]["p50_ms"] >= report[kind]["ttft"]["p50_ms"]
