"""Conversations, messages, pending actions and their audit log (tenant schema)."""

from __future__ import annotations

import uuid
from typing import ClassVar

from django.conf import settings
from django.db import models
from django.utils import timezone


class ConversationQuerySet(models.QuerySet["Conversation"]):
    def live(self) -> ConversationQuerySet:
        """Not deleted by their owner: what every door that lists or opens a conversation by
        its uuid for its owner starts from."""
        return self.filter(deleted_at__isnull=True)


class Conversation(models.Model):
    TITLE_MAX_CHARS = 200

    uuid = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="conversations"
    )
    title = models.CharField(max_length=TITLE_MAX_CHARS, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # Set when the owner deletes it. Soft, because its pending actions, their audit trail and
    # usage rows must outlive it: an approver may still need the context of a request.
    deleted_at = models.DateTimeField(null=True, blank=True)

    objects = ConversationQuerySet.as_manager()

    class Meta:
        ordering = ["-updated_at"]

    def __str__(self) -> str:
        return self.title or str(self.uuid)


class Message(models.Model):
    class Role(models.TextChoices):
        USER = "user"
        ASSISTANT = "assistant"
        TOOL = "tool"

    class Status(models.TextChoices):
        COMPLETE = "complete"
        CANCELLED = "cancelled"
        ERROR = "error"

    uuid = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    conversation = models.ForeignKey(
        Conversation, on_delete=models.CASCADE, related_name="messages"
    )
    role = models.CharField(max_length=16, choices=Role.choices)
    content = models.TextField(blank=True)
    # [{"n": 1, "document": <id>, "title": "...", "snippet": "..."}] — passages of this turn.
    citations = models.JSONField(default=list, blank=True)
    # ["Emma Wilson", "Emma Park"] — the readings a clarifying question chooses between, which
    # the page offers as buttons (sending one answers the question).
    choices = models.JSONField(default=list, blank=True)
    MAX_CHOICES = 5  # buttons, not a list to read
    MAX_CHOICE_CHARS = 120
    # {"input_tokens": .., "output_tokens": .., "model": ".."}
    usage = models.JSONField(default=dict, blank=True)
    run_id = models.UUIDField(null=True, blank=True, db_index=True)
    # Set on user messages: who sent it and the client's id for it. A client id is unique per
    # sender, not per conversation: a first chat.send retried after a reconnect has no
    # conversation yet, and must find the one its first attempt created.
    sender = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
    )
    client_id = models.UUIDField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.COMPLETE)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["sender", "client_id"],
                name="message_client_id_once_per_sender",
                condition=models.Q(client_id__isnull=False),
            ),
            # A run produces at most one assistant reply, even when a worker redelivers it.
            models.UniqueConstraint(
                fields=["run_id", "role"],
                name="message_one_reply_per_run",
                condition=models.Q(run_id__isnull=False, role="assistant"),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.role}: {self.content[:60]}"


