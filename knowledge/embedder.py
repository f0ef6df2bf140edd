"""The embedder the settings configure, built once per process.

Services take an ``embedder`` argument defaulting to this one. ``use_embedder`` swaps the
default for a block (tests, benchmarks): the one seam for the embedding model.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings

from knowledge.embeddings import EMBEDDING_DIMENSIONS, Embedder, build_embedder


class EmbeddingConfigError(ValueError):
    """The configured model cannot fill the chunk table's vector column."""


_override: list[Embedder] = []


@contextmanager
def use_embedder(embedder: Embedder) -> Iterator[Embedder]:
    """Make ``embedder`` the default of every service and selector inside the block."""
    _override.append(embedder)
    try:
        yield embedder
    finally:
        _override.remove(embedder)


def get_embedder() -> Embedder:
    """The embedder in use: the ``use_embedder`` override, else the configured one."""
    return _override[-1] if _override else _configured_embedder()


@functools.cache
def _configured_embedder() -> Embedder:
    embedder = build_embedder(
        settings.EMBEDDINGS_BACKEND,
        model=settings.EMBEDDINGS_MODEL,
        base_url=settings.EMBEDDINGS_BASE_URL,
        api_key=settings.EMBEDDINGS_API_KEY,
        dimensions=settings.EMBEDDINGS_DIMENSIONS,
    )
    if settings.EMBEDDINGS_DIMENSIONS != EMBEDDING_DIMENSIONS:
        raise EmbeddingConfigError(
            f"EMBEDDINGS_DIMENSIONS={settings.EMBEDDINGS_DIMENSIONS}, but the chunk table stores "
            f"vector({EMBEDDING_DIMENSIONS}); ask the model for {EMBEDDING_DIMENSIONS} dimensions "
            "or migrate the column"
        )
    return embedder


def current_model_name() -> str:
    """Name recorded on every chunk embedded now; chunks with another name are stale.

    Read from settings rather than by building the embedder, so asking costs nothing.
    """
    if _override:
        return _override[-1].model_name
    if settings.EMBEDDINGS_BACKEND == "local":
        from knowledge.embeddings import LocalE5Embedder

        return LocalE5Embedder.model_name
    return str(settings.EMBEDDINGS_MODEL)
