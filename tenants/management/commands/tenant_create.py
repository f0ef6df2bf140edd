"""`manage.py tenant_create`: a tenant with its domains and its first tenant admin."""

import getpass
import os
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tenants.services import (
    FirstAdmin,
    OnboardingFailed,
    OnboardingRefused,
    TenantSpec,
    tenant_onboard,
)


class Command(BaseCommand):
    help = "Create a tenant (schema, domains, roles) and its first tenant admin."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "schema",
            help="schema name: lower-case letters, digits, underscores; must not exist yet",
        )
        parser.add_argument("--name", required=True, help="display name of the organisation")
        parser.add_argument(
            "--domain", action="append", required=True, help="host name (repeatable)"
        )
        parser.add_argument("--admin", default="admin", help="username of the first tenant admin")
        parser.add_argument("--admin-email", default="")
        parser.add_argument(
            "--admin-password",
            help=f"else ${PASSWORD_ENV}, else asked for in a terminal (a command line is visible "
            "to other users of the machine: prefer the variable or the prompt)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        password = _admin_password(options["admin_password"])
        spec = TenantSpec(
            schema_name=options["schema"], name=options["name"], domains=tuple(options["domain"])
        )
        first_admin = FirstAdmin(
            username=options["admin"], password=password, email=options["admin_email"]
        )
        try:
            tenant = tenant_onboard(spec=spec, first_admin=first_admin)
        except (OnboardingRefused, OnboardingFailed) as error:
            raise CommandError(str(error)) from error
        where = ", ".join(tenant.domains.values_list("domain", flat=True))
        message = f"tenant {tenant.name} ({tenant.schema_name}) at {where}; "
        self.stdout.write(self.style.SUCCESS(message + f"first admin: {first_admin.username}"))


PASSWORD_ENV = "TENANT_ADMIN_PASSWORD"


def _admin_password(given: str | None) -> str:
    """The first admin's password: given, from the environment, or asked for. With no terminal
    to ask in (a script, CI, a pipe) that is a clear error, not a traceback from getpass."""
    password = given or os.environ.get(PASSWORD_ENV, "")
    if password:
        return password
    if not sys.stdin.isatty():
        raise CommandError(
            f"no password for the tenant admin: pass --admin-password, set {PASSWORD_ENV}, "
            "or run in a terminal to be asked"
        )
    return getpass.getpass("Password for the tenant admin: ")
