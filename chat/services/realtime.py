"""What the WebSocket consumer and the HTTP API both call: send, decide, cancel, execute.

One turn runs at a time per conversation (chat/locks.py). A message sent while a turn is
running is refused with ``ConversationBusy`` (the client may retry when it sees ``done``); the
sender reserves the conversation when it accepts the message, and the worker takes the
reservation over while the turn runs.
"""

from __future__ import annotations

import contextlib
import logging
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

import kombu.exceptions
import redis
from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from chat.events.log import ending_published, endings_published
from chat.events.publishing import (
    PublishingEvents,
    publish_action,
    publish_message,
    publish_pending,
    publish_reply_ending,
    publish_turn_error,
)
from chat.locks import (
    ConversationLock,
    RunSuperseded,
    conversation_lock,
    fenced,
    held_run_id,
    reservation_token,
    run_lock,
)
from chat.models import Conversation, Message, PendingAction
from chat.pending_actions import (
    ActionExpired,
    Confirmation,
    Decision,
    pending_action_confirm,
    pending_action_decide,
    pending_action_withdraw,
)
from chat.selectors import asking_message_uuid, conversation_watchable, decidable_tools
from chat.services.expiry import (
    STRANDED_HORIZON,
    moved_past,
    overdue_action_ids,
    pending_action_expire,
    recent_replies,
    recent_undecided_actions,
    stranded_action_ids,
    stranded_turn_messages,
)
from chat.services.turns import (
    ConversationNotFound,
    resume_queue,
    turn_announce_paused,
    turn_cancel,
    turn_end_with_error,
    turn_paused,
    turn_resume,
    turn_run,
    turn_start,
    turn_undecided_actions,
)
from chat.services.usage import usage_budget_check
from core import tracing
from core.celery import queue
from core.db_wait import when_database_answers
from core.leases import keeper
from core.metrics import AGENT_ERRORS
from core.redis_clients import sync_redis
from core.schema import current_schema
from tenants.names import action_announced_key, turn_ending_key, turn_requeues_key

logger = logging.getLogger(__name__)


class ConversationBusy(Exception):
    """A turn is already running in this conversation."""


class NothingToCancel(Exception):
    """No turn of this conversation is queued, running or waiting for a decision."""


class SendFailed(Exception):
    """The message could not be queued for a reply (Redis unreachable). If it was stored, sending
    it again with the same ``client_id`` queues it; it is never left stored and unanswered by a
    client that retries."""


@dataclass(frozen=True)
class Accepted:
    conversation: Conversation
    message: Message
    created: bool


def message_send(
    *, user: User, text: str, conversation_uuid: str | None, client_id: str | None
) -> Accepted:
    """Store the message and queue its turn (after commit). A repeated ``client_id`` returns
    the stored message and queues nothing, unless that message has no reply and no turn holds
    or has reserved the conversation (its first queueing failed): then it is queued again.
    Raises ``BudgetExhausted`` when the tenant's monthly token budget is spent (decisions on
    pending actions still resume their turns), ``SendFailed`` when Redis cannot take the turn
    (the client is told and sends again with the same ``client_id``)."""

    reservation: ConversationLock | None = None
    try:
        with transaction.atomic():
            with tracing.span("chat.message.store"):
                conversation, message, created = turn_start(
                    user=user, text=text, conversation_uuid=conversation_uuid, client_id=client_id
                )
            reservation = conversation_lock(conversation, reservation_token(message.uuid))
            if created:
                usage_budget_check()  # raising rolls the stored message back
                if _previous_unended(message) or not reservation.acquire():
                    raise ConversationBusy(
                        "a reply is still being written in this conversation; send again after "
                        "it finishes (or cancel it)"
                    )
                # Announced before the turn is queued, so it comes before the turn's events. A
                # failure here costs other tabs the question, never the reply: robust.
                schema = current_schema()
                transaction.on_commit(
                    lambda: publish_message(schema=schema, message=message), robust=True
                )
            elif _unanswered(message) and reservation.acquire():
                created = False  # the same message, queued again: not a new one
            else:
                return Accepted(conversation, message, created)
            transaction.on_commit(lambda: queue("chat.run_turn", message.pk))
    except (redis.RedisError, kombu.exceptions.OperationalError) as error:
        if reservation is not None:  # so that sending again can reserve and queue it
            with contextlib.suppress(redis.RedisError):
                reservation.release()
        raise SendFailed(
            "the message could not be queued for a reply; send it again with the same client_id"
        ) from error
    return Accepted(conversation, message, created)


