"""`manage.py api_token_create --tenant T --user U [--name N]`: prints a new token once."""

from typing import Any

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django_tenants.utils import tenant_context

from chat.tokens import api_token_create
from tenants.models import Tenant


class Command(BaseCommand):
    help = "Create an API token for a user of a tenant; the token is printed once, never stored."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tenant", required=True, help="schema name, e.g. demo")
        parser.add_argument("--user", required=True, help="username in that tenant")
        parser.add_argument("--name", default="cli", help="what the token is for")

    def handle(self, *args: Any, **options: Any) -> None:
        tenant = (
            Tenant.objects.filter(schema_name=options["tenant"])
            .exclude(schema_name="public")
            .first()
        )
        if tenant is None:
            raise CommandError(f"no tenant {options['tenant']!r}")
        with tenant_context(tenant):
            user = User.objects.filter(username=options["user"], is_active=True).first()
            if user is None:
                raise CommandError(
                    f"no active user {options['user']!r} in tenant {tenant.schema_name}"
                )
            _, token = api_token_create(user=user, name=options["name"])
        self.stdout.write(token)
        self.stderr.write("Store it now: it cannot be shown again.")
