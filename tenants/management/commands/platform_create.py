"""`manage.py platform_create`: the platform host (the public schema's domain, which serves the
platform admin) and its operator, a superuser in the public schema. For production: the
password comes from ``PLATFORM_ADMIN_PASSWORD`` or a prompt, never from the command line (it
would sit in the shell's history and the process list). Running it again changes nothing but
the operator's e-mail and password."""

import getpass
import os
import sys
from typing import Any

from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django_tenants.utils import schema_context

from tenants.models import Domain
from tenants.onboarding_rules import host_name_normalised
from tenants.services import platform_get_or_create, platform_superuser_upsert

PASSWORD_ENV = "PLATFORM_ADMIN_PASSWORD"


class Command(BaseCommand):
    help = "Create the platform host (platform admin) and its superuser; safe to run again."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--domain", required=True, help="host name of the platform admin")
        parser.add_argument("--admin-email", required=True, help="the operator's e-mail")
        parser.add_argument("--admin", default="platform", help="the operator's username")

    def handle(self, *args: Any, **options: Any) -> None:
        domain = host_name_normalised(options["domain"])
        with schema_context("public"):
            serving = Domain.objects.filter(domain=domain).select_related("tenant").first()
        if serving is not None and serving.tenant.schema_name != "public":
            raise CommandError(
                f"{domain} already serves tenant {serving.tenant.schema_name}; "
                "the platform needs a host name of its own"
            )
        password = self._password()
        try:
            validate_password(password)
        except ValidationError as error:
            raise CommandError("password refused: " + " ".join(error.messages)) from error
        platform_get_or_create(domain=domain)
        operator = platform_superuser_upsert(
            username=options["admin"], password=password, email=options["admin_email"]
        )
        self.stdout.write(
            self.style.SUCCESS(f"platform admin at {domain}; superuser: {operator.username}")
        )

    def _password(self) -> str:
        password = os.environ.get(PASSWORD_ENV, "")
        if password:
            return password
        if not sys.stdin.isatty():
            raise CommandError(
                f"no password: set {PASSWORD_ENV} or run the command in a terminal to be asked"
            )
        password = getpass.getpass("Password for the platform superuser: ")
        if password != getpass.getpass("Again: "):
            raise CommandError("the two passwords differ")
        return password