def _previous_unended(message: Message) -> bool:
    """Whether the conversation's previous user message still waits for its ending (no reply,
    not paused for a decision): its turn is queued, running or lost, and the sweep will end it.
    The lock alone cannot tell: a reservation lapses after ``CHAT_TURN_LOCK_SECONDS`` while
    its task waits in a busy queue, and a message accepted then got its reply before the
    earlier one's (seen in the chaos run). Older than the sweep looks back, it waits no more."""
    previous = (
        Message.objects.filter(
            conversation_id=message.conversation_id,
            role=Message.Role.USER,
            created_at__gte=timezone.now() - STRANDED_HORIZON,
        )
        .exclude(pk=message.pk)
        .order_by("-created_at", "-pk")
        .first()
    )
    if previous is None:
        return False
    if _unanswered(previous):
        return True
    _announce_stored_reply(previous)
    _announce_undecided_cards(previous)
    return False


def _announce_stored_reply(message: Message) -> None:
    """Publish the ending of ``message``'s stored reply if its run could not (Redis went away
    between the two): the conversation hears the previous turn end before the next question.
    Seen in the chaos run: the reply was stored, its ``done`` never published, and the next
    message was accepted after a question that, for every client, never ended."""
    reply = Message.objects.filter(run_id=message.uuid, role=Message.Role.ASSISTANT).first()
    if reply is None:
        return
    schema = current_schema()
    if not ending_published(once_key=turn_ending_key(schema, message.uuid)):
        logger.warning("the reply to message %s was stored but never announced", message.pk)
        publish_reply_ending(schema=schema, reply=reply, reply_to=message.uuid)


def _announce_undecided_cards(message: Message) -> None:
    """Publish the cards of ``message``'s paused turn that no run announced (its worker was
    killed between proposing and announcing), so the conversation hears the turn pause before
    the next question. Seen in the chaos run: a redelivered run announced the card, but only
    after the next message. Each card is published once whoever tries (``publish_pending``)."""
    schema = current_schema()
    for action in turn_undecided_actions(message):
        if publish_pending(schema=schema, action=action):
            logger.warning("action %s was proposed but its card never announced", action.pk)


def _unanswered(message: Message) -> bool:
    """No reply, and the turn never paused for a decision (its resume answers it then)."""
    return not _replied(message) and not turn_paused(message)


def action_decide(
    *,
    user: User,
    action_id: str,
    decision: Decision,
    arguments: dict[str, Any] | None = None,
    note: str = "",
) -> PendingAction:
    """Decide, announce the decision to the conversation, and queue the resume (after commit).

    A decision that finds the action past its expiry (the sweep has not reached it yet) expires
    it for everyone there and then, and is refused with ``ActionExpired``.

    An approval with edited arguments is a counter-proposal (status ``edited``): it is
    announced (the requester's card shows the before/after with Confirm and Decline) and
    nothing is resumed until someone other than the editor confirms it (``action_confirm``)."""

    try:
        with transaction.atomic():
            action = pending_action_decide(
                action_id=action_id, user=user, decision=decision, arguments=arguments, note=note
            )
            _announce(action, resume=not action.awaits_confirmation)
    except ActionExpired:
        action_expire(action_id=action_id)
        raise
    return action


def action_confirm(
    *, user: User, action_id: str, decision: Confirmation, note: str = ""
) -> PendingAction:
    """Confirm (it is approved and runs with the edited text) or decline (rejected) an
    approver's edit, announce it and queue the resume, like a decision."""

    try:
        with transaction.atomic():
            action = pending_action_confirm(
                action_id=action_id, user=user, decision=decision, note=note
            )
            _announce(action, resume=True)
    except ActionExpired:
        action_expire(action_id=action_id)
        raise
    return action


def _announce(action: PendingAction, *, resume: bool) -> None:
    """Inside the deciding transaction: publish the action once committed and, with
    ``resume``, reserve the conversation (a running turn makes the resume wait) and queue it."""
    schema = current_schema()
    if resume:
        conversation_lock(action.conversation, reservation_token(action.id)).acquire()
    _announce_after_commit(schema, action)
    if resume:
        _queue_resume_after_commit(action)


def _queue_resume_after_commit(action: PendingAction) -> None:
    """Queue the decided action's resume once committed. The decision stands when the broker
    is away (Redis restarting): the stranded-resume sweep queues the resume within
    ``CHAT_STRANDED_RESUME_SECONDS``, so this logs instead of failing the request that decided
    (a 500 in the chaos run)."""

    def queue_resume() -> None:
        try:
            resume_queue(action.id)
        except (redis.RedisError, kombu.exceptions.OperationalError):
            logger.warning("could not queue the resume of action %s; the sweep will", action.id)

    transaction.on_commit(queue_resume)


