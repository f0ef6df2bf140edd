"""Full-text term statistics: kept exact by the database whoever writes chunks, per schema."""

from __future__ import annotations

import pytest
from django.db import connection
from django_tenants.utils import tenant_context

from knowledge.models import Chunk, Document, TermStatistic, TermStatisticDelta
from knowledge.selectors import kb_search
from knowledge.services import document_upsert
from knowledge.term_stats import kb_term_frequencies, kb_term_stats_compact
from tenants.models import Tenant
from tests.knowledge.factories import EXPENSES, LEAVE_POLICY, make_document


def _counted_by_the_index(lexeme: str) -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM knowledge_chunk WHERE search_vector @@ to_tsquery('simple', %s)",
            [f"'{lexeme}'"],
        )
        return int(cursor.fetchone()[0])


WORDS = ["leave", "sick", "hotels", "receipt", "days"]


def _assert_statistics_match_the_chunks() -> None:
    counted = {word: _counted_by_the_index(word) for word in WORDS}
    counted[""] = Chunk.objects.exclude(search_vector=None).count()
    assert kb_term_frequencies(lexemes=[*WORDS, ""]) == counted


@pytest.mark.usefixtures("fake_embedder")
class TestTermStatistics:
    def test_new_documents_are_counted_before_any_compaction(self, in_tenant_a: Tenant) -> None:
        make_document("Leave policy", LEAVE_POLICY, embed=False)
        make_document("Expenses", EXPENSES, embed=False)

        assert kb_term_frequencies(lexemes=["sick"])["sick"] == 1
        _assert_statistics_match_the_chunks()

    def test_an_edit_and_a_delete_keep_the_counts_exact(self, in_tenant_a: Tenant) -> None:
        leave = make_document("Leave policy", LEAVE_POLICY, embed=False)
        make_document("Expenses", EXPENSES, embed=False)

        document_upsert(
            external_id="test:Leave policy",
            title="Leave policy",
            text=LEAVE_POLICY.replace("Sick leave", "Hotels"),
            enqueue=False,
        )
        _assert_statistics_match_the_chunks()
        Document.objects.filter(pk=leave.pk).delete()  # chunks go by cascade

        _assert_statistics_match_the_chunks()
        assert kb_term_frequencies(lexemes=["sick"])["sick"] == 0

    def test_compaction_folds_the_deltas_in_without_changing_a_count(
        self, in_tenant_a: Tenant
    ) -> None:
        make_document("Leave policy", LEAVE_POLICY, embed=False)
        make_document("Expenses", EXPENSES, embed=False)
        Document.objects.filter(title="Expenses").delete()
        before = kb_term_frequencies(lexemes=[*WORDS, ""])

        kb_term_stats_compact()

        assert not TermStatisticDelta.objects.exists()
        assert kb_term_frequencies(lexemes=[*WORDS, ""]) == before
        assert not TermStatistic.objects.filter(lexeme="hotels").exists()  # no chunk holds it

    def test_embedding_chunks_writes_no_statistics(self, in_tenant_a: Tenant) -> None:
        make_document("Leave policy", LEAVE_POLICY, embed=False)
        kb_term_stats_compact()

        Chunk.objects.update(embedding_model="another/model")

        assert not TermStatisticDelta.objects.exists()

    def test_a_korean_question_with_a_particle_finds_the_word_by_prefix(
        self, in_tenant_a: Tenant
    ) -> None:
        make_document(
            "휴가 규정",
            "# 휴가 규정\n\n연차 휴가는 매년 15일입니다. 병가를 신청하려면 진단서가 필요합니다.",
        )
        make_document("Expenses", EXPENSES)

        hit = kb_search(query="병가를 어떻게 신청하나요?", k=1).hits[0]

        assert hit.document_title == "휴가 규정"
        assert hit.text_rank == 1


@pytest.mark.usefixtures("fake_embedder")
def test_one_tenants_documents_neither_show_in_nor_change_anothers_statistics(
    tenant_a: Tenant, tenant_b: Tenant
) -> None:
    with tenant_context(tenant_b):
        make_document("Expenses", EXPENSES)
        score_alone = kb_search(query="receipt hotels", k=1).hits[0].text_score
    with tenant_context(tenant_a):
        for copy in range(5):
            make_document(f"Expenses {copy}", EXPENSES + f"\ncopy {copy}")
        assert kb_term_frequencies(lexemes=["receipt"])["receipt"] == 5

    with tenant_context(tenant_b):
        assert kb_term_frequencies(lexemes=["receipt", "copy"]) == {"receipt": 1, "copy": 0}
        assert kb_search(query="receipt hotels", k=1).hits[0].text_score == score_alone
