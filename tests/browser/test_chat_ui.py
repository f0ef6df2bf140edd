"""Staff chat and approvals in a real Chromium, against real daphne and a real Celery worker,
with the offline model answering (the default when no LLM endpoint is configured)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django_tenants.utils import tenant_context
from playwright.sync_api import expect

from actions.models import Contact, ContactGroup, OutboundMessage
from chat.models import Message, PendingAction
from knowledge.indexing import kb_reindex
from knowledge.services import document_create_from_text
from tests.browser.conftest import SignIn
from tests.e2e.conftest import TenantSetup
from tests.e2e.processes import Process

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

HANDBOOK = (
    "# Staff handbook\n\n"
    "## Annual leave\n\n"
    "Every member of staff receives twenty days of paid annual leave each calendar year. "
    "Leave requests go to the head of department at least two weeks in advance, and unused "
    "leave of up to five days may be carried over into the next year. "
    "Leave taken during school terms needs the head teacher's approval as well.\n\n"
    "## Sick leave\n\n"
    "Staff who are ill phone the office before 8am and send a doctor's note after three days."
)
WATCHER = """
(() => {
  window.__renders = [];
  const thread = document.querySelector('#thread');
  new MutationObserver(() => {
    const bubble = thread.querySelector('.msg.streaming .msg-body');
    if (bubble) window.__renders.push(bubble.textContent);
  }).observe(thread, { childList: true, subtree: true, characterData: true });
})()
"""


@pytest.fixture
def school(alpha: TenantSetup) -> TenantSetup:
    with tenant_context(alpha.tenant):
        document_create_from_text(title="Staff handbook", text=HANDBOOK)
        kb_reindex()
        group = ContactGroup.objects.create(name="Parents")
        for index, name in enumerate(["Kim Minji", "Lee Jun"]):
            contact = Contact.objects.create(name=name, phone=f"+1202555010{index}")
            contact.groups.add(group)
    return alpha


def _ask(page: Any, text: str) -> None:
    page.get_by_label("Message").fill(text)
    page.get_by_label("Message").press("Enter")


def test_a_knowledge_answer_streams_in_with_citations_and_survives_a_reload(
    sign_in: SignIn, school: TenantSetup, worker: Process
) -> None:
    page = sign_in(school, "staff")
    page.evaluate(WATCHER)

    _ask(page, "How many days of annual leave do staff get?")
    reply = page.locator("[data-testid=message-assistant]").last
    reply.wait_for()

    partial_renders = {text for text in page.evaluate("window.__renders") if text.strip()}
    assert len(partial_renders) >= 2, "the reply grows on screen before it is done"
    assert "twenty days" in reply.inner_text()
    page.get_by_role("button", name="Source 1: Staff handbook").click()
    assert "twenty days" in page.locator("#source-dialog").inner_text()
    page.get_by_role("button", name="Close").click()

    # Mid-stream reload: the page comes back, catches up and shows the finished reply once.
    _ask(page, "How do I request annual leave?")
    page.locator(".msg.streaming").wait_for()
    page.reload()
    page.locator("[data-testid=message-assistant]").nth(1).wait_for(timeout=60_000)
    page.wait_for_function("!document.querySelector('.msg.streaming')")
    with tenant_context(school.tenant):
        second = Message.objects.filter(role=Message.Role.ASSISTANT).order_by("created_at").last()
    assert second is not None
    shown = page.locator(f"[data-message='{second.uuid}']")
    assert shown.count() == 1
    first_sentence = second.content.split(" [")[0]
    assert "leave" in first_sentence and first_sentence in shown.inner_text()
    assert page.locator("[data-testid=message-assistant]").count() == 2


def test_a_second_tab_on_the_conversation_shows_the_question_as_it_is_sent_and_the_reply(
    sign_in: SignIn, school: TenantSetup, worker: Process
) -> None:
    first = sign_in(school, "staff")
    _ask(first, "How many days of annual leave do staff get?")
    first.locator("[data-testid=message-assistant]").wait_for()
    second = first.context.new_page()  # the same person, another tab
    second.goto(first.url)
    second.locator("[data-testid=connection][data-state=connected]").wait_for()

    _ask(first, "How do I request annual leave?")

    question = second.locator("[data-testid=message-user]").nth(1)
    question.wait_for()
    # The text itself, not the message's Copy / Edit buttons.
    assert question.locator(".msg-body").inner_text().strip() == "How do I request annual leave?"
    with tenant_context(school.tenant):
        asked = Message.objects.get(content="How do I request annual leave?")
    assert question.get_attribute("data-message") == str(asked.uuid)
    for page in (first, second):
        page.locator("[data-testid=message-assistant]").nth(1).wait_for(timeout=60_000)
        page.wait_for_function("!document.querySelector('.msg.streaming')")
        # Each tab shows each message once, the question above its reply.
        assert page.locator("[data-testid=message-user]").count() == 2
        assert page.locator("[data-testid=message-assistant]").count() == 2
        order = page.evaluate(
            "[...document.querySelectorAll('#thread .msg')].map((m) => m.dataset.testid)"
        )
        assert order == ["message-user", "message-assistant"] * 2
    with tenant_context(school.tenant):
        reply = Message.objects.get(run_id=asked.uuid, role=Message.Role.ASSISTANT)
    assert second.locator(f"[data-message='{reply.uuid}']").count() == 1


def test_an_approver_edits_and_approves_an_sms_live_and_the_staff_card_says_sent_to_all(
    sign_in: SignIn, school: TenantSetup, worker: Process, screenshot_dir: Path
) -> None:
    approver = sign_in(school, "approver")
    approver.goto(approver.url.rstrip("/") + "/approvals/")
    approver.locator("[data-testid=connection][data-state=connected]").wait_for()
    staff = sign_in(school, "staff")

    _ask(staff, "Send an SMS to Parents saying The bus is 10 minutes late")
    staff_card = staff.locator("[data-testid=action-card]")
    staff_card.wait_for()
    assert staff_card.locator("[data-testid=waiting]").is_visible()
    assert staff_card.locator("[data-testid=approve]").count() == 0
    staff_card.screenshot(path=str(screenshot_dir / "pending-card.png"))

    inbox_card = approver.locator("#inbox-list [data-testid=action-card]")
    inbox_card.wait_for()  # arrived over the WebSocket: the inbox was never reloaded
    # The badge asks the server for the count a moment after the card arrives (debounced).
    expect(approver.locator("[data-testid=inbox-count]")).to_have_text("1")
    # The inbox card is one line until opened (docs/web.md); opening it shows the form.
    inbox_card.locator("[data-testid=card-summary]").click()
    # A bad edit is refused with the reason, in the card, and nothing is lost.
    inbox_card.get_by_label("To", exact=True).fill("Nobody We Know")
    inbox_card.get_by_role("button", name="Approve").click()
    problem = inbox_card.locator("form.decide .form-error")
    problem.wait_for()
    assert "Nobody We Know" in problem.inner_text()
    assert inbox_card.get_attribute("data-status") == "pending"

    inbox_card.get_by_label("To", exact=True).fill("Parents")
    inbox_card.get_by_label("Body", exact=True).fill("The bus is 20 minutes late, sorry")
    inbox_card.get_by_role("button", name="Approve").click()

    # An edit is a counter-proposal (docs/web.md, "Four eyes on the final text"): it comes
    # back to the requester's open page, live, and nothing is sent until they confirm it.
    confirm = staff_card.get_by_test_id("confirm")
    confirm.wait_for()
    inbox_card.get_by_test_id("confirmation-wait").wait_for()
    assert "to confirm your edit" in inbox_card.get_by_test_id("confirmation-wait").inner_text()
    with tenant_context(school.tenant):
        assert OutboundMessage.objects.count() == 0
    confirm.click()

    staff.locator("[data-testid=action-card][data-status=executed]").wait_for(timeout=60_000)
    # Executed means queued; the card says so only once each parent's message has gone.
    staff_card.locator("[data-testid=action-status]").filter(has_text="Sent to 2 of 2").wait_for()
    with tenant_context(school.tenant):
        bodies = set(OutboundMessage.objects.values_list("body", flat=True))
        action = PendingAction.objects.get()
    assert bodies == {"The bus is 20 minutes late, sorry"}
    assert action.decided_by_id == school.approver.user.pk


def _pending_sms_for_emma(sign_in: SignIn, school: TenantSetup) -> tuple[Any, Any]:
    """An approver watching the inbox, and staff whose SMS to Emma Wilson waits there."""
    with tenant_context(school.tenant):
        Contact.objects.create(name="Emma Wilson", phone="+12025550111")
    approver = sign_in(school, "approver")
    approver.goto(approver.url.rstrip("/") + "/approvals/")
    approver.locator("[data-testid=connection][data-state=connected]").wait_for()
    staff = sign_in(school, "staff")
    _ask(staff, "Can you text Emma that class moved to 3pm?")
    staff_card = staff.locator("[data-testid=action-card][data-status=pending]")
    staff_card.wait_for()
    assert "Emma Wilson" in staff_card.inner_text()  # "Emma" resolved to the one contact
    approver.locator("#inbox-list [data-testid=action-card][data-status=pending]").wait_for()
    return staff, approver


def _assert_withdrawn_everywhere(staff: Any, approver: Any, school: TenantSetup) -> None:
    inbox_card = approver.locator("#inbox-list [data-testid=action-card][data-status=withdrawn]")
    inbox_card.wait_for()  # live over the WebSocket: the inbox was never reloaded
    assert inbox_card.locator("[data-testid=approve]").count() == 0
    staff_card = staff.locator("[data-testid=action-card][data-status=withdrawn]")
    staff_card.wait_for()
    assert "Withdrawn" in staff_card.locator("[data-testid=action-status]").inner_text()
    assert staff_card.locator("[data-testid=withdraw]").count() == 0
    with tenant_context(school.tenant):
        assert PendingAction.objects.get().status == PendingAction.Status.WITHDRAWN
        assert OutboundMessage.objects.count() == 0


def test_cancel_that_withdraws_the_sms_and_the_approvers_card_turns_withdrawn_live(
    sign_in: SignIn, school: TenantSetup, worker: Process
) -> None:
    staff, approver = _pending_sms_for_emma(sign_in, school)

    _ask(staff, "cancel that")

    _assert_withdrawn_everywhere(staff, approver, school)
    reply = staff.locator("[data-testid=message-assistant]").last
    reply.wait_for()
    assert "withdrew that request" in reply.inner_text()


def test_the_withdraw_button_takes_back_the_sms_and_the_approver_sees_it_live(
    sign_in: SignIn, school: TenantSetup, worker: Process
) -> None:
    staff, approver = _pending_sms_for_emma(sign_in, school)

    staff.get_by_role("button", name="Withdraw").click()

    _assert_withdrawn_everywhere(staff, approver, school)


def test_a_question_between_two_people_offers_both_as_buttons_and_a_press_answers_it(
    sign_in: SignIn, school: TenantSetup, worker: Process, screenshot_dir: Path
) -> None:
    with tenant_context(school.tenant):
        Contact.objects.create(name="Emma Wilson", phone="+12025550111")
        Contact.objects.create(name="Emma Park", phone="+12025550112")
    staff = sign_in(school, "staff")

    _ask(staff, "could you text Emma that the library shuts at noon")
    asked = staff.locator("[data-testid=message-assistant]").last
    expect(asked.locator("[data-testid=choice]")).to_have_count(2)
    asked.screenshot(path=str(screenshot_dir / "choices.png"))
    asked.get_by_role("button", name="Emma Wilson").click()

    card = staff.locator("[data-testid=action-card][data-status=pending]")
    card.wait_for()
    assert "Emma Wilson" in card.inner_text() and "Emma Park" not in card.inner_text()
    expect(staff.locator("[data-testid=message-user]").last).to_contain_text("Emma Wilson")
    expect(asked.locator("[data-testid=choice]").first).to_be_hidden()  # no longer the latest


def test_staff_see_no_approve_button_and_a_forged_approve_is_refused(
    sign_in: SignIn, school: TenantSetup, worker: Process
) -> None:
    staff = sign_in(school, "staff")
    _ask(staff, "Send an SMS to Parents saying Lunch is at noon")
    card = staff.locator("[data-testid=action-card]")
    card.wait_for()
    action_id = card.get_attribute("data-action")

    assert card.locator("[data-testid=approve]").count() == 0
    assert staff.locator("[data-testid=inbox-link]").count() == 0
    forged = staff.evaluate(
        """async (id) => {
            const csrf = document.querySelector('#chat').dataset.csrf;
            const r = await fetch(`/api/actions/${id}/approve`, {
                method: 'POST', headers: {'Content-Type': 'application/json', 'X-CSRFToken': csrf},
                body: JSON.stringify({arguments: {to: ['Parents'], body: 'forged'}})});
            return {status: r.status, body: await r.json()};
        }""",
        action_id,
    )
    assert forged["status"] == 403 and forged["body"]["error"]["code"] == "forbidden"
    with tenant_context(school.tenant):
        assert PendingAction.objects.get().status == PendingAction.Status.PENDING
        assert OutboundMessage.objects.count() == 0


def test_the_chat_page_fits_a_phone_and_shows_tenant_and_model(
    sign_in: SignIn, school: TenantSetup
) -> None:
    page = sign_in(school, "staff", width=390, height=844)

    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.get_by_label("Message").is_visible()
    assert "Offline model" in page.locator("[data-testid=model-badge]").inner_text()
    assert school.tenant.name in page.locator(".topbar").inner_text()
    page.get_by_label("Message").fill("first line")
    page.get_by_label("Message").press("Shift+Enter")
    page.get_by_label("Message").type("second line")
    assert page.get_by_label("Message").input_value() == "first line\nsecond line"


def test_a_dropped_connection_is_shown_and_the_reply_is_caught_up_once(
    sign_in: SignIn, school: TenantSetup, worker: Process
) -> None:
    page = sign_in(school, "staff")
    _ask(page, "How many days of annual leave do staff get?")
    page.locator(".msg.streaming").wait_for()

    page.evaluate("countersign.connection.socket.close()")
    page.locator("[data-testid=connection][data-state=reconnecting]").wait_for()
    page.locator("[data-testid=connection][data-state=connected]").wait_for()
    reply = page.locator("[data-testid=message-assistant]")
    reply.wait_for(timeout=60_000)

    with tenant_context(school.tenant):
        stored = Message.objects.get(role=Message.Role.ASSISTANT)
    assert reply.count() == 1
    assert reply.get_attribute("data-message") == str(stored.uuid)
    assert stored.content.split(" [")[0] in reply.inner_text()
