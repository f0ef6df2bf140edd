"""SMS through Twilio's Messages API (or anything that speaks it)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
from collections.abc import Mapping
from typing import Any
from xml.sax.saxutils import escape

import httpx

from actions.delivery import options
from actions.delivery.base import (
    ChannelKind,
    Delivery,
    DeliveryBackend,
    DeliveryResult,
    http_post,
    json_object,
    parse_retry_after,
    require_channel,
)
from actions.delivery.errors import PermanentDeliveryError, error_for_http_status
from actions.delivery.inbound import InboundAnswer, InboundMessage, InboundRequest
from actions.phone import normalize_e164

logger = logging.getLogger(__name__)

TWILIO_API_URL = "https://api.twilio.com"
IDEMPOTENCY_HEADER = "I-Twilio-Idempotency-Token"


class TwilioSmsBackend:
    """POSTs form-encoded To/From/Body to ``{base_url}/2010-04-01/Accounts/{sid}/Messages.json``.

    The idempotency key travels as ``I-Twilio-Idempotency-Token`` so a provider that honours it
    can drop a duplicate; the action's recorded status in the database remains the guard that
    stops a second send, since a network failure after Twilio accepted a message still looks
    transient from here. ``base_url`` exists for Twilio-compatible gateways and for tests.
    """

    def __init__(
        self,
        account_sid: str,
        auth_token: str,
        from_number: str,
        *,
        base_url: str = TWILIO_API_URL,
        timeout: float = 10.0,
    ) -> None:
        self._account_sid = account_sid
        self._auth_token = auth_token
        self._from_number = from_number
        self._url = f"{base_url.rstrip('/')}/2010-04-01/Accounts/{account_sid}/Messages.json"
        self._timeout = timeout

    def send(self, delivery: Delivery) -> DeliveryResult:
        require_channel(delivery, "sms", "TwilioSmsBackend")
        response = http_post(
            self._url,
            provider="Twilio",
            timeout=self._timeout,
            headers={IDEMPOTENCY_HEADER: delivery.idempotency_key},
            form={"To": delivery.to_address, "From": self._from_number, "Body": delivery.body},
            auth=(self._account_sid, self._auth_token),
        )
        if not response.is_success:
            raise _twilio_error(response)
        result = _twilio_result(json_object(response))
        logger.info(
            "sms sent key=%s sid=%s status=%s",
            delivery.idempotency_key,
            result.provider_message_id,
            result.status,
        )
        return result


def _twilio_error(response: httpx.Response) -> Exception:
    """Twilio errors look like {"code": 21211, "message": "...", "status": 400}; keep both."""
    body = json_object(response)
    code = body.get("code")
    text = body.get("message") or f"HTTP {response.status_code} {response.reason_phrase}"
    prefix = f"Twilio error {code}" if code is not None else "Twilio error"
    return error_for_http_status(
        response.status_code,
        f"{prefix}: {text}",
        provider_code=str(code) if code is not None else None,
        retry_after=parse_retry_after(response.headers.get("Retry-After")),
    )


def _twilio_result(body: dict[str, Any]) -> DeliveryResult:
    """A 2xx without a message sid is permanent, not transient: Twilio may well have accepted
    the message, and retrying would risk sending it twice."""
    sid = body.get("sid")
    if not isinstance(sid, str) or not sid:
        raise PermanentDeliveryError("Twilio accepted the request but returned no message sid")
    return DeliveryResult(sid, str(body.get("status") or "unknown"))


def _twilio(config: Mapping[str, str]) -> DeliveryBackend:
    return TwilioSmsBackend(
        options.required(config, "TWILIO_ACCOUNT_SID"),
        options.required(config, "TWILIO_AUTH_TOKEN"),
        options.required(config, "TWILIO_FROM_NUMBER"),
        base_url=options.url(config, "TWILIO_BASE_URL", TWILIO_API_URL),
        timeout=options.seconds(config, "TWILIO_TIMEOUT", 10.0),
    )


SIGNATURE_HEADER = "x-twilio-signature"


def twilio_signature(url: str, form: Mapping[str, str], *, secret: str) -> str:
    """Twilio's webhook signature: base64 HMAC-SHA1, keyed with the secret, of the URL
    followed by every form field's name and value, sorted by name."""
    signed = url + "".join(f"{name}{form[name]}" for name in sorted(form))
    digest = hmac.new(secret.encode(), signed.encode(), hashlib.sha1).digest()
    return base64.b64encode(digest).decode()


class TwilioInbound:
    """Twilio's incoming-message webhook: a signed form (``From``, ``Body``, ``MessageSid``),
    answered with TwiML, which Twilio sends back to the sender as an SMS."""

    secret_setting = "SMS_INBOUND_SECRET"

    def verified(self, request: InboundRequest, *, secret: str) -> bool:
        given = request.headers.get(SIGNATURE_HEADER, "")
        expected = twilio_signature(request.url, request.form, secret=secret)
        return bool(given) and hmac.compare_digest(given.encode(), expected.encode())

    def message(self, request: InboundRequest) -> InboundMessage | None:
        sender = request.form.get("From", "").strip()
        message_id = request.form.get("MessageSid", "").strip()
        if not sender or not message_id:
            return None
        try:
            sender = normalize_e164(sender, None)
        except ValueError:
            return None
        return InboundMessage(
            senders=(sender,), text=request.form.get("Body", ""), message_id=message_id
        )

    def answer(self, message: InboundMessage, text: str) -> InboundAnswer:
        twiml = (
            '<?xml version="1.0" encoding="UTF-8"?>'
            f"<Response><Message>{escape(text)}</Message></Response>"
        )
        return InboundAnswer("text/xml; charset=utf-8", twiml.encode())


CHANNEL = ChannelKind(
    name="sms",
    label="SMS",
    providers={"twilio": _twilio},
    address=normalize_e164,
    inbound=TwilioInbound(),
)
