"""`manage.py audit_verify [--tenant T]`: check the audit chain of one tenant, or of all.

Prints one line per tenant (events checked, or where the chain first breaks) and exits with
status 1 when any chain is broken, so a cron job or an inspector's script can rely on it.
"""

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django_tenants.utils import tenant_context

from chat.audit.selectors import audit_chain_verify
from tenants.models import Tenant


class Command(BaseCommand):
    help = "Verify the tamper-evident audit chain of a tenant (all tenants without --tenant)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tenant", help="schema name, e.g. demo; all tenants when absent")

    def handle(self, *args: Any, **options: Any) -> None:
        tenants = Tenant.objects.exclude(schema_name="public").order_by("schema_name")
        if options["tenant"]:
            tenants = tenants.filter(schema_name=options["tenant"])
            if not tenants.exists():
                raise CommandError(f"no tenant {options['tenant']!r}")
        broken = []
        for tenant in tenants:
            with tenant_context(tenant):
                check = audit_chain_verify()
            if check.broken is None:
                self.stdout.write(f"{tenant.schema_name}: ok, {check.events} events")
            else:
                broken.append(tenant.schema_name)
                self.stdout.write(f"{tenant.schema_name}: BROKEN at {check.broken}")
        if broken:
            raise CommandError(f"audit chain broken in {', '.join(broken)}", returncode=1)
