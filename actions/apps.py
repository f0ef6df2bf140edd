from django.apps import AppConfig


class ActionsConfig(AppConfig):
    name = "actions"
    verbose_name = "Actions"
    default_auto_field = "django.db.models.BigAutoField"
