"""The one outbox loop: claim a row, send it through its channel, back off or fail.

Outbound messages (``actions/services/messages.py``) and approver notices
(``notifications/services.py``) are both rows with a ``status`` (queued → sending → sent |
failed) and an ``attempts`` count. What happens to one attempt is decided here, once:

- **claim**: a conditional UPDATE ``queued → sending`` (and ``attempts + 1``); only the
  worker whose UPDATE matched talks to the provider, so a retried or redelivered task never
  sends a row twice at once;
- **send**: through the channel's configured backend (``actions.backends``, read from the
  channel table ``actions.delivery.channels.TRANSPORTS``);
- **back off**: a transient failure goes back to ``queued`` with a jittered exponential delay
  (a provider's Retry-After is a floor) until ``ACTIONS_DELIVERY_MAX_ATTEMPTS``;
- **fail**: a permanent failure, the last transient one, or anything unexpected (whether it
  left is unknown, so never retried) is ``failed`` with the reason.

Each caller keeps its own row's extra fields (a message's provider id, a digest's metric) by
what it does with the ``Sent``/``Retry``/``Failed`` outcome.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.db.models import F, Model

from actions.backends import delivery_backend
from actions.delivery import (
    Delivery,
    DeliveryResult,
    PermanentDeliveryError,
    TransientDeliveryError,
    backoff_seconds,
)

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Sent:
    result: DeliveryResult


@dataclass(frozen=True)
class Retry:
    """A transient failure: go back to ``queued`` and try again in ``delay`` seconds."""

    error: str
    delay: float


@dataclass(frozen=True)
class Failed:
    error: str


SendOutcome = Sent | Retry | Failed


def outbox_claim(model: type[Model], pk: int, **fields: object) -> bool:
    """Move row ``pk`` from ``queued`` to ``sending``, count the attempt and set ``fields``
    (when it began) in the same UPDATE; False when another worker has it or it is no longer
    queued."""
    claimed = model._default_manager.filter(pk=pk, status="queued").update(
        status="sending", attempts=F("attempts") + 1, **fields
    )
    return bool(claimed)


def outbox_send(
    compose: Callable[[], Delivery], *, channel: str, attempts: int, label: str
) -> SendOutcome:
    """One attempt (the row's ``attempts`` already counts it): what the row becomes.
    ``compose`` builds the message inside the attempt, so an unusable address fails the row
    like a provider's refusal. ``label`` names the row in logs; bodies never go to logs."""
    try:
        result = delivery_backend(channel).send(compose())
    except TransientDeliveryError as error:
        if attempts >= settings.ACTIONS_DELIVERY_MAX_ATTEMPTS:
            return Failed(f"{error.message} (gave up after {attempts} attempts)")
        delay = backoff_seconds(
            attempts - 1,
            base=settings.ACTIONS_RETRY_BASE_SECONDS,
            cap=settings.ACTIONS_RETRY_MAX_SECONDS,
            jitter=True,
            retry_after=error.retry_after,
        )
        logger.warning(
            "%s: transient failure on attempt %s, retrying in %.1fs: %s",
            label,
            attempts,
            delay,
            error.message,
        )
        return Retry(error.message, delay)
    except PermanentDeliveryError as error:
        return Failed(error.message)
    except Exception as error:
        # A bug, a broken configuration or an unusable address: whether anything left is
        # unknown, so never retry.
        logger.exception("delivery of %s crashed", label)
        return Failed(f"unexpected error: {error}")
    logger.info("%s sent via %s: %s", label, channel, result.status)
    return Sent(result)


def outbox_settle(model: type[Model], pk: int, **fields: object) -> bool:
    """Leave ``sending`` (for ``fields["status"]``); only the claiming worker can, so this never
    races. False when the row was no longer ``sending``."""
    return bool(model._default_manager.filter(pk=pk, status="sending").update(**fields))
