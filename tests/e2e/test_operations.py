"""Metrics, usage and the token budget through the real processes: daphne and Celery workers.

A module of its own: its workers talk to a scripted OpenAI-compatible model, so no shared
worker may be running here to take these turns.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from django.db.models import Sum
from django_tenants.utils import tenant_context

from actions.models import Contact, ContactGroup
from chat.models import Message, RunUsage, UsageDay
from knowledge.indexing import kb_reindex
from knowledge.services import document_create_from_text
from tenants.models import Tenant, TenantUsageDay
from tests.e2e.conftest import Api, Process, TenantSetup, start_worker
from tests.e2e.wsclient import WsClient
from tests.fakes.openai_server import FakeOpenAIServer, ScriptedText, ScriptedToolCall
from tests.metrics import Samples, moved, parse, value

pytestmark = pytest.mark.e2e
QUESTION = "How many days of zanzibar leave do staff get?"


def _scrape(port: int) -> tuple[Samples, str]:
    text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=10).text
    return parse(text), text


@pytest.fixture(scope="module")
def server_env(
    stack_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, str]:
    """This module's servers count in a metrics folder of their own: the lane's folder also
    holds the counts of every process another test of the lane started (the suite's CI saw a
    third completed turn appear between this test's two scrapes)."""
    metrics = tmp_path_factory.mktemp("operations-metrics")
    return {**stack_env, "PROMETHEUS_MULTIPROC_DIR": str(metrics)}


@pytest.fixture
def scripted_worker(
    alpha: TenantSetup, server_env: dict[str, str], tmp_path: Path
) -> Iterator[FakeOpenAIServer]:
    """A worker answering with a scripted model: every read path, then an SMS for approval."""
    script: list[ScriptedText | ScriptedToolCall] = [
        ScriptedToolCall("no_such_tool", {}),
        ScriptedToolCall("query_data", {"sql": "SELECT nope FROM nowhere"}),
        ScriptedToolCall("search_knowledge", {"query": "annual leave"}),
        ScriptedText("Staff receive 20 days of paid annual leave [1]."),
        ScriptedToolCall("send_sms", {"to": ["Parents"], "body": "School closes at 1pm"}),
        ScriptedText("Sent."),
    ]
    with FakeOpenAIServer(script) as llm:
        env = {**server_env, "LLM_BASE_URL": llm.base_url, "LLM_MODEL": "scripted"}
        worker: Process = start_worker(env, tmp_path, "ops")
        try:
            yield llm
        finally:
            worker.stop()


def _kb_and_parents(setup: TenantSetup) -> None:
    with tenant_context(setup.tenant):
        document_create_from_text(
            title="Leave policy", text="# Leave\n\nStaff receive 20 days of paid annual leave."
        )
        kb_reindex()
        group = ContactGroup.objects.create(name="Parents")
        Contact.objects.create(name="Parent", phone="+12025550100").groups.add(group)


def test_after_turns_through_daphne_and_a_worker_metrics_show_every_series_moved(
    web: int, alpha: TenantSetup, scripted_worker: FakeOpenAIServer
) -> None:
    _kb_and_parents(alpha)
    before, _ = _scrape(web)
    client = WsClient(web, alpha.host, token=alpha.staff.token)

    client.send_chat(QUESTION)
    client.until(lambda f: f["type"] == "done", timeout=60)
    client.send_chat("Text the parents that school closes at 1pm")
    pending = client.until(lambda f: f["type"] == "pending", timeout=60)[-1]
    decided = Api(web, alpha.host, alpha.approver.token).post(
        f"/api/actions/{pending['action']['id']}/approve",
        {"arguments": {"to": ["Parents"], "body": "School closes at 2pm"}},
    )
    assert decided.status_code == 200, decided.text
    # The edit is a counter-proposal (docs/web.md, four eyes): the requester confirms it.
    confirmed = Api(web, alpha.host, alpha.staff.token).post(
        f"/api/actions/{pending['action']['id']}/confirm", {}
    )
    assert confirmed.status_code == 200, confirmed.text
    client.until(lambda f: f["type"] == "done", timeout=60)

    after, text = _scrape(web)
    assert moved(before, after, "chat_turn_duration_seconds_count", outcome="complete") == 2
    assert moved(before, after, "chat_turn_duration_seconds_count", outcome="paused") == 1
    assert moved(before, after, "chat_time_to_first_token_seconds_count") >= 2
    assert moved(before, after, "chat_tokens_total", kind="input") == 42 * 6
    assert moved(before, after, "chat_tokens_total", kind="output") == 7 * 6
    assert moved(before, after, "hitl_decisions_total", decision="edited") == 1
    assert moved(before, after, "hitl_decisions_total", decision="confirmed") == 1
    assert moved(before, after, "agent_errors_total", type="unknown_tool") == 1
    assert moved(before, after, "agent_sql_retries_total") == 1
    assert moved(before, after, "kb_retrieval_seconds_count", method="hybrid") == 1
    assert value(after, "celery_queue_depth", queue="celery") >= 0
    assert ("celery_queue_depth", frozenset({("queue", "celery")})) in after
    assert "zanzibar" not in text and "School closes" not in text, "no message text in metrics"
    with tenant_context(alpha.tenant):
        day = UsageDay.objects.get()
        replies = Message.objects.filter(role=Message.Role.ASSISTANT)
        assert day.input_tokens == sum(m.usage["input_tokens"] for m in replies) == 42 * 6
        assert day.output_tokens == RunUsage.objects.aggregate(t=Sum("output_tokens"))["t"]
        assert day.turns == 2
    platform_day = TenantUsageDay.objects.get(tenant=alpha.tenant)
    assert (platform_day.input_tokens, platform_day.turns) == (42 * 6, 2)


def test_a_spent_budget_refuses_the_next_turn_over_websocket_and_http(
    web: int, alpha: TenantSetup
) -> None:
    Tenant.objects.filter(pk=alpha.tenant.pk).update(monthly_token_budget=1000)
    with tenant_context(alpha.tenant):
        from django.utils import timezone

        UsageDay.objects.create(date=timezone.localdate(), input_tokens=900, output_tokens=100)
    client = WsClient(web, alpha.host, token=alpha.staff.token)

    client.send_chat("One more question, please")
    frame = client.until(lambda f: f["type"] == "error")[-1]
    response = Api(web, alpha.host, alpha.staff.token).post(
        "/api/conversations/", {"text": "And over HTTP?"}
    )

    assert frame["code"] == "budget_exhausted"
    assert "monthly budget of 1000 model tokens is spent" in frame["message"]
    assert response.status_code == 429
    assert response.json()["error"]["code"] == "budget_exhausted"
    with tenant_context(alpha.tenant):
        assert not Message.objects.exists()
