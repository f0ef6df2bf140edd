"""Retrieval latency at 100k chunks in one tenant: vector, full-text and hybrid.

    .venv/bin/python bench/kb_retrieval_latency.py [--chunks 100000] [--queries 200]

Loads synthetic chunks into the tenant ``bench_kb`` (once; reused while the count matches),
then times the retrieval statement (knowledge.selectors.kb_candidates) with only the vector
list, only the full-text list, and both (hybrid, fused in Python). Query embedding is not
included (see kb_embedding_throughput.py). Prints JSON.
"""

from __future__ import annotations

import argparse
import time

from _kb import Corpus, bench_tenant, chunk_count, emit, load_chunks, percentiles, setup_django

MODEL = "bench/synthetic"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--k", type=int, default=5)
    args = parser.parse_args()
    setup_django()
    from django.conf import settings
    from django.db import connection
    from django_tenants.utils import tenant_context

    from knowledge.selectors import kb_candidates

    corpus = Corpus()
    with tenant_context(bench_tenant("bench_kb")):
        load_seconds = None
        if chunk_count() != args.chunks:
            load_seconds = round(load_chunks(total=args.chunks, corpus=corpus, model=MODEL), 1)
        vectors = corpus.vectors(args.queries, noise=0.8)
        texts = corpus.query_words(args.queries)
        modes = {"vector": (True, False), "text": (False, True), "hybrid": (True, True)}
        results: dict[str, object] = {}
        for name, (use_vector, use_text) in modes.items():
            samples: list[float] = []
            for text, vector in zip(texts, vectors, strict=True):
                started = time.perf_counter()
                candidates = kb_candidates(
                    query=text,
                    vector=vector.tolist(),
                    model=MODEL,
                    limit=settings.KB_CANDIDATES,
                    use_vector=use_vector,
                    use_text=use_text,
                )
                samples.append((time.perf_counter() - started) * 1000)
                assert candidates.fused, "a benchmark query found nothing"
            results[name] = percentiles(samples[5:])  # the first few warm the caches
        with connection.cursor() as cursor:
            cursor.execute("SHOW hnsw.ef_search")
            ef_search = cursor.fetchone()[0]
            cursor.execute(
                "EXPLAIN SELECT id FROM knowledge_chunk ORDER BY embedding <=> %s::vector LIMIT 40",
                ["[" + ",".join(map(str, vectors[0].tolist())) + "]"],
            )
            plan = "\n".join(row[0] for row in cursor.fetchall())
    emit(
        {
            "benchmark": "kb_retrieval_latency",
            "chunks": args.chunks,
            "queries": args.queries,
            "candidates_per_list": settings.KB_CANDIDATES,
            "hnsw_ef_search": int(ef_search),
            "vector_uses_hnsw_index": "knowledge_chunk_embedding" in plan,
            "load_seconds": load_seconds,
            "latency": results,
        }
    )


if __name__ == "__main__":
    main()
