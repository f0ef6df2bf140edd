"""A reindex with nothing to do, over 10k up-to-date chunks.

    .venv/bin/python bench/kb_noop_reindex.py [--chunks 10000] [--runs 5]

Loads 10k chunks embedded by the configured model's name (synthetic vectors) into the
tenant ``bench_reindex``, then times ``kb_reindex`` (the periodic job's body) finding nothing
stale. Prints JSON.
"""

from __future__ import annotations

import argparse
import time

from _kb import Corpus, bench_tenant, chunk_count, emit, load_chunks, percentiles, setup_django


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    setup_django()
    from django_tenants.utils import tenant_context

    from knowledge.embedder import current_model_name
    from knowledge.indexing import kb_reindex

    class NeverCalled:
        """Stands in for the model: a no-op reindex must not embed anything."""

        model_name = current_model_name()
        dimensions = 384

        def embed_passages(self, texts: object) -> list[list[float]]:
            raise AssertionError("a no-op reindex embedded something")

        def embed_query(self, text: str) -> list[float]:
            raise AssertionError("unused")

    with tenant_context(bench_tenant("bench_reindex")):
        if chunk_count() != args.chunks:
            load_chunks(total=args.chunks, corpus=Corpus(), model=NeverCalled.model_name)
        samples = []
        for _ in range(args.runs):
            started = time.perf_counter()
            report = kb_reindex(embedder=NeverCalled())
            samples.append((time.perf_counter() - started) * 1000)
            assert report.embedded == 0
    emit(
        {
            "benchmark": "kb_noop_reindex",
            "chunks": args.chunks,
            "runs": args.runs,
            "noop_reindex": percentiles(samples),
        }
    )


if __name__ == "__main__":
    main()
