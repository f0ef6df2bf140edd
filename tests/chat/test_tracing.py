"""Optional tracing: spans for HTTP requests, Celery tasks, turns and each graph node."""

from __future__ import annotations

from django.test import Client
from django_tenants.utils import tenant_context
from langchain_core.messages import AIMessage
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from chat.models import Message
from chat.services.turns import turn_start
from chat.tasks import run_turn
from tenants.models import Tenant
from tests.chat.conftest import People, TurnRunner
from tests.chat.scripted import ScriptedChatModel, tool_call


def _names(exporter: InMemorySpanExporter) -> list[str]:
    return [span.name for span in exporter.get_finished_spans()]


def test_a_turn_has_a_span_with_one_child_span_per_graph_node(
    ask: TurnRunner, spans: InMemorySpanExporter
) -> None:
    model = ScriptedChatModel(replies=[tool_call("search_knowledge", query="x"), AIMessage("Hi.")])

    turn = ask("What is the leave policy?", model=model)

    finished = {span.name: span for span in spans.get_finished_spans()}
    assert {"graph.node agent", "graph.node read_tools", "graph.node finalize"} <= set(finished)
    root = finished["chat.turn"]
    assert finished["graph.node agent"].parent.span_id == root.context.span_id  # type: ignore[union-attr]
    assert root.attributes["countersign.conversation"] == str(turn.conversation.uuid)  # type: ignore[index]
    assert "What is the leave policy" not in str([s.attributes for s in finished.values()])


def test_a_celery_task_has_a_span_around_its_turn(
    people_a: People, spans: InMemorySpanExporter, tenant_a: Tenant
) -> None:
    _, message, _ = turn_start(user=people_a.staff, text="What time does school start?")

    run_turn.apply(args=[message.pk])

    finished = {span.name: span for span in spans.get_finished_spans()}
    task = finished["celery.task chat.run_turn"]
    assert finished["chat.turn"].parent.span_id == task.context.span_id  # type: ignore[union-attr]
    with tenant_context(tenant_a):  # the task left the connection on public, as tasks must
        assert Message.objects.filter(role=Message.Role.ASSISTANT).exists()


def test_an_http_request_has_a_span_naming_its_path_and_status(
    spans: InMemorySpanExporter,
) -> None:
    Client(HTTP_HOST="probe.internal").get("/healthz")

    (request,) = [s for s in spans.get_finished_spans() if s.name == "HTTP GET"]
    assert request.attributes["url.path"] == "/healthz"  # type: ignore[index]
    assert request.attributes["http.response.status_code"] == 200  # type: ignore[index]


def test_without_otel_enabled_nothing_is_traced(ask: TurnRunner) -> None:
    from core import tracing

    ask("What time does school start?", model=ScriptedChatModel(replies=[AIMessage("Hi.")]))

    assert tracing._tracer is None
