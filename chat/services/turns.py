"""Turns: store the user's message, run the graph, stream its events, persist the reply.

Transport-free: the realtime layer passes a ``TurnEvents`` sink (WebSocket/SSE publishing);
tests pass ``CollectingEvents``. All functions run inside the tenant's schema.
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

from django.conf import settings
from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import IntegrityError, transaction
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tracers._streaming import _StreamingCallbackHandler
from langgraph.errors import GraphRecursionError
from langgraph.types import Command, StateSnapshot

from chat.agent.graph import build_graph, thread_id
from chat.agent.llm import build_chat_model, model_label
from chat.agent.outcome_replies import not_run_reply
from chat.agent.tools.registry import read_tool
from chat.models import Conversation, Message, PendingAction
from chat.services.answer_cache import (
    CachedAnswer,
    answer_cache_get,
    answer_cache_key,
    answer_cache_offer,
)
from chat.services.routed_answers import RoutedAnswer, routed_answer
from chat.services.usage import Usage, run_usage, usage_of, usage_payload, usage_record
from chat.snippets import word_snippet
from core import tracing
from core.logs import log_context
from core.metrics import AGENT_ERRORS, TIME_TO_FIRST_TOKEN, TURN_DURATION
from core.schema import current_schema, current_tenant

logger = logging.getLogger(__name__)

RECURSION_FALLBACK = (
    "I went round in circles on that one and stopped. Could you ask again, perhaps more "
    "specifically?"
)
ERROR_REPLY = "Sorry — something went wrong while answering. The error has been recorded."
_CANCEL_CHECK_SECONDS = 0.1
_WORDS = re.compile(r"\s*\S+\s*")
ROUTER_MODEL = "router"  # the ``usage.model`` of a reply the router gave without a model


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
    this user already sent (in any conversation, or with no conversation yet) returns the
    stored message with ``created`` False. Two concurrent sends of one ``client_id`` store one
    message: the database's unique constraint decides, the loser returns the winner's."""
    if client_id is not None:
        existing = _sent_before(user=user, client_id=client_id)
        if existing is not None:
            return existing.conversation, existing, False
    text = (text or "").strip()
    if not text:
        raise TurnInvalid("the message is empty")
    if len(text) > settings.CHAT_MAX_MESSAGE_CHARS:
        raise TurnInvalid(
            f"the message is longer than {settings.CHAT_MAX_MESSAGE_CHARS} characters"
        )
    try:
        with transaction.atomic():  # a savepoint: losing the race rolls back our conversation
            return _store_message(
                user=user, text=text, conversation_uuid=conversation_uuid, client_id=client_id
            )
    except IntegrityError:
        twin = _sent_before(user=user, client_id=client_id) if client_id is not None else None
        if twin is None:
            raise
        return twin.conversation, twin, False


def _sent_before(*, user: User, client_id: uuid.UUID | str) -> Message | None:
    return (
        Message.objects.select_related("conversation")
        .filter(sender=user, client_id=client_id)
        .first()
    )


