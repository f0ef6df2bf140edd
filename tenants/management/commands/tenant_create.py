"""`manage.py tenant_create`: a tenant with its domains and its first tenant admin."""

import getpass
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tenants.roles import TENANT_ADMIN
from tenants.services import (
    TenantExistsError,
    TenantSpec,
    schema_name_problem,
    tenant_create,
    user_upsert,
)


class Command(BaseCommand):
    help = "Create a tenant (schema, domains, roles) and its first tenant admin."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("schema", help="schema name: lowercase letters, digits, underscores")
        parser.add_argument("--name", required=True, help="display name of the organisation")
        parser.add_argument(
            "--domain", action="append", required=True, help="host name (repeatable)"
        )
        parser.add_argument("--admin", default="admin", help="username of the first tenant admin")
        parser.add_argument("--admin-email", default="")
        parser.add_argument("--admin-password", help="prompted for when omitted")

    def handle(self, *args: Any, **options: Any) -> None:
        schema = options["schema"]
        problem = schema_name_problem(schema.lower())
        if problem:
            raise CommandError(f"schema {schema!r} {problem}")
        password = options["admin_password"] or getpass.getpass("Password for the tenant admin: ")
        spec = TenantSpec(
            schema_name=schema.lower(), name=options["name"], domains=tuple(options["domain"])
        )
        try:
            tenant = tenant_create(spec=spec)
        except TenantExistsError as error:
            raise CommandError(str(error)) from error
        user_upsert(
            tenant=tenant,
            username=options["admin"],
            password=password,
            role=TENANT_ADMIN,
            email=options["admin_email"],
        )
        where, admin = ", ".join(spec.domains), options["admin"]
        message = f"tenant {tenant.name} ({schema}) at {where}; first admin: {admin}"
        self.stdout.write(self.style.SUCCESS(message))
