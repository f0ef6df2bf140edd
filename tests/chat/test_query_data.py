"""query_data runs one read-only SELECT over the tenant's own tables, and nothing else."""

from __future__ import annotations

import pytest
from django.test import override_settings
from django_tenants.utils import tenant_context

from actions.models import Contact, ContactGroup
from chat.agent.tools.query_data import QueryFailed, run_query
from chat.agent.tools.sql_guard import UnsafeQueryError, validate_select
from tenants.models import Tenant

TABLES = {"actions_contact", "actions_contactgroup", "actions_contact_groups"}


@pytest.mark.parametrize(
    ("sql", "reason"),
    [
        ("DROP TABLE actions_contact", "only SELECT"),
        ("DELETE FROM actions_contact", "only SELECT"),
        ("UPDATE actions_contact SET name = 'x'", "only SELECT"),
        ("INSERT INTO actions_contact (name) VALUES ('x')", "only SELECT"),
        ("SELECT 1; DROP TABLE actions_contact", "exactly one"),
        ("SELECT pg_read_file('/etc/passwd')", "pg_read_file"),
        ("SELECT pg_sleep(10)", "pg_sleep"),
        ('SELECT "pg_sleep"(10)', "pg_sleep"),
        ("SELECT set_config('search_path', 'public', false)", "set_config"),
        ("SELECT * FROM dblink('host=x', 'select 1') AS t(a int)", "only tables"),
        ("SELECT name INTO stolen FROM actions_contact", "INTO"),
        ("SELECT * FROM actions_contact FOR UPDATE", "LOCK"),
        ('SELECT * FROM U&"actions_contact"', "U&"),
        ("SELECT * FROM public.tenants_tenant", "names a schema"),
        ("SELECT * FROM beta.actions_contact", "names a schema"),
        ("SELECT * FROM pg_catalog.pg_authid", "names a schema"),
        ("SELECT * FROM pg_user", "not available"),
        ("SELECT (SELECT count(*) FROM tenants_domain)", "not available"),
    ],
)
def test_the_guard_rejects_what_is_not_a_plain_read(sql: str, reason: str) -> None:
    with pytest.raises(UnsafeQueryError, match=reason):
        validate_select(sql, allowed_tables=TABLES)


def test_the_guard_accepts_an_ordinary_report() -> None:
    sql = (
        "SELECT g.name, count(*) AS members, string_agg(c.name, ', ') FROM actions_contactgroup g "
        "JOIN actions_contact_groups cg ON cg.contactgroup_id = g.id "
        "JOIN actions_contact c ON c.id = cg.contact_id WHERE c.name ILIKE '%a%' "
        "AND c.created_at > now() - interval '7 days' GROUP BY g.name ORDER BY 2 DESC"
    )

    assert validate_select(sql, allowed_tables=TABLES)


@pytest.mark.django_db(transaction=True)  # query_data reads on its own connection
def test_a_count_of_contacts_per_group_works(in_tenant_a: Tenant) -> None:
    parents, staff = (
        ContactGroup.objects.create(name="Parents"),
        ContactGroup.objects.create(name="Staff"),
    )
    for index in range(3):
        Contact.objects.create(name=f"P{index}", phone=f"+1202555010{index}").groups.add(parents)
    Contact.objects.create(name="S0", phone="+12025550190").groups.add(staff)

    result = run_query(
        "SELECT g.name, count(*) FROM actions_contactgroup g JOIN actions_contact_groups cg "
        "ON cg.contactgroup_id = g.id GROUP BY g.name ORDER BY g.name"
    )

    assert result["rows"] == [["Parents", 3], ["Staff", 1]]


@pytest.mark.django_db(transaction=True)  # query_data reads on its own connection
def test_a_query_sees_only_the_tenant_it_runs_in(tenant_a: Tenant, tenant_b: Tenant) -> None:
    with tenant_context(tenant_a):
        Contact.objects.create(name="Alpha person", phone="+12025550111")
    with tenant_context(tenant_b):
        Contact.objects.create(name="Beta person", phone="+12025550122")

        result = run_query("SELECT name FROM actions_contact")

    assert result["rows"] == [["Beta person"]]


@pytest.mark.django_db(transaction=True)  # query_data reads on its own connection
@override_settings(QUERY_DATA_TIMEOUT_MS=200)
def test_a_slow_query_is_cut_by_the_timeout(in_tenant_a: Tenant) -> None:
    Contact.objects.bulk_create(Contact(name=f"C{i}", phone=f"+1555{i:07d}") for i in range(3000))

    with pytest.raises(QueryFailed, match="longer than 200 ms"):
        run_query("SELECT count(*) FROM actions_contact a, actions_contact b, actions_contact c")


@pytest.mark.django_db(transaction=True)  # query_data reads on its own connection
def test_rows_are_capped_and_flagged(in_tenant_a: Tenant) -> None:
    Contact.objects.bulk_create(Contact(name=f"C{i}", phone=f"+1555{i:07d}") for i in range(5))

    with override_settings(QUERY_DATA_ROW_LIMIT=3):
        result = run_query("SELECT name FROM actions_contact ORDER BY name")

    assert len(result["rows"]) == 3
    assert result["truncated"] is True


@pytest.mark.django_db(transaction=True)  # query_data reads on its own connection
def test_a_write_hidden_in_a_cte_is_refused(in_tenant_a: Tenant) -> None:
    Contact.objects.create(name="Keep me", phone="+12025550133")

    with pytest.raises(QueryFailed, match="DELETE"):
        run_query("WITH gone AS (DELETE FROM actions_contact RETURNING id) SELECT * FROM gone")
    assert Contact.objects.filter(name="Keep me").exists()


def test_queries_run_as_the_tenants_own_select_only_role(in_tenant_a: Tenant) -> None:
    result = run_query("SELECT current_user")

    assert result["rows"] == [["countersign_reader_alpha"]]


def test_the_reader_role_of_one_tenant_cannot_read_another_tenants_tables(
    in_tenant_a: Tenant,
) -> None:
    from django.db import connection, transaction

    with (
        pytest.raises(Exception, match="permission denied"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute('SET LOCAL ROLE "countersign_reader_alpha"')
        cursor.execute('SELECT count(*) FROM "beta"."actions_contact"')
