"""Shared set-up of the knowledge-base benchmarks: Django on its own embedded servers, a
tenant per benchmark, synthetic chunks loaded fast (COPY, indexes built after the load)."""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
DIMENSIONS = 384


def setup_django() -> None:
    """Django against ``.data/bench`` (or ``COUNTERSIGN_DATA_DIR``), migrated."""
    sys.path.insert(0, str(REPO))
    os.environ.setdefault("COUNTERSIGN_DATA_DIR", str(REPO / ".data" / "bench"))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("LOG_LEVEL", "warning")
    from core.infra import default_infra

    default_infra().up()
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate_schemas", executor="standard", verbosity=0)


def bench_tenant(schema: str) -> Any:
    from tenants.services import TenantSpec, tenant_get_or_create

    tenant, _ = tenant_get_or_create(
        spec=TenantSpec(
            schema_name=schema,
            name=f"bench {schema}",
            domains=(f"{schema.replace('_', '-')}.bench",),
        )
    )
    return tenant


def machine() -> dict[str, Any]:
    import psutil

    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gib": round(psutil.virtual_memory().total / 2**30, 1),
        "python": platform.python_version(),
        "load_average_1m": round(os.getloadavg()[0], 2),
    }


def emit(report: dict[str, Any]) -> None:
    print(json.dumps({**report, "machine": machine()}, indent=2, ensure_ascii=False))


def percentiles(samples_ms: list[float]) -> dict[str, float]:
    values = np.array(samples_ms)
    return {
        "p50_ms": round(float(np.percentile(values, 50)), 2),
        "p95_ms": round(float(np.percentile(values, 95)), 2),
        "mean_ms": round(float(values.mean()), 2),
    }


# --- synthetic corpus ---------------------------------------------------------------------


class Corpus:
    """Zipf-distributed pseudo-words for text, clustered unit vectors for embeddings.

    Clusters make the vectors behave like real embeddings for HNSW (neighbours exist);
    uniform random vectors in 384 dimensions would all be equally far apart.
    """

    def __init__(self, *, seed: int = 7, vocabulary: int = 30_000, clusters: int = 2_000) -> None:
        self.rng = np.random.default_rng(seed)
        syllables = [
            "ka",
            "to",
            "mi",
            "ra",
            "ne",
            "so",
            "lu",
            "vi",
            "de",
            "po",
            "an",
            "er",
            "ju",
            "ho",
            "ze",
            "fa",
        ]
        tails = ["", *syllables]
        words = [a + b + c + d for a in syllables for b in syllables for c in tails for d in tails]
        self.words = np.array(words)[self.rng.permutation(len(words))[:vocabulary]]
        ranks = np.arange(1, vocabulary + 1)
        self.word_p = (1 / ranks) / (1 / ranks).sum()
        self.centroids = self._unit(self.rng.normal(size=(clusters, DIMENSIONS)))

    @staticmethod
    def _unit(vectors: np.ndarray) -> np.ndarray:
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    def texts(self, count: int, words: int = 120) -> list[str]:
        picks = self.rng.choice(len(self.words), size=(count, words), p=self.word_p)
        return [" ".join(self.words[row]) for row in picks]

    def vectors(self, count: int, noise: float = 0.6) -> np.ndarray:
        centre = self.centroids[self.rng.integers(0, len(self.centroids), count)]
        jitter = self.rng.normal(size=(count, DIMENSIONS)) * noise / np.sqrt(DIMENSIONS)
        return self._unit(centre + jitter).astype(np.float32)

    def query_words(self, count: int, words: int = 4) -> list[str]:
        # Queries draw from the middle of the vocabulary: neither stopword-like nor unseen.
        middle = self.rng.integers(50, 5_000, size=(count, words))
        return [" ".join(self.words[row]) for row in middle]


