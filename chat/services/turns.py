"""Turns: store the user's message, run the graph, persist the reply.

Transport-free: the realtime layer passes a ``TurnEvents`` sink (WebSocket/SSE publishing);
evaluations and tests pass ``CollectingEvents``. The graph itself is run by
chat/agent/runner.py; this module decides what a run starts from and what its ending stores.
All functions run inside the tenant's schema.
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import redis
from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.types import StateSnapshot

from chat.agent import runner
from chat.agent.llm import model_label
from chat.agent.outcome_replies import outcome_reply
from chat.agent.runner import Ending, TurnEvents, cancel_request, cancel_requested
from chat.locks import fence_check
from chat.models import ActionEvent, Conversation, Message, PendingAction
from chat.pending_actions import ActionStateError, pending_action_execute, pending_action_withdraw
from chat.selectors import asking_message_uuid
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
from core.celery import queue
from core.db_wait import when_database_answers
from core.logs import log_context
from core.metrics import AGENT_ERRORS, TURN_DURATION
from core.schema import current_schema

logger = logging.getLogger(__name__)

RECURSION_FALLBACK = (
    "I went round in circles on that one and stopped. Could you ask again, perhaps more "
    "specifically?"
)
ERROR_REPLY = "Sorry — something went wrong while answering. The error has been recorded."
_WORDS = re.compile(r"\s*\S+\s*")
ROUTER_MODEL = "router"  # the ``usage.model`` of a reply the router gave without a model


class TurnInvalid(Exception):
    """The request cannot start a turn (empty text, too long, unknown conversation)."""


class ConversationNotFound(TurnInvalid):
    """No such conversation for this user (also what another tenant's or user's looks like)."""


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


def turn_cancel(*, conversation: Conversation, run_id: uuid.UUID | str) -> None:
    """Ask run ``run_id`` of ``conversation`` to stop: a queued one stores a cancelled reply
    when its task starts, without running anything; a running one stores its partial reply
    as cancelled. Either way its ``done`` says ``cancelled``."""
    cancel_request(conversation=conversation, run_id=run_id)


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
    if cancel_requested(conversation=conversation, run_id=message.uuid):
        # Cancelled while it waited in the queue: nothing of it runs, not even the router.
        with _turn_scope(conversation, message.uuid):
            return _reply_cancelled_unrun(message=message, events=events)
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

    def first_input(state: StateSnapshot) -> Any:
        if not runner.holds_message(state, str(message.uuid)):
            return runner.user_input(message)
        if not runner.waits_for_decision(state) and turn_paused(message):
            # A redelivered run (its worker died before acknowledging it) of a turn that
            # paused for approval: the decision's resume owns the rest of the graph and the
            # reply, so continuing here would send the confirmation a second time. A worker
            # killed between committing the proposal and saving the interrupt left a card
            # nobody in the conversation heard of (the chaos run): it is announced now.
            _announce_undecided(message, events)
            return runner.SUPERSEDED
        if _resume_queued_again(state):
            return runner.SUPERSEDED
        return runner.continuation(state)

    return _run(
        conversation=conversation,
        run_id=message.uuid,
        first_input=first_input,
        events=events,
        model=model,
        cache_key=cache_key,
        paused_before=turn_paused(message),
        message=message,
    )


def turn_end_with_error(*, message: Message) -> Message:
    """End a turn that could not be run with the error reply (no-op when it has a reply): what a
    failed run stores, so the conversation shows it and the message is never run again."""
    try:
        with transaction.atomic():
            return Message.objects.create(
                conversation=message.conversation,
                role=Message.Role.ASSISTANT,
                content=ERROR_REPLY,
                run_id=message.uuid,
                status=Message.Status.ERROR,
            )
    except IntegrityError:  # a run stored its reply after all
        return Message.objects.get(run_id=message.uuid, role=Message.Role.ASSISTANT)


def resume_queue(action_id: uuid.UUID | str) -> None:
    """Queue the resume of the turn that waits on a decided action (``chat.resume_turn``), in
    the trace of that turn when tracing is on (its context is stored on the action)."""
    traceparent = None
    if tracing.enabled():
        traceparent = (
            PendingAction.objects.filter(pk=action_id)
            .values_list("trace_context", flat=True)
            .first()
        )
    queue("chat.resume_turn", str(action_id), traceparent=traceparent)


# Decisions after which the graph still waiting means the resume has not run to its end.
_RESUMABLE = (
    PendingAction.Status.APPROVED,
    PendingAction.Status.REJECTED,
    PendingAction.Status.EXPIRED,
)


def _resume_queued_again(state: StateSnapshot) -> bool:
    """A redelivered run of a turn whose action was decided meanwhile: the decision's resume
    owns the rest, so this run announces nothing. That resume may have died with the worker
    that took it (the Redis broker loses a message whose worker is killed between taking it
    off the queue and recording it as unacknowledged), so it is queued again: a resume runs an
    action at most once however often it arrives. True when the graph waits on a decided
    action."""
    if not runner.waits_for_decision(state):
        return False
    decided = list(
        PendingAction.objects.filter(
            pk__in=runner.awaited_action_ids(state), status__in=_RESUMABLE
        ).values_list("pk", flat=True)
    )
    for action_id in decided:
        logger.warning("queueing the resume of decided action %s again", action_id)
        resume_queue(action_id)
    return bool(decided)


def _answering_model(model: BaseChatModel | None) -> str:
    """Which model answers, for the answer cache's key (tests pass their own models)."""
    return model_label() if model is None else f"{model_label()}/{type(model).__name__}"


