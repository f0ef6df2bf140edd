"""How a worker publishes a turn's events: token coalescing, and the order of the approvers'
feed's sends."""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from typing import Any

import pytest
from django.test import override_settings

from chat.events import publisher as publisher_module
from chat.events import publishing as publishing_module
from chat.events.publisher import Publisher
from chat.events.publishing import PublishingEvents


class _Conversation:
    uuid = uuid.uuid4()


@pytest.fixture
def emitted(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []

    def append_event(*, schema: str, conversation_uuid: str, payload: dict[str, Any]) -> Any:
        sent.append(payload)
        return payload

    monkeypatch.setattr(publishing_module, "append_event", append_event)
    return sent


@override_settings(CHAT_TOKEN_FLUSH_MS=200)
def test_the_first_token_goes_out_at_once_and_later_ones_are_coalesced(
    emitted: list[dict[str, Any]],
) -> None:
    sink = PublishingEvents(schema="s", conversation=_Conversation())  # type: ignore[arg-type]

    sink.token("a")
    sink.token("b")
    sink.token("c")

    assert emitted == [{"type": "token", "content": "a"}]  # not held for "b"

    sink.error("x", "y")  # any other event flushes what is buffered first

    assert emitted[1:] == [
        {"type": "token", "content": "bc"},
        {"type": "error", "code": "x", "message": "y"},
    ]


@override_settings(CHAT_TOKEN_FLUSH_MS=20)
def test_a_token_after_the_interval_flushes_the_buffer(emitted: list[dict[str, Any]]) -> None:
    sink = PublishingEvents(schema="s", conversation=_Conversation())  # type: ignore[arg-type]
    sink.token("a")
    sink.token("b")
    time.sleep(0.03)
    sink.token("c")

    assert [payload["content"] for payload in emitted] == ["a", "bc"]


@override_settings(CHAT_TOKEN_FLUSH_MS=20)
def test_with_a_batched_reader_each_read_is_one_frame_whenever_it_comes(
    emitted: list[dict[str, Any]],
) -> None:
    sink = PublishingEvents(schema="s", conversation=_Conversation())  # type: ignore[arg-type]
    sink.token("a")  # the first read: out at once
    sink.flush()  # the reader, before its next read
    sink.token("b")
    time.sleep(0.03)  # longer than the interval: still held for the end of its read
    sink.token("c")
    sink.flush()

    assert [payload["content"] for payload in emitted] == ["a", "bc"]


@override_settings(CHAT_TOKEN_FLUSH_MS=200)
def test_done_carries_the_whole_text_after_the_last_buffered_tokens(
    emitted: list[dict[str, Any]],
) -> None:
    sink = PublishingEvents(schema="s", conversation=_Conversation())  # type: ignore[arg-type]
    sink.token("a")
    sink.token("b")
    sink.done(_message())

    assert [(payload["type"], payload.get("content")) for payload in emitted] == [
        ("token", "a"),
        ("token", "b"),
        ("done", "all"),
    ]


def _message() -> Any:
    class Message:
        uuid = uuid.uuid4()
        content = "all"
        citations: list[Any] = []
        choices: list[str] = []
        usage: dict[str, Any] = {}
        status = "complete"

    return Message()


def test_live_sends_to_one_group_keep_their_order_while_groups_overlap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    received: dict[str, list[int]] = {"g1": [], "g2": []}

    class SlowLayer:
        async def group_send(self, group: str, message: dict[str, Any]) -> None:
            await asyncio.sleep(random.uniform(0, 0.005))  # replies out of order if unchained
            received[group].append(message["n"])

    monkeypatch.setattr(publisher_module, "get_channel_layer", SlowLayer)
    publisher = Publisher()
    sends = [publisher.group_send(f"g{1 + n % 2}", {"n": n}) for n in range(200)]
    for send in sends:
        send.result(timeout=10)

    assert received["g1"] == list(range(0, 200, 2))
    assert received["g2"] == list(range(1, 200, 2))
    assert not publisher._tails  # nothing kept once sent
