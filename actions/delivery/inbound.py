"""Messages coming back in through a provider's webhook (an approver's "YES 4821").

Plain Python like the rest of the seam: a channel module says how its provider signs a webhook,
what sender and text a request carries, and how to answer in the same channel. The Django view
(notifications/webhooks.py) hands it an ``InboundRequest`` and never reads a provider's format.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True, kw_only=True)
class InboundRequest:
    """A webhook request as it reached us. ``url`` is the absolute URL the provider posted to
    (signatures cover it), ``headers`` have lower-case names, ``form`` is the parsed form body
    (empty for JSON)."""

    url: str
    headers: Mapping[str, str]
    body: bytes = field(repr=False)
    form: Mapping[str, str] = field(default_factory=dict, repr=False)


@dataclass(frozen=True, kw_only=True)
class InboundMessage:
    """One text a person sent. ``senders`` are every address that names them on this channel
    (a Telegram chat id and @username), in the form preferences store; ``message_id`` is the
    provider's id for it, the same when the provider delivers it again."""

    senders: tuple[str, ...]
    text: str = field(repr=False)
    message_id: str


@dataclass(frozen=True)
class InboundAnswer:
    """The webhook's HTTP answer, which the provider turns into a reply in the same channel."""

    content_type: str
    body: bytes


class Inbound(Protocol):
    """A channel's way in. ``secret_setting`` names the setting holding the shared secret."""

    secret_setting: str

    def verified(self, request: InboundRequest, *, secret: str) -> bool: ...

    def message(self, request: InboundRequest) -> InboundMessage | None: ...

    def answer(self, message: InboundMessage, text: str) -> InboundAnswer: ...
