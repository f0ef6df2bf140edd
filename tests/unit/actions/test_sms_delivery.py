"""TwilioSmsBackend against a real local fake of Twilio's Messages API."""

from __future__ import annotations

import base64
from collections.abc import Iterator

import pytest

from actions.delivery import Delivery, PermanentDeliveryError, TransientDeliveryError
from actions.delivery.sms import TwilioSmsBackend
from tests.unit.actions.fakes import FakeTwilioServer, ScriptedResponse, free_port


@pytest.fixture
def twilio() -> Iterator[FakeTwilioServer]:
    with FakeTwilioServer() as server:
        yield server


def backend_for(server: FakeTwilioServer, *, timeout: float = 5.0) -> TwilioSmsBackend:
    return TwilioSmsBackend(
        server.account_sid,
        server.auth_token,
        "+15005550006",
        base_url=server.base_url,
        timeout=timeout,
    )


def sms(key: str = "action-1") -> Delivery:
    return Delivery(
        channel="sms", to_address="+16502530000", body="Class moved to 5pm", idempotency_key=key
    )


def test_it_sends_sms_with_idempotency_header(twilio: FakeTwilioServer) -> None:
    backend_for(twilio).send(sms("action-42"))

    assert twilio.requests[0].headers["i-twilio-idempotency-token"] == "action-42"


def test_it_posts_form_encoded_to_from_and_body(twilio: FakeTwilioServer) -> None:
    backend_for(twilio).send(sms())

    request = twilio.requests[0]
    assert request.path == f"/2010-04-01/Accounts/{twilio.account_sid}/Messages.json"
    assert request.headers["content-type"] == "application/x-www-form-urlencoded"
    assert request.body == {
        "To": "+16502530000",
        "From": "+15005550006",
        "Body": "Class moved to 5pm",
    }


def test_non_ascii_text_is_sent_intact(twilio: FakeTwilioServer) -> None:
    delivery = Delivery(
        channel="sms", to_address="+16502530000", body="Занятие в 17:00 ✓", idempotency_key="k"
    )

    backend_for(twilio).send(delivery)

    assert twilio.requests[0].body["Body"] == "Занятие в 17:00 ✓"


def test_it_authenticates_with_basic_auth(twilio: FakeTwilioServer) -> None:
    backend_for(twilio).send(sms())

    expected = base64.b64encode(f"{twilio.account_sid}:{twilio.auth_token}".encode()).decode()
    assert twilio.requests[0].headers["authorization"] == f"Basic {expected}"


def test_it_returns_the_message_sid_and_raw_status(twilio: FakeTwilioServer) -> None:
    result = backend_for(twilio).send(sms())

    assert result.provider_message_id.startswith("SM")
    assert result.status == "queued"


def test_500_is_transient(twilio: FakeTwilioServer) -> None:
    twilio.respond_with(FakeTwilioServer.error(500, 20500, "Internal Server Error"))

    with pytest.raises(TransientDeliveryError, match="Internal Server Error"):
        backend_for(twilio).send(sms())


def test_it_succeeds_once_the_provider_recovers(twilio: FakeTwilioServer) -> None:
    outage = FakeTwilioServer.error(503, 20503, "Service Unavailable")
    twilio.respond_with(outage, outage)
    backend = backend_for(twilio)

    for _ in range(2):
        with pytest.raises(TransientDeliveryError):
            backend.send(sms("same-key"))
    result = backend.send(sms("same-key"))

    assert result.status == "queued"
    assert {r.headers["i-twilio-idempotency-token"] for r in twilio.requests} == {"same-key"}


def test_429_is_transient_with_retry_after(twilio: FakeTwilioServer) -> None:
    twilio.respond_with(
        FakeTwilioServer.error(429, 20429, "Too Many Requests", **{"Retry-After": "7"})
    )

    with pytest.raises(TransientDeliveryError) as caught:
        backend_for(twilio).send(sms())

    assert caught.value.retry_after == 7.0


def test_400_carries_provider_message(twilio: FakeTwilioServer) -> None:
    twilio.respond_with(
        FakeTwilioServer.error(400, 21211, "The 'To' number +1555 is not a valid phone number.")
    )

    with pytest.raises(PermanentDeliveryError) as caught:
        backend_for(twilio).send(sms())

    assert str(caught.value) == (
        "Twilio error 21211: The 'To' number +1555 is not a valid phone number."
    )
    assert caught.value.provider_code == "21211"
    assert caught.value.status_code == 400


def test_wrong_credentials_are_permanent(twilio: FakeTwilioServer) -> None:
    backend = TwilioSmsBackend(
        twilio.account_sid, "wrong-token", "+15005550006", base_url=twilio.base_url
    )

    with pytest.raises(PermanentDeliveryError, match="20003"):
        backend.send(sms())


def test_error_without_json_body_falls_back_to_status_line(twilio: FakeTwilioServer) -> None:
    twilio.respond_with(ScriptedResponse(502))

    with pytest.raises(TransientDeliveryError, match="HTTP 502 Bad Gateway"):
        backend_for(twilio).send(sms())


def test_timeout_is_transient(twilio: FakeTwilioServer) -> None:
    twilio.respond_with(ScriptedResponse(201, {"sid": "SM1"}, delay=2.0))

    with pytest.raises(TransientDeliveryError, match="timed out"):
        backend_for(twilio, timeout=0.2).send(sms())


def test_dropped_connection_is_transient(twilio: FakeTwilioServer) -> None:
    twilio.respond_with(ScriptedResponse(201, drop=True))

    with pytest.raises(TransientDeliveryError, match="unreachable"):
        backend_for(twilio).send(sms())


def test_connection_refused_is_transient() -> None:
    backend = TwilioSmsBackend(
        "AC1", "token", "+15005550006", base_url=f"http://127.0.0.1:{free_port()}"
    )

    with pytest.raises(TransientDeliveryError, match="unreachable"):
        backend.send(sms())


def test_success_without_sid_is_permanent_to_avoid_a_double_send(
    twilio: FakeTwilioServer,
) -> None:
    twilio.respond_with(ScriptedResponse(201, {"status": "queued"}))

    with pytest.raises(PermanentDeliveryError, match="no message sid"):
        backend_for(twilio).send(sms())


def test_it_refuses_a_delivery_for_another_channel(twilio: FakeTwilioServer) -> None:
    email = Delivery(channel="email", to_address="a@example.com", body="hi", idempotency_key="k")

    with pytest.raises(ValueError, match="not 'email'"):
        backend_for(twilio).send(email)
    assert twilio.requests == []
