"""Suite-wide fixtures: the embedded servers, two tenants, clients and a real Celery worker.

The test database lives on the embedded PostgreSQL of ``.data/test`` (never the dev data of a
running ``make run``), started by the same code as ``manage.py infra up``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import OperationalError, connection, transaction
from django.test import Client
from django_tenants.utils import tenant_context
from psycopg.errors import DeadlockDetected

from core.infra import EmbeddedInfra, default_infra
from core.schema import use_public_schema
from tenants.models import Tenant
from tenants.roles import ROLES
from tenants.services import TenantSpec, tenant_get_or_create

TENANT_A = TenantSpec(schema_name="alpha", name="Alpha Academy", domains=("alpha.localhost",))
TENANT_B = TenantSpec(schema_name="beta", name="Beta Clinic", domains=("beta.localhost",))


_STARTED_INFRA = pytest.StashKey[bool]()


def pytest_configure(config: pytest.Config) -> None:
    """The run's first process (the only one, or pytest-xdist's controller) starts the embedded
    PostgreSQL and Redis, and stops them at the end if it started them: a worker process of
    ``pytest -n N`` stopping them at its own end would pull them from under the others."""
    if hasattr(config, "workerinput"):
        return
    infra = default_infra()
    config.stash[_STARTED_INFRA] = not all(server.running for server in infra.status())
    infra.up()


def pytest_unconfigure(config: pytest.Config) -> None:
    if config.stash.get(_STARTED_INFRA, False):
        default_infra().down()


@pytest.fixture(scope="session")
def embedded_infra() -> EmbeddedInfra:
    """The embedded servers (started by ``pytest_configure``; ``up`` again is a quick check)."""
    infra = default_infra()
    infra.up()
    return infra


@pytest.fixture(scope="session")
def django_db_modify_db_settings(
    embedded_infra: EmbeddedInfra, django_db_modify_db_settings_parallel_suffix: None
) -> None:
    """Make pytest-django's database set-up wait for the embedded server."""


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None, django_db_blocker: pytest.FixtureRequest) -> None:
    """After the public schema is migrated, create the two test tenants' schemas once."""
    with django_db_blocker.unblock():  # type: ignore[attr-defined]
        tenant_get_or_create(spec=TENANT_A)
        tenant_get_or_create(spec=TENANT_B)
    _empty_task_queues()  # what an interrupted earlier run left in this lane


def _tenant(spec: TenantSpec) -> Tenant:
    # A transactional test's flush empties the public tables, so re-create the row when needed;
    # the schema itself survives and is not migrated again.
    tenant, _ = tenant_get_or_create(spec=spec)
    return tenant


@pytest.fixture
def tenant_a(db: None) -> Tenant:
    return _tenant(TENANT_A)


@pytest.fixture
def tenant_b(db: None) -> Tenant:
    return _tenant(TENANT_B)


@pytest.fixture
def in_tenant_a(tenant_a: Tenant) -> Iterator[Tenant]:
    with tenant_context(tenant_a):
        yield tenant_a


# Tables a tenant schema keeps between tests: migrations, permissions and the role groups.
_KEPT_TENANT_TABLES = {
    "django_migrations",
    "django_content_type",
    "auth_permission",
    "auth_group",
    "auth_group_permissions",
}


def _truncate_test_tenant_schemas(attempts: int = 5) -> None:
    """Empty the test tenants' tables: a transactional test's flush only reaches public.

    A worker may still be finishing a task the test started (a notification after an
    approval): TRUNCATE then takes its table locks in another order than the worker's
    transaction, and PostgreSQL may end the TRUNCATE as a deadlock's victim. It is tried again
    (the worker's transaction has ended by then); left undone, the next test would find this
    test's users."""
    for attempt in range(1, attempts + 1):
        try:
            with transaction.atomic():
                _truncate_once()
            return
        except OperationalError as error:
            if not isinstance(error.__cause__, DeadlockDetected) or attempt == attempts:
                raise
            time.sleep(0.2 * attempt)


