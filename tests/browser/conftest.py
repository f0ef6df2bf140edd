"""Browser tests: Debian's Chromium, driven by Playwright, against real daphne and Celery.

Chromium comes from the system (``apt-get install chromium``; ``.ci/run`` installs it), never
from Playwright's own download. Without it these tests skip and say why. ``CHROMIUM_PATH``
points at another binary. Screenshots go to ``SCREENSHOT_DIR`` (default test-results/screenshots;
the ones in docs/screenshots are made with ``SCREENSHOT_DIR=docs/screenshots``).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import (  # noqa: F401 - fixtures shared with the end-to-end suite
    TenantSetup,
    _worker_lifetime,
    alpha,
    beta,
    processes,
    stack_env,
    web,
    worker,
)
from tests.e2e.processes import ROOT, Process, SharedProcesses
from tests.fakes.openai_server import FakeOpenAIServer
from tests.tenants.factories import PASSWORD
from tests.unit.actions.fakes import FakeSmtpServer, FakeTwilioServer

pytestmark = [pytest.mark.e2e, pytest.mark.browser]


def chromium_path() -> str | None:
    explicit = os.environ.get("CHROMIUM_PATH")
    if explicit:
        return explicit if Path(explicit).exists() else None
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


ASYNC_UNSAFE = "DJANGO_ALLOW_ASYNC_UNSAFE"

# Keep the browser to the page under test: no background fetches of its own.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-default-apps",
    "--disable-sync",
    "--no-first-run",
    "--metrics-recording-only",
    "--disable-features=Translate,OptimizationHints,MediaRouter,AutofillServerCommunication",
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Chromium for one test module. Module-scoped, because of what it does to this thread."""
    path = chromium_path()
    if path is None:
        pytest.skip(
            "browser tests need Chromium: `apt-get install chromium` (Debian), or set "
            "CHROMIUM_PATH; .ci/run installs it"
        )
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an event loop running in this thread, and Django then refuses
    # the ORM calls a test makes between browser steps. Allowed only while the browser runs and
    # only in this process (stack_env never passes it on to the servers under test).
    before = os.environ.get(ASYNC_UNSAFE)
    os.environ[ASYNC_UNSAFE] = "true"
    try:
        with sync_playwright() as playwright:
            launched = playwright.chromium.launch(
                executable_path=path, headless=True, args=CHROMIUM_ARGS
            )
            yield launched
            launched.close()
    finally:
        if before is None:
            os.environ.pop(ASYNC_UNSAFE, None)
        else:
            os.environ[ASYNC_UNSAFE] = before


@pytest.fixture(scope="module")
def server_env(stack_env: dict[str, str]) -> dict[str, str]:  # noqa: F811
    """The servers' environment (for ``web`` and ``worker`` below)."""
    env = dict(stack_env)
    # The offline model streams slowly enough that a person (or a test) sees the reply grow.
    env["OFFLINE_MODEL_CHUNK_MS"] = "60"
    return env


def scripted_model_worker(
    server_env: dict[str, str], llm: FakeOpenAIServer, shared: SharedProcesses, name: str
) -> Process:
    """A worker whose model is ``llm``, a local scripted OpenAI-compatible server (the real
    ``ChatOpenAI`` client talks to it over HTTP)."""
    env = {**server_env, "LLM_BASE_URL": llm.base_url, "LLM_MODEL": name, "LLM_API_KEY": "test-key"}
    return shared.worker(env, name)


@pytest.fixture(scope="package")
def smtp() -> Iterator[FakeSmtpServer]:
    """The local SMTP relay of the modules whose approvers are e-mailed (one for them all, so
    they share one environment and thus one daphne and worker; each test clears its mail)."""
    with FakeSmtpServer() as server:
        yield server


@pytest.fixture(scope="package")
def twilio() -> Iterator[FakeTwilioServer]:
    with FakeTwilioServer() as server:
        yield server


@pytest.fixture(scope="package")
def notifying_env(
    stack_env: dict[str, str],  # noqa: F811
    smtp: FakeSmtpServer,
    twilio: FakeTwilioServer,
) -> dict[str, str]:
    """E-mail to the local SMTP server, SMS to the fake Twilio, links in plain http."""
    return {
        **stack_env,
        "OFFLINE_MODEL_CHUNK_MS": "60",
        "ACTIONS_EMAIL_BACKEND": "smtp",
        "EMAIL_HOST": smtp.host,
        "EMAIL_PORT": str(smtp.port),
        "DEFAULT_FROM_EMAIL": "countersign@alpha.example",
        "ACTIONS_SMS_BACKEND": "twilio",
        "TWILIO_ACCOUNT_SID": twilio.account_sid,
        "TWILIO_AUTH_TOKEN": twilio.auth_token,
        "TWILIO_FROM_NUMBER": "+12025550199",
        "TWILIO_BASE_URL": twilio.base_url,
        "APPROVAL_NOTIFY_LINK_SCHEME": "http",
    }


@pytest.fixture
def screenshot_dir() -> Path:
    directory = Path(os.environ.get("SCREENSHOT_DIR", ROOT / "test-results" / "screenshots"))
    directory.mkdir(parents=True, exist_ok=True)
    return directory


SignIn = Callable[..., Any]


@pytest.fixture
def sign_in(browser: Any, web: int) -> Iterator[SignIn]:  # noqa: F811
    """``sign_in(setup, "staff")`` → a logged-in page in a browser context of its own."""
    contexts: list[Any] = []

    def open_as(setup: TenantSetup, who: str, *, width: int = 1200, height: int = 800) -> Any:
        context = browser.new_context(viewport={"width": width, "height": height})
        contexts.append(context)
        page = context.new_page()
        # A whole turn (daphne, a worker, the model) on 2 cores shared with Chromium: generous,
        # because a wait that expires here is a flaky failure, never a faster pass.
        page.set_default_timeout(60_000)
        base = f"http://{setup.host}:{web}"
        page.goto(f"{base}/login/")
        page.get_by_label("Username").fill(getattr(setup, who).user.get_username())
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(f"{base}/")
        page.locator("[data-testid=connection][data-state=connected]").wait_for()
        return page

    yield open_as
    for context in contexts:
        context.close()
