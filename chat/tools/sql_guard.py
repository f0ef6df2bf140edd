"""Validation of the model's read-only SQL (pure: no Django), the first of three locks.

``query_data`` runs SQL the model wrote. This module accepts exactly one SELECT over an
allowlist of tenant tables, with allowlisted functions only; the executor then runs it in a
read-only transaction with a statement timeout, a row limit, a search_path of the tenant's
query schema alone and, where the deployment has it, a SELECT-only role. Any one lock may have
a hole; the three together are what keeps a tenant's query inside its own data.

Table references are resolved the way PostgreSQL resolves them, scope by scope (sqlglot's
``traverse_scope``): a name is a CTE only inside the query that defines it (and, for a
non-recursive WITH, only after its definition); everywhere else it must be an allowlisted
table. Checking names against "any CTE anywhere" let ``FROM pg_stat_all_tables, (WITH
pg_stat_all_tables AS (SELECT 1) …) s`` read the real catalog view.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import cast

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError
from sqlglot.optimizer.normalize_identifiers import normalize_identifiers
from sqlglot.optimizer.scope import traverse_scope

ALLOWED_FUNCTIONS = frozenset(
    {
        "count",
        "sum",
        "avg",
        "min",
        "max",
        "coalesce",
        "nullif",
        "lower",
        "upper",
        "length",
        "trim",
        "substring",
        "concat",
        "round",
        "floor",
        "ceil",
        "abs",
        "date_trunc",
        "extract",
        "now",
        "current_date",
        "cast",
        "greatest",
        "least",
        "string_agg",
        "array_agg",
        "to_char",
        "date_part",
        "position",
        "replace",
        "left",
        "right",
        "bool_or",
        "bool_and",
        "current_timestamp",
        "localtimestamp",
    }
)

# sqlglot node types that are never part of a plain read.
_FORBIDDEN_NODES: tuple[type[exp.Expression], ...] = (
    exp.Into,
    exp.Lock,
    exp.Insert,
    exp.Update,
    exp.Delete,
    exp.Create,
    exp.Drop,
    exp.Alter,
    exp.Command,
    exp.Set,
    exp.Merge,
    exp.TruncateTable,
    exp.Copy,
)
_UNICODE_IDENTIFIER = re.compile(r"\bU&['\"]", re.IGNORECASE)


class UnsafeQueryError(ValueError):
    """The SQL is not one read-only SELECT over allowed tables; the message says why."""


_CALL = re.compile(r'\s*"?([A-Za-z_][A-Za-z0-9_$]*)"?\s*\(')


def _function_name(node: exp.Func) -> str:
    """The function PostgreSQL will call, read from the node rendered in the postgres dialect
    (sqlglot's own names differ: date_trunc is TIMESTAMP_TRUNC, string_agg GROUP_CONCAT).

    Built-ins that render as operators or keywords (``~``, ``||``, ``CURRENT_DATE``) have no call
    syntax and return "": they are sqlglot-known constructs, not arbitrary server functions."""
    if isinstance(node, exp.Anonymous):
        return str(node.name).lower()
    match = _CALL.match(node.sql(dialect="postgres"))
    return match.group(1).lower() if match else ""


def _check_functions(tree: exp.Expression) -> None:
    for node in tree.find_all(exp.Func):
        if isinstance(node, exp.Cast | exp.TryCast | exp.Extract | exp.Case | exp.If):
            continue
        name = _function_name(node)
        if name and name not in ALLOWED_FUNCTIONS:
            raise UnsafeQueryError(f"function {name}() is not allowed")


def _check_tables(tree: exp.Expression, allowed_tables: Collection[str]) -> None:
    """Every table reference names a CTE visible in its own scope or an allowlisted table.

    Identifiers are already normalised (unquoted ones lower-cased, quoted ones kept), so names
    compare exactly as PostgreSQL compares them. A reference no scope accounts for is refused:
    what the guard cannot place, it does not let through."""
    placed: set[int] = set()
    for scope in traverse_scope(tree):
        for table in scope.tables:
            placed.add(id(table))
            _check_table(table, allowed_tables, ctes=scope.cte_sources)
    for table in tree.find_all(exp.Table):
        if id(table) not in placed:
            raise UnsafeQueryError(f"could not resolve table {table.sql(dialect='postgres')}")


def _check_table(
    table: exp.Table, allowed_tables: Collection[str], *, ctes: Collection[str]
) -> None:
    if table.args.get("db") or table.args.get("catalog"):
        raise UnsafeQueryError(
            f"table {table.sql(dialect='postgres')} names a schema; use the bare table name"
        )
    name = table.name
    if not name:
        raise UnsafeQueryError("only tables may appear in FROM (no functions)")
    if name not in allowed_tables and name not in ctes:
        raise UnsafeQueryError(
            f"table {name} is not available; use one of: {', '.join(sorted(allowed_tables))}"
        )


def _check_columns(tree: exp.Expression, hidden_columns: Collection[str]) -> None:
    """Hidden columns are not in the query schema's views at all; refusing their names here
    as well gives the model a clear message instead of a "does not exist" to puzzle over."""
    for column in tree.find_all(exp.Column):
        if column.name in hidden_columns:
            raise UnsafeQueryError(f"column {column.name} is not available")


def validate_select(
    sql: str, *, allowed_tables: Collection[str], hidden_columns: Collection[str] = ()
) -> str:
    """Return the normalised SQL if it is one safe SELECT, else raise ``UnsafeQueryError``."""
    if _UNICODE_IDENTIFIER.search(sql):
        raise UnsafeQueryError("U& escaped identifiers and strings are not allowed")
    try:
        statements = [s for s in sqlglot.parse(sql, dialect="postgres") if s is not None]
    except ParseError as error:
        raise UnsafeQueryError(f"could not parse the SQL: {str(error).splitlines()[0]}") from None
    if len(statements) != 1:
        raise UnsafeQueryError("exactly one SQL statement is allowed")
    tree = statements[0]
    if not isinstance(tree, exp.Query):
        raise UnsafeQueryError("only SELECT queries are allowed")
    for node in tree.walk():
        if isinstance(node, _FORBIDDEN_NODES):
            raise UnsafeQueryError(f"{node.key.upper()} is not allowed in a read-only query")
    root = normalize_identifiers(cast(exp.Expression, tree), dialect="postgres")
    _check_tables(root, {t.lower() for t in allowed_tables})
    _check_columns(root, {c.lower() for c in hidden_columns})
    _check_functions(root)
    return str(root.sql(dialect="postgres"))
