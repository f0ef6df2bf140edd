"""The one seam to the language model: ChatOpenAI when configured, the offline model otherwise."""

from __future__ import annotations

import contextlib
import functools
import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from django.conf import settings
from langchain_core.language_models.chat_models import BaseChatModel

from chat.builtin_model.model import OFFLINE_MODEL_NAME, OfflineChatModel


def model_label() -> str:
    """What answers, for the UI badge: "offline" or the configured model name."""
    return settings.LLM_MODEL if settings.LLM_BASE_URL else f"offline ({OFFLINE_MODEL_NAME})"


def model_settings() -> tuple[object, ...]:
    """Everything ``build_chat_model`` reads: a model built from equal settings is the same."""
    return (
        settings.LLM_BASE_URL,
        settings.LLM_MODEL,
        settings.LLM_API_KEY,
        settings.LLM_TEMPERATURE,
        settings.LLM_TIMEOUT_SECONDS,
        settings.OFFLINE_MODEL_CHUNK_MS,
        settings.CHAT_TOKEN_FLUSH_MS,
    )


def is_offline() -> bool:
    return not settings.LLM_BASE_URL


def build_chat_model() -> BaseChatModel:
    if is_offline():
        return OfflineChatModel(seconds_per_chunk=settings.OFFLINE_MODEL_CHUNK_MS / 1000)
    from langchain_openai import ChatOpenAI
    from pydantic import SecretStr

    api_key = settings.LLM_API_KEY or "not-needed"
    client = _dict_chunks_client_class()(
        base_url=settings.LLM_BASE_URL,
        api_key=api_key,
        timeout=settings.LLM_TIMEOUT_SECONDS,
        max_retries=2,
        http_client=_batched_reads_client(settings.CHAT_TOKEN_FLUSH_MS / 1000),
    )
    return ChatOpenAI(
        base_url=settings.LLM_BASE_URL,
        api_key=SecretStr(api_key),
        model=settings.LLM_MODEL,
        temperature=settings.LLM_TEMPERATURE,
        timeout=settings.LLM_TIMEOUT_SECONDS,
        max_retries=2,
        streaming=True,
        stream_usage=True,
        root_client=client,
        client=client.chat.completions,
    )


@functools.cache
def _dict_chunks_client_class() -> type[Any]:
    """``openai.OpenAI``, less one cost: a streamed chat-completion chunk is handed over as the
    JSON object it arrived as instead of being built into a ``ChatCompletionChunk``. The SDK
    builds it by reflecting over every field of every nested type, the largest single cost per
    token in the worker (docs/performance.md); ``ChatOpenAI._stream`` takes a chunk as a dict
    either way (it calls ``model_dump()`` on an object first). Only the plain streamed create
    is used here: the SDK's ``beta...stream`` helper (structured output) needs the objects."""
    import openai
    from openai.types.chat import ChatCompletionChunk

    class DictChunksOpenAI(openai.OpenAI):
        def _process_response_data(self, *, data: object, cast_to: Any, response: Any) -> Any:
            if cast_to is ChatCompletionChunk and isinstance(data, dict):
                return data
            return super()._process_response_data(data=data, cast_to=cast_to, response=response)

    return DictChunksOpenAI


def _batched_reads_client(interval: float) -> Any:
    """The model's HTTP client, reading a streamed reply at most once per ``interval`` (the
    token frame interval, ``CHAT_TOKEN_FLUSH_MS``).

    A model streams a token every 10 to 30 ms, each in its own chunk. Read as it arrives, every
    chunk wakes the turn's thread for a few hundred microseconds of cold code (socket, HTTP,
    SSE, LangChain, the forwarder): most of a worker's CPU per token at real streaming speed
    (docs/performance.md). The frame that carries a token to the browser leaves at most once
    per interval anyway, so the stream is read once per interval too, and each read takes every
    chunk that arrived meanwhile in one warm pass. The first read of a body is not delayed, and
    a reply that is all there already (a fast model) is read as fast as the socket gives it:
    a read takes up to 64 KiB, a few thousand tokens."""
    import httpx2
    import openai

    class BatchedReads(httpx2.SyncByteStream):
        def __init__(self, inner: httpx2.SyncByteStream) -> None:
            self.inner = inner

        def __iter__(self) -> Iterator[bytes]:
            reads = read_in_batches(iter(self.inner), interval, between=_between_reads_callback)
            return merge_content_deltas(reads)

        def close(self) -> None:
            self.inner.close()

    class BatchedReadsTransport(httpx2.HTTPTransport):
        def handle_request(self, request: httpx2.Request) -> httpx2.Response:
            response = super().handle_request(request)
            streamed = response.headers.get("content-type", "").startswith("text/event-stream")
            if streamed and isinstance(response.stream, httpx2.SyncByteStream):
                response.stream = BatchedReads(response.stream)
            return response

    # The transport, not the client, holds the pool: give it the SDK's own limits.
    transport = BatchedReadsTransport(limits=openai.DEFAULT_CONNECTION_LIMITS)
    return openai.DefaultHttpxClient(transport=transport)


_between_reads = threading.local()


