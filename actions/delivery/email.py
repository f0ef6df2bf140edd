"""E-mail over SMTP with the standard library's ``smtplib``.

Kept on plain ``smtplib`` so this layer stays free of Django; the Django layer may swap in
Django's mail backend later behind the same ``send(delivery) -> DeliveryResult`` interface.
"""

from __future__ import annotations

import hashlib
import logging
import re
import smtplib
import ssl
from collections.abc import Mapping
from email.message import EmailMessage
from email.utils import formatdate

from actions.delivery import options
from actions.delivery.base import (
    ChannelKind,
    Delivery,
    DeliveryBackend,
    DeliveryResult,
    require_channel,
)
from actions.delivery.errors import DeliveryError, PermanentDeliveryError, TransientDeliveryError

logger = logging.getLogger(__name__)

MESSAGE_ID_DOMAIN = "countersign"

# RFC 5322 dot-atom: what may stand left of the "@" in a Message-ID without quoting.
_DOT_ATOM = re.compile(r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*")


def message_id_for(idempotency_key: str, domain: str = MESSAGE_ID_DOMAIN) -> str:
    """The Message-ID a delivery is sent with: ``<{key}@{domain}>``.

    Derived from the idempotency key so a re-send carries the same Message-ID, which mail
    clients and people can recognise as a duplicate. A key that is not a valid dot-atom (or is
    very long) is replaced by its SHA-256 prefix, which is still stable across re-sends.
    """
    if len(idempotency_key) <= 64 and _DOT_ATOM.fullmatch(idempotency_key):
        left = idempotency_key
    else:
        left = hashlib.sha256(idempotency_key.encode()).hexdigest()[:32]
    return f"<{left}@{domain}>"


class SmtpEmailBackend:
    """Sends one plain-text message per delivery over a fresh SMTP connection.

    ``use_tls`` upgrades with STARTTLS (usually port 587), ``use_ssl`` connects with implicit
    TLS (usually port 465): the same meaning as Django's EMAIL_USE_TLS / EMAIL_USE_SSL. SMTP
    4xx replies and connection trouble are transient; 5xx replies are permanent.
    """

    def __init__(
        self,
        host: str,
        port: int,
        *,
        from_email: str,
        username: str | None = None,
        password: str | None = None,
        use_tls: bool = False,
        use_ssl: bool = False,
        timeout: float = 10.0,
        message_id_domain: str = MESSAGE_ID_DOMAIN,
    ) -> None:
        if use_tls and use_ssl:
            raise ValueError("use_tls (STARTTLS) and use_ssl (implicit TLS) exclude each other")
        self._host = host
        self._port = port
        self._from_email = from_email
        self._credentials = (username, password or "") if username else None
        self._use_tls = use_tls
        self._use_ssl = use_ssl
        self._timeout = timeout
        self._message_id_domain = message_id_domain

    def send(self, delivery: Delivery) -> DeliveryResult:
        require_channel(delivery, "email", "SmtpEmailBackend")
        message = self._message(delivery)
        try:
            self._transmit(message, delivery.to_address)
        except (smtplib.SMTPException, OSError) as exc:
            raise smtp_error(exc) from exc
        logger.info(
            "email sent key=%s message_id=%s", delivery.idempotency_key, message["Message-ID"]
        )
        return DeliveryResult(str(message["Message-ID"]), "accepted")

    def _message(self, delivery: Delivery) -> EmailMessage:
        """Build the message; a header the e-mail package refuses (a line break in a subject
        or address, which would otherwise inject headers) is a permanent failure."""
        message = EmailMessage()
        try:
            message["From"] = self._from_email
            message["To"] = delivery.to_address
            if delivery.subject is not None:
                message["Subject"] = delivery.subject
            message["Date"] = formatdate(usegmt=True)
            message["Message-ID"] = message_id_for(
                delivery.idempotency_key, self._message_id_domain
            )
        except ValueError as exc:
            raise PermanentDeliveryError(f"cannot build e-mail: {exc}") from exc
        message.set_content(delivery.body)
        return message

    def _transmit(self, message: EmailMessage, to_address: str) -> None:
        with self._connect() as smtp:
            if self._use_tls:
                smtp.starttls(context=ssl.create_default_context())
            if self._credentials:
                smtp.login(*self._credentials)
            smtp.send_message(message, to_addrs=[to_address])

    def _connect(self) -> smtplib.SMTP:
        if self._use_ssl:
            context = ssl.create_default_context()
            return smtplib.SMTP_SSL(self._host, self._port, timeout=self._timeout, context=context)
        return smtplib.SMTP(self._host, self._port, timeout=self._timeout)


def smtp_error(exc: smtplib.SMTPException | OSError) -> DeliveryError:
    """Sort an smtplib failure by its reply code; without a code, by what went wrong.

    Order matters: every SMTPException is an OSError, and a disconnect is the only
    code-less SMTPException worth retrying. The rest (STARTTLS or AUTH not offered) are
    configuration mismatches that retrying will not fix.
    """
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        code, reply = next(iter(exc.recipients.values()), (-1, b"recipient refused"))
        return error_for_smtp_reply(code, reply)
    if isinstance(exc, smtplib.SMTPResponseException):
        return error_for_smtp_reply(exc.smtp_code, exc.smtp_error)
    if isinstance(exc, smtplib.SMTPServerDisconnected):
        return TransientDeliveryError(f"SMTP server disconnected: {exc}")
    if isinstance(exc, smtplib.SMTPException):
        return PermanentDeliveryError(f"SMTP error: {exc}")
    return TransientDeliveryError(f"SMTP connection failed: {exc}")


def error_for_smtp_reply(code: int, reply: bytes | str) -> DeliveryError:
    """5xx is the server's final no; 4xx (and anything odd) means try later."""
    text = reply.decode("utf-8", "replace") if isinstance(reply, bytes) else reply
    message = f"SMTP {code} {text}".strip()
    if 500 <= code < 600:
        return PermanentDeliveryError(message, provider_code=str(code))
    return TransientDeliveryError(message, provider_code=str(code))


def _smtp(config: Mapping[str, str]) -> DeliveryBackend:
    use_tls = options.flag(config, "EMAIL_USE_TLS")
    use_ssl = options.flag(config, "EMAIL_USE_SSL")
    if use_tls and use_ssl:
        raise ValueError("EMAIL_USE_TLS and EMAIL_USE_SSL cannot both be true")
    return SmtpEmailBackend(
        options.required(config, "EMAIL_HOST"),
        options.port(config, "EMAIL_PORT", 25),
        from_email=options.required(config, "DEFAULT_FROM_EMAIL"),
        username=config.get("EMAIL_HOST_USER", "").strip() or None,
        password=config.get("EMAIL_HOST_PASSWORD") or None,
        use_tls=use_tls,
        use_ssl=use_ssl,
        timeout=options.seconds(config, "EMAIL_TIMEOUT", 10.0),
    )


_ADDRESS = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")


def email_address(address: str, region: str | None = None) -> str:
    """A rough shape check only: the relay is the judge (Django's forms check more closely)."""
    address = address.strip()
    if not _ADDRESS.fullmatch(address):
        raise ValueError(f"{address!r} is not an e-mail address")
    return address


# E-mail has no inbound replies: its digest carries signed links instead (docs/notifications.md).
CHANNEL = ChannelKind(
    name="email", label="E-mail", providers={"smtp": _smtp}, address=email_address
)
