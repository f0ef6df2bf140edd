"""Read-side queries (the current tenant's schema): the web pages', and the router's."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth.models import Group, User
from django.db.models import Exists, F, OuterRef, Q, QuerySet
from django.utils import timezone

from actions.models import EditConfirmer
from actions.selectors import memberships_of
from actions.tools.registry import approval_refusal, policies, tool_policy
from chat.models import ActionEvent, ActionSnooze, Conversation, Message, PendingAction
from tenants.roles import APPROVER, TENANT_ADMIN

CONVERSATION_LIST_LIMIT = 100  # the sidebar scrolls on its own; search finds older ones
INBOX_LIMIT = 200


def conversation_list(*, user: User, query: str = "") -> QuerySet[Conversation]:
    """The user's conversations (not those they deleted), most recent first; ``query``
    matches titles and message text."""
    conversations = Conversation.objects.live().filter(user=user)
    query = query.strip()
    if query:
        in_messages = Message.objects.filter(conversation=OuterRef("pk"), content__icontains=query)
        conversations = conversations.filter(Q(title__icontains=query) | Exists(in_messages))
    return conversations.order_by("-updated_at")[:CONVERSATION_LIST_LIMIT]


def decidable_tools(*, user: User) -> list[str]:
    """The tools whose actions ``user`` may decide under the tenant's current policy (the
    requester check is per action, so it is left out here)."""
    memberships = memberships_of(user)  # one query for every policy, not one per tool
    return [
        name
        for name, policy in policies().items()
        if approval_refusal(policy=policy, user=user, requested_by_id=None, memberships=memberships)
        is None
    ]


def _self_approvable(tools: list[str]) -> list[str]:
    """Those of ``tools`` whose policy lets a requester decide their own actions."""
    return [
        name for name, policy in policies().items() if name in tools and policy.allow_self_approval
    ]


def _confirmable_edits(*, tools: list[str], viewer: User | None) -> Q:
    """Approvers' edits of ``tools`` that an approver other than the editor confirms (the
    policy says so, or the editor is the requester), and not edited by ``viewer``."""
    by_approvers = [
        name
        for name, policy in policies().items()
        if name in tools and policy.edit_confirmed_by == EditConfirmer.ANOTHER_APPROVER
    ]
    edits = Q(status=PendingAction.Status.EDITED) & (
        Q(tool__in=by_approvers) | Q(edited_by=F("requested_by"))
    )
    return edits & ~Q(edited_by=viewer) if viewer is not None else edits


def _waiting_for(
    *, tools: list[str], viewer: User | None, with_own_edits: bool = False
) -> QuerySet[PendingAction]:
    """Pending actions of ``tools`` that ``viewer`` can act on, and edits they can confirm:
    less those they snoozed until later, and less their own requests that the policy does not
    let them decide (those wait for someone else: ``waiting_for_others``). With
    ``with_own_edits``, also ``viewer``'s own edits waiting for someone to confirm them."""
    waiting_q = Q(status=PendingAction.Status.PENDING) | _confirmable_edits(
        tools=tools, viewer=viewer
    )
    if with_own_edits and viewer is not None:
        waiting_q |= Q(status=PendingAction.Status.EDITED, edited_by=viewer)
    waiting = PendingAction.objects.filter(waiting_q, tool__in=tools)
    if viewer is not None:
        snoozed = ActionSnooze.objects.filter(
            action=OuterRef("pk"), user=viewer, until__gt=timezone.now()
        )
        waiting = waiting.exclude(Exists(snoozed)).exclude(
            Q(requested_by=viewer) & ~Q(tool__in=_self_approvable(tools))
        )
    return waiting


def inbox_actions(*, tools: list[str], viewer: User | None = None) -> QuerySet[PendingAction]:
    """Every pending action of the tenant for ``tools`` (see ``decidable_tools``), newest first,
    at most ``INBOX_LIMIT``; with ``viewer``, not those they snoozed (they come back when the
    snooze ends) nor their own that someone else must decide."""
    return (
        _waiting_for(tools=tools, viewer=viewer, with_own_edits=True)
        .select_related("requested_by", "decided_by", "conversation")
        .order_by("-created_at")[:INBOX_LIMIT]
    )


