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
    CHANNELS,
    Channel,
    ConsoleBackend,
    Delivery,
    DeliveryBackend,
    DeliveryResult,
    OutboxBackend,
    backoff_seconds,
)
from actions.delivery.email import SmtpEmailBackend, message_id_for
from actions.delivery.errors import DeliveryError, PermanentDeliveryError, TransientDeliveryError
from actions.delivery.sms import TWILIO_API_URL, TwilioSmsBackend
from actions.delivery.telegram import TELEGRAM_API_URL, TelegramBackend

__all__ = [
    "BACKEND_CHANNELS",
    "Channel",
    "ConsoleBackend",
    "Delivery",
    "DeliveryBackend",
    "DeliveryError",
    "DeliveryResult",
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

BACKEND_CHANNELS: Final[Mapping[str, frozenset[str]]] = {
    "outbox": CHANNELS,
    "console": CHANNELS,
    "twilio": frozenset({"sms"}),
    "telegram": frozenset({"telegram"}),
    "smtp": frozenset({"email"}),
}

_TRUE: Final = frozenset({"1", "true", "yes", "on"})
_FALSE: Final = frozenset({"0", "false", "no", "off", ""})


def build_backend(channel: str, name: str, config: Mapping[str, str]) -> DeliveryBackend:
    """Build the backend ``name`` for ``channel`` from string settings, checked up front.

    Raises ValueError naming the unknown channel or backend, the backend that cannot carry
    the channel, or the setting that is missing or malformed, so a bad deployment fails at
    start-up rather than on the first approved action.
    """
    if channel not in CHANNELS:
        raise ValueError(
            f"unknown delivery channel {channel!r}; expected one of {sorted(CHANNELS)}"
        )
    if name not in BACKEND_CHANNELS:
        raise ValueError(
            f"unknown delivery backend {name!r}; expected one of {sorted(BACKEND_CHANNELS)}"
        )
    if channel not in BACKEND_CHANNELS[name]:
        raise ValueError(f"delivery backend {name!r} cannot deliver {channel!r}")
    return _BUILDERS[name](config)


def _outbox(config: Mapping[str, str]) -> DeliveryBackend:
    return OutboxBackend()


def _console(config: Mapping[str, str]) -> DeliveryBackend:
    return ConsoleBackend()


def _twilio(config: Mapping[str, str]) -> DeliveryBackend:
    return TwilioSmsBackend(
        _required(config, "TWILIO_ACCOUNT_SID"),
        _required(config, "TWILIO_AUTH_TOKEN"),
        _required(config, "TWILIO_FROM_NUMBER"),
        base_url=_url(config, "TWILIO_BASE_URL", TWILIO_API_URL),
        timeout=_seconds(config, "TWILIO_TIMEOUT", 10.0),
    )


def _telegram(config: Mapping[str, str]) -> DeliveryBackend:
    return TelegramBackend(
        _required(config, "TELEGRAM_BOT_TOKEN"),
        base_url=_url(config, "TELEGRAM_BASE_URL", TELEGRAM_API_URL),
        timeout=_seconds(config, "TELEGRAM_TIMEOUT", 10.0),
    )


def _smtp(config: Mapping[str, str]) -> DeliveryBackend:
    use_tls = _flag(config, "EMAIL_USE_TLS")
    use_ssl = _flag(config, "EMAIL_USE_SSL")
    if use_tls and use_ssl:
        raise ValueError("EMAIL_USE_TLS and EMAIL_USE_SSL cannot both be true")
    return SmtpEmailBackend(
        _required(config, "EMAIL_HOST"),
        _port(config, "EMAIL_PORT", 25),
        from_email=_required(config, "DEFAULT_FROM_EMAIL"),
        username=config.get("EMAIL_HOST_USER", "").strip() or None,
        password=config.get("EMAIL_HOST_PASSWORD") or None,
        use_tls=use_tls,
        use_ssl=use_ssl,
        timeout=_seconds(config, "EMAIL_TIMEOUT", 10.0),
    )


_BUILDERS: Final[Mapping[str, Callable[[Mapping[str, str]], DeliveryBackend]]] = {
    "outbox": _outbox,
    "console": _console,
    "twilio": _twilio,
    "telegram": _telegram,
    "smtp": _smtp,
}


def _required(config: Mapping[str, str], key: str) -> str:
    value = config.get(key, "").strip()
    if not value:
        raise ValueError(f"{key} is required")
    return value


def _url(config: Mapping[str, str], key: str, default: str) -> str:
    value = config.get(key, "").strip() or default
    if not value.startswith(("http://", "https://")):
        raise ValueError(f"{key} must be an http:// or https:// URL, got {value!r}")
    return value


def _seconds(config: Mapping[str, str], key: str, default: float) -> float:
    raw = config.get(key, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 < value < float("inf"):
        raise ValueError(f"{key} must be a positive number of seconds, got {raw!r}")
    return value


def _port(config: Mapping[str, str], key: str, default: int) -> int:
    raw = config.get(key, "").strip()
    if not raw:
        return default
    if not raw.isdigit() or not 0 < int(raw) < 65536:
        raise ValueError(f"{key} must be a port number between 1 and 65535, got {raw!r}")
    return int(raw)


def _flag(config: Mapping[str, str], key: str) -> bool:
    raw = config.get(key, "").strip().lower()
    if raw in _TRUE:
        return True
    if raw in _FALSE:
        return False
    raise ValueError(f"{key} must be true or false (1/0, yes/no, on/off), got {config[key]!r}")
