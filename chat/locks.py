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

import uuid

from django.conf import settings

from chat.models import Conversation
from core.redis_clients import redis_script, sync_redis
from core.schema import current_schema
from tenants.names import conversation_lock_key

# Compare-and-set scripts (core.redis_clients.redis_script: EVALSHA).
_TAKE_OVER = """
local held = redis.call('GET', KEYS[1])
if held == false or held == ARGV[1] then
  return redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) and 1
end
return 0
"""
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class ConversationLock:
    """``SET NX PX`` with a token; the holder renews it as the turn makes progress."""

    def __init__(self, *, schema: str, conversation_uuid: str, token: str) -> None:
        self.key = conversation_lock_key(schema, conversation_uuid)
        self.token = token
        self.client = sync_redis()
        self.ttl_ms = settings.CHAT_TURN_LOCK_SECONDS * 1000

    def acquire(self) -> bool:
        return bool(self.client.set(self.key, self.token, nx=True, px=self.ttl_ms))

    def take_over(self, *, from_token: str) -> bool:
        """Hold the lock if it is free or still holds the sender's reservation ``from_token``."""
        taken = redis_script(_TAKE_OVER)(
            keys=[self.key], args=[from_token, self.token, self.ttl_ms]
        )
        return bool(taken)

    def renew(self) -> bool:
        """Extend the lock if we hold it (compare and extend in one script)."""
        return bool(redis_script(_RENEW)(keys=[self.key], args=[self.token, self.ttl_ms]))

    def release(self) -> None:
        redis_script(_RELEASE)(keys=[self.key], args=[self.token])

    def holder(self) -> str | None:
        value = self.client.get(self.key)
        return str(value) if value is not None else None


def conversation_lock(conversation: Conversation, token: str) -> ConversationLock:
    """The lock of ``conversation`` in the current tenant, held (or to be held) as ``token``."""
    return ConversationLock(
        schema=current_schema(), conversation_uuid=str(conversation.uuid), token=token
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