def _store_message(
    *,
    user: User,
    text: str,
    conversation_uuid: uuid.UUID | str | None,
    client_id: uuid.UUID | str | None,
) -> tuple[Conversation, Message, bool]:
    if conversation_uuid is None:
        conversation = Conversation.objects.create(user=user, title=text[:80])
    else:
        try:
            conversation = Conversation.objects.live().get(uuid=conversation_uuid, user=user)
        except (Conversation.DoesNotExist, ValueError, TypeError) as error:
            raise ConversationNotFound("no such conversation") from error
    message = Message.objects.create(
        conversation=conversation,
        role=Message.Role.USER,
        content=text,
        sender=user,
        client_id=client_id,
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
    routed = routed_answer(conversation=conversation, message=message)
    if routed is not None:
        with _turn_scope(conversation, message.uuid):
            return _reply_routed(routed, message=message, events=events, model=model)
    cache_key = answer_cache_key(
        conversation=conversation, message=message, model=_answering_model(model)
    )
    cached = answer_cache_get(cache_key) if cache_key is not None else None
    if cached is not None:
        with _turn_scope(conversation, message.uuid):
            return _reply_cached(cached, message=message, events=events, model=model)
    fresh = {
        "messages": [HumanMessage(message.content, id=str(message.uuid))],
        "sources": [],
        "sql_failures": 0,
        "not_run": None,
    }

    def first_input(state: StateSnapshot) -> Any:
        started = str(message.uuid) in {m.id for m in state.values.get("messages", [])}
        if not started:
            return fresh
        waiting = any(task.interrupts for task in state.tasks)
        if not waiting and _reached_an_approval(conversation, message):
            # A redelivered run (its worker died before acknowledging it) of a turn that
            # paused for approval: the decision's resume owns the rest of the graph and the
            # reply, so continuing here would send the confirmation a second time.
            return _Superseded()
        return _continuation(state)

    return _run(
        conversation=conversation,
        run_id=message.uuid,
        first_input=first_input,
        events=events,
        model=model,
        cache_key=cache_key,
    )


def _answering_model(model: BaseChatModel | None) -> str:
    """Which model answers, for the answer cache's key (tests pass their own models)."""
    return model_label() if model is None else f"{model_label()}/{type(model).__name__}"


def _reached_an_approval(conversation: Conversation, message: Message) -> bool:
    """Whether the run of ``message`` proposed an action (and so paused): one is proposed only
    by the run in progress, so any action of the conversation newer than the message is its."""
    return PendingAction.objects.filter(
        conversation=conversation, created_at__gte=message.created_at
    ).exists()


def _reply_routed(
    routed: RoutedAnswer, *, message: Message, events: TurnEvents, model: BaseChatModel | None
) -> Message:
    """Store and stream the router's answer like any reply (one ``token`` frame, then
    ``done``); first announce a withdrawal and close out the graph that waited on it."""
    started = time.monotonic()
    if routed.withdrawn is not None:
        events.action(routed.withdrawn)  # again on a redelivery: watchers key cards by id
        _close_out_quietly(routed.withdrawn, model)
    events.token(routed.text)
    try:
        with transaction.atomic():
            reply = Message.objects.create(
                conversation=message.conversation,
                role=Message.Role.ASSISTANT,
                content=routed.text,
                usage=usage_payload(Usage(), model=ROUTER_MODEL),
                run_id=message.uuid,
            )
    except IntegrityError:  # a redelivered run already stored its reply
        reply = Message.objects.get(run_id=message.uuid, role=Message.Role.ASSISTANT)
    events.done(reply)
    TURN_DURATION.labels(outcome="routed").observe(time.monotonic() - started)
    logger.info("run routed: %s", routed.route, extra={"outcome": "routed"})
    return reply


def _reply_cached(
    cached: CachedAnswer, *, message: Message, events: TurnEvents, model: BaseChatModel | None
) -> Message:
    """Give a stored knowledge answer again through the same events as a fresh one (``thinking``,
    its text word by word as ``token`` events, then ``done``), stored as a normal reply with its
    citations; its usage says ``cached`` and counts no tokens. Then write the exchange into the
    graph's checkpoint, so a follow-up question is answered knowing it."""
    started = time.monotonic()
    events.status("thinking")
    for word in _WORDS.findall(cached.content):
        events.token(word)  # the realtime layer coalesces them into frames, as a model's
    try:
        with transaction.atomic():
            reply = Message.objects.create(
                conversation=message.conversation,
                role=Message.Role.ASSISTANT,
                content=cached.content,
                citations=cached.citations,
                usage=usage_payload(Usage(), model=model_label(), cached=True),
                run_id=message.uuid,
            )
    except IntegrityError:  # a redelivered run already stored its reply
        reply = Message.objects.get(run_id=message.uuid, role=Message.Role.ASSISTANT)
    events.done(reply)
    _checkpoint_cached_exchange(cached, message=message, model=model)
    TURN_DURATION.labels(outcome="cached").observe(time.monotonic() - started)
    logger.info("run answered from the answer cache", extra={"outcome": "cached"})
    return reply


def _checkpoint_cached_exchange(
    cached: CachedAnswer, *, message: Message, model: BaseChatModel | None
) -> None:
    """The reply stands whatever happens here: a checkpoint without this exchange only means a
    follow-up is answered without it, so a failure is logged, not the turn's."""
    try:
        graph = build_graph(model or build_chat_model())
        exchange = [HumanMessage(message.content, id=str(message.uuid)), AIMessage(cached.content)]
        graph.update_state(
            _config(message.conversation),
            {"messages": exchange, "sources": cached.sources, "sql_failures": 0},
            as_node="finalize",
        )
    except Exception as error:
        logger.exception("could not write a cached answer into the checkpoint")
        AGENT_ERRORS.labels(type=error.__class__.__name__).inc()


def _close_out_quietly(action: PendingAction, model: BaseChatModel | None) -> None:
    """The withdrawal stands whatever happens here; a graph left waiting on a withdrawn action
    only means the next message starts afresh, so a failure is logged, not the turn's."""
    try:
        turn_close_out(action=action, model=model)
    except Exception as error:
        logger.exception("could not close out the graph waiting on action %s", action.id)
        AGENT_ERRORS.labels(type=error.__class__.__name__).inc()


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
        waiting = _waits_on(state, action)
        if not waiting and action.status == PendingAction.Status.WITHDRAWN:
            return _Superseded()  # closed out already (the "cancel that" turn), or moved on
        expired = action.status == PendingAction.Status.EXPIRED
        if not waiting and expired and not _answered(state, action):
            return _Notice(not_run_reply(action))  # the conversation moved on without a decision
        if not waiting:  # a redelivered resume: the graph already moved past this decision
            return _continuation(state)
        if action.status not in PendingAction.NOT_RUN:
            events.status("executing")
        return resume

    return _run(
        conversation=action.conversation,
        run_id=action.id,
        first_input=first_input,
        events=events,
        model=model,
    )


def turn_close_out(*, action: PendingAction, model: BaseChatModel | None = None) -> None:
    """Move a graph that waits on ``action`` (withdrawn in a later message) past its interrupt
    to the end of its turn, announcing and storing nothing: the message that withdrew it gets
    the reply. A graph not waiting on it is left alone."""
    graph = build_graph(model or build_chat_model())
    config = _config(action.conversation)
    if _waits_on(graph.get_state(config), action):
        graph.invoke(Command(resume={"action_id": str(action.id), "status": action.status}), config)


def _answered(state: StateSnapshot, action: PendingAction) -> bool:
    """Whether the graph recorded an outcome for the action's tool call."""
    return any(
        isinstance(message, ToolMessage) and message.tool_call_id == action.tool_call_id
        for message in state.values.get("messages", [])
    )


def _waits_on(state: StateSnapshot, action: PendingAction) -> bool:
    return any(
        pending.value.get("action_id") == str(action.id)
        for task in state.tasks
        for pending in task.interrupts
    )


class _Finished:
    """The checkpoint shows the graph ran to its end; only the reply is left to persist."""


class _Paused:
    """The checkpoint shows the graph waiting for a decision."""


class _Superseded:
    """The graph no longer waits on the withdrawn action being resumed: nothing to do."""


@dataclass(frozen=True)
class _Notice:
    """A reply to store as it is, without running the graph (an expiry the graph no longer
    waits for: the conversation is still told)."""

    text: str


def _continuation(state: StateSnapshot) -> Any:
    """What a redelivered run does: continue from the checkpoint, never start over.

    Finished means no task is left at all. A worker killed after a node's writes were saved but
    before the checkpoint that follows them leaves that node as a task with a result: LangGraph
    leaves it out of ``state.next``, yet the step is not committed. Taking that for the end
    stored the last AIMessage of the checkpoint (the tool call, empty) as the reply; continuing
    applies the saved writes without running the node again and goes on to the model."""
    if not state.tasks:
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
    cache_key: str | None = None,
) -> Message | None:
    started = time.monotonic()
    with _turn_scope(conversation, run_id):
        run = _RunState(
            conversation=conversation, run_id=run_id, events=events, cache_key=cache_key
        )
        reply = _run_graph(run, first_input, model)
        outcome = _outcome_of(reply)
        TURN_DURATION.labels(outcome=outcome).observe(time.monotonic() - started)
        logger.info(
            "run ended: %s in %.2fs",
            outcome,
            time.monotonic() - started,
            extra={"outcome": outcome},
        )
        return reply


