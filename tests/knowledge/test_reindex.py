"""Reindexing embeds exactly the stale chunks, once, even when two runs overlap (acceptance 3)."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

import pytest
from django.db import connection
from django_tenants.utils import tenant_context

from knowledge.embedder import use_embedder
from knowledge.indexing import kb_reindex, kb_stale_chunk_count
from knowledge.models import Chunk, Document
from knowledge.services import document_update
from tenants.models import Tenant
from tests.knowledge.conftest import FakeEmbedder
from tests.knowledge.factories import EXPENSES, LEAVE_POLICY, make_document


def _long_text(sections: int) -> str:
    return "\n\n".join(
        f"## Section {n}\n\nRule {n}: staff in team {n} submit report {n} every {n} days."
        for n in range(sections)
    )


def test_reindex_embeds_every_chunk_once_and_marks_documents_ready(
    in_tenant_a: Tenant, fake_embedder: FakeEmbedder
) -> None:
    document = make_document("Leave policy", LEAVE_POLICY, embed=False)

    report = kb_reindex(batch_size=1)

    document.refresh_from_db()
    assert report.embedded == 2 and report.batches == 2
    assert len(fake_embedder.embedded) == 2
    assert document.status == Document.Status.READY
    assert all(chunk.is_fresh for chunk in document.chunks.all())


def test_a_second_reindex_with_nothing_stale_embeds_nothing(
    in_tenant_a: Tenant, fake_embedder: FakeEmbedder
) -> None:
    make_document("Leave policy", LEAVE_POLICY)

    report = kb_reindex()

    assert report.embedded == 0
    assert len(fake_embedder.embedded) == 2


def test_the_embedded_text_starts_with_the_title_and_headings(
    in_tenant_a: Tenant, fake_embedder: FakeEmbedder
) -> None:
    make_document("Leave policy", LEAVE_POLICY)

    assert fake_embedder.embedded[1].startswith("Leave policy — Leave policy > Sick leave\n")


def test_editing_one_document_re_embeds_only_its_changed_chunks(
    in_tenant_a: Tenant, fake_embedder: FakeEmbedder
) -> None:
    leave = make_document("Leave policy", LEAVE_POLICY)
    make_document("Expenses", EXPENSES)
    before = dict(Chunk.objects.values_list("id", "embedded_at"))
    fake_embedder.embedded.clear()

    document_update(document=leave, text=LEAVE_POLICY.replace("25 days", "27 days"))
    kb_reindex()

    after = dict(Chunk.objects.values_list("id", "embedded_at"))
    re_embedded = {chunk_id for chunk_id, at in after.items() if before.get(chunk_id) != at}
    assert re_embedded == {Chunk.objects.get(document=leave, ordinal=0).pk}
    assert len(fake_embedder.embedded) == 1
    assert "27 days" in fake_embedder.embedded[0]


def test_renaming_a_document_re_embeds_its_chunks_because_the_title_is_embedded(
    in_tenant_a: Tenant, fake_embedder: FakeEmbedder
) -> None:
    leave = make_document("Leave policy", LEAVE_POLICY)
    make_document("Expenses", EXPENSES)
    fake_embedder.embedded.clear()

    document_update(document=leave, title="Time off")
    kb_reindex()

    assert len(fake_embedder.embedded) == 2
    assert all(text.startswith("Time off") for text in fake_embedder.embedded)


def test_changing_the_embedding_model_marks_every_chunk_stale_and_the_next_run_redoes_them(
    in_tenant_a: Tenant, fake_embedder: FakeEmbedder
) -> None:
    make_document("Leave policy", LEAVE_POLICY)
    make_document("Expenses", EXPENSES)
    total = Chunk.objects.count()

    new_model = FakeEmbedder(model_name="fake/bag-of-words-v2")
    with use_embedder(new_model):
        stale_before = kb_stale_chunk_count()
        report = kb_reindex()
        stale_after = kb_stale_chunk_count()

    assert stale_before == total
    assert report.embedded == total and len(new_model.embedded) == total
    assert stale_after == 0
    assert set(Chunk.objects.values_list("embedding_model", flat=True)) == {"fake/bag-of-words-v2"}


class SlowEmbedder(FakeEmbedder):
    """Takes its time, so two runs are surely embedding at the same moment."""

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        time.sleep(0.05)
        return super().embed_passages(texts)


@pytest.mark.django_db(transaction=True)
def test_two_reindex_runs_at_once_embed_each_chunk_exactly_once(tenant_a: Tenant) -> None:
    embedder = SlowEmbedder()
    with tenant_context(tenant_a), use_embedder(FakeEmbedder()):
        for n in range(4):
            make_document(f"Handbook {n}", _long_text(12), embed=False)
        chunk_count = Chunk.objects.count()
    reports = []
    start = threading.Barrier(2)

    def run() -> None:
        try:
            with tenant_context(tenant_a):
                start.wait()
                reports.append(kb_reindex(embedder=embedder, batch_size=3))
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    with tenant_context(tenant_a):
        assert Chunk.objects.count() == chunk_count
        assert len(embedder.embedded) == chunk_count
        assert len(set(embedder.embedded)) == chunk_count
        assert all(report.embedded > 0 for report in reports)  # the runs really overlapped
        assert sum(report.embedded for report in reports) == chunk_count
        assert kb_stale_chunk_count(embedder=embedder) == 0
        assert set(Document.objects.values_list("status", flat=True)) == {"ready"}