class PendingAction(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending"
        APPROVED = "approved"
        REJECTED = "rejected"
        EXECUTING = "executing"
        EXECUTED = "executed"
        FAILED = "failed"
        EXPIRED = "expired"
        WITHDRAWN = "withdrawn"  # by its requester, before anyone decided (DESIGN §10)
        # An approver changed the arguments: a counter-proposal that someone other than its
        # editor (the requester, or per policy another approver) confirms before it can run.
        EDITED = "edited"

    # The status rules, in one place: services move rows only along these arrows (each move a
    # conditional UPDATE from the statuses that may precede the new one), and presenters, the
    # graph and the turn ask the sets below instead of listing statuses themselves. A status
    # with no arrow out (executed, failed, rejected, withdrawn, expired) is final.
    TRANSITIONS: ClassVar[dict[str, frozenset[str]]] = {
        Status.PENDING: frozenset(
            {Status.APPROVED, Status.EDITED, Status.REJECTED, Status.WITHDRAWN, Status.EXPIRED}
        ),
        # Confirmed (approved), declined (rejected), withdrawn, or expired at the same time a
        # pending one would: the edit never extends the waiting time.
        Status.EDITED: frozenset(
            {Status.APPROVED, Status.REJECTED, Status.WITHDRAWN, Status.EXPIRED}
        ),
        Status.APPROVED: frozenset({Status.EXECUTING}),
        Status.EXECUTING: frozenset({Status.EXECUTED, Status.FAILED}),
    }
    # Nobody has had the last word yet: it can still be withdrawn, and it expires.
    UNDECIDED: ClassVar[frozenset[str]] = frozenset({Status.PENDING, Status.EDITED})
    # Ended without the tool ever running: the turn ends with a fixed reply.
    NOT_RUN: ClassVar[frozenset[str]] = frozenset(
        {Status.REJECTED, Status.WITHDRAWN, Status.EXPIRED}
    )
    # The tool ran and has an outcome to report.
    FINISHED: ClassVar[frozenset[str]] = frozenset({Status.EXECUTED, Status.FAILED})
    # A person approved it (perhaps after editing its arguments): running or done.
    APPROVED_SINCE: ClassVar[frozenset[str]] = frozenset(
        {Status.APPROVED, Status.EXECUTING, Status.EXECUTED, Status.FAILED}
    )

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="actions")
    tool_call_id = models.CharField(max_length=200)
    tool = models.CharField(max_length=64)
    arguments = models.JSONField()
    # sha256 of the canonical JSON of the arguments the approver saw and decided on.
    arguments_hash = models.CharField(max_length=64)
    description = models.TextField()
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.PENDING, db_index=True
    )
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="requested_actions"
    )
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="decided_actions",
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    note = models.TextField(blank=True)
    result = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    # When an undecided request expires (its tool policy's ``expires_after_hours`` after the
    # proposal). Fixed at proposal, so a later policy change never expires a request early.
    expires_at = models.DateTimeField(null=True, blank=True, db_index=True)
    # Which version of the arguments ``arguments`` is: 1 as proposed, 2 after an approver's
    # edit (every version, with who proposed it and when, is in the ``edited`` events).
    version = models.PositiveIntegerField(default=1)
    # Who proposed the current version when it is an approver's edit: never its confirmer.
    edited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="edited_actions",
    )
    # The W3C traceparent of the turn that proposed it (empty with tracing off): its resume,
    # whoever decides and whenever, continues that trace (core/tracing.py).
    trace_context = models.CharField(max_length=64, blank=True, default="", editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            # The approval node re-runs from its start on resume: this keeps it idempotent.
            models.UniqueConstraint(
                fields=["conversation", "tool_call_id"], name="pending_action_once_per_call"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.tool} ({self.status})"

    @classmethod
    def preceding(cls, status: str) -> list[str]:
        """The statuses an action may move to ``status`` from."""
        return [before for before, after in cls.TRANSITIONS.items() if status in after]

    @property
    def is_decidable(self) -> bool:
        """An approver may still approve (perhaps editing), reject, or its requester withdraw it.
        An edited action is not: it waits for its confirmer (``awaits_confirmation``)."""
        return self.status == self.Status.PENDING

    @property
    def awaits_confirmation(self) -> bool:
        """An approver's edit waits to be confirmed or declined by someone else."""
        return self.status == self.Status.EDITED


class ActionEvent(models.Model):
    """The audit trail of pending actions: who did what, when, with which text.

    Append-only in the database (a trigger of migration 0011 refuses every UPDATE and DELETE
    but redaction) and hash chained per tenant (``chat/audit/chain.py``): rows are written
    only by ``chat.audit.services.audit_event_record``. Events outlive their action and its
    conversation: ``action`` is a plain uuid column, not a foreign key constraint.
    """

    class Kind(models.TextChoices):
        PROPOSED = "proposed"
        EDITED = "edited"
        APPROVED = "approved"
        REJECTED = "rejected"
        EXECUTED = "executed"
        FAILED = "failed"
        WITHDRAWN = "withdrawn"
        EXPIRED = "expired"  # by the expiry sweep or a late decision; no actor
        SNOOZED = "snoozed"  # an approver put it aside; data: {"until": iso}
        # An approver's edit (data: version, before, after) confirmed or declined by someone
        # else (data: version): who saw which text before it went.
        CONFIRMED = "confirmed"
        DECLINED = "declined"

    # The chain's order: 1, 2, 3… per tenant schema, given under the chain head's lock.
    seq = models.PositiveBigIntegerField(unique=True, editable=False)
    # No database constraint and no cascade: deleting an action keeps its trail.
    action = models.ForeignKey(
        PendingAction,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="events",
    )
    tool = models.CharField(max_length=64, blank=True)  # copied: the action may be deleted
    kind = models.CharField(max_length=16, choices=Kind.choices)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True
    )
    actor_username = models.CharField(max_length=150, blank=True)  # as it was at the time
    at = models.DateTimeField(default=timezone.now)
    data = models.JSONField(default=dict, blank=True)
    # Set when the tenant's retention emptied ``data``; the hashes stay as they were.
    redacted_at = models.DateTimeField(null=True, blank=True)
    data_hash = models.CharField(max_length=64, editable=False)
    content_hash = models.CharField(max_length=64, editable=False)
    prev_hash = models.CharField(max_length=64, editable=False)
    hash = models.CharField(max_length=64, editable=False)

    class Meta:
        ordering = ["seq"]

    def __str__(self) -> str:
        return f"{self.kind} by {self.actor_id} at {self.at:%Y-%m-%d %H:%M}"


