"""Four eyes on the final text (issue 28, finding 3): whatever is sent has been seen by two
people. An approver's edit is a counter-proposal that someone other than its editor confirms
before anything runs (docs/web.md, "Four eyes on the final text")."""

from __future__ import annotations

import contextlib
import json
import threading
from datetime import timedelta
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth.models import Group, User
from django.db import connections
from django.test import Client
from django.utils import timezone
from django_tenants.utils import tenant_context

from actions.models import Contact, ContactGroup, EditConfirmer, OutboundMessage, ToolPolicy
from chat.models import ActionEvent, Conversation, PendingAction
from chat.pending_actions import (
    ActionExpired,
    ActionPermissionDenied,
    ActionStateError,
    pending_action_confirm,
    pending_action_decide,
    pending_action_execute,
    pending_action_propose,
    pending_action_withdraw,
)
from chat.services.expiry import pending_action_expire
from chat.tokens import api_token_create
from core.schema import use_public_schema
from tenants.models import Tenant
from tenants.roles import APPROVER, STAFF
from tests.chat.doors import bearer_socket, token_client
from tests.conftest import host_client
from tests.tenants.factories import http_login, make_user

PROPOSAL = {"to": ["Kim Minji"], "body": "School closes at 1pm today"}
# The attack of the finding: a new number plus the Teachers group, and a rewritten body.
HIJACK = {"to": ["+12025550999", "Teachers"], "body": "Call this number about your account"}
Status = PendingAction.Status


@pytest.fixture
def school(tenant_a: Tenant) -> None:
    with tenant_context(tenant_a):
        Contact.objects.create(name="Kim Minji", phone="+12025550100")
        Contact.objects.create(name="Opted Out Olga", phone="+12025550177", opted_out=True)
        teachers = ContactGroup.objects.create(name="Teachers")
        for index, name in enumerate(["Park Jiwoo", "Choi Yuna"]):
            Contact.objects.create(name=name, phone=f"+1202555020{index}").groups.add(teachers)


@pytest.fixture
def sam(tenant_a: Tenant) -> User:
    return make_user(tenant_a, "sam", role=STAFF)


@pytest.fixture
def april(tenant_a: Tenant) -> User:
    return make_user(tenant_a, "april", role=APPROVER)


@pytest.fixture
def abe(tenant_a: Tenant) -> User:
    return make_user(tenant_a, "abe", role=APPROVER)


def _propose(tenant: Tenant, requester: User, call: str = "call_1") -> PendingAction:
    with tenant_context(tenant):
        return pending_action_propose(
            conversation=Conversation.objects.create(user=requester),
            tool_call_id=call,
            tool="send_sms",
            arguments=PROPOSAL,
            requested_by_id=requester.pk,
        )


def _edited(tenant: Tenant, requester: User, editor: User, call: str = "call_1") -> PendingAction:
    action = _propose(tenant, requester, call)
    with tenant_context(tenant):
        return pending_action_decide(
            action_id=action.id, user=editor, decision="approve", arguments=HIJACK
        )


def _post(client: Client, path: str, body: dict[str, Any] | None = None) -> Any:
    return client.post(path, json.dumps(body or {}), content_type="application/json")


def _status(tenant: Tenant, action: PendingAction) -> str:
    with tenant_context(tenant):
        return PendingAction.objects.get(pk=action.pk).status


def _sent_bodies(tenant: Tenant) -> list[str]:
    with tenant_context(tenant):
        return sorted(OutboundMessage.objects.values_list("body", flat=True))


def _second_approver_policy(tenant: Tenant) -> None:
    with tenant_context(tenant):
        ToolPolicy.objects.create(
            tool_name="send_sms", edit_confirmed_by=EditConfirmer.ANOTHER_APPROVER
        )


