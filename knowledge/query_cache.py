"""Query embeddings, cached: a per-process LRU in front of Redis, in front of the model.

Staff ask the same questions again and again, and embedding one costs the local model tens of
milliseconds of both cores. A vector depends only on the model and the text, so the key is the
model's name and the normalised text (knowledge/normalise.py), under the tenant's schema like
every cache key (DESIGN.md §4: a tenant cannot learn from timings what another one asked).

Redis is an optimisation: when it is down or slow, lookups and stores fail quietly (counted as
``error``) and the model computes the vector as if nothing were cached.
"""

from __future__ import annotations

import logging
import threading
from array import array
from collections import OrderedDict

from django.conf import settings
from django.core.cache import cache

from core.metrics import KB_QUERY_EMBEDDING_CACHE
from core.schema import current_schema
from knowledge.embeddings import Embedder
from knowledge.normalise import cache_digest, normalise_query
from tenants.names import process_cache_key

logger = logging.getLogger(__name__)


class _LRU:
    """A bounded mapping that forgets the least recently used entry first; thread-safe, because
    a Celery worker runs many turns on threads of one process."""

    def __init__(self) -> None:
        self._entries: OrderedDict[str, tuple[float, ...]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> tuple[float, ...] | None:
        with self._lock:
            vector = self._entries.get(key)
            if vector is not None:
                self._entries.move_to_end(key)
            return vector

    def put(self, key: str, vector: tuple[float, ...], *, limit: int) -> None:
        with self._lock:
            self._entries[key] = vector
            self._entries.move_to_end(key)
            while len(self._entries) > limit:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


_memory = _LRU()


def query_embedding_cache_clear() -> None:
    """Forget this process's entries (tests and benchmarks measure the cold path with it)."""
    _memory.clear()


def embed_query_cached(embedder: Embedder, text: str) -> list[float]:
    """``embedder.embed_query(text)``, from the process LRU or Redis when either has it.

    Vectors are stored as float64, so a cached vector equals the computed one exactly.
    """
    if settings.KB_QUERY_CACHE_SIZE == 0:
        return embedder.embed_query(text)
    key = cache_digest(embedder.model_name, normalise_query(text))
    memory_key = process_cache_key(current_schema(), key)
    vector = _memory.get(memory_key)
    if vector is not None:
        KB_QUERY_EMBEDDING_CACHE.labels(result="hit_memory").inc()
        return list(vector)
    vector = _from_redis(key)
    if vector is None:
        KB_QUERY_EMBEDDING_CACHE.labels(result="miss").inc()
        vector = tuple(embedder.embed_query(text))
        _to_redis(key, vector)
    else:
        KB_QUERY_EMBEDDING_CACHE.labels(result="hit_redis").inc()
    _memory.put(memory_key, vector, limit=settings.KB_QUERY_CACHE_SIZE)
    return list(vector)


def _redis_key(key: str) -> str:
    return f"kb-query-vector:{key}"  # the cache's key function prefixes the tenant schema


def _from_redis(key: str) -> tuple[float, ...] | None:
    try:
        raw = cache.get(_redis_key(key))
    except Exception:  # any failure of the cache backend means "compute it"
        KB_QUERY_EMBEDDING_CACHE.labels(result="error").inc()
        logger.warning("query embedding cache unavailable; computing", exc_info=True)
        return None
    if not isinstance(raw, bytes):
        return None
    return tuple(array("d", raw))


def _to_redis(key: str, vector: tuple[float, ...]) -> None:
    try:
        cache.set(
            _redis_key(key),
            array("d", vector).tobytes(),
            timeout=settings.KB_QUERY_CACHE_TTL_SECONDS,
        )
    except Exception:
        KB_QUERY_EMBEDDING_CACHE.labels(result="error").inc()
        logger.warning("could not store a query embedding in the cache", exc_info=True)
