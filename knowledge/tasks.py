"""Celery tasks of the knowledge base; they run in the schema they were sent from."""

from __future__ import annotations

from core.celery import app
from knowledge.embeddings import EmbeddingError
from knowledge.indexing import kb_reindex


@app.task(
    name="knowledge.reindex_tenant",
    autoretry_for=(EmbeddingError,),
    retry_backoff=True,
    max_retries=5,
)
def reindex_tenant() -> int:
    """Embed the current tenant's stale chunks; returns how many were embedded.

    Sent after an upload or edit commits, by "reindex now" in admin, and every
    ``KB_REINDEX_EVERY_SECONDS`` by beat through ``tenants.fan_out``. Overlapping runs are
    safe (``kb_reindex`` claims chunks with SKIP LOCKED), so no lock is taken here.
    """
    return kb_reindex().embedded
