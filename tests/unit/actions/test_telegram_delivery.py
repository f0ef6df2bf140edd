"""TelegramBackend against a real local fake of the Bot API."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from actions.delivery import Delivery, PermanentDeliveryError, TransientDeliveryError
from actions.delivery.telegram import TelegramBackend
from tests.unit.actions.fakes import FakeTelegramServer, ScriptedResponse, free_port


@pytest.fixture
def telegram() -> Iterator[FakeTelegramServer]:
    with FakeTelegramServer() as server:
        yield server


def backend_for(server: FakeTelegramServer, *, timeout: float = 5.0) -> TelegramBackend:
    return TelegramBackend(server.bot_token, base_url=server.base_url, timeout=timeout)


def message(chat: str = "987654321") -> Delivery:
    return Delivery(
        channel="telegram", to_address=chat, body="Room 4 is free", idempotency_key="action-7"
    )


def test_it_posts_chat_id_and_text_as_json(telegram: FakeTelegramServer) -> None:
    backend_for(telegram).send(message())

    request = telegram.requests[0]
    assert request.path == f"/bot{telegram.bot_token}/sendMessage"
    assert request.headers["content-type"] == "application/json"
    assert request.body == {"chat_id": "987654321", "text": "Room 4 is free"}


def test_it_returns_chat_and_message_id(telegram: FakeTelegramServer) -> None:
    result = backend_for(telegram).send(message("987654321"))

    assert result.provider_message_id == "987654321:1"
    assert result.status == "sent"


def test_400_carries_provider_message(telegram: FakeTelegramServer) -> None:
    telegram.respond_with(FakeTelegramServer.error(400, "Bad Request: chat not found"))

    with pytest.raises(PermanentDeliveryError) as caught:
        backend_for(telegram).send(message())

    assert str(caught.value) == "Telegram error 400: Bad Request: chat not found"
    assert caught.value.provider_code == "400"


def test_blocked_bot_is_permanent(telegram: FakeTelegramServer) -> None:
    telegram.respond_with(FakeTelegramServer.error(403, "Forbidden: bot was blocked by the user"))

    with pytest.raises(PermanentDeliveryError, match="blocked by the user"):
        backend_for(telegram).send(message())


def test_429_is_transient_with_telegrams_retry_after(telegram: FakeTelegramServer) -> None:
    telegram.respond_with(
        FakeTelegramServer.error(429, "Too Many Requests: retry after 12", retry_after=12)
    )

    with pytest.raises(TransientDeliveryError) as caught:
        backend_for(telegram).send(message())

    assert caught.value.retry_after == 12.0


def test_500_is_transient(telegram: FakeTelegramServer) -> None:
    telegram.respond_with(FakeTelegramServer.error(500, "Internal Server Error"))

    with pytest.raises(TransientDeliveryError, match="Internal Server Error"):
        backend_for(telegram).send(message())


def test_ok_false_in_a_200_is_still_an_error(telegram: FakeTelegramServer) -> None:
    body = {"ok": False, "error_code": 400, "description": "Bad Request: message text is empty"}
    telegram.respond_with(ScriptedResponse(200, body))

    with pytest.raises(PermanentDeliveryError, match="message text is empty"):
        backend_for(telegram).send(message())


def test_wrong_token_is_permanent_and_never_echoed(telegram: FakeTelegramServer) -> None:
    backend = TelegramBackend("999:wrong-secret", base_url=telegram.base_url)

    with pytest.raises(PermanentDeliveryError, match="Unauthorized") as caught:
        backend.send(message())

    assert "wrong-secret" not in str(caught.value)


def test_timeout_is_transient(telegram: FakeTelegramServer) -> None:
    telegram.respond_with(ScriptedResponse(200, {"ok": True}, delay=2.0))

    with pytest.raises(TransientDeliveryError, match="timed out"):
        backend_for(telegram, timeout=0.2).send(message())


def test_network_error_message_does_not_leak_the_token() -> None:
    backend = TelegramBackend("555:top-secret", base_url=f"http://127.0.0.1:{free_port()}")

    with pytest.raises(TransientDeliveryError) as caught:
        backend.send(message())

    assert "top-secret" not in str(caught.value)


def test_success_without_message_id_is_permanent_to_avoid_a_double_send(
    telegram: FakeTelegramServer,
) -> None:
    telegram.respond_with(ScriptedResponse(200, {"ok": True, "result": {}}))

    with pytest.raises(PermanentDeliveryError, match="no message id"):
        backend_for(telegram).send(message())