def snoozed_actions(*, viewer: User, tools: list[str]) -> QuerySet[PendingAction]:
    """What ``viewer`` snoozed and is still waiting (the inbox's "Snoozed" filter), newest
    first: the pending actions and confirmable edits of ``tools`` that ``inbox_actions`` leaves
    out only because of the viewer's own snooze."""
    snoozed = ActionSnooze.objects.filter(
        action=OuterRef("pk"), user=viewer, until__gt=timezone.now()
    )
    waiting = Q(status=PendingAction.Status.PENDING) | _confirmable_edits(
        tools=tools, viewer=viewer
    )
    return (
        PendingAction.objects.filter(waiting, Exists(snoozed), tool__in=tools)
        .select_related("requested_by", "decided_by", "conversation")
        .order_by("-created_at")[:INBOX_LIMIT]
    )


def snooze_ends(*, viewer: User, action_ids: list[Any]) -> dict[Any, datetime]:
    """When ``viewer``'s live snooze of each of ``action_ids`` ends (those snoozed only)."""
    return dict(
        ActionSnooze.objects.filter(
            action_id__in=action_ids, user=viewer, until__gt=timezone.now()
        ).values_list("action_id", "until")
    )


def waiting_for_others(*, viewer: User, tools: list[str]) -> QuerySet[PendingAction]:
    """``viewer``'s own pending requests that someone else must decide (all of them, less those
    of ``tools`` whose policy allows self-approval: those are in the viewer's inbox)."""
    return (
        PendingAction.objects.filter(
            # An approver's edit of their request waits for them (or a second approver) too.
            (Q(status=PendingAction.Status.PENDING) & ~Q(tool__in=_self_approvable(tools)))
            | Q(status=PendingAction.Status.EDITED),
            requested_by=viewer,
        )
        .select_related("requested_by", "decided_by", "conversation")
        .order_by("-created_at")[:INBOX_LIMIT]
    )


# -- who may read an action ------------------------------------------------------------------
#
# The one rule every door asks (docs/web.md, "Who sees an action"): an action's description,
# arguments, result, edit and deliveries are someone's message to other people, readable by
# its requester, by the people the tenant's live tool policy lets decide its tool, and by
# tenant admins. Anyone else who meets the action sees a placeholder naming its tool only
# (``chat.events.payloads.redacted_action``).


def is_tenant_admin(*, user: User) -> bool:
    return user.is_active and user.groups.filter(name=TENANT_ADMIN).exists()


def actions_visible_filter(*, user: User) -> Q:
    """The rule as a filter on ``PendingAction`` (usable inside a subquery)."""
    if not user.is_active:
        return Q(pk__in=[])
    if is_tenant_admin(user=user):
        return Q(pk__isnull=False)
    visible = Q(requested_by=user)
    tools = decidable_tools(user=user)
    if tools:
        visible |= Q(tool__in=tools)
    return visible


def action_visible_to(*, user: User, action: PendingAction) -> bool:
    """Whether ``user`` may read ``action`` (the rule above, for one action)."""
    if not user.is_active:
        return False
    if action.requested_by_id == user.pk or is_tenant_admin(user=user):
        return True
    # Self-approval is beside the point here: a requester already reads their own action.
    policy = tool_policy(action.tool)
    return approval_refusal(policy=policy, user=user, requested_by_id=None) is None


def actions_visible(*, user: User) -> QuerySet[PendingAction]:
    """Every action of the tenant ``user`` may read (``action_visible_to``), newest first."""
    return (
        PendingAction.objects.filter(actions_visible_filter(user=user))
        .select_related("requested_by", "conversation")
        .order_by("-created_at")
    )


def conversation_watchable(*, user: User, conversation_uuid: str) -> Conversation | None:
    """Someone else's conversation ``user`` may watch: one holding actions, every one of which
    ``user`` may read. (Its messages restate its actions, so a conversation holding an action
    hidden from ``user`` is hidden whole.) None otherwise."""
    hidden = PendingAction.objects.filter(conversation=OuterRef("pk")).exclude(
        actions_visible_filter(user=user)
    )
    return (
        Conversation.objects.filter(uuid=conversation_uuid, actions__isnull=False)
        .exclude(user=user)  # its owner deleted it: gone for them, context for approvers
        .exclude(Exists(hidden))
        .distinct()
        .first()
    )


def inbox_count(*, tools: list[str], viewer: User | None = None) -> int:
    """How many requests ``inbox_actions`` would list without its limit (the nav badge)."""
    if not tools:
        return 0
    return _waiting_for(tools=tools, viewer=viewer).count()