def test_an_approvers_edit_and_approve_alone_sends_nothing(
    tenant_a: Tenant, school: None, sam: User, april: User
) -> None:
    action = _propose(tenant_a, sam)

    response = _post(
        token_client(tenant_a, april), f"/api/actions/{action.id}/approve", {"arguments": HIJACK}
    )

    assert response.status_code == 200
    answered = response.json()["action"]
    assert (answered["status"], answered["version"]) == ("edited", 2)
    assert answered["edited"]["before"]["to"] == PROPOSAL["to"]
    assert answered["edited"]["after"]["to"] == HIJACK["to"]
    with tenant_context(tenant_a), pytest.raises(ActionStateError, match="edited, not approved"):
        pending_action_execute(action_id=action.id)
    assert _status(tenant_a, action) == Status.EDITED
    assert _sent_bodies(tenant_a) == []


def test_the_requesters_confirm_sends_the_edited_text_exactly_once(
    tenant_a: Tenant, school: None, sam: User, april: User
) -> None:
    action = _edited(tenant_a, sam, april)

    response = _post(token_client(tenant_a, sam), f"/api/actions/{action.id}/confirm")
    with tenant_context(tenant_a):
        first = pending_action_execute(action_id=action.id)
        again = pending_action_execute(action_id=action.id)  # a redelivered resume

    assert response.status_code == 200 and response.json()["action"]["status"] == "approved"
    assert (first.status, again.status) == ("executed", "executed")
    assert _sent_bodies(tenant_a) == [HIJACK["body"]] * 3  # the new number and two teachers


def test_the_editor_can_neither_confirm_nor_approve_their_own_edit(
    tenant_a: Tenant, school: None, sam: User, april: User
) -> None:
    action = _edited(tenant_a, sam, april)
    as_april = token_client(tenant_a, april)

    confirmed = _post(as_april, f"/api/actions/{action.id}/confirm")
    approved = _post(as_april, f"/api/actions/{action.id}/approve")

    assert confirmed.status_code == 403
    assert confirmed.json()["error"]["message"] == (
        "you edited this action; someone else must confirm your edit"
    )
    assert approved.status_code == 409 and approved.json()["error"]["code"] == "invalid_state"
    assert _status(tenant_a, action) == Status.EDITED


def test_under_the_default_policy_another_approver_cannot_confirm_for_the_requester(
    tenant_a: Tenant, school: None, sam: User, april: User, abe: User
) -> None:
    action = _edited(tenant_a, sam, april)

    response = _post(token_client(tenant_a, abe), f"/api/actions/{action.id}/confirm")

    assert response.status_code == 403
    assert _status(tenant_a, action) == Status.EDITED


def test_under_the_second_approver_policy_another_approver_confirms_and_the_requester_cannot(
    tenant_a: Tenant, school: None, sam: User, april: User, abe: User
) -> None:
    _second_approver_policy(tenant_a)
    action = _edited(tenant_a, sam, april)

    by_requester = _post(token_client(tenant_a, sam), f"/api/actions/{action.id}/confirm")
    by_editor = _post(token_client(tenant_a, april), f"/api/actions/{action.id}/confirm")
    by_second = _post(token_client(tenant_a, abe), f"/api/actions/{action.id}/confirm")

    assert (by_requester.status_code, by_editor.status_code) == (403, 403)
    assert by_second.status_code == 200
    assert _status(tenant_a, action) == Status.APPROVED


@pytest.mark.parametrize(
    ("to", "refusal"),
    [
        (["Opted Out Olga"], "Opted Out Olga has opted out"),
        (["Nobody Known"], "no contact or group named 'Nobody Known'"),
        (["Teachers", "+12025550999"], "over this tenant's limit of 2 per action"),
    ],
)
def test_an_edit_adding_recipients_the_editor_could_not_request_is_refused(
    tenant_a: Tenant, school: None, sam: User, april: User, to: list[str], refusal: str
) -> None:
    with tenant_context(tenant_a):
        ToolPolicy.objects.create(tool_name="send_sms", max_recipients=2)
    action = _propose(tenant_a, sam)

    response = _post(
        token_client(tenant_a, april),
        f"/api/actions/{action.id}/approve",
        {"arguments": {"to": to, "body": "hi"}},
    )

    assert response.status_code == 400 and response.json()["error"]["code"] == "invalid_arguments"
    assert refusal in response.json()["error"]["message"]
    with tenant_context(tenant_a):
        unchanged = PendingAction.objects.get(pk=action.pk)
        assert (unchanged.status, unchanged.version, unchanged.arguments["to"]) == (
            Status.PENDING,
            1,
            PROPOSAL["to"],
        )


