"""The public protocol end to end: real daphne, real Celery workers, embedded Redis/PostgreSQL."""

from __future__ import annotations

import time
from typing import Any

import pytest
from django_tenants.utils import tenant_context

from actions.models import Contact, ContactGroup, OutboundMessage
from chat.models import Message, PendingAction
from knowledge.indexing import kb_reindex
from knowledge.services import document_create_from_text
from tests.e2e.conftest import Api, Process, TenantSetup
from tests.e2e.wsclient import WsClient

pytestmark = pytest.mark.e2e

POLICY = (
    "# Leave policy\n\nStaff receive 20 days of paid annual leave per year. Unused leave can be "
    "carried over for up to three months with the approval of a manager."
)


def _seqs(frames: list[dict[str, Any]]) -> list[int]:
    return [f["seq"] for f in frames if "seq" in f]


def _kb(setup: TenantSetup) -> None:
    with tenant_context(setup.tenant):
        document_create_from_text(title="Leave policy", text=POLICY)
        kb_reindex()


def _parents(setup: TenantSetup) -> None:
    with tenant_context(setup.tenant):
        group = ContactGroup.objects.create(name="Parents")
        for index in range(2):
            Contact.objects.create(name=f"Parent {index}", phone=f"+1202555010{index}").groups.add(
                group
            )


def test_a_question_streams_status_tokens_and_done_with_citations(
    web: int, worker: Process, alpha: TenantSetup
) -> None:
    _kb(alpha)
    client = WsClient(web, alpha.host, token=alpha.staff.token)

    client.send_chat("How many days of paid annual leave do staff get?")
    frames = client.until(lambda f: f["type"] in ("done", "error"))

    assert frames[0]["type"] == "accepted"
    kinds = [f["type"] for f in frames[1:]]
    assert kinds[:2] == ["message", "status"] and kinds[-1] == "done"
    assert kinds.count("token") >= 2
    seqs = _seqs(frames)
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
    done = frames[-1]
    assert "20 days" in done["content"] and done["citations"][0]["title"] == "Leave policy"
    assert "".join(f["content"] for f in frames if f["type"] == "token") == done["content"]


def test_an_sms_request_is_approved_over_http_and_both_clients_see_it_through(
    web: int, worker: Process, alpha: TenantSetup
) -> None:
    _parents(alpha)
    staff = WsClient(web, alpha.host, token=alpha.staff.token)
    approver = WsClient(web, alpha.host, token=alpha.approver.token)

    staff.send_chat("Send an SMS to Parents saying School closes at 1pm")
    pending = staff.until(lambda f: f["type"] == "pending")[-1]
    inbox = approver.until(lambda f: f["type"] == "pending")[-1]
    approver.send(
        {"type": "chat.subscribe", "conversation": pending["conversation"], "after": inbox["seq"]}
    )
    response = Api(web, alpha.host, alpha.approver.token).post(
        f"/api/actions/{pending['action']['id']}/approve", {"note": "ok"}
    )

    assert response.status_code == 200, response.text
    # The approver watches someone else's conversation: its action events, not its reply
    # (docs/web.md, "Who sees an action").
    for client, last in ((staff, "done"), (approver, "action")):
        frames = client.until(
            lambda f, last=last: (
                f["type"] == last and (last == "done" or f["action"]["status"] == "executed")
            )
        )
        statuses = [f["action"]["status"] for f in frames if f["type"] == "action"]
        assert statuses[0] == "approved" and "executed" in statuses
    assert not any(f["type"] in ("token", "done") for f in approver.frames)
    with tenant_context(alpha.tenant):
        assert OutboundMessage.objects.count() == 2