@dataclass(frozen=True)
class Approvers:
    """Who can decide a tool's actions, for the requester's card."""

    group: str  # "Approvers" for the approver role, else the policy's group name
    people: int  # active members, less the requester when self-approval is off

    def __str__(self) -> str:
        noun = "person" if self.people == 1 else "people"
        return f"{self.group} group ({self.people} {noun})"


def action_approvers(*, action: PendingAction) -> Approvers:
    return _approvers(tool=action.tool, requested_by_id=action.requested_by_id)


def unapprovable_actions() -> list[PendingAction]:
    """Pending actions nobody but their requester could approve: the policy's group is empty,
    or its only member is the requester and self-approval is off. Without a tenant admin's
    change (an approver added, the policy changed) they can only expire, so tenant admins are
    shown them (docs/web.md, "Nobody else can approve"). Oldest first."""
    pending = PendingAction.objects.filter(status=PendingAction.Status.PENDING)
    pairs = set(pending.values_list("tool", "requested_by_id"))
    # Every tenant admin's page asks this: one look at each tool's approvers, not one per
    # (tool, requester) pair.
    approvers = {tool: _approver_ids(tool=tool) for tool in {tool for tool, _ in pairs}}
    stuck = [
        (tool, requester)
        for tool, requester in pairs
        if not (approvers[tool][1] - ({requester} if not approvers[tool][2] else set()))
    ]
    if not stuck:
        return []
    which = Q(pk__in=[])
    for tool, requester in stuck:
        which |= Q(tool=tool, requested_by_id=requester)
    return list(
        pending.filter(which).select_related("requested_by", "conversation").order_by("created_at")
    )


def nobody_else_can_approve(*, tool: str, requested_by_id: int) -> bool:
    """Whether a request of ``tool`` by ``requested_by_id`` has nobody but its requester to
    approve it (the one rule of ``unapprovable_actions``, also asked when it is proposed)."""
    return _approvers(tool=tool, requested_by_id=requested_by_id).people == 0


def _approver_ids(*, tool: str) -> tuple[str, set[int], bool]:
    """``tool``'s approver group as shown ("Approvers" for the approver role, else the policy's
    group name), its active members, and whether they may approve their own requests."""
    policy = tool_policy(tool)
    if policy.approver_group_id:
        group = Group.objects.filter(pk=policy.approver_group_id).first()
        label = group.name if group else APPROVER
    else:
        group = Group.objects.filter(name=APPROVER).first()
        label = "Approvers"
    members = (
        set(group.user_set.filter(is_active=True).values_list("pk", flat=True)) if group else set()
    )
    return label, members, policy.allow_self_approval


def _approvers(*, tool: str, requested_by_id: int) -> Approvers:
    label, members, self_approval = _approver_ids(tool=tool)
    others = members if self_approval else members - {requested_by_id}
    return Approvers(group=label, people=len(others))


def action_edit(*, action: PendingAction) -> ActionEvent | None:
    """The approver's edit of ``action`` (its arguments before and after), if it was edited:
    waiting for confirmation, or confirmed, declined, withdrawn or expired since. An action
    still at its first version is not even queried."""
    if action.version < 2:
        return None
    return (
        ActionEvent.objects.filter(action=action, kind=ActionEvent.Kind.EDITED)
        .select_related("actor")
        .order_by("-at")
        .first()
    )


def action_to_withdraw(
    *, conversation: Conversation, user: User, tool: str | None
) -> PendingAction | None:
    """``user``'s newest pending action in ``conversation`` (of ``tool``, when named)."""
    pending = PendingAction.objects.filter(
        conversation=conversation, requested_by=user, status__in=PendingAction.UNDECIDED
    )
    if tool is not None:
        pending = pending.filter(tool=tool)
    return pending.select_related("conversation").order_by("-created_at").first()


def asking_message_uuid(*, action: PendingAction) -> uuid.UUID | None:
    """The user message whose turn proposed ``action`` (its resume ends that turn)."""
    return (
        Message.objects.filter(
            conversation_id=action.conversation_id,
            role=Message.Role.USER,
            created_at__lte=action.created_at,
        )
        .order_by("-created_at", "-pk")
        .values_list("uuid", flat=True)
        .first()
    )


def action_withdrawn_by(*, message: Message) -> PendingAction | None:
    """The action that chat ``message`` withdrew ("cancel that"), if it already did."""
    return (
        PendingAction.objects.filter(
            conversation_id=message.conversation_id,
            events__kind=ActionEvent.Kind.WITHDRAWN,
            events__data__message=str(message.uuid),
        )
        .select_related("conversation")
        .first()
    )
