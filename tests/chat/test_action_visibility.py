"""The one rule of who reads an action (chat.selectors.action_visible_to): its requester, the
people the tenant's live tool policy lets decide its tool, and tenant admins; nobody else."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.contrib.auth.models import Group, User

from actions.models import Contact, ToolPolicy
from chat.events.payloads import action_payload, action_payload_for, redacted_action
from chat.models import Conversation, PendingAction
from chat.pending_actions import pending_action_propose
from chat.selectors import action_visible_to, actions_visible, conversation_watchable
from tenants.models import Tenant
from tenants.roles import APPROVER, STAFF, TENANT_ADMIN
from tests.tenants.factories import make_user


@dataclass
class Desk:
    people: dict[str, User]
    email: PendingAction
    sms: PendingAction
    announcement: PendingAction  # its policy names no group: the approver role decides it


@pytest.fixture
def desk(in_tenant_a: Tenant) -> Desk:
    tenant = in_tenant_a
    people = {
        "requester": make_user(tenant, "sam", role=STAFF),
        "sms desk": make_user(tenant, "sally", role=STAFF),
        "mail desk": make_user(tenant, "erin", role=STAFF),
        "approver role": make_user(tenant, "april", role=APPROVER),
        "tenant admin": make_user(tenant, "tina", role=TENANT_ADMIN),
        "other staff": make_user(tenant, "otto", role=STAFF),
        "gone mail desk": make_user(tenant, "gina", role=STAFF),
    }
    for group, members in (
        ("sms desk", ["sms desk"]),
        ("mail desk", ["mail desk", "gone mail desk"]),
    ):
        made = Group.objects.create(name=group)
        made.user_set.add(*(people[m] for m in members))
        tool = "send_sms" if group == "sms desk" else "send_email"
        ToolPolicy.objects.update_or_create(tool_name=tool, defaults={"approver_group": made})
    people["gone mail desk"].is_active = False
    people["gone mail desk"].save()
    Contact.objects.create(name="Kim", phone="+12025550101", email="kim@example.com")
    conversation = Conversation.objects.create(user=people["requester"])

    def propose(tool: str, arguments: dict[str, object]) -> PendingAction:
        return pending_action_propose(
            conversation=conversation,
            tool_call_id=f"call-{tool}",
            tool=tool,
            arguments=arguments,
            requested_by_id=people["requester"].pk,
        )

    return Desk(
        people,
        email=propose("send_email", {"to": ["Kim"], "subject": "Pay", "body": "secret"}),
        sms=propose("send_sms", {"to": ["Kim"], "body": "hello"}),
        announcement=propose("create_announcement", {"title": "Fire drill", "body": "At 3pm"}),
    )


# who → (reads the e-mail, the SMS, the announcement)
RULES = {
    "requester": (True, True, True),
    "sms desk": (False, True, False),
    "mail desk": (True, False, False),
    "approver role": (False, False, True),
    "tenant admin": (True, True, True),
    "other staff": (False, False, False),
    "gone mail desk": (False, False, False),
}


@pytest.mark.parametrize(("who", "reads"), RULES.items())
def test_who_reads_which_action(desk: Desk, who: str, reads: tuple[bool, bool, bool]) -> None:
    user = desk.people[who]
    actions = (desk.email, desk.sms, desk.announcement)

    assert tuple(action_visible_to(user=user, action=a) for a in actions) == reads
    # The query filter every list uses says the same.
    listed = set(actions_visible(user=user).values_list("pk", flat=True))
    assert tuple(a.pk in listed for a in actions) == reads


def test_a_policy_change_counts_at_once(desk: Desk) -> None:
    sally = desk.people["sms desk"]
    assert not action_visible_to(user=sally, action=desk.email)

    ToolPolicy.objects.filter(tool_name="send_email").update(
        approver_group=Group.objects.get(name="sms desk")
    )

    assert action_visible_to(user=sally, action=desk.email)


@pytest.mark.parametrize(
    ("who", "watches"),
    [
        ("tenant admin", True),  # reads every action in it
        ("sms desk", False),  # the e-mail in it is not hers to read
        ("approver role", False),
        ("requester", False),  # their own: conversation_for_user's, not a watch
    ],
)
def test_someone_elses_conversation_is_watchable_only_when_every_action_in_it_is_readable(
    desk: Desk, who: str, watches: bool
) -> None:
    found = conversation_watchable(
        user=desk.people[who], conversation_uuid=str(desk.email.conversation.uuid)
    )

    assert (found is not None) == watches


def test_a_redacted_action_keeps_its_id_tool_and_status_and_nothing_it_says(desk: Desk) -> None:
    sally = desk.people["sms desk"]

    for full in (True, False):
        shown = action_payload_for(desk.email, viewer=sally, full=full)
        assert shown == redacted_action(action_payload(desk.email, full=full))
        assert shown["id"] == str(desk.email.id) and shown["tool"] == "send_email"
        assert shown["status"] == "pending" and shown["redacted"] is True
        assert shown["description"] == "A “Send e-mail” request, for its own approvers to read"
        assert "Kim" not in repr(shown) and "Pay" not in repr(shown)
        assert "secret" not in repr(shown)
