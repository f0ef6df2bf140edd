"""Tampering with the audit trail the way only a database superuser can: with triggers off
(``session_replication_role = replica``), which the append-only trigger cannot prevent and
``audit_verify`` must detect."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from django.db import connection


@contextlib.contextmanager
def as_superuser_with_triggers_off() -> Iterator[None]:
    with connection.cursor() as cursor:
        cursor.execute("SET session_replication_role = replica")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SET session_replication_role = origin")
