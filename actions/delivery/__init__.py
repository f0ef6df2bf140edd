"""Delivery backends: how an approved SMS, Telegram or e-mail action leaves the building.

One interface (``send(Delivery) -> DeliveryResult``, raising TransientDeliveryError or
PermanentDeliveryError), several backends, and ``build_backend`` to pick one from string
settings. No Django here: the Django layer reads its settings and passes them in.

Settings read by ``build_backend`` (optional ones show their default):

====================  ===================================================================
backend               settings
====================  ===================================================================
``outbox``            none (any channel)
``console``           none (any channel; prints to stdout)
``twilio`` (sms)      TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN, TWILIO_FROM_NUMBER,
                      TWILIO_BASE_URL=https://api.twilio.com, TWILIO_TIMEOUT=10
``telegram``          TELEGRAM_BOT_TOKEN, TELEGRAM_BASE_URL=https://api.telegram.org,
                      TELEGRAM_TIMEOUT=10
``smtp`` (email)      EMAIL_HOST, DEFAULT_FROM_EMAIL, EMAIL_PORT=25, EMAIL_HOST_USER="",
                      EMAIL_HOST_PASSWORD="", EMAIL_USE_TLS=false, EMAIL_USE_SSL=false,
                      EMAIL_TIMEOUT=10
====================  ===================================================================

The e-mail names match Django's own settings, so the same values can feed both.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

from actions.delivery.base import (
    Channel,
    ChannelKind,
    ConsoleBackend,
    Delivery,
    DeliveryBackend,
    DeliveryResult,
    OutboxBackend,
    backoff_seconds,
)
from actions.delivery.channels import TRANSPORTS
from actions.delivery.email import SmtpEmailBackend, message_id_for
from actions.delivery.errors import DeliveryError, PermanentDeliveryError, TransientDeliveryError
from actions.delivery.inbound import InboundAnswer, InboundMessage, InboundRequest
from actions.delivery.sms import TwilioSmsBackend
from actions.delivery.telegram import TelegramBackend

__all__ = [
    "TRANSPORTS",
    "Channel",
    "ChannelKind",
    "ConsoleBackend",
    "Delivery",
    "DeliveryBackend",
    "DeliveryError",
    "DeliveryResult",
    "InboundAnswer",
    "InboundMessage",
    "InboundRequest",
    "OutboxBackend",
    "PermanentDeliveryError",
    "SmtpEmailBackend",
    "TelegramBackend",
    "TransientDeliveryError",
    "TwilioSmsBackend",
    "backoff_seconds",
    "build_backend",
    "message_id_for",
]

# Backends that serve every channel; the others are the providers of a channel's module.
_ANY_CHANNEL: Final[Mapping[str, Callable[[Mapping[str, str]], DeliveryBackend]]] = {
    "outbox": lambda config: OutboxBackend(),
    "console": lambda config: ConsoleBackend(),
}


def build_backend(channel: str, name: str, config: Mapping[str, str]) -> DeliveryBackend:
    """Build the backend ``name`` for ``channel`` from string settings, checked up front.

    Raises ValueError naming the unknown channel or backend, the backend that cannot carry
    the channel, or the setting that is missing or malformed, so a bad deployment fails at
    start-up rather than on the first approved action.
    """
    kind = TRANSPORTS.get(channel)
    if kind is None:
        raise ValueError(
            f"unknown delivery channel {channel!r}; expected one of {sorted(TRANSPORTS)}"
        )
    if name in _ANY_CHANNEL:
        return _ANY_CHANNEL[name](config)
    if name in kind.providers:
        return kind.providers[name](config)
    known = set(_ANY_CHANNEL).union(*(k.providers for k in TRANSPORTS.values()))
    if name not in known:
        raise ValueError(f"unknown delivery backend {name!r}; expected one of {sorted(known)}")
    raise ValueError(f"delivery backend {name!r} cannot deliver {channel!r}")
