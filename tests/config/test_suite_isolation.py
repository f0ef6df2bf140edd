"""The suite itself: what one test leaves in the embedded servers never reaches the next.

The two tests run in file order, in one test process (``--dist loadfile`` keeps a file together).
"""

from __future__ import annotations

import threading
import time

import psycopg
import pytest
from django.contrib.auth.models import User
from django.db import connection
from django_tenants.utils import tenant_context

from core.celery import app
from tenants.models import Tenant
from tests.conftest import _KEPT_TENANT_TABLES, TENANT_A, TENANT_B, _truncate_test_tenant_schemas
from tests.tenants.factories import make_user

pytestmark = pytest.mark.django_db(transaction=True)


def _waiting_tasks() -> int:
    with app.connection_for_write() as connection:
        channel = connection.default_channel
        queued = channel.client.llen(app.conf.task_default_queue)
        unacked = channel.client.hlen(channel.unacked_key)
    return int(queued) + int(unacked)


def test_a_test_may_leave_a_task_queued_with_no_worker_to_run_it() -> None:
    app.send_task("chat.run_turn", kwargs={"message_id": 3})
    assert _waiting_tasks() >= 1


def test_the_next_test_finds_no_task_of_the_one_before() -> None:
    # Ids restart at 1 after each test: a stale run_turn of message 3 would answer this test's
    # message 3.
    assert _waiting_tasks() == 0


def test_emptying_the_tenants_tables_outlasts_a_deadlock_with_a_workers_transaction(
    tenant_a: Tenant,
) -> None:
    # Another connection (a worker finishing a task) holds the table TRUNCATE reaches last and
    # then asks for the others: PostgreSQL ends the TRUNCATE, whose deadlock check runs first.
    make_user(tenant_a, "left-behind")
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT schemaname, tablename FROM pg_tables WHERE schemaname = ANY(%s)",
            [[TENANT_A.schema_name, TENANT_B.schema_name]],
        )
        tables = [f'"{s}"."{t}"' for s, t in cursor.fetchall() if t not in _KEPT_TENANT_TABLES]
    worker = psycopg.connect(**connection.get_connection_params(), autocommit=False)
    worker.execute("SET deadlock_timeout = '10s'")  # the TRUNCATE is the one PostgreSQL ends
    worker.execute(f"LOCK TABLE {tables[-1]} IN ROW EXCLUSIVE MODE")

    def finish_the_task() -> None:
        time.sleep(1.0)  # the TRUNCATE now holds the other tables and waits for the last one
        worker.execute(f"LOCK TABLE {', '.join(tables[:-1])} IN ACCESS SHARE MODE")
        worker.commit()

    finisher = threading.Thread(target=finish_the_task)
    finisher.start()
    try:
        _truncate_test_tenant_schemas()
    finally:
        finisher.join()
        worker.close()
    with tenant_context(tenant_a):
        assert not User.objects.filter(username="left-behind").exists()
