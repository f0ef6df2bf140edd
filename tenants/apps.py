from django.apps import AppConfig
from django.db.models.signals import post_migrate


class TenantsConfig(AppConfig):
    name = "tenants"
    verbose_name = "Tenants and roles"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from tenants.roles import sync_roles_after_migrate
        from tenants.schedules import sync_jobs_after_migrate

        # Runs after `migrate_schemas` has migrated each schema, so every tenant (new or old)
        # gets the roles with the permissions of every installed app.
        post_migrate.connect(sync_roles_after_migrate, dispatch_uid="tenants_sync_roles")
        post_migrate.connect(sync_jobs_after_migrate, dispatch_uid="tenants_sync_jobs")
