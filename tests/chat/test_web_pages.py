"""The staff pages, rendered by the server: who sees what, and nothing a model writes runs.

(The browser suite in tests/browser drives the same pages in Chromium; these tests pin the
server's side of each rule without a browser.)
"""

from __future__ import annotations

import json
import re
import uuid

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django_tenants.utils import tenant_context

from chat.models import Conversation, Message, PendingAction
from chat.pending_actions import arguments_hash
from chat.rendering import render_markdown
from tenants.models import Tenant
from tenants.roles import APPROVER, STAFF
from tests.conftest import host_client
from tests.tenants.factories import http_login, make_user

SMS = {"to": ["Parents"], "body": "School closes at 1pm today"}
HOSTILE = (
    'Hello <script>window.pwned=1</script> <img src=x onerror="window.pwned=2">\n\n'
    "[click me](javascript:window.pwned=3) ![tracker](https://evil.example/pixel.png)\n\n"
    "```html\n<b>kept as code</b>\n```"
)


def _logged_in(tenant: Tenant, user: User) -> Client:
    client = host_client(tenant)
    assert http_login(client, user.get_username())
    return client


def _conversation(
    user: User, *, title: str = "Closing early", reply: str = "Done."
) -> Conversation:
    conversation = Conversation.objects.create(user=user, title=title)
    question = Message.objects.create(
        conversation=conversation, role=Message.Role.USER, content=title
    )
    Message.objects.create(
        conversation=conversation,
        role=Message.Role.ASSISTANT,
        content=reply,
        run_id=question.uuid,
        citations=[{"n": 1, "document": 7, "title": "Handbook", "snippet": "Doors close at 1pm."}],
    )
    return conversation


def _pending(conversation: Conversation, requested_by: User) -> PendingAction:
    return PendingAction.objects.create(
        conversation=conversation,
        tool_call_id=f"call_{uuid.uuid4().hex[:8]}",
        tool="send_sms",
        arguments=SMS,
        arguments_hash=arguments_hash(SMS),
        description="SMS to 2 contacts in 'Parents': 'School closes at 1pm today'",
        requested_by=requested_by,
    )


@pytest.fixture
def staff(tenant_a: Tenant) -> User:
    with tenant_context(tenant_a):
        return make_user(tenant_a, "sam", role=STAFF)


@pytest.fixture
def approver(tenant_a: Tenant) -> User:
    with tenant_context(tenant_a):
        return make_user(tenant_a, "april", role=APPROVER)


def test_an_anonymous_visitor_is_sent_to_the_tenants_sign_in_page(client_a: Client) -> None:
    response = client_a.get("/")

    assert response.status_code == 302
    assert response["Location"].startswith("/login/")
    assert "Sign in to Alpha" in client_a.get("/login/").content.decode()


def test_the_chat_page_names_the_tenant_and_the_model_and_hides_approvals_from_staff(
    tenant_a: Tenant, staff: User
) -> None:
    page = _logged_in(tenant_a, staff).get("/").content.decode()

    assert "Alpha" in page
    assert 'data-testid="model-badge"' in page and "Offline model" in page
    assert 'data-testid="inbox-link"' not in page
    assert 'aria-label="Message"' in page or 'for="composer-text"' in page


def test_pages_forbid_inline_scripts_and_other_origins_as_a_second_line_of_defence(
    tenant_a: Tenant, staff: User
) -> None:
    policy = _logged_in(tenant_a, staff).get("/")["Content-Security-Policy"]

    assert "script-src 'self'" in policy and "img-src 'self' data:" in policy
    assert "unsafe-inline" not in policy


def test_a_reply_is_rendered_as_sanitised_markdown_with_numbered_citations(
    tenant_a: Tenant, staff: User
) -> None:
    with tenant_context(tenant_a):
        conversation = _conversation(staff, reply="**Yes.** Doors close at 1pm [1].")

    page = _logged_in(tenant_a, staff).get(f"/c/{conversation.uuid}/").content.decode()

    assert "<strong>Yes.</strong>" in page
    assert 'data-testid="citation"' in page and "Doors close at 1pm." in page


