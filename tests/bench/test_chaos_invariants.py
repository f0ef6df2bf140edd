"""The invariant checks of bench/chaos.py report what they exist to report (no stack needed).

The short seeded run (tests/faults/test_chaos_short.py) asserts that a real run breaks no
invariant; these show, on hand-made logs, that a broken one would not go unnoticed.
"""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def _chaos() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_chaos", ROOT / "bench" / "chaos.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_chaos"] = module
    spec.loader.exec_module(module)
    return module


chaos = _chaos()
CONVERSATION = "c-1"


def _event(seq: int, kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "conversation": CONVERSATION, "seq": seq, **fields}


def _client() -> Any:
    shared = chaos.Shared(1, 1, 1, time.monotonic() + 60)
    return chaos.Client(name="c0", tenant="demo", host="h", token="t", stack=None, shared=shared)


def _violations() -> dict[str, list[str]]:
    return {"reply": []}


def test_a_user_message_followed_by_neither_done_nor_error_is_reported_unanswered() -> None:
    violations = _violations()
    log = [
        _event(1, "message", role="user", message="m-1"),
        _event(2, "status", stage="thinking"),
        _event(3, "token", content="Staff get"),
    ]

    chaos._check_replies("demo", CONVERSATION, log, violations)

    assert violations["reply"] == ["demo c-1: m-1 unanswered"]


def test_a_user_message_answered_by_done_or_by_error_is_not_reported() -> None:
    violations = _violations()
    log = [
        _event(1, "message", role="user", message="m-1"),
        _event(2, "done", status="complete"),
        _event(3, "message", role="user", message="m-2"),
        _event(4, "error", code="agent_error"),
    ]

    chaos._check_replies("demo", CONVERSATION, log, violations)

    assert violations["reply"] == []


def test_a_seq_skipped_or_sent_twice_on_one_socket_is_reported() -> None:
    client = _client()

    for seq in (1, 2, 4, 4):
        client.note(_event(seq, "token", content=str(seq)))

    assert client.duplicates == [
        "c-1: seq 4 where 3 was due (gap)",
        "c-1: seq 4 where 5 was due (duplicate)",
    ]


def test_a_catch_up_from_the_last_contiguous_seq_may_repeat_what_the_client_held() -> None:
    client = _client()
    for seq in (1, 2, 4):  # 3 was lost with a socket: the gap is reported once
        client.note(_event(seq, "token", content=str(seq)))
    client.duplicates.clear()
    client.expect[CONVERSATION] = client.last_contiguous(CONVERSATION) + 1  # as subscribe does

    for seq in (3, 4, 5):
        client.note(_event(seq, "token", content=str(seq)))

    assert client.duplicates == []
    assert sorted(client.logs[CONVERSATION]) == [1, 2, 3, 4, 5]


def test_a_done_published_twice_for_one_message_is_reported() -> None:
    violations = _violations()
    log = [
        _event(1, "message", role="user", message="m-1"),
        _event(2, "done", message="r-1", status="complete"),
        _event(3, "done", message="r-1", status="complete"),
        _event(4, "message", role="user", message="m-2"),
        _event(5, "done", message="r-2", status="complete"),
    ]

    chaos._check_replies("demo", CONVERSATION, log, violations)

    assert violations["reply"] == ["demo c-1: m-1 ended 2 times (done, done)"]


def test_a_done_and_an_error_for_one_message_are_reported() -> None:
    violations = _violations()
    log = [
        _event(1, "message", role="user", message="m-1"),
        _event(2, "error", code="agent_error", reply_to="m-1"),
        _event(3, "done", message="r-1", status="error"),
    ]

    chaos._check_replies("demo", CONVERSATION, log, violations)

    assert violations["reply"] == ["demo c-1: m-1 ended 2 times (error, done)"]


def test_an_error_naming_its_message_ends_that_message_even_after_a_later_one() -> None:
    violations = _violations()
    log = [
        _event(1, "message", role="user", message="m-1"),
        _event(2, "message", role="user", message="m-2"),
        _event(3, "error", code="agent_error", reply_to="m-1"),
        _event(4, "done", message="r-2", status="complete"),
    ]

    chaos._check_replies("demo", CONVERSATION, log, violations)

    assert violations["reply"] == ["demo c-1: m-2 stored while m-1 had no ending"]


def test_a_turn_that_paused_for_approval_is_ended_by_its_resume() -> None:
    violations = _violations()
    log = [
        _event(1, "message", role="user", message="m-1"),
        _event(2, "pending", action={"id": "a-1"}),
        _event(3, "action", action={"id": "a-1", "status": "approved"}),
        _event(4, "done", message="r-1", status="complete"),
    ]

    chaos._check_replies("demo", CONVERSATION, log, violations)

    assert violations["reply"] == []
