"""A tenant admin exports the audit trail for a period as JSON Lines or CSV, over the API and
from the admin, and anyone can verify the export offline with tools/audit_verify_export.py
(docs/operations.md, "Audit trail")."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django_tenants.utils import tenant_context

from chat.audit.services import audit_events_redact
from chat.models import ActionEvent, Conversation, PendingAction
from chat.pending_actions import pending_action_decide, pending_action_propose
from tenants.models import Tenant
from tenants.roles import APPROVER, STAFF, TENANT_ADMIN
from tests.chat.doors import token_client
from tests.conftest import host_client
from tests.tenants.factories import http_login, make_user

SCRIPT = Path(__file__).resolve().parents[2] / "tools" / "audit_verify_export.py"
SMS = {"to": ["+12025550100"], "body": "Sports day moves to Friday — 운동회"}


def _actions(tenant: Tenant, count: int = 2) -> list[PendingAction]:
    """``count`` actions of ``tenant``, the first approved: count + 1 events."""
    staff = make_user(tenant, f"staff-{tenant.schema_name}", role=STAFF)
    approver = make_user(tenant, f"approver-{tenant.schema_name}", role=APPROVER)
    with tenant_context(tenant):
        actions = [
            pending_action_propose(
                conversation=Conversation.objects.create(user=staff),
                tool_call_id=f"call_{n}",
                tool="send_sms",
                arguments=SMS,
                requested_by_id=staff.pk,
            )
            for n in range(count)
        ]
        pending_action_decide(action_id=actions[0].id, user=approver, decision="approve")
    return actions


@pytest.fixture
def admin_a(tenant_a: Tenant) -> User:
    return make_user(tenant_a, "ada", role=TENANT_ADMIN)


def _verify(tmp_path: Path, content: bytes, suffix: str, *extra: str) -> tuple[int, str]:
    file = tmp_path / f"export.{suffix}"
    file.write_bytes(content)
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(file), *extra],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.returncode, done.stdout


def test_an_admin_exports_json_lines_that_the_documented_script_verifies(
    tenant_a: Tenant, admin_a: User, tmp_path: Path
) -> None:
    _actions(tenant_a)

    response = token_client(tenant_a, admin_a).get("/api/audit/export?format=jsonl")

    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/jsonl")
    rows = [json.loads(line) for line in response.content.decode().splitlines()]
    assert [row["kind"] for row in rows] == ["proposed", "proposed", "approved"]
    assert rows[0]["data"]["arguments"] == SMS and rows[0]["actor_username"] == "staff-alpha"
    code, out = _verify(tmp_path, response.content, "jsonl", "--prev", "0" * 64)
    assert code == 0 and out.startswith("ok: 3 events"), out


def test_a_csv_export_verifies_too(tenant_a: Tenant, admin_a: User, tmp_path: Path) -> None:
    _actions(tenant_a)

    response = token_client(tenant_a, admin_a).get("/api/audit/export?format=csv")

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    code, out = _verify(tmp_path, response.content, "csv")
    assert code == 0 and out.startswith("ok: 3 events"), out


def test_a_tampered_export_fails_the_script(
    tenant_a: Tenant, admin_a: User, tmp_path: Path
) -> None:
    _actions(tenant_a)
    content = token_client(tenant_a, admin_a).get("/api/audit/export").content.decode()

    tampered = content.replace("Friday", "Monday", 1)
    code, out = _verify(tmp_path, tampered.encode(), "jsonl")
    assert code == 1 and out.startswith("BROKEN: event 1: its data"), out

    without_second = "".join(content.splitlines(keepends=True)[::2])
    code, out = _verify(tmp_path, without_second.encode(), "jsonl")
    assert code == 1 and "event 2: missing" in out, out


def test_a_period_exports_its_events_chained_to_the_one_before(
    tenant_a: Tenant, admin_a: User, tmp_path: Path
) -> None:
    _actions(tenant_a)
    with tenant_context(tenant_a):
        first, second, third = ActionEvent.objects.order_by("seq")
    since = second.at.isoformat().replace("+00:00", "Z")

    response = token_client(tenant_a, admin_a).get("/api/audit/export", {"from": since})

    rows = [json.loads(line) for line in response.content.decode().splitlines()]
    assert [row["seq"] for row in rows] == [2, 3]
    code, out = _verify(tmp_path, response.content, "jsonl", "--prev", first.hash)
    assert code == 0 and out.strip().endswith(third.hash), out


def test_a_redacted_trail_still_verifies_and_says_which_rows_are_redacted(
    tenant_a: Tenant, admin_a: User, tmp_path: Path
) -> None:
    _actions(tenant_a)
    with tenant_context(tenant_a):
        audit_events_redact(older_than_days=0)

    response = token_client(tenant_a, admin_a).get("/api/audit/export?format=csv")

    assert "Friday" not in response.content.decode()
    code, out = _verify(tmp_path, response.content, "csv")
    assert code == 0 and out.startswith("ok: 3 events"), out


def test_a_bad_period_or_format_is_a_400_naming_it(tenant_a: Tenant, admin_a: User) -> None:
    client = token_client(tenant_a, admin_a)

    assert "'from'" in client.get("/api/audit/export?from=last+week").json()["error"]["message"]
    assert "'format'" in client.get("/api/audit/export?format=xml").json()["error"]["message"]


def test_staff_and_approvers_may_not_export(tenant_a: Tenant) -> None:
    _actions(tenant_a)
    for role in (STAFF, APPROVER):
        user = make_user(tenant_a, f"not-admin-{role.replace(' ', '-')}", role=role)

        response = token_client(tenant_a, user).get("/api/audit/export")

        assert response.status_code == 403
        assert response.json()["error"]["code"] == "forbidden"


def test_tenant_b_never_gets_tenant_a_trail(
    tenant_a: Tenant, tenant_b: Tenant, admin_a: User
) -> None:
    a_actions = _actions(tenant_a)
    b_actions = _actions(tenant_b, count=1)
    admin_b = make_user(tenant_b, "bea", role=TENANT_ADMIN)

    response = token_client(tenant_b, admin_b).get("/api/audit/export")

    exported = {json.loads(line)["action"] for line in response.content.decode().splitlines()}
    assert exported == {str(b_actions[0].id)}
    assert not exported & {str(a.id) for a in a_actions}
    a_token_on_b = token_client(tenant_a, admin_a)
    a_token_on_b.defaults["HTTP_HOST"] = "beta.localhost"
    assert a_token_on_b.get("/api/audit/export").status_code == 401


# -- the admin door ---------------------------------------------------------------------------


def test_a_tenant_admin_downloads_the_trail_from_the_admin(
    tenant_a: Tenant, admin_a: User, tmp_path: Path
) -> None:
    _actions(tenant_a)
    client = host_client(tenant_a)
    assert http_login(client, "ada")

    page = client.get("/admin/chat/actionevent/")
    form = client.get("/admin/chat/actionevent/export/")
    response = client.get(
        "/admin/chat/actionevent/export/", {"start": "", "end": "", "format": "csv"}
    )

    assert page.status_code == 200 and b"/admin/chat/actionevent/export/" in page.content
    assert form.status_code == 200 and b"Download" in form.content
    assert response.status_code == 200 and "attachment" in response["Content-Disposition"]
    code, out = _verify(tmp_path, response.content, "csv")
    assert code == 0 and out.startswith("ok: 3 events"), out


def test_the_admin_export_of_tenant_b_holds_only_tenant_b_events(
    tenant_a: Tenant, tenant_b: Tenant
) -> None:
    a_actions = _actions(tenant_a)
    _actions(tenant_b, count=1)
    make_user(tenant_b, "bea", role=TENANT_ADMIN)
    client: Client = host_client(tenant_b)
    assert http_login(client, "bea")

    response = client.get("/admin/chat/actionevent/export/", {"format": "jsonl"})

    rows = [json.loads(line) for line in response.content.decode().splitlines()]
    assert [row["kind"] for row in rows] == ["proposed", "approved"]
    assert not {row["action"] for row in rows} & {str(a.id) for a in a_actions}