def test_hostile_model_output_is_rendered_inert() -> None:
    html = render_markdown(HOSTILE)

    assert "<script" not in html and "<img" not in html
    assert not re.search(r"<[^>]*\son\w+\s*=", html), "no event handler attribute in any tag"
    assert not re.search(r"href=\"?\s*javascript:", html)
    assert "&lt;script&gt;" in html, "the text is shown, not dropped"
    assert 'href="https://evil.example/pixel.png"' in html, "the image is a link, not a fetch"
    assert "&lt;b&gt;kept as code&lt;/b&gt;" in html and "<pre><code" in html


def test_history_search_finds_conversations_by_title_and_by_message_text(
    tenant_a: Tenant, staff: User
) -> None:
    with tenant_context(tenant_a):
        _conversation(staff, title="Closing early", reply="Doors close at 1pm.")
        _conversation(staff, title="Field trip", reply="The bus leaves at 8.")
    client = _logged_in(tenant_a, staff)

    by_text = client.get("/", {"q": "bus leaves"}).content.decode()
    by_title = client.get("/", {"q": "closing"}).content.decode()

    assert "Field trip" in by_text and "Closing early" not in by_text
    assert "Closing early" in by_title and "Field trip" not in by_title


def test_another_users_conversation_and_its_fragments_are_not_found(
    tenant_a: Tenant, staff: User
) -> None:
    with tenant_context(tenant_a):
        other = make_user(tenant_a, "otto", role=STAFF)
        conversation = _conversation(other)
        reply = conversation.messages.get(role=Message.Role.ASSISTANT)
    client = _logged_in(tenant_a, staff)

    assert client.get(f"/c/{conversation.uuid}/").status_code == 404
    assert client.get(f"/c/{conversation.uuid}/m/{reply.uuid}/").status_code == 404


def test_another_tenants_conversation_action_and_inbox_are_invisible(
    tenant_a: Tenant, tenant_b: Tenant, staff: User
) -> None:
    with tenant_context(tenant_a):
        conversation = _conversation(staff)
        action = _pending(conversation, staff)
    with tenant_context(tenant_b):
        b_approver = make_user(tenant_b, "bea", role=APPROVER)
    client = _logged_in(tenant_b, b_approver)

    assert client.get(f"/c/{conversation.uuid}/").status_code == 404
    assert client.get(f"/actions/{action.id}/card/").status_code == 404
    assert str(action.id) not in client.get("/approvals/").content.decode()
    assert client.get("/approvals/count/").json() == {"pending": 0}


def test_the_requester_sees_waiting_for_approval_and_no_approve_button(
    tenant_a: Tenant, staff: User
) -> None:
    with tenant_context(tenant_a):
        action = _pending(_conversation(staff), staff)

    card = _logged_in(tenant_a, staff).get(f"/actions/{action.id}/card/").content.decode()

    assert 'data-testid="waiting"' in card
    assert 'data-testid="approve"' not in card
    assert "<fieldset disabled>" in card


def test_an_approver_gets_an_editable_form_built_from_the_tools_schema(
    tenant_a: Tenant, staff: User, approver: User
) -> None:
    with tenant_context(tenant_a):
        action = _pending(_conversation(staff), staff)

    card = _logged_in(tenant_a, approver).get(f"/actions/{action.id}/card/").content.decode()

    assert 'data-testid="approve"' in card and 'data-testid="reject"' in card
    assert 'name="to" data-kind="lines"' in card and ">Parents</textarea>" in card
    assert 'name="body" data-kind="textarea"' in card
    assert f'<label for="f-{action.id}-body" class="required">Body</label>' in card
    assert "School closes at 1pm today" in card


