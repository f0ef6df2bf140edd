"""Full-text term statistics of the current tenant's schema: document frequency per lexeme.

Statement triggers on ``knowledge_chunk`` (migration 0003) append every change to
``knowledge_term_delta``; retrieval reads the compacted counts plus those deltas
(knowledge/selectors.py), so the statistics are exact at every moment and no writer ever waits
on another's row lock. Folding the deltas in only keeps them few: ``kb_reindex`` does it after
every run (after uploads and edits, and periodically).
"""

from __future__ import annotations

from django.db import connection, transaction

_COMPACT_SQL = """
WITH moved AS (
    DELETE FROM knowledge_term_delta RETURNING lexeme, delta
),
summed AS (
    SELECT lexeme, sum(delta) AS delta FROM moved GROUP BY lexeme
)
INSERT INTO knowledge_term AS t (lexeme, df)
SELECT lexeme, delta FROM summed
ON CONFLICT (lexeme) DO UPDATE SET df = t.df + excluded.df
RETURNING lexeme, df
"""


def kb_term_stats_compact() -> int | None:
    """Fold the current schema's pending term-statistic deltas into the counts.

    Returns how many lexemes were touched, or ``None`` when another compaction of this schema
    holds the lock (it does the same work; this one need not wait). A delta committed while
    this runs is left for the next one: the DELETE only takes rows visible to its snapshot.
    """
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_try_advisory_xact_lock(hashtext(current_schema() || ':knowledge_term'))"
        )
        if not cursor.fetchone()[0]:
            return None
        cursor.execute(_COMPACT_SQL)
        rows = cursor.fetchall()
        gone = [lexeme for lexeme, df in rows if df <= 0]
        if gone:  # words no chunk holds any more
            cursor.execute("DELETE FROM knowledge_term WHERE lexeme = ANY(%s)", [gone])
    return len(rows)


def kb_term_frequencies(*, lexemes: list[str]) -> dict[str, int]:
    """How many chunks of the current schema hold each lexeme (compacted counts plus pending
    deltas), as retrieval reads them; ``""`` gives the number of chunks with a vector."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT lexeme, sum(df)::bigint
              FROM (SELECT lexeme, df FROM knowledge_term WHERE lexeme = ANY(%(lexemes)s)
                    UNION ALL
                    SELECT lexeme, delta FROM knowledge_term_delta
                     WHERE lexeme = ANY(%(lexemes)s)) AS s
             GROUP BY lexeme
            """,
            {"lexemes": lexemes},
        )
        found = dict(cursor.fetchall())
    return {lexeme: int(found.get(lexeme, 0)) for lexeme in lexemes}
