"""The full-text statement as it was before term statistics (main at a357b6e), kept so the
latency benchmark can time it against the current one in the same run, on the same data.

Not used by the product. Word operands as ``knowledge.textsearch`` made them then (a Korean
particle stripped down to a one-syllable stem).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from django.db import connection

from knowledge.fusion import rrf_fuse
from knowledge.selectors import RRF_K, SELECTIVE_SHARE, CandidateRow, Candidates
from knowledge.textsearch import _HANGUL, _KOREAN_PARTICLES, MAX_QUERY_TERMS, STOPWORDS, fold


def legacy_candidates(
    *,
    query: str,
    vector: Sequence[float],
    model: str,
    limit: int,
    use_vector: bool = True,
    use_text: bool = True,
) -> Candidates:
    """``kb_candidates`` as it was: IDF counted per query, ``ts_rank`` over every candidate."""
    terms = _legacy_terms(query) if use_text else []
    params: dict[str, Any] = {
        "vector": "[" + ",".join(f"{value:.7g}" for value in vector) + "]",
        "model": model,
        "terms": terms,
        "limit": limit if use_vector else 0,
        "text_limit": limit if terms else 0,
        "tags": [],
        "filter_tags": False,
        "selective_share": SELECTIVE_SHARE,
    }
    with connection.cursor() as cursor:
        cursor.execute(_SEARCH_SQL, params)
        rows = {row[0]: CandidateRow(*row) for row in cursor.fetchall()}
    vector_ids = [
        r.id for r in sorted(rows.values(), key=lambda r: r.vector_rank or 0) if r.vector_rank
    ]
    text_ids = [r.id for r in sorted(rows.values(), key=lambda r: r.text_rank or 0) if r.text_rank]
    return Candidates(
        vector=vector_ids,
        text=text_ids,
        fused=rrf_fuse([vector_ids, text_ids], k=RRF_K),
        rows=rows,
        best_distance=rows[vector_ids[0]].distance if vector_ids else None,
    )


def _legacy_terms(query: str) -> list[str]:
    words = list(dict.fromkeys(re.findall(r"\w+", fold(query))))
    kept = [word for word in words if word not in STOPWORDS] or words
    terms: list[str] = []
    for word in kept[:MAX_QUERY_TERMS]:
        if _HANGUL.search(word):
            for particle in _KOREAN_PARTICLES:
                if word.endswith(particle) and len(word) > len(particle):
                    word = word[: -len(particle)]
                    break
            term = f"'{word}':*"
        else:
            term = "'" + word.replace("'", "''") + "'"
        if term not in terms:
            terms.append(term)
    return terms


_SEARCH_SQL = """
WITH terms AS (
    SELECT q, (SELECT count(*) FROM knowledge_chunk c WHERE c.search_vector @@ q) AS df
      FROM unnest(%(terms)s::text[]) AS operand,
           LATERAL to_tsquery('simple', operand) AS q
     WHERE numnode(q) > 0
),
corpus AS (
    SELECT greatest(
               (SELECT reltuples FROM pg_class WHERE oid = 'knowledge_chunk'::regclass),
               (SELECT max(df) FROM terms),
               1
           )::float AS n
),
weighted AS (
    SELECT q, df, ln(1 + (corpus.n - df + 0.5) / (df + 0.5)) AS idf
      FROM terms, corpus
     WHERE df > 0
),
selective AS (
    SELECT w.q FROM weighted w, corpus WHERE w.df <= %(selective_share)s * corpus.n
    UNION
    SELECT rarest.q FROM (SELECT q FROM weighted ORDER BY df LIMIT 1) AS rarest
),
text_pool AS (
    SELECT DISTINCT c.id FROM selective s JOIN knowledge_chunk c ON c.search_vector @@ s.q
),
text_hits AS (
    SELECT c.id, sum(w.idf * ts_rank(c.search_vector, w.q, 1)) AS score
      FROM text_pool p
      JOIN knowledge_chunk c ON c.id = p.id
      JOIN weighted w ON c.search_vector @@ w.q
      JOIN knowledge_document d ON d.id = c.document_id
     WHERE d.is_active
       AND (NOT %(filter_tags)s OR d.tags && %(tags)s::varchar[])
     GROUP BY c.id
     ORDER BY score DESC, c.id
     LIMIT %(text_limit)s
),
vector_hits AS (
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
