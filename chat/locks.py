"""One turn at a time per conversation: a lock in Redis that says who is running it.

The sender *reserves* the conversation when it accepts a message or a decision, with a token
made from the run id (``reservation_token``). The worker takes the reservation over with a
token of its own execution (``execution_token``), and only from that reservation or from an
expired lock; so a redelivered copy of a task that is still running elsewhere (a turn longer
than the broker's visibility timeout) finds the lock held by another execution and waits,
instead of running the same turn a second time alongside it. The holder renews the lock while
the turn makes progress (core/leases.py); it lapses ``CHAT_TURN_LOCK_SECONDS`` after its worker
died, so a crashed worker never blocks a conversation for long.
"""

from __future__ import annotations

import contextlib
import logging
import uuid
from collections.abc import Callable, Iterator
from contextvars import ContextVar

import redis
from django.conf import settings

from chat.models import Conversation
from core.redis_clients import redis_script, sync_redis
from core.schema import current_schema
from tenants.names import conversation_lock_key, turn_claim_key

logger = logging.getLogger(__name__)

# Compare-and-set scripts (core.redis_clients.redis_script: EVALSHA).
_TAKE_OVER = """
local held = redis.call('GET', KEYS[1])
if held == false or held == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  if KEYS[2] then redis.call('SET', KEYS[2], ARGV[2], 'EX', ARGV[4]) end
  return 1
end
return 0
"""
# Still ours unless another execution claimed the run since (a claim lost with Redis's data
# counts as ours: nobody else took it over, or their claim would be there). Renews the lock
# when we hold it, so a check is also a renewal.
_STILL_OURS = """
local claim = redis.call('GET', KEYS[2])
if claim and claim ~= ARGV[1] then return 0 end
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1
"""
# A claim outlives every redelivery of its run (the stranded-turn sweep looks back a day).
_CLAIM_SECONDS = 2 * 24 * 3600
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class RunSuperseded(Exception):
    """Another execution took this run over (this one outlived its lease): it stops here, and
    the other one ends the turn."""


class ConversationLock:
    """``SET NX PX`` with a token; the holder renews it as the turn makes progress. An
    execution's lock (``run_lock``) also claims its run when it takes the lock over."""

    def __init__(
        self,
        *,
        schema: str,
        conversation_uuid: str,
        token: str,
        claim_key: str | None = None,
    ) -> None:
        self.key = conversation_lock_key(schema, conversation_uuid)
        self.claim_key = claim_key
        self.token = token
        self.client = sync_redis()
        self.ttl_ms = settings.CHAT_TURN_LOCK_SECONDS * 1000

    def acquire(self) -> bool:
        return bool(self.client.set(self.key, self.token, nx=True, px=self.ttl_ms))

    def take_over(self, *, from_token: str) -> bool:
        """Hold the lock if it is free or still holds the sender's reservation ``from_token``."""
        keys = [self.key] if self.claim_key is None else [self.key, self.claim_key]
        taken = redis_script(_TAKE_OVER)(
            keys=keys, args=[from_token, self.token, self.ttl_ms, _CLAIM_SECONDS]
        )
        return bool(taken)

    def still_ours(self) -> bool:
        """Whether no other execution has claimed the run since this one took it over; renews
        the lock if we hold it. Always True for a lock that claims no run."""
        if self.claim_key is None:
            return self.renew()
        return bool(
            redis_script(_STILL_OURS)(
                keys=[self.key, self.claim_key], args=[self.token, self.ttl_ms]
            )
        )

    def renew(self) -> bool:
        """Extend the lock if we hold it (compare and extend in one script)."""
        return bool(redis_script(_RENEW)(keys=[self.key], args=[self.token, self.ttl_ms]))

    def release(self) -> None:
        redis_script(_RELEASE)(keys=[self.key], args=[self.token])

    def release_or_let_lapse(self) -> None:
        """``release``; while Redis is away (restarting) the lock lapses by itself within
        ``CHAT_TURN_LOCK_SECONDS``, and the run that held it ends as it would have."""
        try:
            self.release()
        except redis.RedisError:
            logger.warning(
                "could not release %s; it lapses within %s s", self.key, self.ttl_ms // 1000
            )

    def holder(self) -> str | None:
        value = self.client.get(self.key)
        return str(value) if value is not None else None


def conversation_lock(conversation: Conversation, token: str) -> ConversationLock:
    """The lock of ``conversation`` in the current tenant, held (or to be held) as ``token``."""
    return ConversationLock(
        schema=current_schema(), conversation_uuid=str(conversation.uuid), token=token
    )


def run_lock(conversation: Conversation, run_id: uuid.UUID) -> ConversationLock:
    """The lock one execution of run ``run_id`` takes over from its reservation, claiming the
    run (a token of its own: a redelivered copy gets another)."""
    schema = current_schema()
    return ConversationLock(
        schema=schema,
        conversation_uuid=str(conversation.uuid),
        token=execution_token(run_id),
        claim_key=turn_claim_key(schema, run_id),
    )


def reservation_token(run_id: uuid.UUID) -> str:
    """The token a sender reserves the conversation with; the worker takes over from it."""
    return f"sent:{run_id}"


def execution_token(run_id: uuid.UUID) -> str:
    """A token of one execution of a run: a redelivered copy gets another."""
    return f"run:{run_id}:{uuid.uuid4().hex}"


def held_run_id(conversation: Conversation) -> str | None:
    """The run that holds or has reserved ``conversation`` (queued, starting or running), from
    its reservation or execution token; None when no turn holds it."""
    token = conversation_lock(conversation, "").holder()
    if token is None:
        return None
    kind, _, rest = token.partition(":")
    return rest.split(":", 1)[0] if kind in ("sent", "run") else None


# -- fencing inside the graph ---------------------------------------------------------------------

_FENCE: ContextVar[Callable[[], None] | None] = ContextVar("countersign_run_fence", default=None)


@contextlib.contextmanager
def fenced(check: Callable[[], None]) -> Iterator[None]:
    """Run the body with ``check`` as the fence (it raises ``RunSuperseded``): code that is
    about to do something only the run's owner may (propose an action, store the reply) calls
    ``fence_check`` first."""
    token = _FENCE.set(check)
    try:
        yield
    finally:
        _FENCE.reset(token)


def fence_check() -> None:
    """Raise ``RunSuperseded`` if the run this code belongs to was taken over; nothing outside a
    fenced run (evaluations, tests, the shell)."""
    check = _FENCE.get()
    if check is not None:
        check()
