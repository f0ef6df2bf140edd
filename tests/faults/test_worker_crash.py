"""A worker killed with SIGKILL strands nothing (issue #13, item 5).

These workers run with the production defaults of the redelivery settings (no short timeouts
of tests/e2e): a live worker renews the lease of each task it holds, so the visibility timeout
is short and a dead worker's turn is handed to another worker within seconds, not an hour.
A module of its own: no shared worker may be running here, or it would take these turns.
"""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest
from django_tenants.utils import tenant_context

from chat.models import Message
from tests.e2e.conftest import TenantSetup, start_worker
from tests.e2e.wsclient import WsClient
from tests.fakes.openai_server import FakeOpenAIServer, ScriptedText, ScriptedToolCall

pytestmark = pytest.mark.e2e
SLOW_ANSWER = "All staff receive twenty days of paid annual leave every year. " * 6
_TEST_TIMEOUTS = ("CELERY_VISIBILITY_TIMEOUT", "CELERY_RESTORE_INTERVAL", "CHAT_TURN_LOCK_SECONDS")


def _production_env(stack_env: dict[str, str], **extra: str) -> dict[str, str]:
    return {**{k: v for k, v in stack_env.items() if k not in _TEST_TIMEOUTS}, **extra}


def test_a_turn_whose_worker_is_killed_finishes_on_another_worker_within_60_seconds(
    web: int, alpha: TenantSetup, stack_env: dict[str, str], tmp_path: Path
) -> None:
    script: list[ScriptedText | ScriptedToolCall] = [
        ScriptedText(SLOW_ANSWER, chunk_chars=4) for _ in range(3)
    ]
    with FakeOpenAIServer(script, token_delay=0.05) as llm:
        env = _production_env(
            stack_env, LLM_BASE_URL=llm.base_url, LLM_MODEL="slow", LLM_API_KEY="k"
        )
        doomed = start_worker(env, tmp_path, "doomed")
        try:
            client = WsClient(web, alpha.host, token=alpha.staff.token)
            client.send_chat("Tell me about leave")
            client.until(lambda f: f["type"] == "token")
        finally:
            # SIGKILL: no chance to acknowledge or clean up. Also when the turn never started:
            # a worker left running would take the lane's tasks for the rest of the run (seen
            # in CI: every later turn of the lane failed, its scripted model gone).
            doomed.popen.kill()
            doomed.popen.wait()
        killed_at = time.monotonic()
        rescuer = start_worker(env, tmp_path, "rescuer")
        try:
            done = client.until(lambda f: f["type"] in ("done", "error"), timeout=60)[-1]
        finally:
            rescuer.stop()

    print(f"recovered {time.monotonic() - killed_at:.1f} s after the kill")
    assert done["type"] == "done"
    assert done["content"] == SLOW_ANSWER
    with tenant_context(alpha.tenant):
        assert Message.objects.filter(role="assistant").count() == 1


def test_readyz_reports_no_live_worker_after_the_last_worker_is_killed(
    web: int, stack_env: dict[str, str], tmp_path: Path
) -> None:
    worker = start_worker(_production_env(stack_env), tmp_path, "lonely")
    readyz = f"http://127.0.0.1:{web}/readyz"
    try:
        deadline = time.monotonic() + 30
        while httpx.get(readyz).status_code != 200 and time.monotonic() < deadline:
            time.sleep(0.5)
        assert httpx.get(readyz).status_code == 200
    finally:  # a worker left running would take the lane's tasks for the rest of the run
        worker.popen.kill()
        worker.popen.wait()
    deadline = time.monotonic() + 60
    while httpx.get(readyz).status_code == 200 and time.monotonic() < deadline:
        time.sleep(0.5)

    response = httpx.get(readyz)
    assert response.status_code == 503
    assert any(p.startswith("workers: ") for p in response.json()["problems"])


def test_a_turn_longer_than_the_visibility_timeout_runs_once_while_its_worker_lives(
    web: int, alpha: TenantSetup, stack_env: dict[str, str], tmp_path: Path
) -> None:
    script: list[ScriptedText | ScriptedToolCall] = [ScriptedText(SLOW_ANSWER, chunk_chars=2)]
    with FakeOpenAIServer(script, token_delay=0.06) as llm:  # ~12 s of streaming
        env = _production_env(
            stack_env,
            LLM_BASE_URL=llm.base_url,
            LLM_MODEL="slow",
            LLM_API_KEY="k",
            CELERY_VISIBILITY_TIMEOUT="4",
            CELERY_RESTORE_INTERVAL="1",
            CHAT_TURN_LOCK_SECONDS="4",
            LOG_LEVEL="info",  # each worker logs every task it receives
        )
        first, second = start_worker(env, tmp_path, "one"), start_worker(env, tmp_path, "two")
        try:
            client = WsClient(web, alpha.host, token=alpha.staff.token)
            client.send_chat("Tell me about leave")
            done = client.until(lambda f: f["type"] in ("done", "error"), timeout=60)[-1]
        finally:
            first.stop()
            second.stop()

    received = [
        line
        for worker in (first, second)
        for line in worker.log.read_text(errors="replace").splitlines()
        if "chat.run_turn[" in line and "received" in line
    ]
    assert done["type"] == "done"
    assert len(received) == 1, received
    assert len(llm.requests) == 1
