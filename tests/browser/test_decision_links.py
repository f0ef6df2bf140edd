"""Approving from the e-mail, still exactly once: the approver opens the Approve link of the
digest the (fake) SMTP server received, signs in, confirms on the page the link opens, and the
SMS goes out once through the (fake) Twilio; the same link used again says it was used. Real
Chromium, real daphne and a real Celery worker."""

from __future__ import annotations

import html
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django_tenants.utils import tenant_context

from actions.models import Contact, OutboundMessage
from chat.models import ActionEvent, PendingAction
from tests.browser.conftest import SignIn
from tests.e2e.conftest import TenantSetup
from tests.e2e.processes import Process, SharedProcesses
from tests.tenants.factories import PASSWORD
from tests.unit.actions.fakes import FakeSmtpServer, FakeTwilioServer

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

APPROVER_EMAIL = "approver@alpha.example"
REQUEST = "Send an SMS to Emma Wilson saying The bus is 10 minutes late"
SLOW = 120_000  # a whole turn on two busy cores (the offline model loads on its first call)


@pytest.fixture(scope="module")
def server_env(notifying_env: dict[str, str]) -> dict[str, str]:
    """E-mail to the local SMTP server, SMS to the fake Twilio (tests/browser/conftest.py)."""
    return notifying_env


@pytest.fixture(scope="module")
def worker(server_env: dict[str, str], web: int, processes: SharedProcesses) -> Process:
    """The worker writes the e-mails, so it is the one that must know the web server's port."""
    return processes.worker({**server_env, "APPROVAL_NOTIFY_LINK_PORT": str(web)}, "main")


@pytest.fixture
def school(alpha: TenantSetup, smtp: FakeSmtpServer, twilio: FakeTwilioServer) -> TenantSetup:
    smtp.messages.clear()
    twilio.reset()
    twilio.requests.clear()  # the fake serves every module of tests/browser
    with tenant_context(alpha.tenant):
        User.objects.filter(pk=alpha.approver.user.pk).update(email=APPROVER_EMAIL)
        Contact.objects.create(name="Emma Wilson", phone="+12025550123")
    return alpha


def _wait_for(condition: Callable[[], Any], timeout: float = 120.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"condition not met within {timeout}s")


def _delivered(school: TenantSetup) -> PendingAction | None:
    """The action once it ran and its message reached the provider (nothing is left to send)."""
    with tenant_context(school.tenant):
        action = PendingAction.objects.filter(status=PendingAction.Status.EXECUTED).first()
        if action is None:
            return None
        sent = OutboundMessage.objects.filter(action_id=action.pk, status="sent").exists()
        return action if sent else None


def test_the_approver_approves_from_the_emails_link_once_and_a_second_click_says_it_was_used(
    browser: Any,
    sign_in: SignIn,
    school: TenantSetup,
    worker: Process,
    web: int,
    smtp: FakeSmtpServer,
    twilio: FakeTwilioServer,
    screenshot_dir: Path,
) -> None:
    staff = sign_in(school, "staff")
    staff.get_by_label("Message").fill(REQUEST)
    staff.get_by_label("Message").press("Enter")
    staff.locator("[data-testid=action-card][data-status=pending]").wait_for(timeout=SLOW)

    [mail] = _wait_for(lambda: list(smtp.messages))
    body = mail.message.get_content()
    assert mail.rcpt_tos == [APPROVER_EMAIL]
    assert "  To: Emma Wilson\n" in body and "  Body: The bus is 10 minutes late\n" in body
    approve = re.search(r"^Approve: (\S+)$", body, re.M)
    assert approve is not None and approve.group(1).startswith(f"http://{school.host}:{web}/")

    # The approver reads the mail in a browser that is not signed in: the login page, then back.
    context = browser.new_context(viewport={"width": 1000, "height": 800})
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.goto(approve.group(1))
    page.get_by_label("Username").fill(school.approver.user.get_username())
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(approve.group(1))

    shown = page.locator("[data-testid=link-text]")
    assert "Emma Wilson" in shown.inner_text()
    assert "The bus is 10 minutes late" in shown.inner_text()
    with tenant_context(school.tenant):
        assert PendingAction.objects.get().status == "pending"  # opening decided nothing
    page.screenshot(path=str(screenshot_dir / "decision-link.png"))

    page.locator("[data-testid=link-approve]").click()

    assert "Approved" in page.locator("[data-testid=link-done]").inner_text()
    action = _wait_for(lambda: _delivered(school))
    staff.locator(f"#action-{action.pk}[data-status=executed]").wait_for(timeout=SLOW)
    [sms] = twilio.requests  # once: the action ran, and its one message went out
    assert sms.body["To"] == "+12025550123"
    assert sms.body["Body"] == "The bus is 10 minutes late"

    page.goto(approve.group(1))  # the same link again: a second click

    refused = page.locator("[data-testid=link-refused]").inner_text()
    assert "This link was already used" in refused
    assert f"approved by {school.approver.user.get_username()}" in refused
    assert page.locator("[data-testid=link-approve]").count() == 0
    with tenant_context(school.tenant):
        approvals = ActionEvent.objects.filter(action_id=action.pk, kind="approved").count()
    assert approvals == 1 and len(twilio.requests) == 1

    mailbox = context.new_page()
    mailbox.set_viewport_size({"width": 900, "height": 700})
    mailbox.set_content(  # a mail client wraps long links anywhere
        "<pre style='font: 15px/1.45 sans-serif; white-space: pre-wrap; word-break: break-all; "
        "margin: 24px'>"
        f"<b>Subject: {html.escape(mail.message['Subject'])}</b>\n\n{html.escape(body)}</pre>"
    )
    mailbox.screenshot(path=str(screenshot_dir / "notification-email.png"), full_page=True)
    context.close()
