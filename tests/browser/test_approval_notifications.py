"""Approvers are told of a request outside the page: an e-mail (a local SMTP server stands in
for the relay) whose link leads to the card in the inbox, and a browser notification while the
inbox is in the background. Real Chromium, real daphne and a real Celery worker."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django_tenants.utils import tenant_context

from actions.models import Contact, ContactGroup
from tests.browser.conftest import SignIn
from tests.e2e.conftest import TenantSetup
from tests.e2e.processes import Process, SharedProcesses
from tests.unit.actions.fakes import FakeSmtpServer

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

APPROVER_EMAIL = "approver@alpha.example"
REQUEST = "Send an SMS to Parents saying The bus is 10 minutes late"

# Observes the page's Notification calls (the real constructor still runs), and lets the test
# say when the page counts as hidden: a headless page is never in the background by itself.
OBSERVE_NOTIFICATIONS = """
(() => {
  window.__notifications = [];
  const Real = window.Notification;
  if (Real) {
    window.Notification = class extends Real {
      constructor(title, options = {}) {
        super(title, options);
        window.__notifications.push({ title, body: options.body, tag: options.tag });
      }
    };
  }
  const hidden = { configurable: true, get: () => window.__hidden === true };
  Object.defineProperty(document, "hidden", hidden);
})()
"""


@pytest.fixture(scope="module")
def server_env(notifying_env: dict[str, str]) -> dict[str, str]:
    """E-mail goes to the local SMTP server; links point at plain http (the test server).
    The environment of tests/browser/conftest.py, shared with test_decision_links.py."""
    return notifying_env


@pytest.fixture(scope="module")
def worker(server_env: dict[str, str], web: int, processes: SharedProcesses) -> Process:
    """The worker writes the e-mails, so it is the one that must know the web server's port."""
    return processes.worker({**server_env, "APPROVAL_NOTIFY_LINK_PORT": str(web)}, "main")


@pytest.fixture
def school(alpha: TenantSetup, smtp: FakeSmtpServer) -> TenantSetup:
    smtp.messages.clear()
    with tenant_context(alpha.tenant):
        User.objects.filter(pk=alpha.approver.user.pk).update(email=APPROVER_EMAIL)
        group = ContactGroup.objects.create(name="Parents")
        for index, name in enumerate(["Kim Minji", "Lee Jun"]):
            contact = Contact.objects.create(name=name, phone=f"+1202555010{index}")
            contact.groups.add(group)
    return alpha


def _wait_for(condition: Callable[[], Any], timeout: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"condition not met within {timeout}s")


def _ask(page: Any, text: str) -> None:
    page.get_by_label("Message").fill(text)
    page.get_by_label("Message").press("Enter")


def test_the_approver_is_emailed_and_the_link_opens_the_card_in_the_inbox(
    sign_in: SignIn,
    school: TenantSetup,
    worker: Process,
    web: int,
    smtp: FakeSmtpServer,
) -> None:
    approver = sign_in(school, "approver")
    staff = sign_in(school, "staff")

    _ask(staff, REQUEST)
    # The first turn of a fresh worker loads the offline model: allow it time on a busy machine.
    staff.locator("[data-testid=action-card][data-status=pending]").wait_for(timeout=120_000)

    [mail] = _wait_for(lambda: list(smtp.messages))
    body = mail.message.get_content()
    assert mail.rcpt_tos == [APPROVER_EMAIL]
    assert mail.message["Subject"] == f"{school.tenant.name}: 1 request waits for your approval"
    assert "Send SMS — asked by a-staff" in body
    link = re.search(r"Open: (\S+)", body)
    assert link is not None
    assert link.group(1).startswith(f"http://{school.host}:{web}/approvals/decide/")

    approver.goto(link.group(1))  # the request's own page (tests/browser/test_decision_links.py)
    approver.locator("[data-testid=link-inbox]").click()

    card_id = f"action-{approver.url.split('#action-', 1)[1]}"
    card = approver.locator(f"#{card_id}")
    card.wait_for()
    assert card.evaluate("card => card.matches(':target')")  # the card the link named
    assert card.get_attribute("data-status") == "pending"
    card.locator("[data-testid=approve]").wait_for()  # the linked card unfolds by itself


def test_a_request_arriving_while_the_inbox_is_in_the_background_shows_a_browser_notification(
    sign_in: SignIn, school: TenantSetup, worker: Process, web: int
) -> None:
    approver = sign_in(school, "approver")
    approver.context.add_init_script(OBSERVE_NOTIFICATIONS)
    approver.goto(f"http://{school.host}:{web}/approvals/")
    approver.locator("[data-testid=connection][data-state=connected]").wait_for()
    ask = approver.locator("[data-testid=notify-browser]")
    assert ask.is_visible()  # permission not asked yet: the inbox offers it

    approver.context.grant_permissions(["notifications"], origin=f"http://{school.host}:{web}")
    ask.click()  # a user gesture asks for permission
    ask.wait_for(state="hidden")
    approver.evaluate("window.__hidden = true")  # the approver switched to another tab

    staff = sign_in(school, "staff")
    _ask(staff, REQUEST)

    card = approver.locator("#inbox-list [data-testid=action-card]")
    # The same pending frame adds the card (after fetching it) and, at once, the notification.
    card.wait_for(timeout=120_000)
    [shown] = approver.evaluate("window.__notifications")
    assert shown["title"] == "A request waits for your approval"
    assert shown["body"].endswith("\nAsked by a-staff")
    assert "Parents" in shown["body"]
    assert shown["tag"] == f"action-{card.get_attribute('data-action')}"
