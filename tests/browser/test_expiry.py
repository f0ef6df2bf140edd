"""An expired request in a real Chromium, against real daphne and a real Celery worker: the
approver cannot approve it, and the requester sees why, live."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone
from django_tenants.utils import tenant_context

from actions.models import OutboundMessage
from chat.models import PendingAction
from chat.selectors import action_approvers
from tests.browser.conftest import SignIn
from tests.browser.test_chat_ui import _pending_sms_for_emma, school  # noqa: F401 - fixture
from tests.e2e.conftest import TenantSetup
from tests.e2e.processes import Process

pytestmark = [pytest.mark.e2e, pytest.mark.browser]


def test_an_expired_request_cannot_be_approved_and_the_requester_sees_why(
    sign_in: SignIn,
    school: TenantSetup,  # noqa: F811
    worker: Process,
    screenshot_dir: Path,
) -> None:
    staff, approver = _pending_sms_for_emma(sign_in, school)
    staff_card = staff.locator("[data-testid=action-card]")
    with tenant_context(school.tenant):
        action = PendingAction.objects.get()
        who = str(action_approvers(action=action))
    assert staff_card.locator("[data-testid=approvers]").inner_text() == f"Who can approve: {who}"
    assert "Expires in" in staff_card.locator("[data-testid=expires]").inner_text()

    # A day passes without a decision (the expiry job has not run yet).
    with tenant_context(school.tenant):
        day_ago = timezone.now() - timedelta(hours=24, seconds=1)
        PendingAction.objects.filter(pk=action.pk).update(
            created_at=day_ago, expires_at=day_ago + timedelta(hours=24)
        )
    inbox_card = approver.locator("#inbox-list [data-testid=action-card]")
    inbox_card.locator("[data-testid=card-summary]").click()  # unfold the one-line card
    inbox_card.get_by_role("button", name="Approve").click()

    expired_in_inbox = approver.locator(
        "#inbox-list [data-testid=action-card][data-status=expired]"
    )
    expired_in_inbox.wait_for()
    assert "can no longer be approved" in expired_in_inbox.inner_text()
    expired = staff.locator("[data-testid=action-card][data-status=expired]")
    expired.wait_for()  # live over the WebSocket: the requester's page was never reloaded
    assert "Expired" in expired.locator("[data-testid=action-status]").inner_text()
    assert "Expired after 24 h without a decision" in expired.inner_text()
    assert expired.locator("[data-testid=withdraw]").count() == 0
    reply = staff.locator("[data-testid=message-assistant]").last
    reply.wait_for(timeout=60_000)
    assert (
        "The request to send an SMS to Emma Wilson expired after 24 h without a decision."
        in reply.inner_text()
    )
    staff.screenshot(path=str(screenshot_dir / "expired-request.png"))
    with tenant_context(school.tenant):
        assert PendingAction.objects.get().status == PendingAction.Status.EXPIRED
        assert OutboundMessage.objects.count() == 0
