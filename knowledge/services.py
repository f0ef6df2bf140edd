"""Writes to the knowledge base: adding, editing and deactivating documents.

Adding a document parses and chunks it in one transaction (a file that cannot be read leaves a
``failed`` document with the reason and no chunks); embedding happens later, after commit, in
the ``knowledge.reindex_tenant`` task, which runs ``knowledge.indexing.kb_reindex``.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth.models import User
from django.core.files.base import ContentFile
from django.db import connection, transaction
from django.db.models import QuerySet
from django.utils import timezone

from knowledge.embedder import current_model_name
from knowledge.indexing import stale_chunks
from knowledge.ingest.chunking import ChunkDraft, chunk_text
from knowledge.ingest.parsers import IngestError, detect_language, extract_text, filename_title
from knowledge.models import Chunk, Document
from knowledge.tasks import reindex_tenant
from knowledge.textsearch import fold

logger = logging.getLogger(__name__)


class UploadTooLargeError(IngestError):
    """An upload over ``KB_MAX_UPLOAD_BYTES``; refused before anything is stored."""


@dataclass(frozen=True)
class Upload:
    """A file as it arrived: its name, bytes and declared content type."""

    name: str
    data: bytes
    content_type: str | None = None


# --- adding and editing documents ---------------------------------------------------------


def upload_check_size(*, name: str, size: int) -> None:
    """Raise ``UploadTooLargeError`` when a file is over the configured limit."""
    limit = settings.KB_MAX_UPLOAD_BYTES
    if size > limit:
        raise UploadTooLargeError(
            f"{name} is {_human_size(size)}; the limit is {_human_size(limit)}. "
            "Split it into smaller files."
        )


def document_create_from_upload(
    *,
    upload: Upload,
    title: str | None = None,
    tags: Sequence[str] = (),
    created_by: User | None = None,
    external_id: str = "",
) -> Document:
    """Store an uploaded file as a document and chunk it; embedding follows in ``kb_reindex``.

    Raises ``UploadTooLargeError`` (nothing stored) for a file over the limit. A file that
    cannot be parsed still becomes a document, ``failed`` with the reason in ``error`` and no
    chunks, and keeps the original file so an admin can look at it.
    """
    upload_check_size(name=upload.name, size=len(upload.data))
    with transaction.atomic():
        document = None
        if external_id:  # a re-import replaces the file of the document it made before
            document = Document.objects.select_for_update().filter(external_id=external_id).first()
        if document is None:
            document = Document(external_id=external_id, created_by=created_by)
        document.source = Document.Source.UPLOAD
        document.original_filename = upload.name
        document.tags = _clean_tags(tags)
        try:
            parsed = extract_text(upload.data, upload.name, upload.content_type)
        except IngestError as error:
            document.title = (title or filename_title(upload.name))[:300]
            return _document_save_failed(document=document, upload=upload, error=error.message)
        new_title = (title or parsed.title_hint or filename_title(upload.name))[:300]
        title_changed = bool(document.pk) and new_title != document.title
        document.title = new_title
        document.language = parsed.language
        document.file.save(upload.name, ContentFile(upload.data), save=False)
        _document_set_text(document=document, text=parsed.text, title_changed=title_changed)
    _reindex_after_commit()
    return document


def document_create_from_text(
    *,
    title: str,
    text: str,
    tags: Sequence[str] = (),
    created_by: User | None = None,
) -> Document:
    """Store pasted text as a document and chunk it. Blank text raises ``IngestError``."""
    document = Document(
        source=Document.Source.TEXT,
        title=title[:300],
        tags=_clean_tags(tags),
        created_by=created_by,
    )
    with transaction.atomic():
        _document_set_text(document=document, text=_checked_text(text))
    _reindex_after_commit()
    return document


def document_upsert(
    *,
    external_id: str,
    title: str,
    text: str,
    tags: Sequence[str] = (),
    enqueue: bool = True,
) -> tuple[Document, bool]:
    """Create or update the document an importer knows as ``external_id``.

    Returns ``(document, changed)``; an unchanged document keeps its chunks and embeddings.
    ``enqueue=False`` leaves the embedding to the caller (commands run ``kb_reindex`` inline).
    """
    text = _checked_text(text)
    with transaction.atomic():
        document = Document.objects.select_for_update().filter(external_id=external_id).first()
        if document is None:
            document = Document(external_id=external_id, source=Document.Source.TEXT)
        elif (
            document.title == title[:300]
            and document.content_hash == _text_hash(text)
            and document.tags == _clean_tags(tags)
        ):
            return document, False
        title_changed = document.pk is not None and document.title != title[:300]
        if document.content_hash != _text_hash(text):
            document.language = detect_language(text)
        document.title = title[:300]
        document.tags = _clean_tags(tags)
        _document_set_text(document=document, text=text, title_changed=title_changed)
    if enqueue:
        _reindex_after_commit()
    return document, True


def document_update(
    *,
    document: Document,
    title: str | None = None,
    text: str | None = None,
    tags: Sequence[str] | None = None,
) -> Document:
    """Change a document; only chunks whose text (or the title they are embedded with)
    changed need embedding again."""
    with transaction.atomic():
        locked = Document.objects.select_for_update().get(pk=document.pk)
        title_changed = title is not None and title[:300] != locked.title
        if title is not None:
            locked.title = title[:300]
        if tags is not None:
            locked.tags = _clean_tags(tags)
        _document_set_text(
            document=locked,
            text=_checked_text(text) if text is not None else locked.text,
            title_changed=title_changed,
        )
    _reindex_after_commit()
    return locked


def documents_rechunk(*, documents: Iterable[Document], enqueue: bool = True) -> int:
    """Cut the selected documents into chunks again (after a chunk-size change, or to retry)
    and queue their stale chunks for embedding (unless ``enqueue=False``). Failed documents
    are skipped. Returns how many documents were rechunked."""
    count = 0
    for document in documents:
        with transaction.atomic():
            locked = Document.objects.select_for_update().get(pk=document.pk)
            if locked.status == Document.Status.FAILED or not locked.text:
                continue
            _document_set_text(document=locked, text=locked.text)
            count += 1
    if enqueue:
        _reindex_after_commit()
    return count


def documents_deactivate(*, documents: QuerySet[Document]) -> int:
    """Hide documents from retrieval (chunks and embeddings are kept). Returns the count."""
    return documents.filter(is_active=True).update(is_active=False, updated_at=timezone.now())


def _document_save_failed(*, document: Document, upload: Upload, error: str) -> Document:
    """The document, failed with ``error`` and without chunks (caller holds a transaction)."""
    document.status = Document.Status.FAILED
    document.error = error
    document.text = ""
    document.content_hash = ""
    document.file.save(upload.name, ContentFile(upload.data), save=False)
    document.save()
    if document.pk:
        Chunk.objects.filter(document=document).delete()
    logger.info("document %r failed to parse: %s", upload.name, error)
    return document


def _checked_text(text: str) -> str:
    cleaned = text.replace("\x00", "").strip()
    if not cleaned:
        raise IngestError("The text is empty.")
    return cleaned


def _document_set_text(*, document: Document, text: str, title_changed: bool = False) -> None:
    """Save the document with ``text`` and make its chunks match it (caller holds a
    transaction). Chunks that did not change keep their embeddings, unless the title they
    were embedded with changed."""
    document.text = text
    document.content_hash = _text_hash(text)
    document.error = ""
    if document.language in ("", "und"):
        document.language = detect_language(text)
    document.save()
    drafts = chunk_text(text, size=settings.KB_CHUNK_SIZE, overlap=settings.KB_CHUNK_OVERLAP)
    _chunks_sync(document=document, drafts=drafts, title_changed=title_changed)
    stale = stale_chunks(model=current_model_name()).filter(document=document).exists()
    document.status = Document.Status.PENDING if stale else Document.Status.READY
    document.save(update_fields=["status"])


def _chunks_sync(*, document: Document, drafts: list[ChunkDraft], title_changed: bool) -> None:
    existing = {chunk.content_hash: chunk for chunk in document.chunks.all()}
    wanted = {draft.content_hash for draft in drafts}
    Chunk.objects.filter(document=document).exclude(content_hash__in=wanted).delete()
    kept: list[Chunk] = []
    new: list[Chunk] = []
    for draft in drafts:
        chunk = existing.get(draft.content_hash)
        if chunk is None:
            chunk = Chunk(document=document, content_hash=draft.content_hash)
            new.append(chunk)
        else:
            kept.append(chunk)
            if title_changed:
                chunk.embedded_hash = ""  # the title is part of what was embedded
        chunk.ordinal = draft.ordinal
        chunk.text = draft.text
        chunk.heading_path = list(draft.heading_path)
        chunk.char_start = draft.char_start
        chunk.char_end = draft.char_end
        chunk.token_estimate = draft.token_estimate
    fields = ["ordinal", "text", "heading_path", "char_start", "char_end", "token_estimate"]
    Chunk.objects.bulk_update(kept, [*fields, "embedded_hash"])
    Chunk.objects.bulk_create(new)
    _search_vectors_update(chunks=[*kept, *new], title=document.title)


def _search_vectors_update(*, chunks: list[Chunk], title: str) -> None:
    """Title and headings weighted A, body B, folded in Python (knowledge/textsearch.py)."""
    if not chunks:
        return
    heads = [fold(" ".join([title, *chunk.heading_path])) for chunk in chunks]
    bodies = [fold(chunk.text) for chunk in chunks]
    with connection.cursor() as cursor:
        cursor.execute(
            """
            UPDATE knowledge_chunk AS c
               SET search_vector = setweight(to_tsvector('simple', v.head), 'A')
                                || setweight(to_tsvector('simple', v.body), 'B')
              FROM unnest(%s::bigint[], %s::text[], %s::text[]) AS v(id, head, body)
             WHERE c.id = v.id
            """,
            [[chunk.pk for chunk in chunks], heads, bodies],
        )


def _text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _clean_tags(tags: Iterable[str]) -> list[str]:
    return sorted({tag.strip().lower()[:64] for tag in tags if tag.strip()})


def _human_size(size: int) -> str:
    if size >= 1024 * 1024:
        return f"{size / (1024 * 1024):.1f} MB"
    if size >= 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size} bytes"


def _reindex_after_commit() -> None:
    """Queue the tenant's reindex once the rows it needs are committed."""
    transaction.on_commit(lambda: reindex_tenant.delay())
