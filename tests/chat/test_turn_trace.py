"""One trace per turn (issue 31 part 3): from the socket frame through a real Celery worker to
the model call, the tool and the published events, and on across an approval's resume.

Everything runs in this process (the ASGI application behind a ``WebsocketCommunicator``, a
real worker in a thread), so OpenTelemetry's in-memory exporter sees the spans of both sides;
tests/e2e/test_turn_trace.py does the same through daphne and worker processes.
"""

from __future__ import annotations

import io
import json
import logging
import time
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import User
from django.test import Client
from django_tenants.utils import tenant_context
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from actions.models import Contact, ContactGroup
from chat.tokens import api_token_create
from config.asgi import application
from core.logs import JsonFormatter
from core.tracing import span
from knowledge.indexing import kb_reindex
from knowledge.services import document_create_from_text
from tenants.models import Tenant
from tenants.roles import APPROVER, STAFF
from tests.tenants.factories import make_user

POLICY = (
    "# Leave policy\n\nStaff receive 20 days of paid annual leave per year. Unused leave can be "
    "carried over for up to three months with the approval of a manager."
)


def _token(tenant: Tenant, user: User) -> str:
    with tenant_context(tenant):
        _, token = api_token_create(user=user, name="trace")
    return token


def _socket(host: str, token: str) -> WebsocketCommunicator:
    return WebsocketCommunicator(
        application,
        "/ws/chat/",
        headers=[(b"host", host.encode()), (b"authorization", f"Bearer {token}".encode())],
    )


async def _until(socket: WebsocketCommunicator, *kinds: str) -> list[dict[str, Any]]:
    frames = []
    while True:
        frame = json.loads(await socket.receive_from(timeout=60))
        frames.append(frame)
        if frame["type"] in (*kinds, "error"):
            return frames


def _ask(tenant: Tenant, token: str, text: str) -> list[dict[str, Any]]:
    host = tenant.get_primary_domain().domain

    async def scenario() -> list[dict[str, Any]]:
        socket = _socket(host, token)
        assert (await socket.connect())[0]
        await socket.send_to(text_data=json.dumps({"type": "chat.send", "text": text}))
        frames = await _until(socket, "done", "pending")
        await socket.disconnect()
        return frames

    return async_to_sync(scenario)()


def _named(exporter: InMemorySpanExporter, name: str) -> list[ReadableSpan]:
    return [s for s in exporter.get_finished_spans() if s.name == name]


def _until_ended(spans: InMemorySpanExporter, name: str, seconds: float = 10.0) -> None:
    """Wait for the span ``name`` to be exported: a worker publishes its turn's ``done``
    before its task returns and the task's span ends."""
    deadline = time.monotonic() + seconds
    while not _named(spans, name) and time.monotonic() < deadline:
        time.sleep(0.05)


def _trace_of(span_: ReadableSpan) -> str:
    assert span_.context is not None
    return format(span_.context.trace_id, "032x")


@pytest.mark.django_db(transaction=True)
def test_a_question_is_one_trace_from_the_socket_frame_to_the_model_call_and_the_tool(
    tenant_a: Tenant, celery_worker_thread: None, spans: InMemorySpanExporter
) -> None:
    staff = make_user(tenant_a, "sam", role=STAFF)
    with tenant_context(tenant_a):
        document_create_from_text(title="Leave policy", text=POLICY)
        kb_reindex()

    frames = _ask(tenant_a, _token(tenant_a, staff), "How many days of paid annual leave?")

    assert frames[-1]["type"] == "done", frames[-1]
    _until_ended(spans, "celery.task chat.run_turn")  # the task's span ends after it sent done
    (frame,) = _named(spans, "ws chat.send")
    trace = _trace_of(frame)
    for name in (
        "chat.message.store",
        "celery.queue chat.run_turn",
        "celery.task chat.run_turn",
        "chat.turn",
        "graph.node agent",
        "llm.chat",
        "tool search_knowledge",
        "chat.publish done",
    ):
        assert {_trace_of(s) for s in _named(spans, name)} == {trace}, name
    (task,) = _named(spans, "celery.task chat.run_turn")
    (queued,) = _named(spans, "celery.queue chat.run_turn")
    assert task.parent is not None and task.parent.span_id == queued.context.span_id
    calls = _named(spans, "llm.chat")
    assert all(call.attributes["gen_ai.usage.output_tokens"] > 0 for call in calls)  # type: ignore[index,operator]
    assert all(call.attributes["countersign.usage.counted"] for call in calls)  # type: ignore[index]
    assert frames[-1]["trace_id"] == trace


