"""Answers given before the agent runs (DESIGN.md §10, "Routing before the agent").

Every turn asks ``routed_answer`` first (``chat.services.turns.turn_run``). The pure
recognisers of ``chat/builtin_model/router.py`` say whether the message is small talk, a
request for a tool or a "cancel that"; this module looks at the tenant (which tools its policy
leaves on) and the conversation (what the requester has pending) and answers, or returns None
and the agent runs as before. A short message the patterns miss is also asked of the local
intent classifier (one embedding of a few words) for small talk or a cancel. Nothing here
retrieves a passage or calls the tenant's model, so these answers are instant and cost no tokens.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from actions.tools.registry import policies
from chat.builtin_model.boundaries import (
    BoundaryReader,
    Harm,
    Unsupported,
    refusal_reply,
    unsupported_reply,
)
from chat.builtin_model.router import (
    SMALL_TALK_LABELS,
    Cancel,
    CannotDo,
    Refuse,
    Route,
    RulesQuestion,
    SmallTalk,
    ToolRequest,
    ToolRule,
    after_a_greeting,
    cancel_by_meaning,
    disabled_reply,
    help_reply,
    may_be_read_by_meaning,
    nothing_to_cancel_reply,
    route_message,
    rules_reply,
    small_talk_by_meaning,
    takes_back_what_is_pending,
    too_late_reply,
    withdrawn_reply,
)
from chat.builtin_model.understanding.context import classifier
from chat.builtin_model.vocabulary import tool_words
from chat.models import Conversation, Message, PendingAction
from chat.pending_actions import ActionStateError, pending_action_withdraw
from chat.selectors import action_to_withdraw, action_withdrawn_by
from knowledge.embedder import get_embedder
from knowledge.embeddings import EmbeddingError

_HANGUL = re.compile(r"[\uac00-\ud7a3]")


@dataclass(frozen=True)
class RoutedAnswer:
    text: str
    route: str  # small_talk | rules | disabled_tool | cancel | refused | unsupported: logs
    # The action this message withdrew (now, or in an earlier delivery of the same message):
    # announce it, and close out the graph that waits on it.
    withdrawn: PendingAction | None = None


def routed_answer(*, conversation: Conversation, message: Message) -> RoutedAnswer | None:
    """The router's answer to a stored user message, or None when the agent should answer."""
    route: Route | None = route_message(message.content)
    if route is None or isinstance(route, ToolRequest):
        # What the patterns let through is read by meaning too, before any model could
        # propose an action for it (boundaries.py).
        route = _boundary_by_meaning(message.content) or route
    if route is None or isinstance(route, ToolRequest):
        route = _taking_back(conversation=conversation, message=message) or route
    route = route or _by_meaning(message.content)
    if isinstance(route, Refuse):
        return RoutedAnswer(refusal_reply(route.harm), "refused")
    if isinstance(route, CannotDo):
        korean = route.unsupported.korean
        known = tool_words()
        labels = [
            known[t].label_ko if korean else known[t].label
            for t in _enabled_write_tools()
            if t in known
        ]
        return RoutedAnswer(unsupported_reply(route.unsupported, tool_labels=labels), "unsupported")
    if isinstance(route, RulesQuestion):
        return RoutedAnswer(rules_reply(route, rules=_tool_rules()), "rules")
    if isinstance(route, SmallTalk):
        tools = _enabled_write_tools()
        return RoutedAnswer(help_reply(route.kind, tools=tools, korean=route.korean), "small_talk")
    if isinstance(route, ToolRequest):
        if route.tool in _enabled_write_tools():
            return None  # an enabled tool: the agent proposes the action
        return RoutedAnswer(disabled_reply(route.tool, korean=route.korean), "disabled_tool")
    if isinstance(route, Cancel):
        return _withdraw(route, conversation=conversation, message=message)
    return None


def _taking_back(*, conversation: Conversation, message: Message) -> Cancel | None:
    """A take-back said anywhere in the message, while the requester has an action pending
    here (router.takes_back_what_is_pending): "…이건 안 보내셔도 돼요" withdraws it."""
    found = takes_back_what_is_pending(message.content)
    if found is None:
        return None
    # A redelivery of the message finds its action withdrawn already, and answers the same.
    pending = action_withdrawn_by(message=message) or action_to_withdraw(
        conversation=conversation, user=conversation.user, tool=None
    )
    return found if pending is not None else None


def _boundary_by_meaning(text: str) -> Refuse | CannotDo | None:
    try:
        found = _boundary_reader(get_embedder().model_name).read(
            text, korean=bool(_HANGUL.search(text))
        )
    except EmbeddingError:  # no embeddings: the patterns alone decide, as before
        return None
    if isinstance(found, Harm):
        return Refuse(found)
    if isinstance(found, Unsupported):
        return CannotDo(found)
    return None


@functools.cache
def _boundary_reader(model_name: str) -> BoundaryReader:
    # One reader (its examples embedded once) per embedding model, like the intent classifier.
    return BoundaryReader(get_embedder().embed_passages)


def _by_meaning(text: str) -> SmallTalk | Cancel | None:
    """Small talk or a cancel that the patterns missed, read by the intent classifier."""
    asked = after_a_greeting(text)  # the question after a greeting and an introduction
    if not may_be_read_by_meaning(asked):
        return None
    try:
        intent = classifier().classify(text)
    except EmbeddingError:  # no embeddings: the agent answers, as before
        return None
    talk = intent.as_one(SMALL_TALK_LABELS)  # a greeting or "what can you do?": one reply
    found = small_talk_by_meaning(text, label=talk.label, confidence=talk.confidence)
    if found is None and asked != text:
        # "hi! first time using this - what can you do?": the question after the greeting
        try:
            talk = classifier().classify(asked).as_one(SMALL_TALK_LABELS)
        except EmbeddingError:
            return None
        found = small_talk_by_meaning(text, label=talk.label, confidence=talk.confidence)
    return found or cancel_by_meaning(text, label=intent.label, confidence=intent.confidence)


def _tool_rules() -> list[ToolRule]:
    known = tool_words()
    return [
        ToolRule(
            tool=name,
            enabled=policy.enabled,
            approver_group=policy.approver_group.name if policy.approver_group else None,
            self_approval=policy.allow_self_approval,
            expires_after_hours=policy.expires_after_hours,
        )
        for name, policy in policies().items()
        if name in known  # a tool the router has no words for is left out, not guessed at
    ]


def _enabled_write_tools() -> list[str]:
    return [name for name, policy in policies().items() if policy.enabled]


def _withdraw(route: Cancel, *, conversation: Conversation, message: Message) -> RoutedAnswer:
    """Withdraw the requester's newest pending action (of the tool named, if any)."""
    earlier = action_withdrawn_by(message=message)  # a redelivered "cancel that"
    if earlier is not None:
        return RoutedAnswer(
            withdrawn_reply(earlier.description, korean=route.korean), "cancel", earlier
        )
    action = action_to_withdraw(conversation=conversation, user=conversation.user, tool=route.tool)
    if action is None:
        return RoutedAnswer(nothing_to_cancel_reply(route.tool, korean=route.korean), "cancel")
    try:
        action = pending_action_withdraw(
            action_id=action.id, user=conversation.user, message_id=message.uuid
        )
    except ActionStateError:  # decided a moment ago, by an approver
        action.refresh_from_db()
        return RoutedAnswer(too_late_reply(action.status, korean=route.korean), "cancel")
    text = withdrawn_reply(action.description, korean=route.korean)
    return RoutedAnswer(text, "cancel", action)