def turn_paused(message: Message) -> bool:
    """Whether the turn of ``message`` proposed an action (and so paused): one is proposed only
    by the turn in progress, so any action of the conversation newer than the message is its.
    Such a turn is ended by its decisions' resumes, never by another run of the message."""
    return PendingAction.objects.filter(
        conversation_id=message.conversation_id, created_at__gte=message.created_at
    ).exists()


def turn_announce_paused(message: Message, events: TurnEvents) -> bool:
    """For a run of ``message`` that failed: whether it had proposed an action first (PostgreSQL
    restarting as the interrupt was saved, or as the card was announced). If so the turn is
    paused all the same, its card in the inbox: its undecided actions are announced to the
    conversation now, and the decision's resume ends the turn, not an error (an error then was
    a second ending in the chaos run). The database is often restarting just then, so it is
    waited for (bounded; its error after that)."""
    paused = when_database_answers(
        lambda: turn_paused(message), what=f"the actions of message {message.pk}"
    )
    if paused:
        _announce_undecided(message, events)
    return paused


def turn_undecided_actions(message: Message) -> list[PendingAction]:
    """The actions ``message``'s turn proposed that still wait for a decision, oldest first
    (any action of the conversation newer than the message is its turn's: ``turn_paused``)."""
    return list(
        PendingAction.objects.filter(
            conversation_id=message.conversation_id,
            created_at__gte=message.created_at,
            status__in=PendingAction.UNDECIDED,
        ).order_by("created_at")
    )


def _announce_undecided(message: Message, events: TurnEvents) -> None:
    """Announce the cards of ``message``'s turn still waiting for a decision (each once per
    action, whoever announces it: ``PublishingEvents.pending``)."""
    for action in turn_undecided_actions(message):
        events.status("awaiting_approval")
        events.pending(action)


def _reply_cancelled_unrun(*, message: Message, events: TurnEvents) -> Message:
    """Store and announce the empty cancelled reply of a turn stopped before it ran; the graph's
    checkpoint never sees the question, so a later turn is answered without it."""
    try:
        with transaction.atomic():
            reply = Message.objects.create(
                conversation=message.conversation,
                role=Message.Role.ASSISTANT,
                content="",
                usage=usage_payload(Usage(), model=model_label()),
                run_id=message.uuid,
                status=Message.Status.CANCELLED,
            )
    except IntegrityError:  # a redelivered run already stored its reply
        reply = Message.objects.get(run_id=message.uuid, role=Message.Role.ASSISTANT)
    events.done(reply)
    TURN_DURATION.labels(outcome="cancelled").observe(0)
    logger.info("run cancelled before it started", extra={"outcome": "cancelled"})
    return reply


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
        runner.record_exchange(
            message=message, reply=cached.content, sources=cached.sources, model=model
        )
    except Exception as error:
        logger.exception("could not write a cached answer into the checkpoint")
        AGENT_ERRORS.labels(type=error.__class__.__name__).inc()


