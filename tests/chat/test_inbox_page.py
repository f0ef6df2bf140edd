"""The approvals inbox at scale, as the server renders it: one-line cards with words for people,
the approver's own requests apart and out of the badge, a bounded list that says what it left
out, and times in the tenant's time zone. (tests/browser/test_inbox.py drives it in Chromium.)"""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django_tenants.utils import tenant_context

from actions.models import ToolPolicy
from chat.models import Conversation, PendingAction
from chat.pending_actions import arguments_hash
from tenants.models import Tenant
from tenants.roles import APPROVER, STAFF
from tests.conftest import host_client
from tests.tenants.factories import http_login, make_user

SMS = {"to": ["Kim Minji", "Lee Jun", "Emma Wilson", "Park Jisoo"], "body": "Bus is late"}


def _logged_in(tenant: Tenant, user: User) -> Client:
    client = host_client(tenant)
    assert http_login(client, user.get_username())
    return client


def _pending(
    requested_by: User, *, tool: str = "send_sms", arguments: dict | None = None
) -> PendingAction:
    arguments = arguments or SMS
    return PendingAction.objects.create(
        conversation=Conversation.objects.create(user=requested_by),
        tool_call_id=f"call_{uuid.uuid4().hex[:8]}",
        tool=tool,
        arguments=arguments,
        arguments_hash=arguments_hash(arguments),
        description="SMS to 4 contacts: 'Bus is late'",
        requested_by=requested_by,
    )


@pytest.fixture
def staff(tenant_a: Tenant) -> User:
    return make_user(tenant_a, "sam", role=STAFF)


@pytest.fixture
def approver(tenant_a: Tenant) -> User:
    return make_user(tenant_a, "april", role=APPROVER)


def _card(page: str, action: PendingAction) -> str:
    start = page.index(f'id="action-{action.id}"')
    return page[start : page.index("</section>", start)]


def test_a_card_is_one_line_with_the_tools_label_who_asked_recipients_text_and_age(
    tenant_a: Tenant, staff: User, approver: User
) -> None:
    with tenant_context(tenant_a):
        action = _pending(staff)
        PendingAction.objects.filter(pk=action.pk).update(
            created_at=datetime.now(UTC) - timedelta(minutes=12)
        )

    card = _card(_logged_in(tenant_a, approver).get("/approvals/").content.decode(), action)

    summary = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", card.split("</summary>")[0]))
    assert (
        "Send SMS sam to Kim Minji, Lee Jun +2 more · 4 recipients Bus is late 12 min ago"
        in summary
    )
    assert '<details class="unfold">' in card  # folded until the approver opens it
    assert "send_sms" not in summary and "Exact arguments" not in card
    assert 'data-testid="pick"' in card


def test_the_approvers_own_request_waits_for_others_and_is_not_in_the_badge(
    tenant_a: Tenant, staff: User, approver: User
) -> None:
    with tenant_context(tenant_a):
        theirs = _pending(staff)
        own = _pending(approver)
    client = _logged_in(tenant_a, approver)

    page = client.get("/approvals/").content.decode()

    decide, waiting = page.split('<div id="waiting-list"')
    assert f'id="action-{theirs.id}"' in decide and f'id="action-{own.id}"' not in decide
    assert f'id="action-{own.id}"' in waiting
    assert 'data-testid="withdraw"' in _card(page, own)
    assert 'data-testid="pick"' not in _card(page, own)
    assert client.get("/approvals/count/").json() == {"pending": 1}
    assert re.search(r'data-testid="inbox-count"[^>]*>\s*1<', page)


def test_an_own_request_of_a_tool_allowing_self_approval_stays_in_the_inbox(
    tenant_a: Tenant, approver: User
) -> None:
    with tenant_context(tenant_a):
        ToolPolicy.objects.create(tool_name="send_sms", allow_self_approval=True)
        own = _pending(approver)
    client = _logged_in(tenant_a, approver)

    decide = client.get("/approvals/").content.decode().split('<div id="waiting-list"')[0]

    assert f'id="action-{own.id}"' in decide
    assert client.get("/approvals/count/").json() == {"pending": 1}


def test_the_list_is_bounded_and_says_how_many_more_wait(
    tenant_a: Tenant, staff: User, approver: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("chat.selectors.INBOX_LIMIT", 2)
    with tenant_context(tenant_a):
        oldest = _pending(staff)
        _pending(staff), _pending(staff)

    page = _logged_in(tenant_a, approver).get("/approvals/").content.decode()

    assert page.count('data-testid="action-card"') == 2
    assert f'id="action-{oldest.id}"' not in page
    assert re.search(
        r"1 older request also waits, not listed here:\s+this page shows the newest 2", page
    )


def test_times_and_a_reminders_moment_read_in_the_tenants_time_zone(
    tenant_a: Tenant, staff: User, approver: User
) -> None:
    tenant_a.time_zone = "Asia/Seoul"
    tenant_a.save()
    reminder = {
        "due_at": "2030-11-25T00:00:00Z",
        "tool": "send_sms",
        "arguments": {"to": ["Kim Minji"], "body": "Trip tomorrow"},
    }
    with tenant_context(tenant_a):
        action = _pending(staff, tool="schedule_reminder", arguments=reminder)
        PendingAction.objects.filter(pk=action.pk).update(
            created_at=datetime(2030, 11, 24, 23, 30, tzinfo=UTC)
        )

    card = _card(_logged_in(tenant_a, approver).get("/approvals/").content.decode(), action)

    assert "Schedule reminder" in card
    assert "Send SMS to Kim Minji on Mon 25 Nov 2030, 09:00 (Asia/Seoul)" in card
    assert "That is Mon 25 Nov 2030, 09:00 (Asia/Seoul)." in card
    assert ">Mon 25 Nov, 08:30</time>" in card  # asked at 23:30 UTC, 08:30 in Seoul
    assert '<option value="send_sms" selected>Send SMS</option>' in card


def test_a_refreshed_inbox_card_comes_back_unfolded_when_asked(
    tenant_a: Tenant, staff: User, approver: User
) -> None:
    with tenant_context(tenant_a):
        action = _pending(staff)
    client = _logged_in(tenant_a, approver)

    folded = client.get(f"/actions/{action.id}/card/?inbox=1").content.decode()
    unfolded = client.get(f"/actions/{action.id}/card/?inbox=1&open=1").content.decode()

    assert '<details class="unfold">' in folded
    assert '<details class="unfold" open>' in unfolded


def test_another_tenants_approver_sees_none_of_these_cards_nor_counts_them(
    tenant_a: Tenant, tenant_b: Tenant, staff: User
) -> None:
    with tenant_context(tenant_a):
        action = _pending(staff)
    bea = make_user(tenant_b, "bea", role=APPROVER)
    client = _logged_in(tenant_b, bea)

    page = client.get("/approvals/").content.decode()

    assert str(action.id) not in page
    assert client.get(f"/actions/{action.id}/card/?inbox=1&open=1").status_code == 404
    assert client.get("/approvals/count/").json() == {"pending": 0}
