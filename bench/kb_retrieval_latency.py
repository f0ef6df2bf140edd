"""Retrieval latency at 100k chunks in one tenant (vector, full-text, hybrid), and English
against Korean questions in a mixed EN/KO tenant; each against the statement as it was
before term statistics (bench/_legacy_fulltext.py), in the same run.

    .venv/bin/python bench/kb_retrieval_latency.py [--chunks 100000] [--mixed-chunks 20000]
        [--queries 200]

Loads synthetic chunks into the tenants ``bench_kb`` and ``bench_kb_mixed`` (once; reused
while the counts match), then times the retrieval statement (knowledge.selectors.kb_candidates)
with only the vector list, only the full-text list, and both (hybrid, fused in Python). The
current and the legacy statement alternate query by query, so both meet the same machine load.
Query embedding is not included (see kb_embedding_throughput.py). Prints JSON.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

from _kb import (
    Corpus,
    MixedCorpus,
    bench_tenant,
    chunk_count,
    emit,
    load_chunks,
    percentiles,
    setup_django,
)

MODEL = "bench/synthetic"
WARM_UP = 5  # the first few queries warm the caches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--mixed-chunks", type=int, default=20_000)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    setup_django()
    from _legacy_fulltext import legacy_candidates
    from django.conf import settings
    from django.db import connection
    from django_tenants.utils import tenant_context

    from knowledge.selectors import kb_candidates

    searches = {"current": kb_candidates, "legacy": legacy_candidates}

    def timed(search: Callable[..., Any], text: str, vector: Any, mode: tuple[bool, bool]) -> float:
        started = time.perf_counter()
        candidates = search(
            query=text,
            vector=vector.tolist(),
            model=MODEL,
            limit=settings.KB_CANDIDATES,
            use_vector=mode[0],
            use_text=mode[1],
        )
        elapsed = (time.perf_counter() - started) * 1000
        assert candidates.fused, "a benchmark query found nothing"
        return elapsed

    def compare(texts: list[str], vectors: Any, mode: tuple[bool, bool]) -> dict[str, Any]:
        samples: dict[str, list[float]] = {name: [] for name in searches}
        for number, (text, vector) in enumerate(zip(texts, vectors, strict=True)):
            order = list(searches) if number % 2 else list(reversed(searches))
            for name in order:
                samples[name].append(timed(searches[name], text, vector, mode))
        return {name: percentiles(values[WARM_UP:]) for name, values in samples.items()}

    corpus = Corpus()
    with tenant_context(bench_tenant("bench_kb")):
        load_seconds = None
        if chunk_count() != args.chunks:
            load_seconds = round(load_chunks(total=args.chunks, corpus=corpus, model=MODEL), 1)
        vectors = corpus.vectors(args.queries, noise=0.8)
        texts = corpus.query_words(args.queries)
        modes = {"vector": (True, False), "text": (False, True), "hybrid": (True, True)}
        latency = {name: compare(texts, vectors, mode) for name, mode in modes.items()}
        with connection.cursor() as cursor:
            cursor.execute("SHOW hnsw.ef_search")
            ef_search = cursor.fetchone()[0]
            cursor.execute(
                "EXPLAIN SELECT id FROM knowledge_chunk ORDER BY embedding <=> %s::vector LIMIT 40",
                ["[" + ",".join(map(str, vectors[0].tolist())) + "]"],
            )
            plan = "\n".join(row[0] for row in cursor.fetchall())

    mixed = MixedCorpus()
    with tenant_context(bench_tenant("bench_kb_mixed")):
        mixed_load_seconds = None
        if chunk_count() != args.mixed_chunks:
            mixed_load_seconds = round(
                load_chunks(total=args.mixed_chunks, corpus=mixed, model=MODEL), 1
            )
        vectors = mixed.vectors(args.queries, noise=0.8)
        by_language = {
            "en": compare(mixed.query_words(args.queries), vectors, (True, True)),
            "ko": compare(mixed.korean_query_words(args.queries), vectors, (True, True)),
        }
    languages = {
        name: {
            "en": by_language["en"][name],
            "ko": by_language["ko"][name],
            "ko_over_en_p95": round(
                by_language["ko"][name]["p95_ms"] / by_language["en"][name]["p95_ms"], 2
            ),
        }
        for name in searches
    }
    emit(
        {
            "benchmark": "kb_retrieval_latency",
            "chunks": args.chunks,
            "queries": args.queries,
            "candidates_per_list": settings.KB_CANDIDATES,
            "hnsw_ef_search": int(ef_search),
            "vector_uses_hnsw_index": "knowledge_chunk_embedding" in plan,
            "load_seconds": load_seconds,
            "latency": latency,
            "mixed_en_ko": {
                "chunks": args.mixed_chunks,
                "load_seconds": mixed_load_seconds,
                "hybrid": languages,
            },
        }
    )


if __name__ == "__main__":
    main()
