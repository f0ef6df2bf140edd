"""Celery tasks that run and resume turns. They take ids, run in the sender's tenant schema
(core/celery.py), and are safe to run again: ``acks_late`` means a worker killed mid-turn
leaves the message to be redelivered, and the redelivered run continues from the checkpoint."""

from __future__ import annotations

from typing import Any

from chat.services.realtime import (
    ConversationBusy,
    overdue_actions_expire,
    resume_execute,
    stranded_resumes_requeue,
    stranded_turns_requeue,
    turn_execute,
    unannounced_cards_publish,
    unannounced_endings_publish,
)
from core.celery import app

_BUSY_RETRY_SECONDS = 0.5


# Turn tasks store no result: a turn's outcome reaches people through its events and the
# database, never through Celery's result backend, and storing one is a Redis write per turn.
@app.task(name="chat.run_turn", bind=True, acks_late=True, max_retries=None, ignore_result=True)
def run_turn(self: Any, message_id: int) -> None:
    try:
        turn_execute(message_id=message_id)
    except ConversationBusy as busy:
        raise self.retry(countdown=_BUSY_RETRY_SECONDS, exc=busy) from busy


@app.task(name="chat.resume_turn", bind=True, acks_late=True, max_retries=None, ignore_result=True)
def resume_turn(self: Any, action_id: str) -> None:
    try:
        resume_execute(action_id=action_id)
    except ConversationBusy as busy:
        raise self.retry(countdown=_BUSY_RETRY_SECONDS, exc=busy) from busy


@app.task(name="chat.expire_overdue_actions")
def expire_overdue_actions() -> int:
    """Expire the tenant's overdue pending actions (beat, through ``tenants.fan_out``, every
    ``CHAT_ACTION_EXPIRY_POLL_SECONDS``). Overlapping runs are safe: each action expires once."""
    return overdue_actions_expire()


@app.task(name="chat.requeue_stranded_resumes")
def requeue_stranded_resumes() -> int:
    """Resume decided actions left without their outcome: never claimed, abandoned while
    executing, or never told to their conversation (beat, through ``tenants.fan_out``, every
    half of ``CHAT_STRANDED_RESUME_SECONDS``)."""
    return stranded_resumes_requeue()


@app.task(name="chat.requeue_stranded_turns")
def requeue_stranded_turns() -> int:
    """Queue again (or end with an error) the turns of messages left without a reply: their
    ``run_turn`` was lost; and announce replies stored without their ending (beat, through
    ``tenants.fan_out``, every half of ``CHAT_STRANDED_TURN_SECONDS``), and the cards of
    paused turns that were never announced."""
    return stranded_turns_requeue() + unannounced_endings_publish() + unannounced_cards_publish()


@app.task(name="chat.run_eval")
def run_eval(run_id: int) -> None:
    """Run an agent evaluation (queued from the tenant admin) in the sender's tenant schema."""
    from chat.evals.services import eval_run_execute

    eval_run_execute(run_id=run_id)