def _announce_after_commit(schema: str, action: PendingAction) -> None:
    """Publish the action's new state once committed. A failure (Redis away longer than its
    clients retry) is logged, never raised: the decision is taken and the resume queued after
    this still has to go; the resume announces an executed or failed action again, and every
    page and ``GET`` shows the stored state."""

    def publish() -> None:
        try:
            publish_action(schema=schema, action=action)
        except Exception:
            logger.warning(
                "could not announce action %s (%s)", action.id, action.status, exc_info=True
            )

    transaction.on_commit(publish)


def action_expire(*, action_id: uuid.UUID | str) -> PendingAction | None:
    """Expire an overdue action, announce it (conversation and approvals feed) and close out
    the turn waiting on it, like a rejection. None when it was not due or already settled."""

    with transaction.atomic():
        action = pending_action_expire(action_id=action_id)
        if action is None:
            return None
        schema = current_schema()
        conversation_lock(action.conversation, reservation_token(action.id)).acquire()
        _announce_after_commit(schema, action)
        _queue_resume_after_commit(action)
    return action


def overdue_actions_expire() -> int:
    """Expire every overdue pending action of the current tenant; how many this call expired
    (an overlapping sweep expires the others, each exactly once)."""
    return sum(action_expire(action_id=pk) is not None for pk in overdue_action_ids())


def stranded_resumes_requeue() -> int:
    """Queue the resume of every decided action of the current tenant left without its outcome
    for ``CHAT_STRANDED_RESUME_SECONDS`` (``stranded_action_ids``: never claimed, abandoned
    while executing, or never told to its conversation). Its task was lost (the Redis broker
    drops a task whose worker is killed between taking it off the queue and recording it as
    unacknowledged) or its worker died. Idempotent: a resume runs an action at most once and
    stores one reply, so one that was merely slow loses nothing."""
    stranded = stranded_action_ids(older_than_seconds=settings.CHAT_STRANDED_RESUME_SECONDS)
    for action_id in stranded:
        logger.warning("decided action %s was left without its outcome; resuming it", action_id)
        resume_queue(action_id)
    return len(stranded)


def stranded_turns_requeue() -> int:
    """Recover every message of the current tenant whose turn was lost: stored, no reply, not
    paused for a decision, and no turn holding or reserving its conversation, for
    ``CHAT_STRANDED_TURN_SECONDS`` (its ``run_turn`` never reached a worker, or its worker died
    and the broker lost the task). Each is queued again, reserved like a send, at most
    ``CHAT_STRANDED_TURN_ATTEMPTS`` times; after that, or when a later question was asked in
    its conversation meanwhile, it ends with the error reply and an ``error`` event. How many
    this call queued or ended. Idempotent: a turn stores one reply however often it runs."""
    handled = 0
    schema = current_schema()
    for message in stranded_turn_messages(older_than_seconds=settings.CHAT_STRANDED_TURN_SECONDS):
        reservation = conversation_lock(message.conversation, reservation_token(message.uuid))
        if not reservation.acquire():
            continue  # a turn runs, or a sender or a decision has just reserved it
        if _replied(message):
            # Ended since it was listed (a run, or an overlapping sweep that then released the
            # conversation): queueing or ending it again would publish a second ending.
            reservation.release()
            continue
        if moved_past(message) or _requeued(schema, message) > settings.CHAT_STRANDED_TURN_ATTEMPTS:
            logger.warning("message %s was left without a reply; ending it", message.pk)
            try:
                turn_end_with_error(message=message)
                publish_turn_error(schema=schema, message=message)
            finally:
                reservation.release()
        else:
            logger.warning("message %s was left without a reply; queueing it again", message.pk)
            queue("chat.run_turn", message.pk)
        handled += 1
    return handled


# A reply is announced the moment it is stored; one older than this without its ending was
# not (the sweep's business).
_UNANNOUNCED_AFTER_SECONDS = 10


