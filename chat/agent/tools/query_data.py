"""query_data: one read-only SELECT over an allowlist of the tenant's own tables.

Three locks (see sql_guard.py): the statement is validated; it runs in a READ ONLY transaction
with ``statement_timeout`` and a search_path of the tenant schema alone (so even a table name
that slipped through cannot reach ``public``); and, when the role named by ``QUERY_DATA_DB_ROLE``
exists, as that SELECT-only role. Rows are capped at ``QUERY_DATA_ROW_LIMIT``.
"""

from __future__ import annotations

import logging
from typing import Any

import psycopg
from django.apps import apps
from django.conf import settings
from django.db import DatabaseError, connection, transaction
from pydantic import BaseModel, Field

from chat.agent.db import conninfo
from chat.agent.tools.spec import function_spec
from chat.agent.tools.sql_guard import UnsafeQueryError, validate_select
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
_HIDDEN_COLUMNS = {"file", "content_hash"}


class QueryDataArgs(BaseModel):
    sql: str = Field(min_length=1, max_length=4000, description="one PostgreSQL SELECT statement")


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
        tables[model._meta.db_table] = [
            f.column for f in model._meta.concrete_fields if f.name not in _HIDDEN_COLUMNS
        ]
        for m2m in model._meta.many_to_many:
            through = m2m.remote_field.through._meta
            tables[through.db_table] = [f.column for f in through.concrete_fields]
    return tables


def query_data_spec() -> dict[str, Any]:
    described = "\n".join(f"- {t}({', '.join(cols)})" for t, cols in allowed_tables().items())
    description = (
        "Answer questions about the organisation's own data with ONE read-only PostgreSQL "
        "SELECT. Use bare table names; only these tables exist:\n" + described
    )
    return function_spec(QUERY_DATA_TOOL_NAME, description, QueryDataArgs)


def run_query(sql: str) -> dict[str, Any]:
    """Validate and run ``sql`` in the current tenant schema; raise ``QueryFailed``."""
    try:
        safe_sql = validate_select(sql, allowed_tables=allowed_tables().keys())
    except UnsafeQueryError as error:
        raise QueryFailed(str(error)) from None
    schema = current_schema()
    limit = settings.QUERY_DATA_ROW_LIMIT
    try:
        # A connection of its own: READ ONLY, the role and the timeout can then never leak
        # into (or be weakened by) a transaction the caller has open.
        with (
            psycopg.connect(conninfo(search_path=f'"{schema}"')) as session,
            session.cursor() as cursor,
        ):
            cursor.execute("SET TRANSACTION READ ONLY")
            cursor.execute(
                "SELECT set_config('statement_timeout', %s, true)",
                [str(settings.QUERY_DATA_TIMEOUT_MS)],
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


def reader_role_sync() -> bool:
    """Create the current tenant's reader role with SELECT on the queryable tables only.

    Needs CREATEROLE; where the deployment's database user lacks it this logs a warning and
    query_data relies on the other two locks. Returns whether the role is in place.
    """
    if not settings.QUERY_DATA_DB_ROLE:
        return False
    schema, role = current_schema(), reader_role_name(current_schema())
    tables = ", ".join(f'"{schema}"."{table}"' for table in allowed_tables())
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [role])
            if cursor.fetchone() is None:
                cursor.execute(f'CREATE ROLE "{role}" NOLOGIN')
            cursor.execute(f'GRANT "{role}" TO CURRENT_USER')
            cursor.execute(f'GRANT USAGE ON SCHEMA "{schema}" TO "{role}"')
            if tables:
                cursor.execute(f'GRANT SELECT ON {tables} TO "{role}"')
    except DatabaseError as error:
        logger.warning(
            "query_data reader role not created (%s); relying on validation, "
            "read-only transactions and search_path",
            str(error).splitlines()[0],
        )
        return False
    return True


def _assume_reader_role(cursor: Any, schema: str) -> None:
    if not settings.QUERY_DATA_DB_ROLE:
        return
    role = reader_role_name(schema)
    cursor.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [role])
    if cursor.fetchone():
        cursor.execute(f'SET LOCAL ROLE "{role}"')


def _jsonable(value: Any) -> Any:
    return value if isinstance(value, (int, float, str, bool, type(None))) else str(value)
