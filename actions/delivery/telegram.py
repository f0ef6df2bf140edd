"""Telegram messages through the Bot API's ``sendMessage``."""

from __future__ import annotations

import logging
from typing import Any

import httpx

from actions.delivery.base import (
    Delivery,
    DeliveryResult,
    http_post,
    json_object,
    parse_retry_after,
    require_channel,
)
from actions.delivery.errors import PermanentDeliveryError, error_for_http_status

logger = logging.getLogger(__name__)

TELEGRAM_API_URL = "https://api.telegram.org"


class TelegramBackend:
    """POSTs JSON {chat_id, text} to ``{base_url}/bot{token}/sendMessage``.

    The Bot API has no idempotency header, so nothing on Telegram's side recognises a re-send:
    the action's recorded status in the database is what stops one. One gap remains and is
    accepted: a timeout *after* Telegram delivered the message is reported as transient, and
    its retry will deliver the text a second time.

    The bot token is part of the URL. It is scrubbed from every error message here, but httpx
    logs request URLs at INFO on the ``httpx`` logger, so keep that logger at WARNING.
    """

    def __init__(
        self,
        bot_token: str,
        *,
        base_url: str = TELEGRAM_API_URL,
        timeout: float = 10.0,
    ) -> None:
        self._bot_token = bot_token
        self._url = f"{base_url.rstrip('/')}/bot{bot_token}/sendMessage"
        self._timeout = timeout

    def send(self, delivery: Delivery) -> DeliveryResult:
        require_channel(delivery, "telegram", "TelegramBackend")
        response = http_post(
            self._url,
            provider="Telegram",
            timeout=self._timeout,
            json_body={"chat_id": delivery.to_address, "text": delivery.body},
            secret=self._bot_token,
        )
        body = json_object(response)
        if not response.is_success or body.get("ok") is not True:
            raise _telegram_error(response, body)
        result = _telegram_result(body)
        logger.info(
            "telegram sent key=%s id=%s", delivery.idempotency_key, result.provider_message_id
        )
        return result


def _telegram_error(response: httpx.Response, body: dict[str, Any]) -> Exception:
    """Telegram errors look like {"ok": false, "error_code": 400, "description": "..."}; a 429
    also carries {"parameters": {"retry_after": N}}, which beats the Retry-After header."""
    code = body.get("error_code")
    text = body.get("description") or f"HTTP {response.status_code} {response.reason_phrase}"
    parameters = body.get("parameters")
    hint = parameters.get("retry_after") if isinstance(parameters, dict) else None
    retry_after = (
        float(hint)
        if isinstance(hint, int | float)
        else parse_retry_after(response.headers.get("Retry-After"))
    )
    # A 200 with ok=false has no meaningful HTTP status; Telegram's error_code stands in.
    status = code if response.is_success and isinstance(code, int) else response.status_code
    return error_for_http_status(
        status,
        f"Telegram error {code or response.status_code}: {text}",
        provider_code=str(code) if code is not None else None,
        retry_after=retry_after,
    )


def _telegram_result(body: dict[str, Any]) -> DeliveryResult:
    """The id is ``"<chat id>:<message id>"``: Telegram message ids are only unique per chat,
    and editing or deleting the message later needs both. Missing ids are permanent, not
    transient, because the message was most likely delivered."""
    result = body.get("result")
    message_id = result.get("message_id") if isinstance(result, dict) else None
    chat = result.get("chat") if isinstance(result, dict) else None
    chat_id = chat.get("id") if isinstance(chat, dict) else None
    if message_id is None or chat_id is None:
        raise PermanentDeliveryError("Telegram accepted the message but returned no message id")
    return DeliveryResult(f"{chat_id}:{message_id}", "sent")
