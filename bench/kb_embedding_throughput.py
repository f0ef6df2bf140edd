"""Embedding throughput of the configured model (default: local multilingual-e5-small).

    .venv/bin/python bench/kb_embedding_throughput.py [--chunks 128] [--batch 32]

Embeds SQuAD-sized passages (about 700 characters, what the chunker makes of typical
paragraphs) as passages, then short questions as queries. Prints chunks/s and queries/s.
"""

from __future__ import annotations

import argparse
import os
import time

from _kb import emit, setup_django

PASSAGE = (
    "The Normans were the people who in the 10th and 11th centuries gave their name to "
    "Normandy, a region in France. They were descended from Norse raiders and pirates from "
    "Denmark, Iceland and Norway who, under their leader Rollo, agreed to swear fealty to "
    "King Charles III of West Francia. Through generations of assimilation and mixing with "
    "the native Frankish and Roman-Gaulish populations, their descendants would gradually "
    "merge with the Carolingian-based cultures of West Francia. The distinct cultural and "
    "ethnic identity of the Normans emerged initially in the first half of the 10th century, "
    "and it continued to evolve over the succeeding centuries."
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chunks", type=int, default=128)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--batch", type=int, default=32)
    args = parser.parse_args()
    setup_django()
    from knowledge.embedder import get_embedder
    from knowledge.embeddings import LocalE5Embedder

    embedder = get_embedder()
    if isinstance(embedder, LocalE5Embedder):
        embedder = LocalE5Embedder(batch_size=args.batch)
    embedder.embed_query("warm up")  # loads the model
    passages = [f"{n}. {PASSAGE}" for n in range(args.chunks)]
    started = time.perf_counter()
    embedder.embed_passages(passages)
    passage_seconds = time.perf_counter() - started
    started = time.perf_counter()
    for n in range(args.queries):
        embedder.embed_query(f"Who gave their name to Normandy in the {n}th century?")
    query_seconds = time.perf_counter() - started
    emit(
        {
            "benchmark": "kb_embedding_throughput",
            "model": embedder.model_name,
            "batch_size": args.batch,
            "omp_num_threads": os.environ.get("OMP_NUM_THREADS", "unset (all cores)"),
            "passage_chars": len(passages[0]),
            "chunks": args.chunks,
            "chunks_per_second": round(args.chunks / passage_seconds, 2),
            "queries": args.queries,
            "queries_per_second": round(args.queries / query_seconds, 2),
            "query_mean_ms": round(query_seconds * 1000 / args.queries, 1),
        }
    )


if __name__ == "__main__":
    main()
