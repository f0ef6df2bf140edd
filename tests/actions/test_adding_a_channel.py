"""Adding a delivery channel is one module plus one line in the channel table: a fake "pager"
channel, registered in ``TRANSPORTS`` alone (and given a backend in settings, as a deployment
would), carries an action's outbound messages and an approver's notices through the one outbox
loop, and its webhook brings "YES <code>" back in, with no other change."""

from __future__ import annotations

import hmac
import json
import uuid
from collections.abc import Iterator, Mapping

import pytest
from django.test import Client
from django_tenants.utils import tenant_context
from pytest_django.fixtures import Settings as SettingsWrapper

from actions.delivery import (
    TRANSPORTS,
    ChannelKind,
    Delivery,
    DeliveryBackend,
    DeliveryResult,
    InboundAnswer,
    InboundMessage,
    InboundRequest,
)
from actions.models import OutboundMessage
from actions.selectors import Recipient, RecipientPlan
from actions.services.messages import outbound_message_deliver, outbound_messages_queue
from chat.models import PendingAction
from notifications.models import ApprovalDigest, ApprovalNotice, NotificationPreference
from notifications.services import digest_run
from tenants.models import Tenant
from tenants.roles import STAFF
from tests.notifications.conftest import approver_in, propose
from tests.tenants.factories import make_user

# -- the channel's module: what a new channel brings ----------------------------------------------

PAGED: list[Delivery] = []


class PagerBackend:
    def send(self, delivery: Delivery) -> DeliveryResult:
        PAGED.append(delivery)
        return DeliveryResult(f"page-{len(PAGED)}", "paged")


def _pager_number(address: str, region: str | None = None) -> str:
    if not address.strip().isdigit():
        raise ValueError(f"{address!r} is not a pager number")
    return address.strip()


class PagerInbound:
    secret_setting = "PAGER_INBOUND_SECRET"

    def verified(self, request: InboundRequest, *, secret: str) -> bool:
        return hmac.compare_digest(request.headers.get("x-pager-secret", ""), secret)

    def message(self, request: InboundRequest) -> InboundMessage | None:
        page = json.loads(request.body)
        return InboundMessage(senders=(page["from"],), text=page["text"], message_id=page["id"])

    def answer(self, message: InboundMessage, text: str) -> InboundAnswer:
        return InboundAnswer("application/json", json.dumps({"page": text}).encode())


def _pager(config: Mapping[str, str]) -> DeliveryBackend:
    return PagerBackend()


PAGER = ChannelKind(
    name="pager",
    label="Pager",
    providers={"pager": _pager},
    address=_pager_number,
    inbound=PagerInbound(),
)

# -- its line in the table, and its settings ------------------------------------------------------


@pytest.fixture(autouse=True)
def pager_channel(monkeypatch: pytest.MonkeyPatch, settings: SettingsWrapper) -> Iterator[None]:
    monkeypatch.setitem(TRANSPORTS, "pager", PAGER)
    settings.ACTIONS_BACKENDS = {**settings.ACTIONS_BACKENDS, "pager": "pager"}
    settings.ACTIONS_DELIVERY_CONFIG = {
        **settings.ACTIONS_DELIVERY_CONFIG,
        "PAGER_INBOUND_SECRET": "pager-secret",
    }
    PAGED.clear()
    yield
    PAGED.clear()


def test_an_actions_outbound_message_goes_out_through_the_new_channel(
    in_tenant_a: Tenant,
) -> None:
    queued = outbound_messages_queue(
        action_id=uuid.uuid4(),
        channel="pager",
        resolve=lambda: RecipientPlan(recipients=[Recipient("5550101", None, "5550101")]),
        body="Gate 3 is closed.",
    )
    [message] = queued.messages

    outbound_message_deliver(message_id=message.pk)

    assert [(d.channel, d.to_address, d.body) for d in PAGED] == [
        ("pager", "5550101", "Gate 3 is closed.")
    ]
    message = OutboundMessage.objects.get(pk=message.pk)
    assert (message.status, message.provider_message_id) == ("sent", "page-1")


def test_an_approver_who_chose_the_new_channel_is_told_through_it_and_decides_by_reply(
    tenant_a: Tenant,
) -> None:
    staff = make_user(tenant_a, "sam", role=STAFF)
    olivia = approver_in(tenant_a, "olivia", "")
    with tenant_context(tenant_a):
        NotificationPreference.objects.create(user=olivia, channel="pager", address="5550177")
    action = propose(tenant_a, staff)

    with tenant_context(tenant_a):
        assert digest_run(user_id=olivia.pk).status == ApprovalDigest.Status.SENT
        code = ApprovalNotice.objects.get(user=olivia, action=action).reply_code
    [page] = PAGED
    assert (page.channel, page.to_address) == ("pager", "5550177")
    assert f"Reply YES {code} to approve" in page.body

    reply = Client(HTTP_HOST="alpha.localhost").post(
        "/hooks/pager/inbound",
        data={"from": "5550177", "text": f"NO {code}", "id": "page-in-1"},
        content_type="application/json",
        HTTP_X_PAGER_SECRET="pager-secret",
    )

    assert reply.status_code == 200 and reply.json()["page"].startswith(f"Rejected {code}")
    with tenant_context(tenant_a):
        assert PendingAction.objects.get(pk=action.pk).status == PendingAction.Status.REJECTED
