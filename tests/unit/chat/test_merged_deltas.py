"""Text-only chunks that arrive in one read of the model's stream become one chunk
(chat/agent/llm.py ``merge_content_deltas``); everything else passes through as it came."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from chat.agent.llm import merge_content_deltas


def text_chunk(content: str, *, reply: str = "chatcmpl-1", role: bool = False) -> dict[str, Any]:
    delta: dict[str, Any] = {"content": content}
    if role:
        delta["role"] = "assistant"
    return {
        "id": reply,
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "scripted",
        "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
    }


def event(chunk: dict[str, Any] | str) -> bytes:
    body = chunk if isinstance(chunk, str) else json.dumps(chunk, ensure_ascii=False)
    return f"data: {body}\n\n".encode()


FINISH = {
    "id": "chatcmpl-1",
    "object": "chat.completion.chunk",
    "created": 1,
    "model": "scripted",
    "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
}
TOOL_CALL = {
    "id": "chatcmpl-1",
    "object": "chat.completion.chunk",
    "created": 1,
    "model": "scripted",
    "choices": [
        {
            "index": 0,
            "delta": {"tool_calls": [{"index": 0, "function": {"arguments": '{"to"'}}]},
            "finish_reason": None,
        }
    ],
}
USAGE = {
    "id": "chatcmpl-1",
    "object": "chat.completion.chunk",
    "created": 1,
    "model": "scripted",
    "choices": [],
    "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
}


def decoded(reads: Iterator[bytes]) -> list[list[Any]]:
    """Per yielded read, the events it carries: a chunk's text when text-only, else the data."""
    out = []
    for read in reads:
        events = []
        for raw in read.split(b"\n\n")[:-1]:
            data = raw.decode().removeprefix("data: ")
            chunk = json.loads(data) if data.startswith("{") else data
            if (
                isinstance(chunk, dict)
                and chunk.get("choices")
                and "content" in (chunk["choices"][0]["delta"])
            ):
                events.append(chunk["choices"][0]["delta"]["content"])
            else:
                events.append(chunk)
        out.append(events)
    return out


def test_the_text_chunks_of_one_read_arrive_as_one_chunk_in_order() -> None:
    read = b"".join(
        event(text_chunk(word, role=index == 0))
        for index, word in enumerate(["Term ", "starts ", "Monday."])
    )

    (merged,) = list(merge_content_deltas(iter([read])))

    (chunk,) = [json.loads(raw[6:]) for raw in merged.split(b"\n\n")[:-1]]
    assert chunk["choices"][0]["delta"] == {"content": "Term starts Monday.", "role": "assistant"}
    assert chunk["id"] == "chatcmpl-1" and chunk["model"] == "scripted"


def test_korean_text_is_merged_unchanged() -> None:
    read = (
        event(text_chunk("수업이 ")) + event(text_chunk("3시로 ")) + event(text_chunk("옮겨졌어요"))
    )

    assert decoded(merge_content_deltas(iter([read]))) == [["수업이 3시로 옮겨졌어요"]]


def test_tool_calls_finish_usage_and_done_pass_through_and_split_the_text_around_them() -> None:
    read = b"".join(
        [
            event(text_chunk("Sending ")),
            event(text_chunk("now.")),
            event(TOOL_CALL),
            event(text_chunk("Then ")),
            event(text_chunk("done.")),
            event(FINISH),
            event(USAGE),
            event("[DONE]"),
        ]
    )

    assert decoded(merge_content_deltas(iter([read]))) == [
        ["Sending now.", TOOL_CALL, "Then done.", FINISH, USAGE, "[DONE]"]
    ]


def test_chunks_of_different_replies_are_not_merged() -> None:
    read = event(text_chunk("one", reply="a")) + event(text_chunk("two", reply="b"))

    assert decoded(merge_content_deltas(iter([read]))) == [["one", "two"]]


def test_chunks_with_fields_it_does_not_know_pass_through_as_they_came() -> None:
    reasoning = text_chunk("thinking")
    reasoning["choices"][0]["delta"]["reasoning_content"] = "step one"
    read = event(text_chunk("a")) + event(reasoning) + event(text_chunk("b"))

    (out,) = merge_content_deltas(iter([read]))

    assert decoded(iter([out])) == [["a", "thinking", "b"]]
    assert event(reasoning) in out  # byte for byte


def test_an_event_cut_by_a_read_waits_only_for_the_read_that_completes_it() -> None:
    whole = event(text_chunk("first ")) + event(text_chunk("second"))
    cut = len(event(text_chunk("first "))) + 10
    reads = [whole[:cut], whole[cut:], event("[DONE]")]

    assert decoded(merge_content_deltas(iter(reads))) == [["first "], ["second"], ["[DONE]"]]


def test_a_stream_that_ends_inside_an_event_hands_over_what_it_had() -> None:
    reads = [event(text_chunk("all")) + b'data: {"id"']

    out = list(merge_content_deltas(iter(reads)))

    assert out[-1] == b'data: {"id"'
    assert decoded(iter(out[:1])) == [["all"]]


def test_a_stream_framed_with_crlf_passes_through_untouched() -> None:
    reads = [b"data: {}\r\n\r\n", event(text_chunk("a")) + event(text_chunk("b"))]

    assert list(merge_content_deltas(iter(reads))) == reads
