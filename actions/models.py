"""What the assistant's write tools touch, in the tenant's schema.

Every effect row (announcement, outbound message, reminder) records the pending action that
caused it by uuid only (``action_id``): ``actions`` never imports ``chat`` (DESIGN.md §2), and
the uuid doubles as the idempotency key that makes re-executing an action create nothing new.
"""

from __future__ import annotations

import re
import uuid

from django.conf import settings
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models.functions import Lower

# A Telegram chat: a numeric id (negative for groups) or a public @username.
TELEGRAM_CHAT = re.compile(r"^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{4,31})$")


class ContactGroup(models.Model):
    """A named audience ("Parents - Class A"); names are unique regardless of case, because
    the model and staff refer to groups by name."""

    name = models.CharField(max_length=120)
    description = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(Lower("name"), name="contact_group_name_unique_ci"),
        ]

    def __str__(self) -> str:
        return self.name


class Contact(models.Model):
    """Someone the tenant may message. Addresses are optional per channel; ``phone`` is stored
    in E.164 (``actions.phone.normalize_e164``) so a number typed by staff matches it."""

    name = models.CharField(max_length=200, db_index=True)
    phone = models.CharField(max_length=20, blank=True, db_index=True, help_text="E.164")
    email = models.EmailField(blank=True, db_index=True)
    telegram_chat_id = models.CharField(max_length=64, blank=True, db_index=True)
    groups = models.ManyToManyField(ContactGroup, related_name="contacts", blank=True)
    opted_out = models.BooleanField(
        default=False, help_text="Never message this contact, whatever an action says."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        """Store the phone in E.164 and check the chat id (admin forms call this), or say what
        is wrong with them."""
        from actions.phone import InvalidPhoneNumber, normalize_e164
        from tenants.selectors import tenant_phone_region

        errors: dict[str, str] = {}
        if self.phone.strip():
            try:
                self.phone = normalize_e164(self.phone, tenant_phone_region())
            except InvalidPhoneNumber as error:
                errors["phone"] = str(error)
        self.telegram_chat_id = self.telegram_chat_id.strip()
        if self.telegram_chat_id and not TELEGRAM_CHAT.match(self.telegram_chat_id):
            errors["telegram_chat_id"] = "a Telegram chat id is a number or an @username"
        if errors:
            raise ValidationError(errors)


class Announcement(models.Model):
    """A published notice for a group (or everyone). ``action_id`` is unique: one action
    publishes at most one announcement, however often it is executed."""

    title = models.CharField(max_length=200)
    body = models.TextField()
    audience = models.ForeignKey(
        ContactGroup,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="announcements",
        help_text="Empty: everyone.",
    )
    published_at = models.DateTimeField(null=True, blank=True, db_index=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    action_id = models.UUIDField(null=True, blank=True, unique=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-published_at", "-created_at"]

    def __str__(self) -> str:
        return self.title


class OutboundMessage(models.Model):
    """One message to one address on one channel, and what became of it.

    Status moves only forward, each step a conditional UPDATE: queued → sending → sent or
    failed, with sending → queued again when a transient failure is retried. Only the worker
    that moved a row to ``sending`` talks to the provider, so a redelivered task never sends
    twice. A row stuck in ``sending`` means a worker died mid-send: whether the provider got
    the message is unknown, so once it has sat there for ``ACTIONS_SENDING_ABANDONED_SECONDS``
    it is marked ``failed`` ("delivery unknown") for a person to check, never re-sent.
    """

    class Channel(models.TextChoices):
        SMS = "sms", "SMS"
        TELEGRAM = "telegram", "Telegram"
        EMAIL = "email", "E-mail"

    class Status(models.TextChoices):
        QUEUED = "queued"
        SENDING = "sending"
        SENT = "sent"
        FAILED = "failed"

    # Sent to the provider as the idempotency key (Twilio header, e-mail Message-ID).
    uuid = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    action_id = models.UUIDField(db_index=True, editable=False)
    channel = models.CharField(max_length=16, choices=Channel.choices)
    contact = models.ForeignKey(
        Contact, on_delete=models.SET_NULL, null=True, blank=True, related_name="messages"
    )
    to_address = models.CharField(max_length=254)
    subject = models.CharField(max_length=200, blank=True)
    body = models.TextField()
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.QUEUED, db_index=True
    )
    provider_message_id = models.CharField(max_length=200, blank=True)
    provider_status = models.CharField(max_length=64, blank=True)
    error = models.TextField(blank=True)
    attempts = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            # Re-executing an action finds its rows instead of adding new ones.
            models.UniqueConstraint(
                fields=["action_id", "channel", "to_address"],
                name="outbound_message_once_per_action_and_address",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_channel_display()} to {self.to_address} ({self.status})"


class Reminder(models.Model):
    """A write action to run later: ``tool`` with ``arguments`` (already validated), at
    ``due_at``. Fired by the beat-polled ``actions.fire_due_reminders``, which claims a due
    row with SELECT … FOR UPDATE SKIP LOCKED and marks it fired in the same transaction as
    the effect, so it fires exactly once however many ticks and workers race for it."""

    class Status(models.TextChoices):
        SCHEDULED = "scheduled"
        FIRED = "fired"
        FAILED = "failed"
        CANCELLED = "cancelled"

    action_id = models.UUIDField(unique=True, editable=False)
    due_at = models.DateTimeField()
    tool = models.CharField(max_length=64)
    arguments = models.JSONField()
    description = models.TextField(blank=True)
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.SCHEDULED, db_index=True
    )
    result = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    fired_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["due_at"]
        indexes = [models.Index(fields=["status", "due_at"], name="reminder_due_idx")]

    def __str__(self) -> str:
        return f"{self.tool} at {self.due_at:%Y-%m-%d %H:%M} ({self.status})"


class EditConfirmer(models.TextChoices):
    REQUESTER = "requester", "The requester"
    ANOTHER_APPROVER = "another_approver", "Another approver"


class ToolPolicy(models.Model):
    """The tenant's rules for one write tool. A missing row means the defaults below
    (``actions.tools.registry.policies_create`` makes the rows the tenant admin edits)."""

    tool_name = models.CharField(max_length=64, unique=True)
    enabled = models.BooleanField(default=True)
    approver_group = models.ForeignKey(
        Group,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        help_text="Who may approve this tool's actions. Empty: the 'approver' role.",
    )
    allow_self_approval = models.BooleanField(
        default=False, help_text="May the person who requested an action also approve it?"
    )
    max_recipients = models.PositiveIntegerField(
        default=50, help_text="Most recipients one action may reach."
    )
    # Counted from the proposal; changing it applies to requests proposed from then on.
    expires_after_hours = models.PositiveIntegerField(
        default=24,
        validators=[MinValueValidator(1), MaxValueValidator(24 * 30)],
        help_text="How long a request may wait for a decision (hours, 1 to 720). After that "
        "it expires and can no longer be approved.",
    )
    # Four eyes on the final text (docs/web.md): an approver's edit is a counter-proposal that
    # someone other than its editor confirms before it runs.
    edit_confirmed_by = models.CharField(
        max_length=16,
        choices=EditConfirmer.choices,
        default=EditConfirmer.REQUESTER,
        help_text="Who confirms an approver's edit before it runs: the person who asked for "
        "the action, or another approver (never the one who edited it).",
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["tool_name"]
        verbose_name_plural = "tool policies"

    def __str__(self) -> str:
        return self.tool_name