def test_the_inbox_lists_pending_actions_newest_first_for_approvers_only(
    tenant_a: Tenant, staff: User, approver: User
) -> None:
    with tenant_context(tenant_a):
        older = _pending(_conversation(staff, title="first"), staff)
        newer = _pending(_conversation(staff, title="second"), staff)

    inbox = _logged_in(tenant_a, approver).get("/approvals/").content.decode()

    assert inbox.index(str(newer.id)) < inbox.index(str(older.id))
    assert "Requested by <b>sam</b>" in inbox
    assert f'href="/c/{newer.conversation.uuid}/"' in inbox
    assert _logged_in(tenant_a, approver).get("/approvals/count/").json() == {"pending": 2}
    assert _logged_in(tenant_a, staff).get("/approvals/").status_code == 403


def test_an_approver_may_open_the_conversation_behind_an_action_but_not_write_in_it(
    tenant_a: Tenant, staff: User, approver: User
) -> None:
    with tenant_context(tenant_a):
        conversation = _conversation(staff)
        _pending(conversation, staff)

    page = _logged_in(tenant_a, approver).get(f"/c/{conversation.uuid}/").content.decode()

    assert 'id="composer"' not in page
    assert "viewing sam" in page


def test_a_forged_approve_from_someone_without_the_permission_is_refused(
    tenant_a: Tenant, staff: User
) -> None:
    with tenant_context(tenant_a):
        action = _pending(_conversation(staff), staff)
    client = _logged_in(tenant_a, staff)
    client.get("/")  # the CSRF cookie, as the page would have it

    response = client.post(
        f"/api/actions/{action.id}/approve",
        data=json.dumps({"arguments": {**SMS, "body": "forged"}}),
        content_type="application/json",
        HTTP_X_CSRFTOKEN=client.cookies["csrftoken"].value,
    )

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "forbidden"
    with tenant_context(tenant_a):
        action.refresh_from_db()
    assert action.status == PendingAction.Status.PENDING and action.arguments == SMS


def test_the_pages_static_files_are_served_on_the_tenant_host(client_a: Client) -> None:
    script = client_a.get("/static/chat.js")

    assert script.status_code == 200
    assert b"WebSocket" in b"".join(script.streaming_content)  # type: ignore[attr-defined]


def test_the_actions_api_shows_staff_only_the_actions_of_their_own_conversations(
    tenant_a: Tenant, staff: User, approver: User
) -> None:
    with tenant_context(tenant_a):
        mine = _pending(_conversation(staff), staff)
        colleague = make_user(tenant_a, "otto", role=STAFF)
        theirs = _pending(_conversation(colleague, title="their private errand"), colleague)

    seen_by_staff = _logged_in(tenant_a, staff).get("/api/actions/").json()["actions"]
    seen_by_approver = _logged_in(tenant_a, approver).get("/api/actions/").json()["actions"]

    assert [a["id"] for a in seen_by_staff] == [str(mine.id)]
    assert {a["id"] for a in seen_by_approver} == {str(mine.id), str(theirs.id)}


def test_the_requester_sees_a_withdraw_button_on_their_pending_card_and_an_approver_does_not(
    tenant_a: Tenant, staff: User, approver: User
) -> None:
    with tenant_context(tenant_a):
        action = _pending(_conversation(staff), staff)

    own = _logged_in(tenant_a, staff).get(f"/actions/{action.id}/card/").content.decode()
    theirs = _logged_in(tenant_a, approver).get(f"/actions/{action.id}/card/").content.decode()

    assert 'data-testid="withdraw"' in own
    assert 'data-testid="withdraw"' not in theirs and 'data-testid="approve"' in theirs


def test_a_withdrawn_card_says_withdrawn_and_offers_no_buttons(
    tenant_a: Tenant, staff: User, approver: User
) -> None:
    with tenant_context(tenant_a):
        action = _pending(_conversation(staff), staff)
        PendingAction.objects.filter(pk=action.pk).update(status=PendingAction.Status.WITHDRAWN)

    card = _logged_in(tenant_a, approver).get(f"/actions/{action.id}/card/?inbox=1")

    html = card.content.decode()
    assert 'data-status="withdrawn"' in html and ">Withdrawn<" in html
    assert 'data-testid="approve"' not in html and 'data-testid="withdraw"' not in html
