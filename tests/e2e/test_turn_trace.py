"""One trace per turn across processes: a daphne web server and a Celery worker process, each
with tracing on and no collector, write their spans to stdout as JSON lines (core/tracing.py's
default without an OTLP endpoint); the test reads both and follows the turn's trace id."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from django_tenants.utils import tenant_context

from actions.models import Contact, ContactGroup
from tests.e2e.conftest import Api, Process, TenantSetup, start_daphne, start_worker
from tests.e2e.wsclient import WsClient

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def traced_env(stack_env: dict[str, str]) -> dict[str, str]:
    # Spans leave in batches; a short delay makes them readable within a fraction of a second.
    return {**stack_env, "OTEL_ENABLED": "true", "OTEL_BSP_SCHEDULE_DELAY": "100"}


@pytest.fixture(scope="module")
def traced_web(
    traced_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Process, int]]:
    process, port = start_daphne(traced_env, tmp_path_factory.mktemp("web"))
    yield process, port
    process.stop()


@pytest.fixture(scope="module")
def traced_worker(
    traced_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Process]:
    process = start_worker(traced_env, tmp_path_factory.mktemp("worker"), "traced")
    yield process
    process.stop()


def _spans(*processes: Process) -> list[dict[str, Any]]:
    """The spans the processes wrote so far (their output also holds log lines)."""
    spans = []
    for process in processes:
        for line in process.log.read_text(errors="replace").splitlines():
            if not line.startswith('{"name"'):
                continue
            try:
                span = json.loads(line)
            except ValueError:
                continue  # a line still being written
            if isinstance(span, dict) and "context" in span:
                spans.append(span)
    return spans


def _spans_once(processes: tuple[Process, ...], *names: str) -> list[dict[str, Any]]:
    deadline = time.monotonic() + 60
    while True:
        spans = _spans(*processes)
        if set(names) <= {span["name"] for span in spans} or time.monotonic() > deadline:
            return spans
        time.sleep(0.2)


def _trace(span: dict[str, Any]) -> str:
    return str(span["context"]["trace_id"]).removeprefix("0x")


def test_a_turn_and_its_resume_after_an_approval_are_one_trace_across_web_and_worker(
    traced_web: tuple[Process, int], traced_worker: Process, alpha: TenantSetup
) -> None:
    web, port = traced_web
    with tenant_context(alpha.tenant):
        group = ContactGroup.objects.create(name="Parents")
        Contact.objects.create(name="Kim Minji", phone="+12025550100").groups.add(group)
    staff = WsClient(port, alpha.host, token=alpha.staff.token)

    staff.send_chat("Send an SMS to Parents saying School closes at 1pm")
    # Generous waits: a fresh worker loads the built-in model on its first turn.
    pending = staff.until(lambda f: f["type"] in ("pending", "error"), timeout=120)[-1]
    assert pending["type"] == "pending", pending
    approved = Api(port, alpha.host, alpha.approver.token).post(
        f"/api/actions/{pending['action']['id']}/approve"
    )
    done = staff.until(lambda f: f["type"] in ("done", "error"), timeout=120)[-1]

    assert approved.status_code == 200, approved.text
    assert done["type"] == "done", done
    spans = _spans_once((web, traced_worker), "tool send_sms", "chat.publish done")
    named = {span["name"]: span for span in spans}
    trace = _trace(named["ws chat.send"])
    for name in (
        "chat.message.store",  # web
        "celery.queue chat.run_turn",
        "celery.task chat.run_turn",  # worker
        "llm.chat",
        "graph.node approval",
        "celery.task chat.resume_turn",  # worker, after the decision
        "tool send_sms",
        "chat.publish done",
    ):
        assert _trace(named[name]) == trace, name
    # The approver's request is a trace of its own, which the resume links to.
    request = next(s for s in spans if s["name"] == "HTTP POST" and _trace(s) != trace)
    queued = named["celery.queue chat.resume_turn"]
    assert _trace(queued) == trace
    assert [link["context"]["span_id"] for link in queued["links"]] == [
        request["context"]["span_id"]
    ]
    assert done["trace_id"] == trace
