"""Deciding by text: an approver answers an SMS or Telegram notice "YES 4821" / "NO 4821".

The webhook (notifications/webhooks.py) has verified the provider's signature and read the
sender and text; this module finds whose code it is and decides through the same service as
the inbox (``chat.services.realtime.action_decide``: policy, four eyes, expiry, exactly once).
Whatever happens, the answer is one sentence sent back in the same channel; nothing changes
unless the decision is taken.

A code is bound to one person (matched by the sender's phone number or Telegram chat), one
action and the action's text as told; it is used once. The provider's message id is stored,
so the same webhook call delivered again (a provider retry or a replay) changes nothing.
"""

from __future__ import annotations

import re
from typing import Literal

from django.db import IntegrityError, transaction
from django.utils import timezone

from actions.delivery import InboundMessage
from chat.models import PendingAction
from chat.pending_actions import (
    ActionExpired,
    ActionNotFound,
    ActionPermissionDenied,
    ActionStateError,
)
from chat.services.realtime import action_decide, action_expire
from notifications.models import ApprovalNotice, InboundReply

_ANSWER = re.compile(r"\s*(yes|y|no|n)\s*[:#-]?\s*(\d{4})\s*[.!]?\s*", re.IGNORECASE)

HELP = "Reply YES and the code to approve, or NO and the code to reject (for example YES 4821)."
REPLAYED = "This message was already handled; nothing changed."


def inbound_reply_handle(*, channel: str, message: InboundMessage) -> str:
    """Act on one inbound text and return the reply to send back. Idempotent per provider
    message id."""
    if InboundReply.objects.filter(channel=channel, message_id=message.message_id).exists():
        return REPLAYED
    outcome, reply, notice = _answer(channel=channel, message=message)
    try:
        InboundReply.objects.create(
            channel=channel,
            message_id=message.message_id,
            sender=message.senders[0],
            user_id=notice.user_id if notice else None,
            notice=notice,
            outcome=outcome,
            reply=reply,
        )
    except IntegrityError:
        return REPLAYED  # the same call, handled at the same moment by another process
    return reply


def _answer(*, channel: str, message: InboundMessage) -> tuple[str, str, ApprovalNotice | None]:
    parsed = _ANSWER.fullmatch(message.text)
    if parsed is None:
        return "not_understood", HELP, None
    decision: Literal["approve", "reject"] = (
        "approve" if parsed.group(1).lower().startswith("y") else "reject"
    )
    code = parsed.group(2)
    notice = (
        ApprovalNotice.objects.filter(
            reply_code=code,
            user__is_active=True,
            user__notification_preference__channel=channel,
            user__notification_preference__address__in=message.senders,
        )
        .select_related("action", "user")
        .order_by("-pk")
        .first()
    )
    if notice is None:
        return "unknown_code", f"No request with code {code} waits for you; nothing changed.", None
    if notice.answered_at is not None:
        return "used", f"You already answered {code}; nothing changed.", notice
    action = notice.action
    if action.arguments_hash != notice.arguments_hash:
        return (
            "stale",
            f"Request {code} was edited after you were told; open the inbox to see the new "
            "text. Nothing changed.",
            notice,
        )
    return _decide(notice=notice, action=action, code=code, decision=decision)


def _decide(
    *,
    notice: ApprovalNotice,
    action: PendingAction,
    code: str,
    decision: Literal["approve", "reject"],
) -> tuple[str, str, ApprovalNotice]:
    try:
        with transaction.atomic():
            # The code is used by the decision it takes, in the same transaction: two texts
            # racing each other cannot both decide, and a refused decision leaves it unused.
            used = ApprovalNotice.objects.filter(pk=notice.pk, answered_at__isnull=True).update(
                answered_at=timezone.now()
            )
            if not used:
                return "used", f"You already answered {code}; nothing changed.", notice
            decided = action_decide(
                user=notice.user,
                action_id=str(action.pk),
                decision=decision,
                note=f"answered {code} by text",
            )
    except ActionExpired:
        action_expire(action_id=action.pk)  # what the refused decision began, rolled back
        return "expired", f"Request {code} has expired; nothing was done.", notice
    except ActionPermissionDenied as error:
        return "refused", f"You may not decide request {code}: {error}. Nothing changed.", notice
    except ActionNotFound:
        return (
            "unknown_code",
            f"No request with code {code} waits for you; nothing changed.",
            notice,
        )
    except ActionStateError:
        action.refresh_from_db()
        return (
            "decided",
            f"Request {code} is already {action.status}; nothing changed.",
            notice,
        )
    if decided.status == PendingAction.Status.APPROVED:
        return "approved", f"Approved {code}: {decided.description}", notice
    return "rejected", f"Rejected {code}: {decided.description}. It will not be sent.", notice
