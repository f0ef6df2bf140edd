"""`manage.py bootstrap_demo`: two demo tenants with one user per role (idempotent)."""

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand

from tenants.demo import DEMO_PASSWORD, DEMO_TENANTS, DEMO_USERS, demo_bootstrap


class Command(BaseCommand):
    help = "Create (or refresh) the demo tenants 'demo' and 'acme' with staff/approver/admin users."

    def handle(self, *args: Any, **options: Any) -> None:
        demo_bootstrap(log=self.stdout.write)
        self.stdout.write(self.style.SUCCESS("Demo tenants ready. Log in at:"))
        for spec in DEMO_TENANTS:
            for domain in spec.domains:
                self.stdout.write(f"  http://{domain}:8000/   ({spec.name})")
        users = ", ".join(f"{username} ({role})" for username, role in DEMO_USERS)
        self.stdout.write(f"Users in each tenant: {users}; password: {DEMO_PASSWORD}")
        self.stdout.write("Tenant admin (user 'admin'): http://localhost:8000/admin/")
        self.stdout.write(
            f"Platform admin (user 'platform'): http://{settings.PLATFORM_DOMAIN}:8000/admin/"
        )