def unannounced_endings_publish() -> int:
    """Publish the ending of every recent reply of the current tenant stored without one: its
    run stored the reply, then could not announce it (Redis restarting between the two; the
    task failed with nothing left to redo, since the reply is stored). A turn whose message
    already has an ending (its first run's error) gets no second one. How many this call
    published; at most once each, however many sweeps overlap (``append_ending``)."""
    schema = current_schema()
    replies = recent_replies(older_than_seconds=_UNANNOUNCED_AFTER_SECONDS)
    if not replies:
        return 0
    announced_already = endings_published(
        once_keys=[turn_ending_key(schema, str(reply.run_id)) for reply in replies]
    )
    published = 0
    for reply, announced in zip(replies, announced_already, strict=True):
        if announced:
            continue
        reply_to = _reply_to(reply)
        answered = reply_to is not None and reply_to != reply.run_id  # a resume's reply
        if answered and ending_published(once_key=turn_ending_key(schema, str(reply_to))):
            continue  # its message's first run ended the turn with an error
        logger.warning("reply %s was stored but never announced; announcing it", reply.pk)
        published += publish_reply_ending(schema=schema, reply=reply, reply_to=reply_to)
    return published


def unannounced_cards_publish() -> int:
    """Publish the card of every recent undecided action of the current tenant that no run
    announced: its worker was killed between committing the proposal and announcing it, and
    nothing redelivered the run (the turn is paused, so the stranded-turn sweep leaves it
    alone). The approvers' inbox lists it either way; this puts it in its conversation. How
    many this call published; at most once each (``publish_pending``)."""
    schema = current_schema()
    actions = recent_undecided_actions(older_than_seconds=_UNANNOUNCED_AFTER_SECONDS)
    if not actions:
        return 0
    announced_already = endings_published(
        once_keys=[action_announced_key(schema, action.id) for action in actions]
    )
    published = 0
    for action, announced in zip(actions, announced_already, strict=True):
        if not announced and publish_pending(schema=schema, action=action):
            logger.warning("action %s was proposed but never announced; announcing it", action.pk)
            published += 1
    return published


def _reply_to(reply: Message) -> uuid.UUID | None:
    """The user message a stored reply answers: its run's message, or for a resume's reply
    (its run is an action) the message whose turn proposed the action."""
    if reply.run_id is None:
        return None
    if Message.objects.filter(uuid=reply.run_id, role=Message.Role.USER).exists():
        return reply.run_id
    action = PendingAction.objects.filter(pk=reply.run_id).first()
    return asking_message_uuid(action=action) if action is not None else None


def _replied(message: Message) -> bool:
    return Message.objects.filter(run_id=message.uuid, role=Message.Role.ASSISTANT).exists()


def _requeued(schema: str, message: Message) -> int:
    """Count one more requeue of ``message``'s turn; how many there have been, this one
    included. Kept as long as the sweep looks back, so the bound holds across its runs."""
    key = turn_requeues_key(schema, message.uuid)
    client = sync_redis()
    count = int(client.incr(key))
    client.expire(key, int(STRANDED_HORIZON.total_seconds()))
    return count


def action_withdraw(
    *, user: User, action_id: str, note: str = "", via: str | None = None
) -> PendingAction:
    """The requester takes back a pending action (the card's Withdraw button, the API, the
    ``action.withdraw`` frame): announce it and close out the turn waiting on it, like a
    rejection. Typing "cancel that" does the same inside a turn (routed_answers)."""

    with transaction.atomic():
        action = pending_action_withdraw(action_id=action_id, user=user, note=note, via=via)
        schema = current_schema()
        conversation_lock(action.conversation, reservation_token(action.id)).acquire()
        _announce_after_commit(schema, action)
        _queue_resume_after_commit(action)
    return action


@dataclass(frozen=True)
class CancelOutcome:
    conversation: Conversation
    # cancelling: the queued or running turn was asked to stop; withdrawn: the action it
    # waited on was withdrawn. Either way one ``done`` of status ``cancelled`` follows.
    status: Literal["cancelling", "withdrawn"]
    action: PendingAction | None = None


def conversation_cancel(*, user: User, conversation_uuid: str) -> CancelOutcome:
    """Stop the owner's current turn of a conversation, whatever it is doing: queued, starting
    or streaming (the run that holds the conversation lock is asked to stop, by its run id),
    or waiting for a decision (its pending action is withdrawn, as by the Withdraw button).
    Raises ``NothingToCancel`` when no turn is left to stop (it ended: its ``done`` was sent),
    ``ConversationNotFound`` for anyone but its owner."""
    conversation = conversation_for_user(user=user, conversation_uuid=conversation_uuid)
    run_id = held_run_id(conversation)
    if run_id is not None:
        # A resume that closes out a withdrawn, rejected or expired action is already ending
        # the turn with its fixed reply: a second cancel (a double click) leaves it be.
        if not _closing_out(run_id):
            turn_cancel(conversation=conversation, run_id=run_id)
        return CancelOutcome(conversation, "cancelling")
    waiting = _awaited_action(conversation)
    if waiting is None:
        raise NothingToCancel("no reply is being written in this conversation")
    action = action_withdraw(user=user, action_id=str(waiting.pk), via="cancel")
    return CancelOutcome(conversation, "withdrawn", action)