def _truncate_once() -> None:
    schemas = [TENANT_A.schema_name, TENANT_B.schema_name]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT schemaname, tablename FROM pg_tables WHERE schemaname = ANY(%s)", [schemas]
        )
        tables = [
            f'"{schema}"."{table}"'
            for schema, table in cursor.fetchall()
            if table not in _KEPT_TENANT_TABLES
        ]
        if tables:
            cursor.execute(f"TRUNCATE {', '.join(tables)} RESTART IDENTITY CASCADE")
        # The role groups stay; a group a test made (an approver desk) must not outlive it.
        for schema in schemas:
            made_by_test = f'SELECT id FROM "{schema}".auth_group WHERE NOT (name = ANY(%s))'
            cursor.execute(
                f'DELETE FROM "{schema}".auth_group_permissions WHERE group_id IN ({made_by_test})',
                [list(ROLES)],
            )
            cursor.execute(
                f'DELETE FROM "{schema}".auth_group WHERE id IN ({made_by_test})', [list(ROLES)]
            )


@pytest.fixture(autouse=True)
def _clean_schemas_after_each_test(
    request: pytest.FixtureRequest, django_db_blocker: Any
) -> Iterator[None]:
    yield
    use_public_schema()
    marker = request.node.get_closest_marker("django_db")
    transactional = marker is not None and marker.kwargs.get("transaction", False)
    if transactional or "transactional_db" in request.fixturenames:
        with django_db_blocker.unblock():
            _truncate_test_tenant_schemas()
        _empty_task_queues()


def _empty_task_queues() -> None:
    """Drop the Celery tasks this test process's lane still holds, queued or unacknowledged.

    They name rows the truncate above just removed, by ids that restart at 1: left in the
    queue, the next worker of the lane runs them on the next test's rows (a stale ``run_turn``
    of message 3 answered the next test's message 3 a second time). A kept worker still runs
    what it already took; what it took is the finished test's and touches nothing of the next.
    """
    from core.celery import app, queue_names

    with app.connection_for_write() as connection:
        channel: Any = connection.default_channel
        for name in queue_names():
            channel.queue_purge(name)
        channel.client.delete(
            channel.unacked_key, channel.unacked_index_key, channel.unacked_mutex_key
        )


def host_client(tenant: Tenant) -> Client:
    """A Django test client whose requests carry the tenant's host name."""
    return Client(HTTP_HOST=tenant.get_primary_domain().domain)


@pytest.fixture
def client_a(tenant_a: Tenant) -> Client:
    return host_client(tenant_a)


@pytest.fixture
def client_b(tenant_b: Tenant) -> Client:
    return host_client(tenant_b)


@pytest.fixture
def celery_worker_thread(transactional_db: None) -> Iterator[None]:
    """A real Celery worker (solo pool, in a thread of this process) on the embedded Redis."""
    from celery.contrib.testing.worker import start_worker

    from core.celery import app

    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
        yield


# The longest files, measured (`--durations`), start first: one of them starting last kept a test
# process busy for minutes after the other had finished everything else. Plain pytest runs them
# first through the collection order; `make test` (pytest-xdist, whole files per process) through
# the scheduler below, since xdist hands out files by their number of tests, most first.
_LONGEST_FILES = (
    "tests/faults/test_chaos_short.py",
    "tests/faults/test_approval_crash.py",
    "tests/faults/test_worker_crash.py",
    "tests/chat/evals/test_knowledge_questions.py",
    "tests/e2e/test_scripted_model.py",
    "tests/chat/evals/test_regression_set.py",
    "tests/knowledge/test_squad_eval.py",
    "tests/bench/test_stream_smoke.py",
    "tests/security/test_four_eyes.py",
    "tests/bench/test_routed_ttft_smoke.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {path: index for index, path in enumerate(_LONGEST_FILES)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadfile`` with the longest files handed out first (None: xdist's own choice)."""
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class LongestFilesFirst(LoadFileScheduling):
        _ranked = False

        def _assign_work_unit(self, node: Any) -> None:
            # The work queue holds every file once the collection is in (xdist 3.8, pinned).
            if not self._ranked:
                for path in reversed(_LONGEST_FILES):
                    if path in self.workqueue:
                        self.workqueue.move_to_end(path, last=False)
                self._ranked = True
            super()._assign_work_unit(node)

    return LongestFilesFirst(config, log)