class MixedCorpus(Corpus):
    """Half English-like, half Korean-like chunks in one tenant (a mixed EN/KO knowledge base).

    Korean pseudo-words are two or three Hangul syllables, Zipf-distributed like the others,
    and carry a particle half the time in text ("…를", "…에서") as Korean does; questions
    attach a particle to every word, so retrieval strips it and matches the stem as a prefix.
    Several syllables double as particles (가, 이, 도, 나, 과), as in real Korean nouns (휴가).
    """

    HANGUL = "가나다라마바사아자차카타파하서고이도과로"
    PARTICLES = ("은", "는", "을", "를", "에", "에서", "의", "도", "로", "가", "이")

    def __init__(self, *, seed: int = 11, vocabulary: int = 30_000) -> None:
        super().__init__(seed=seed, vocabulary=vocabulary)
        syllables = list(self.HANGUL)
        tails = ["", *syllables]
        korean = [a + b + c for a in syllables for b in syllables for c in tails]
        self.korean = np.array(korean)[self.rng.permutation(len(korean))[:vocabulary]]
        self.korean_p = self.word_p[: len(self.korean)] / self.word_p[: len(self.korean)].sum()

    def texts(self, count: int, words: int = 120) -> list[str]:
        english = super().texts(count - count // 2, words)
        return [*english, *self._korean_texts(count // 2, words)]

    def _korean_texts(self, count: int, words: int) -> list[str]:
        picks = self.rng.choice(len(self.korean), size=(count, words), p=self.korean_p)
        particles = self.rng.integers(0, 2 * len(self.PARTICLES), size=(count, words))
        return [
            " ".join(
                word + (self.PARTICLES[p] if p < len(self.PARTICLES) else "")
                for word, p in zip(self.korean[row], marks, strict=True)
            )
            for row, marks in zip(picks, particles, strict=True)
        ]

    def korean_query_words(self, count: int, words: int = 4) -> list[str]:
        middle = self.rng.integers(50, 5_000, size=(count, words))
        particles = self.rng.integers(0, len(self.PARTICLES), size=(count, words))
        return [
            " ".join(self.korean[i] + self.PARTICLES[p] for i, p in zip(row, marks, strict=True))
            for row, marks in zip(middle, particles, strict=True)
        ]


def load_chunks(
    *, total: int, corpus: Corpus, model: str, per_document: int = 100, batch: int = 5_000
) -> float:
    """Fill the current tenant with ``total`` embedded chunks; returns seconds taken.

    Indexes are dropped during the load and rebuilt after it, as a bulk import should.
    """
    from django.db import connection
    from pgvector.psycopg import register_vector

    from knowledge.ingest.chunking import content_hash
    from knowledge.term_stats import kb_term_stats_compact

    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE knowledge_chunk, knowledge_document RESTART IDENTITY CASCADE")
        cursor.execute("DROP INDEX IF EXISTS knowledge_chunk_embedding")
        cursor.execute("DROP INDEX IF EXISTS knowledge_chunk_search")
        documents = (total + per_document - 1) // per_document
        cursor.execute(
            """
            INSERT INTO knowledge_document (title, source, file, original_filename, external_id,
                text, language, tags, is_active, status, error, content_hash, created_at,
                updated_at)
            SELECT 'Synthetic document ' || n, 'text', '', '', 'bench:' || n, '', 'und',
                   '{}', true, 'ready', '', '', now(), now()
              FROM generate_series(1, %s) AS n
            """,
            [documents],
        )
    raw = connection.connection
    register_vector(raw)
    written = 0
    with raw.cursor() as cursor:
        while written < total:
            size = min(batch, total - written)
            texts = corpus.texts(size)
            vectors = corpus.vectors(size)
            with cursor.copy(
                "COPY knowledge_chunk (document_id, ordinal, text, heading_path, char_start, "
                "char_end, token_estimate, content_hash, embedding, embedding_model, "
                "embedded_hash, embedded_at) FROM STDIN"
            ) as copy:
                for offset, (text, vector) in enumerate(zip(texts, vectors, strict=True)):
                    number = written + offset
                    digest = content_hash(text, ())
                    copy.write_row(
                        (
                            number // per_document + 1,
                            number % per_document,
                            text,
                            "{}",
                            0,
                            len(text),
                            len(text) // 4,
                            digest,
                            vector,
                            model,
                            digest,
                            "2026-01-01T00:00:00Z",
                        )
                    )
            written += size
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE knowledge_chunk SET search_vector = "
            "setweight(to_tsvector('simple', 'synthetic document'), 'A') || "
            "setweight(to_tsvector('simple', text), 'B')"
        )
        cursor.execute("SET maintenance_work_mem = '1GB'")
        cursor.execute(
            "CREATE INDEX knowledge_chunk_embedding ON knowledge_chunk USING hnsw "
            "(embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)"
        )
        cursor.execute(
            "CREATE INDEX knowledge_chunk_search ON knowledge_chunk USING gin (search_vector)"
        )
    kb_term_stats_compact()  # the load's statements left their term counts as deltas
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE knowledge_chunk")
        cursor.execute("ANALYZE knowledge_document")
        cursor.execute("ANALYZE knowledge_term")
    return time.perf_counter() - started


def chunk_count() -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM knowledge_chunk")
        return int(cursor.fetchone()[0])
