"""Every tenant-prefixed name the product builds: Redis keys, channel-layer groups, LangGraph
thread ids (DESIGN.md §4).

Each name starts with the tenant's schema, so two tenants never share one, and is built here
from server-side values only (a schema, a uuid, a primary key, a token digest): every part is
checked, so a value that could carry a separator into the name (a client string that slipped
through) fails loudly instead of addressing another tenant's data. The formats are stored in
Redis and in checkpoints; changing one orphans what is already there.

Keys given to ``django.core.cache`` are not built here: the cache's key function
(django-tenants' ``make_key``) prefixes the schema to every one of them. An in-process cache
has no such function, so its keys are (``process_cache_key``).
"""

from __future__ import annotations

import re
import uuid

# PostgreSQL schema names django-tenants accepts, lower-case (tenant schemas are).
_SCHEMA = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")
_DIGEST = re.compile(r"^[0-9a-f]{16,128}$")


def _schema(schema: str) -> str:
    if not isinstance(schema, str) or not _SCHEMA.match(schema):
        raise ValueError(f"not a tenant schema name: {schema!r}")
    return schema


def _uuid(value: uuid.UUID | str) -> str:
    """The canonical text of a uuid (what ``str(model.uuid)`` gives), whatever its spelling:
    "ABC…" or "{…}" must not name a second key for one conversation."""
    if isinstance(value, uuid.UUID):
        return str(value)
    if not isinstance(value, str) or len(value) > 38:
        raise ValueError(f"not a uuid: {value!r}")
    try:
        return str(uuid.UUID(value))
    except ValueError:
        raise ValueError(f"not a uuid: {value!r}") from None


def _id(value: int) -> str:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"not a primary key: {value!r}")
    return str(value)


# -- Redis keys: "cs:<schema>:…" -----------------------------------------------------------------


def _conversation_key(schema: str, conversation_uuid: uuid.UUID | str, what: str) -> str:
    return f"cs:{_schema(schema)}:conv:{_uuid(conversation_uuid)}:{what}"


def conversation_seq_key(schema: str, conversation_uuid: uuid.UUID | str) -> str:
    """The counter that numbers a conversation's events."""
    return _conversation_key(schema, conversation_uuid, "seq")


def conversation_events_key(schema: str, conversation_uuid: uuid.UUID | str) -> str:
    """The Redis Stream holding a conversation's events (entry id = seq), and the name of the
    pub/sub channel they are published on live (chat/live.py)."""
    return _conversation_key(schema, conversation_uuid, "events")


def conversation_lock_key(schema: str, conversation_uuid: uuid.UUID | str) -> str:
    """Who is running (or has reserved) a turn in a conversation."""
    return _conversation_key(schema, conversation_uuid, "running")


def conversation_cancel_key(
    schema: str, conversation_uuid: uuid.UUID | str, run_id: uuid.UUID | str
) -> str:
    """Set while the user asks one turn (run) of a conversation to stop: keyed by the run, so a
    cancel that arrives as a turn ends never stops the conversation's next one."""
    return _conversation_key(schema, conversation_uuid, f"cancel:{_uuid(run_id)}")


def turn_requeues_key(schema: str, message_uuid: uuid.UUID | str) -> str:
    """How often the stranded-turn sweep queued a message's lost turn again."""
    return f"cs:{_schema(schema)}:turn:{_uuid(message_uuid)}:requeues"


def turn_ending_key(schema: str, run_id: uuid.UUID | str) -> str:
    """Set when a run's ending (its ``done`` or ``error``) is published: a run has one ending."""
    return f"cs:{_schema(schema)}:turn:{_uuid(run_id)}:ended"


def message_announced_key(schema: str, message_uuid: uuid.UUID | str) -> str:
    """Set when a stored user message's ``message`` event is published: once per message."""
    return f"cs:{_schema(schema)}:turn:{_uuid(message_uuid)}:announced"


def action_announced_key(schema: str, action_id: uuid.UUID | str) -> str:
    """Set when a proposed action's ``pending`` card is published: once per action, whoever
    announces it (its run, a redelivered run, or the next message's sender)."""
    return f"cs:{_schema(schema)}:action:{_uuid(action_id)}:announced"


def turn_claim_key(schema: str, run_id: uuid.UUID | str) -> str:
    """Which execution of a run took it over last: an earlier one stops at its next side effect
    (chat/locks.py)."""
    return f"cs:{_schema(schema)}:turn:{_uuid(run_id)}:claim"


def digest_scheduled_key(schema: str, user_id: int) -> str:
    """Set while an approver's notification digest is queued."""
    return f"cs:{_schema(schema)}:notify:{_id(user_id)}:scheduled"


# -- channel-layer groups: "<schema>.…" ----------------------------------------------------------


def approvals_group(schema: str) -> str:
    """Everyone who may decide actions in a tenant hears of new and decided actions here."""
    return f"{_schema(schema)}.approvals"


def session_user_group(schema: str, user_id: int) -> str:
    """Every open session (WebSocket) of one user, closed together when the user is."""
    return f"{_schema(schema)}.session.user.{_id(user_id)}"


def session_token_group(schema: str, credential: str) -> str:
    """Every open session of one API token (by its digest; 40 characters keep the group name
    under the channel layer's length limit)."""
    if not isinstance(credential, str) or not _DIGEST.match(credential):
        raise ValueError("not a token digest")
    return f"{_schema(schema)}.session.token.{credential[:40]}"


def process_cache_key(schema: str, key: str) -> str:
    """A key of a cache kept in this process's memory (``key`` is a server-made digest)."""
    return f"{_schema(schema)}:{key}"


# -- LangGraph ------------------------------------------------------------------------------------


def checkpoint_thread_id(schema: str, conversation_uuid: uuid.UUID | str) -> str:
    """The checkpoint thread of a conversation: ``"{schema}:{conversation_uuid}"``."""
    return f"{_schema(schema)}:{_uuid(conversation_uuid)}"
