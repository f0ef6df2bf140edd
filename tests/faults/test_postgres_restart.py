"""PostgreSQL restarts (issue #30): every pool hands out a working connection afterwards, a turn
caught by the restart ends visibly, and /readyz tells the truth quickly while it is down.

The restarts are of the test session's own embedded server (``pg_ctl -m fast``: open sessions
end with ``AdminShutdown``, as in an operator's restart); each test starts it again before it
ends, and ``_restored`` gives this test process's own connections back in working order.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from django.db import connection
from django_tenants.utils import tenant_context

from chat.models import Message
from chat.services.turns import turn_start
from core.celery import queue
from core.infra import EmbeddedInfra
from tests.e2e.conftest import Process, TenantSetup, start_worker
from tests.e2e.test_realtime import _kb
from tests.e2e.wsclient import WsClient
from tests.fakes.openai_server import FakeOpenAIServer, ScriptedText, ScriptedToolCall

# Restarts the suite's shared servers: run by themselves (make test, marker ``alone``).
pytestmark = [pytest.mark.e2e, pytest.mark.alone]

QUESTION = "How many days of paid annual leave do staff get?"
SLOW_ANSWER = "All staff receive twenty days of paid annual leave every year. " * 8
# /readyz must answer within this, whatever state the database is in (a probe's own timeout).
PROBE_TIMEOUT_SECONDS = 8


@contextmanager
def _postgres_down(infra: EmbeddedInfra) -> Iterator[None]:
    infra.stop_postgres()
    try:
        yield
    finally:
        infra.up()
        _restored()


def _restored() -> None:
    """This process's pooled connections died with the server: drop them."""
    connection.close()
    pool = getattr(connection, "pool", None)
    if pool is not None:
        pool.check()


def _ask(web: int, setup: TenantSetup, text: str = QUESTION) -> dict[str, object]:
    client = WsClient(web, setup.host, token=setup.staff.token)
    client.send_chat(text)
    return client.until(lambda f: f["type"] in ("done", "error"), timeout=60)[-1]


def _stored_reply(setup: TenantSetup, message_uuid: str) -> Message | None:
    with tenant_context(setup.tenant):
        return Message.objects.filter(run_id=message_uuid, role="assistant").first()


def test_after_a_postgres_restart_between_turns_the_next_turn_is_answered(
    web: int, worker: Process, alpha: TenantSetup, embedded_infra: EmbeddedInfra
) -> None:
    _kb(alpha)
    assert _ask(web, alpha)["type"] == "done"

    with _postgres_down(embedded_infra):
        time.sleep(1)

    # Twice: a worker and a web process each hold several pooled connections, all dead.
    first, second = _ask(web, alpha), _ask(web, alpha, "What about sick leave?")
    assert first["type"] == "done", first
    assert second["type"] == "done", second


def test_a_turn_streaming_through_a_postgres_restart_ends_with_its_reply_stored(
    web: int,
    alpha: TenantSetup,
    embedded_infra: EmbeddedInfra,
    stack_env: dict[str, str],
    tmp_path: Path,
) -> None:
    script: list[ScriptedText | ScriptedToolCall] = [
        ScriptedText(SLOW_ANSWER, chunk_chars=4) for _ in range(3)
    ]
    with FakeOpenAIServer(script, token_delay=0.03) as llm:
        env = {**stack_env, "LLM_BASE_URL": llm.base_url, "LLM_MODEL": "slow", "LLM_API_KEY": "k"}
        streaming = start_worker(env, tmp_path, "pg-streaming")
        try:
            client = WsClient(web, alpha.host, token=alpha.staff.token)
            client.send_chat("Tell me about leave")
            asked = client.until(lambda f: f["type"] == "accepted")[-1]["message"]
            client.until(lambda f: f["type"] == "token")
            with _postgres_down(embedded_infra):
                time.sleep(1)
            ending = client.until(lambda f: f["type"] in ("done", "error"), timeout=60)[-1]
            deadline = time.monotonic() + 30
            while _stored_reply(alpha, asked) is None and time.monotonic() < deadline:
                time.sleep(0.5)
        finally:
            streaming.stop()

    assert ending["type"] in ("done", "error"), ending
    assert _stored_reply(alpha, asked) is not None  # the answer, or the error reply


def test_a_turn_task_that_arrives_while_postgres_is_down_waits_for_it_and_is_answered(
    worker: Process, alpha: TenantSetup, embedded_infra: EmbeddedInfra
) -> None:
    with tenant_context(alpha.tenant):
        _, message, _ = turn_start(user=alpha.staff.user, text="Hello there")
    with _postgres_down(embedded_infra):
        with tenant_context(alpha.tenant):
            queue("chat.run_turn", message.pk)
        # Longer than a pooled connection is waited for (DB_POOL_TIMEOUT_SECONDS, 10 s): the
        # worker takes the task and its first query fails.
        time.sleep(15)

    deadline = time.monotonic() + 60
    while _stored_reply(alpha, str(message.uuid)) is None and time.monotonic() < deadline:
        time.sleep(0.5)
    reply = _stored_reply(alpha, str(message.uuid))

    assert reply is not None, "the task retried once the database was back instead of dying"
    assert reply.status == Message.Status.COMPLETE


def test_readyz_answers_503_quickly_while_postgres_is_down_and_200_after_it_returns(
    transactional_db: None, web: int, worker: Process, embedded_infra: EmbeddedInfra
) -> None:
    readyz = f"http://127.0.0.1:{web}/readyz"
    with _postgres_down(embedded_infra):
        down = httpx.get(readyz, timeout=PROBE_TIMEOUT_SECONDS)
    deadline = time.monotonic() + 30
    while httpx.get(readyz, timeout=PROBE_TIMEOUT_SECONDS).status_code != 200:
        if time.monotonic() > deadline:
            break
        time.sleep(0.5)
    after = httpx.get(readyz, timeout=PROBE_TIMEOUT_SECONDS)

    assert down.status_code == 503
    assert any(p.startswith("database: ") for p in down.json()["problems"])
    assert after.status_code == 200, after.text
