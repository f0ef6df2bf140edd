"""Revocation bites open sessions (issue #13, item 5): a revoked or expired token, or a
deactivated user, ends its open WebSockets (close 4401) and SSE streams within seconds, and
nothing is decided on a revoked token's socket."""

from __future__ import annotations

import threading
import time
import uuid
from datetime import timedelta

import httpx
import pytest
from django.utils import timezone
from django_tenants.utils import tenant_context

from chat.models import ApiToken, Conversation, PendingAction
from chat.pending_actions import arguments_hash
from chat.tokens import api_token_create, api_token_revoke
from tests.e2e.conftest import TenantSetup
from tests.e2e.wsclient import WsClient

pytestmark = pytest.mark.e2e

SMS = {"to": ["Parents"], "body": "School closes at 1pm today"}


def _pending_action(setup: TenantSetup) -> PendingAction:
    with tenant_context(setup.tenant):
        conversation = Conversation.objects.create(user=setup.staff.user, title="Closing early")
        return PendingAction.objects.create(
            conversation=conversation,
            tool_call_id=f"call_{uuid.uuid4().hex[:8]}",
            tool="send_sms",
            arguments=SMS,
            arguments_hash=arguments_hash(SMS),
            description="SMS to 'Parents': 'School closes at 1pm today'",
            requested_by=setup.staff.user,
        )


def _token_row(setup: TenantSetup, token: str) -> ApiToken:
    with tenant_context(setup.tenant):
        return ApiToken.objects.get(prefix=token[:10])


def _connected(port: int, setup: TenantSetup, token: str) -> WsClient:
    client = WsClient(port, setup.host, token=token)
    client.send({"type": "ping"})
    assert client.until(lambda f: f["type"] == "pong")
    return client


def test_revoking_a_token_closes_its_open_websocket_with_4401(web: int, alpha: TenantSetup) -> None:
    client = _connected(web, alpha, alpha.approver.token)
    other = _connected(web, alpha, alpha.staff.token)

    with tenant_context(alpha.tenant):
        api_token_revoke(token=_token_row(alpha, alpha.approver.token))

    assert client.close_code(timeout=10) == 4401
    other.send({"type": "ping"})
    assert other.until(lambda f: f["type"] == "pong")


def test_an_approve_frame_on_a_socket_whose_token_was_revoked_is_never_executed(
    web: int, alpha: TenantSetup
) -> None:
    action = _pending_action(alpha)
    client = _connected(web, alpha, alpha.approver.token)
    # Revoked in the database only, as if the close notice were lost (Redis down).
    with tenant_context(alpha.tenant):
        ApiToken.objects.filter(prefix=alpha.approver.token[:10]).update(revoked_at=timezone.now())

    client.send({"type": "action.decide", "action": str(action.id), "decision": "approve"})

    assert client.close_code(timeout=10) == 4401
    with tenant_context(alpha.tenant):
        action.refresh_from_db()
    assert action.status == PendingAction.Status.PENDING


def test_deactivating_a_user_closes_their_open_websocket_with_4401(
    web: int, alpha: TenantSetup
) -> None:
    client = _connected(web, alpha, alpha.approver.token)

    with tenant_context(alpha.tenant):
        alpha.approver.user.is_active = False
        alpha.approver.user.save()

    assert client.close_code(timeout=10) == 4401


def test_an_expired_token_is_refused_at_the_handshake(web: int, alpha: TenantSetup) -> None:
    with tenant_context(alpha.tenant):
        _, token = api_token_create(
            user=alpha.staff.user, name="short", expires_at=timezone.now() - timedelta(seconds=1)
        )

    assert WsClient(web, alpha.host, token=token).close_code() == 4401


def test_revoking_a_token_ends_its_open_sse_stream(web: int, alpha: TenantSetup) -> None:
    with tenant_context(alpha.tenant):
        conversation = Conversation.objects.create(user=alpha.staff.user, title="Hello")
    ended = threading.Event()
    opened = threading.Event()

    def listen() -> None:
        with httpx.stream(
            "GET",
            f"http://127.0.0.1:{web}/api/conversations/{conversation.uuid}/events/",
            headers={"Host": alpha.host, "Authorization": f"Bearer {alpha.staff.token}"},
            timeout=60,
        ) as stream:
            assert stream.status_code == 200
            opened.set()
            for _ in stream.iter_lines():
                pass
        ended.set()

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    assert opened.wait(20)
    time.sleep(1)
    assert not ended.is_set()

    with tenant_context(alpha.tenant):
        api_token_revoke(token=_token_row(alpha, alpha.staff.token))

    assert ended.wait(30)
