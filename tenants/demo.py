"""The demo tenants of `make run`. Development only: the password is public on purpose.

Product apps add their demo data (sample contacts, knowledge base) through ``demo_seeders``:
each app's AppConfig may define ``seed_demo(tenant)``, called inside the tenant's schema.
"""

from collections.abc import Callable

from django.apps import apps
from django.conf import settings
from django_tenants.utils import tenant_context

from tenants.roles import APPROVER, STAFF, TENANT_ADMIN
from tenants.services import (
    TenantSpec,
    platform_get_or_create,
    platform_superuser_upsert,
    tenant_get_or_create,
    user_upsert,
)

DEMO_PASSWORD = "countersign-demo"
DEMO_TENANTS = (
    TenantSpec(schema_name="demo", name="Demo Academy", domains=("localhost", "demo.localhost")),
    TenantSpec(schema_name="acme", name="Acme Clinic", domains=("acme.localhost",)),
)
DEMO_USERS = (("staff", STAFF), ("approver", APPROVER), ("admin", TENANT_ADMIN))


def demo_bootstrap(*, log: Callable[[str], object] = print) -> None:
    """Create or refresh the demo tenants, their users and each app's demo data."""
    platform_get_or_create(domain=settings.PLATFORM_DOMAIN)
    platform_superuser_upsert(username="platform", password=DEMO_PASSWORD)
    for spec in DEMO_TENANTS:
        tenant, created = tenant_get_or_create(spec=spec)
        log(f"{'created' if created else 'kept'} tenant {spec.schema_name}")
        for username, role in DEMO_USERS:
            user_upsert(
                tenant=tenant,
                username=username,
                password=DEMO_PASSWORD,
                role=role,
                email=f"{username}@{spec.schema_name}.example",
            )
        with tenant_context(tenant):
            for config in apps.get_app_configs():
                seed = getattr(config, "seed_demo", None)
                if seed is not None:
                    seed(tenant)
