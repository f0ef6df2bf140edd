"""Read-side queries (the current tenant's schema): the web pages', and the router's."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db.models import Exists, OuterRef, Q, QuerySet

from actions.tools.registry import approval_refusal, policies
from chat.models import ActionEvent, Conversation, Message, PendingAction

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
    return [
        name
        for name, policy in policies().items()
        if approval_refusal(policy=policy, user=user, requested_by_id=None) is None
    ]


def inbox_actions(*, tools: list[str]) -> QuerySet[PendingAction]:
    """Every pending action of the tenant for ``tools`` (see ``decidable_tools``), newest first."""
    return (
        PendingAction.objects.filter(status=PendingAction.Status.PENDING, tool__in=tools)
        .select_related("requested_by", "decided_by", "conversation")
        .order_by("-created_at")[:INBOX_LIMIT]
    )


def actions_visible(*, user: User) -> QuerySet[PendingAction]:
    """What ``user`` may see of the tenant's actions: those they may decide, and those proposed
    in their own conversations. (An action's arguments are someone's message to other people.)"""
    visible = Q(conversation__user=user)
    tools = decidable_tools(user=user)
    if tools:
        visible |= Q(tool__in=tools)
    return (
        PendingAction.objects.filter(visible)
        .select_related("requested_by", "conversation")
        .order_by("-created_at")
    )


def inbox_count(*, tools: list[str]) -> int:
    if not tools:
        return 0
    return PendingAction.objects.filter(status=PendingAction.Status.PENDING, tool__in=tools).count()


def action_to_withdraw(
    *, conversation: Conversation, user: User, tool: str | None
) -> PendingAction | None:
    """``user``'s newest pending action in ``conversation`` (of ``tool``, when named)."""
    pending = PendingAction.objects.filter(
        conversation=conversation, requested_by=user, status=PendingAction.Status.PENDING
    )
    if tool is not None:
        pending = pending.filter(tool=tool)
    return pending.select_related("conversation").order_by("-created_at").first()


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
