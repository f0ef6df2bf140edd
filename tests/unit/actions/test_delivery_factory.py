"""build_backend: picking and configuring a backend from string settings."""

from __future__ import annotations

import pytest

from actions.delivery import (
    ConsoleBackend,
    Delivery,
    OutboxBackend,
    SmtpEmailBackend,
    TelegramBackend,
    TwilioSmsBackend,
    build_backend,
)
from tests.unit.actions.fakes import FakeTwilioServer

TWILIO = {
    "TWILIO_ACCOUNT_SID": "AC" + "0" * 32,
    "TWILIO_AUTH_TOKEN": "test-auth-token",
    "TWILIO_FROM_NUMBER": "+15005550006",
}
SMTP = {"EMAIL_HOST": "mail.example", "DEFAULT_FROM_EMAIL": "noreply@example.com"}


@pytest.mark.parametrize("channel", ["sms", "telegram", "email"])
def test_outbox_and_console_serve_every_channel(channel: str) -> None:
    assert isinstance(build_backend(channel, "outbox", {}), OutboxBackend)
    assert isinstance(build_backend(channel, "console", {}), ConsoleBackend)


def test_it_builds_twilio_for_sms() -> None:
    assert isinstance(build_backend("sms", "twilio", TWILIO), TwilioSmsBackend)


def test_it_builds_telegram() -> None:
    backend = build_backend("telegram", "telegram", {"TELEGRAM_BOT_TOKEN": "1:abc"})

    assert isinstance(backend, TelegramBackend)


def test_it_builds_smtp_for_email() -> None:
    config = {**SMTP, "EMAIL_PORT": "587", "EMAIL_USE_TLS": "true", "EMAIL_HOST_USER": "u"}

    assert isinstance(build_backend("email", "smtp", config), SmtpEmailBackend)


def test_a_built_twilio_backend_uses_the_configured_base_url() -> None:
    with FakeTwilioServer() as server:
        backend = build_backend("sms", "twilio", {**TWILIO, "TWILIO_BASE_URL": server.base_url})
        backend.send(
            Delivery(channel="sms", to_address="+16502530000", body="hi", idempotency_key="k")
        )

    assert len(server.requests) == 1


def test_unknown_channel_is_named() -> None:
    with pytest.raises(ValueError, match="unknown delivery channel 'fax'"):
        build_backend("fax", "outbox", {})


def test_unknown_backend_is_named() -> None:
    with pytest.raises(ValueError, match="unknown delivery backend 'pigeon'"):
        build_backend("sms", "pigeon", {})


def test_a_backend_cannot_serve_another_channel() -> None:
    with pytest.raises(ValueError, match="'twilio' cannot deliver 'email'"):
        build_backend("email", "twilio", TWILIO)


@pytest.mark.parametrize("missing", sorted(TWILIO))
def test_a_missing_twilio_setting_is_named(missing: str) -> None:
    config = {key: value for key, value in TWILIO.items() if key != missing}

    with pytest.raises(ValueError, match=f"{missing} is required"):
        build_backend("sms", "twilio", config)


def test_a_blank_setting_counts_as_missing() -> None:
    with pytest.raises(ValueError, match="TELEGRAM_BOT_TOKEN is required"):
        build_backend("telegram", "telegram", {"TELEGRAM_BOT_TOKEN": "  "})


@pytest.mark.parametrize("value", ["abc", "0", "-1", "nan", "inf"])
def test_a_bad_timeout_is_named(value: str) -> None:
    with pytest.raises(ValueError, match="TWILIO_TIMEOUT must be a positive number"):
        build_backend("sms", "twilio", {**TWILIO, "TWILIO_TIMEOUT": value})


def test_a_base_url_without_scheme_is_named() -> None:
    config = {"TELEGRAM_BOT_TOKEN": "1:abc", "TELEGRAM_BASE_URL": "api.telegram.org"}

    with pytest.raises(ValueError, match="TELEGRAM_BASE_URL must be an http"):
        build_backend("telegram", "telegram", config)


@pytest.mark.parametrize("value", ["smtp", "0", "70000", "-25"])
def test_a_bad_port_is_named(value: str) -> None:
    with pytest.raises(ValueError, match="EMAIL_PORT must be a port number"):
        build_backend("email", "smtp", {**SMTP, "EMAIL_PORT": value})


def test_a_bad_boolean_is_named() -> None:
    with pytest.raises(ValueError, match="EMAIL_USE_TLS must be true or false"):
        build_backend("email", "smtp", {**SMTP, "EMAIL_USE_TLS": "maybe"})


def test_tls_and_ssl_together_are_refused() -> None:
    config = {**SMTP, "EMAIL_USE_TLS": "1", "EMAIL_USE_SSL": "yes"}

    with pytest.raises(ValueError, match="EMAIL_USE_TLS and EMAIL_USE_SSL"):
        build_backend("email", "smtp", config)


def test_smtp_needs_a_from_address() -> None:
    with pytest.raises(ValueError, match="DEFAULT_FROM_EMAIL is required"):
        build_backend("email", "smtp", {"EMAIL_HOST": "mail.example"})
