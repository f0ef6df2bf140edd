"""The Django side of understanding: the run's tenant data and the process's classifier.

Tenant and user reach this module only through the run's config (``config["configurable"]``:
``schema``, ``user_id``), read inside the model call, and every query runs inside
``schema_context(schema)``: contacts and groups of another tenant can never be matched.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from django.contrib.auth import get_user_model
from django.db.models import Prefetch
from django_tenants.utils import schema_context
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.runnables.config import ensure_config

from actions.models import Contact, ContactGroup
from actions.tools.words import ToolWords
from chat.builtin_model.understanding.directory import ContactEntry, Directory, Requester
from chat.builtin_model.understanding.intent import IntentClassifier
from chat.builtin_model.understanding.learned import learned_examples, with_stored
from chat.builtin_model.understanding.understand import Role, Understanding, understand
from chat.builtin_model.vocabulary import tool_words
from core import clock
from knowledge.embedder import get_embedder
from knowledge.embeddings import EmbeddingError
from tenants.selectors import tenant_zone


def classifier() -> IntentClassifier:
    """The classifier for the embedder in use and the registered write tools' words; its
    examples are embedded once per process (again only if the registry changes)."""
    return _classifier_for(get_embedder().model_name, tuple(tool_words().items()))


@functools.cache
def _classifier_for(model_name: str, tools: tuple[tuple[str, ToolWords], ...]) -> IntentClassifier:
    # Messages and examples are the same kind of text, so both are embedded the same way,
    # and as passages because that call takes a batch: the examples are one call, not 100.
    learned = learned_examples()
    embed = with_stored(get_embedder().embed_passages, learned.stored(model_name))
    return IntentClassifier(embed, tools=dict(tools), learned=learned.examples)


def load_directory(*, schema: str, user_id: int | None) -> tuple[Directory, ZoneInfo]:
    """The contacts, groups and requester of tenant ``schema``, and its time zone."""
    with schema_context(schema):
        contacts = tuple(
            ContactEntry(
                contact.name,
                frozenset(_channels(contact.phone, contact.telegram_chat_id, contact.email)),
                frozenset(group.name for group in contact.groups.all()),
            )
            for contact in Contact.objects.only(
                "name", "phone", "telegram_chat_id", "email"
            ).prefetch_related(Prefetch("groups", queryset=ContactGroup.objects.only("name")))
        )
        groups = tuple(ContactGroup.objects.values_list("name", flat=True))
        user = get_user_model().objects.filter(pk=user_id).first() if user_id else None
        requester = (
            Requester(user.get_full_name() or user.get_username(), user.email or "")
            if user
            else None
        )
    return Directory(contacts, groups, requester), tenant_zone(schema_name=schema)


def _channels(phone: str, telegram: str, email: str) -> list[str]:
    return [
        channel
        for channel, address in (("sms", phone), ("telegram", telegram), ("email", email))
        if address
    ]


def history_of(messages: Sequence[BaseMessage]) -> tuple[str, list[tuple[Role, str]]]:
    """The latest user text and the earlier exchange as (role, text) pairs; tool calls and
    tool results are left out because questions and answers are plain text."""
    turns: list[tuple[Role, str]] = []
    for message in messages:
        if isinstance(message, HumanMessage):
            turns.append(("user", str(message.content)))
        elif isinstance(message, AIMessage) and not message.tool_calls and message.content:
            turns.append(("assistant", str(message.content)))
    if not turns or turns[-1][0] != "user":
        return "", turns
    return turns[-1][1], turns[:-1]


@dataclass(frozen=True)
class RunRequest:
    """The run's latest user text and earlier exchange, read with its tenant's directory."""

    text: str
    history: list[tuple[Role, str]]
    directory: Directory
    tz: ZoneInfo


def run_request(messages: Sequence[BaseMessage]) -> RunRequest | None:
    """The current graph run's request, or None outside a run (no tenant known) or when there
    is no text to read."""
    configurable = ensure_config().get("configurable", {})
    schema = configurable.get("schema")
    text, history = history_of(messages)
    if not schema or not text.strip():
        return None
    directory, tz = load_directory(schema=schema, user_id=configurable.get("user_id"))
    return RunRequest(text, history, directory, tz)


def understand_request(request: RunRequest) -> Understanding | None:
    """``understand`` for a run's request, or None when the embedding backend fails (the caller
    then searches the knowledge base)."""
    try:
        return understand(
            request.text,
            history=request.history,
            directory=request.directory,
            now=clock.now(),
            tz=request.tz,
            classifier=classifier(),
        )
    except EmbeddingError:
        return None
