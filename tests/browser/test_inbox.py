"""The approvals inbox at scale in a real Chromium, against real daphne and a real Celery worker:
one-line cards, filters, bulk approval executing each action once, the approver's own requests
apart from the badge, and decided cards leaving another approver's open inbox live."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone
from django_tenants.utils import tenant_context
from playwright.sync_api import expect

from actions.models import Contact, ContactGroup, OutboundMessage
from chat.models import ActionEvent, ActionSnooze, Conversation, PendingAction
from chat.pending_actions import pending_action_propose
from chat.tokens import api_token_create
from tenants.roles import APPROVER, STAFF, TENANT_ADMIN
from tests.browser.conftest import SignIn
from tests.e2e.conftest import Account, Api, TenantSetup
from tests.e2e.processes import Process
from tests.tenants.factories import make_user

pytestmark = [pytest.mark.e2e, pytest.mark.browser]


def _wait_for(condition: Callable[[], Any], timeout: float = 180.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"condition not met within {timeout}s")


@pytest.fixture
def school(alpha: TenantSetup) -> TenantSetup:
    with tenant_context(alpha.tenant):
        parents = ContactGroup.objects.create(name="Parents")
        for index, name in enumerate(["Kim Minji", "Lee Jun"]):
            contact = Contact.objects.create(name=name, phone=f"+1202555010{index}")
            contact.groups.add(parents)
        Contact.objects.create(name="Emma Wilson", phone="+12025550111")
    return alpha


def _request_sms(web: int, school: TenantSetup, account: Account, texts: list[str]) -> None:
    """Ask for each SMS in its own conversation over the HTTP API (the offline model proposes
    it, the worker runs the turn), and wait until every one waits for approval."""
    api = Api(web, school.host, account.token)
    with tenant_context(school.tenant):
        before = PendingAction.objects.filter(requested_by=account.user).count()
    for text in texts:
        assert api.post("/api/conversations/", {"text": text}).status_code == 202

    def all_pending() -> bool:
        with tenant_context(school.tenant):
            mine = PendingAction.objects.filter(requested_by=account.user)
            return mine.filter(status=PendingAction.Status.PENDING).count() == before + len(texts)

    # The first turn of a fresh worker loads the offline model: allow it time on a busy machine.
    _wait_for(all_pending, timeout=240)


def _open_inbox(page: Any, school: TenantSetup, web: int) -> None:
    page.goto(f"http://{school.host}:{web}/approvals/")
    page.locator("[data-testid=connection][data-state=connected]").wait_for()


def test_filtering_and_bulk_approving_five_requests_executes_each_exactly_once(
    sign_in: SignIn, school: TenantSetup, worker: Process, web: int
) -> None:
    teacher = make_user(school.tenant, "a-teacher", role=STAFF)
    with tenant_context(school.tenant):
        _, teacher_token = api_token_create(user=teacher, name="e2e")
    trips = [
        f"Send an SMS to Parents saying Trip money is due on Friday, reminder {n}" for n in range(5)
    ]
    _request_sms(web, school, school.staff, trips)
    _request_sms(
        web,
        school,
        Account(teacher, teacher_token),
        [
            "Send an SMS to Emma Wilson saying Trip photos are online",
            "Send an SMS to Parents saying Library books are due",
        ],
    )
    approver = sign_in(school, "approver")
    _open_inbox(approver, school, web)
    cards = approver.locator("#inbox-list [data-testid=action-card]")
    assert cards.count() == 7
    assert approver.locator("[data-testid=inbox-count]").inner_text() == "7"

    approver.get_by_test_id("filter-requester").select_option(school.staff.user.get_username())
    approver.get_by_test_id("filter-search").fill("trip")
    shown = approver.locator("#inbox-list [data-testid=action-card]:visible")
    assert shown.count() == 5
    assert approver.locator("[data-testid=shown-count]").inner_text() == "Showing 5 of 7"
    approver.get_by_label("Select all shown").check()
    approver.get_by_role("button", name="Approve 5 selected").click()

    # Each card says it was approved, then leaves the list, live; the teacher's two stay.
    expect(approver.locator("#inbox-list [data-testid=action-card]")).to_have_count(
        2, timeout=60_000
    )
    # One notice names each of the five requests decided, not just the last to leave.
    notice = approver.locator("[data-testid=inbox-notice]").inner_text()
    assert "Approved 5 requests:" in notice
    assert all(f"reminder {n}" in notice for n in range(5))

    def executed() -> list[PendingAction] | None:
        with tenant_context(school.tenant):
            done = list(
                PendingAction.objects.filter(
                    requested_by=school.staff.user, status=PendingAction.Status.EXECUTED
                )
            )
        return done if len(done) == 5 else None

    approved = _wait_for(executed)
    with tenant_context(school.tenant):
        per_action = Counter(OutboundMessage.objects.values_list("action_id", flat=True))
        runs = Counter(
            ActionEvent.objects.filter(kind=ActionEvent.Kind.EXECUTED).values_list(
                "action_id", flat=True
            )
        )
        still_waiting = PendingAction.objects.filter(requested_by=teacher)
        assert {a.status for a in still_waiting} == {PendingAction.Status.PENDING}
    assert per_action == {a.id: 2 for a in approved}  # two parents each, sent once
    assert runs == {a.id: 1 for a in approved}
    assert {a.decided_by_id for a in approved} == {school.approver.user.pk}


def test_the_approvers_own_requests_wait_for_others_and_stay_out_of_the_badge(
    sign_in: SignIn, school: TenantSetup, worker: Process, web: int
) -> None:
    _request_sms(web, school, school.staff, ["Send an SMS to Emma Wilson saying See you at 3"])
    _request_sms(web, school, school.approver, ["Send an SMS to Parents saying Choir is cancelled"])
    approver = sign_in(school, "approver")
    assert approver.locator("[data-testid=inbox-count]").inner_text() == "1"
    _open_inbox(approver, school, web)

    assert approver.locator("#inbox-list [data-testid=action-card]").count() == 1
    own = approver.locator("#waiting-list [data-testid=action-card]")
    assert own.count() == 1
    assert "Parents" in own.inner_text()
    assert own.locator("[data-testid=pick]").count() == 0  # not theirs to decide

    # Another request of their own arrives live: it joins "Waiting for others", not the badge.
    _request_sms(web, school, school.approver, ["Send an SMS to Emma Wilson saying Call me back"])
    own.nth(1).wait_for()
    assert approver.locator("#inbox-list [data-testid=action-card]").count() == 1
    expect(approver.locator("[data-testid=inbox-count]")).to_have_text("1")


def test_a_card_decided_by_one_approver_leaves_the_other_approvers_open_inbox(
    sign_in: SignIn, school: TenantSetup, worker: Process, web: int
) -> None:
    other = make_user(school.tenant, "a-approver2", role=APPROVER)
    _request_sms(web, school, school.staff, ["Send an SMS to Emma Wilson saying Lunch is at noon"])
    watching = sign_in(TenantSetup(school.tenant, school.staff, Account(other, "")), "approver")
    _open_inbox(watching, school, web)
    deciding = sign_in(school, "approver")
    _open_inbox(deciding, school, web)
    watched = watching.locator("#inbox-list [data-testid=action-card]")
    assert watched.count() == 1

    card = deciding.locator("#inbox-list [data-testid=action-card]")
    card.locator("[data-testid=card-summary]").click()
    card.get_by_role("button", name="Approve").click()

    notice = watching.locator("[data-testid=inbox-notice]")
    notice.wait_for(timeout=60_000)  # live over the WebSocket: this page was never reloaded
    assert notice.inner_text() == "Send SMS asked by a-staff was approved; it left the list."
    watched.wait_for(state="detached")
    assert watching.get_by_text("Nothing is waiting for approval.").is_visible()


def test_twenty_requests_stay_compact_and_one_unfolds_to_the_full_card(
    sign_in: SignIn, school: TenantSetup, web: int, screenshot_dir: Path
) -> None:
    teacher = make_user(school.tenant, "a-teacher", role=STAFF)
    requests: list[tuple[str, dict[str, Any]]] = [
        (
            "send_sms",
            {"to": ["Parents"], "body": "The 7:40 bus is 10 minutes late this morning."},
        ),
        (
            "send_sms",
            {"to": ["Emma Wilson"], "body": "Please call the office about Friday's pickup."},
        ),
        (
            "create_announcement",
            {
                "title": "Sports day",
                "body": "Sports day moves to Friday because of the rain; bring trainers.",
            },
        ),
        (
            "send_sms",
            {
                "to": ["Kim Minji", "Lee Jun", "Emma Wilson"],
                "body": "Trip money (12 EUR) is due on Thursday; pay at the office or online.",
            },
        ),
        (
            "send_sms",
            {"to": ["Parents"], "body": "Parents' evening is on 3 December from 17:00 to 20:00."},
        ),
    ]
    with tenant_context(school.tenant):
        for n in range(20):
            tool, arguments = requests[n % len(requests)]
            who = school.staff.user if n % 3 else teacher
            action = pending_action_propose(
                conversation=Conversation.objects.create(user=who),
                tool_call_id=f"call_{n}",
                tool=tool,
                arguments=arguments,
                requested_by_id=who.pk,
            )
            PendingAction.objects.filter(pk=action.pk).update(
                created_at=timezone.now() - timedelta(minutes=7 * n + 2)
            )
    approver = sign_in(school, "approver", height=1100)
    _open_inbox(approver, school, web)
    cards = approver.locator("#inbox-list [data-testid=action-card]")
    assert cards.count() == 20
    heights = [box["height"] for box in (cards.nth(i).bounding_box() for i in range(20)) if box]
    assert max(heights) < 60, "every card is one line until opened"

    assert cards.first.get_by_test_id("preview").is_visible()
    assert "recipient" in cards.first.get_by_test_id("recipient-count").inner_text()
    third = cards.nth(2)
    third.locator("[data-testid=card-summary]").focus()
    approver.keyboard.press("Enter")
    assert third.get_by_role("button", name="Approve").is_visible()
    assert third.get_by_label("Body", exact=True).input_value()
    assert "send_sms" not in approver.locator("#inbox-list").inner_text()
    approver.screenshot(path=str(screenshot_dir / "inbox.png"), full_page=True)


# -- when the network drops (docs/web.md, "When the network drops") ------------------------------


def _decisions(school: TenantSetup, kind: str) -> Counter[Any]:
    with tenant_context(school.tenant):
        return Counter(ActionEvent.objects.filter(kind=kind).values_list("action_id", flat=True))


def test_approve_with_the_network_down_says_so_and_retry_approves_once_with_the_same_key(
    sign_in: SignIn, school: TenantSetup, worker: Process, web: int
) -> None:
    _request_sms(web, school, school.staff, ["Send an SMS to Emma Wilson saying Bus is late"])
    approver = sign_in(school, "approver")
    _open_inbox(approver, school, web)
    keys: list[str] = []
    approver.on(
        "request",
        lambda r: keys.append(r.headers["idempotency-key"]) if r.url.endswith("/approve") else None,
    )
    held: list[Any] = []
    approver.route("**/api/actions/*/approve", lambda route: held.append(route))
    card = approver.locator("#inbox-list [data-testid=action-card]")
    card.locator("[data-testid=card-summary]").click()
    approve = card.get_by_test_id("approve")
    approve.click()

    # A slow answer shows progress; then the connection drops before any answer came.
    expect(approve).to_have_text("Approving…")
    expect(approve).to_be_disabled()
    _wait_for(lambda: held)
    held[0].abort("internetdisconnected")
    problem = card.locator("form.decide .form-error")
    expect(problem).to_contain_text("No answer from the server")
    expect(approve).to_have_text("Approve")
    expect(approve).to_be_enabled()  # never disabled for good
    approver.unroute("**/api/actions/*/approve")

    # Still offline (Chromium's own emulation): Retry fails the same way, and says so again.
    cdp = approver.context.new_cdp_session(approver)
    offline = {"latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}
    cdp.send("Network.emulateNetworkConditions", {"offline": True, **offline})
    card.get_by_test_id("retry").click()
    expect(card.get_by_test_id("retry")).to_be_visible()
    with tenant_context(school.tenant):
        assert PendingAction.objects.get().status == PendingAction.Status.PENDING

    cdp.send("Network.emulateNetworkConditions", {"offline": False, **offline})
    card.get_by_test_id("retry").click()
    expect(card.get_by_test_id("action-status")).not_to_have_text("Waiting for approval")

    def executed() -> bool:
        with tenant_context(school.tenant):
            return PendingAction.objects.get().status == PendingAction.Status.EXECUTED

    _wait_for(executed)
    assert list(_decisions(school, ActionEvent.Kind.APPROVED).values()) == [1]
    with tenant_context(school.tenant):
        assert OutboundMessage.objects.count() == 1
    assert len(keys) == 3 and len(set(keys)) == 1  # the first press and both retries


def test_bulk_approve_whose_answer_is_lost_is_retried_and_decides_each_request_once(
    sign_in: SignIn, school: TenantSetup, worker: Process, web: int
) -> None:
    texts = [f"Send an SMS to Parents saying Concert moved, note {n}" for n in range(3)]
    _request_sms(web, school, school.staff, texts)
    approver = sign_in(school, "approver")
    _open_inbox(approver, school, web)
    keys: list[str] = []

    def lose_the_answer(route: Any) -> None:
        # The server decides; the connection drops before its answer reaches the page.
        # (Chromium resolves *.localhost itself; Playwright's own fetch needs the address.)
        request = route.request
        keys.append(request.headers["idempotency-key"])
        route.fetch(
            url=request.url.replace(school.host, "127.0.0.1", 1),
            headers={**request.headers, "host": f"{school.host}:{web}"},
        )
        route.abort("connectionreset")

    approver.route("**/api/actions/decide", lose_the_answer)
    approver.get_by_label("Select all shown").check()
    approver.get_by_role("button", name="Approve 3 selected").click()

    notice = approver.get_by_test_id("inbox-notice")
    expect(notice).to_contain_text("No answer from the server")
    approver.unroute("**/api/actions/decide")
    approver.on(
        "request",
        lambda r: keys.append(r.headers["idempotency-key"]) if r.url.endswith("/decide") else None,
    )
    notice.get_by_test_id("retry").click()

    # The same key gets the first answer back: the notice names each request it decided.
    expect(notice).to_contain_text("Approved 3 requests:")
    for n in range(3):
        expect(notice).to_contain_text(f"Concert moved, note {n}")
    assert len(keys) == 2 and len(set(keys)) == 1

    def all_executed() -> bool:
        with tenant_context(school.tenant):
            statuses = PendingAction.objects.values_list("status", flat=True)
            return set(statuses) == {PendingAction.Status.EXECUTED}

    _wait_for(all_executed)
    approvals = _decisions(school, ActionEvent.Kind.APPROVED)
    assert len(approvals) == 3 and set(approvals.values()) == {1}
    with tenant_context(school.tenant):
        per_action = Counter(OutboundMessage.objects.values_list("action_id", flat=True))
    assert sorted(per_action.values()) == [2, 2, 2]  # two parents each, sent once


# -- filters that stay put, snooze with undo ----------------------------------------------------


def _propose_directly(school: TenantSetup, texts: list[str]) -> list[PendingAction]:
    """Pending SMS requests of a-staff, proposed without a turn (for pages that never decide)."""
    with tenant_context(school.tenant):
        return [
            pending_action_propose(
                conversation=Conversation.objects.create(user=school.staff.user),
                tool_call_id=f"call_{n}",
                tool="send_sms",
                arguments={"to": ["Emma Wilson"], "body": text},
                requested_by_id=school.staff.user.pk,
            )
            for n, text in enumerate(texts)
        ]


def test_filters_live_in_the_address_and_stay_when_their_last_card_leaves(
    sign_in: SignIn, school: TenantSetup, worker: Process, web: int
) -> None:
    teacher = make_user(school.tenant, "a-teacher", role=STAFF)
    with tenant_context(school.tenant):
        _, teacher_token = api_token_create(user=teacher, name="e2e")
    _request_sms(web, school, school.staff, ["Send an SMS to Emma Wilson saying Gym is closed"])
    _request_sms(
        web, school, Account(teacher, teacher_token), ["Send an SMS to Parents saying Bring boots"]
    )
    approver = sign_in(school, "approver")
    _open_inbox(approver, school, web)
    approver.get_by_test_id("filter-requester").select_option("a-teacher")
    approver.get_by_test_id("filter-search").fill("boots")
    expect(approver.get_by_test_id("shown-count")).to_have_text("Showing 1 of 2")
    assert "requester=a-teacher" in approver.url and "q=boots" in approver.url

    approver.reload()
    approver.locator("[data-testid=connection][data-state=connected]").wait_for()
    expect(approver.get_by_test_id("filter-requester")).to_have_value("a-teacher")
    expect(approver.get_by_test_id("filter-search")).to_have_value("boots")
    expect(approver.get_by_test_id("shown-count")).to_have_text("Showing 1 of 2")
    approver.goto(f"http://{school.host}:{web}/")
    approver.go_back()
    expect(approver.get_by_test_id("filter-requester")).to_have_value("a-teacher")

    # Another approver rejects the teacher's request: its card leaves, live; the filter stays.
    other = make_user(school.tenant, "a-approver2", role=APPROVER)
    with tenant_context(school.tenant):
        _, other_token = api_token_create(user=other, name="e2e")
        theirs = PendingAction.objects.get(requested_by=teacher)
    rejected = Api(web, school.host, other_token).post(f"/api/actions/{theirs.pk}/reject", {})
    assert rejected.status_code == 200
    expect(approver.locator("#inbox-list [data-testid=action-card]")).to_have_count(1)
    expect(approver.get_by_test_id("filter-requester")).to_have_value("a-teacher")
    expect(approver.get_by_test_id("no-match")).to_be_visible()
    assert "requester=a-teacher" in approver.url

    approver.get_by_test_id("clear-filters").click()
    expect(approver.get_by_test_id("shown-count")).to_have_text("Showing 1 of 1")
    assert "?" not in approver.url


def test_a_snoozed_request_can_be_undone_and_is_listed_under_snoozed(
    sign_in: SignIn, school: TenantSetup, web: int
) -> None:
    _propose_directly(school, ["Swimming is at 4 today", "The library closes early"])
    approver = sign_in(school, "approver")
    _open_inbox(approver, school, web)
    cards = approver.locator("#inbox-list [data-testid=action-card]")
    first = cards.filter(has_text="Swimming is at 4")
    first.locator("[data-testid=card-summary]").click()
    first.get_by_test_id("snooze-1h").click()

    notice = approver.get_by_test_id("inbox-notice")
    expect(notice).to_contain_text("Snoozed: Send SMS to Emma Wilson: “Swimming is at 4 today”")
    expect(first).to_be_hidden()
    expect(approver.get_by_test_id("inbox-count")).to_have_text("1")
    notice.get_by_test_id("undo").click()
    expect(first).to_be_visible()
    expect(approver.get_by_test_id("inbox-count")).to_have_text("2")
    with tenant_context(school.tenant):
        assert not ActionSnooze.objects.filter(until__gt=timezone.now()).exists()

    # Snoozed again (the card came back unfolded, as it was), it waits under "Snoozed by me",
    # also after a reload, until brought back.
    first.get_by_test_id("snooze-1h").click()
    expect(first).to_be_hidden()
    approver.get_by_test_id("filter-show").select_option("snoozed")
    expect(first).to_be_visible()
    expect(cards.filter(has_text="library")).to_be_hidden()
    approver.reload()
    expect(approver.get_by_test_id("filter-show")).to_have_value("snoozed")
    expect(approver.get_by_test_id("shown-count")).to_have_text("Showing 1 of 1")
    first.locator("[data-testid=card-summary]").click()
    assert "You snoozed this until" in first.get_by_test_id("snoozed-until").inner_text()
    first.get_by_test_id("unsnooze").click()
    expect(approver.get_by_test_id("empty-snoozed")).to_be_visible()
    approver.get_by_test_id("filter-show").select_option("")
    expect(approver.get_by_test_id("shown-count")).to_have_text("Showing 2 of 2")


def test_on_a_phone_the_first_requests_show_without_scrolling(
    sign_in: SignIn, school: TenantSetup, web: int, screenshot_dir: Path
) -> None:
    _propose_directly(school, [f"Choir practice moves to room {n}" for n in range(6)])
    phone = sign_in(school, "approver", width=390, height=844)
    _open_inbox(phone, school, web)

    first = phone.locator("#inbox-list [data-testid=action-card]").first.bounding_box()
    assert first is not None and first["y"] + first["height"] <= 844
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390  # nothing sideways
    phone.screenshot(path=str(screenshot_dir / "inbox-phone.png"))


def test_a_request_nobody_else_can_approve_is_flagged_to_its_requester_and_tenant_admins(
    sign_in: SignIn, school: TenantSetup, worker: Process, web: int
) -> None:
    # a-approver is the tenant's only approver: their own request has nobody else to decide it.
    _request_sms(web, school, school.approver, ["Send an SMS to Emma Wilson saying Staff meeting"])
    admin = make_user(school.tenant, "a-admin", role=TENANT_ADMIN)
    with tenant_context(school.tenant):
        conversation = PendingAction.objects.get().conversation.uuid

    requester = sign_in(school, "approver")
    requester.goto(f"http://{school.host}:{web}/c/{conversation}/")
    expect(requester.get_by_test_id("no-approver")).to_contain_text(
        "Nobody else can approve this; tenant admins were told"
    )
    assert requester.get_by_test_id("unapprovable").count() == 0  # admins' banner, not theirs

    tina = sign_in(TenantSetup(school.tenant, school.staff, Account(admin, "")), "approver")
    banner = tina.get_by_test_id("unapprovable")
    expect(banner).to_contain_text("1 request nobody else can approve")
    expect(banner.get_by_test_id("unapprovable-item")).to_contain_text("Staff meeting")
