"""Retrieval quality on a SQuAD-format file: recall@k and MRR@10 per method.

Each question's gold document is the paragraph it was asked about (imported by ``kb_import``
as ``squad:<article>#<n>``). One search per question yields all three rankings, since vector
and full-text candidates come back from the same statement that hybrid fuses. Rankings are
per document: a paragraph cut into two chunks counts once, at its best chunk.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from knowledge.crosslingual import question_scale
from knowledge.embeddings import Embedder
from knowledge.fusion import is_weak
from knowledge.imports import squad_paragraphs
from knowledge.models import Document
from knowledge.selectors import Candidates, kb_candidates

METHODS = ("vector", "text", "hybrid")


class EvalError(Exception):
    """The file's paragraphs are not (all) imported into this tenant."""


@dataclass(frozen=True)
class Question:
    text: str
    gold_document_id: int


def squad_questions(path: Path, *, sample: int | None = None) -> list[Question]:
    """Every question of the file with its gold document id in the current tenant.

    ``sample`` keeps that many questions, evenly spread over the file (every article).
    """
    paragraphs = list(squad_paragraphs(path))
    ids = dict(
        Document.objects.filter(external_id__in=[p.external_id for p in paragraphs]).values_list(
            "external_id", "pk"
        )
    )
    missing = [p.external_id for p in paragraphs if p.external_id not in ids]
    if missing:
        raise EvalError(
            f"{len(missing)} paragraphs are not imported (first: {missing[0]}); "
            "run kb_import on the same file first"
        )
    questions = [
        Question(text=text, gold_document_id=ids[paragraph.external_id])
        for paragraph in paragraphs
        for text in paragraph.questions
    ]
    if sample is not None and sample < len(questions):
        step = len(questions) / sample
        questions = [questions[int(index * step)] for index in range(sample)]
    return questions


def _documents(candidates: Candidates, chunk_ids: Sequence[int]) -> list[int]:
    ranked: dict[int, None] = {}
    for chunk_id in chunk_ids:
        ranked.setdefault(candidates.rows[chunk_id].document_id, None)
    return list(ranked)


def _metrics(ranks: list[int | None], cutoffs: Sequence[int]) -> dict[str, float]:
    total = len(ranks) or 1
    result = {
        f"recall@{cutoff}": sum(1 for rank in ranks if rank is not None and rank <= cutoff) / total
        for cutoff in cutoffs
    }
    result["mrr@10"] = sum(1 / rank for rank in ranks if rank is not None and rank <= 10) / total
    return {name: round(value, 4) for name, value in result.items()}


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else 0.0


def kb_evaluate(
    *,
    questions: list[Question],
    embedder: Embedder,
    k: int = 5,
    progress: Callable[[int], object] | None = None,
) -> dict[str, object]:
    """Run every question once and score the vector, full-text and hybrid rankings."""
    cutoffs = sorted({1, 5, 10, k})
    ranks: dict[str, list[int | None]] = {method: [] for method in METHODS}
    latencies: list[float] = []
    sql_latencies: list[float] = []
    weak = 0
    for question in questions:
        started = time.perf_counter()
        vector = embedder.embed_query(question.text)
        sql_started = time.perf_counter()
        candidates = kb_candidates(
            query=question.text,
            vector=vector,
            model=embedder.model_name,
            limit=settings.KB_CANDIDATES,
            scale=question_scale(embedder, question.text, vector),
        )
        finished = time.perf_counter()
        weak += is_weak(candidates.best_distance, settings.KB_WEAK_DISTANCE)
        latencies.append((finished - started) * 1000)
        sql_latencies.append((finished - sql_started) * 1000)
        rankings = {
            "vector": _documents(candidates, candidates.vector),
            "text": _documents(candidates, candidates.text),
            "hybrid": _documents(candidates, [chunk_id for chunk_id, _ in candidates.fused]),
        }
        for method, documents in rankings.items():
            position = (
                documents.index(question.gold_document_id) + 1
                if (question.gold_document_id in documents)
                else None
            )
            ranks[method].append(position)
        if progress is not None:
            progress(1)
    return {
        "questions": len(questions),
        "k": k,
        "embedding_model": embedder.model_name,
        "candidates_per_list": settings.KB_CANDIDATES,
        **{method: _metrics(ranks[method], cutoffs) for method in METHODS},
        # Every question here is covered by the knowledge base, so a "weak" flag is a false
        # alarm: this is the share of questions KB_WEAK_DISTANCE would wrongly call uncovered.
        "weak_share": round(weak / (len(questions) or 1), 4),
        "latency_ms": {
            "p50": round(statistics.median(latencies), 1) if latencies else 0.0,
            "p95": round(_percentile(latencies, 0.95), 1),
            "sql_p50": round(statistics.median(sql_latencies), 1) if sql_latencies else 0.0,
            "sql_p95": round(_percentile(sql_latencies, 0.95), 1),
        },
    }
