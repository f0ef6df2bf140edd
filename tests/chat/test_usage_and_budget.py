"""Tokens and cost per turn, daily totals per tenant, and the monthly token budget."""

from __future__ import annotations

import datetime
import json
from decimal import Decimal
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib.auth.models import User
from django.db.models import Sum
from django.test import Client
from django.utils import timezone
from django_tenants.utils import tenant_context
from langchain_core.messages import AIMessage
from pytest_django.fixtures import Settings as SettingsWrapper

from chat.agent.runner import CollectingEvents
from chat.models import Message, PendingAction, RunUsage, UsageDay
from chat.pending_actions import pending_action_decide
from chat.services.turns import turn_resume
from chat.services.usage import BudgetExhausted, Usage, usage_budget_check, usage_cost
from chat.tokens import api_token_create
from config.asgi import application
from tenants.models import Tenant, TenantUsageDay
from tenants.roles import TENANT_ADMIN
from tenants.services import platform_get_or_create
from tests.chat.conftest import People, TurnRunner
from tests.chat.scripted import ScriptedChatModel, tool_call
from tests.tenants.factories import http_login, make_user

SMS = {"to": ["Parents"], "body": "School closes at 1pm today"}


def _totals(model: type[Any], **filters: Any) -> tuple[int, int, Decimal]:
    sums = model.objects.filter(**filters).aggregate(
        i=Sum("input_tokens"), o=Sum("output_tokens"), c=Sum("cost")
    )
    return int(sums["i"] or 0), int(sums["o"] or 0), Decimal(sums["c"] or 0)


def _reply_totals() -> tuple[int, int, Decimal]:
    replies = Message.objects.filter(role=Message.Role.ASSISTANT)
    return (
        sum(m.usage["input_tokens"] for m in replies),
        sum(m.usage["output_tokens"] for m in replies),
        sum((Decimal(str(m.usage["cost"])) for m in replies), Decimal(0)),
    )


@pytest.fixture
def priced(settings: SettingsWrapper) -> None:
    settings.LLM_PRICE_INPUT_PER_MTOK = 3.0
    settings.LLM_PRICE_OUTPUT_PER_MTOK = 15.0


def test_cost_is_tokens_times_the_price_per_million(priced: None) -> None:
    assert usage_cost(Usage(1_000_000, 0)) == Decimal("3.000000")
    assert usage_cost(Usage(10, 5)) == Decimal("0.000105")


def test_the_offline_model_costs_nothing_by_default() -> None:
    assert usage_cost(Usage(1000, 1000)) == 0


def test_a_turn_stores_its_tokens_and_cost_on_the_reply_and_in_todays_usage(
    ask: TurnRunner, priced: None
) -> None:
    turn = ask(
        "What time does school start?", model=ScriptedChatModel(replies=[AIMessage("Hi there.")])
    )

    assert turn.reply is not None
    assert turn.reply.usage["input_tokens"] == 10 and turn.reply.usage["output_tokens"] == 5
    assert turn.reply.usage["cost"] == 0.000105
    day = UsageDay.objects.get(date=timezone.localdate())
    assert (day.input_tokens, day.output_tokens, day.cost, day.turns) == (
        10,
        5,
        Decimal("0.000105"),
        1,
    )


def test_a_turn_paused_for_approval_and_resumed_counts_each_model_call_once(
    ask: TurnRunner, parents_group: object, people_a: People, priced: None
) -> None:
    model = ScriptedChatModel(replies=[tool_call("send_sms", **SMS), AIMessage("Sent.")])
    paused = ask("Text the parents that school closes at 1pm", model=model)
    action = PendingAction.objects.get(conversation=paused.conversation)
    after_pause = _totals(UsageDay)
    pending_action_decide(action_id=action.id, user=people_a.approver, decision="approve")

    reply = turn_resume(
        action=PendingAction.objects.get(pk=action.id), events=CollectingEvents(), model=model
    )

    assert after_pause[:2] == (10, 5), "the call before the pause is counted when it pauses"
    assert reply is not None and reply.usage["input_tokens"] == 20, "the reply covers the turn"
    assert _totals(UsageDay) == _totals(RunUsage) == _reply_totals()
    assert _totals(UsageDay)[:2] == (20, 10)
    assert UsageDay.objects.get().turns == 1


def test_daily_usage_equals_the_sum_of_the_turns(
    ask: TurnRunner, parents_group: object, people_a: People, priced: None
) -> None:
    ask("one", model=ScriptedChatModel(replies=[AIMessage("One.")]))
    model = ScriptedChatModel(replies=[tool_call("send_sms", **SMS), AIMessage("Okay.")])
    paused = ask("Text the parents", model=model)
    action = PendingAction.objects.get(conversation=paused.conversation)
    pending_action_decide(action_id=action.id, user=people_a.approver, decision="reject")
    turn_resume(action=PendingAction.objects.get(pk=action.id), events=CollectingEvents())
    ask("three", model=ScriptedChatModel(replies=[AIMessage("Three.")]))

    assert _totals(UsageDay) == _reply_totals() == _totals(RunUsage)
    assert UsageDay.objects.get().turns == 3
    tenant = Tenant.objects.get(schema_name="alpha")
    assert _totals(TenantUsageDay, tenant=tenant) == _totals(UsageDay), "platform copy agrees"