class AuditChainHead(models.Model):
    """The last event of this tenant's chain (one row). Appending locks it (``SELECT … FOR
    UPDATE``), so concurrent decisions get one total order; verification compares the trail's
    end with it, so removing the newest events (or every event) is detected too."""

    id = models.PositiveSmallIntegerField(primary_key=True, default=1, editable=False)
    seq = models.PositiveBigIntegerField(default=0)
    hash = models.CharField(max_length=64)

    class Meta:
        constraints = [models.CheckConstraint(condition=models.Q(id=1), name="audit_head_single")]

    def __str__(self) -> str:
        return f"audit chain head at {self.seq}"


class ActionSnooze(models.Model):
    """One approver's "remind me later" on a pending action: it leaves that approver's inbox
    and badge until ``until`` (never past the action's expiry), and nobody else's."""

    action = models.ForeignKey(PendingAction, on_delete=models.CASCADE, related_name="snoozes")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="action_snoozes"
    )
    until = models.DateTimeField(db_index=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["until"]
        constraints = [
            models.UniqueConstraint(fields=["action", "user"], name="action_snooze_once_per_user")
        ]

    def __str__(self) -> str:
        return f"{self.action_id} snoozed by {self.user_id} until {self.until:%Y-%m-%d %H:%M}"


class AssistantPrompt(models.Model):
    """A version of the tenant's system prompt. Edits create a new version; one is active."""

    version = models.PositiveIntegerField(unique=True, editable=False)
    text = models.TextField(
        help_text="Variables: {tenant_name}, {today}, {tools}. Used from the next turn on."
    )
    is_active = models.BooleanField(default=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        editable=False,
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-version"]

    def __str__(self) -> str:
        return f"v{self.version}{' (active)' if self.is_active else ''}"


class ApiToken(models.Model):
    """A program's credential for one user of this tenant. Only a digest is stored; the token
    is shown once, when created. Revoked tokens stay for the audit trail."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=100, help_text="What uses it, e.g. 'nightly report'.")
    prefix = models.CharField(
        max_length=12, editable=False, help_text="First characters, to recognise it."
    )
    digest = models.CharField(max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="After this moment the token authenticates nothing and its open sessions "
        "end. Empty: it never expires.",
    )

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"


class RunUsage(models.Model):
    """The model tokens of one run of the graph and their estimated cost.

    A turn that pauses for approval has two runs (before and after the decision); each counts
    only the model calls it made, so nothing is counted twice. ``run_id`` is the user
    message's uuid for the first run and the decided action's id for a resume (the same ids
    as the reply's ``Message.run_id``); unique, so a redelivered run never counts again.
    """

    run_id = models.UUIDField(unique=True, editable=False)
    conversation = models.ForeignKey(
        Conversation, on_delete=models.SET_NULL, null=True, related_name="usage"
    )
    model = models.CharField(max_length=200)
    input_tokens = models.PositiveIntegerField(default=0)
    output_tokens = models.PositiveIntegerField(default=0)
    cost = models.DecimalField(max_digits=14, decimal_places=6, default=0)
    # True for the run that ended the turn (a reply was stored), False for one that paused.
    finished_turn = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.input_tokens}+{self.output_tokens} tokens ({self.created_at:%Y-%m-%d})"


class UsageDay(models.Model):
    """This tenant's model usage on one day (``TIME_ZONE``), the sum of its ``RunUsage`` rows.

    Updated with one ``INSERT … ON CONFLICT DO UPDATE`` per run (chat/services/usage.py), so
    concurrent workers add up instead of overwriting each other.
    """

    date = models.DateField(unique=True)
    input_tokens = models.BigIntegerField(default=0)
    output_tokens = models.BigIntegerField(default=0)
    cost = models.DecimalField(max_digits=16, decimal_places=6, default=0)
    turns = models.PositiveIntegerField(default=0, help_text="Turns that ended with a reply.")

    class Meta:
        ordering = ["-date"]

    def __str__(self) -> str:
        return f"{self.date}: {self.input_tokens + self.output_tokens} tokens"


# Evaluation models live in their own module; imported here so Django registers them.
from chat.evals.models import EvalCase, EvalCaseSet, EvalResult, EvalRun  # noqa: E402

__all__ = [
    "ActionEvent",
    "ActionSnooze",
    "ApiToken",
    "AssistantPrompt",
    "AuditChainHead",
    "Conversation",
    "EvalCase",
    "EvalCaseSet",
    "EvalResult",
    "EvalRun",
    "Message",
    "PendingAction",
    "RunUsage",
    "UsageDay",
]
