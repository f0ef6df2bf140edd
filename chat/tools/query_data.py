"""query_data: one read-only SELECT over an allowlist of the tenant's own tables.

Three locks (see sql_guard.py): the statement is validated; it runs in a READ ONLY transaction
with ``statement_timeout`` and a search_path of the tenant's *query schema* alone; and, when the
role named by ``QUERY_DATA_DB_ROLE`` exists, as that SELECT-only role. Rows are capped at
``QUERY_DATA_ROW_LIMIT``.

The query schema (``<tenant schema>__query``) holds one ``security_barrier`` view per queryable
table, under the table's own name, so the model writes the names it knows. A view lists only
the visible columns (a hidden one is not there to be read, not by ``*`` nor by a whole-row
reference), and the views of per-user rows (outbound messages, reminders) show a viewer only
what ``GET /api/actions/`` shows them: rows of actions in their own conversations or of tools
they may decide. The viewer is set by the executor in transaction-local settings before the
query runs (the guard refuses ``set_config`` and ``SET``, so the query cannot change it), and
``security_barrier`` keeps the planner from evaluating the query's own conditions (an error
message quoting a value) on rows the filter hides. The reader role is granted the views only,
never the tables behind them, so a query that slipped past the guard still cannot reach a
hidden column or another user's rows.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

import psycopg
from django.apps import apps
from django.conf import settings
from django.contrib.auth.models import User
from django.db import DatabaseError, connection, transaction
from pydantic import BaseModel, Field

from actions.tools.base import ReadContext, ReadResult, ReadTool
from chat.db import conninfo
from chat.selectors import decidable_tools
from chat.tools.sql_guard import UnsafeQueryError, validate_select
from core.metrics import SQL_RETRIES
from core.schema import current_schema

logger = logging.getLogger(__name__)
QUERY_DATA_TOOL_NAME = "query_data"
# Models whose tables the assistant may read, with the columns it sees.
QUERYABLE_MODELS = (
    "actions.Contact",
    "actions.ContactGroup",
    "actions.Announcement",
    "actions.OutboundMessage",
    "actions.Reminder",
    "knowledge.Document",
)
# Columns no query may read: a file's storage path, dedup hashes, provider-internal ids.
HIDDEN_COLUMNS = {
    "knowledge_document": {"file", "content_hash"},
    "actions_outboundmessage": {"provider_message_id"},
}
# Tables whose rows belong to the person whose action caused them (joined by ``action_id``).
PER_USER_TABLES = {"actions_outboundmessage", "actions_reminder"}
_VIEWER_SETTING = "countersign.query_viewer"
_VIEWER_TOOLS_SETTING = "countersign.query_viewer_tools"


class QueryDataArgs(BaseModel):
    sql: str = Field(min_length=1, max_length=4000, description="one PostgreSQL SELECT statement")


@dataclass(frozen=True)
class QueryViewer:
    """Who the query runs for: their user id and the tools whose actions they may decide."""

    user_id: int
    tools: tuple[str, ...]


class QueryFailed(Exception):
    """The query was refused or failed; the message goes back to the model to repair it."""


def allowed_tables() -> dict[str, list[str]]:
    """{table: [column, …]} for every queryable model and its many-to-many link tables."""
    tables: dict[str, list[str]] = {}
    for label in QUERYABLE_MODELS:
        try:
            model = apps.get_model(label)
        except LookupError:
            continue
        hidden = HIDDEN_COLUMNS.get(model._meta.db_table, set())
        tables[model._meta.db_table] = [
            f.column for f in model._meta.concrete_fields if f.column not in hidden
        ]
        for m2m in model._meta.many_to_many:
            through = m2m.remote_field.through._meta
            tables[through.db_table] = [f.column for f in through.concrete_fields]
    return tables


class QueryData(ReadTool[QueryDataArgs]):
    """Answer questions about the organisation's own data with ONE read-only PostgreSQL
    SELECT (the description the model reads lists the tables, see ``description``)."""

    name = QUERY_DATA_TOOL_NAME
    label = "Query the organisation's data"
    stage = "querying"
    args_schema = QueryDataArgs

    @classmethod
    def description(cls) -> str:
        described = "\n".join(f"- {t}({', '.join(cols)})" for t, cols in allowed_tables().items())
        return (
            "Answer questions about the organisation's own data with ONE read-only PostgreSQL "
            "SELECT. Use bare table names; only these tables exist:\n" + described
        )

    def run(self, arguments: dict[str, Any], ctx: ReadContext) -> ReadResult:
        """The rows as the asking user may see them; a refused or failed query comes back as
        an error for the model to repair (``failed``: it counts against SQL_MAX_RETRIES)."""
        try:
            viewer = query_viewer(user_id=ctx.user_id)
            result = run_query(str(arguments.get("sql", "")), viewer=viewer)
        except QueryFailed as error:
            SQL_RETRIES.inc()
            attempt = ctx.failed_attempts + 1
            return ReadResult(json.dumps({"error": str(error), "attempt": attempt}), failed=True)
        return ReadResult(json.dumps(result, default=str))


def query_viewer(*, user_id: int) -> QueryViewer:
    """The viewer for ``user_id``; an unknown or inactive user sees no per-user rows."""
    user = User.objects.filter(pk=user_id, is_active=True).first()
    tools = tuple(decidable_tools(user=user)) if user is not None else ()
    return QueryViewer(user_id=user_id, tools=tools)


def run_query(sql: str, *, viewer: QueryViewer) -> dict[str, Any]:
    """Validate and run ``sql`` over the current tenant's query schema, as ``viewer`` sees it;
    raise ``QueryFailed``."""
    hidden = set().union(*HIDDEN_COLUMNS.values())
    try:
        safe_sql = validate_select(
            sql, allowed_tables=allowed_tables().keys(), hidden_columns=hidden
        )
    except UnsafeQueryError as error:
        raise QueryFailed(str(error)) from None
    schema = current_schema()
    limit = settings.QUERY_DATA_ROW_LIMIT
    try:
        # A connection of its own: READ ONLY, the role and the timeout can then never leak
        # into (or be weakened by) a transaction the caller has open.
        with (
            psycopg.connect(conninfo(search_path=f'"{query_schema_name(schema)}"')) as session,
            session.cursor() as cursor,
        ):
            cursor.execute("SET TRANSACTION READ ONLY")
            cursor.execute(
                "SELECT set_config('statement_timeout', %s, true), "
                "set_config(%s, %s, true), set_config(%s, %s, true)",
                [
                    str(settings.QUERY_DATA_TIMEOUT_MS),
                    _VIEWER_SETTING,
                    str(viewer.user_id),
                    _VIEWER_TOOLS_SETTING,
                    ",".join(viewer.tools),
                ],
            )
            _assume_reader_role(cursor, schema)
            cursor.execute(safe_sql)
            columns = [col.name for col in cursor.description or []]
            rows = cursor.fetchmany(limit + 1)
            session.rollback()
    except psycopg.Error as error:
        message = str(error).strip().splitlines()[0]
        if isinstance(error, psycopg.errors.QueryCanceled):
            message = f"the query took longer than {settings.QUERY_DATA_TIMEOUT_MS} ms"
        raise QueryFailed(message) from None
    return {
        "columns": columns,
        "rows": [[_jsonable(v) for v in row] for row in rows[:limit]],
        "truncated": len(rows) > limit,
    }


def reader_role_name(schema: str) -> str:
    """One SELECT-only role per tenant, so the database itself keeps a query in its tenant."""
    return f"{settings.QUERY_DATA_DB_ROLE}_{schema}"[:63]


def query_schema_name(schema: str) -> str:
    """The schema of the tenant's query views (``__`` cannot start a tenant schema's suffix
    the tenant admin chooses, and keeps the pair side by side in a listing)."""
    return f"{schema}__query"[:63]


def query_schema_sync() -> bool:
    """(Re)build the current tenant's query schema and its reader role (after every migrate).

    The views are dropped and created again so they always match the models. The role needs
    CREATEROLE; where the deployment's database user lacks it this logs a warning and
    query_data relies on the other two locks. Returns whether the role is in place.
    """
    schema = current_schema()
    with transaction.atomic(), connection.cursor() as cursor:
        _create_views(cursor, schema)
    if not settings.QUERY_DATA_DB_ROLE:
        return False
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            _grant_views(cursor, schema, reader_role_name(schema))
    except DatabaseError as error:
        logger.warning(
            "query_data reader role not created (%s); relying on validation, "
            "read-only transactions and search_path",
            str(error).splitlines()[0],
        )
        return False
    return True


def _create_views(cursor: Any, schema: str) -> None:
    target = query_schema_name(schema)
    cursor.execute(f'DROP SCHEMA IF EXISTS "{target}" CASCADE')
    cursor.execute(f'CREATE SCHEMA "{target}"')
    for table, columns in allowed_tables().items():
        listed = ", ".join(f'"{column}"' for column in columns)
        where = f" WHERE {_viewer_filter(schema)}" if table in PER_USER_TABLES else ""
        cursor.execute(
            f'CREATE VIEW "{target}"."{table}" WITH (security_barrier) AS '
            f'SELECT {listed} FROM "{schema}"."{table}"{where}'
        )


def _viewer_filter(schema: str) -> str:
    """Rows of actions the viewer may see (mirrors ``chat.selectors.actions_visible``)."""
    return (
        f'action_id IN (SELECT a.id FROM "{schema}"."chat_pendingaction" a '
        f'JOIN "{schema}"."chat_conversation" c ON c.id = a.conversation_id '
        f"WHERE c.user_id = NULLIF(current_setting('{_VIEWER_SETTING}', true), '')::bigint "
        f"OR a.tool = ANY(string_to_array(current_setting('{_VIEWER_TOOLS_SETTING}', true), ',')))"
    )


def _grant_views(cursor: Any, schema: str, role: str) -> None:
    """The role reads the query schema's views and nothing of the tenant schema itself."""
    target = query_schema_name(schema)
    cursor.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [role])
    if cursor.fetchone() is None:
        cursor.execute(f'CREATE ROLE "{role}" NOLOGIN')
    cursor.execute(f'GRANT "{role}" TO CURRENT_USER')
    cursor.execute(f'REVOKE ALL ON ALL TABLES IN SCHEMA "{schema}" FROM "{role}"')
    cursor.execute(f'REVOKE USAGE ON SCHEMA "{schema}" FROM "{role}"')
    cursor.execute(f'GRANT USAGE ON SCHEMA "{target}" TO "{role}"')
    cursor.execute(f'GRANT SELECT ON ALL TABLES IN SCHEMA "{target}" TO "{role}"')


def _assume_reader_role(cursor: Any, schema: str) -> None:
    if not settings.QUERY_DATA_DB_ROLE:
        return
    role = reader_role_name(schema)
    cursor.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [role])
    if cursor.fetchone():
        cursor.execute(f'SET LOCAL ROLE "{role}"')


def _jsonable(value: Any) -> Any:
    return value if isinstance(value, (int, float, str, bool, type(None))) else str(value)