@contextmanager
def _turn_scope(conversation: Conversation, run_id: uuid.UUID) -> Iterator[None]:
    """Logs and a trace span carrying the run's ids, for graph runs and routed answers alike."""
    ids = {
        "tenant": current_schema(),
        "user": conversation.user_id,
        "conversation": conversation.uuid,
        "run": run_id,
    }
    with (
        log_context(**ids),
        tracing.span("chat.turn", **{f"countersign.{k}": str(v) for k, v in ids.items()}),
    ):
        yield


def _values_after_failure(graph: Any, config: RunnableConfig) -> dict[str, Any]:
    """The checkpoint after a failed run, for its usage; empty when it cannot be read either."""
    try:
        values: dict[str, Any] = graph.get_state(config).values
    except Exception:
        logger.warning("could not read the checkpoint after a failed run", exc_info=True)
        return {}
    return values


def _outcome_of(reply: Message | None) -> str:
    if reply is None:
        return "paused"
    return {
        Message.Status.COMPLETE: "complete",
        Message.Status.CANCELLED: "cancelled",
        Message.Status.ERROR: "failed",
    }[Message.Status(reply.status)]


@dataclass
class _RunState:
    """One run: what it needs to persist its reply and account for its model calls."""

    conversation: Conversation
    run_id: uuid.UUID
    events: TurnEvents
    # Ids of the checkpoint's messages when the run began: anything else is this run's.
    before: set[str | None] = field(default_factory=set)
    # Where a knowledge answer of this run may be stored (None: not a cacheable question).
    cache_key: str | None = None


