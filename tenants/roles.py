"""The three roles every tenant has, as Django groups with permissions.

``tenants`` must not import the product apps, so each app contributes the permissions its role
needs through its AppConfig attribute ``role_permissions`` (``{"approver": ["chat.decide_…"]}``),
collected here. Roles are synced after every migration of a tenant schema, so a new tenant gets
them and an existing tenant gains the permissions of a newly installed app.
"""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.contrib.auth.models import Group, Permission
from django.db import transaction

from core.schema import PUBLIC, current_schema

STAFF = "staff"
APPROVER = "approver"
TENANT_ADMIN = "tenant admin"
ROLES: tuple[str, ...] = (STAFF, APPROVER, TENANT_ADMIN)

# A tenant admin manages the tenant's users and groups in Django admin.
_BASE_PERMISSIONS: dict[str, list[str]] = {
    STAFF: [],
    APPROVER: [],
    TENANT_ADMIN: [
        "auth.add_user",
        "auth.change_user",
        "auth.view_user",
        "auth.delete_user",
        "auth.view_group",
    ],
}


class UnknownRoleError(ValueError):
    pass


def role_permissions() -> dict[str, list[str]]:
    """Permission names ("app_label.codename") per role, from this module and every app."""
    merged = {role: list(perms) for role, perms in _BASE_PERMISSIONS.items()}
    for config in apps.get_app_configs():
        for role, perms in getattr(config, "role_permissions", {}).items():
            if role not in merged:
                raise UnknownRoleError(
                    f"{config.label} declares permissions for unknown role {role!r}"
                )
            merged[role].extend(perms)
    return merged


def _permission(name: str) -> Permission:
    app_label, codename = name.split(".", 1)
    return Permission.objects.get(content_type__app_label=app_label, codename=codename)


@transaction.atomic
def roles_sync() -> None:
    """Create the role groups in the current tenant schema and set their permissions exactly."""
    for role, names in role_permissions().items():
        group, _ = Group.objects.get_or_create(name=role)
        group.permissions.set([_permission(name) for name in names])


def sync_roles_after_migrate(sender: Any, **kwargs: Any) -> None:
    # post_migrate fires once per app; only the last one sees every app's permissions created.
    last_app = list(apps.get_app_configs())[-1]
    if sender is not last_app or current_schema() == PUBLIC:
        return
    # This receiver may run before auth's own for the last app: create every permission first.
    from django.contrib.auth.management import create_permissions

    for config in apps.get_app_configs():
        create_permissions(config, verbosity=0, using=kwargs.get("using", "default"))
    roles_sync()
