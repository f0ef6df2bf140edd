"""Knowledge-base fixtures: a fast fake embedder (the one seam) and document factories."""

from __future__ import annotations

import hashlib
import math
import re
import threading
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from knowledge.embedder import use_embedder
from knowledge.embeddings import LocalE5Embedder
from knowledge.models import EMBEDDING_DIMENSIONS

_WORD = re.compile(r"\w+")


class FakeEmbedder:
    """Hashed bag of words: texts sharing words are close, others far. Counts what it embeds
    (thread-safe), so tests can tell whether a chunk was embedded once, twice or not at all."""

    dimensions = EMBEDDING_DIMENSIONS

    def __init__(self, model_name: str = "fake/bag-of-words-v1") -> None:
        self.model_name = model_name
        self.embedded: list[str] = []
        self._lock = threading.Lock()

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        with self._lock:
            self.embedded.extend(texts)
        return [self._vector(text) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._vector(text)

    def _vector(self, text: str) -> list[float]:
        vector = [0.0] * self.dimensions
        for word in _WORD.findall(text.lower()):
            digest = hashlib.blake2b(word.encode(), digest_size=4).digest()
            vector[int.from_bytes(digest, "big") % self.dimensions] += 1.0
        norm = math.sqrt(sum(value * value for value in vector)) or 1.0
        return [value / norm for value in vector] if any(vector) else [1.0] + [0.0] * 383


@pytest.fixture(autouse=True)
def _media_in_tmp(settings: Any, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Uploaded originals go to a temporary folder, not the checkout's .data/media (and not
    inside ``tmp_path``, which tests import folders from)."""
    settings.MEDIA_ROOT = tmp_path_factory.mktemp("media")


@pytest.fixture
def fake_embedder() -> Iterator[FakeEmbedder]:
    with use_embedder(FakeEmbedder()) as embedder:
        yield embedder  # type: ignore[misc]


class CachedE5:
    """The real local model, remembering vectors: tests re-create the same documents, and
    embedding them again each time would only cost minutes."""

    def __init__(self) -> None:
        self._model = LocalE5Embedder()
        self.model_name = self._model.model_name
        self.dimensions = self._model.dimensions
        self._passages: dict[str, list[float]] = {}

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        missing = [text for text in dict.fromkeys(texts) if text not in self._passages]
        self._passages.update(zip(missing, self._model.embed_passages(missing), strict=True))
        return [self._passages[text] for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._model.embed_query(text)


@pytest.fixture(scope="session")
def e5() -> CachedE5:
    """The real local model (multilingual-e5-small), for tests about meaning and languages."""
    return CachedE5()


@pytest.fixture
def real_embedder(e5: CachedE5) -> Iterator[CachedE5]:
    with use_embedder(e5):
        yield e5
