"""The tenant setting ``unapprovable_requests``: the platform admin sets it, per tenant."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client

from tenants.models import Tenant
from tenants.selectors import tenant_unapprovable_requests
from tenants.services import platform_get_or_create


def test_a_tenant_starts_by_telling_its_admins(tenant_a: Tenant) -> None:
    assert tenant_unapprovable_requests(schema_name=tenant_a.schema_name) == "notify_admins"


def test_the_platform_admin_sets_it_for_one_tenant_only(tenant_a: Tenant, tenant_b: Tenant) -> None:
    platform_get_or_create(domain=settings.PLATFORM_DOMAIN)
    User.objects.create_superuser("root", password="pw-root-123")
    platform = Client(HTTP_HOST=settings.PLATFORM_DOMAIN)
    platform.login(username="root", password="pw-root-123")
    url = f"/admin/tenants/tenant/{tenant_a.pk}/change/"
    page = platform.get(url)
    form = page.context["adminform"].form
    data = {
        name: value
        for name, value in form.initial.items()
        if name in form.fields and value is not None
    }
    data["unapprovable_requests"] = "reject"
    domains = page.context["inline_admin_formsets"][0].formset
    data.update({f"domains-{key}": value for key, value in domains.management_form.initial.items()})
    data["domains-TOTAL_FORMS"] = data["domains-INITIAL_FORMS"]  # no new, empty domain row
    for n, domain in enumerate(tenant_a.domains.all()):
        data.update(
            {
                f"domains-{n}-id": domain.pk,
                f"domains-{n}-tenant": tenant_a.pk,
                f"domains-{n}-domain": domain.domain,
                f"domains-{n}-is_primary": "on" if domain.is_primary else "",
            }
        )

    answer = platform.post(url, data)

    assert answer.status_code == 302, "saved, back to the list"
    assert tenant_unapprovable_requests(schema_name=tenant_a.schema_name) == "reject"
    assert tenant_unapprovable_requests(schema_name=tenant_b.schema_name) == "notify_admins"
