"""The chat page as staff live in it, in a real Chromium against real daphne and a real Celery
worker (offline model): a long conversation list, citations that open their document at the
passage, rename and delete, and a message box that never cuts what was pasted."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone
from django_tenants.utils import tenant_context

from chat.models import Conversation, Message
from knowledge.indexing import kb_reindex
from knowledge.services import document_create_from_text
from tests.browser.conftest import SignIn
from tests.e2e.conftest import TenantSetup
from tests.e2e.processes import Process

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

# The worker's first turn loads the embedding model; on a busy CI machine that takes a while.
REPLY_WAIT_MS = 180_000

TOPICS = [
    "Parking", "Library", "Canteen", "Uniform", "Fire drills", "Lockers", "Printing",
    "Wi-Fi", "Lost property", "Visitors", "Field trips", "Sports day",
]  # fmt: skip
# The cited section comes after a screenful of others, so "at the passage" means scrolled to it.
HANDBOOK = (
    "# Staff handbook\n\n"
    + "".join(
        f"## {topic}\n\nThe {topic.lower()} rules are posted in the staff room and on the "
        f"intranet; questions about {topic.lower()} go to the office manager.\n\n"
        for topic in TOPICS
    )
    + "## Annual leave\n\n"
    "Every member of staff receives twenty days of paid annual leave each calendar year. "
    "Leave requests go to the head of department at least two weeks in advance, and unused "
    "leave of up to five days may be carried over into the next year. "
    "Leave taken during school terms needs the head teacher's approval as well.\n\n"
    "## Sick leave\n\n"
    "Staff who are ill phone the office before 8am and send a doctor's note after three days."
)
SUBJECTS = [
    "Bus timetable", "Parents evening", "Exam rooms", "Timetable swap", "Trip consent",
    "Lunch menu", "Supply cover", "Sports kit", "Reading week", "Report cards",
]  # fmt: skip


@pytest.fixture
def busy_school(alpha: TenantSetup) -> TenantSetup:
    """A handbook, and 60 earlier conversations of the staff member spread over two months."""
    now = timezone.now()
    with tenant_context(alpha.tenant):
        document_create_from_text(title="Staff handbook", text=HANDBOOK)
        kb_reindex()
        staff = alpha.staff.user
        for n in range(60):
            conversation = Conversation.objects.create(
                user=staff, title=f"{SUBJECTS[n % len(SUBJECTS)]} ({n + 1})"
            )
            Message.objects.create(
                conversation=conversation, role=Message.Role.USER, content=conversation.title
            )
            # Two today, two yesterday, a few this week, the rest older.
            days = [0, 0, 1, 1, 3, 4, 6][n] if n < 7 else 8 + n
            Conversation.objects.filter(pk=conversation.pk).update(
                updated_at=now - timedelta(days=days, minutes=n)
            )
    return alpha


def _ask(page: Any, text: str) -> None:
    page.get_by_label("Message").fill(text)
    page.get_by_label("Message").press("Enter")


def _in_viewport(page: Any, locator: Any) -> bool:
    box = locator.bounding_box()
    viewport = page.viewport_size
    return (
        box is not None
        and box["y"] >= 0
        and box["y"] + min(box["height"], 40) <= viewport["height"]
    )


def test_sending_with_60_conversations_in_the_sidebar_keeps_the_header_and_reply_in_view(
    sign_in: SignIn, busy_school: TenantSetup, worker: Process
) -> None:
    page = sign_in(busy_school, "staff")
    assert page.locator("[data-testid=history] li").count() == 60

    _ask(page, "How many days of annual leave do staff get?")
    reply = page.locator("[data-testid=message-assistant]").last
    reply.wait_for(timeout=REPLY_WAIT_MS)

    assert page.evaluate("window.scrollY") == 0
    assert page.evaluate("document.scrollingElement.scrollHeight <= window.innerHeight")
    assert _in_viewport(page, page.locator(".topbar"))
    assert _in_viewport(page, reply) and "twenty days" in reply.inner_text()
    assert _in_viewport(page, page.get_by_label("Message"))
    # The list keeps its own scrollbar: it is longer than its pane, and scrolls without the page.
    history = page.locator(".history")
    assert history.evaluate("el => el.scrollHeight > el.clientHeight")
    history.evaluate("el => el.scrollTo(0, el.scrollHeight)")
    assert page.evaluate("window.scrollY") == 0
    headings = page.locator(".history-group").all_text_contents()
    assert headings == ["Today", "Yesterday", "Previous 7 days", "Older"]


def test_a_citation_shows_its_title_and_a_whole_word_snippet_and_opens_the_document_at_it(
    sign_in: SignIn, busy_school: TenantSetup, worker: Process, screenshot_dir: Path
) -> None:
    page = sign_in(busy_school, "staff")
    _ask(page, "How many days of annual leave do staff get?")
    reply = page.locator("[data-testid=message-assistant]").last
    reply.wait_for(timeout=REPLY_WAIT_MS)

    chip = reply.locator("[data-testid=citation]").first
    assert "Staff handbook" in chip.inner_text()
    chip.click()
    dialog = page.locator("#source-dialog")
    snippet = dialog.locator("blockquote").inner_text()
    assert snippet.startswith("Every member of staff") or "twenty days" in snippet
    assert snippet.endswith("…")
    assert snippet[:-1].split()[-1] in HANDBOOK.split(), "the last word is a whole word"
    page.screenshot(path=str(screenshot_dir / "chat.png"))

    dialog.get_by_role("link", name="Open the document at this passage").click()
    page.wait_for_url(re.compile(r"/kb/documents/\d+/\?chunk=\d+#chunk-\d+$"))
    passage = page.locator("[data-testid=cited-passage]")
    assert "twenty days" in passage.inner_text()
    assert passage.evaluate("el => el.matches(':target')")
    page.wait_for_function(
        "(() => { const r = document.querySelector('mark.cited').getBoundingClientRect();"
        " return r.top >= 0 && r.top < window.innerHeight; })()"
    )
    assert page.evaluate("window.scrollY") > 0, "the page scrolled down to the passage"
    assert page.locator("h1").inner_text() == "Staff handbook"
    page.screenshot(path=str(screenshot_dir / "document-view.png"))


def test_a_paste_over_the_limit_stays_whole_and_says_how_much_to_cut(
    sign_in: SignIn, busy_school: TenantSetup
) -> None:
    page = sign_in(busy_school, "staff")
    box = page.get_by_label("Message")
    box.fill("Hello")
    assert page.locator("[data-testid=char-count]").inner_text() == "5 / 4,000"

    box.fill("")
    box.focus()
    page.keyboard.insert_text("word " * 820)  # 4,100 characters, as a paste arrives
    page.get_by_role("button", name="Send").click()

    assert len(box.input_value()) == 4100, "nothing was cut"
    warning = page.locator("#composer-error")
    assert warning.is_visible()
    assert "4,099 characters; the most is 4,000" in warning.inner_text()
    assert "Shorten it by 99 characters" in warning.inner_text()
    assert page.locator("[data-testid=char-count].over").is_visible()
    assert page.locator("#thread [data-testid=message-user]").count() == 0, "nothing was sent"

    page.keyboard.press("Control+End")  # the refused send left the cursor in the box
    for _ in range(100):
        page.keyboard.press("Backspace")
    assert warning.is_hidden()


def test_the_owner_renames_and_deletes_a_conversation_from_its_page(
    sign_in: SignIn, busy_school: TenantSetup
) -> None:
    page = sign_in(busy_school, "staff")
    with tenant_context(busy_school.tenant):
        newest = Conversation.objects.filter(user=busy_school.staff.user).first()
    assert newest is not None
    page.goto(page.url + f"c/{newest.uuid}/")

    page.get_by_role("button", name="Rename").click()
    page.get_by_label("Conversation title").fill("   ")
    page.get_by_role("button", name="Save").click()
    error = page.locator("[data-testid=conversation-error]")
    error.wait_for()
    assert "The title is empty" in error.inner_text()
    page.get_by_label("Conversation title").fill("Coach times for Friday")
    page.get_by_role("button", name="Save").click()
    page.get_by_role("heading", name="Coach times for Friday").wait_for()
    current = page.locator("[data-testid=history] a[aria-current=page]")
    assert current.inner_text() == "Coach times for Friday"

    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Delete").click()
    page.wait_for_url(re.compile(r":\d+/$"))
    assert page.locator("[data-testid=history] li").count() == 59
    assert "Coach times for Friday" not in page.locator("[data-testid=history]").inner_text()
    assert page.goto(page.url + f"c/{newest.uuid}/").status == 404
    assert "Page not found" in page.locator("h1").inner_text()
