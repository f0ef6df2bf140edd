"""Running one case through the real agent graph without ever acting on it.

Each case runs inside a database transaction that is rolled back at the end: its throw-away
eval user, conversation, messages and proposed actions never become visible to any other
connection, so no approver can see or approve them and no delivery can be enqueued (delivery
happens only after an approval, and ``on_commit`` hooks of a rolled-back transaction never fire).
A draft prompt version or a switched-off tool is set up the same way, inside that transaction.
What the case produced is read before the rollback and stored by the caller afterwards.
The LangGraph checkpoint (a separate connection) is deleted explicitly.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from langchain_core.language_models.chat_models import BaseChatModel

from actions.models import Contact, ContactGroup
from actions.services.policies import tool_policy_enable
from chat.agent.graph import checkpointer, thread_id
from chat.agent.runner import CollectingEvents
from chat.evals.cases import CaseSpec, Expect
from chat.evals.checks import Check, Observation, Proposal, judge
from chat.models import AssistantPrompt, Conversation, Message, PendingAction
from chat.services.answer_cache import answer_cache_bypassed
from chat.services.prompts import assistant_prompt_activate
from chat.services.turns import turn_run, turn_start
from core import clock
from core.schema import current_schema
from knowledge.models import Document
from tenants.roles import STAFF
from tenants.selectors import tenant_zone
from tenants.services import user_set_role

logger = logging.getLogger(__name__)

# Where recipients sit in a tool's arguments (a reminder nests the scheduled tool's own).
RECIPIENT_PATHS = ("to", "audience", "arguments.to", "arguments.audience")
_RECIPIENT_KEYS = frozenset(path.rsplit(".", 1)[-1] for path in RECIPIENT_PATHS)


@dataclass
class CaseOutcome:
    """What one case produced and the verdict of each check."""

    checks: list[Check]
    reply: str = ""
    citations: list[dict[str, Any]] = field(default_factory=list)
    action: dict[str, Any] = field(default_factory=dict)
    error: str = ""

    @property
    def passed(self) -> bool:
        return bool(self.checks) and all(check.passed for check in self.checks)


def case_execute(
    *, case: CaseSpec, model: BaseChatModel, prompt: AssistantPrompt | None = None
) -> CaseOutcome:
    """Run ``case`` in a rolled-back transaction and judge what came back."""
    conversation_uuid = uuid.uuid4()
    try:
        # Read against a fixed instant; never answered from (nor filling) the answer cache.
        with clock.frozen_at(eval_now()), answer_cache_bypassed(), transaction.atomic():
            outcome = _exchange(case, model, prompt, conversation_uuid)
            transaction.set_rollback(True)
    except Exception as error:  # one broken case is a result, not the end of the run
        logger.exception("eval case %s failed to run", case.key)
        message = f"{error.__class__.__name__}: {error}"
        outcome = CaseOutcome(checks=[Check("no error", "route", False, message)], error=message)
    finally:
        checkpointer().delete_thread(thread_id(current_schema(), str(conversation_uuid)))
    return outcome


def eval_now() -> datetime:
    """The instant a case is read against: tomorrow at 10:00 in the tenant's zone. Fixed so a
    verdict does not depend on when the run starts ("today at 4" is past at 18:00), and ahead
    of the wall clock so every reminder it proposes is still in the future for the tool's own
    check."""
    tomorrow = timezone.localtime(timezone=tenant_zone()) + timedelta(days=1)
    return tomorrow.replace(hour=10, minute=0, second=0, microsecond=0)


def _exchange(
    case: CaseSpec,
    model: BaseChatModel,
    prompt: AssistantPrompt | None,
    conversation_uuid: uuid.UUID,
) -> CaseOutcome:
    _set_up(case, prompt)
    user = _throwaway_user()
    conversation = Conversation.objects.create(
        uuid=conversation_uuid, user=user, title=f"eval: {case.key}"
    )
    events, reply = CollectingEvents(), None
    for text in case.messages:
        conversation, message, _ = turn_start(
            user=user, text=text, conversation_uuid=conversation.uuid
        )
        events = CollectingEvents()
        reply = turn_run(conversation=conversation, message=message, events=events, model=model)
    seen = _observe(conversation, reply, events)
    action = _action_record(conversation)
    return CaseOutcome(
        checks=judge(_expected_recipients_canonical(case.expect), seen),
        reply=seen.reply,
        citations=seen.citations,
        action=action,
        error=seen.error,
    )


def _set_up(case: CaseSpec, prompt: AssistantPrompt | None) -> None:
    if prompt is not None:
        assistant_prompt_activate(prompt=prompt)
    for tool in case.setup.disable_tools:
        tool_policy_enable(tool_name=tool, enabled=False)


def _throwaway_user() -> User:
    user = User(username=f"agent-eval-{uuid.uuid4().hex[:12]}")
    user.set_unusable_password()
    user.save()
    user_set_role(user=user, role=STAFF)
    return user


def _observe(
    conversation: Conversation, reply: Message | None, events: CollectingEvents
) -> Observation:
    errors = [message for _, message in events.of("error")]
    if reply is not None and reply.status == Message.Status.ERROR and not errors:
        errors = [reply.content]
    return Observation(
        reply=reply.content if reply is not None else "",
        citations=_citations(reply.citations if reply is not None else []),
        proposal=_proposal(conversation),
        stages=list(events.of("status")),
        action_statuses=list(
            PendingAction.objects.filter(conversation=conversation).values_list("status", flat=True)
        ),
        error="; ".join(errors),
        now=clock.now().astimezone(tenant_zone()),
    )


def _latest_pending(conversation: Conversation) -> PendingAction | None:
    return (
        PendingAction.objects.filter(conversation=conversation, status=PendingAction.Status.PENDING)
        .order_by("-created_at")
        .first()
    )


def _proposal(conversation: Conversation) -> Proposal | None:
    action = _latest_pending(conversation)
    if action is None:
        return None
    return Proposal(
        tool=action.tool,
        arguments=action.arguments,
        status=action.status,
        recipients=_recipients(action.arguments),
    )


def _action_record(conversation: Conversation) -> dict[str, Any]:
    action = _latest_pending(conversation)
    if action is None:
        return {}
    return {"tool": action.tool, "arguments": action.arguments, "description": action.description}


def _recipients(arguments: dict[str, Any]) -> dict[str, list[str]]:
    """Each recipient argument resolved to the contact's or group's stored name."""
    resolved: dict[str, list[str]] = {}
    for path in RECIPIENT_PATHS:
        value: Any = arguments
        for part in path.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        if value:
            entries = [value] if isinstance(value, str) else list(value)
            resolved[path] = [canonical_recipient(str(entry)) for entry in entries]
    return resolved


def _expected_recipients_canonical(expect: Expect) -> Expect:
    """``expect`` with each expected recipient as its stored name, as the proposal's are: a
    case that names "james.taylor@academy.example" is met by a proposal to the contact James
    Taylor, whose address it is (the message goes to the same place)."""
    if not expect.arguments:
        return expect
    arguments = _canonical_in(expect.arguments)
    return expect.model_copy(update={"arguments": arguments})


def _canonical_in(arguments: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in arguments.items():
        if isinstance(value, dict):
            out[key] = _canonical_in(value)
        elif key in _RECIPIENT_KEYS and isinstance(value, str):
            out[key] = canonical_recipient(value)
        elif key in _RECIPIENT_KEYS and isinstance(value, list):
            out[key] = [canonical_recipient(str(entry)) for entry in value]
        else:
            out[key] = value
    return out


def canonical_recipient(entry: str) -> str:
    """The stored name of the group or contact ``entry`` names or addresses, else ``entry``."""
    entry = entry.strip()
    group = ContactGroup.objects.filter(name__iexact=entry).first()
    if group is not None:
        return group.name
    contact = Contact.objects.filter(
        Q(name__iexact=entry) | Q(phone=entry) | Q(email__iexact=entry) | Q(telegram_chat_id=entry)
    ).first()
    return contact.name if contact is not None else entry


def _citations(citations: list[dict[str, Any]]) -> list[dict[str, str]]:
    """Title and external id of each cited document (SQuAD paragraphs share a title)."""
    ids = [int(c["document"]) for c in citations if c.get("document") is not None]
    external = dict(Document.objects.filter(pk__in=ids).values_list("pk", "external_id"))
    return [
        {
            "n": str(c.get("n", "")),
            "title": str(c.get("title", "")),
            "external_id": external.get(int(c.get("document") or 0), ""),
        }
        for c in citations
    ]
