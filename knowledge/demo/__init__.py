"""The sample knowledge base of the demo tenants (``bootstrap_demo``): a few policy and FAQ
documents, one in Spanish and one in Korean, embedded right away so the demo answers at once."""

from __future__ import annotations

from pathlib import Path

from knowledge.indexing import kb_reindex
from knowledge.ingest.parsers import extract_text
from knowledge.services import document_upsert

DOCUMENTS = Path(__file__).resolve().parent / "documents"


def demo_documents_load() -> int:
    """Create or refresh the demo documents in the current tenant; returns how many changed."""
    changed = 0
    for path in sorted(DOCUMENTS.glob("*.md")):
        parsed = extract_text(path.read_bytes(), path.name)
        _, was_changed = document_upsert(
            external_id=f"demo:{path.name}",
            title=parsed.title_hint or path.stem,
            text=parsed.text,
            tags=["demo", "policy"],
            enqueue=False,
        )
        changed += was_changed
    kb_reindex()
    return changed