def _awaited_action(conversation: Conversation) -> PendingAction | None:
    """The undecided action the conversation's latest turn waits on: proposed since its latest
    user message (an older one belongs to a turn that was followed by another)."""
    latest = conversation.messages.filter(role=Message.Role.USER).order_by("-created_at").first()
    if latest is None:
        return None
    return (
        conversation.actions.filter(
            status__in=PendingAction.UNDECIDED, created_at__gte=latest.created_at
        )
        .order_by("-created_at")
        .first()
    )


def _closing_out(run_id: str) -> bool:
    """Whether run ``run_id`` is the resume of an action that never runs (withdrawn, rejected,
    expired): it only closes the turn out with its fixed reply."""
    try:
        action_id = uuid.UUID(run_id)
    except ValueError:
        return False
    return PendingAction.objects.filter(pk=action_id, status__in=PendingAction.NOT_RUN).exists()


def user_is_approver(*, user: User) -> bool:
    """Whether the tenant's policy lets ``user`` decide actions of at least one tool."""
    return bool(decidable_tools(user=user))


def user_may_decide(*, user: User, tool: str) -> bool:
    """Whether the tenant's policy for ``tool`` lets ``user`` decide its actions."""
    return tool in decidable_tools(user=user)


def conversation_for_viewer(*, user: User, conversation_uuid: str) -> Conversation:
    """A conversation ``user`` may watch: their own, or someone else's that holds actions and
    only actions ``user`` may read (``chat.selectors.conversation_watchable``: an approver of
    every tool in it, a tenant admin). Anything else is not found."""
    try:
        return conversation_for_user(user=user, conversation_uuid=conversation_uuid)
    except ConversationNotFound:
        try:
            watchable = conversation_watchable(user=user, conversation_uuid=conversation_uuid)
        except (ValueError, TypeError, ValidationError):  # not a uuid
            watchable = None
        if watchable is not None:
            return watchable
        raise


def conversation_for_user(*, user: User, conversation_uuid: str) -> Conversation:
    """The user's own conversation; anything else (another user's, another tenant's, one they
    deleted, not a uuid) is indistinguishable from one that does not exist."""
    try:
        return Conversation.objects.live().get(uuid=conversation_uuid, user=user)
    except (Conversation.DoesNotExist, ValueError, TypeError):
        raise ConversationNotFound("no such conversation") from None


# -- worker side --------------------------------------------------------------------------------


