"""Embedding the knowledge base: ``kb_reindex`` turns stale chunks into vectors, in batches.

Stale means: never embedded, embedded from other text, or embedded by another model. Two
reindex runs may overlap: each batch claims its chunks with ``FOR UPDATE SKIP LOCKED``, so every
chunk is embedded by exactly one of them. The writes that make chunks stale live in
``knowledge.services``; the task that runs this later lives in ``knowledge.tasks``, which
imports this module and not the services (so services may queue the task without a cycle).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, F, OuterRef, Q, QuerySet
from django.utils import timezone

from knowledge.embedder import get_embedder
from knowledge.embeddings import Embedder
from knowledge.ingest.chunking import ChunkDraft, embedding_text
from knowledge.models import Chunk, Document
from knowledge.term_stats import kb_term_stats_compact


@dataclass(frozen=True)
class ReindexReport:
    """What one ``kb_reindex`` run did."""

    embedded: int
    batches: int
    model: str


def kb_stale_chunk_count(*, embedder: Embedder | None = None) -> int:
    """How many chunks of the current tenant need embedding by ``embedder``'s model."""
    return stale_chunks(model=(embedder or get_embedder()).model_name).count()


def kb_reindex(
    *,
    embedder: Embedder | None = None,
    batch_size: int | None = None,
    progress: Callable[[int], object] | None = None,
) -> ReindexReport:
    """Embed every stale chunk of the current tenant, ``batch_size`` chunks per transaction.

    Stale means: no embedding yet, embedded from other text, or embedded by a model other than
    ``embedder``'s. Each batch locks its chunks with ``FOR UPDATE SKIP LOCKED`` while embedding
    them, so an overlapping run takes other chunks; neither writes a chunk the other embedded.
    A run with nothing stale costs a few small queries. ``progress`` gets each batch size.
    Documents whose chunks are all fresh end ``ready``, and the full-text term statistics
    of the edits that queued this run are folded in (``kb_term_stats_compact``).
    """
    embedder = embedder or get_embedder()
    batch_size = batch_size or settings.EMBEDDINGS_BATCH_SIZE
    model = embedder.model_name
    embedded = batches = 0
    _documents_mark_indexing(model=model)
    while True:
        with transaction.atomic():
            batch = list(
                stale_chunks(model=model)
                .select_related("document")
                .select_for_update(skip_locked=True, of=("self",))
                .order_by("id")[:batch_size]
            )
            if not batch:
                break
            _chunks_embed(chunks=batch, embedder=embedder)
        embedded += len(batch)
        batches += 1
        if progress is not None:
            progress(len(batch))
    _documents_mark_ready(model=model)
    kb_term_stats_compact()
    return ReindexReport(embedded=embedded, batches=batches, model=model)


def _chunks_embed(*, chunks: list[Chunk], embedder: Embedder) -> None:
    texts = [embedding_text(_as_draft(chunk), chunk.document.title) for chunk in chunks]
    vectors = embedder.embed_passages(texts)
    now = timezone.now()
    for chunk, vector in zip(chunks, vectors, strict=True):
        chunk.embedding = vector
        chunk.embedding_model = embedder.model_name
        chunk.embedded_hash = chunk.content_hash
        chunk.embedded_at = now
    Chunk.objects.bulk_update(
        chunks, ["embedding", "embedding_model", "embedded_hash", "embedded_at"]
    )


def _as_draft(chunk: Chunk) -> ChunkDraft:
    return ChunkDraft(
        ordinal=chunk.ordinal,
        text=chunk.text,
        heading_path=tuple(chunk.heading_path),
        char_start=chunk.char_start,
        char_end=chunk.char_end,
        token_estimate=chunk.token_estimate,
        content_hash=chunk.content_hash,
    )


def stale_chunks(*, model: str) -> QuerySet[Chunk]:
    return Chunk.objects.filter(
        Q(embedding__isnull=True) | ~Q(embedding_model=model) | ~Q(embedded_hash=F("content_hash"))
    )


def _documents_mark_indexing(*, model: str) -> None:
    stale = stale_chunks(model=model).filter(document=OuterRef("pk"))
    Document.objects.filter(
        Exists(stale), status__in=[Document.Status.PENDING, Document.Status.READY]
    ).update(status=Document.Status.INDEXING)


def _documents_mark_ready(*, model: str) -> None:
    stale = stale_chunks(model=model).filter(document=OuterRef("pk"))
    Document.objects.filter(
        ~Exists(stale), status__in=[Document.Status.PENDING, Document.Status.INDEXING]
    ).update(status=Document.Status.READY)
