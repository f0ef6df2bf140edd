from __future__ import annotations

from django.apps import AppConfig


def _model_permissions(model: str, *verbs: str) -> list[str]:
    return [f"notifications.{verb}_{model}" for verb in verbs]


class NotificationsConfig(AppConfig):
    name = "notifications"
    verbose_name = "Approval notifications"
    default_auto_field = "django.db.models.BigAutoField"

    # Tenant admins set how people are told (someone without an e-mail address, say) and read
    # what was sent. (The role's name is spelled out: tenants.roles is not loadable yet.)
    role_permissions = {
        "tenant admin": [
            *_model_permissions("notificationpreference", "view", "add", "change", "delete"),
            *_model_permissions("approvaldigest", "view"),
        ],
    }

    def ready(self) -> None:
        import notifications.tasks  # noqa: F401  (services queue them by name)
        from chat.signals import action_pending
        from notifications.receivers import on_action_pending

        action_pending.connect(on_action_pending, dispatch_uid="notifications_action_pending")
