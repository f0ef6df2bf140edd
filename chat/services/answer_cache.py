"""The per-tenant answer cache: a knowledge question asked again gets the stored answer.

Staff ask the same policy questions again and again; while neither the knowledge base nor the
prompt changed, the answer (and its citations) cannot be better the second time. The key is:

- the tenant (the cache's key function prefixes the schema; DESIGN.md §4),
- the knowledge base's version (``knowledge.state.kb_version``: bumped by a database trigger
  on any document change, so a document edit makes the next answer fresh),
- the prompt's version (the active ``AssistantPrompt``, or the built-in prompt's text) and the
  day (the prompt tells the model today's date),
- the model that answers, and the normalised question (NFKC, case-folded, spaces collapsed).

Only standalone questions take part: the conversation's first message, which no earlier turn
can colour, and not one the router recognises as small talk, a tool request or a cancel. Only
pure knowledge answers are stored: a finished turn whose only tool was ``search_knowledge``,
which cites at least one passage and is not itself a question back to the asker. Turns that
query data or propose actions never are, so they are never answered from here.

Off for everyone with ``ANSWER_CACHE_ENABLED=false``, for one tenant in its admin (Knowledge
settings); entries expire after ``ANSWER_CACHE_TTL_SECONDS``. A failing cache never fails a
turn: the agent answers as if nothing were cached.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone
from langchain_core.messages import AIMessage, ToolMessage

from chat.agent.prompts import DEFAULT_PROMPT
from chat.builtin_model.router import route_message
from chat.models import AssistantPrompt, Conversation, Message
from chat.tools.search_knowledge import SEARCH_TOOL_NAME
from core.metrics import ANSWER_CACHE
from knowledge.normalise import cache_digest, normalise_query
from knowledge.state import kb_version, knowledge_settings

logger = logging.getLogger(__name__)

_DEFAULT_PROMPT_VERSION = "default:" + hashlib.sha256(DEFAULT_PROMPT.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class CachedAnswer:
    """What a knowledge answer needs to be given again: its text, the citations stored on the
    reply, and the passages it was grounded on (they go back into the graph's checkpoint)."""

    content: str
    citations: list[dict[str, Any]]
    sources: list[dict[str, Any]]


_BYPASSED: ContextVar[bool] = ContextVar("answer_cache_bypassed", default=False)


@contextmanager
def answer_cache_bypassed() -> Iterator[None]:
    """Turns run here neither read nor fill the cache: an evaluation judges the model, never
    an answer stored by an earlier run (of other code: the built-in model's label stays the
    same from one version to the next)."""
    token = _BYPASSED.set(True)
    try:
        yield
    finally:
        _BYPASSED.reset(token)


def answer_cache_key(*, conversation: Conversation, message: Message, model: str) -> str | None:
    """The cache key of a stored user message, or None when its answer may not be cached."""
    if _BYPASSED.get():
        return None
    if not settings.ANSWER_CACHE_ENABLED or not knowledge_settings().answer_cache_enabled:
        return None
    if route_message(message.content) is not None:
        return None  # small talk, a tool request, a cancel: never a knowledge answer
    if Message.objects.filter(conversation=conversation).exclude(pk=message.pk).exists():
        return None  # a follow-up: its answer depends on the turns before it
    version = kb_version()
    if version is None:
        return None
    digest = cache_digest(
        version,
        _prompt_version(),
        timezone.localdate().isoformat(),
        model,
        normalise_query(message.content),
    )
    return f"answer:{digest}"  # the cache's key function prefixes the tenant schema


def _prompt_version() -> str:
    active = AssistantPrompt.objects.filter(is_active=True).order_by("-version").first()
    return _DEFAULT_PROMPT_VERSION if active is None else f"{active.pk}:{active.version}"


def answer_cache_get(key: str) -> CachedAnswer | None:
    """The stored answer under ``key``; None (a miss) when there is none or the cache fails."""
    try:
        raw = cache.get(key)
    except Exception:  # a cache that fails is a cache that misses
        ANSWER_CACHE.labels(result="error").inc()
        logger.warning("answer cache unavailable; the agent answers", exc_info=True)
        return None
    if not isinstance(raw, dict):
        ANSWER_CACHE.labels(result="miss").inc()
        return None
    ANSWER_CACHE.labels(result="hit").inc()
    return CachedAnswer(content=raw["content"], citations=raw["citations"], sources=raw["sources"])


def answer_cache_offer(
    *,
    key: str,
    turn: list[Any],
    content: str,
    citations: list[dict[str, Any]],
    sources: list[dict[str, Any]],
) -> bool:
    """Store a finished turn's answer under ``key`` if it is a pure knowledge answer (see the
    module docstring); ``turn`` is the turn's graph messages. Returns whether it was stored."""
    if not is_knowledge_answer(turn, content=content, citations=citations):
        return False
    value = {"content": content, "citations": citations, "sources": sources}
    try:
        cache.set(key, value, timeout=settings.ANSWER_CACHE_TTL_SECONDS)
    except Exception:
        ANSWER_CACHE.labels(result="error").inc()
        logger.warning("could not store an answer in the cache", exc_info=True)
        return False
    ANSWER_CACHE.labels(result="stored").inc()
    return True


def is_knowledge_answer(turn: list[Any], *, content: str, citations: list[dict[str, Any]]) -> bool:
    """Whether a turn searched the knowledge base and nothing else, and answered with citations
    rather than with a question back."""
    calls = [call["name"] for m in turn if isinstance(m, AIMessage) for call in m.tool_calls]
    failed = any(isinstance(m, ToolMessage) and m.status == "error" for m in turn)
    return (
        bool(calls)
        and set(calls) == {SEARCH_TOOL_NAME}
        and not failed
        and bool(citations)
        and not content.rstrip().endswith(("?", "\uff1f"))  # ASCII or full-width
    )
