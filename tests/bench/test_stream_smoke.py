"""bench/stream.py still runs and reports every figure (tiny N and T, so it cannot rot).

It runs on embedded servers of its own (``.data/bench-smoke``), stopped afterwards, so its
worker never meets the suite's Celery queue.
"""

from __future__ import annotations

import pytest

from tests.bench.runner import run_bench

pytestmark = pytest.mark.e2e
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
    report = run_bench("bench/stream.py", *TINY)

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