def test_the_audit_trail_shows_who_saw_which_version(
    tenant_a: Tenant, school: None, sam: User, april: User
) -> None:
    action = _edited(tenant_a, sam, april)
    _post(token_client(tenant_a, sam), f"/api/actions/{action.id}/confirm", {"note": "fine"})

    with tenant_context(tenant_a):
        log = list(
            ActionEvent.objects.filter(action_id=action.id).values_list(
                "kind", "actor__username", "data"
            )
        )
    assert [(kind, actor) for kind, actor, _ in log] == [
        ("proposed", "sam"),
        ("edited", "april"),
        ("confirmed", "sam"),
    ]
    edited, confirmed = log[1][2], log[2][2]
    assert edited["version"] == 2
    assert (edited["before"], edited["after"]) == (PROPOSAL, HIJACK)
    assert confirmed == {"version": 2, "note": "fine"}


def test_declining_the_edit_rejects_the_action_and_sends_nothing(
    tenant_a: Tenant, school: None, sam: User, april: User
) -> None:
    action = _edited(tenant_a, sam, april)

    response = _post(token_client(tenant_a, sam), f"/api/actions/{action.id}/decline")
    with tenant_context(tenant_a):
        outcome = pending_action_execute(action_id=action.id)
        declined = ActionEvent.objects.get(action_id=action.id, kind="declined")

    assert response.status_code == 200 and response.json()["action"]["status"] == "rejected"
    assert outcome.status == "rejected"
    assert (declined.actor, declined.data["version"]) == (sam, 2)
    assert _sent_bodies(tenant_a) == []


def test_the_requester_may_withdraw_an_edited_request_and_it_can_no_longer_be_confirmed(
    tenant_a: Tenant, school: None, sam: User, april: User
) -> None:
    action = _edited(tenant_a, sam, april)

    with tenant_context(tenant_a):
        pending_action_withdraw(action_id=action.id, user=sam)
        with pytest.raises(ActionStateError, match="already withdrawn"):
            pending_action_confirm(action_id=action.id, user=sam, decision="confirm")
    assert _status(tenant_a, action) == Status.WITHDRAWN


def test_a_self_approving_approvers_edit_of_their_own_request_needs_another_approver(
    tenant_a: Tenant, school: None, april: User, abe: User
) -> None:
    with tenant_context(tenant_a):
        ToolPolicy.objects.create(tool_name="send_sms", allow_self_approval=True)
    action = _edited(tenant_a, april, april)

    with tenant_context(tenant_a):
        with pytest.raises(ActionPermissionDenied, match="someone else must confirm"):
            pending_action_confirm(action_id=action.id, user=april, decision="confirm")
        pending_action_confirm(action_id=action.id, user=abe, decision="confirm")
    assert _status(tenant_a, action) == Status.APPROVED


def test_an_approver_of_tenant_b_cannot_confirm_tenant_as_counter_proposal_through_the_api(
    tenant_a: Tenant, tenant_b: Tenant, school: None, sam: User, april: User
) -> None:
    _second_approver_policy(tenant_a)
    action = _edited(tenant_a, sam, april)
    outsider = make_user(tenant_b, "bea", role=APPROVER)
    with tenant_context(tenant_a):
        Group.objects.get(name=APPROVER)  # tenant A has the role too: only the tenant differs
    on_b = token_client(tenant_b, outsider)

    confirmed = _post(on_b, f"/api/actions/{action.id}/confirm")
    declined = _post(on_b, f"/api/actions/{action.id}/decline")

    assert (confirmed.status_code, declined.status_code) == (404, 404)
    assert _status(tenant_a, action) == Status.EDITED


