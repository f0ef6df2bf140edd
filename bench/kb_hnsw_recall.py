"""HNSW recall@10 against exact search, at the index and search settings the product uses.

    .venv/bin/python bench/kb_hnsw_recall.py [--chunks 100000] [--queries 100]

Uses the synthetic chunks of kb_retrieval_latency.py (loads them when missing). For each
query the ten nearest chunks from the HNSW index (``hnsw.ef_search`` from KB_HNSW_EF_SEARCH,
and a few other values for comparison) are compared with the exact ten (sequential scan).
Prints JSON.
"""

from __future__ import annotations

import argparse
import time

from _kb import Corpus, bench_tenant, chunk_count, emit, load_chunks, setup_django

MODEL = "bench/synthetic"
_NEAREST = "SELECT id FROM knowledge_chunk ORDER BY embedding <=> %s::vector LIMIT 10"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=100)
    args = parser.parse_args()
    setup_django()
    from django.conf import settings
    from django.db import connection, transaction
    from django_tenants.utils import tenant_context

    from knowledge.models import HNSW_EF_CONSTRUCTION, HNSW_M

    corpus = Corpus()
    with tenant_context(bench_tenant("bench_kb")):
        if chunk_count() != args.chunks:
            load_chunks(total=args.chunks, corpus=corpus, model=MODEL)
        queries = [
            "[" + ",".join(map(str, v.tolist())) + "]"
            for v in corpus.vectors(args.queries, noise=0.8)
        ]
        exact: list[set[int]] = []
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SET LOCAL enable_indexscan = off")
            started = time.perf_counter()
            for query in queries:
                cursor.execute(_NEAREST, [query])
                exact.append({row[0] for row in cursor.fetchall()})
            exact_ms = (time.perf_counter() - started) * 1000 / len(queries)
        recall: dict[str, dict[str, float]] = {}
        for ef in sorted({40, settings.KB_HNSW_EF_SEARCH, 200}):
            found = 0
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(f"SET LOCAL hnsw.ef_search = {int(ef)}")
                started = time.perf_counter()
                for query, truth in zip(queries, exact, strict=True):
                    cursor.execute(_NEAREST, [query])
                    found += len(truth & {row[0] for row in cursor.fetchall()})
                elapsed = (time.perf_counter() - started) * 1000 / len(queries)
            recall[str(ef)] = {
                "recall@10": round(found / (10 * len(queries)), 4),
                "mean_ms": round(elapsed, 2),
            }
    emit(
        {
            "benchmark": "kb_hnsw_recall",
            "chunks": args.chunks,
            "queries": args.queries,
            "hnsw": {"m": HNSW_M, "ef_construction": HNSW_EF_CONSTRUCTION},
            "configured_ef_search": settings.KB_HNSW_EF_SEARCH,
            "by_ef_search": recall,
            "exact_mean_ms": round(exact_ms, 2),
        }
    )


if __name__ == "__main__":
    main()
