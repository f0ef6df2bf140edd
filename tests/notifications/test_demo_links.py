"""A demo you can follow (issue 29): under ``make run`` (DEBUG) a digest's links open where the
tenant's pages were opened, production keeps its configured address, and the next digest is
never more than a minute behind the first."""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone
from django_tenants.utils import tenant_context
from pytest_django.fixtures import Settings as SettingsWrapper

from notifications.models import ApprovalDigest
from notifications.services import digest_run
from tenants.models import Tenant
from tests.notifications.conftest import approver_in, forget_link_origins, propose
from tests.tenants.factories import http_login
from tests.unit.actions.fakes import FakeSmtpServer

Status = ApprovalDigest.Status


def _open_a_page(tenant: Tenant, user: User, host: str) -> None:
    """``user`` opens their settings page at ``host`` (a dev server's address, with its port)."""
    client = Client(HTTP_HOST=host)
    assert http_login(client, user.get_username())
    assert client.get("/settings/notifications/").status_code == 200


def _sent_body(tenant: Tenant, user: User, fake_smtp: FakeSmtpServer) -> str:
    with tenant_context(tenant):
        assert digest_run(user_id=user.pk).status == Status.SENT
    return fake_smtp.messages[-1].message.get_content()


def test_in_development_the_links_open_where_the_tenants_page_was_opened(
    tenant_a: Tenant, staff_a: User, fake_smtp: FakeSmtpServer, settings: SettingsWrapper
) -> None:
    settings.DEBUG = True
    forget_link_origins(tenant_a)
    olivia = approver_in(tenant_a, "olivia", "olivia@alpha.example")
    _open_a_page(tenant_a, olivia, "alpha.localhost:8123")
    propose(tenant_a, staff_a)

    body = _sent_body(tenant_a, olivia, fake_smtp)

    # The e-mail's links are signed decision links (notifications/decision_links.py).
    assert "Approve: http://alpha.localhost:8123/approvals/decide/" in body
    assert "Open: http://alpha.localhost:8123/approvals/decide/" in body
    assert "http://alpha.localhost:8123/settings/notifications/" in body


def test_in_production_the_links_keep_the_configured_address(
    tenant_a: Tenant, staff_a: User, fake_smtp: FakeSmtpServer, settings: SettingsWrapper
) -> None:
    settings.DEBUG = True
    forget_link_origins(tenant_a)
    olivia = approver_in(tenant_a, "olivia", "olivia@alpha.example")
    _open_a_page(tenant_a, olivia, "alpha.localhost:8123")
    settings.DEBUG = False
    propose(tenant_a, staff_a)

    body = _sent_body(tenant_a, olivia, fake_smtp)

    assert "Open: https://alpha.localhost/approvals/decide/" in body
    assert ":8123" not in body


def test_a_page_opened_on_another_tenant_never_changes_this_tenants_links(
    tenant_a: Tenant,
    tenant_b: Tenant,
    staff_a: User,
    fake_smtp: FakeSmtpServer,
    settings: SettingsWrapper,
) -> None:
    settings.DEBUG = True
    forget_link_origins(tenant_a, tenant_b)
    olivia = approver_in(tenant_a, "olivia", "olivia@alpha.example")
    bella = approver_in(tenant_b, "bella", "bella@beta.example")
    _open_a_page(tenant_a, olivia, "alpha.localhost:8123")
    _open_a_page(tenant_b, bella, "beta.localhost:9999")
    propose(tenant_a, staff_a)

    body = _sent_body(tenant_a, olivia, fake_smtp)

    assert "http://alpha.localhost:8123/approvals/" in body
    assert "beta.localhost" not in body and ":9999" not in body


def test_the_next_digest_goes_out_a_minute_after_the_first(
    tenant_a: Tenant, staff_a: User, fake_smtp: FakeSmtpServer
) -> None:
    olivia = approver_in(tenant_a, "olivia", "olivia@alpha.example")
    propose(tenant_a, staff_a, call="call-1")
    _sent_body(tenant_a, olivia, fake_smtp)
    with tenant_context(tenant_a):
        ApprovalDigest.objects.update(created_at=timezone.now() - timedelta(seconds=61))
    propose(tenant_a, staff_a, call="call-2")

    _sent_body(tenant_a, olivia, fake_smtp)

    assert len(fake_smtp.messages) == 2