class _RenewingEvents(PublishingEvents):
    """Renews the conversation lock as the turn makes progress: on every event but a token
    frame, and on a token frame only once a tenth of the lock's life has passed (a Redis round
    trip per frame otherwise, 40 a second per conversation while streaming). Each renewal is
    also the run's fence: an execution another one took over (chat/locks.py) raises
    ``RunSuperseded`` instead of publishing."""

    def __init__(
        self,
        *,
        lock: ConversationLock,
        message: Message | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.lock = lock
        self.message = message  # the user message a turn's run answers (None: a resume)
        self._renewed_at = time.monotonic()
        self.ended = False  # a done or error event was sent
        # The turn paused for a decision (this run announced a card, or a failure found that an
        # earlier run had proposed one): its decisions' resumes end it, so this run publishes
        # no error.
        self.paused = False

    def done(self, message: Message) -> None:
        super().done(message)
        self.ended = True

    def error(self, code: str, message: str) -> None:
        if not self.paused and self.message is not None:
            try:
                self.paused = turn_announce_paused(self.message, self)
            except Exception:  # the database is still away: the error it is
                logger.warning("could not tell whether run %s had paused", self.run_id)
        if self.paused:
            logger.warning(
                "run %s failed (%s) after its turn paused for a decision", self.run_id, code
            )
            return
        super().error(code, message)
        self.ended = True

    def pending(self, action: PendingAction) -> None:
        super().pending(action)
        self.paused = True

    def check_still_ours(self) -> None:
        if not self.lock.still_ours():
            raise RunSuperseded(f"run {self.run_id} was taken over by another execution")
        self._renewed_at = time.monotonic()

    def _emit(self, payload: dict[str, Any]) -> None:
        self.check_still_ours()
        super()._emit(payload)

    def _emit_token(self, payload: dict[str, Any]) -> None:
        if time.monotonic() - self._renewed_at > settings.CHAT_TURN_LOCK_SECONDS / 10:
            self.check_still_ours()
        super()._emit_token(payload)

    def _emit_once(self, payload: dict[str, Any], *, once_key: str) -> None:
        self.check_still_ours()
        super()._emit_once(payload, once_key=once_key)


@contextlib.contextmanager
def _ends_visibly(events: _RenewingEvents) -> Iterator[None]:
    """No turn without an ending: an exception the run did not turn into its own ending (the
    graph's failures are, chat/agent/runner.py; storing the reply, a routed or cached answer
    are not) still reaches the conversation as an ``error`` event and is counted, then fails
    the task as before.

    Two runs end no turn: one another execution took over (it stops quietly; the other ends
    the turn), and one that failed after announcing its pending action (the turn is paused,
    and the decision's resume ends it: an ``error`` now would make that a second ending, seen
    in the chaos run when PostgreSQL restarted under a pausing run)."""
    try:
        with fenced(events.check_still_ours):
            yield
    except RunSuperseded:
        logger.warning("run %s was taken over by another execution; this one stops", events.run_id)
    except Exception as error:
        AGENT_ERRORS.labels(type=error.__class__.__name__).inc()
        if not events.ended:  # nor when the turn has paused (``_RenewingEvents.error``)
            try:
                events.error("agent_error", f"{error.__class__.__name__}: the assistant failed")
            except Exception:  # Redis is what failed: nobody can be told now
                logger.warning("could not announce a failed turn", exc_info=True)
        raise


def turn_execute(*, message_id: int) -> None:
    """Worker entry for a new message. Raises ``ConversationBusy`` when another run holds the
    conversation (the task retries)."""
    message = when_database_answers(
        lambda: Message.objects.select_related("conversation").get(pk=message_id),
        what=f"message {message_id}",
    )
    conversation = message.conversation
    lock = run_lock(conversation, message.uuid)
    if not lock.take_over(from_token=reservation_token(message.uuid)):
        raise ConversationBusy(str(conversation.uuid))
    try:
        if _ended_without_reply(message):
            return
        # Announced by its sender once committed; again here (once per message: a no-op when
        # that worked) in case Redis was away then, so the question precedes its turn's events.
        publish_message(schema=current_schema(), message=message)
        # Renewed between events too (a long model call emits none), so the lock lapses only
        # when this worker dies or stops.
        with keeper.held(lock.renew):
            events = _RenewingEvents(
                lock=lock,
                message=message,  # a failure asks then whether the turn had paused
                schema=current_schema(),
                conversation=conversation,
                run_id=message.uuid,
                reply_to=message.uuid,
            )
            with _ends_visibly(events):
                turn_run(conversation=conversation, message=message, events=events)
    finally:
        lock.release_or_let_lapse()


def _ended_without_reply(message: Message) -> bool:
    """Whether an earlier run of ``message``'s turn published its ending (an ``error``) and died
    before storing a reply (PostgreSQL restarting under it): then the error reply is stored and
    nothing runs. Running it again would answer, or propose an action whose resume ends the
    turn a second time, after the client was told it failed (seen in the short chaos run)."""
    if _replied(message):
        return False  # the run finds it and publishes nothing new
    if not ending_published(once_key=turn_ending_key(current_schema(), message.uuid)):
        return False
    logger.warning("message %s ended with an error before its reply was stored", message.pk)
    turn_end_with_error(message=message)
    return True


def resume_execute(*, action_id: str) -> None:
    """Worker entry after a decision: resume the graph (the tool runs at most once)."""
    action = when_database_answers(
        lambda: PendingAction.objects.select_related("conversation").get(pk=action_id),
        what=f"action {action_id}",
    )
    lock = run_lock(action.conversation, action.id)
    if not lock.take_over(from_token=reservation_token(action.id)):
        raise ConversationBusy(str(action.conversation.uuid))
    try:
        with keeper.held(lock.renew):
            events = _RenewingEvents(
                lock=lock,
                schema=current_schema(),
                conversation=action.conversation,
                run_id=action.id,
                reply_to=asking_message_uuid(action=action),
            )
            with _ends_visibly(events):
                turn_resume(action=action, events=events)
    finally:
        lock.release_or_let_lapse()