def test_a_repeated_confirm_with_the_same_idempotency_key_answers_the_first_result(
    tenant_a: Tenant, school: None, sam: User, april: User
) -> None:
    action = _edited(tenant_a, sam, april)
    as_sam = token_client(tenant_a, sam)
    url, key = f"/api/actions/{action.id}/confirm", {"Idempotency-Key": "confirm-once"}

    first = as_sam.post(url, "{}", content_type="application/json", headers=key)
    again = as_sam.post(url, "{}", content_type="application/json", headers=key)

    assert first.status_code == again.status_code == 200
    assert again.json() == first.json()
    with tenant_context(tenant_a):
        assert ActionEvent.objects.filter(action_id=action.id, kind="confirmed").count() == 1


@pytest.mark.django_db(transaction=True)
def test_over_the_socket_an_edit_is_a_counter_proposal_that_the_requester_confirms(
    tenant_a: Tenant, school: None, sam: User, april: User
) -> None:
    action = _propose(tenant_a, sam)
    with tenant_context(tenant_a):
        _, april_token = api_token_create(user=april, name="ws")
        _, sam_token = api_token_create(user=sam, name="ws")
    host = tenant_a.get_primary_domain().domain

    async def decide(token: str, frame: dict[str, Any]) -> list[dict[str, Any]]:
        """Send the frame, then a ping: the frames back up to the pong (frames are handled in
        order, so the decision was handled by then)."""
        socket = bearer_socket(host, token)
        connected, _ = await socket.connect()
        assert connected
        await socket.send_json_to({"type": "action.decide", "action": str(action.id), **frame})
        await socket.send_json_to({"type": "ping"})
        frames: list[dict[str, Any]] = []
        while not frames or frames[-1]["type"] != "pong":
            frames.append(json.loads(await socket.receive_from(timeout=10)))
        await socket.disconnect()
        return [frame for frame in frames if frame["type"] in ("error", "action")]

    by_editor = async_to_sync(decide)(april_token, {"decision": "approve", "arguments": HIJACK})
    edited = _status(tenant_a, action)
    own_confirm = async_to_sync(decide)(april_token, {"decision": "confirm"})
    by_requester = async_to_sync(decide)(sam_token, {"decision": "confirm"})

    assert not [f for f in by_requester if f["type"] == "error"]
    assert [(f["type"], f.get("code")) for f in own_confirm] == [("error", "forbidden")]
    assert not [f for f in by_editor if f["type"] == "error"]
    assert (edited, _status(tenant_a, action)) == (Status.EDITED, Status.APPROVED)
    use_public_schema()


def _page(tenant: Tenant, user: User, path: str) -> str:
    client = host_client(tenant)
    assert http_login(client, user.get_username())
    return client.get(path).content.decode()


def test_the_requesters_card_shows_before_and_after_with_confirm_and_decline(
    tenant_a: Tenant, school: None, sam: User, april: User
) -> None:
    action = _edited(tenant_a, sam, april)

    card = _page(tenant_a, sam, f"/actions/{action.id}/card/")

    assert 'data-testid="confirm"' in card and 'data-testid="decline"' in card
    assert "april edited this request" in card
    assert "added +12025550999, Teachers" in card and "removed Kim Minji" in card
    assert f'<del data-testid="before">{PROPOSAL["body"]}</del>' in card


def test_the_editors_inbox_says_the_edit_waits_for_the_requester(
    tenant_a: Tenant, school: None, sam: User, april: User
) -> None:
    action = _edited(tenant_a, sam, april)

    inbox = _page(tenant_a, april, "/approvals/")

    start = inbox.index(f'id="action-{action.id}"')
    card = inbox[start : inbox.index("</section>", start)]
    assert "Waiting for the requester (sam) to confirm your edit." in card
    assert 'data-testid="confirm"' not in card and 'data-testid="approve"' not in card