def _close_out_quietly(action: PendingAction, model: BaseChatModel | None) -> None:
    """The withdrawal stands whatever happens here; a graph left waiting on a withdrawn action
    only means the next message starts afresh, so a failure is logged, not the turn's."""
    try:
        runner.close_out(action=action, model=model)
    except Exception as error:
        logger.exception("could not close out the graph waiting on action %s", action.id)
        AGENT_ERRORS.labels(type=error.__class__.__name__).inc()


def turn_resume(
    *, action: PendingAction, events: TurnEvents, model: BaseChatModel | None = None
) -> Message | None:
    """Carry out a decision and tell the conversation, once (approved → the tool runs exactly
    once; the reply is keyed by the action's id, so a repeated resume stores nothing new).

    The graph is resumed only while it is still parked on this very action's interrupt, or
    when it is past the decision in this action's own turn (a redelivered resume finishing its
    reply). Otherwise the conversation moved on (a later question, a second request, a
    cancelled turn, the answer cache): resuming would replay the thread's latest turn instead,
    so the action is carried out from its database row and its outcome told in fixed words
    (docs/agent.md, "Exactly once")."""
    action.refresh_from_db()  # loaded before the conversation lock was ours: read it again
    existing = Message.objects.filter(run_id=action.id, role=Message.Role.ASSISTANT).first()
    if existing is not None:
        if action.status == PendingAction.Status.EXECUTING:
            # A resume failed mid-execution (PostgreSQL restarting), stored its error reply and
            # left the action executing: the reply stands, and the sends are finished here (we
            # hold the conversation lock, so that run is dead), or the action stayed executing
            # while the sweep resumed it again and again (seen in the chaos run).
            _carried_out(action, events)
        events.done(existing)
        return existing

    def first_input(state: StateSnapshot) -> Any:
        if runner.waits_on(state, action):
            if action.status not in PendingAction.NOT_RUN:
                events.status("executing")
            return runner.resume_input(action)
        if action.status == PendingAction.Status.WITHDRAWN and _withdrawn_in_chat(action):
            return runner.SUPERSEDED  # the "cancel that" turn answered and closed it out
        if runner.in_turn_of(state, action):
            # The graph is past this decision in the action's own turn (a redelivered resume,
            # or one cut off inside the approval node): it carries the turn on, unless it
            # stopped without having run an approved action.
            following = runner.continuation(state)
            if following is None or action.status != PendingAction.Status.APPROVED:
                return following
        return runner.notice(_carried_out(action, events))

    return _run(
        conversation=action.conversation,
        run_id=action.id,
        first_input=first_input,
        events=events,
        model=model,
        # A turn cancelled while it waited for this decision ends as every cancelled turn does.
        ended_as=Message.Status.CANCELLED if _withdrawn_by_cancel(action) else None,
    )


def _withdrawn_in_chat(action: PendingAction) -> bool:
    """Withdrawn by a chat message ("cancel that"), whose routed reply said so."""
    return action.events.filter(kind=ActionEvent.Kind.WITHDRAWN, data__has_key="message").exists()


def _withdrawn_by_cancel(action: PendingAction) -> bool:
    """Withdrawn because its requester cancelled the turn waiting on it (``chat.cancel``)."""
    return (
        action.status == PendingAction.Status.WITHDRAWN
        and action.events.filter(kind=ActionEvent.Kind.WITHDRAWN, data__via="cancel").exists()
    )


def _carried_out(action: PendingAction, events: TurnEvents) -> str:
    """Run an approved action from its row, outside the graph, and word its outcome. The caller
    holds the conversation lock, so an action found ``executing`` was left so by a dead worker
    and is finished (its tool is idempotent under the action id); the conditional UPDATE in
    ``pending_action_execute`` still decides who runs it."""
    if action.status in PendingAction.APPROVED_SINCE - PendingAction.FINISHED:
        events.status("executing")
        pending_action_execute(action_id=action.id, resume_interrupted=True)
        action.refresh_from_db()
        events.action(action)
    return outcome_reply(action)


