"""Reads of the knowledge base: hybrid retrieval.

One SQL statement per search returns both candidate lists, the nearest chunks by cosine
distance (HNSW) and the best full-text matches (GIN), with everything a hit shows; Python
fuses them with reciprocal rank fusion (knowledge/fusion.py).

Full-text ranking is BM25-like: every query word is weighted by its inverse document
frequency, read from the schema's term statistics (``knowledge_term``, kept by triggers,
knowledge/term_stats.py), times ``ts_rank`` of that word (which saturates with term frequency
and, with normalisation 1, dampens long chunks). Plain ``ts_rank`` over an OR query has no IDF,
so "the" would count as much as "Normandy"; knowledge/textsearch.py explains the ``simple``
configuration. docs/knowledge.md has the design and docs/performance.md its cost at 100k chunks.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from django.conf import settings
from django.db import connection

from core.metrics import KB_RETRIEVAL
from knowledge.crosslingual import QuestionScale, question_scale
from knowledge.embedder import get_embedder
from knowledge.embeddings import Embedder
from knowledge.fusion import is_weak, rrf_fuse
from knowledge.models import Chunk, Document
from knowledge.query_cache import embed_query_cached
from knowledge.textsearch import QueryTerm, query_words

RRF_K = 60
MAX_K = 50
# Full-text candidates come from the query words found in at most this share of the chunks
# (or the rarest word, when all are common); common words still add to the score of those
# candidates. Same quality on SQuAD, less work at 100k chunks (docs/performance.md).
SELECTIVE_SHARE = 0.1
# ... rarest first, while their chunks add up to at most this many rows (the rarest word is
# always taken): each row found costs a heap visit, whatever the corpus size.
SELECTIVE_ROWS = 2_000
# Candidates ranked exactly (ts_rank per query word): the best of the pool by the IDF of the
# selective words each holds (known from the GIN index alone). A SQuAD-sized base never fills
# it, so its ranking is exact; at 100k chunks it bounds the work per query.
TEXT_POOL = 400
# Above every code point: ``lexeme <= word || _TOP`` ends a prefix's range in "C" order.
_TOP = "\U0010ffff"


@dataclass(frozen=True)
class SearchHit:
    """One chunk found by a search.

    ``vector_score`` is the cosine similarity (1 - distance) when the chunk was among the
    vector candidates, ``text_score`` its IDF-weighted full-text score when it was among the
    text candidates, ``fused_score`` its reciprocal-rank-fusion score (what ranks hits).
    """

    chunk_id: int
    document_id: int
    document_title: str
    ordinal: int
    text: str
    heading_path: tuple[str, ...]
    vector_score: float | None
    text_score: float | None
    fused_score: float
    vector_rank: int | None
    text_rank: int | None


@dataclass(frozen=True)
class SearchResult:
    """Ranked hits for ``query``, best first; ``weak`` when even the nearest chunk is far
    (cosine distance over ``KB_WEAK_DISTANCE``, or no vector candidate at all)."""

    query: str
    hits: list[SearchHit]
    weak: bool
    best_distance: float | None
    elapsed_ms: float = 0.0


class CandidateRow(NamedTuple):
    """A chunk from either candidate list, as the statement returns it."""

    id: int
    document_id: int
    title: str
    ordinal: int
    text: str
    heading_path: list[str]
    distance: float | None
    vector_rank: int | None
    text_score: float | None
    text_rank: int | None


@dataclass(frozen=True)
class Candidates:
    """Both candidate lists of one search and their fusion, best first (chunk ids)."""

    vector: list[int]
    text: list[int]
    fused: list[tuple[int, float]]
    rows: dict[int, CandidateRow] = field(repr=False)
    best_distance: float | None


class SearchInputError(ValueError):
    """The query or ``k`` is unusable; the message says which."""


def kb_search(
    *,
    query: str,
    k: int = 5,
    tags: list[str] | None = None,
    embedder: Embedder | None = None,
) -> SearchResult:
    """Search the current tenant's active documents; the agent's ``search_knowledge`` tool
    and ``GET /api/kb/search/`` call this.

    ``query``: free text in any language (blank raises ``SearchInputError``); ``k``: hits
    wanted, 1 to 50; ``tags``: when given, only documents carrying at least one of them.
    Returns a ``SearchResult``: ``hits`` (``SearchHit``: ``chunk_id``, ``document_id``,
    ``document_title``, ``ordinal``, ``text``, ``heading_path``, ``vector_score``,
    ``text_score``, ``fused_score``, ranks), best first, at most ``k``; ``weak`` tells the
    caller the knowledge base probably does not cover the question. One embedding of the
    query and one SQL round trip, in whatever tenant schema the connection is on.
    """
    query = query.strip()
    if not query:
        raise SearchInputError("q must not be empty")
    if not 1 <= k <= MAX_K:
        raise SearchInputError(f"k must be between 1 and {MAX_K}")
    started = time.perf_counter()
    embedder = embedder or get_embedder()
    vector = embed_query_cached(embedder, query)
    candidates = kb_candidates(
        query=query,
        vector=vector,
        model=embedder.model_name,
        limit=max(settings.KB_CANDIDATES, k),
        tags=tags,
        scale=question_scale(embedder, query, vector),
    )
    hits = [_hit(candidates, chunk_id, score) for chunk_id, score in candidates.fused[:k]]
    elapsed = time.perf_counter() - started
    KB_RETRIEVAL.labels(method="hybrid").observe(elapsed)
    return SearchResult(
        query=query,
        hits=hits,
        weak=is_weak(candidates.best_distance, settings.KB_WEAK_DISTANCE),
        best_distance=candidates.best_distance,
        elapsed_ms=elapsed * 1000,
    )


def kb_candidates(
    *,
    query: str,
    vector: Sequence[float],
    model: str,
    limit: int,
    tags: list[str] | None = None,
    use_vector: bool = True,
    use_text: bool = True,
    scale: QuestionScale | None = None,
) -> Candidates:
    """Both candidate lists (``limit`` each) for an embedded query, in one SQL statement.

    Only chunks embedded by ``model`` take part in the vector list: vectors of another model
    live in another space. With the question's ``scale``, the vector list is ordered by
    similarities comparable across languages (knowledge/crosslingual.py), and so is the
    distance that says whether the best is weak. ``kb_eval`` and the benchmarks use this
    directly to score each list on its own.
    """
    terms = query_words(query) if use_text else []
    params: dict[str, Any] = {
        "vector": _vector_literal(vector),
        "model": model,
        **_term_params(terms),
        "limit": limit if use_vector else 0,
        "text_limit": limit if terms else 0,
        "tags": tags or [],
        "filter_tags": bool(tags),
        "selective_share": SELECTIVE_SHARE,
        "selective_rows": SELECTIVE_ROWS,
        "pool": TEXT_POOL,
    }
    with connection.cursor() as cursor:
        cursor.execute(_SEARCH_SQL, params)
        rows = {row[0]: CandidateRow(*row) for row in cursor.fetchall()}
    vector_ids = [row.id for row in sorted(rows.values(), key=_vector_order) if row.vector_rank]
    text_ids = [row.id for row in sorted(rows.values(), key=_text_order) if row.text_rank]
    distances = {chunk_id: float(rows[chunk_id].distance or 0.0) for chunk_id in vector_ids}
    if scale is not None and vector_ids:
        similarities = scale.comparable(
            [1.0 - distances[chunk_id] for chunk_id in vector_ids],
            [rows[chunk_id].text for chunk_id in vector_ids],
        )
        distances = {
            chunk_id: 1.0 - similarity
            for chunk_id, similarity in zip(vector_ids, similarities, strict=True)
        }
        position = {chunk_id: index for index, chunk_id in enumerate(vector_ids)}
        vector_ids = sorted(
            vector_ids, key=lambda chunk_id: (distances[chunk_id], position[chunk_id])
        )
    return Candidates(
        vector=vector_ids,
        text=text_ids,
        fused=rrf_fuse([vector_ids, text_ids], k=RRF_K),
        rows=rows,
        best_distance=distances[vector_ids[0]] if vector_ids else None,
    )


def _vector_order(row: CandidateRow) -> int:
    return row.vector_rank or 0


def _text_order(row: CandidateRow) -> int:
    return row.text_rank or 0


def _hit(candidates: Candidates, chunk_id: int, fused: float) -> SearchHit:
    row = candidates.rows[chunk_id]
    return SearchHit(
        chunk_id=chunk_id,
        document_id=row.document_id,
        document_title=row.title,
        ordinal=row.ordinal,
        text=row.text,
        heading_path=tuple(row.heading_path or ()),
        vector_score=None if row.distance is None else 1.0 - row.distance,
        text_score=row.text_score,
        fused_score=fused,
        vector_rank=row.vector_rank,
        text_rank=row.text_rank,
    )


def _term_params(terms: list[QueryTerm]) -> dict[str, list[str]]:
    """Each word's tsquery operand and the range of lexemes its statistics are read from
    (one lexeme, or every lexeme under a prefix)."""
    return {
        "operands": [term.operand for term in terms],
        "low": [term.lexeme for term in terms],
        "high": [term.lexeme + _TOP if term.prefix else term.lexeme for term in terms],
    }


def _vector_literal(vector: Sequence[float]) -> str:
    return "[" + ",".join(f"{value:.7g}" for value in vector) + "]"


# The statement, CTE by CTE:
#   terms     each query word as a tsquery, numbered;
#   counts    its document frequency from the term statistics (compacted rows plus deltas not
#             yet folded in; a prefix sums its lexemes, capped at the corpus size below);
#   corpus    the number of chunks with a full-text vector (the statistics' empty lexeme);
#   weighted  the words found at all, with their IDF;
#   selective the words that pick full-text candidates (SELECTIVE_SHARE, SELECTIVE_ROWS);
#   text_pool the chunks holding a selective word (GIN bitmap scans, no vector read), best
#             ``pool`` by the IDF of the selective words they hold;
#   text_hits those chunks scored Σ idf · ts_rank over every query word, best ``text_limit``;
#   vector_index the ``limit`` nearest chunks by cosine distance, from the HNSW index;
#   vector_exact the same by an exact scan, run only when the index gave fewer than ``limit``:
#             pgvector (0.6) counts every entry it visits against ``hnsw.ef_search``,
#             including entries of row versions this query cannot see (deleted, rolled back,
#             not vacuumed yet) and rows the filters drop, so after many edits or under a
#             narrow tag filter the index can return one chunk out of three. A tenant with
#             fewer chunks than ``limit`` always takes this path, which for it is cheap;
#   vector_hits the exact list when it ran, else the index's;
#   the final SELECT joins both lists to the chunk and document rows, with ranks.
# Filters (active documents, tags) apply inside both lists.
_SEARCH_SQL = """
WITH terms AS (
    SELECT t.n, t.low, t.high, q
      FROM unnest(%(operands)s::text[], %(low)s::text[], %(high)s::text[])
               WITH ORDINALITY AS t(operand, low, high, n),
           LATERAL to_tsquery('simple', t.operand) AS q
     WHERE numnode(q) > 0
),
corpus AS (
    SELECT greatest(coalesce(sum(s.df), 0), 1)::float AS n
      FROM (SELECT df FROM knowledge_term WHERE lexeme = ''
            UNION ALL
            SELECT delta FROM knowledge_term_delta WHERE lexeme = '') AS s
),
counts AS (
    SELECT t.n, t.q, least(coalesce(sum(s.df), 0), (SELECT n FROM corpus)) AS df
      FROM terms t
      LEFT JOIN LATERAL (
          SELECT df FROM knowledge_term
           WHERE lexeme >= t.low AND lexeme <= t.high AND lexeme <> ''
          UNION ALL
          SELECT delta FROM knowledge_term_delta
           WHERE lexeme >= t.low AND lexeme <= t.high AND lexeme <> ''
      ) AS s ON true
     GROUP BY t.n, t.q
),
weighted AS (
    SELECT c.n, c.q, c.df, ln(1 + (corpus.n - c.df + 0.5) / (c.df + 0.5)) AS idf
      FROM counts c, corpus
     WHERE c.df > 0
),
selective AS (
    SELECT q, idf
      FROM (SELECT q, idf, df,
                   sum(df) OVER (ORDER BY df, n) AS rows_so_far,
                   row_number() OVER (ORDER BY df, n) AS rarity
              FROM weighted) AS w, corpus
     WHERE w.rarity = 1
        OR (w.df <= %(selective_share)s * corpus.n AND w.rows_so_far <= %(selective_rows)s)
),
text_pool AS MATERIALIZED (
    SELECT c.id, c.ctid AS tid, sum(s.idf) AS held
      FROM selective s
      JOIN knowledge_chunk c ON c.search_vector @@ s.q
      JOIN knowledge_document d ON d.id = c.document_id
     WHERE d.is_active
       AND (NOT %(filter_tags)s OR d.tags && %(tags)s::varchar[])
     GROUP BY c.id, c.ctid
     ORDER BY held DESC, c.id
     LIMIT %(pool)s
),
text_hits AS (
    SELECT c.id, (SELECT sum(w.idf * ts_rank(c.search_vector, w.q, 1)) FROM weighted w) AS score
      FROM text_pool p
      JOIN knowledge_chunk c ON c.ctid = p.tid  -- the row version the pool found, no index
     ORDER BY score DESC, c.id
     LIMIT %(text_limit)s
),
vector_index AS (
    SELECT c.id, c.embedding <=> %(vector)s::vector AS distance
      FROM knowledge_chunk c
      JOIN knowledge_document d ON d.id = c.document_id
     WHERE c.embedding IS NOT NULL
       AND c.embedding_model = %(model)s
       AND d.is_active
       AND (NOT %(filter_tags)s OR d.tags && %(tags)s::varchar[])
     ORDER BY c.embedding <=> %(vector)s::vector
     LIMIT %(limit)s
),
vector_exact AS (
    SELECT c.id, (c.embedding <=> %(vector)s::vector) + 0 AS distance  -- + 0: not the index
      FROM knowledge_chunk c
      JOIN knowledge_document d ON d.id = c.document_id
     WHERE (SELECT count(*) FROM vector_index) < %(limit)s
       AND c.embedding IS NOT NULL
       AND c.embedding_model = %(model)s
       AND d.is_active
       AND (NOT %(filter_tags)s OR d.tags && %(tags)s::varchar[])
     ORDER BY 2
     LIMIT %(limit)s
),
vector_hits AS (
    SELECT id, distance FROM vector_exact
    UNION ALL
    SELECT id, distance FROM vector_index WHERE NOT EXISTS (SELECT 1 FROM vector_exact)
),
ranked_vector AS (
    SELECT id, distance, row_number() OVER (ORDER BY distance, id) AS vector_rank
      FROM vector_hits
),
ranked_text AS (
    SELECT id, score, row_number() OVER (ORDER BY score DESC, id) AS text_rank
      FROM text_hits
)
SELECT c.id, c.document_id, d.title, c.ordinal, c.text, c.heading_path,
       v.distance::float8, v.vector_rank::int, t.score::float8 AS text_score, t.text_rank::int
  FROM knowledge_chunk c
  JOIN knowledge_document d ON d.id = c.document_id
  LEFT JOIN ranked_vector v ON v.id = c.id
  LEFT JOIN ranked_text t ON t.id = c.id
 WHERE c.id IN (SELECT id FROM vector_hits UNION SELECT id FROM text_hits)