def _run_graph(
    run: _RunState, first_input: Callable[[StateSnapshot], Any], model: BaseChatModel | None
) -> Message | None:
    conversation, events = run.conversation, run.events
    cache.delete(_cancel_key(conversation))
    graph = build_graph(model or build_chat_model())
    forwarder = _TokenForwarder(events, conversation)
    config: RunnableConfig = {**_config(conversation), "callbacks": [forwarder]}
    state = graph.get_state(config)
    run.before = {m.id for m in state.values.get("messages", [])}
    graph_input = first_input(state)
    if isinstance(graph_input, _Finished):
        return _persist_final(run, graph.get_state(config).values)
    if isinstance(graph_input, _Paused):
        _announce_pending(graph.get_state(config), events)
        return None
    if isinstance(graph_input, _Superseded):
        return None
    if isinstance(graph_input, _Notice):
        return _persist(run, graph_input.text, [], {}, Message.Status.COMPLETE)
    try:
        _stream(graph, graph_input, config, events)
    except TurnCancelled:
        values = graph.get_state(config).values
        return _persist(run, "".join(forwarder.streamed), [], values, Message.Status.CANCELLED)
    except GraphRecursionError:
        logger.warning("recursion limit reached in %s", conversation.uuid)
        AGENT_ERRORS.labels(type="recursion_limit").inc()
        values = graph.get_state(config).values
        return _persist(run, RECURSION_FALLBACK, [], values, Message.Status.COMPLETE)
    except Exception as error:
        logger.exception("turn failed in conversation %s", conversation.uuid)
        AGENT_ERRORS.labels(type=error.__class__.__name__).inc()
        events.error("agent_error", f"{error.__class__.__name__}: the assistant failed")
        values = _values_after_failure(graph, config)
        run.events = _Silent()
        return _persist(run, ERROR_REPLY, [], values, Message.Status.ERROR)
    state = graph.get_state(config)
    if state.next:
        usage_record(
            conversation=conversation,
            run_id=run.run_id,
            usage=run_usage(before=run.before, messages=state.values["messages"]),
            model=model_label(),
            finished_turn=False,
        )
        _announce_pending(state, events)
        return None
    return _persist_final(run, state.values)


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
        self._started = self._last_check = time.monotonic()

    def on_llm_new_token(self, token: Any, **kwargs: Any) -> None:
        if isinstance(token, str) and token:
            if not self.streamed:
                TIME_TO_FIRST_TOKEN.observe(time.monotonic() - self._started)
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
    for update in graph.stream(graph_input, config, stream_mode="updates"):
        if update.get("agent"):
            for call in getattr(update["agent"]["messages"][-1], "tool_calls", []):
                tool = read_tool(call["name"])
                if tool is not None:  # write calls are announced with their pending action
                    events.status(tool.stage)
        elif update.get("approval"):
            _announce_decided_actions(config, events)