def _run(
    *,
    conversation: Conversation,
    run_id: uuid.UUID,
    first_input: Callable[[StateSnapshot], Any],
    events: TurnEvents,
    model: BaseChatModel | None,
    cache_key: str | None = None,
    ended_as: str | None = None,
    paused_before: bool = False,
    message: Message | None = None,
) -> Message | None:
    started = time.monotonic()
    with _turn_scope(conversation, run_id):
        run = _RunState(
            conversation=conversation,
            run_id=run_id,
            events=events,
            cache_key=cache_key,
            ended_as=ended_as or Message.Status.COMPLETE,
            paused_before=paused_before,
            message=message,
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
    # The status of a reply the run ends with normally (cancelled: a turn withdrawn by cancel).
    ended_as: str = Message.Status.COMPLETE
    # A later run (a redelivery) of a turn that had already paused for a decision.
    paused_before: bool = False
    # The user message a turn's run answers (None: a resume, which answers an action).
    message: Message | None = None


def _run_graph(
    run: _RunState, first_input: Callable[[StateSnapshot], Any], model: BaseChatModel | None
) -> Message | None:
    """Run the graph (chat/agent/runner.py) and store what its ending calls for."""
    result = runner.run_graph(
        conversation=run.conversation,
        run_id=run.run_id,
        first_input=first_input,
        events=run.events,
        model=model,
    )
    run.before = set(result.before)
    ending, values = result.ending, result.values
    if ending is Ending.FINISHED:
        return _persist_final(run, values)
    if ending is Ending.PAUSED:
        if result.ran:  # the model calls of this run count now; the resume counts its own
            usage_record(
                conversation=run.conversation,
                run_id=run.run_id,
                usage=run_usage(before=run.before, messages=values["messages"]),
                model=model_label(),
                finished_turn=False,
            )
        return None
    if ending is Ending.SUPERSEDED:
        return None
    if ending is Ending.NOTICE:
        return _persist(run, result.text, [], {}, run.ended_as)
    if ending is Ending.CANCELLED:
        parked = [action for action in result.parked if action != str(run.run_id)]
        if parked:
            return _cancel_parked(run, parked, result, model)
        return _persist(run, result.text, [], values, Message.Status.CANCELLED)
    if ending is Ending.LOOPED:
        return _persist(run, RECURSION_FALLBACK, [], values, Message.Status.COMPLETE)
    if run.paused_before:
        # A redelivered run of a paused turn failed (PostgreSQL restarting under it; logged and
        # counted by the runner): the decisions' resumes end the turn, so this run ends nothing.
        # An error now was a second ending in the chaos run.
        return None
    if run.message is not None and turn_announce_paused(run.message, run.events):
        return None
    try:
        run.events.error("agent_error", f"{result.text}: the assistant failed")
    except redis.RedisError:
        # Redis is away (it may be why the run failed): nobody can be told now, but the turn
        # still ends with its error reply; the unannounced-endings sweep tells the conversation
        # (chat/services/realtime.py). Left to a redelivery, the turn ended in silence when the
        # broker lost the task with the restart.
        logger.warning("could not announce a failed turn; storing its error reply", exc_info=True)
    run.events = _Silent()  # the client got the error event instead of the reply
    return _persist(run, ERROR_REPLY, [], values, Message.Status.ERROR)


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
    stored = _persist(run, content, citations, values, run.ended_as, choices=_choices(reply))
    if run.cache_key is not None and stored.content == content:
        answer_cache_offer(
            key=run.cache_key,
            turn=_this_turn(messages),
            content=content,
            citations=citations,
            sources=values.get("sources", []),
        )
    return stored


def _choices(reply: AIMessage) -> list[str]:
    """The readings a clarifying reply offers (the built-in model's ``choices``), as buttons
    can show them: a few short, distinct strings. Anything else a model put there is dropped."""
    offered = reply.additional_kwargs.get("choices")
    if not isinstance(offered, list):
        return []
    texts = [" ".join(c.split())[: Message.MAX_CHOICE_CHARS] for c in offered if isinstance(c, str)]
    return list(dict.fromkeys(t for t in texts if t))[: Message.MAX_CHOICES]


def _this_turn(messages: list[Any]) -> list[Any]:
    """The messages since the latest user message: every run of the current turn."""
    turn: list[Any] = []
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            break
        turn.append(message)
    return turn


def _cancel_parked(
    run: _RunState, parked: list[str], result: runner.RunResult, model: BaseChatModel | None
) -> Message | None:
    """End a turn whose cancel the run saw just after the graph proposed ``parked`` (the
    approval node commits an action, then the run checks for a cancel): the user asked to stop,
    so the proposals are withdrawn, as a cancel of a turn waiting for a decision does, and the
    turn ends here, once, as cancelled. Withdrawal and reply commit together, and the withdrawal
    names the turn's message, so no resume or sweep ends the turn again. Left pending, the
    proposals' decision ended the turn a second time (seen in the short chaos run). One decided
    meanwhile (an approver quicker than the cancel) keeps the turn paused: its resume ends it."""
    asked = run.message.uuid if run.message is not None else None
    try:
        with transaction.atomic():
            withdrawn = [
                _withdraw_for_cancel(PendingAction.objects.get(pk=action_id), asked)
                for action_id in parked
            ]
            reply = _store(run, result.text, [], result.values, Message.Status.CANCELLED)
    except ActionStateError:
        logger.info("a proposal was decided before the turn's cancel could withdraw it")
        return None
    for action in withdrawn:
        run.events.action(action)
        _close_out_quietly(action, model)
    run.events.done(reply)
    return reply


def _withdraw_for_cancel(action: PendingAction, asked: uuid.UUID | None) -> PendingAction:
    return pending_action_withdraw(
        action_id=action.pk,
        user=action.requested_by,
        via="cancel",
        message_id=asked or asking_message_uuid(action=action),
    )


def _persist(
    run: _RunState,
    content: str,
    citations: list[dict[str, Any]],
    values: dict[str, Any],
    status: str,
    *,
    choices: list[str] | None = None,
) -> Message:
    """Store the reply with the whole turn's usage, and this run's usage, in one transaction;
    announce it."""
    message = _store(run, content, citations, values, status, choices=choices)
    try:
        run.events.done(message)
    except redis.RedisError:
        # Stored, and only the announcement failed (Redis away): the unannounced-endings sweep
        # sends this ``done``. Raising would have the run announce an ``error`` for a turn
        # that answered.
        logger.warning("reply %s is stored; the sweep will announce it", message.pk, exc_info=True)
    return message


def _store(
    run: _RunState,
    content: str,
    citations: list[dict[str, Any]],
    values: dict[str, Any],
    status: str,
    *,
    choices: list[str] | None = None,
) -> Message:
    messages = values.get("messages", [])
    model = model_label()
    try:
        with transaction.atomic():
            message = Message.objects.create(
                conversation=run.conversation,
                role=Message.Role.ASSISTANT,
                content=content,
                citations=citations,
                choices=choices or [],
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
            _fence_before_storing()
    except IntegrityError:  # a redelivered run already stored its reply
        message = Message.objects.get(run_id=run.run_id, role=Message.Role.ASSISTANT)
    return message


def _fence_before_storing() -> None:
    """A run taken over while it ran stores nothing (``fence_check``, chat/locks.py). When
    Redis cannot answer that, the database decides: a run stores one reply (a unique
    constraint, with its usage in the same transaction), so a turn ending while Redis restarts
    still ends instead of leaving its message unanswered."""
    try:
        fence_check()
    except redis.RedisError:
        logger.warning("could not check the run's lock; storing its reply", exc_info=True)


class _Silent:
    """A sink for the reply of a failed run: the client got the ``error`` event instead."""

    def status(self, stage: str) -> None: ...
    def token(self, content: str) -> None: ...
    def flush(self) -> None: ...
    def pending(self, action: PendingAction) -> None: ...
    def action(self, action: PendingAction) -> None: ...
    def done(self, message: Message) -> None: ...
    def error(self, code: str, message: str) -> None: ...
