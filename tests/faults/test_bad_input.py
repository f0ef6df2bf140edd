"""Bad input over HTTP, SSE and WebSocket gets a 4xx JSON error or an ``error`` frame with a
documented code; no 5xx, and a socket stays usable (a ping after each bad frame gets a pong).

Real daphne, real worker, embedded PostgreSQL and Redis (tests/e2e's processes and fixtures).
"""

# The e2e fixtures are imported by name (tests/faults has no conftest of its own to share with
# the other fault suites), which ruff reads as redefinitions.
# ruff: noqa: F811

from __future__ import annotations

import json
import time
import uuid
from typing import Any

import httpx
import pytest
from django_tenants.utils import tenant_context

from actions.models import Contact, ContactGroup, OutboundMessage
from chat.models import Conversation
from tests.e2e.conftest import (  # noqa: F401  (fixtures)
    Api,
    Process,
    TenantSetup,
    alpha,
    server_env,
    stack_env,
    web,
    worker,
)
from tests.e2e.wsclient import WsClient

pytestmark = pytest.mark.e2e

DEEP = "[" * 5000 + "]" * 5000


def _raw_post(web: int, setup: TenantSetup, path: str, content: bytes | str) -> httpx.Response:
    return httpx.post(
        f"http://127.0.0.1:{web}{path}",
        content=content,
        headers={"Host": setup.host, "Authorization": f"Bearer {setup.staff.token}"},
        timeout=30,
    )


def _code(response: httpx.Response) -> str:
    return str(response.json()["error"]["code"])


# -- HTTP ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ('{"text": "hello\\u0000there"}', 400, "invalid_text"),
        ('{"text": "\\ud800"}', 400, "invalid_text"),
        ('{"text": "ok", "note": {"\\u0000": 1}}', 400, "invalid_text"),
        (DEEP, 400, "bad_request"),
        ('{"text": ' + "1" * 5000 + "}", 400, "bad_request"),
        (b"\xff\xfe{", 400, "bad_request"),
        ("x" * (5 * 1024 * 1024), 413, "too_large"),
    ],
    ids=["nul", "lone-surrogate", "nul-in-key", "deep", "huge-integer", "not-utf8", "5MB"],
)
def test_a_bad_http_body_is_a_json_4xx_naming_the_problem(
    web: int, alpha: TenantSetup, body: str | bytes, status: int, code: str
) -> None:
    response = _raw_post(web, alpha, "/api/conversations/", body)

    assert (response.status_code, _code(response)) == (status, code)


def test_a_nul_in_a_message_to_a_conversation_is_invalid_text(web: int, alpha: TenantSetup) -> None:
    with tenant_context(alpha.tenant):
        conversation = Conversation.objects.create(user=alpha.staff.user)

    response = _raw_post(
        web, alpha, f"/api/conversations/{conversation.uuid}/messages/", '{"text": "a\\u0000"}'
    )

    assert (response.status_code, _code(response)) == (400, "invalid_text")


def test_an_upper_case_host_reaches_its_tenant(web: int, alpha: TenantSetup) -> None:
    response = Api(web, alpha.host.upper(), alpha.staff.token).get("/api/actions/")

    assert response.status_code == 200 and "actions" in response.json()


def test_a_nul_in_a_knowledge_search_is_invalid_text(web: int, alpha: TenantSetup) -> None:
    response = Api(web, alpha.host, alpha.staff.token).get("/api/kb/search/?q=leave%00")

    assert (response.status_code, _code(response)) == (400, "invalid_text")


# -- SSE ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("after", ["²", "١٢", "-1", "1.5", str(2**63), str(2**64 - 1), "9" * 400])
def test_a_bad_sse_after_is_a_400_at_once(web: int, alpha: TenantSetup, after: str) -> None:
    with tenant_context(alpha.tenant):
        conversation = Conversation.objects.create(user=alpha.staff.user)
    api = Api(web, alpha.host, alpha.staff.token)

    response = api.get(f"/api/conversations/{conversation.uuid}/events/", params={"after": after})
    by_header = api.get(
        f"/api/conversations/{conversation.uuid}/events/",
        headers={"Last-Event-ID": after.encode()},
    )

    assert (response.status_code, _code(response)) == (400, "bad_request")
    assert (by_header.status_code, _code(by_header)) == (400, "bad_request")


# -- WebSocket ----------------------------------------------------------------------------------


def _with_raw(frame: dict[str, Any], name: str, raw_json: str) -> str:
    """``frame`` as JSON with ``name`` set to ``raw_json`` exactly as written (escapes kept)."""
    return json.dumps(frame)[:-1] + f', "{name}": {raw_json}}}'


