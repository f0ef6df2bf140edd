"""``chat.cancel`` through a real daphne and a real worker process: the frame stops the owner's
turn (one ``done`` of status ``cancelled``), a late cancel is answered plainly with no second
``done``, and nobody else — a colleague, another tenant — can cancel it.

A module of its own: its worker (one thread, so a held model call keeps it busy) must be the
only one taking turns here.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from django_tenants.utils import tenant_context

from chat.models import Message
from tests.e2e.conftest import TenantSetup, start_worker
from tests.e2e.wsclient import WsClient
from tests.fakes.openai_server import FakeOpenAIServer, ScriptedText

pytestmark = pytest.mark.e2e
ANSWER = "The library opens at eight in the morning on weekdays and at ten on Saturdays."


def _cancel_answer(client: WsClient, conversation: str) -> dict[str, object]:
    client.send({"type": "chat.cancel", "conversation": conversation})
    return client.until(lambda f: f["type"] == "error")[-1]


def test_a_cancel_frame_stops_the_owners_turn_once_and_nobody_else_can_send_one(
    web: int, alpha: TenantSetup, beta: TenantSetup, stack_env: dict[str, str], tmp_path: Path
) -> None:
    gate = threading.Event()
    with FakeOpenAIServer([ScriptedText(ANSWER)], gate=gate) as llm:
        env = {**stack_env, "LLM_BASE_URL": llm.base_url, "LLM_MODEL": "held", "LLM_API_KEY": "k"}
        worker = start_worker(env, tmp_path, "canceller", concurrency=1)
        try:
            owner = WsClient(web, alpha.host, token=alpha.staff.token)
            owner.send_chat("When does the library open?")
            conversation = owner.until(lambda f: f["type"] == "accepted")[-1]["conversation"]
            deadline = time.monotonic() + 60
            while not llm.requests and time.monotonic() < deadline:
                time.sleep(0.05)  # the turn has started: the model has the question
            colleague = WsClient(web, alpha.host, token=alpha.approver.token)
            from_colleague = _cancel_answer(colleague, conversation)
            stranger = WsClient(web, beta.host, token=beta.staff.token)
            from_other_tenant = _cancel_answer(stranger, conversation)

            owner.send({"type": "chat.cancel", "conversation": conversation})
            gate.set()
            done = owner.until(lambda f: f["type"] == "done", timeout=60)[-1]
            too_late = _cancel_answer(owner, conversation)
            afterwards = owner.drain(quiet_seconds=1.5)
        finally:
            gate.set()
            worker.stop()

    assert from_colleague["code"] == "not_found"
    assert from_other_tenant["code"] == "not_found"
    assert done["status"] == "cancelled"
    assert too_late["code"] == "nothing_to_cancel"
    assert [f for f in afterwards if f["type"] == "done"] == [], "no second done"
    with tenant_context(alpha.tenant):
        reply = Message.objects.get(role=Message.Role.ASSISTANT)
    assert reply.status == Message.Status.CANCELLED and ANSWER.startswith(reply.content)
