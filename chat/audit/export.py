"""A tenant's audit trail for a period, as JSON Lines or CSV, for a tenant admin.

Each row carries the chain's hashes, so ``tools/audit_verify_export.py`` (standard library
only) can check it offline: every row against its own hashes, and each row against the one
before it. The rows of a period start from the hash of the event before the period.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from django.contrib.auth.models import User

from chat.audit.chain import canonical_json
from chat.audit.selectors import audit_records
from chat.selectors import is_tenant_admin
from core.schema import current_schema

ExportFormat = Literal["jsonl", "csv"]
FORMATS: tuple[ExportFormat, ...] = ("jsonl", "csv")
CONTENT_TYPES: dict[ExportFormat, str] = {"jsonl": "application/jsonl", "csv": "text/csv"}
CSV_COLUMNS = (
    "seq",
    "at",
    "action",
    "tool",
    "kind",
    "actor",
    "actor_username",
    "data",
    "redacted",
    "redacted_at",
    "data_hash",
    "content_hash",
    "prev_hash",
    "hash",
)


class AuditExportForbidden(Exception):
    """Only a tenant admin may read the whole trail."""


class AuditExportInvalid(Exception):
    """A period or format that cannot be read (the message names the parameter)."""


@dataclass(frozen=True)
class AuditExport:
    filename: str
    content_type: str
    content: str


def audit_period_parse(*, since: str | None, until: str | None) -> tuple[datetime | None, ...]:
    """``from`` and ``to`` as ISO 8601 dates or times (UTC when no offset is given). A bare
    date as ``to`` includes that whole day."""
    parsed: list[datetime | None] = []
    for name, raw in (("from", since), ("to", until)):
        if not raw:
            parsed.append(None)
            continue
        try:
            moment = datetime.fromisoformat(raw)
        except ValueError:
            raise AuditExportInvalid(
                f"'{name}' must be an ISO 8601 date or time, e.g. 2026-11-01"
            ) from None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        if name == "to" and len(raw) == 10:
            moment += timedelta(days=1)
        parsed.append(moment)
    return tuple(parsed)


def _jsonl(records: Iterable[dict[str, Any]]) -> str:
    return "".join(canonical_json(record) + "\n" for record in records)


def _csv(records: Iterable[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for record in records:
        cells = record | {
            "data": canonical_json(record["data"]),
            "redacted": "true" if record["redacted"] else "false",
        }
        writer.writerow(["" if cells[name] is None else cells[name] for name in CSV_COLUMNS])
    return out.getvalue()


def audit_export(
    *, user: User, since: str | None, until: str | None, fmt: str | None
) -> AuditExport:
    """The current tenant's events from ``since`` (inclusive) to ``until`` (exclusive) in
    ``fmt`` (jsonl by default). Raises ``AuditExportForbidden`` unless ``user`` is a tenant
    admin, ``AuditExportInvalid`` for a bad period or format."""
    if not is_tenant_admin(user=user):
        raise AuditExportForbidden("only a tenant admin may export the audit trail")
    fmt = fmt or "jsonl"
    if fmt not in FORMATS:
        raise AuditExportInvalid(f"'format' must be one of {', '.join(FORMATS)}")
    start, end = audit_period_parse(since=since, until=until)
    records = audit_records(since=start, until=end)
    content = _jsonl(records) if fmt == "jsonl" else _csv(records)
    period = f"{since or 'start'}_{until or 'now'}".replace(":", "")
    return AuditExport(
        filename=f"audit-{current_schema()}-{period}.{fmt}",
        content_type=CONTENT_TYPES[fmt],
        content=content,
    )
