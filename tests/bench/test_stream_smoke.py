"""bench/stream.py still runs and reports every figure (tiny N and T, so it cannot rot).

It runs on embedded servers of its own (``.data/bench-smoke-<script>``), stopped afterwards, so its
worker never meets the suite's Celery queue.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.bench.runner import run_bench

# On servers of its own (tests/bench/runner.py): it can run beside any other test. It times
# things, but asserts no time.
pytestmark = pytest.mark.e2e
TINY = ["--n", "2", "--tokens", "10", "--rate", "100", "--ramp", "0.1"]
TINY += ["--zero-delay-turns", "2", "--zero-delay-connections", "1", "--cpu-n", "2"]
FIGURES = (
    "ttft_added_ms",
    "token_lag_ms",
    "completion_ratio",
    "model_pace_ratio",
    "lost_tokens",
    "duplicated_tokens",
    "errors",
)


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    return run_bench("bench/stream.py", *TINY)


def test_stream_bench_reports_every_figure_with_no_token_lost(report: dict[str, Any]) -> None:
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


def test_stream_bench_weighs_the_products_cpu_per_token_against_a_minimal_relay(
    report: dict[str, Any],
) -> None:
    cpu = report["cpu_per_token"]
    assert cpu["n"] == 2
    assert cpu["relay_run"] == {"tokens_relayed": 20, "lost_tokens": 0, "errors": 0}
    assert cpu["web_us"] > 0 and cpu["worker_us"] > 0 and cpu["relay_us"] > 0
    assert cpu["product_us"] == cpu["web_us"] + cpu["worker_us"]
    assert cpu["product_over_relay"] == round(cpu["product_us"] / cpu["relay_us"], 2)
    assert report["stack"]["2"]["tokens_relayed"] == 20


def test_stream_bench_weighs_the_web_process_against_the_edge_floor(
    report: dict[str, Any],
) -> None:
    cpu = report["cpu_per_token"]
    assert cpu["floor_run"] == {"tokens_relayed": 20, "lost_tokens": 0, "errors": 0}
    # CPU time is read in 10 ms ticks: the floor's 20 tokens can cost less than one (seen in CI)
    assert cpu["web_floor_us"] is not None and cpu["web_floor_us"] >= 0
    ratio = cpu["web_us"] / cpu["web_floor_us"] if cpu["web_us"] and cpu["web_floor_us"] else None
    assert cpu["web_over_floor"] == (round(ratio, 2) if ratio is not None else None)