def test_reconnecting_with_the_last_seq_replays_exactly_what_was_missed(
    web: int, worker: Process, alpha: TenantSetup
) -> None:
    _kb(alpha)
    first = WsClient(web, alpha.host, token=alpha.staff.token)
    first.send_chat("How many days of paid annual leave do staff get?")
    seen = first.until(lambda f: f["type"] == "token")
    first.close()
    conversation, last = seen[-1]["conversation"], seen[-1]["seq"]

    second = WsClient(web, alpha.host, token=alpha.staff.token)
    second.send({"type": "chat.subscribe", "conversation": conversation, "after": last})
    rest = second.until(lambda f: f["type"] == "done")

    assert _seqs(rest) == list(range(last + 1, last + 1 + len(rest)))
    full = "".join(f["content"] for f in seen + rest if f["type"] == "token")
    assert full == rest[-1]["content"]


def test_a_reply_is_persisted_even_when_the_client_never_comes_back(
    web: int, worker: Process, alpha: TenantSetup
) -> None:
    _kb(alpha)
    client = WsClient(web, alpha.host, token=alpha.staff.token)
    client.send_chat("How many days of paid annual leave do staff get?")
    client.until(lambda f: f["type"] == "accepted")
    client.close()

    deadline = time.monotonic() + 30
    with tenant_context(alpha.tenant):
        while not Message.objects.filter(role="assistant").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        reply = Message.objects.get(role="assistant")
    assert "20 days" in reply.content and reply.status == Message.Status.COMPLETE


def _sse_events(lines: Any, *, stop_at: str) -> list[tuple[str, int]]:
    """(event type, id) of each event of a text/event-stream, up to the first ``stop_at``."""
    events: list[tuple[str, int]] = []
    fields: dict[str, str] = {}
    for line in lines:
        if line:
            name, _, value = line.partition(": ")
            fields[name] = value
            continue
        if "event" in fields:  # a blank line ends an event
            events.append((fields["event"], int(fields["id"])))
            if fields["event"] == stop_at:
                break
        fields = {}
    return events


def test_sse_streams_the_same_events_and_honours_last_event_id(
    web: int, worker: Process, alpha: TenantSetup
) -> None:
    _kb(alpha)
    api = Api(web, alpha.host, alpha.staff.token)
    created = api.post(
        "/api/conversations/", {"text": "How many days of paid annual leave?"}
    ).json()
    url = f"/api/conversations/{created['conversation']}/events/"

    with api.client.stream("GET", url, params={"after": 0}) as stream:
        events = _sse_events(stream.iter_lines(), stop_at="done")
    seqs = [seq for _, seq in events]
    with api.client.stream("GET", url, headers={"Last-Event-ID": str(seqs[-2])}) as again:
        replayed = _sse_events(again.iter_lines(), stop_at="done")

    assert seqs == list(range(1, len(seqs) + 1))
    assert [kind for kind, _ in events[:2]] == ["message", "status"] and events[-1][0] == "done"
    assert replayed == [events[-1]]


def test_a_token_of_tenant_a_is_refused_on_tenant_b_at_the_handshake(
    web: int, alpha: TenantSetup, beta: TenantSetup
) -> None:
    client = WsClient(web, beta.host, token=alpha.staff.token)

    assert client.close_code() == 4401


def test_another_tenants_conversation_is_invisible_over_ws_sse_and_http(
    web: int, worker: Process, alpha: TenantSetup, beta: TenantSetup
) -> None:
    _kb(alpha)
    own = (
        Api(web, alpha.host, alpha.staff.token)
        .post("/api/conversations/", {"text": "How many days of leave?"})
        .json()["conversation"]
    )
    intruder = WsClient(web, beta.host, token=beta.staff.token)
    beta_api = Api(web, beta.host, beta.staff.token)

    intruder.send({"type": "chat.subscribe", "conversation": own, "after": 0})
    reply = intruder.recv()

    assert reply["type"] == "error" and reply["code"] == "not_found"
    assert beta_api.get(f"/api/conversations/{own}/").status_code == 404
    assert beta_api.get(f"/api/conversations/{own}/events/").status_code == 404
    assert beta_api.post(f"/api/conversations/{own}/messages/", {"text": "hi"}).status_code == 404
    with tenant_context(alpha.tenant):
        action_ids = list(PendingAction.objects.values_list("id", flat=True))
    assert (
        action_ids == []
        or beta_api.post(f"/api/actions/{action_ids[0]}/approve").status_code == 404
    )
