"""The web process's log under LOG_FORMAT=json: daphne's access lines are JSON like every
other line, and a failing readiness probe is a WARNING, not an ERROR."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.processes import start_daphne

# The database mark makes pytest-django create the test database that the child process uses.
pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True), pytest.mark.timeout(600)]
# Generous: on a loaded 2-core machine importing the app took over a minute.
STARTUP = 240


def _lines(log: Path) -> list[str]:
    return [line for line in log.read_text(errors="replace").splitlines() if line.strip()]


def _records(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in _lines(log)]


def test_in_json_mode_every_line_of_the_web_process_is_json_including_its_access_lines(
    stack_env: dict[str, str], tmp_path: Path
) -> None:
    env = {**stack_env, "LOG_FORMAT": "json", "LOG_LEVEL": "info"}
    process, port = start_daphne(env, tmp_path, start_timeout=STARTUP)
    try:
        assert httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=10).status_code == 200
        assert httpx.get(f"http://127.0.0.1:{port}/no-such-page/", timeout=10).status_code in (
            400,
            404,
        )
    finally:
        process.stop()

    not_json = []
    for line in _lines(process.log):
        try:
            json.loads(line)
        except ValueError:
            not_json.append(line)
    assert not_json == []
    access = [r for r in _records(process.log) if r["logger"] == "countersign.access"]
    health = [r for r in access if r["path"] == "/healthz"]
    assert health[-1]["method"] == "GET"
    assert health[-1]["status"] == 200
    assert health[-1]["client"].startswith("127.0.0.1")


def test_a_readiness_probe_that_fails_is_logged_at_warning_and_never_at_error(
    stack_env: dict[str, str], tmp_path: Path
) -> None:
    # No worker runs here, so the probe's worker check fails: a 503 doing its job.
    env = {**stack_env, "LOG_FORMAT": "json", "LOG_LEVEL": "info"}
    process, port = start_daphne(env, tmp_path, start_timeout=STARTUP)
    try:
        probe = httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=10)
    finally:
        process.stop()

    assert probe.status_code == 503
    records = _records(process.log)
    assert [r for r in records if r["level"] in ("error", "critical")] == []
    warnings = [r for r in records if r["level"] == "warning" and "/readyz" in r["message"]]
    assert "no live worker heartbeat" in warnings[0]["message"]
    readyz = [r for r in records if r["logger"] == "countersign.access" and r["path"] == "/readyz"]
    assert readyz[0]["status"] == 503
