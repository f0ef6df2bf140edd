"""Prompts are versioned in the tenant admin and used from the next turn; admin is per tenant."""

from __future__ import annotations

from django.test import Client
from langchain_core.messages import AIMessage

from chat.models import AssistantPrompt, PendingAction
from chat.services.prompts import assistant_prompt_publish
from tenants.models import Tenant
from tenants.roles import TENANT_ADMIN
from tests.chat.conftest import TurnRunner
from tests.chat.scripted import ScriptedChatModel, tool_call
from tests.conftest import host_client
from tests.tenants.factories import http_login, make_user


def test_editing_the_prompt_in_admin_publishes_a_new_version(tenant_a: Tenant) -> None:
    make_user(tenant_a, "ada", role=TENANT_ADMIN)
    client = host_client(tenant_a)
    http_login(client, "ada")

    client.post("/admin/chat/assistantprompt/add/", {"text": "You help {tenant_name}. v1"})
    first = AssistantPrompt.objects.get()
    client.post(
        f"/admin/chat/assistantprompt/{first.pk}/change/", {"text": "You help {tenant_name}. v2"}
    )

    versions = list(
        AssistantPrompt.objects.order_by("version").values_list("version", "is_active", "text")
    )
    assert versions == [
        (1, False, "You help {tenant_name}. v1"),
        (2, True, "You help {tenant_name}. v2"),
    ]


def test_the_active_prompt_is_used_from_the_next_turn(ask: TurnRunner, in_tenant_a: Tenant) -> None:
    assistant_prompt_publish(text="Speak like a pirate for {tenant_name} on {today}.", user=None)
    model = ScriptedChatModel(replies=[AIMessage("Arr.")])

    ask("What time does school start?", model=model)

    system = str(model.calls[0][0].content)
    assert system.startswith("Speak like a pirate for Alpha Academy on 20")


def test_an_unknown_prompt_variable_is_left_as_written(
    ask: TurnRunner, in_tenant_a: Tenant
) -> None:
    assistant_prompt_publish(text="Hello {nickname}", user=None)
    model = ScriptedChatModel(replies=[AIMessage("Hi.")])

    ask("What time does school start?", model=model)

    assert model.calls[0][0].content == "Hello {nickname}"


def test_the_admin_of_tenant_b_does_not_list_actions_of_tenant_a(
    ask: TurnRunner, parents_group: object, tenant_b: Tenant
) -> None:
    ask(
        "text the parents",
        model=ScriptedChatModel(
            replies=[tool_call("send_sms", to=["Parents"], body="Hello parents")]
        ),
    )
    action = PendingAction.objects.get()
    make_user(tenant_b, "bob", role=TENANT_ADMIN)
    client: Client = host_client(tenant_b)
    http_login(client, "bob")

    listing = client.get("/admin/chat/pendingaction/")
    detail = client.get(f"/admin/chat/pendingaction/{action.id}/change/")

    assert listing.status_code == 200 and "Hello parents" not in listing.content.decode()
    assert detail.status_code in (302, 404)
