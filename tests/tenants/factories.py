"""Small factories for tenant users."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.test import Client
from django_tenants.utils import tenant_context

from tenants.models import Tenant
from tenants.roles import STAFF
from tenants.services import user_set_role

PASSWORD = "correct-horse-battery"


def make_user(tenant: Tenant, username: str, *, role: str = STAFF, pk: int | None = None) -> User:
    with tenant_context(tenant):
        user = User(pk=pk, username=username)
        user.set_password(PASSWORD)
        user.save()
        user_set_role(user=user, role=role)
        return user


def http_login(client: Client, username: str, password: str = PASSWORD) -> bool:
    """Log in through the tenant's login page, so the host decides which users exist.

    (``Client.login`` authenticates in whatever schema the test process is on, not the host's.)
    """
    client.post("/login/", {"username": username, "password": password})
    return "_auth_user_id" in client.session