@pytest.mark.django_db(transaction=True)
def test_the_resume_after_an_approval_over_a_socket_belongs_to_the_turns_trace(
    tenant_a: Tenant, celery_worker_thread: None, spans: InMemorySpanExporter
) -> None:
    staff = make_user(tenant_a, "sam", role=STAFF)
    approver = make_user(tenant_a, "april", role=APPROVER)
    with tenant_context(tenant_a):
        group = ContactGroup.objects.create(name="Parents")
        Contact.objects.create(name="Kim Minji", phone="+12025550100").groups.add(group)
    staff_token, approver_token = _token(tenant_a, staff), _token(tenant_a, approver)
    host = tenant_a.get_primary_domain().domain

    async def scenario() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        requester, deciding = _socket(host, staff_token), _socket(host, approver_token)
        assert (await requester.connect())[0] and (await deciding.connect())[0]
        await requester.send_to(
            text_data=json.dumps(
                {"type": "chat.send", "text": "Send an SMS to Parents saying School closes at 1pm"}
            )
        )
        asked = await _until(requester, "pending")
        action = asked[-1]["action"]["id"]
        await deciding.send_to(
            text_data=json.dumps({"type": "action.decide", "action": action, "decision": "approve"})
        )
        resumed = await _until(requester, "done")
        await requester.disconnect()
        await deciding.disconnect()
        return asked, resumed

    asked, resumed = async_to_sync(scenario)()

    assert asked[-1]["type"] == "pending", asked[-1]
    assert resumed[-1]["type"] == "done", resumed[-1]
    _until_ended(spans, "celery.task chat.resume_turn")
    (frame,) = _named(spans, "ws chat.send")
    trace = _trace_of(frame)
    (decision,) = _named(spans, "ws action.decide")
    (resume,) = _named(spans, "celery.task chat.resume_turn")
    (tool,) = _named(spans, "tool send_sms")
    assert _trace_of(resume) == _trace_of(tool) == trace
    # The approver's frame is a trace of its own, linked from the resume it started.
    (queued,) = _named(spans, "celery.queue chat.resume_turn")
    assert [link.context.span_id for link in queued.links] == [decision.context.span_id]
    assert resumed[-1]["trace_id"] == trace


@pytest.mark.django_db(transaction=True)
def test_a_message_sent_over_http_is_one_trace_with_its_turn_in_the_worker(
    tenant_a: Tenant, celery_worker_thread: None, spans: InMemorySpanExporter
) -> None:
    staff = make_user(tenant_a, "sam", role=STAFF)
    api = Client(
        HTTP_HOST=tenant_a.get_primary_domain().domain,
        HTTP_AUTHORIZATION=f"Bearer {_token(tenant_a, staff)}",
    )

    created = api.post(
        "/api/conversations/", {"text": "How many days of leave?"}, content_type="application/json"
    )

    assert created.status_code == 202, created.content
    (request,) = [s for s in spans.get_finished_spans() if s.name == "HTTP POST"]
    deadline = time.monotonic() + 60
    while not _named(spans, "chat.publish done") and time.monotonic() < deadline:
        time.sleep(0.1)
    _until_ended(spans, "celery.task chat.run_turn")
    for name in ("celery.task chat.run_turn", "llm.chat", "chat.publish done"):
        assert {_trace_of(s) for s in _named(spans, name)} == {_trace_of(request)}, name


def test_a_json_log_line_inside_a_span_names_its_trace_and_span(
    spans: InMemorySpanExporter,
) -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger("tests.trace")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        with span("work") as current:
            logger.warning("inside")
        logger.warning("outside")
    finally:
        logger.removeHandler(handler)

    inside, outside = (json.loads(line) for line in stream.getvalue().splitlines())
    context = current.get_span_context()
    assert inside["trace_id"] == format(context.trace_id, "032x")
    assert inside["span_id"] == format(context.span_id, "016x")
    assert "trace_id" not in outside and "span_id" not in outside


@pytest.mark.django_db(transaction=True)
def test_without_tracing_a_turn_makes_no_spans_and_done_has_no_trace_id(
    tenant_a: Tenant, celery_worker_thread: None
) -> None:
    from core import tracing

    staff = make_user(tenant_a, "sam", role=STAFF)

    frames = _ask(tenant_a, _token(tenant_a, staff), "How many days of paid annual leave?")

    assert frames[-1]["type"] == "done", frames[-1]
    assert "trace_id" not in frames[-1]
    assert tracing._tracer is None
