"""Whatever the model writes is shown as text: nothing runs, nothing is fetched.

The model here is a local OpenAI-compatible server scripted to answer with an attack, so the
real ``ChatOpenAI`` client, worker, stream and page all handle it as they would in production.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.browser.conftest import SignIn, scripted_model_worker
from tests.e2e.conftest import TenantSetup
from tests.e2e.processes import Process, SharedProcesses
from tests.fakes.openai_server import FakeOpenAIServer, ScriptedText

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

ATTACK = (
    "Here is your answer <script>window.__pwned = 'script'</script>\n\n"
    '<img src="x" onerror="window.__pwned = \'img\'">\n\n'
    "[click me](javascript:window.__pwned='link') and "
    "<a href=\"javascript:window.__pwned='raw-link'\">raw link</a>\n\n"
    "![tracker](http://evil.example/pixel.png)\n\n"
    '<iframe src="http://evil.example/frame"></iframe>\n\n'
    "```html\n<script>alert('in a code block')</script>\n```\n"
)


@pytest.fixture(scope="module")
def hostile_model() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer([ScriptedText(ATTACK) for _ in range(5)], token_delay=0.02) as llm:
        yield llm


@pytest.fixture(scope="module")
def worker(
    server_env: dict[str, str], hostile_model: FakeOpenAIServer, processes: SharedProcesses
) -> Process:
    return scripted_model_worker(server_env, hostile_model, processes, "hostile")


def test_script_handlers_javascript_links_and_external_images_stay_inert(
    sign_in: SignIn, alpha: TenantSetup, worker: Process
) -> None:
    page = sign_in(alpha, "staff")
    requests: list[str] = []
    dialogs: list[str] = []
    page.on("request", lambda request: requests.append(request.url))

    def refuse(dialog: Any) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", refuse)

    page.get_by_label("Message").fill("Tell me something")
    page.get_by_label("Message").press("Enter")
    reply = page.locator("[data-testid=message-assistant]")
    reply.wait_for(timeout=60_000)
    page.wait_for_timeout(500)  # time for anything that would load or run to do so

    assert page.evaluate("window.__pwned") is None
    assert dialogs == []
    thread: Any = page.locator("#thread")
    assert thread.locator("script, img, iframe, [onerror], a[href^='javascript']").count() == 0
    assert "<script>window.__pwned" in reply.inner_text(), "the attack is shown as text"
    assert reply.locator("pre code").count() == 1
    assert reply.locator("a.external-image").get_attribute("href") == (
        "http://evil.example/pixel.png"
    )
    hosts = {urlsplit(url).hostname or "" for url in requests}
    assert hosts == {alpha.host}, f"requests left the page: {sorted(hosts)}"
