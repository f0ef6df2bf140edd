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
from chat.selectors import (
    action_visible_to,
    decidable_tools,
    inbox_actions,
    is_tenant_admin,
    nobody_else_can_approve,
    unapprovable_actions,
)
from notifications.models import ApprovalNotice, Channel, NotificationPreference
from tenants.models import UnapprovableRequests
from tenants.roles import TENANT_ADMIN
from tenants.selectors import tenant_unapprovable_requests


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


def told_of(*, action: PendingAction) -> list[User]:
    """Everyone told of ``action``: who may decide it, and, when nobody but its requester may
    and the tenant routes such requests to its admins (``unapprovable_requests``), every
    active tenant admin (docs/web.md, "Nobody else can approve")."""
    people = approvers_of(action=action)
    if _admins_told() and nobody_else_can_approve(
        tool=action.tool, requested_by_id=action.requested_by_id
    ):
        admins = User.objects.filter(is_active=True, groups__name=TENANT_ADMIN).distinct()
        people += [admin for admin in admins if admin not in people]
    return people


def _admins_told() -> bool:
    return tenant_unapprovable_requests() == UnapprovableRequests.NOTIFY_ADMINS


def told_as_admin(*, user: User, action: PendingAction) -> bool:
    """Whether ``user`` is told of the pending ``action`` as a tenant admin who should add an
    approver (it may not decide it): the digest lists it without decision links."""
    return (
        action.status == PendingAction.Status.PENDING
        and is_tenant_admin(user=user)
        and action_visible_to(user=user, action=action)  # the one visibility rule
        and nobody_else_can_approve(tool=action.tool, requested_by_id=action.requested_by_id)
    )


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
    if is_tenant_admin(user=user) and _admins_told():
        ids = {action.pk for action in waiting}
        waiting += [action for action in unapprovable_actions() if action.pk not in ids]
    told_ids = {row["action_id"] for row in told.filter(action__in=[a.pk for a in waiting])}
    return sorted(
        (action for action in waiting if action.pk not in told_ids), key=lambda a: a.created_at
    )