def _chat_send(text_json: str) -> str:
    frame = {"type": "chat.send", "conversation": None, "client_id": str(uuid.uuid4())}
    return _with_raw(frame, "text", text_json)


def _subscribe(after: int) -> str:
    return json.dumps({"type": "chat.subscribe", "conversation": str(uuid.uuid4()), "after": after})


def _decide_with_note(note_json: str) -> str:
    frame = {"type": "action.decide", "action": str(uuid.uuid4()), "decision": "approve"}
    return _with_raw(frame, "note", note_json)


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        (_chat_send('"hello\\u0000there"'), "invalid_text"),
        (_chat_send('"\\ud800"'), "invalid_text"),
        ('{"type": "ping", "\\udfff": 1}', "invalid_text"),
        (DEEP, "bad_frame"),
        ('{"type": "ping", "n": ' + "1" * 5000 + "}", "bad_frame"),
        (_subscribe(2**64 - 1), "bad_frame"),
        (_subscribe(2**63), "bad_frame"),
        (_decide_with_note('"\\u0000"'), "invalid_text"),
        (b"\x00\x01", "bad_frame"),
    ],
    ids=[
        "nul",
        "lone-surrogate",
        "surrogate-key",
        "deep",
        "huge-integer",
        "after-2^64-1",
        "after-2^63",
        "nul-note",
        "binary",
    ],
)
def test_a_bad_frame_gets_an_error_frame_and_the_socket_stays_usable(
    web: int, alpha: TenantSetup, frame: str | bytes, code: str
) -> None:
    client = WsClient(web, alpha.host, token=alpha.staff.token)

    client.send(frame)
    reply = client.recv()

    assert (reply["type"], reply["code"]) == ("error", code)
    assert client.ping_ok()
    client.close()


def test_a_first_send_retried_with_its_client_id_is_accepted_once(
    web: int, alpha: TenantSetup
) -> None:
    frame: dict[str, Any] = {
        "type": "chat.send",
        "conversation": None,
        "text": "hello",
        "client_id": str(uuid.uuid4()),
    }
    first = WsClient(web, alpha.host, token=alpha.staff.token)
    first.send(frame)
    accepted = first.until(lambda f: f["type"] == "accepted")[-1]
    first.close()
    reconnected = WsClient(web, alpha.host, token=alpha.staff.token)

    reconnected.send(frame)
    again = reconnected.until(lambda f: f["type"] == "accepted")[-1]

    assert again == accepted
    with tenant_context(alpha.tenant):
        assert Conversation.objects.filter(user=alpha.staff.user).count() == 1
    reconnected.close()


def test_the_documented_decide_frame_with_empty_arguments_approves_unedited(
    web: int, worker: Process, alpha: TenantSetup
) -> None:
    with tenant_context(alpha.tenant):
        group = ContactGroup.objects.create(name="Parents")
        Contact.objects.create(name="Parent", phone="+12025550100").groups.add(group)
    staff = WsClient(web, alpha.host, token=alpha.staff.token)
    approver = WsClient(web, alpha.host, token=alpha.approver.token)
    staff.send_chat("Send an SMS to Parents saying School closes at 1pm")
    proposed = staff.until(lambda f: f["type"] == "pending")[-1]["action"]

    approver.send(
        {
            "type": "action.decide",
            "action": proposed["id"],
            "decision": "approve",
            "arguments": {},
            "note": "",
        }
    )
    # The card passes through "executing" on its way; the decision's outcome is what follows.
    decided = staff.until(
        lambda f: f["type"] == "action" and f["action"]["status"] not in {"approved", "executing"}
    )
    staff.until(lambda f: f["type"] == "done")  # the resume has told the conversation
    _deliveries_settled(alpha)  # the worker is done with the tenant's tables before teardown

    assert decided[-1]["action"]["status"] == "executed"
    assert json.dumps(proposed["arguments"]) != "{}"
    staff.close()
    approver.close()


def _deliveries_settled(setup: TenantSetup, timeout: float = 30) -> None:
    """Wait until no outbound message is queued or sending. A test that ended while the worker
    still delivered had its teardown's TRUNCATE deadlock with the worker's transaction (seen in
    CI), which left its rows to the next tests."""
    deadline = time.monotonic() + timeout
    with tenant_context(setup.tenant):
        while OutboundMessage.objects.filter(status__in=["queued", "sending"]).exists():
            assert time.monotonic() < deadline, "deliveries still under way"
            time.sleep(0.1)
