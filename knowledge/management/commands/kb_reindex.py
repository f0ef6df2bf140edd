"""`manage.py kb_reindex [--tenant X | --all]`: embed stale chunks now, with a progress bar."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django_tenants.utils import tenant_context

from knowledge.management.commands.kb_import import embed_with_progress, tenant_by_schema
from knowledge.models import Document
from knowledge.services import documents_rechunk
from tenants.models import Tenant


class Command(BaseCommand):
    help = (
        "Embed every stale chunk (new, edited, or made by another model) of one tenant or "
        "of all tenants. --rechunk first cuts every document again (after KB_CHUNK_SIZE or "
        "KB_CHUNK_OVERLAP changed)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        which = parser.add_mutually_exclusive_group(required=True)
        which.add_argument("--tenant", help="schema name of the tenant")
        which.add_argument("--all", action="store_true", help="every active tenant")
        parser.add_argument("--rechunk", action="store_true", help="rebuild chunks first")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["all"]:
            tenants = list(Tenant.objects.filter(is_active=True).exclude(schema_name="public"))
            if not tenants:
                raise CommandError("there are no tenants")
        else:
            tenants = [tenant_by_schema(options["tenant"])]
        for tenant in tenants:
            with tenant_context(tenant):
                if options["rechunk"]:
                    documents_rechunk(documents=Document.objects.all(), enqueue=False)
                embedded = embed_with_progress(self.stderr)
            self.stdout.write(f"{tenant.schema_name}: {embedded} chunks embedded")
