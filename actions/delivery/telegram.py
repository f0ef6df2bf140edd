"""Telegram messages through the Bot API's ``sendMessage``."""

from __future__ import annotations

import hmac
import json
import logging
import re
from collections.abc import Mapping
from typing import Any

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


def _telegram(config: Mapping[str, str]) -> DeliveryBackend:
    return TelegramBackend(
        options.required(config, "TELEGRAM_BOT_TOKEN"),
        base_url=options.url(config, "TELEGRAM_BASE_URL", TELEGRAM_API_URL),
        timeout=options.seconds(config, "TELEGRAM_TIMEOUT", 10.0),
    )


# A Telegram chat id (a group's is negative) or a public @username.
_TELEGRAM_CHAT = re.compile(r"-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{4,31}")


def telegram_address(address: str, region: str | None = None) -> str:
    address = address.strip()
    if not _TELEGRAM_CHAT.fullmatch(address):
        raise ValueError(
            f"{address!r} is not a Telegram chat id (digits) or @username (5 to 32 characters)"
        )
    return address


SECRET_HEADER = "x-telegram-bot-api-secret-token"


class TelegramInbound:
    """The Bot API's webhook: an ``Update`` as JSON, authenticated by the secret token given
    to ``setWebhook`` (sent back in a header), answered with a ``sendMessage`` call in the
    response body, which Telegram performs."""

    secret_setting = "TELEGRAM_INBOUND_SECRET"

    def verified(self, request: InboundRequest, *, secret: str) -> bool:
        given = request.headers.get(SECRET_HEADER, "")
        return bool(given) and hmac.compare_digest(given.encode(), secret.encode())

    def message(self, request: InboundRequest) -> InboundMessage | None:
        try:
            update = json.loads(request.body)
        except ValueError:
            return None
        message = update.get("message") if isinstance(update, dict) else None
        if not isinstance(message, dict) or not isinstance(message.get("text"), str):
            return None  # an edit, a photo, a channel post: nothing to answer
        chat = message.get("chat")
        chat_id = chat.get("id") if isinstance(chat, dict) else None
        if not isinstance(chat_id, int) or isinstance(chat_id, bool):
            return None
        senders = [str(chat_id)]
        sender = message.get("from")
        username = sender.get("username") if isinstance(sender, dict) else None
        if isinstance(username, str) and username:
            senders.append(f"@{username}")
        return InboundMessage(
            senders=tuple(senders),
            text=message["text"],
            message_id=f"{chat_id}:{message.get('message_id')}",
        )

    def answer(self, message: InboundMessage, text: str) -> InboundAnswer:
        call = {"method": "sendMessage", "chat_id": int(message.senders[0]), "text": text}
        return InboundAnswer("application/json", json.dumps(call).encode())


CHANNEL = ChannelKind(
    name="telegram",
    label="Telegram",
    providers={"telegram": _telegram},
    address=telegram_address,
    inbound=TelegramInbound(),
)
