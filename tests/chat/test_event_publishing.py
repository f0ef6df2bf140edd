"""How a worker publishes a turn's events: token coalescing and the order of live sends."""

from __future__ import annotations

import asyncio
import concurrent.futures
import random
import time
import uuid
from typing import Any

import pytest
from django.test import override_settings

from chat import events as events_module
from chat.events import PublishingEvents, _Publisher


class _Conversation:
    uuid = uuid.uuid4()


class _Emitted(list[tuple[dict[str, Any], bool]]):
    """(payload, waited for) per event; token publications complete when ``publish`` says."""

    def __init__(self) -> None:
        super().__init__()
        self.publish_done = True


@pytest.fixture
def emitted(monkeypatch: pytest.MonkeyPatch) -> _Emitted:
    sent = _Emitted()

    def append_event(*, schema: str, conversation_uuid: str, payload: dict[str, Any]) -> Any:
        sent.append((payload, True))
        return payload

    def append_event_nowait(*, schema: str, conversation_uuid: str, payload: dict[str, Any]) -> Any:
        sent.append((payload, False))
        future: concurrent.futures.Future[None] = concurrent.futures.Future()
        if sent.publish_done:
            future.set_result(None)
        return payload, [future]

    monkeypatch.setattr(events_module, "append_event", append_event)
    monkeypatch.setattr(events_module, "append_event_nowait", append_event_nowait)
    return sent


@override_settings(CHAT_TOKEN_FLUSH_MS=200)
def test_the_first_token_goes_out_at_once_and_later_ones_are_coalesced(
    emitted: _Emitted,
) -> None:
    sink = PublishingEvents(schema="s", conversation=_Conversation())  # type: ignore[arg-type]

    sink.token("a")
    sink.token("b")
    sink.token("c")

    assert emitted == [({"type": "token", "content": "a"}, False)]  # not held for "b"

    sink.error("x", "y")  # any other event flushes what is buffered, then waits for itself

    assert emitted[1:] == [
        ({"type": "token", "content": "bc"}, False),
        ({"type": "error", "code": "x", "message": "y"}, True),
    ]


@override_settings(CHAT_TOKEN_FLUSH_MS=20)
def test_a_token_after_the_interval_flushes_the_buffer(
    emitted: _Emitted,
) -> None:
    sink = PublishingEvents(schema="s", conversation=_Conversation())  # type: ignore[arg-type]
    sink.token("a")
    sink.token("b")
    time.sleep(0.03)
    sink.token("c")

    assert [payload["content"] for payload, _ in emitted] == ["a", "bc"]


@override_settings(CHAT_TOKEN_FLUSH_MS=0)
def test_tokens_wait_while_the_previous_frame_is_still_being_published(
    emitted: _Emitted,
) -> None:
    emitted.publish_done = False  # a loaded system: the first frame's publication is slow
    sink = PublishingEvents(schema="s", conversation=_Conversation())  # type: ignore[arg-type]
    sink.token("a")
    sink.token("b")
    sink.token("c")

    assert [payload["content"] for payload, _ in emitted] == ["a"]  # no queue of frames

    sink.done(_message())

    assert [payload.get("content") for payload, _ in emitted] == ["a", "bc", "all"]


def _message() -> Any:
    class Message:
        uuid = uuid.uuid4()
        content = "all"
        citations: list[Any] = []
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

    monkeypatch.setattr(events_module, "get_channel_layer", SlowLayer)
    publisher = _Publisher()
    sends = [publisher.group_send(f"g{1 + n % 2}", {"n": n}) for n in range(200)]
    for send in sends:
        send.result(timeout=10)

    assert received["g1"] == list(range(0, 200, 2))
    assert received["g2"] == list(range(1, 200, 2))
    assert not publisher._tails  # nothing kept once sent