"""


# -- reading one document (the page a citation links to) ----------------------------------------


# The largest bigint: an id in an address beyond it is simply not found (never a database error).
MAX_ID = 2**63 - 1


class DocumentNotFound(Exception):
    """No active document with that id in the current tenant's schema."""


@dataclass(frozen=True)
class DocumentReading:
    """A document and where in its text the passage to highlight is."""

    document: Document
    # The highlighted chunk's id (its anchor) and its span in ``document.text``, or None.
    chunk: int | None
    span: tuple[int, int] | None
    # A chunk was asked for but the document has no such chunk any more (it was edited and
    # reindexed since the citation): the page says so instead of highlighting something else.
    passage_missing: bool


def document_for_reading(*, document_id: int, chunk_id: int | None = None) -> DocumentReading:
    """An active document of the current tenant, with the span of chunk ``chunk_id`` (if it is
    one of its chunks) to highlight; anything else raises ``DocumentNotFound``."""
    if not 0 < document_id <= MAX_ID:
        raise DocumentNotFound("no such document")
    document = Document.objects.filter(pk=document_id, is_active=True).first()
    if document is None:
        raise DocumentNotFound("no such document")
    if chunk_id is None:
        return DocumentReading(document, None, None, passage_missing=False)
    chunk = (
        Chunk.objects.filter(pk=chunk_id, document=document).only("char_start", "char_end").first()
        if 0 < chunk_id <= MAX_ID
        else None
    )
    if chunk is None or not 0 <= chunk.char_start < chunk.char_end <= len(document.text):
        return DocumentReading(document, None, None, passage_missing=True)
    span = (chunk.char_start, chunk.char_end)
    return DocumentReading(document, chunk.pk, span, passage_missing=False)