def test_a_redelivered_run_does_not_count_again(ask: TurnRunner, people_a: People) -> None:
    turn = ask("What time does school start?", model=ScriptedChatModel(replies=[AIMessage("Hi.")]))
    from chat.services.turns import turn_run

    user_message = Message.objects.get(role=Message.Role.USER)
    turn_run(conversation=turn.conversation, message=user_message, events=CollectingEvents())

    assert RunUsage.objects.count() == 1
    assert UsageDay.objects.get().input_tokens == 10


def _spend(tokens: int, *, date: datetime.date | None = None) -> None:
    UsageDay.objects.create(
        date=date or timezone.localdate(), input_tokens=tokens, output_tokens=0, turns=1
    )


def _budget(tenant: Tenant, tokens: int | None) -> None:
    Tenant.objects.filter(pk=tenant.pk).update(monthly_token_budget=tokens)


def test_no_budget_means_unlimited(in_tenant_a: Tenant) -> None:
    _spend(10**9)

    usage_budget_check()


def test_a_spent_budget_refuses_saying_when_it_resets(in_tenant_a: Tenant) -> None:
    _budget(in_tenant_a, 100)
    _spend(100)

    with pytest.raises(BudgetExhausted, match="monthly budget of 100 model tokens is spent"):
        usage_budget_check()


def test_last_months_usage_does_not_count_against_this_months_budget(
    in_tenant_a: Tenant,
) -> None:
    _budget(in_tenant_a, 100)
    _spend(500, date=timezone.localdate().replace(day=1) - datetime.timedelta(days=1))
    _spend(99)

    usage_budget_check()


def _staff_token(tenant: Tenant) -> str:
    user = make_user(tenant, "sam")
    with tenant_context(tenant):
        _, token = api_token_create(user=user, name="x")
    return token


def test_a_spent_budget_refuses_a_new_conversation_over_http_with_429(tenant_a: Tenant) -> None:
    token = _staff_token(tenant_a)
    _budget(tenant_a, 50)
    with tenant_context(tenant_a):
        _spend(60)
    client = Client(HTTP_HOST="alpha.localhost", HTTP_AUTHORIZATION=f"Bearer {token}")

    response = client.post("/api/conversations/", {"text": "hi"}, content_type="application/json")

    assert response.status_code == 429
    error = response.json()["error"]
    assert error["code"] == "budget_exhausted" and "monthly budget" in error["message"]
    with tenant_context(tenant_a):
        assert not Message.objects.exists(), "the refused message is not stored"


@pytest.mark.django_db(transaction=True)
def test_a_spent_budget_refuses_chat_send_with_a_budget_exhausted_frame(
    tenant_a: Tenant,
) -> None:
    token = _staff_token(tenant_a)
    _budget(tenant_a, 50)
    with tenant_context(tenant_a):
        _spend(50)

    async def scenario() -> dict[str, Any]:
        socket = WebsocketCommunicator(
            application,
            "/ws/chat/",
            headers=[(b"host", b"alpha.localhost"), (b"authorization", f"Bearer {token}".encode())],
        )
        connected, _ = await socket.connect()
        assert connected
        await socket.send_to(
            text_data=json.dumps({"type": "chat.send", "conversation": None, "text": "hi"})
        )
        frame = json.loads(await socket.receive_from(timeout=10))
        await socket.disconnect()
        return dict(frame)

    frame = async_to_sync(scenario)()

    assert frame["type"] == "error" and frame["code"] == "budget_exhausted"
    assert "monthly budget of 50 model tokens is spent" in frame["message"]
    assert "again from" in frame["message"]


def _tenant_admin_client(tenant: Tenant) -> Client:
    admin_user: User = make_user(tenant, "boss", role=TENANT_ADMIN)
    admin_user.is_staff = True
    with tenant_context(tenant):
        admin_user.save()
    client = Client(HTTP_HOST=tenant.get_primary_domain().domain)
    assert http_login(client, "boss")
    return client


def test_a_tenant_admin_sees_only_their_own_tenants_daily_usage(
    tenant_a: Tenant, tenant_b: Tenant
) -> None:
    with tenant_context(tenant_a):
        UsageDay.objects.create(date=datetime.date(2026, 1, 2), input_tokens=777001)
    with tenant_context(tenant_b):
        UsageDay.objects.create(date=datetime.date(2026, 1, 3), input_tokens=888002)

    page_b = _tenant_admin_client(tenant_b).get("/admin/chat/usageday/")

    assert page_b.status_code == 200
    assert "888002" in page_b.content.decode() or "888,002" in page_b.content.decode()
    assert "777001" not in page_b.content.decode() and "777,001" not in page_b.content.decode()


def test_the_platform_admin_lists_every_tenants_daily_usage(
    tenant_a: Tenant, tenant_b: Tenant
) -> None:
    TenantUsageDay.objects.create(tenant=tenant_a, date=datetime.date(2026, 1, 2), turns=4)
    TenantUsageDay.objects.create(tenant=tenant_b, date=datetime.date(2026, 1, 2), turns=9)
    platform_get_or_create(domain=settings.PLATFORM_DOMAIN)
    User.objects.create_superuser("root", password="pw-root-123")
    client = Client(HTTP_HOST=settings.PLATFORM_DOMAIN)
    client.login(username="root", password="pw-root-123")

    page = client.get("/admin/tenants/tenantusageday/").content.decode()

    assert "Alpha Academy" in page and "Beta Clinic" in page
