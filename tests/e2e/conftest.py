"""Real processes for end-to-end tests: daphne web servers and Celery worker processes.

They run the checkout's code against the test database and the test Redis (the embedded servers
of ``.data/test``), exactly as ``make run`` would, only with short redelivery timeouts so a
killed worker's turn comes back within seconds.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django_tenants.utils import tenant_context

from chat.tokens import api_token_create
from tenants.models import Tenant
from tenants.roles import APPROVER, STAFF
from tests.e2e.processes import (
    Process,
    SharedProcesses,
    free_port,
    start_daphne,
    start_worker,
)
from tests.tenants.factories import make_user

__all__ = ["Process", "free_port", "start_daphne", "start_worker"]


@pytest.fixture(scope="session")
def stack_env(django_db_setup: None) -> dict[str, str]:
    """Environment that points child processes at the test database and Redis."""
    db = settings.DATABASES["default"]
    # Never passed on: the browser suite allows it in this process only (tests/browser).
    inherited = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    return {
        **inherited,
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "REDIS_URL": settings.REDIS_URL,
        # Every process writes its metric samples here; a scrape of any web process adds them up.
        "PROMETHEUS_MULTIPROC_DIR": str(settings.PROMETHEUS_MULTIPROC_DIR),
        "CELERY_VISIBILITY_TIMEOUT": "10",
        "CELERY_RESTORE_INTERVAL": "2",
        "CHAT_TURN_LOCK_SECONDS": "4",
        "DEBUG": "true",
        "LOG_LEVEL": "warning",
        "PYTHONUNBUFFERED": "1",
    }


@pytest.fixture(scope="module")
def server_env(stack_env: dict[str, str]) -> dict[str, str]:
    """The environment of ``web`` and ``worker``; a suite may override it (tests/browser)."""
    return stack_env


@pytest.fixture(scope="package")
def processes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SharedProcesses]:
    """The package's daphne and worker processes, kept from one module to the next when the
    environment is the same (tests/e2e/processes.py): each start costs seconds of both cores.
    Stopped when the package ends: a worker left running would take the Celery tasks of later,
    in-process tests."""
    shared = SharedProcesses(tmp_path_factory.mktemp("servers"))
    yield shared
    shared.stop()


@pytest.fixture(scope="module", autouse=True)
def _worker_lifetime(request: pytest.FixtureRequest, processes: SharedProcesses) -> None:
    """A module's worker runs from its first test that asks for one to the module's end, as a
    module-scoped worker would: one kept from the module before is stopped here unless this
    module's first test asks for a worker at once (it then reuses it when the environment is
    the same). A module whose first tests run without a worker thus still runs them without
    (or with a worker of their own)."""
    items = [
        item for item in request.session.items if getattr(item, "module", None) is request.module
    ]
    if not items or "worker" not in getattr(items[0], "fixturenames", ()):
        processes.stop_worker()


@pytest.fixture(scope="module")
def web(server_env: dict[str, str], processes: SharedProcesses) -> int:
    """Daphne for the module's environment, kept for later modules with the same one."""
    return processes.web(server_env)


@pytest.fixture(scope="module")
def worker(server_env: dict[str, str], processes: SharedProcesses) -> Process:
    """The Celery worker for the module's environment (one at a time: SharedProcesses)."""
    return processes.worker(server_env, "main")


@dataclass
class Account:
    user: User
    token: str


@dataclass
class TenantSetup:
    tenant: Tenant
    staff: Account
    approver: Account

    @property
    def host(self) -> str:
        return str(self.tenant.get_primary_domain().domain)


def tenant_setup(tenant: Tenant, prefix: str) -> TenantSetup:
    staff = make_user(tenant, f"{prefix}staff", role=STAFF)
    approver = make_user(tenant, f"{prefix}approver", role=APPROVER)
    with tenant_context(tenant):
        _, staff_token = api_token_create(user=staff, name="e2e")
        _, approver_token = api_token_create(user=approver, name="e2e")
    return TenantSetup(tenant, Account(staff, staff_token), Account(approver, approver_token))


@pytest.fixture
def alpha(transactional_db: None, tenant_a: Tenant) -> TenantSetup:
    return tenant_setup(tenant_a, "a-")


@pytest.fixture
def beta(transactional_db: None, tenant_b: Tenant) -> TenantSetup:
    return tenant_setup(tenant_b, "b-")


class Api:
    """HTTP client for one tenant host on the real server, authenticated by a token."""

    def __init__(self, port: int, host: str, token: str) -> None:
        self.client = httpx.Client(
            base_url=f"http://127.0.0.1:{port}",
            timeout=30,
            headers={"Host": host, "Authorization": f"Bearer {token}"},
        )

    def get(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.client.get(path, **kwargs)

    def post(self, path: str, body: dict[str, Any] | None = None, **kwargs: Any) -> httpx.Response:
        return self.client.post(path, content=json.dumps(body or {}), **kwargs)
