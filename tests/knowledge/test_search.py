"""Hybrid retrieval: scores, filters, languages (acceptance 2) and tenant isolation (4)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django_tenants.utils import tenant_context

from knowledge.models import Chunk, Document
from knowledge.selectors import SearchHit, SearchInputError, SearchResult, kb_search
from knowledge.services import documents_deactivate
from tenants.models import Tenant
from tests.knowledge.factories import EXPENSES, LEAVE_POLICY, make_document

DEMO = Path(__file__).resolve().parents[2] / "knowledge" / "demo" / "documents"


def _demo(name: str) -> str:
    return (DEMO / name).read_text(encoding="utf-8")


def _nearest_by_vector(result: SearchResult) -> SearchHit:
    return min(
        (hit for hit in result.hits if hit.vector_rank), key=lambda hit: hit.vector_rank or 0
    )


def _as_on_a_large_tenant() -> None:
    """The planner sorts a few chunks by distance; a tenant's thousands it reads in order
    from the HNSW index. Until the test's transaction ends, the index it is."""
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SET LOCAL enable_sort = off")


def _copy(chunk: Chunk, *, document: Document, n: int) -> Chunk:
    return Chunk(
        document=document,
        ordinal=n,
        text=chunk.text,
        heading_path=chunk.heading_path,
        char_start=chunk.char_start,
        char_end=chunk.char_end,
        token_estimate=chunk.token_estimate,
        content_hash=f"{chunk.content_hash[:40]}-{n}",
        embedding=chunk.embedding,
        embedding_model=chunk.embedding_model,
    )


@pytest.mark.usefixtures("fake_embedder")
class TestWithAFakeModel:
    def test_hits_carry_vector_text_and_fused_scores_and_the_document_title(
        self, in_tenant_a: Tenant
    ) -> None:
        make_document("Leave policy", LEAVE_POLICY)
        make_document("Expenses", EXPENSES)

        result = kb_search(query="doctor's note for sick leave", k=3)

        best = result.hits[0]
        assert best.document_title == "Leave policy"
        assert best.heading_path == ("Leave policy", "Sick leave")
        assert best.vector_score is not None and 0 < best.vector_score <= 1
        assert best.text_score is not None and best.text_score > 0
        assert best.fused_score == pytest.approx(1 / 61 + 1 / 61)
        assert [hit.fused_score for hit in result.hits] == sorted(
            (hit.fused_score for hit in result.hits), reverse=True
        )

    def test_a_search_is_one_sql_statement(self, in_tenant_a: Tenant) -> None:
        make_document("Leave policy", LEAVE_POLICY)

        with CaptureQueriesContext(connection) as queries:
            kb_search(query="sick leave", k=5)

        # django-tenants may set the search_path first (once per checkout and tenant switch);
        # that is the tenancy layer's, not the search's.
        statements = [q["sql"] for q in queries if not q["sql"].startswith("SET search_path")]
        assert len(statements) == 1

    def test_deactivated_documents_are_not_found(self, in_tenant_a: Tenant) -> None:
        leave = make_document("Leave policy", LEAVE_POLICY)

        documents_deactivate(documents=Document.objects.filter(pk=leave.pk))

        assert kb_search(query="sick leave", k=5).hits == []

    def test_tags_keep_only_documents_carrying_one_of_them(self, in_tenant_a: Tenant) -> None:
        make_document("Leave policy", LEAVE_POLICY, tags=["hr"])
        make_document("Expenses", EXPENSES, tags=["finance"])

        result = kb_search(query="days", k=10, tags=["finance"])

        assert {hit.document_title for hit in result.hits} == {"Expenses"}

    def test_accents_do_not_matter_to_full_text_search(self, in_tenant_a: Tenant) -> None:
        make_document("Vacaciones", _demo("vacaciones-es.md"))

        hit = kb_search(query="politica teletrabajo", k=1).hits[0]

        assert hit.text_rank == 1
        assert "Teletrabajo" in hit.heading_path

    def test_a_blank_query_or_a_bad_k_is_refused(self, in_tenant_a: Tenant) -> None:
        with pytest.raises(SearchInputError, match="q must not be empty"):
            kb_search(query="   ")
        with pytest.raises(SearchInputError, match="k must be between 1 and 50"):
            kb_search(query="leave", k=0)

    def test_deleted_chunk_versions_not_vacuumed_yet_do_not_starve_the_nearest_list(
        self, in_tenant_a: Tenant
    ) -> None:
        make_document("Leave policy", LEAVE_POLICY)
        make_document("Expenses", EXPENSES)
        live = set(Chunk.objects.values_list("id", flat=True))
        # A document imported again and again leaves its deleted chunks in the HNSW index
        # until VACUUM, as close to every question as the live copies are.
        draft = make_document("Old draft", "draft", embed=False)
        Chunk.objects.bulk_create(
            _copy(chunk, document=draft, n=n)
            for n in range(200)
            for chunk in Chunk.objects.exclude(document=draft)
        )
        draft.delete()
        _as_on_a_large_tenant()

        result = kb_search(query="doctor's note sick leave", k=3)

        assert {hit.chunk_id for hit in result.hits if hit.vector_rank} == live

    def test_an_index_that_visits_too_few_chunks_still_fills_the_nearest_list(
        self, in_tenant_a: Tenant
    ) -> None:
        make_document("Leave policy", LEAVE_POLICY)
        make_document("Expenses", EXPENSES)
        _as_on_a_large_tenant()
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL hnsw.ef_search = 1")

        result = kb_search(query="doctor's note sick leave", k=3)

        assert sorted(hit.vector_rank or 0 for hit in result.hits) == [1, 2, 3]

    def test_search_in_tenant_b_never_returns_tenant_a_chunks(
        self, tenant_a: Tenant, tenant_b: Tenant
    ) -> None:
        with tenant_context(tenant_a):
            make_document("Leave policy", LEAVE_POLICY)
        with tenant_context(tenant_b):
            make_document("Expenses", EXPENSES)

            result = kb_search(query="sick leave doctor's note annual leave", k=50)

        assert {hit.document_title for hit in result.hits} == {"Expenses"}


