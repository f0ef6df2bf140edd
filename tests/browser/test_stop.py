"""Stop, pressed while a reply streams in, ends it and keeps what was already written.

The model is a local OpenAI-compatible server scripted to write a long reply slowly, so the
reply is still streaming when the button is pressed however busy the machine is (the offline
model's short answers could finish before a loaded browser got to the click).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django_tenants.utils import tenant_context

from chat.models import Message
from tests.browser.conftest import SignIn, scripted_model_worker
from tests.e2e.conftest import TenantSetup
from tests.e2e.processes import Process, SharedProcesses
from tests.fakes.openai_server import FakeOpenAIServer, ScriptedText

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

LONG_REPLY = " ".join(
    f"Point {n}: leave requests go to the head of department two weeks ahead." for n in range(12)
)


@pytest.fixture(scope="module")
def slow_model() -> Iterator[FakeOpenAIServer]:
    # About 140 pieces a quarter of a second apart: over half a minute of streaming.
    with FakeOpenAIServer([ScriptedText(LONG_REPLY) for _ in range(3)], token_delay=0.25) as llm:
        yield llm


@pytest.fixture(scope="module")
def worker(
    server_env: dict[str, str], slow_model: FakeOpenAIServer, processes: SharedProcesses
) -> Process:
    return scripted_model_worker(server_env, slow_model, processes, "slow")


def test_stop_ends_the_reply_and_keeps_what_was_written(
    sign_in: SignIn, alpha: TenantSetup, worker: Process
) -> None:
    page = sign_in(alpha, "staff")
    page.get_by_label("Message").fill("Remind me how leave requests work")
    page.get_by_label("Message").press("Enter")
    page.locator(".msg.streaming .msg-body", has_text="Point 0").wait_for(timeout=60_000)

    page.get_by_role("button", name="Stop").click()
    stopped = page.locator("[data-testid=message-assistant]")
    stopped.wait_for(timeout=60_000)

    shown = stopped.inner_text()
    assert "Stopped." in shown
    assert "Point 0:" in shown, "what was written before Stop is kept"
    assert "Point 11:" not in shown, "the reply ended when Stop was pressed"
    with tenant_context(alpha.tenant):
        stored = Message.objects.get(role=Message.Role.ASSISTANT)
    assert stored.status == Message.Status.CANCELLED
    assert stored.content.startswith("Point 0:")
    assert LONG_REPLY.startswith(stored.content.strip())
    assert page.get_by_role("button", name="Stop").is_hidden()
