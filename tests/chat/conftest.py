"""Fixtures for agent tests: people with roles, contacts, a knowledge base, a turn runner."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest
from django.contrib.auth.models import User
from django_tenants.utils import tenant_context
from langchain_core.language_models.chat_models import BaseChatModel
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pytest_django.fixtures import Settings as SettingsWrapper

from actions.models import Contact, ContactGroup
from chat.agent.graph import reset_checkpointer
from chat.agent.runner import CollectingEvents
from chat.models import Conversation, Message
from chat.services.turns import turn_run, turn_start
from core.celery import app
from core.tracing import tracing_reset, tracing_setup
from tenants.models import Tenant
from tenants.roles import APPROVER, STAFF
from tests.tenants.factories import make_user


@pytest.fixture(autouse=True)
def _fresh_checkpointer() -> Iterator[None]:
    # The checkpointer pool is per process and bound to one database: the test database.
    yield
    reset_checkpointer()


@pytest.fixture
def spans(settings: SettingsWrapper) -> Iterator[InMemorySpanExporter]:
    """Tracing on in this process, its finished spans kept in memory."""
    settings.OTEL_ENABLED = True
    exporter = InMemorySpanExporter()
    tracing_setup(exporter=exporter)
    yield exporter
    tracing_reset()


@dataclass
class People:
    staff: User
    approver: User


@pytest.fixture
def people_a(in_tenant_a: Tenant) -> People:
    return People(
        staff=make_user(in_tenant_a, "sam", role=STAFF),
        approver=make_user(in_tenant_a, "april", role=APPROVER),
    )


@pytest.fixture
def parents_group(in_tenant_a: Tenant) -> ContactGroup:
    group = ContactGroup.objects.create(name="Parents")
    for index, name in enumerate(["Kim Minji", "Lee Jun"]):
        contact = Contact.objects.create(name=name, phone=f"+1202555010{index}")
        contact.groups.add(group)
    return group


@dataclass
class Turn:
    conversation: Conversation
    reply: Message | None
    events: CollectingEvents


TurnRunner = Callable[..., Turn]


@pytest.fixture
def ask(people_a: People) -> TurnRunner:
    """Run one turn in-process: ``ask("text", model=ScriptedChatModel(...))``."""

    def run(
        text: str,
        *,
        model: BaseChatModel | None = None,
        user: User | None = None,
        conversation: Conversation | None = None,
    ) -> Turn:
        conversation_, message, _ = turn_start(
            user=user or people_a.staff,
            text=text,
            conversation_uuid=conversation.uuid if conversation else None,
        )
        events = CollectingEvents()
        reply = turn_run(conversation=conversation_, message=message, events=events, model=model)
        return Turn(conversation_, reply, events)

    return run


def in_tenant(tenant: Tenant) -> object:
    return tenant_context(tenant)


@pytest.fixture
def turns_queued(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The message ids whose turn was queued (kept here instead of going to the broker)."""
    queued: list[int] = []
    monkeypatch.setattr(app.tasks["chat.run_turn"], "delay", queued.append)
    return queued


@pytest.fixture
def resumes_queued(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The action ids whose resume was queued (kept here instead of going to the broker)."""
    queued: list[str] = []
    monkeypatch.setattr(app.tasks["chat.resume_turn"], "delay", queued.append)
    return queued
