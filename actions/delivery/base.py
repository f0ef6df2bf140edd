"""The delivery seam: what a backend is given, what it returns, and the pieces backends share.

Everything here is plain Python with no Django imports, so the seam can be unit-tested against
local fake servers and the Django layer can wire any backend by configuration alone.
"""

from __future__ import annotations

import json
import logging
import random
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any, Final, Protocol, TextIO

import httpx

from actions.delivery.errors import TransientDeliveryError
from actions.delivery.inbound import Inbound

logger = logging.getLogger(__name__)

# A channel's name: a key of ``actions.delivery.channels.TRANSPORTS``, the one list of them.
Channel = str


@dataclass(frozen=True, kw_only=True, slots=True)
class Delivery:
    """One message to send, exactly as the approver saw it.

    Keyword-only so a body can never be passed where an address was meant. ``body`` is left
    out of ``repr`` because a repr ends up in logs and tracebacks, and message text is the
    tenant's data. ``idempotency_key`` is stable across retries of the same action, so
    providers (and people reading a mailbox) can recognise a re-send.
    """

    channel: Channel
    to_address: str
    body: str = field(repr=False)
    idempotency_key: str
    subject: str | None = None

    def __post_init__(self) -> None:
        # Whether the channel exists is the channel table's to say, when a backend is built
        # for it (``build_backend``): this module is below the table, which imports it.
        if not self.channel.strip():
            raise ValueError("channel must not be empty")
        if not self.to_address.strip():
            raise ValueError("to_address must not be empty")
        if not self.idempotency_key.strip():
            raise ValueError("idempotency_key must not be empty")


@dataclass(frozen=True, slots=True)
class DeliveryResult:
    """What the provider said when it accepted the message.

    ``status`` is the provider's raw word ("queued", "sent", "accepted"): recorded as is, not
    mapped, so nothing is lost before anyone needs it.
    """

    provider_message_id: str
    status: str


class DeliveryBackend(Protocol):
    """One channel's way out. Raises TransientDeliveryError or PermanentDeliveryError only."""

    def send(self, delivery: Delivery) -> DeliveryResult: ...


@dataclass(frozen=True, kw_only=True)
class ChannelKind:
    """Everything the product knows of one delivery channel, declared in the channel's module
    and listed once in ``actions.delivery.channels.TRANSPORTS``.

    ``providers`` build the backends that reach a real provider from string settings (the
    ``outbox`` and ``console`` backends serve every channel); ``address`` puts a person's
    address in its stored form or raises ValueError saying why (``region`` is the country
    assumed for phone numbers); ``inbound`` is the way replies come back, None when the
    channel has none.
    """

    name: str
    label: str
    providers: Mapping[str, Callable[[Mapping[str, str]], DeliveryBackend]]
    address: Callable[[str, str | None], str]
    inbound: Inbound | None = None


def require_channel(delivery: Delivery, channel: Channel, backend: str) -> None:
    """Refuse a delivery wired to the wrong backend: that is a configuration bug, not a
    provider failure, so it is a ValueError rather than a delivery error."""
    if delivery.channel != channel:
        raise ValueError(f"{backend} delivers {channel!r}, not {delivery.channel!r}")


class OutboxBackend:
    """Accepts everything and sends nothing.

    The Django layer persists the outbound message row; this backend only hands back a
    synthetic id derived from the idempotency key, so a repeated send yields the same id.
    """

    def send(self, delivery: Delivery) -> DeliveryResult:
        return DeliveryResult(f"outbox-{delivery.idempotency_key}", "outboxed")


class ConsoleBackend:
    """Prints one line per delivery to a text stream, for local development.

    The line includes the body (escaped, so it stays one line) because seeing the text is the
    point in development. Logs get only the key: bodies never go to logs at INFO.
    """

    def __init__(self, stream: TextIO | None = None) -> None:
        # None means "sys.stdout at send time", so redirected or captured stdout still works.
        self._stream = stream

    def send(self, delivery: Delivery) -> DeliveryResult:
        stream = self._stream if self._stream is not None else sys.stdout
        stream.write(console_line(delivery) + "\n")
        stream.flush()
        logger.info(
            "console delivery key=%s channel=%s", delivery.idempotency_key, delivery.channel
        )
        return DeliveryResult(f"console-{delivery.idempotency_key}", "printed")


def console_line(delivery: Delivery) -> str:
    """One line summarising a delivery; JSON-escaped text keeps newlines from splitting it."""
    parts = [f"[{delivery.channel}] to={delivery.to_address}", f"key={delivery.idempotency_key}"]
    if delivery.subject is not None:
        parts.append(f"subject={json.dumps(delivery.subject, ensure_ascii=False)}")
    parts.append(f"body={json.dumps(delivery.body, ensure_ascii=False)}")
    return " ".join(parts)


_MAX_EXPONENT: Final = 62  # 2**62 seconds is already far past any cap; avoids float overflow


def backoff_seconds(
    attempt: int,
    *,
    base: float = 2.0,
    cap: float = 300.0,
    jitter: bool = False,
    rng: random.Random | None = None,
    retry_after: float | None = None,
) -> float:
    """Seconds to wait before retry number ``attempt`` (0 for the first retry).

    The Celery delivery task uses this as its ``countdown``: exponential growth keeps a
    struggling provider from being hammered, the cap keeps a long outage from pushing retries
    past the point anyone cares. ``jitter`` draws from [delay/2, delay] so many actions failing
    together do not retry in lockstep, while never retrying at once; pass
    ``rng=random.Random(seed)`` to make the draw reproducible. A provider's ``retry_after``
    hint is a floor and may exceed the cap: retrying sooner only earns another 429.
    """
    if attempt < 0:
        raise ValueError(f"attempt must be >= 0, got {attempt}")
    delay = min(cap, base * 2.0 ** min(attempt, _MAX_EXPONENT))
    if jitter:
        delay = (rng or random).uniform(delay / 2, delay)
    if retry_after is not None:
        delay = max(delay, retry_after)
    return delay


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Read an HTTP ``Retry-After`` value: delta-seconds or an HTTP date. None if unusable.

    An unreadable hint is ignored rather than treated as an error: the backoff still applies.
    """
    if value is None or not value.strip():
        return None
    text = value.strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def http_post(
    url: str,
    *,
    provider: str,
    timeout: float,
    headers: Mapping[str, str] | None = None,
    form: Mapping[str, str] | None = None,
    json_body: Any = None,
    auth: tuple[str, str] | None = None,
    secret: str | None = None,
) -> httpx.Response:
    """POST once; turn every failure to get an answer into a TransientDeliveryError.

    ``secret`` is scrubbed from error messages (Telegram puts the bot token in the URL), since
    those messages are stored on the action and shown to approvers. Redirects are not followed:
    a provider API that redirects a POST is a wrong base URL, surfaced as a non-2xx answer.
    """
    try:
        with httpx.Client(timeout=timeout, auth=auth, follow_redirects=False) as client:
            return client.post(url, headers=headers, data=form, json=json_body)
    except httpx.TimeoutException as exc:
        raise TransientDeliveryError(_scrub(f"{provider} timed out: {exc}", secret)) from exc
    except httpx.TransportError as exc:
        raise TransientDeliveryError(_scrub(f"{provider} unreachable: {exc}", secret)) from exc


def json_object(response: httpx.Response) -> dict[str, Any]:
    """The response body as a JSON object, or {} when it is not one (an HTML error page from
    a proxy, an empty body): callers then fall back to the HTTP status line."""
    try:
        data = response.json()
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _scrub(message: str, secret: str | None) -> str:
    return message.replace(secret, "<redacted>") if secret else message
