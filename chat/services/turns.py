"""Turns: store the user's message, run the graph, stream its events, persist the reply.

Transport-free: the realtime layer passes a ``TurnEvents`` sink (WebSocket/SSE publishing);
tests pass ``CollectingEvents``. All functions run inside the tenant's schema.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from django.conf import settings
from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import IntegrityError, transaction
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tracers._streaming import _StreamingCallbackHandler
from langgraph.errors import GraphRecursionError
from langgraph.types import Command, StateSnapshot

from chat.agent.graph import build_graph, thread_id
from chat.agent.llm import build_chat_model, model_label
from chat.agent.tools.query_data import QUERY_DATA_TOOL_NAME
from chat.agent.tools.search_knowledge import SEARCH_TOOL_NAME
from chat.models import Conversation, Message, PendingAction
from tenants.schema import current_schema, current_tenant

logger = logging.getLogger(__name__)

RECURSION_FALLBACK = (
    "I went round in circles on that one and stopped. Could you ask again, perhaps more "
    "specifically?"
)
ERROR_REPLY = "Sorry — something went wrong while answering. The error has been recorded."
_CANCEL_CHECK_SECONDS = 0.1


class TurnInvalid(Exception):
    """The request cannot start a turn (empty text, too long, unknown conversation)."""


class ConversationNotFound(TurnInvalid):
    """No such conversation for this user (also what another tenant's or user's looks like)."""


class TurnEvents(Protocol):
    def status(self, stage: str) -> None: ...
    def token(self, content: str) -> None: ...
    def pending(self, action: PendingAction) -> None: ...
    def action(self, action: PendingAction) -> None: ...
    def done(self, message: Message) -> None: ...
    def error(self, code: str, message: str) -> None: ...


@dataclass
class CollectingEvents:
    """A sink that keeps every event in order (in-process runs and tests)."""

    events: list[tuple[str, Any]] = field(default_factory=list)

    def status(self, stage: str) -> None:
        self.events.append(("status", stage))

    def token(self, content: str) -> None:
        self.events.append(("token", content))

    def pending(self, action: PendingAction) -> None:
        self.events.append(("pending", action))

    def action(self, action: PendingAction) -> None:
        self.events.append(("action", action))

    def done(self, message: Message) -> None:
        self.events.append(("done", message))

    def error(self, code: str, message: str) -> None:
        self.events.append(("error", (code, message)))

    def of(self, kind: str) -> list[Any]:
        return [payload for event, payload in self.events if event == kind]


@transaction.atomic
def turn_start(
    *,
    user: User,
    text: str,
    conversation_uuid: uuid.UUID | str | None = None,
    client_id: uuid.UUID | str | None = None,
) -> tuple[Conversation, Message, bool]:
    """Store the user's message. Returns (conversation, message, created); a ``client_id``
    already used in the conversation returns the stored message with ``created`` False."""
    text = (text or "").strip()
    if not text:
        raise TurnInvalid("the message is empty")
    if len(text) > settings.CHAT_MAX_MESSAGE_CHARS:
        raise TurnInvalid(
            f"the message is longer than {settings.CHAT_MAX_MESSAGE_CHARS} characters"
        )
    if conversation_uuid is None:
        conversation = Conversation.objects.create(user=user, title=text[:80])
    else:
        try:
            conversation = Conversation.objects.get(uuid=conversation_uuid, user=user)
        except (Conversation.DoesNotExist, ValueError, TypeError) as error:
            raise ConversationNotFound("no such conversation") from error
    if client_id is not None:
        existing = Message.objects.filter(conversation=conversation, client_id=client_id).first()
        if existing is not None:
            return conversation, existing, False
    message = Message.objects.create(
        conversation=conversation, role=Message.Role.USER, content=text, client_id=client_id
    )
    conversation.save(update_fields=["updated_at"])
    return conversation, message, True


def turn_cancel(*, conversation: Conversation) -> None:
    """Ask the running turn of ``conversation`` to stop; it persists its partial reply."""
    cache.set(_cancel_key(conversation), True, timeout=600)


def _cancel_key(conversation: Conversation) -> str:
    return f"turn-cancel:{conversation.uuid}"  # the cache prefixes the tenant schema


def _config(conversation: Conversation) -> RunnableConfig:
    schema = current_schema()
    return {
        "configurable": {
            "thread_id": thread_id(schema, str(conversation.uuid)),
            "schema": schema,
            "user_id": conversation.user_id,
            "conversation_id": conversation.pk,
            "tenant_name": current_tenant().name,
        },
        "recursion_limit": settings.RECURSION_LIMIT,
    }


def turn_run(
    *,
    conversation: Conversation,
    message: Message,
    events: TurnEvents,
    model: BaseChatModel | None = None,
) -> Message | None:
    """Run the graph for a stored user message. Returns the reply, or None when it paused for
    approval. Safe to run twice: the reply is unique per run (the user message's uuid)."""
    existing = Message.objects.filter(run_id=message.uuid, role=Message.Role.ASSISTANT).first()
    if existing is not None:
        events.done(existing)
        return existing
    fresh = {
        "messages": [HumanMessage(message.content, id=str(message.uuid))],
        "sources": [],
        "sql_failures": 0,
    }

    def first_input(state: StateSnapshot) -> Any:
        started = str(message.uuid) in {m.id for m in state.values.get("messages", [])}
        return _continuation(state) if started else fresh

    return _run(
        conversation=conversation,
        run_id=message.uuid,
        first_input=first_input,
        events=events,
        model=model,
    )


def turn_resume(
    *, action: PendingAction, events: TurnEvents, model: BaseChatModel | None = None
) -> Message | None:
    """Continue the paused graph after a decision (approved → the tool runs, exactly once)."""
    existing = Message.objects.filter(run_id=action.id, role=Message.Role.ASSISTANT).first()
    if existing is not None:
        events.done(existing)
        return existing
    resume: Command[Any] = Command(resume={"action_id": str(action.id), "status": action.status})

    def first_input(state: StateSnapshot) -> Any:
        waiting = [
            i
            for task in state.tasks
            for i in task.interrupts
            if i.value.get("action_id") == str(action.id)
        ]
        if not waiting:  # a redelivered resume: the graph already moved past this decision
            return _continuation(state)
        if action.status != PendingAction.Status.REJECTED:
            events.status("executing")
        return resume

    return _run(
        conversation=action.conversation,
        run_id=action.id,
        first_input=first_input,
        events=events,
        model=model,
    )


class _Finished:
    """The checkpoint shows the graph ran to its end; only the reply is left to persist."""


class _Paused:
    """The checkpoint shows the graph waiting for a decision."""


def _continuation(state: StateSnapshot) -> Any:
    """What a redelivered run does: continue from the checkpoint, never start over."""
    if not state.next:
        return _Finished()
    if any(task.interrupts for task in state.tasks):
        return _Paused()
    return None  # LangGraph continues from the last checkpoint when given no input


def _run(
    *,
    conversation: Conversation,
    run_id: uuid.UUID,
    first_input: Callable[[StateSnapshot], Any],
    events: TurnEvents,
    model: BaseChatModel | None,
) -> Message | None:
    cache.delete(_cancel_key(conversation))
    graph = build_graph(model or build_chat_model())
    forwarder = _TokenForwarder(events, conversation)
    config: RunnableConfig = {**_config(conversation), "callbacks": [forwarder]}
    graph_input = first_input(graph.get_state(config))
    if isinstance(graph_input, _Finished):
        return _persist_final(conversation, run_id, graph.get_state(config).values, events)
    if isinstance(graph_input, _Paused):
        _announce_pending(graph.get_state(config), events)
        return None
    try:
        _stream(graph, graph_input, config, events)
    except TurnCancelled:
        return _persist(
            conversation,
            run_id,
            "".join(forwarder.streamed),
            [],
            {},
            Message.Status.CANCELLED,
            events,
        )
    except GraphRecursionError:
        logger.warning("recursion limit reached in %s", conversation.uuid)
        return _persist(
            conversation, run_id, RECURSION_FALLBACK, [], {}, Message.Status.COMPLETE, events
        )
    except Exception as error:
        logger.exception("turn failed in conversation %s", conversation.uuid)
        events.error("agent_error", f"{error.__class__.__name__}: the assistant failed")
        return _persist(conversation, run_id, ERROR_REPLY, [], {}, Message.Status.ERROR, None)
    state = graph.get_state(config)
    if state.next:
        _announce_pending(state, events)
        return None
    return _persist_final(conversation, run_id, state.values, events)


def _announce_pending(state: StateSnapshot, events: TurnEvents) -> None:
    for task in state.tasks:
        for pending in task.interrupts:
            action = PendingAction.objects.get(pk=pending.value["action_id"])
            events.status("awaiting_approval")
            events.pending(action)


class TurnCancelled(Exception):
    pass


class _TokenForwarder(BaseCallbackHandler, _StreamingCallbackHandler[Any]):
    """Forwards the model's tokens as they arrive and notices a cancel request.

    Tokens come from callbacks rather than LangGraph's "messages" stream mode: that mode runs
    every node on a pool thread, where Django would open (and leak) a connection per thread
    and lose the caller's tenant schema. With "updates" only, nodes run in this thread.
    """

    raise_error = True  # let TurnCancelled stop the run

    def __init__(self, events: TurnEvents, conversation: Conversation) -> None:
        self.events = events
        self.conversation = conversation
        self.streamed: list[str] = []
        self._last_check = time.monotonic()

    def on_llm_new_token(self, token: Any, **kwargs: Any) -> None:
        if isinstance(token, str) and token:
            self.streamed.append(token)
            self.events.token(token)
        if time.monotonic() - self._last_check > _CANCEL_CHECK_SECONDS:
            self._last_check = time.monotonic()
            if cache.get(_cancel_key(self.conversation)):
                raise TurnCancelled()

    def tap_output_iter(self, run_id: uuid.UUID, output: Iterator[Any]) -> Iterator[Any]:
        return output

    def tap_output_aiter(self, run_id: uuid.UUID, output: AsyncIterator[Any]) -> AsyncIterator[Any]:
        return output


def _stream(graph: Any, graph_input: Any, config: RunnableConfig, events: TurnEvents) -> None:
    """Run the graph to its end or its next interrupt, announcing stages as nodes finish."""
    if not isinstance(graph_input, Command):  # a resume was announced as "executing"
        events.status("thinking")
    stages = {SEARCH_TOOL_NAME: "searching", QUERY_DATA_TOOL_NAME: "querying"}
    for update in graph.stream(graph_input, config, stream_mode="updates"):
        if update.get("agent"):
            for call in getattr(update["agent"]["messages"][-1], "tool_calls", []):
                if call["name"] in stages:  # write calls are announced with their pending action
                    events.status(stages[call["name"]])
        elif update.get("approval"):
            _announce_decided_actions(config, events)


def _announce_decided_actions(config: RunnableConfig, events: TurnEvents) -> None:
    conversation_id = config.get("configurable", {})["conversation_id"]
    for action in PendingAction.objects.filter(
        conversation_id=conversation_id,
        status__in=[PendingAction.Status.EXECUTED, PendingAction.Status.FAILED],
    ).order_by("-updated_at")[:1]:
        events.action(action)


def _persist_final(
    conversation: Conversation, run_id: uuid.UUID, values: dict[str, Any], events: TurnEvents
) -> Message:
    messages = values["messages"]
    reply = next(m for m in reversed(messages) if isinstance(m, AIMessage))
    content = str(reply.content)
    citations = [
        {"n": s["n"], "document": s["document"], "title": s["title"], "snippet": s["text"][:240]}
        for s in values.get("sources", [])
        if f"[{s['n']}]" in content
    ]
    usage = _usage_of_turn(messages)
    return _persist(
        conversation, run_id, content, citations, usage, Message.Status.COMPLETE, events
    )


def _usage_of_turn(messages: list[Any]) -> dict[str, Any]:
    turn: list[Any] = []
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            break
        turn.append(message)
    metas = [getattr(message, "usage_metadata", None) or {} for message in turn]
    return {
        "input_tokens": sum(int(meta.get("input_tokens", 0)) for meta in metas),
        "output_tokens": sum(int(meta.get("output_tokens", 0)) for meta in metas),
        "model": model_label(),
    }


def _persist(
    conversation: Conversation,
    run_id: uuid.UUID,
    content: str,
    citations: list[dict[str, Any]],
    usage: dict[str, Any],
    status: str,
    events: TurnEvents | None,
) -> Message:
    try:
        with transaction.atomic():
            message = Message.objects.create(
                conversation=conversation,
                role=Message.Role.ASSISTANT,
                content=content,
                citations=citations,
                usage=usage,
                run_id=run_id,
                status=status,
            )
    except IntegrityError:  # a redelivered run already stored its reply
        message = Message.objects.get(run_id=run_id, role=Message.Role.ASSISTANT)
    if events is not None:
        events.done(message)
    return message
