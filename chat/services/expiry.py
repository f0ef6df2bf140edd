"""Expiry: a pending action nobody decided within its tool policy's time becomes ``expired``
(an approver's edit still waiting for confirmation too: editing never extends the wait).

The transition is the same conditional UPDATE from ``pending`` as a decision or a withdrawal
(chat/pending_actions.py), so among overlapping expiry sweeps, a late approval and a
withdrawal exactly one wins, and an expired action can never be approved, hence never run.
"""

from __future__ import annotations

import uuid
from datetime import timedelta

from django.db import transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from chat.audit.services import audit_event_record
from chat.models import ActionEvent, Message, PendingAction
from chat.pending_actions import action_get, waited_hours
from core.metrics import HITL_DECISIONS

Status = PendingAction.Status


def overdue_action_ids() -> list[uuid.UUID]:
    """The current tenant's pending actions whose expiry has passed, oldest first."""
    return list(
        PendingAction.objects.filter(
            status__in=PendingAction.UNDECIDED, expires_at__lte=timezone.now()
        )
        .order_by("expires_at")
        .values_list("pk", flat=True)
    )


# The sweep looks back this far for a decided action whose reply was lost (older ones are
# history, not a conversation anyone waits in) and queues at most this many resumes per run
# and tenant; the rest wait for the next run, oldest first.
STRANDED_HORIZON = timedelta(days=2)
STRANDED_BATCH = 100


def stranded_action_ids(*, older_than_seconds: int) -> list[uuid.UUID]:
    """The current tenant's decided actions left without their outcome for at least
    ``older_than_seconds``, oldest first (at most ``STRANDED_BATCH``):

    - ``approved`` and never claimed: its resume task was lost;
    - ``executing`` that long: its worker died mid-execution (a live one holds the conversation
      lock, which the resume waits for, so a slow execution is never run beside itself);
    - ``executed``, ``failed``, ``rejected``, ``expired`` or ``withdrawn`` (by the card's
      button: a "cancel that" message got its reply from the router) with no reply in the
      conversation: the resume died before telling it. Only within ``STRANDED_HORIZON``, and
      not when the conversation proposed another action after this decision: a turn with two
      write calls goes on to the second after running the first, and its one reply, after
      the second decision, tells both.
    """
    now = timezone.now()
    cutoff = now - timedelta(seconds=older_than_seconds)
    told = Message.objects.filter(run_id=OuterRef("pk"), role=Message.Role.ASSISTANT)
    withdrawn_in_chat = ActionEvent.objects.filter(
        action=OuterRef("pk"), kind=ActionEvent.Kind.WITHDRAWN, data__has_key="message"
    )
    proposed_since = PendingAction.objects.filter(
        conversation=OuterRef("conversation"), created_at__gt=OuterRef("decided_at")
    ).exclude(pk=OuterRef("pk"))
    unclaimed = Q(status=Status.APPROVED, decided_at__lte=cutoff)
    abandoned = Q(status=Status.EXECUTING, updated_at__lte=cutoff)
    untold = (
        Q(status__in=[*PendingAction.FINISHED, *PendingAction.NOT_RUN])
        & Q(updated_at__lte=cutoff, updated_at__gte=now - STRANDED_HORIZON)
        & ~Exists(told)
        & ~(Q(status=Status.WITHDRAWN) & Exists(withdrawn_in_chat))
        & ~Exists(proposed_since)
    )
    return list(
        PendingAction.objects.filter(unclaimed | abandoned | untold)
        .order_by("updated_at")
        .values_list("pk", flat=True)[:STRANDED_BATCH]
    )


def stranded_turn_messages(*, older_than_seconds: int) -> list[Message]:
    """The current tenant's user messages left without an ending for at least
    ``older_than_seconds``, oldest first (at most ``STRANDED_BATCH``, within
    ``STRANDED_HORIZON``): no reply (a finished, cancelled or failed turn stores one), no action
    proposed since (a paused turn is ended by its decision's resume), in a conversation its
    owner has not deleted. Whether a turn still holds the conversation is the caller's check
    (the conversation lock lives in Redis)."""
    now = timezone.now()
    replied = Message.objects.filter(run_id=OuterRef("uuid"), role=Message.Role.ASSISTANT)
    paused = PendingAction.objects.filter(
        conversation=OuterRef("conversation"), created_at__gte=OuterRef("created_at")
    )
    return list(
        Message.objects.filter(
            role=Message.Role.USER,
            created_at__lte=now - timedelta(seconds=older_than_seconds),
            created_at__gte=now - STRANDED_HORIZON,
            conversation__deleted_at__isnull=True,
        )
        .exclude(Exists(replied))
        .exclude(Exists(paused))
        .select_related("conversation")
        .order_by("created_at")[:STRANDED_BATCH]
    )


# How far back the sweep looks for a stored reply whose ending was never published: longer
# than a restart of Redis (no sweep runs while it is down) with room to spare.
UNANNOUNCED_HORIZON = timedelta(minutes=15)


def recent_replies(*, older_than_seconds: int) -> list[Message]:
    """The current tenant's replies stored ``older_than_seconds`` to ``UNANNOUNCED_HORIZON``
    ago, oldest first (at most 50 times ``STRANDED_BATCH``): the replies whose ending might never
    have been published. Whether it was is the caller's check (endings are kept in Redis)."""
    now = timezone.now()
    return list(
        Message.objects.filter(
            role=Message.Role.ASSISTANT,
            run_id__isnull=False,
            created_at__lte=now - timedelta(seconds=older_than_seconds),
            created_at__gte=now - UNANNOUNCED_HORIZON,
            conversation__deleted_at__isnull=True,
        )
        .select_related("conversation")
        .order_by("created_at")[: STRANDED_BATCH * 50]
    )


def recent_undecided_actions(*, older_than_seconds: int) -> list[PendingAction]:
    """The current tenant's actions proposed ``older_than_seconds`` to ``UNANNOUNCED_HORIZON``
    ago and still undecided, oldest first (at most 50 times ``STRANDED_BATCH``): the cards that
    might never have been announced. Whether one was is the caller's check (kept in Redis)."""
    now = timezone.now()
    return list(
        PendingAction.objects.filter(
            status__in=PendingAction.UNDECIDED,
            created_at__lte=now - timedelta(seconds=older_than_seconds),
            created_at__gte=now - UNANNOUNCED_HORIZON,
            conversation__deleted_at__isnull=True,
        )
        .select_related("conversation")
        .order_by("created_at")[: STRANDED_BATCH * 50]
    )


def moved_past(message: Message) -> bool:
    """Whether the conversation has a later user message: answering this one now would put
    its reply after a later question's."""
    return Message.objects.filter(
        conversation_id=message.conversation_id,
        role=Message.Role.USER,
        created_at__gt=message.created_at,
    ).exists()


@transaction.atomic
def pending_action_expire(*, action_id: uuid.UUID | str) -> PendingAction | None:
    """Expire the action if it is still pending past its expiry; the expired action, or None
    when another sweep, a decision or a withdrawal got there first (or it is not due)."""
    now = timezone.now()
    won = PendingAction.objects.filter(
        pk=action_id, status__in=PendingAction.UNDECIDED, expires_at__lte=now
    ).update(status=Status.EXPIRED, updated_at=now)
    if not won:
        return None
    action = action_get(action_id=action_id)
    audit_event_record(
        action=action, kind=ActionEvent.Kind.EXPIRED, data={"after_hours": waited_hours(action)}
    )
    HITL_DECISIONS.labels(decision="expired").inc()
    return action
