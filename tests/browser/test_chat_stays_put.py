"""The chat page stays put (issue 29, "Chat that stays put"), in a real Chromium against real
daphne and a real Celery worker (offline model): the conversation list keeps its place, its
times are true, rename and delete show when they can be used, and messages can be copied,
regenerated and edited into a new message."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone
from django_tenants.utils import tenant_context

from chat.models import Conversation, Message
from tests.browser.conftest import SignIn
from tests.browser.test_chat_page import REPLY_WAIT_MS, busy_school  # noqa: F401 - a fixture
from tests.e2e.conftest import TenantSetup
from tests.e2e.processes import Process

pytestmark = [pytest.mark.e2e, pytest.mark.browser]


def _ask(page: Any, text: str) -> None:
    page.get_by_label("Message").fill(text)
    page.get_by_label("Message").press("Enter")


def _user_messages(page: Any) -> list[str]:
    bodies = page.locator("[data-testid=message-user] .msg-body").all_inner_texts()
    return [text.strip() for text in bodies]


def test_opening_a_conversation_far_down_the_list_keeps_the_list_in_place_and_highlights_it(
    sign_in: SignIn,
    busy_school: TenantSetup,  # noqa: F811
    screenshot_dir: Path,
) -> None:
    page = sign_in(busy_school, "staff")
    history = page.locator(".history")
    history.evaluate("el => el.scrollTo(0, el.scrollHeight)")
    far = page.locator("[data-testid=history] li a").last
    title = far.inner_text()

    far.click()
    page.wait_for_url("**/c/*/")

    current = page.locator("[data-testid=history] a[aria-current=page]")
    assert current.inner_text() == title
    assert history.evaluate("el => el.scrollTop") > 0, "the list was not sent back to its top"
    assert current.evaluate(
        "el => { const pane = el.closest('.history').getBoundingClientRect();"
        " const r = el.getBoundingClientRect();"
        " return r.top >= pane.top && r.bottom <= pane.bottom; }"
    ), "the open conversation is in sight in the list"
    highlight = current.evaluate("el => getComputedStyle(el.closest('li')).backgroundColor")
    assert highlight not in ("rgba(0, 0, 0, 0)", "transparent"), "the open one is highlighted"
    page.screenshot(path=str(screenshot_dir / "chat-60-conversations.png"))


def test_the_list_says_how_long_ago_each_conversation_changed(
    sign_in: SignIn,
    busy_school: TenantSetup,  # noqa: F811
) -> None:
    with tenant_context(busy_school.tenant):
        newest = Conversation.objects.filter(user=busy_school.staff.user).first()
        assert newest is not None
        Conversation.objects.filter(pk=newest.pk).update(
            updated_at=timezone.now() - timedelta(seconds=20)
        )
    page = sign_in(busy_school, "staff")
    times = page.locator("[data-testid=history] time").all_inner_texts()

    assert times[0] == "just now", "not '0 minutes ago' for something changed seconds ago"
    assert "0 minutes ago" not in times
    assert times[2].startswith("1 day") and times[2].endswith(" ago")
    assert times[-1].endswith(" ago") and ("week" in times[-1] or "month" in times[-1])


def test_the_rename_form_stays_hidden_until_rename_is_clicked(
    sign_in: SignIn,
    busy_school: TenantSetup,  # noqa: F811
) -> None:
    page = sign_in(busy_school, "staff")
    page.locator("[data-testid=history] li a").first.click()
    page.wait_for_url("**/c/*/")

    assert page.locator("[data-testid=rename-form]").is_hidden()
    assert page.get_by_role("button", name="Save").is_hidden()
    page.get_by_role("button", name="Rename").click()
    assert page.locator("[data-testid=rename-form]").is_visible()
    assert page.get_by_role("button", name="Delete").is_hidden()
    page.get_by_role("button", name="Cancel").click()
    assert page.locator("[data-testid=rename-form]").is_hidden()
    assert page.get_by_role("button", name="Rename").is_visible()


def test_a_new_chat_gets_rename_and_delete_without_a_reload(
    sign_in: SignIn, alpha: TenantSetup, worker: Process
) -> None:
    page = sign_in(alpha, "staff")
    assert page.get_by_role("button", name="Rename").is_hidden()
    assert page.get_by_role("button", name="Delete").is_hidden()

    _ask(page, "Hello there")
    page.wait_for_url("**/c/*/")
    page.get_by_role("button", name="Rename").wait_for()
    page.get_by_role("button", name="Rename").click()
    page.get_by_label("Conversation title").fill("Greetings")
    page.get_by_role("button", name="Save").click()
    page.get_by_role("heading", name="Greetings").wait_for()
    with tenant_context(alpha.tenant):
        assert Conversation.objects.get(user=alpha.staff.user).title == "Greetings"


def test_a_reply_is_copied_regenerated_and_a_question_edited_into_a_new_message(
    sign_in: SignIn, alpha: TenantSetup, worker: Process
) -> None:
    page = sign_in(alpha, "staff")
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    _ask(page, "Hello there")
    reply = page.locator("[data-testid=message-assistant]").last
    reply.wait_for(timeout=REPLY_WAIT_MS)

    reply.get_by_role("button", name="Copy").click()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.strip() == reply.locator(".msg-body").inner_text().strip()
    reply.get_by_role("button", name="Copied").wait_for()

    reply.get_by_role("button", name="Regenerate").click()
    page.locator("[data-testid=message-assistant]").nth(1).wait_for(timeout=REPLY_WAIT_MS)
    assert _user_messages(page) == ["Hello there", "Hello there"]

    question = page.locator("[data-testid=message-user]").first
    question.get_by_role("button", name="Edit").click()
    box = page.get_by_label("Message")
    assert box.input_value() == "Hello there"
    box.fill("Hello again")
    box.press("Enter")
    page.locator("[data-testid=message-assistant]").nth(2).wait_for(timeout=REPLY_WAIT_MS)

    # Edit-and-resend sends a new message: the history keeps what was asked before.
    assert _user_messages(page) == ["Hello there", "Hello there", "Hello again"]
    with tenant_context(alpha.tenant):
        asked = Message.objects.filter(
            conversation__user=alpha.staff.user, role=Message.Role.USER
        ).order_by("created_at")
        assert [m.content for m in asked] == ["Hello there", "Hello there", "Hello again"]
