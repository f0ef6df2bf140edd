"""Per-tool secrecy: an approver of one tool never reads another tool's pending action.

The attack (issue 28, finding 4): SMS and e-mail are decided by different groups. An SMS-only
approver opens every door that shows actions and looks for a pending e-mail's recipients,
subject and body. The doors are walked through a real daphne (HTTP API, SSE, the WebSocket's
replay and live feed, the pages and the card URL) with a real login. The e-mail's own
approvers, its requester and a tenant admin read it through the same doors; nobody of another
tenant reads anything of it.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from django.conf import settings
from django.contrib.auth.models import Group, User
from django_tenants.utils import tenant_context

from actions.models import Contact, ToolPolicy
from chat.events.publishing import PublishingEvents, publish_message
from chat.models import Conversation, Message, PendingAction
from chat.pending_actions import pending_action_propose
from chat.tokens import api_token_create
from notifications.selectors import actions_to_tell
from tenants.models import Tenant
from tenants.roles import APPROVER, STAFF, TENANT_ADMIN
from tests.e2e.processes import Process, start_daphne
from tests.e2e.wsclient import WsClient
from tests.tenants.factories import PASSWORD, make_user

pytestmark = pytest.mark.e2e

# What the pending e-mail says: none of it may reach someone who may not decide it.
SECRETS = ("Zelda Quorn", "zelda.quorn@example.com", "Quarterly pay review", "raise is approved")
EMAIL = {
    "to": ["Zelda Quorn"],
    "subject": "Quarterly pay review",
    "body": "Your raise is approved.",
}
SMS = {"to": ["Omar Pike"], "body": "Class moved to 3pm"}


def leaked(text: str) -> list[str]:
    return [secret for secret in SECRETS if secret.lower() in text.lower()]


@pytest.fixture(scope="module")
def daphne(django_db_setup: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    db = settings.DATABASES["default"]
    env = {
        **{k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"},
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "REDIS_URL": settings.REDIS_URL,
        "PROMETHEUS_MULTIPROC_DIR": str(settings.PROMETHEUS_MULTIPROC_DIR),
        "DEBUG": "true",
        "LOG_LEVEL": "warning",
        "PYTHONUNBUFFERED": "1",
    }
    process: Process
    process, port = start_daphne(env, Path(tmp_path_factory.mktemp("secrecy")))
    yield port
    process.stop()


@dataclass
class Scene:
    tenant: Tenant
    requester: User
    sms_approver: User
    email_approver: User
    admin: User
    conversation: Conversation
    email: PendingAction
    mixed: Conversation  # the requester's other conversation: an SMS first, the e-mail later


def _publish_turn(tenant: Tenant, conversation: Conversation, action: PendingAction) -> None:
    """What a worker publishes for a turn that proposed ``action``: the question, the pending
    action, and a reply that restates it (the offline model's "I've drafted …")."""
    question = Message.objects.create(
        conversation=conversation,
        role=Message.Role.USER,
        content=f"E-mail {', '.join(action.arguments.get('to', []))}: "
        f"{action.arguments.get('subject', '')} {action.arguments.get('body', '')}",
        sender=conversation.user,
    )
    reply = Message.objects.create(
        conversation=conversation,
        role=Message.Role.ASSISTANT,
        content=f"I've drafted it: {action.description}",
        run_id=question.uuid,
    )
    events = PublishingEvents(schema=tenant.schema_name, conversation=conversation)
    publish_message(schema=tenant.schema_name, message=question)
    events.token(reply.content)
    events.pending(action)
    events.done(reply)


def _scene(tenant: Tenant, prefix: str = "") -> Scene:
    requester = make_user(tenant, f"{prefix}sam", role=STAFF)
    sms_approver = make_user(tenant, f"{prefix}sally", role=STAFF)
    email_approver = make_user(tenant, f"{prefix}erin", role=STAFF)
    admin = make_user(tenant, f"{prefix}tina", role=TENANT_ADMIN)
    with tenant_context(tenant):
        sms_desk, mail_desk = (
            Group.objects.create(name="sms desk"),
            Group.objects.create(name="mail desk"),
        )
        sms_desk.user_set.add(sms_approver)
        mail_desk.user_set.add(email_approver)
        ToolPolicy.objects.update_or_create(
            tool_name="send_sms", defaults={"approver_group": sms_desk}
        )
        ToolPolicy.objects.update_or_create(
            tool_name="send_email", defaults={"approver_group": mail_desk}
        )
        Contact.objects.create(name="Zelda Quorn", email="zelda.quorn@example.com")
        Contact.objects.create(name="Omar Pike", phone="+12025550111")
        conversation = Conversation.objects.create(user=requester, title="Pay")
        email = pending_action_propose(
            conversation=conversation,
            tool_call_id="call_email",
            tool="send_email",
            arguments=EMAIL,
            requested_by_id=requester.pk,
        )
        _publish_turn(tenant, conversation, email)
        mixed = Conversation.objects.create(user=requester, title="Class")
        sms = pending_action_propose(
            conversation=mixed,
            tool_call_id="call_sms",
            tool="send_sms",
            arguments=SMS,
            requested_by_id=requester.pk,
        )
        PublishingEvents(schema=tenant.schema_name, conversation=mixed).pending(sms)
    return Scene(tenant, requester, sms_approver, email_approver, admin, conversation, email, mixed)


@pytest.fixture
def scene(transactional_db: None, tenant_a: Tenant) -> Scene:
    return _scene(tenant_a)


# -- the doors ------------------------------------------------------------------------------------


class Visitor:
    """One person at every door of one tenant host on the real server: an API token for the
    API, SSE and the WebSocket, a signed-in session for the pages."""

    def __init__(self, port: int, tenant: Tenant, user: User, *, host: str | None = None) -> None:
        self.port, self.host = port, host or tenant.get_primary_domain().domain
        with tenant_context(tenant):
            _, self.token = api_token_create(user=user, name="secrecy")
        base = f"http://127.0.0.1:{port}"
        self.api = httpx.Client(
            base_url=base,
            timeout=30,
            headers={"Host": self.host, "Authorization": f"Bearer {self.token}"},
        )
        self.browser = httpx.Client(base_url=base, timeout=30, headers={"Host": self.host})
        login = self.browser.get("/login/")
        csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', login.text)
        assert csrf is not None
        self.browser.post(
            "/login/",
            data={
                "username": user.username,
                "password": PASSWORD,
                "csrfmiddlewaretoken": csrf.group(1),
            },
        )

    def sse(self, conversation: Conversation, *, seconds: float = 3.0) -> str:
        """What the event stream sends within ``seconds`` (or until it ends)."""
        received = ""
        deadline = time.monotonic() + seconds
        path = f"/api/conversations/{conversation.uuid}/events/?after=0"
        try:
            with self.api.stream("GET", path, timeout=seconds) as response:
                received += f"{response.status_code}\n"
                for chunk in response.iter_text():
                    received += chunk
                    if time.monotonic() > deadline:
                        break
        except httpx.ReadTimeout:
            pass
        return received

    def socket(self) -> WsClient:
        return WsClient(self.port, self.host, token=self.token)

    def subscribed(self, conversation: Conversation) -> str:
        """The frames a ``chat.subscribe`` with ``after: 0`` replays (up to a pong)."""
        ws = self.socket()
        try:
            ws.send({"type": "chat.subscribe", "conversation": str(conversation.uuid), "after": 0})
            ws.send({"type": "ping"})
            return repr(ws.until(lambda frame: frame["type"] == "pong"))
        finally:
            ws.close()

    def every_door(self, scene: Scene) -> dict[str, str]:
        """What each door answers about the pending e-mail, as text."""
        conversation, email = scene.conversation, scene.email
        return {
            "api conversation": self.api.get(f"/api/conversations/{conversation.uuid}/").text,
            "api actions": self.api.get("/api/actions/").text,
            "api pending actions": self.api.get("/api/actions/?status=pending").text,
            "sse": self.sse(conversation),
            "ws replay": self.subscribed(conversation),
            "page": self.browser.get(f"/c/{conversation.uuid}/").text,
            "card": self.browser.get(f"/actions/{email.id}/card/").text,
            "inbox card": self.browser.get(f"/actions/{email.id}/card/?inbox=1&open=1").text,
            "inbox": self.browser.get("/approvals/").text,
            "mixed page": self.browser.get(f"/c/{scene.mixed.uuid}/").text,
            "mixed api": self.api.get(f"/api/conversations/{scene.mixed.uuid}/").text,
        }


def _leaks(doors: dict[str, str]) -> dict[str, list[str]]:
    return {door: found for door, text in doors.items() if (found := leaked(text))}


def test_an_sms_approver_reads_nothing_of_a_pending_email_at_any_door(
    daphne: int, scene: Scene
) -> None:
    sally = Visitor(daphne, scene.tenant, scene.sms_approver)

    doors = sally.every_door(scene)

    assert _leaks(doors) == {}
    # She still works: her own tool's request is hers to read.
    assert "Omar Pike" in doors["mixed api"] and "Omar Pike" in doors["inbox"]


@pytest.mark.parametrize("who", ["email_approver", "requester", "admin"])
def test_the_emails_approvers_its_requester_and_a_tenant_admin_read_it(
    daphne: int, scene: Scene, who: str
) -> None:
    visitor = Visitor(daphne, scene.tenant, getattr(scene, who))

    doors = visitor.every_door(scene)

    for door in ("api conversation", "api actions", "sse", "ws replay", "page", "card"):
        assert {"Zelda Quorn", "Quarterly pay review", "raise is approved"} <= set(
            leaked(doors[door])
        ), door


def test_a_new_email_in_a_conversation_she_watches_reaches_her_as_a_placeholder(
    daphne: int, scene: Scene
) -> None:
    sally = Visitor(daphne, scene.tenant, scene.sms_approver)
    ws = sally.socket()
    ws.send({"type": "chat.subscribe", "conversation": str(scene.mixed.uuid), "after": 0})
    ws.until(lambda frame: frame["type"] == "pending")  # the SMS she may decide

    with tenant_context(scene.tenant):
        email = pending_action_propose(
            conversation=scene.mixed,
            tool_call_id="call_email_2",
            tool="send_email",
            arguments=EMAIL,
            requested_by_id=scene.requester.pk,
        )
        _publish_turn(scene.tenant, scene.mixed, email)
    frames = ws.drain(quiet_seconds=2)
    ws.close()

    assert leaked(repr(frames)) == []
    placeholders = [f["action"] for f in frames if f["type"] == "pending"]
    assert [(p["id"], p["tool"], p["description"]) for p in placeholders] == [
        (str(email.id), "send_email", "A “Send e-mail” request, for its own approvers to read")
    ]


def test_the_approvers_feed_and_the_digest_carry_no_email_to_the_sms_approver(
    daphne: int, scene: Scene
) -> None:
    sally = Visitor(daphne, scene.tenant, scene.sms_approver)
    ws = sally.socket()
    assert ws.ping_ok()

    with tenant_context(scene.tenant):
        PublishingEvents(schema=scene.tenant.schema_name, conversation=scene.conversation).pending(
            scene.email
        )
        told = actions_to_tell(user=scene.sms_approver)
    frames = ws.drain(quiet_seconds=2)
    ws.close()

    assert leaked(repr(frames)) == []
    assert scene.email.id not in [action.id for action in told]


def test_bulk_decisions_and_snoozes_refuse_her_without_quoting_the_email(
    daphne: int, scene: Scene
) -> None:
    sally = Visitor(daphne, scene.tenant, scene.sms_approver)

    bulk = sally.api.post(
        "/api/actions/decide",
        json={"actions": [str(scene.email.id)], "decision": "reject"},
    )
    snooze = sally.api.post(f"/api/actions/{scene.email.id}/snooze", json={"until": "1h"})

    assert bulk.status_code == 200 and bulk.json()["results"][0]["ok"] is False
    assert snooze.status_code == 403
    assert leaked(bulk.text + snooze.text) == []
    with tenant_context(scene.tenant):
        assert PendingAction.objects.get(pk=scene.email.id).status == PendingAction.Status.PENDING


def test_an_approver_of_another_tenant_reads_nothing_of_it(
    daphne: int, scene: Scene, tenant_b: Tenant
) -> None:
    outsider = make_user(tenant_b, "sally", role=APPROVER)  # decides every tool, in tenant B
    bea = Visitor(daphne, tenant_b, outsider)

    doors = bea.every_door(scene)

    assert _leaks(doors) == {}
    assert bea.api.get(f"/api/conversations/{scene.conversation.uuid}/").status_code == 404
    assert bea.browser.get(f"/actions/{scene.email.id}/card/").status_code == 404
    # Tenant B's token on tenant A's host is nobody there.
    on_a = httpx.get(
        f"http://127.0.0.1:{daphne}/api/conversations/{scene.conversation.uuid}/",
        headers={
            "Host": scene.tenant.get_primary_domain().domain,
            "Authorization": f"Bearer {bea.token}",
        },
    )
    assert on_a.status_code == 401 and leaked(on_a.text) == []
