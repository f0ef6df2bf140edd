"""The decision-link service on an approver's edit (four eyes): a link to the edited version
confirms or declines it for the person who may, never for its editor. In-process; the pages
are tried through daphne in test_decision_links.py."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django_tenants.utils import tenant_context

from actions.models import EditConfirmer, ToolPolicy
from chat.models import ActionEvent, PendingAction
from chat.pending_actions import pending_action_decide
from notifications.decision_links import (
    LinkNotAllowed,
    decision_link_read,
    decision_link_token,
    decision_link_use,
)
from tenants.models import Tenant
from tests.notifications.conftest import approver_in, propose


def _edited_by(tenant: Tenant, requester: User, editor: User) -> PendingAction:
    """A request that ``editor`` edited, for another approver (not the requester) to confirm."""
    action = propose(tenant, requester)
    with tenant_context(tenant):
        ToolPolicy.objects.update_or_create(
            tool_name="send_sms", defaults={"edit_confirmed_by": EditConfirmer.ANOTHER_APPROVER}
        )
        return pending_action_decide(
            action_id=action.pk,
            user=editor,
            decision="approve",
            arguments={"to": ["Kim Minji"], "body": "No class on Friday or Saturday."},
        )


def _use(tenant: Tenant, user: User, action: PendingAction, decision: str) -> PendingAction:
    with tenant_context(tenant):
        token = decision_link_token(user=user, action=action, purpose="approve")
        return decision_link_use(link=decision_link_read(token=token), user=user, decision=decision)


def test_another_approvers_link_to_the_edited_version_confirms_the_edit(
    tenant_a: Tenant, staff_a: User, outbox_everywhere: None
) -> None:
    editor = approver_in(tenant_a, "olivia", "olivia@alpha.example")
    confirmer = approver_in(tenant_a, "omar", "omar@alpha.example")
    action = _edited_by(tenant_a, staff_a, editor)
    assert (action.status, action.version) == ("edited", 2)

    decided = _use(tenant_a, confirmer, action, "approve")

    assert decided.status == "approved"
    with tenant_context(tenant_a):
        confirmed = ActionEvent.objects.get(action=action, kind="confirmed")
    assert confirmed.actor_id == confirmer.pk and confirmed.data["version"] == 2


def test_the_editors_own_link_never_confirms_their_edit(
    tenant_a: Tenant, staff_a: User, outbox_everywhere: None
) -> None:
    editor = approver_in(tenant_a, "olivia", "olivia@alpha.example")
    action = _edited_by(tenant_a, staff_a, editor)

    with pytest.raises(LinkNotAllowed, match="someone else must confirm your edit"):
        _use(tenant_a, editor, action, "approve")

    with tenant_context(tenant_a):
        action.refresh_from_db()
        assert action.status == "edited"
        assert not ActionEvent.objects.filter(action=action, kind="confirmed").exists()
