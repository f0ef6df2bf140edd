from __future__ import annotations

from typing import Any

from django.apps import AppConfig
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured


def check_delivery_settings() -> None:
    """Build every configured delivery backend once, so a bad setting stops start-up.

    This runs in ``ready()`` rather than as a system check because system checks do not run
    when daphne or a Celery worker starts, and those are the processes that deliver.
    """
    from actions.delivery import build_backend

    for channel, backend in settings.ACTIONS_BACKENDS.items():
        try:
            build_backend(channel, backend, settings.ACTIONS_DELIVERY_CONFIG)
        except ValueError as error:
            raise ImproperlyConfigured(
                f"ACTIONS_{channel.upper()}_BACKEND={backend} cannot start: {error}"
            ) from None


def _model_permissions(model: str, *verbs: str) -> list[str]:
    return [f"actions.{verb}_{model}" for verb in verbs]


class ActionsConfig(AppConfig):
    name = "actions"
    verbose_name = "Actions"
    default_auto_field = "django.db.models.BigAutoField"

    # Tenant admins curate contacts and policies in Django admin; the effect rows (messages,
    # announcements, reminders) are made by approved actions, so admins mostly read them.
    # (The role's name is spelled out: tenants.roles imports auth models, not loadable yet.)
    role_permissions = {
        "tenant admin": [
            *_model_permissions("contact", "view", "add", "change", "delete"),
            *_model_permissions("contactgroup", "view", "add", "change", "delete"),
            *_model_permissions("announcement", "view", "change", "delete"),
            *_model_permissions("outboundmessage", "view"),
            *_model_permissions("reminder", "view", "change"),
            *_model_permissions("toolpolicy", "view", "change"),
        ],
    }
    periodic_jobs: list[Any] = []

    def ready(self) -> None:
        check_delivery_settings()
        # tenants.schedules needs the app registry, so the job is declared here, not above.
        from tenants.schedules import PeriodicJob

        self.periodic_jobs = [
            PeriodicJob(
                task="actions.fire_due_reminders",
                every_seconds=settings.ACTIONS_REMINDER_POLL_SECONDS,
                name="actions: fire due reminders",
            )
        ]

    def seed_demo(self, tenant: Any) -> None:
        """Sample contacts and groups (fictional +1 202 555 01xx numbers) and tool policies."""
        from actions.demo import demo_seed

        demo_seed(schema_name=tenant.schema_name)
