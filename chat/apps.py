from typing import Any

from django.apps import AppConfig, apps
from django.conf import settings
from django.db.models.signals import post_migrate, post_save


class ChatConfig(AppConfig):
    name = "chat"
    verbose_name = "Chat"
    default_auto_field = "django.db.models.BigAutoField"
    # Tenant admins curate the prompt and read the audit trail (tenants/roles.py collects this).
    role_permissions = {
        "tenant admin": [
            "chat.add_assistantprompt",
            "chat.change_assistantprompt",
            "chat.view_assistantprompt",
            "chat.view_conversation",
            "chat.view_pendingaction",
            "chat.view_actionevent",
            "chat.view_message",
            "chat.add_apitoken",
            "chat.view_apitoken",
            "chat.change_apitoken",
            "chat.view_usageday",
            "chat.view_runusage",
            "chat.add_evalcaseset",
            "chat.change_evalcaseset",
            "chat.delete_evalcaseset",
            "chat.view_evalcaseset",
            "chat.add_evalcase",
            "chat.change_evalcase",
            "chat.delete_evalcase",
            "chat.view_evalcase",
            "chat.add_evalrun",  # starting a run (admin action, run page)
            "chat.view_evalrun",
            "chat.view_evalresult",
        ],
    }

    periodic_jobs: list[Any] = []

    def seed_demo(self, tenant: Any) -> None:
        """The demo evaluation case set, so a new tenant admin finds it in admin.

        Its cases speak of the academy's contacts and documents; the clinic demo tenant
        ("acme", other contacts) would only see them fail, so it does not get them.
        """
        from chat.evals.services import demo_case_set_load

        if tenant.schema_name != "acme":
            demo_case_set_load()

    def ready(self) -> None:
        from tenants.schedules import PeriodicJob

        # Beat runs tenants.fan_out every interval, which sends this task once per tenant.
        self.periodic_jobs = [
            PeriodicJob(
                task="chat.expire_overdue_actions",
                every_seconds=settings.CHAT_ACTION_EXPIRY_POLL_SECONDS,
                name="chat: expire overdue pending actions in every tenant",
            ),
            PeriodicJob(
                task="chat.requeue_stranded_resumes",
                every_seconds=max(5, settings.CHAT_STRANDED_RESUME_SECONDS // 2),
                name="chat: resume approved actions whose resume task was lost",
            ),
            # The audit trail (chat/audit/): nightly, check each tenant's chain and redact
            # the text its retention setting no longer keeps.
            PeriodicJob(
                task="chat.audit_verify_chain",
                every_seconds=24 * 3600,
                name="chat: verify the audit chain of every tenant",
            ),
            PeriodicJob(
                task="chat.audit_redact_old_events",
                every_seconds=24 * 3600,
                name="chat: redact audit events past the tenant's retention",
            ),
            PeriodicJob(
                task="chat.requeue_stranded_turns",
                every_seconds=max(5, settings.CHAT_STRANDED_TURN_SECONDS // 2),
                name="chat: answer messages whose turn task was lost",
            ),
        ]
        # Services queue chat's tasks by name (core.celery.queue), so every process that may
        # queue one (web, worker, shell) registers them here, not only a starting worker.
        import chat.audit.tasks
        import chat.tasks  # noqa: F401
        from actions.signals import outbound_message_changed

        post_migrate.connect(_reader_role_after_migrate, dispatch_uid="chat_reader_role")
        outbound_message_changed.connect(
            _publish_delivery_change, dispatch_uid="chat_publish_delivery_change"
        )
        post_save.connect(
            _end_sessions_of_inactive_user,
            sender=settings.AUTH_USER_MODEL,
            dispatch_uid="chat_end_sessions_of_inactive_user",
        )


def _publish_delivery_change(sender: Any, action_id: Any, **kwargs: Any) -> None:
    """A recipient's message was sent or failed: its action's cards update live."""
    from chat.services.deliveries import action_delivery_publish

    action_delivery_publish(action_id=action_id)


def _end_sessions_of_inactive_user(sender: Any, instance: Any, **kwargs: Any) -> None:
    """A deactivated user's open WebSockets close at once (chat/services/sessions.py)."""
    from chat.services.sessions import sessions_end
    from core.schema import PUBLIC, current_schema

    if not instance.is_active and current_schema() != PUBLIC:
        sessions_end(user_id=instance.pk)


def _reader_role_after_migrate(sender: Any, **kwargs: Any) -> None:
    from chat.tools.query_data import query_schema_sync
    from core.schema import PUBLIC, current_schema

    if sender is list(apps.get_app_configs())[-1] and current_schema() != PUBLIC:
        query_schema_sync()
