"""Reciprocal rank fusion of ranked candidate lists, and the weak-retrieval signal.

RRF needs only ranks, so vector distances and full-text scores, which live on
unrelated scales, can be combined without calibrating one against the other.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

ItemId = TypeVar("ItemId", bound=Hashable)


def rrf_fuse(
    ranked_lists: Sequence[Sequence[ItemId]],
    *,
    k: int = 60,
    weights: Sequence[float] | None = None,
) -> list[tuple[ItemId, float]]:
    """Fuse best-first lists of ids into one list of ``(id, score)``, best first.

    Each list contributes ``weight / (k + rank)`` (rank from 1) for every id it
    holds; an id repeated within one list counts at its best rank only. ``k = 60``
    is the constant from Cormack et al. (2009): it keeps one list's top hit from
    drowning items that rank well in several lists. Ties keep first-seen order,
    so results are deterministic.
    """
    weights = _checked_weights(ranked_lists, k, weights)
    scores: dict[ItemId, float] = {}
    for ranked, weight in zip(ranked_lists, weights, strict=True):
        for rank, item in enumerate(dict.fromkeys(ranked), start=1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    return sorted(scores.items(), key=lambda pair: pair[1], reverse=True)


def _checked_weights(
    ranked_lists: Sequence[Sequence[object]], k: int, weights: Sequence[float] | None
) -> Sequence[float]:
    if k < 0:
        raise ValueError(f"k must be >= 0, got {k}")
    if weights is None:
        return [1.0] * len(ranked_lists)
    if len(weights) != len(ranked_lists):
        raise ValueError(f"got {len(weights)} weights for {len(ranked_lists)} ranked lists")
    if any(weight < 0 for weight in weights):
        raise ValueError(f"weights must be >= 0, got {list(weights)}")
    return weights


def is_weak(best_vector_distance: float | None, threshold: float) -> bool:
    """True when even the nearest chunk is too far away to trust.

    ``None`` means the vector search found nothing at all. The threshold is a
    cosine distance and depends on the embedding model (e5 scores crowd into a
    narrow band), so it comes from settings rather than living here.
    """
    return best_vector_distance is None or best_vector_distance > threshold
