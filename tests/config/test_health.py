"""/healthz answers without the database; /readyz reports what keeps the process from serving."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from asgiref.sync import async_to_sync
from django.test import Client

from core import leases
from core.infra import EmbeddedInfra
from core.redis_clients import sync_redis


@pytest.fixture
def restart_redis_after(embedded_infra: EmbeddedInfra) -> Iterator[EmbeddedInfra]:
    yield embedded_infra
    embedded_infra.up()


def test_healthz_answers_for_any_host_without_touching_the_database() -> None:
    response = Client(HTTP_HOST="probe.internal").get("/healthz")

    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


@pytest.fixture
def a_live_worker() -> Iterator[None]:
    """A worker heartbeat in Redis, as a running worker writes it (core/leases.py)."""
    leases._heartbeat("tests@health")
    yield
    sync_redis().zrem(leases.WORKERS_KEY, "tests@health")


def test_readyz_is_ready_when_database_redis_migrations_and_a_worker_are(
    db: None, a_live_worker: None
) -> None:
    response = Client(HTTP_HOST="localhost").get("/readyz")

    assert response.status_code == 200
    assert response.json() == {"status": "ready"}


def test_readyz_says_503_when_no_worker_has_written_a_heartbeat(db: None) -> None:
    sync_redis().delete(leases.WORKERS_KEY)

    response = Client(HTTP_HOST="localhost").get("/readyz")

    assert response.status_code == 503
    assert any(problem.startswith("workers: ") for problem in response.json()["problems"])


@pytest.mark.alone  # stops the shared Redis
def test_readyz_says_503_with_the_reason_while_redis_is_stopped_and_200_when_back(
    db: None, restart_redis_after: EmbeddedInfra
) -> None:
    restart_redis_after.stop_redis()
    down = Client().get("/readyz")
    restart_redis_after.up()
    leases._heartbeat("tests@health")
    back = Client().get("/readyz")

    assert down.status_code == 503
    assert down.json()["status"] == "unavailable"
    assert any(problem.startswith("redis: ") for problem in down.json()["problems"])
    assert back.status_code == 200


def test_readyz_reports_unapplied_migrations(db: None, monkeypatch: pytest.MonkeyPatch) -> None:
    from django.db.migrations.executor import MigrationExecutor

    monkeypatch.setattr(MigrationExecutor, "migration_plan", lambda self, targets: ["0099_new"])
    response = Client().get("/readyz")

    assert response.status_code == 503
    assert "unapplied migration" in response.json()["problems"][0]


@pytest.mark.alone  # stops the shared Redis
def test_events_still_reach_the_channel_layer_after_redis_restarts(
    db: None, restart_redis_after: EmbeddedInfra
) -> None:
    from channels.layers import get_channel_layer

    from chat.events.publisher import publisher

    layer = get_channel_layer()
    assert layer is not None
    publisher.group_send("restart-probe", {"type": "probe"}).result(timeout=10)  # pool warm

    restart_redis_after.stop_redis()
    restart_redis_after.up()
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)("restart-probe-after", channel)
    publisher.group_send("restart-probe-after", {"type": "probe", "n": 2}).result(timeout=10)

    assert async_to_sync(layer.receive)(channel)["n"] == 2


def test_a_503_probe_logs_a_warning_with_its_problems_and_nothing_at_error(
    db: None, caplog: pytest.LogCaptureFixture
) -> None:
    sync_redis().delete(leases.WORKERS_KEY)

    with caplog.at_level(logging.INFO):
        response = Client(HTTP_HOST="localhost").get("/readyz")

    assert response.status_code == 503
    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("/readyz" in w and "workers: " in w for w in warnings), warnings