@contextlib.contextmanager
def between_reads(callback: Callable[[], None]) -> Iterator[None]:
    """Call ``callback`` each time this thread's model stream has handed over everything it
    read and is about to read more: the moment to send on what was read, as one frame. (Nodes
    run on the caller's thread, chat/agent/runner.py.)"""
    previous = getattr(_between_reads, "callback", None)
    _between_reads.callback = callback
    try:
        yield
    finally:
        _between_reads.callback = previous


def _between_reads_callback() -> None:
    callback = getattr(_between_reads, "callback", None)
    if callback is not None:
        callback()


def read_in_batches(
    reads: Iterator[bytes],
    interval: float,
    *,
    between: Callable[[], None] = lambda: None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> Iterator[bytes]:
    """``reads``, each read after the first waiting until ``interval`` has passed since the one
    before it returned (a read that comes later anyway does not wait); ``between`` is called
    before each of those reads, once the previous one has been used."""
    last_read: float | None = None
    while True:
        if last_read is not None:
            between()
            wait = last_read + interval - clock()
            if wait > 0:
                sleep(wait)
        chunk = next(reads, None)
        if chunk is None:
            return
        last_read = clock()
        yield chunk


# The keys of a streamed chat-completion chunk that carries nothing but text (and the metadata
# repeated on every chunk): only such chunks are merged. Anything else, a tool call, a finish
# reason, log probabilities, usage, a provider's own field, passes through as it came.
_METADATA_KEYS = frozenset(
    {"id", "object", "created", "model", "system_fingerprint", "service_tier", "obfuscation"}
)
_TEXT_DELTA_KEYS = frozenset({"content", "role", "refusal"})


def merge_content_deltas(reads: Iterator[bytes]) -> Iterator[bytes]:
    """``reads`` of a server-sent event stream, with the text-only chunks that came in one read
    merged into one chunk.

    Every chunk costs the SDK and LangChain the same tens of microseconds of parsing, message
    objects and callbacks, whatever its length; a model streams one token per chunk, and a
    read taken once per frame interval holds several (a fast model's whole reply may come in
    one). Merged, a read costs one chunk's work and the tokens reach the sink together, as
    they would have anyway. Nothing waits: a read's complete events all go on at once, and an
    event cut by the end of a read is held only until the read that completes it, before which
    the SSE decoder could not have used it. A stream not framed with bare ``\\n\\n`` (CRLF)
    passes through untouched."""
    held = b""
    for read in reads:
        data = held + read
        if b"\r" in data:  # framed another way: hand everything over as it is, from here on
            yield data
            yield from reads
            return
        end = data.rfind(b"\n\n")
        if end < 0:
            held = data
            continue
        complete, held = data[: end + 2], data[end + 2 :]
        yield _merged_events(complete)
    if held:
        yield held


def _merged_events(complete: bytes) -> bytes:
    out: list[bytes] = []
    run: list[tuple[bytes, dict[str, Any]]] = []  # consecutive text-only events of one reply
    for event in complete.split(b"\n\n")[:-1]:
        chunk = _text_only_chunk(event)
        if run and (chunk is None or _reply_of(chunk) != _reply_of(run[0][1])):
            out.append(_merged(run))
            run = []
        if chunk is None:
            out.append(event + b"\n\n")
        else:
            run.append((event, chunk))
    if run:
        out.append(_merged(run))
    return b"".join(out)


def _reply_of(chunk: dict[str, Any]) -> tuple[Any, Any]:
    return chunk.get("id"), chunk.get("model")


def _merged(run: list[tuple[bytes, dict[str, Any]]]) -> bytes:
    """One event for a run of text-only events: the first, carrying all of their text (a run of
    one goes on as it came)."""
    if len(run) == 1:
        return run[0][0] + b"\n\n"
    first = run[0][1]
    text = "".join(chunk["choices"][0]["delta"].get("content") or "" for _, chunk in run)
    choice = {**first["choices"][0], "delta": {**first["choices"][0]["delta"], "content": text}}
    body = json.dumps({**first, "choices": [choice]}, ensure_ascii=False, separators=(",", ":"))
    return b"data: " + body.encode() + b"\n\n"


def _text_only_chunk(event: bytes) -> dict[str, Any] | None:
    """The chunk an event carries when it is a single ``data:`` line of text-only JSON."""
    if not event.startswith(b"data: {") or b"\n" in event:
        return None
    try:
        chunk = json.loads(event[6:])
    except ValueError:
        return None
    if not isinstance(chunk, dict) or chunk.get("usage") is not None:
        return None
    choices = chunk.get("choices")
    if set(chunk) - _METADATA_KEYS - {"choices", "usage"} or not isinstance(choices, list):
        return None
    if len(choices) != 1 or not isinstance(choices[0], dict):
        return None
    choice = choices[0]
    delta = choice.get("delta")
    if set(choice) - {"index", "delta", "finish_reason", "logprobs"} or choice.get("index", 0):
        return None
    if choice.get("finish_reason") is not None or choice.get("logprobs") is not None:
        return None
    if not isinstance(delta, dict) or set(delta) - _TEXT_DELTA_KEYS:
        return None
    if delta.get("refusal") is not None or not isinstance(delta.get("content") or "", str):
        return None
    return chunk
