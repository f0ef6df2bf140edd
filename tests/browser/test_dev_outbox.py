"""The dev outbox page in a demo (issue 29, "a demo you can follow"): staff ask for an SMS, the
approver is told by a digest and approves, and a tenant admin reads both the SMS and the digest
at /dev/outbox/, whose link opens the card. Real Chromium, real daphne and a real Celery worker
with the development (outbox) backends, as under ``make run``."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth.models import Group, User
from django_tenants.utils import tenant_context

from actions.models import Contact, ContactGroup, OutboundMessage
from tenants.roles import TENANT_ADMIN
from tests.browser.conftest import SignIn
from tests.e2e.conftest import TenantSetup
from tests.e2e.processes import Process
from tests.notifications.conftest import forget_link_origins

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

REQUEST = "Send an SMS to Parents saying The bus is 10 minutes late"


@pytest.fixture
def school(alpha: TenantSetup) -> TenantSetup:
    """Parents to text, and an approver who is also the tenant's admin (the demo's ``admin``
    reads the outbox; here the same person follows the digest's link to decide)."""
    forget_link_origins(alpha.tenant)
    with tenant_context(alpha.tenant):
        approver = alpha.approver.user
        User.objects.filter(pk=approver.pk).update(email="approver@alpha.example", is_staff=True)
        approver.groups.add(Group.objects.get(name=TENANT_ADMIN))
        group = ContactGroup.objects.create(name="Parents")
        for index, name in enumerate(["Kim Minji", "Lee Jun"]):
            contact = Contact.objects.create(name=name, phone=f"+1202555010{index}")
            contact.groups.add(group)
    return alpha


def test_the_dev_outbox_lists_the_sms_and_the_digest_whose_approve_link_works(
    sign_in: SignIn, school: TenantSetup, worker: Process, web: int, screenshot_dir: Path
) -> None:
    approver = sign_in(school, "approver")
    staff = sign_in(school, "staff")
    staff.get_by_label("Message").fill(REQUEST)
    staff.get_by_label("Message").press("Enter")
    staff.locator("[data-testid=action-card][data-status=pending]").wait_for(timeout=180_000)

    outbox = f"http://{school.host}:{web}/dev/outbox/"
    approver.goto(outbox)
    digest = approver.locator("[data-testid=outbox-entry]", has_text="Approval digest")
    for _ in range(240):  # the worker sends the digest at once: reload until it is there
        if digest.count():
            break
        approver.wait_for_timeout(500)
        approver.goto(outbox)
    assert "1 request waits for your approval" in digest.inner_text()
    # The e-mail's signed Approve link (notifications/decision_links.py), at the page's port.
    link = digest.locator('a[href*="/approvals/decide/"]').first
    href = link.get_attribute("href") or ""
    assert href.startswith(f"http://{school.host}:{web}/approvals/decide/"), href

    link.click()
    approver.get_by_test_id("link-approve").click()
    approver.get_by_text("Approved.").wait_for()
    with tenant_context(school.tenant):
        for _ in range(600):
            if OutboundMessage.objects.filter(status=OutboundMessage.Status.SENT).count() == 2:
                break
            approver.wait_for_timeout(100)

    approver.goto(outbox)
    sms = approver.locator("[data-testid=outbox-entry]", has_text="Message · SMS")
    assert sms.count() == 2
    assert "The bus is 10 minutes late" in sms.first.inner_text()
    approver.screenshot(path=str(screenshot_dir / "dev-outbox.png"), full_page=True)
