"""Each tenant's time zone: a default from the deployment, checked, editable by the platform."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.test import Client

from tenants.models import Tenant
from tenants.selectors import tenant_zone
from tenants.services import platform_get_or_create


def test_a_tenant_starts_in_the_deployments_time_zone(tenant_a: Tenant) -> None:
    assert tenant_zone(schema_name=tenant_a.schema_name).key == settings.TIME_ZONE


def test_a_chosen_time_zone_is_the_tenants_own(tenant_a: Tenant, tenant_b: Tenant) -> None:
    tenant_a.time_zone = "Asia/Seoul"
    tenant_a.save()

    assert tenant_zone(schema_name=tenant_a.schema_name).key == "Asia/Seoul"
    assert tenant_zone(schema_name=tenant_b.schema_name).key == settings.TIME_ZONE


def test_an_unknown_time_zone_is_refused(tenant_a: Tenant) -> None:
    tenant_a.time_zone = "Mars/Olympus_Mons"

    with pytest.raises(ValidationError) as error:
        tenant_a.full_clean()

    assert "time_zone" in error.value.message_dict


def test_the_platform_admin_can_edit_a_tenants_time_zone(tenant_a: Tenant) -> None:
    platform_get_or_create(domain=settings.PLATFORM_DOMAIN)
    User.objects.create_superuser("root", password="pw-root-123")
    platform = Client(HTTP_HOST=settings.PLATFORM_DOMAIN)
    platform.login(username="root", password="pw-root-123")

    page = platform.get(f"/admin/tenants/tenant/{tenant_a.pk}/change/")

    assert page.status_code == 200
    assert 'name="time_zone"' in page.content.decode()
