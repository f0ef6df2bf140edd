"""Validation of the model's read-only SQL (pure: no Django), the first of three locks.

``query_data`` runs SQL the model wrote. This module accepts exactly one SELECT over an
allowlist of tenant tables, with allowlisted functions only; the executor then runs it in a
read-only transaction with a statement timeout, a row limit, a search_path of the tenant schema
alone and, where the deployment has it, a SELECT-only role. Any one lock may have a hole; the
three together are what keeps a tenant's query inside its own data.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import cast

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError

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
    cte_names = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}
    for table in tree.find_all(exp.Table):
        if table.args.get("db") or table.args.get("catalog"):
            raise UnsafeQueryError(
                f"table {table.sql(dialect='postgres')} names a schema; use the bare table name"
            )
        name = table.name.lower()
        if not name:
            raise UnsafeQueryError("only tables may appear in FROM (no functions)")
        if name not in allowed_tables and name not in cte_names:
            raise UnsafeQueryError(
                f"table {name} is not available; use one of: {', '.join(sorted(allowed_tables))}"
            )


def validate_select(sql: str, *, allowed_tables: Collection[str]) -> str:
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
    root = cast(exp.Expression, tree)
    _check_tables(root, {t.lower() for t in allowed_tables})
    _check_functions(root)
    return str(tree.sql(dialect="postgres"))
