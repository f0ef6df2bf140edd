from __future__ import annotations

from typing import Any

from django.apps import AppConfig
from django.conf import settings


class KnowledgeConfig(AppConfig):
    name = "knowledge"
    verbose_name = "Knowledge base"
    default_auto_field = "django.db.models.BigAutoField"

    # Tenant admins curate the knowledge base in Django admin; staff only search it (through
    # the assistant and the API), which needs no model permission.
    role_permissions = {
        "tenant admin": [
            "knowledge.add_document",
            "knowledge.change_document",
            "knowledge.delete_document",
            "knowledge.view_document",
            "knowledge.view_chunk",
            "knowledge.search_playground",
            "knowledge.add_knowledgesettings",
            "knowledge.change_knowledgesettings",
            "knowledge.view_knowledgesettings",
        ]
    }
    periodic_jobs: list[Any] = []

    def ready(self) -> None:
        # tenants.schedules needs the app registry, so the job is declared here.
        from tenants.schedules import PeriodicJob

        # Beat runs tenants.fan_out every interval, which sends this task once per tenant.
        self.periodic_jobs = [
            PeriodicJob(
                task="knowledge.reindex_tenant",
                every_seconds=settings.KB_REINDEX_EVERY_SECONDS,
                name="knowledge: embed stale chunks in every tenant",
            )
        ]

    def seed_demo(self, tenant: Any) -> None:
        """Load knowledge/demo/*.md into the tenant (called inside its schema) and embed them."""
        from knowledge.demo import demo_documents_load

        demo_documents_load()