def test_under_the_second_approver_policy_the_edit_waits_in_another_approvers_inbox_and_badge(
    tenant_a: Tenant, school: None, sam: User, april: User, abe: User
) -> None:
    _second_approver_policy(tenant_a)
    action = _edited(tenant_a, sam, april)
    client = host_client(tenant_a)
    assert http_login(client, abe.get_username())

    inbox = client.get("/approvals/").content.decode()
    count = client.get("/approvals/count/").json()

    start = inbox.index(f'id="action-{action.id}"')
    card = inbox[start : inbox.index("</section>", start)]
    assert 'data-testid="confirm"' in card and "added +12025550999, Teachers" in card
    assert count == {"pending": 1}


def test_an_edit_nobody_confirms_expires_at_the_requests_original_expiry(
    tenant_a: Tenant, school: None, sam: User, april: User
) -> None:
    action = _edited(tenant_a, sam, april)
    with tenant_context(tenant_a):
        PendingAction.objects.filter(pk=action.pk).update(
            expires_at=timezone.now() - timedelta(minutes=1)
        )

        expired = pending_action_expire(action_id=action.id)
        with pytest.raises(ActionExpired):
            pending_action_confirm(action_id=action.id, user=sam, decision="confirm")

    assert expired is not None and expired.status == Status.EXPIRED
    assert _sent_bodies(tenant_a) == []


@pytest.mark.django_db(transaction=True)
def test_fifty_concurrent_confirm_approve_withdraw_triples_each_end_one_way_and_send_at_most_once(
    tenant_a: Tenant,
) -> None:
    with tenant_context(tenant_a):
        Contact.objects.create(name="Solo", phone="+12025550109")
        requesters = [make_user(tenant_a, f"req{i}") for i in range(50)]
        editor = make_user(tenant_a, "editor", role=APPROVER)
        approver = make_user(tenant_a, "second", role=APPROVER)
        actions = []
        for requester in requesters:
            proposed = pending_action_propose(
                conversation=Conversation.objects.create(user=requester),
                tool_call_id="c1",
                tool="send_sms",
                arguments={"to": ["Solo"], "body": "hello"},
                requested_by_id=requester.pk,
            )
            actions.append(
                pending_action_decide(
                    action_id=proposed.id,
                    user=editor,
                    decision="approve",
                    arguments={"to": ["Solo"], "body": "hello, edited"},
                )
            )
    outcomes: dict[tuple[int, str], str] = {}
    barrier = threading.Barrier(150)

    def attempt(index: int, move: str) -> None:
        action, requester = actions[index], requesters[index]
        with tenant_context(tenant_a):
            barrier.wait()
            try:
                if move == "confirm":
                    pending_action_confirm(action_id=action.id, user=requester, decision="confirm")
                elif move == "approve":
                    pending_action_decide(action_id=action.id, user=approver, decision="approve")
                else:
                    pending_action_withdraw(action_id=action.id, user=requester)
                outcomes[(index, move)] = "won"
            except ActionStateError:
                outcomes[(index, move)] = "refused"
            # Every thread tries to run it, as a resume would; still edited: nobody confirmed.
            with contextlib.suppress(ActionStateError):
                pending_action_execute(action_id=action.id)
        connections.close_all()

    threads = [
        threading.Thread(target=attempt, args=(index, move))
        for index in range(50)
        for move in ("confirm", "approve", "withdraw")
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    with tenant_context(tenant_a):
        for index, action in enumerate(actions):
            won = [
                move
                for move in ("confirm", "approve", "withdraw")
                if outcomes[(index, move)] == "won"
            ]
            final = PendingAction.objects.get(pk=action.pk)
            sent = OutboundMessage.objects.filter(action_id=action.id)
            assert len(won) == 1 and won != ["approve"], (index, won)
            assert final.status == ("executed" if won == ["confirm"] else "withdrawn")
            assert list(sent.values_list("body", flat=True)) == (
                ["hello, edited"] if won == ["confirm"] else []
            )
            assert ActionEvent.objects.filter(action_id=action.id, kind="executed").count() == (
                1 if won == ["confirm"] else 0
            )
    use_public_schema()
