"""Fixtures of the actions suite: the fake providers wired in as the delivery backends."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from pytest_django.fixtures import Settings as SettingsWrapper

from tests.unit.actions.fakes import FakeSmtpServer, FakeTelegramServer, FakeTwilioServer

TWILIO_FROM = "+12025550199"


@pytest.fixture
def fast_retries(settings: SettingsWrapper) -> None:
    """Backoff in milliseconds, so retry tests take no time; 3 attempts in all."""
    settings.ACTIONS_RETRY_BASE_SECONDS = 0.01
    settings.ACTIONS_RETRY_MAX_SECONDS = 0.05
    settings.ACTIONS_DELIVERY_MAX_ATTEMPTS = 3


def _use(settings: SettingsWrapper, channel: str, backend: str, **config: str) -> None:
    settings.ACTIONS_BACKENDS = {**settings.ACTIONS_BACKENDS, channel: backend}
    settings.ACTIONS_DELIVERY_CONFIG = {**settings.ACTIONS_DELIVERY_CONFIG, **config}


@pytest.fixture
def fake_twilio(settings: SettingsWrapper) -> Iterator[FakeTwilioServer]:
    with FakeTwilioServer() as server:
        _use(
            settings,
            "sms",
            "twilio",
            TWILIO_ACCOUNT_SID=server.account_sid,
            TWILIO_AUTH_TOKEN=server.auth_token,
            TWILIO_FROM_NUMBER=TWILIO_FROM,
            TWILIO_BASE_URL=server.base_url,
            TWILIO_TIMEOUT="5",
        )
        yield server


@pytest.fixture
def fake_telegram(settings: SettingsWrapper) -> Iterator[FakeTelegramServer]:
    with FakeTelegramServer() as server:
        _use(
            settings,
            "telegram",
            "telegram",
            TELEGRAM_BOT_TOKEN=server.bot_token,
            TELEGRAM_BASE_URL=server.base_url,
            TELEGRAM_TIMEOUT="5",
        )
        yield server


@pytest.fixture
def fake_smtp(settings: SettingsWrapper) -> Iterator[FakeSmtpServer]:
    with FakeSmtpServer() as server:
        _use(
            settings,
            "email",
            "smtp",
            EMAIL_HOST=server.host,
            EMAIL_PORT=str(server.port),
            DEFAULT_FROM_EMAIL="office@alpha.example",
            EMAIL_USE_TLS="false",
            EMAIL_USE_SSL="false",
        )
        yield server


@pytest.fixture
def outbox_everywhere(settings: SettingsWrapper) -> None:
    settings.ACTIONS_BACKENDS = {"sms": "outbox", "telegram": "outbox", "email": "outbox"}


def wait_until(condition: Callable[[], Any], *, timeout: float = 20.0) -> Any:
    """Poll ``condition`` until it returns something truthy; fail the test on timeout."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"condition not met within {timeout}s")
