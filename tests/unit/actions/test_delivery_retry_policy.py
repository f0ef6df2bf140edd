"""backoff_seconds and parse_retry_after: the pure half of the retry policy."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from actions.delivery import backoff_seconds
from actions.delivery.base import parse_retry_after


def test_backoff_doubles_with_each_attempt() -> None:
    assert [backoff_seconds(n) for n in range(4)] == [2.0, 4.0, 8.0, 16.0]


def test_backoff_stops_at_the_cap() -> None:
    assert backoff_seconds(20) == 300.0


def test_backoff_survives_absurd_attempt_numbers() -> None:
    assert backoff_seconds(10_000) == 300.0


def test_backoff_rejects_a_negative_attempt() -> None:
    with pytest.raises(ValueError, match="attempt"):
        backoff_seconds(-1)


def test_jitter_stays_between_half_and_full_delay() -> None:
    rng = random.Random(1)

    delays = [backoff_seconds(3, jitter=True, rng=rng) for _ in range(200)]

    assert all(8.0 <= d <= 16.0 for d in delays)
    assert len(set(delays)) > 1


def test_jitter_is_deterministic_when_seeded() -> None:
    first = backoff_seconds(5, jitter=True, rng=random.Random("action-1:5"))
    second = backoff_seconds(5, jitter=True, rng=random.Random("action-1:5"))

    assert first == second


def test_a_provider_retry_after_is_a_floor_even_past_the_cap() -> None:
    assert backoff_seconds(0, retry_after=30.0) == 30.0
    assert backoff_seconds(10, retry_after=600.0) == 600.0
    assert backoff_seconds(3, retry_after=1.0) == 16.0


def test_retry_after_reads_seconds() -> None:
    assert parse_retry_after("7") == 7.0


def test_retry_after_reads_an_http_date() -> None:
    now = datetime(2025, 1, 1, 12, 0, 0, tzinfo=UTC)

    assert parse_retry_after("Wed, 01 Jan 2025 12:00:30 GMT", now=now) == 30.0


@pytest.mark.parametrize("value", [None, "", "soon", "-5"])
def test_retry_after_ignores_what_it_cannot_use(value: str | None) -> None:
    assert parse_retry_after(value) in (None, 0.0)