def _announce_decided_actions(config: RunnableConfig, events: TurnEvents) -> None:
    conversation_id = config.get("configurable", {})["conversation_id"]
    for action in PendingAction.objects.filter(
        conversation_id=conversation_id,
        status__in=PendingAction.FINISHED,
    ).order_by("-updated_at")[:1]:
        events.action(action)


def _persist_final(run: _RunState, values: dict[str, Any]) -> Message:
    messages = values["messages"]
    reply = next(m for m in reversed(messages) if isinstance(m, AIMessage))
    content = str(reply.content)
    citations = [
        {
            "n": s["n"],
            "document": s["document"],
            "chunk": s.get("chunk"),  # the passage the document view highlights
            "title": s["title"],
            "snippet": word_snippet(s["text"]),
        }
        for s in values.get("sources", [])
        if f"[{s['n']}]" in content
    ]
    stored = _persist(run, content, citations, values, Message.Status.COMPLETE)
    if run.cache_key is not None and stored.content == content:
        answer_cache_offer(
            key=run.cache_key,
            turn=_this_turn(messages),
            content=content,
            citations=citations,
            sources=values.get("sources", []),
        )
    return stored


def _this_turn(messages: list[Any]) -> list[Any]:
    """The messages since the latest user message: every run of the current turn."""
    turn: list[Any] = []
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            break
        turn.append(message)
    return turn


def _persist(
    run: _RunState,
    content: str,
    citations: list[dict[str, Any]],
    values: dict[str, Any],
    status: str,
) -> Message:
    """Store the reply with the whole turn's usage, and this run's usage, in one transaction."""
    messages = values.get("messages", [])
    model = model_label()
    try:
        with transaction.atomic():
            message = Message.objects.create(
                conversation=run.conversation,
                role=Message.Role.ASSISTANT,
                content=content,
                citations=citations,
                usage=usage_payload(usage_of(_this_turn(messages)), model=model),
                run_id=run.run_id,
                status=status,
            )
            usage_record(
                conversation=run.conversation,
                run_id=run.run_id,
                usage=run_usage(before=run.before, messages=messages),
                model=model,
                finished_turn=True,
            )
    except IntegrityError:  # a redelivered run already stored its reply
        message = Message.objects.get(run_id=run.run_id, role=Message.Role.ASSISTANT)
    run.events.done(message)
    return message


class _Silent:
    """A sink for the reply of a failed run: the client got the ``error`` event instead."""

    def status(self, stage: str) -> None: ...
    def token(self, content: str) -> None: ...
    def pending(self, action: PendingAction) -> None: ...
    def action(self, action: PendingAction) -> None: ...
    def done(self, message: Message) -> None: ...
    def error(self, code: str, message: str) -> None: ...
