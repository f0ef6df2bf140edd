"""A malformed setting stops start-up with a message naming the variable."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.env import ImproperlyConfiguredEnv, env_bool, env_int, env_url

ROOT = Path(__file__).resolve().parents[2]


def _manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("DEBUG", "maybe", "DEBUG must be a boolean"),
        ("DATABASE_URL", "mysql://x/y", "DATABASE_URL must be a URL starting with postgres://"),
        ("CELERY_WORKER_CONCURRENCY", "many", "CELERY_WORKER_CONCURRENCY must be an integer"),
        ("LOG_LEVEL", "loud", "LOG_LEVEL must be one of"),
        ("LOG_FORMAT", "xml", "LOG_FORMAT must be one of plain, json"),
        ("LLM_PRICE_INPUT_PER_MTOK", "cheap", "LLM_PRICE_INPUT_PER_MTOK must be a number"),
        ("LLM_PRICE_OUTPUT_PER_MTOK", "-1", "LLM_PRICE_OUTPUT_PER_MTOK must be at least 0"),
        ("METRICS_ALLOW_INTERNAL", "maybe", "METRICS_ALLOW_INTERNAL must be a boolean"),
        ("OTEL_ENABLED", "perhaps", "OTEL_ENABLED must be a boolean"),
        ("PROMETHEUS_MULTIPROC_DIR", "/proc/nope", "PROMETHEUS_MULTIPROC_DIR must be a writable"),
    ],
)
def test_a_malformed_setting_stops_manage_py_naming_the_variable(
    name: str, value: str, expected: str
) -> None:
    result = _manage("check", **{name: value})

    assert result.returncode != 0
    assert expected in result.stderr
    assert "Traceback" not in result.stderr


def test_production_without_a_secret_key_refuses_to_start() -> None:
    result = _manage("check", DEBUG="false", SECRET_KEY="")

    assert result.returncode != 0
    assert "SECRET_KEY must be set when DEBUG is false" in result.stderr


def test_env_helpers_parse_good_values(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FLAG", "Yes")
    monkeypatch.setenv("COUNT", " 7 ")

    assert env_bool("FLAG", False) is True
    assert env_int("COUNT", 0) == 7
    assert env_bool("UNSET_FLAG", True) is True


def test_env_int_enforces_its_minimum(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COUNT", "0")

    with pytest.raises(ImproperlyConfiguredEnv, match="COUNT must be at least 1"):
        env_int("COUNT", 5, minimum=1)


def test_env_url_rejects_a_url_without_a_host(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REDIS_URL", "redis://")

    with pytest.raises(ImproperlyConfiguredEnv, match="REDIS_URL"):
        env_url("REDIS_URL", ("redis",))
