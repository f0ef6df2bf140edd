"""Documents for knowledge tests, made through the services like real ones."""

from __future__ import annotations

from collections.abc import Sequence

from knowledge.indexing import kb_reindex
from knowledge.models import Document
from knowledge.services import document_upsert


def make_document(
    title: str, text: str, *, tags: Sequence[str] = (), embed: bool = True
) -> Document:
    """A document in the current tenant, chunked and (by default) embedded."""
    document, _ = document_upsert(
        external_id=f"test:{title}", title=title, text=text, tags=tags, enqueue=False
    )
    if embed:
        kb_reindex()
        document.refresh_from_db()
    return document


LEAVE_POLICY = """# Leave policy

## Annual leave

Full-time staff receive 25 days of paid annual leave per calendar year.

## Sick leave

Tell your line manager before 9:00 on the first day of absence. From the fourth day a
doctor's note is required.
"""

EXPENSES = """# Expenses

Hotels are reimbursed up to 150 EUR per night and meals up to 40 EUR per day while travelling.
Submit every receipt in the finance app within 30 days.
"""
