"""/metrics: Prometheus text for any host, to a bearer token or to internal addresses only."""

from __future__ import annotations

import pytest
import redis
from django.conf import settings
from django.test import Client
from prometheus_client import values
from pytest_django.fixtures import Settings as SettingsWrapper

from tests.metrics import Samples, parse, value

PUBLIC_PEER = "8.8.8.8"  # TEST-NET ranges count as private to ipaddress


def _scrape(*, peer: str = "127.0.0.1", token: str | None = None) -> int:
    client = Client(HTTP_HOST="probe.internal", REMOTE_ADDR=peer)
    if token:
        return client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {token}").status_code
    return client.get("/metrics").status_code


def test_the_client_runs_in_multiprocess_mode() -> None:
    assert values.ValueClass.__name__ == "MmapedValue"


def test_metrics_answer_a_loopback_scrape_on_any_host_with_every_series_family(
    db: None,
) -> None:
    response = Client(HTTP_HOST="probe.internal").get("/metrics")

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    text = response.content.decode()
    for family in (
        "chat_turn_duration_seconds",
        "chat_time_to_first_token_seconds",
        "chat_tokens_total",
        "hitl_decisions_total",
        "agent_errors_total",
        "agent_sql_retries_total",
        "kb_retrieval_seconds",
        "celery_queue_depth",
    ):
        assert f"# TYPE {family.removesuffix('_total')}" in text, family
    assert value(parse(text), "celery_queue_depth", queue="celery") >= 0


def test_a_private_address_may_scrape_without_a_token() -> None:
    assert _scrape(peer="10.1.2.3") == 200


def test_a_public_address_is_refused_without_a_token() -> None:
    assert _scrape(peer=PUBLIC_PEER) == 403


def test_internal_scrapes_can_be_switched_off(settings: SettingsWrapper) -> None:
    settings.METRICS_ALLOW_INTERNAL = False

    assert _scrape(peer="127.0.0.1") == 403


@pytest.mark.parametrize("token", [None, "wrong-token"])
def test_with_a_metrics_token_a_scrape_without_it_is_refused_even_from_loopback(
    settings: SettingsWrapper, token: str | None
) -> None:
    settings.METRICS_TOKEN = "s3cret-scrape-token"

    assert _scrape(peer="127.0.0.1", token=token) == 403


def test_with_a_metrics_token_the_right_bearer_token_scrapes_from_anywhere(
    settings: SettingsWrapper,
) -> None:
    settings.METRICS_TOKEN = "s3cret-scrape-token"

    assert _scrape(peer=PUBLIC_PEER, token="s3cret-scrape-token") == 200


def test_queue_depth_adds_up_the_queue_and_its_priority_lists_in_redis(db: None) -> None:
    client = redis.Redis.from_url(settings.REDIS_URL)
    junk = "not-a-task-test-metrics"
    keys = ["cs:celery:celery", "cs:celery:celery\x06\x163", "cs:celery:celery\x06\x169"]
    before = value(_scrape_text(), "celery_queue_depth", queue="celery")
    try:
        for key in keys:
            client.lpush(key, junk)
        after = value(_scrape_text(), "celery_queue_depth", queue="celery")
    finally:
        for key in keys:
            client.lrem(key, 0, junk)

    assert after - before == 3


def _scrape_text() -> Samples:
    return parse(Client(HTTP_HOST="probe.internal").get("/metrics").content.decode())
