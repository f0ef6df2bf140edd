"""Real processes for end-to-end tests: daphne web servers and Celery worker processes.

They run the checkout's code against the test database and the test Redis (the embedded servers
of ``.data/test``), exactly as ``make run`` would, only with short redelivery timeouts so a
killed worker's turn comes back within seconds.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django_tenants.utils import tenant_context

from chat.tokens import api_token_create
from tenants.models import Tenant
from tenants.roles import APPROVER, STAFF
from tests.tenants.factories import make_user

ROOT = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def stack_env(django_db_setup: None) -> dict[str, str]:
    """Environment that points child processes at the test database and Redis."""
    db = settings.DATABASES["default"]
    return {
        **os.environ,
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


@dataclass
class Process:
    popen: subprocess.Popen[bytes]
    log: Path

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.popen.poll() is None:
            self.popen.send_signal(sig)
            try:
                self.popen.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-4000:]


def _spawn(args: list[str], env: dict[str, str], log: Path) -> Process:
    handle = open(log, "wb")  # noqa: SIM115 - stays open for the child's lifetime
    popen = subprocess.Popen(
        args, cwd=ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
    )
    return Process(popen, log)


def start_daphne(env: dict[str, str], tmp: Path) -> tuple[Process, int]:
    port = free_port()
    process = _spawn(
        [
            str(VENV_BIN / "daphne"),
            "-b",
            "127.0.0.1",
            "-p",
            str(port),
            "--ping-interval",
            "5",
            "--ping-timeout",
            "10",
            "config.asgi:application",
        ],
        env,
        tmp / f"daphne-{port}.log",
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return process, port
        except httpx.HTTPError:
            time.sleep(0.1)
        if process.popen.poll() is not None:
            break
    raise RuntimeError(f"daphne did not start:\n{process.output()}")


def start_worker(env: dict[str, str], tmp: Path, name: str) -> Process:
    process = _spawn(
        [
            str(VENV_BIN / "celery"),
            "-A",
            "config",
            "worker",
            "-P",
            "threads",
            "-c",
            "16",
            "-n",
            f"{name}@%h",
            "--without-mingle",
            "--without-gossip",
            "-l",
            "info",
        ],
        env,
        tmp / f"worker-{name}.log",
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if "ready." in process.output():
            return process
        if process.popen.poll() is not None:
            break
        time.sleep(0.1)
    raise RuntimeError(f"worker did not start:\n{process.output()}")


# Module-scoped: a worker left running would take the Celery tasks of later, in-process tests.
@pytest.fixture(scope="module")
def web(stack_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    process, port = start_daphne(stack_env, tmp_path_factory.mktemp("web"))
    yield port
    process.stop()


@pytest.fixture(scope="module")
def worker(
    stack_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Process]:
    process = start_worker(stack_env, tmp_path_factory.mktemp("worker"), "main")
    yield process
    process.stop()


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
