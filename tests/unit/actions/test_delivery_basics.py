"""The delivery request itself, the outbox and console backends, and error classification."""

from __future__ import annotations

import io
import logging

import pytest

from actions.delivery import (
    ConsoleBackend,
    Delivery,
    OutboxBackend,
    PermanentDeliveryError,
    TransientDeliveryError,
    build_backend,
)
from actions.delivery.errors import error_for_http_status


def sms(body: str = "Secret plans", key: str = "action-1") -> Delivery:
    return Delivery(channel="sms", to_address="+16502530000", body=body, idempotency_key=key)


def test_a_delivery_repr_never_shows_the_body() -> None:
    assert "Secret plans" not in repr(sms("Secret plans"))


def test_a_delivery_needs_an_idempotency_key() -> None:
    with pytest.raises(ValueError, match="idempotency_key"):
        sms(key=" ")


def test_a_delivery_on_a_channel_missing_from_the_table_has_no_backend() -> None:
    fax = Delivery(channel="fax", to_address="1", body="x", idempotency_key="k")

    with pytest.raises(ValueError, match="unknown delivery channel 'fax'"):
        build_backend(fax.channel, "outbox", {})


def test_outbox_returns_an_id_derived_from_the_key() -> None:
    result = OutboxBackend().send(sms(key="action-5"))

    assert result.provider_message_id == "outbox-action-5"
    assert result.status == "outboxed"


def test_outbox_gives_the_same_id_for_a_resend() -> None:
    backend = OutboxBackend()

    assert backend.send(sms(key="k")) == backend.send(sms(key="k"))


def test_console_writes_one_line_per_delivery() -> None:
    stream = io.StringIO()

    ConsoleBackend(stream).send(sms("line one\nline two", key="action-3"))

    assert stream.getvalue() == ('[sms] to=+16502530000 key=action-3 body="line one\\nline two"\n')


def test_console_shows_the_subject_of_an_email() -> None:
    stream = io.StringIO()
    email = Delivery(
        channel="email", to_address="a@example.com", subject="Hi", body="x", idempotency_key="k"
    )

    ConsoleBackend(stream).send(email)

    assert 'subject="Hi"' in stream.getvalue()


def test_console_keeps_the_body_out_of_the_logs(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)

    ConsoleBackend(io.StringIO()).send(sms("Secret plans"))

    assert "action-1" in caplog.text
    assert "Secret plans" not in caplog.text


def test_console_defaults_to_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    ConsoleBackend().send(sms())

    assert "key=action-1" in capsys.readouterr().out


@pytest.mark.parametrize("status", [408, 429, 500, 502, 503, 504])
def test_throttling_timeouts_and_server_errors_are_transient(status: int) -> None:
    assert isinstance(error_for_http_status(status, "x"), TransientDeliveryError)


@pytest.mark.parametrize("status", [301, 400, 401, 403, 404, 422])
def test_other_client_errors_are_permanent(status: int) -> None:
    assert isinstance(error_for_http_status(status, "x"), PermanentDeliveryError)


def test_a_transient_error_keeps_the_retry_hint() -> None:
    error = error_for_http_status(429, "slow down", retry_after=3.0)

    assert isinstance(error, TransientDeliveryError)
    assert error.retry_after == 3.0
