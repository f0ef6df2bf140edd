"""Documents and their chunks, in each tenant's schema.

A document keeps its original file and the text extracted from it, so chunks can be rebuilt
(new chunk size) without the upload. A chunk is an exact slice of that text; it carries two
indexes for hybrid retrieval: an embedding (HNSW, cosine) and a full-text vector (GIN).
"""

from __future__ import annotations

import uuid
from pathlib import PurePath

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVectorField
from django.db import models
from pgvector.django import HnswIndex, VectorField

from core.schema import current_schema
from knowledge.embeddings import EMBEDDING_DIMENSIONS

# The column's size is fixed by the migration; a model of another size needs a new migration
# (see README "Changing the embedding model").
# HNSW build parameters (pgvector's defaults, written down so the benchmark can cite them).
HNSW_M = 16
HNSW_EF_CONSTRUCTION = 64


def _upload_path(document: Document, filename: str) -> str:
    # The schema is part of the path: tenants never share a folder, and a file name chosen
    # by the uploader cannot reach another tenant's files.
    schema = current_schema()
    return f"knowledge/{schema}/{uuid.uuid4().hex}/{PurePath(filename).name}"


class Document(models.Model):
    class Source(models.TextChoices):
        UPLOAD = "upload", "uploaded file"
        TEXT = "text", "pasted text"

    class Status(models.TextChoices):
        PENDING = "pending", "pending"  # chunks stored, some not embedded yet
        INDEXING = "indexing", "indexing"  # a reindex run is embedding its chunks
        READY = "ready", "ready"
        FAILED = "failed", "failed"  # ``error`` says why; the document has no chunks

    title = models.CharField(max_length=300)
    source = models.CharField(max_length=16, choices=Source.choices, default=Source.TEXT)
    file = models.FileField(upload_to=_upload_path, blank=True, max_length=500)
    original_filename = models.CharField(max_length=255, blank=True)
    # Set by importers (``squad:<article>#<n>``, ``demo:<file>``, a path) so a re-import
    # updates the same document instead of adding a copy.
    external_id = models.CharField(max_length=500, blank=True)
    text = models.TextField(blank=True)
    language = models.CharField(max_length=16, default="und")
    tags = ArrayField(models.CharField(max_length=64), default=list, blank=True)
    is_active = models.BooleanField(default=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    error = models.TextField(blank=True)
    content_hash = models.CharField(max_length=64, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("-updated_at",)
        constraints = [
            models.UniqueConstraint(
                fields=["external_id"],
                condition=~models.Q(external_id=""),
                name="knowledge_document_unique_external_id",
            )
        ]
        indexes = [GinIndex(fields=["tags"], name="knowledge_document_tags")]
        permissions = [("search_playground", "Can use the knowledge search playground")]

    def __str__(self) -> str:
        return self.title


class Chunk(models.Model):
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="chunks")
    ordinal = models.PositiveIntegerField()
    text = models.TextField()
    heading_path = ArrayField(models.CharField(max_length=300), default=list, blank=True)
    char_start = models.PositiveIntegerField()
    char_end = models.PositiveIntegerField()
    token_estimate = models.PositiveIntegerField()
    # sha256 of the text and heading path (knowledge.ingest.chunking.content_hash).
    content_hash = models.CharField(max_length=64)
    embedding = VectorField(dimensions=EMBEDDING_DIMENSIONS, null=True, blank=True)
    # What the stored embedding was made from and by: the chunk is stale when either differs
    # from its current content hash or the configured model.
    embedding_model = models.CharField(max_length=200, blank=True)
    embedded_hash = models.CharField(max_length=64, blank=True)
    embedded_at = models.DateTimeField(null=True, blank=True)
    # Title and headings weighted A, body B; 'simple' configuration over accent-folded text
    # (knowledge/textsearch.py explains why).
    search_vector = SearchVectorField(null=True)

    class Meta:
        ordering = ("document", "ordinal")
        constraints = [
            # Two overlapping writers cannot leave a document with duplicate chunks.
            models.UniqueConstraint(
                fields=["document", "content_hash"], name="knowledge_chunk_unique_content"
            ),
        ]
        indexes = [
            HnswIndex(
                name="knowledge_chunk_embedding",
                fields=["embedding"],
                m=HNSW_M,
                ef_construction=HNSW_EF_CONSTRUCTION,
                opclasses=["vector_cosine_ops"],
            ),
            GinIndex(fields=["search_vector"], name="knowledge_chunk_search"),
        ]

    def __str__(self) -> str:
        return f"{self.document_id}#{self.ordinal}"

    @property
    def is_fresh(self) -> bool:
        """Embedded, from the current text, by the configured model."""
        from knowledge.embedder import current_model_name

        return (
            self.embedding is not None
            and self.embedded_hash == self.content_hash
            and self.embedding_model == current_model_name()
        )


class KnowledgeBaseVersion(models.Model):
    """One row that changes whenever the knowledge base does: the answer cache's key part.

    Written only by a database trigger (migration 0002) on every insert, update or delete of a
    document, whatever made it (a service, the admin, a bulk ``update()``, a cascade, a reindex
    marking documents ready), so no code path can forget to bump it. The trigger fires at
    commit, once per transaction, so the version and the change become visible together and the
    row's lock is the last one a writer takes (two writers cannot deadlock on it).

    ``epoch`` is new whenever the row is (re)created, so a version number is never reused: a
    schema emptied and refilled (a re-created tenant, a test) cannot meet its old cache entries.
    """

    id = models.PositiveSmallIntegerField(primary_key=True, default=1)
    epoch = models.UUIDField(default=uuid.uuid4)
    counter = models.BigIntegerField(default=1)
    # The transaction that bumped last: a second document change in it does not bump again.
    bumped_xid = models.BigIntegerField(default=0)

    class Meta:
        db_table = "knowledge_kb_version"
        constraints = [
            models.CheckConstraint(condition=models.Q(id=1), name="knowledge_kbversion_single")
        ]

    def __str__(self) -> str:
        return f"{self.epoch}:{self.counter}"


class KnowledgeSettings(models.Model):
    """The tenant admin's switches for the knowledge base (one row; absent means defaults)."""

    id = models.PositiveSmallIntegerField(primary_key=True, default=1, editable=False)
    answer_cache_enabled = models.BooleanField(
        default=True,
        help_text="Answer a knowledge question asked again from the stored answer, until a "
        "document or the assistant's prompt changes. Replies show usage.cached = true. Off: "
        "every question runs the assistant.",
    )

    class Meta:
        db_table = "knowledge_settings"
        verbose_name = verbose_name_plural = "knowledge settings"
        constraints = [
            models.CheckConstraint(condition=models.Q(id=1), name="knowledge_settings_single")
        ]

    def __str__(self) -> str:
        return "Knowledge settings"


class TermStatistic(models.Model):
    """How many chunks of this schema hold a full-text lexeme (its document frequency).

    Full-text ranking weighs query words by inverse document frequency; counting a word's
    chunks per query cost a GIN scan and a heap visit per matching chunk (most of a search at
    100k chunks). Kept by statement triggers on ``knowledge_chunk`` (migration 0003), whoever
    writes chunks: each statement appends its net change to ``TermStatisticDelta`` (appends
    never wait on each other's row locks), and ``kb_term_stats_compact`` folds the deltas in
    here. A reader adds both. The row with the empty lexeme (never a real lexeme) holds the
    number of chunks with a full-text vector. Per tenant schema, like every knowledge table.
    """

    lexeme = models.TextField(primary_key=True, db_collation="C")
    df = models.BigIntegerField()

    class Meta:
        db_table = "knowledge_term"

    def __str__(self) -> str:
        return f"{self.lexeme}: {self.df}"


class TermStatisticDelta(models.Model):
    """A net change of one lexeme's document frequency, not yet folded into ``TermStatistic``."""

    id = models.BigAutoField(primary_key=True)
    lexeme = models.TextField(db_collation="C", db_index=True)
    delta = models.BigIntegerField()

    class Meta:
        db_table = "knowledge_term_delta"

    def __str__(self) -> str:
        return f"{self.lexeme}: {self.delta:+d}"
