"""The two ways a delivery can fail, and the rule that sorts provider answers into them.

The worker only needs one decision from a backend: *try again later* or *give up*. Every
backend therefore raises exactly one of the two exceptions below, and the message carries the
provider's own words so the approver reading the failed action sees why.
"""

from __future__ import annotations


class DeliveryError(Exception):
    """Base class: a delivery did not reach the provider in a usable way.

    ``provider_code`` is the provider's own error code (Twilio ``21211``, Telegram
    ``error_code``, an SMTP reply code) and ``status_code`` the HTTP status, when there was
    one; both are kept so the Django layer can record them without parsing the message.
    """

    def __init__(
        self,
        message: str,
        *,
        provider_code: str | None = None,
        status_code: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.provider_code = provider_code
        self.status_code = status_code


class TransientDeliveryError(DeliveryError):
    """The same delivery may succeed later: network trouble, a timeout, 5xx, 429, SMTP 4xx.

    ``retry_after`` is the provider's own hint in seconds (``Retry-After`` header, Telegram's
    ``parameters.retry_after``); the retry policy should wait at least that long.
    """

    def __init__(
        self,
        message: str,
        retry_after: float | None = None,
        *,
        provider_code: str | None = None,
        status_code: int | None = None,
    ) -> None:
        super().__init__(message, provider_code=provider_code, status_code=status_code)
        self.retry_after = retry_after


class PermanentDeliveryError(DeliveryError):
    """Sending the same delivery again will fail the same way: bad number, unknown chat,
    rejected credentials, SMTP 5xx. The action is marked failed and never retried."""


def error_for_http_status(
    status_code: int,
    message: str,
    *,
    provider_code: str | None = None,
    retry_after: float | None = None,
) -> DeliveryError:
    """Classify a non-success HTTP answer.

    429 and 5xx are the provider saying "not now"; 408 is a timeout by another name, and
    timeouts are transient. Any other status (4xx, or a surprising 3xx from a mis-set base
    URL) will not change on retry, so it is permanent.
    """
    if status_code in (408, 429) or status_code >= 500:
        return TransientDeliveryError(
            message,
            retry_after,
            provider_code=provider_code,
            status_code=status_code,
        )
    return PermanentDeliveryError(message, provider_code=provider_code, status_code=status_code)
