"""Who is told of what (reads only, in the current tenant's schema).

"Who may decide" is asked of the same rule the approval card and the inbox use
(``chat.pending_actions.decide_refusal``: the tool policy's approver group, or the approver
role, and no self-approval unless the policy allows it), so a notification never reaches a
person the card would refuse.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User

from chat.models import PendingAction
from chat.pending_actions import decide_refusal
from chat.selectors import decidable_tools, inbox_actions
from notifications.models import ApprovalNotice, Channel, NotificationPreference


@dataclass(frozen=True)
class Target:
    """Where one person's notifications go."""

    channel: str
    address: str


def approvers_of(*, action: PendingAction) -> list[User]:
    """The active people who may decide ``action`` now. Only members of some group can be
    approvers, so only they are asked."""
    candidates = User.objects.filter(is_active=True, groups__isnull=False).distinct()
    return [user for user in candidates if decide_refusal(action=action, user=user) is None]


def notification_target(*, user: User) -> Target | None:
    """Where ``user`` wants to be told, or None (quiet, or nowhere to write to)."""
    preference = NotificationPreference.objects.filter(user=user).first()
    if preference is None:
        return Target(Channel.EMAIL, user.email) if user.email else None
    if preference.quiet:
        return None
    address = preference.address or (user.email if preference.channel == Channel.EMAIL else "")
    return Target(preference.channel, address) if address else None


def actions_to_tell(*, user: User) -> list[PendingAction]:
    """Pending actions ``user`` may decide and has not been told of yet, oldest first."""
    told = ApprovalNotice.objects.filter(user=user).values("action_id")
    pending = inbox_actions(tools=decidable_tools(user=user))
    waiting = [
        action
        for action in pending
        if decide_refusal(action=action, user=user) is None  # their own requests
    ]
    told_ids = {row["action_id"] for row in told.filter(action__in=[a.pk for a in waiting])}
    return sorted(
        (action for action in waiting if action.pk not in told_ids), key=lambda a: a.created_at
    )
