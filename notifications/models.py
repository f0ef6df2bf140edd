"""How approvers want to hear of pending actions, and what they were told (tenant schema)."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import models

from actions.delivery import TRANSPORTS
from tenants.selectors import tenant_phone_region


class Channel(models.TextChoices):
    EMAIL = "email", "E-mail"
    TELEGRAM = "telegram", "Telegram"
    SMS = "sms", "SMS"


ADDRESS_MAX_CHARS = 254


class PreferenceInvalid(Exception):
    """A preference the settings page or the admin cannot store; the message says why."""


def preference_address_checked(*, channel: str, address: str) -> str:
    """``address`` in its stored form for ``channel``, or ``PreferenceInvalid`` saying why.
    An empty address is allowed for e-mail only (the account's own address is used). Every
    other channel's rule is its module's (the channel table, actions/delivery/channels.py)."""
    address = address.strip()
    kind = TRANSPORTS.get(channel)
    if kind is None:
        raise PreferenceInvalid(f"channel must be one of {', '.join(TRANSPORTS)}")
    if len(address) > ADDRESS_MAX_CHARS:
        raise PreferenceInvalid(f"the address is longer than {ADDRESS_MAX_CHARS} characters")
    if channel == Channel.EMAIL:
        if address:
            try:
                validate_email(address)
            except ValidationError:
                raise PreferenceInvalid(f"{address!r} is not an e-mail address") from None
        return address
    if not address:
        raise PreferenceInvalid(f"{kind.label} needs an address")
    try:
        return kind.address(address, tenant_phone_region())
    except ValueError as error:
        raise PreferenceInvalid(str(error)) from None


class NotificationPreference(models.Model):
    """One person's choice. Without a row: e-mail to the account's address, if it has one."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notification_preference"
    )
    channel = models.CharField(max_length=16, choices=Channel.choices, default=Channel.EMAIL)
    address = models.CharField(
        max_length=254,
        blank=True,
        help_text="E-mail address, Telegram chat id (or @username) or phone number (+…). "
        "Empty with e-mail: the account's own address.",
    )
    quiet = models.BooleanField(
        default=False, help_text="Send this person no approval notifications at all."
    )
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.user} ({'quiet' if self.quiet else self.channel})"

    def clean(self) -> None:
        """The admin form's check: the same rule as the settings page."""
        try:
            self.address = preference_address_checked(channel=self.channel, address=self.address)
        except PreferenceInvalid as error:
            raise ValidationError({"address": str(error)}) from None


class ApprovalDigest(models.Model):
    """One message to one approver listing actions that wait for them.

    ``uuid`` is the delivery's idempotency key (the e-mail's Message-ID), the same on every
    attempt. Sending is claimed with a conditional UPDATE (``queued → sending``), so a retried
    or redelivered task never sends a digest twice at once, and one left in ``sending`` by a
    dead worker is marked failed, never sent again.
    """

    class Status(models.TextChoices):
        QUEUED = "queued"
        SENDING = "sending"
        SENT = "sent"
        FAILED = "failed"

    uuid = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="approval_digests"
    )
    channel = models.CharField(max_length=16, choices=Channel.choices)
    address = models.CharField(max_length=254)
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.QUEUED, db_index=True
    )
    attempts = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    attempted_at = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.channel} to {self.user} ({self.status})"


class ApprovalNotice(models.Model):
    """ "``user`` was told of ``action`` in ``digest``": at most once per person and action,
    kept by the database, so concurrent or retried tasks can never list an action twice.

    A notice by SMS or Telegram carries ``reply_code``, the short code the person answers
    "YES 4821" / "NO 4821" with: bound to this person and action, and to the action's text as
    told (``arguments_hash``: an edit since makes it stale). ``answered_at`` makes it one-time.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    action = models.ForeignKey("chat.PendingAction", on_delete=models.CASCADE, related_name="+")
    digest = models.ForeignKey(ApprovalDigest, on_delete=models.CASCADE, related_name="notices")
    reply_code = models.CharField(max_length=8, blank=True, default="", db_index=True)
    arguments_hash = models.CharField(max_length=64, blank=True, default="")
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "action"], name="approval_notice_once"),
        ]

    def __str__(self) -> str:
        return f"{self.action_id} → {self.user_id}"


class DecisionLinkUse(models.Model):
    """ "``user`` decided ``action`` (at ``version``) through an e-mail's signed link": at most
    once per person, action and version, kept by the database, so a replayed link, a second
    tab or a double click never decides twice, and a second use can say when the first was.
    Stored in the same transaction as the decision: a decision refused leaves no use."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    action = models.ForeignKey("chat.PendingAction", on_delete=models.CASCADE, related_name="+")
    version = models.PositiveIntegerField()
    decision = models.CharField(max_length=16)  # approve | reject
    used_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "action", "version"], name="decision_link_used_once"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.decision} {self.action_id} v{self.version} by {self.user_id}"


class InboundReply(models.Model):
    """One text that came in through a provider's webhook, and what we answered. Unique per
    channel and provider message id, so a webhook call delivered again is recognised and
    changes nothing."""

    channel = models.CharField(max_length=16)
    message_id = models.CharField(max_length=128)
    sender = models.CharField(max_length=254)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    notice = models.ForeignKey(
        ApprovalNotice, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    outcome = models.CharField(max_length=32)
    reply = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["channel", "message_id"], name="inbound_reply_once"),
        ]

    def __str__(self) -> str:
        return f"{self.channel} from {self.sender}: {self.outcome}"
