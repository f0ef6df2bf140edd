"""query_data runs one read-only SELECT over the tenant's own tables, and nothing else."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.db import connection, transaction
from django.test import override_settings
from django_tenants.utils import tenant_context

from actions.models import Contact, ContactGroup, OutboundMessage
from chat.models import Conversation, PendingAction
from chat.tools.query_data import QueryFailed, QueryViewer, query_viewer, run_query
from chat.tools.sql_guard import UnsafeQueryError, validate_select
from knowledge.models import Document
from tenants.models import Tenant
from tests.chat.conftest import People

TABLES = {"actions_contact", "actions_contactgroup", "actions_contact_groups", "knowledge_document"}
HIDDEN = {"file", "content_hash"}
NOBODY = QueryViewer(user_id=0, tools=())


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
        # A CTE name shadows only inside the query that defines it.
        (
            "SELECT n_live_tup, schemaname FROM pg_stat_all_tables, "
            "(WITH pg_stat_all_tables AS (SELECT 1) SELECT * FROM pg_stat_all_tables) s",
            "pg_stat_all_tables is not available",
        ),
        (
            "WITH x AS (WITH pg_user AS (SELECT 1) SELECT * FROM pg_user) SELECT * FROM x, pg_user",
            "pg_user is not available",
        ),
        (
            "SELECT * FROM actions_contact WHERE EXISTS "
            "(SELECT 1 FROM (WITH pg_roles AS (SELECT 1) SELECT 1) r, pg_roles)",
            "pg_roles is not available",
        ),
        # A non-recursive CTE is not visible to the siblings defined before it.
        (
            "WITH a AS (SELECT * FROM pg_user), pg_user AS (SELECT 1) SELECT * FROM a",
            "pg_user is not available",
        ),
        # A quoted CTE name is another name than the unquoted (lower-cased) reference.
        ('WITH "PG_USER" AS (SELECT 1) SELECT * FROM pg_user', "pg_user is not available"),
        ("SELECT file FROM knowledge_document", "column file is not available"),
        ("SELECT d.FILE FROM knowledge_document d", "column file is not available"),
        (
            "SELECT title FROM knowledge_document WHERE content_hash <> ''",
            "column content_hash is not available",
        ),
    ],
)
def test_the_guard_rejects_what_is_not_a_plain_read(sql: str, reason: str) -> None:
    with pytest.raises(UnsafeQueryError, match=reason):
        validate_select(sql, allowed_tables=TABLES, hidden_columns=HIDDEN)


@pytest.mark.parametrize(
    "sql",
    [
        "WITH c AS (SELECT name FROM actions_contact) SELECT * FROM c",
        "SELECT * FROM actions_contact WHERE id IN (WITH x AS (SELECT 1 AS id) SELECT id FROM x)",
        "WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r WHERE n < 3) "
        "SELECT * FROM r",
        "WITH a AS (SELECT id FROM actions_contact), b AS (SELECT * FROM a) SELECT * FROM b",
    ],
)
def test_the_guard_accepts_a_cte_used_inside_its_own_scope(sql: str) -> None:
    assert validate_select(sql, allowed_tables=TABLES, hidden_columns=HIDDEN)


def test_the_guard_accepts_an_ordinary_report() -> None:
    sql = (
        "SELECT g.name, count(*) AS members, string_agg(c.name, ', ') FROM actions_contactgroup g "
        "JOIN actions_contact_groups cg ON cg.contactgroup_id = g.id "
        "JOIN actions_contact c ON c.id = cg.contact_id WHERE c.name ILIKE '%a%' "
        "AND c.created_at > now() - interval '7 days' GROUP BY g.name ORDER BY 2 DESC"
    )

    assert validate_select(sql, allowed_tables=TABLES, hidden_columns=HIDDEN)


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
        "ON cg.contactgroup_id = g.id GROUP BY g.name ORDER BY g.name",
        viewer=NOBODY,
    )

    assert result["rows"] == [["Parents", 3], ["Staff", 1]]


@pytest.mark.django_db(transaction=True)  # query_data reads on its own connection
def test_a_query_sees_only_the_tenant_it_runs_in(tenant_a: Tenant, tenant_b: Tenant) -> None:
    with tenant_context(tenant_a):
        Contact.objects.create(name="Alpha person", phone="+12025550111")
    with tenant_context(tenant_b):
        Contact.objects.create(name="Beta person", phone="+12025550122")

        result = run_query("SELECT name FROM actions_contact", viewer=NOBODY)

    assert result["rows"] == [["Beta person"]]


@pytest.mark.django_db(transaction=True)  # query_data reads on its own connection
@override_settings(QUERY_DATA_TIMEOUT_MS=200)
def test_a_slow_query_is_cut_by_the_timeout(in_tenant_a: Tenant) -> None:
    Contact.objects.bulk_create(Contact(name=f"C{i}", phone=f"+1555{i:07d}") for i in range(3000))

    with pytest.raises(QueryFailed, match="longer than 200 ms"):
        run_query(
            "SELECT count(*) FROM actions_contact a, actions_contact b, actions_contact c",
            viewer=NOBODY,
        )


@pytest.mark.django_db(transaction=True)  # query_data reads on its own connection
def test_rows_are_capped_and_flagged(in_tenant_a: Tenant) -> None:
    Contact.objects.bulk_create(Contact(name=f"C{i}", phone=f"+1555{i:07d}") for i in range(5))

    with override_settings(QUERY_DATA_ROW_LIMIT=3):
        result = run_query("SELECT name FROM actions_contact ORDER BY name", viewer=NOBODY)

    assert len(result["rows"]) == 3
    assert result["truncated"] is True


@pytest.mark.django_db(transaction=True)  # query_data reads on its own connection
def test_a_write_hidden_in_a_cte_is_refused(in_tenant_a: Tenant) -> None:
    Contact.objects.create(name="Keep me", phone="+12025550133")

    with pytest.raises(QueryFailed, match="DELETE"):
        run_query(
            "WITH gone AS (DELETE FROM actions_contact RETURNING id) SELECT * FROM gone",
            viewer=NOBODY,
        )
    assert Contact.objects.filter(name="Keep me").exists()


def test_queries_run_as_the_tenants_own_select_only_role(in_tenant_a: Tenant) -> None:
    result = run_query("SELECT current_user", viewer=NOBODY)

    assert result["rows"] == [["countersign_reader_alpha"]]


def test_the_reader_role_of_one_tenant_cannot_read_another_tenants_tables(
    in_tenant_a: Tenant,
) -> None:
    with (
        pytest.raises(Exception, match="permission denied"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute('SET LOCAL ROLE "countersign_reader_alpha"')
        cursor.execute('SELECT count(*) FROM "beta"."actions_contact"')


@pytest.mark.django_db(transaction=True)  # query_data reads on its own connection
def test_a_star_over_documents_leaves_out_the_hidden_columns(in_tenant_a: Tenant) -> None:
    Document.objects.create(title="Handbook", text="Doors close at 1pm.", content_hash="abc")

    result = run_query("SELECT * FROM knowledge_document", viewer=NOBODY)

    assert "title" in result["columns"]
    assert not {"file", "content_hash"} & set(result["columns"])


@pytest.mark.django_db(transaction=True)  # query_data reads on its own connection
def test_a_whole_row_reference_does_not_carry_the_hidden_columns(in_tenant_a: Tenant) -> None:
    Document.objects.create(title="Handbook", text="Doors", content_hash="secret-hash-value")

    result = run_query("SELECT d FROM knowledge_document d", viewer=NOBODY)

    assert "secret-hash-value" not in str(result["rows"])


def _sms_of(user: User, body: str) -> None:
    conversation = Conversation.objects.create(user=user)
    action = PendingAction.objects.create(
        conversation=conversation,
        tool_call_id=f"call_{user.pk}",
        tool="send_sms",
        arguments={"body": body},
        arguments_hash="x",
        description="SMS",
        requested_by=user,
    )
    OutboundMessage.objects.create(
        action_id=action.id, channel="sms", to_address="+12025550100", body=body
    )


@pytest.fixture
def two_staff_messages(people_a: People) -> User:
    other = User.objects.create(username="olive")
    _sms_of(people_a.staff, "sam's own message")
    _sms_of(other, "olive's private message")
    return other


@pytest.mark.django_db(transaction=True)  # query_data reads on its own connection
def test_staff_read_only_the_outbound_messages_of_their_own_actions(
    people_a: People, two_staff_messages: User
) -> None:
    result = run_query(
        "SELECT body FROM actions_outboundmessage",
        viewer=query_viewer(user_id=people_a.staff.pk),
    )

    assert result["rows"] == [["sam's own message"]]


@pytest.mark.django_db(transaction=True)  # query_data reads on its own connection
def test_an_approver_reads_the_outbound_messages_of_the_tools_they_decide(
    people_a: People, two_staff_messages: User
) -> None:
    result = run_query(
        "SELECT body FROM actions_outboundmessage ORDER BY body",
        viewer=query_viewer(user_id=people_a.approver.pk),
    )

    assert result["rows"] == [["olive's private message"], ["sam's own message"]]


@pytest.mark.django_db(transaction=True)  # query_data reads on its own connection
def test_an_error_in_the_query_cannot_quote_another_users_row(
    people_a: People, two_staff_messages: User
) -> None:
    # security_barrier: the cast never sees rows the viewer filter hides.
    result = run_query(
        "SELECT count(*) FROM actions_outboundmessage WHERE CAST(body AS integer) > 0 "
        "AND body LIKE 'sam%'",
        viewer=query_viewer(user_id=0),
    )

    assert result["rows"] == [[0]]


def test_the_reader_role_cannot_read_the_tables_behind_the_views(in_tenant_a: Tenant) -> None:
    with (
        pytest.raises(Exception, match="permission denied"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute('SET LOCAL ROLE "countersign_reader_alpha"')
        cursor.execute('SELECT body FROM "alpha"."actions_outboundmessage"')