@pytest.mark.usefixtures("real_embedder")
class TestWithTheLocalMultilingualModel:
    @pytest.fixture
    def multilingual_kb(self, in_tenant_a: Tenant) -> dict[str, int]:
        documents = {
            "ko": make_document("실험실 안전 수칙", _demo("lab-safety-ko.md")),
            "es": make_document("Política de vacaciones", _demo("vacaciones-es.md")),
            "leave": make_document("Leave policy", _demo("leave-policy.md")),
            "it": make_document("IT help desk", _demo("it-help.md")),
            "expenses": make_document("Expenses FAQ", _demo("expenses-faq.md")),
        }
        return {key: document.pk for key, document in documents.items()}

    def test_a_korean_document_is_found_by_a_korean_query(
        self, multilingual_kb: dict[str, int]
    ) -> None:
        hit = kb_search(query="화재 경보가 울리면 어디로 대피하나요?", k=3).hits[0]

        assert hit.document_id == multilingual_kb["ko"]
        assert "화재 발생 시" in hit.heading_path

    def test_a_korean_document_is_found_by_an_english_paraphrase_through_vectors(
        self, multilingual_kb: dict[str, int]
    ) -> None:
        result = kb_search(query="What should I do when the fire alarm goes off in the lab?", k=20)

        nearest = _nearest_by_vector(result)
        assert nearest.document_id == multilingual_kb["ko"]
        assert "화재 발생 시" in nearest.heading_path
        assert nearest.text_rank is None  # no word in common: only the vectors found it

    def test_a_spanish_document_is_found_by_a_spanish_query(
        self, multilingual_kb: dict[str, int]
    ) -> None:
        hit = kb_search(query="¿Cuántos días de teletrabajo se permiten?", k=3).hits[0]

        assert hit.document_id == multilingual_kb["es"]
        assert hit.text_rank == 1 and hit.vector_rank == 1

    def test_a_spanish_document_is_found_by_an_english_paraphrase_through_vectors(
        self, multilingual_kb: dict[str, int]
    ) -> None:
        result = kb_search(query="Can I telework two days a week?", k=20)

        nearest = _nearest_by_vector(result)
        assert nearest.document_id == multilingual_kb["es"]
        assert "Teletrabajo" in nearest.heading_path
        assert nearest.text_rank is None  # no word in common: only the vectors found it

    def test_a_question_the_documents_do_not_cover_is_flagged_weak(
        self, multilingual_kb: dict[str, int]
    ) -> None:
        assert kb_search(query="How many days of sick leave are paid?", k=3).weak is False
        assert kb_search(query="Who won the 1998 football world cup final?", k=3).weak is True
