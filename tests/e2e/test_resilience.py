"""Crashes, several web processes and hostile clients, against real processes."""

from __future__ import annotations

import json
import time
from pathlib import Path

import psutil
import pytest

from tests.e2e.conftest import Process, TenantSetup, start_daphne
from tests.e2e.test_realtime import _kb
from tests.e2e.wsclient import WsClient

pytestmark = pytest.mark.e2e


def test_a_client_on_one_web_process_receives_a_turn_started_on_another(
    web: int, worker: Process, alpha: TenantSetup, stack_env: dict[str, str], tmp_path: Path
) -> None:
    _kb(alpha)
    second_web, second_port = start_daphne(stack_env, tmp_path)
    try:
        starter = WsClient(web, alpha.host, token=alpha.staff.token)
        starter.send_chat("How many days of paid annual leave do staff get?")
        accepted = starter.until(lambda f: f["type"] == "accepted")[-1]
        watcher = WsClient(second_port, alpha.host, token=alpha.staff.token)
        watcher.send(
            {"type": "chat.subscribe", "conversation": accepted["conversation"], "after": 0}
        )
        frames = watcher.until(lambda f: f["type"] == "done")
    finally:
        second_web.stop()

    assert [f["seq"] for f in frames] == list(range(1, len(frames) + 1))
    assert "20 days" in frames[-1]["content"]


def test_bad_frames_get_error_frames_and_the_connection_stays_usable(
    web: int, alpha: TenantSetup
) -> None:
    client = WsClient(web, alpha.host, token=alpha.staff.token)
    bad: list[str | bytes] = [
        "not json",
        b"\x00\x01binary",
        json.dumps({"type": "no.such.type"}),
        json.dumps({"type": "chat.send"}),
        json.dumps({"type": "chat.send", "text": "x" * 4001}),
        json.dumps({"type": "chat.subscribe", "conversation": "not-a-uuid"}),
        json.dumps(
            {
                "type": "action.decide",
                "action": "00000000-0000-0000-0000-000000000000",
                "decision": "maybe",
            }
        ),
        json.dumps({"type": "chat.send", "text": "x" * (100 * 1024)}),
        json.dumps([1, 2, 3]),
    ]
    codes = []
    for frame in bad:
        client.send(frame)
        reply = client.recv()
        codes.append((reply["type"], reply["code"]))
    client.send({"type": "ping"})

    assert codes == [
        ("error", "bad_frame"),
        ("error", "bad_frame"),
        ("error", "unknown_type"),
        ("error", "bad_frame"),
        ("error", "too_long"),
        ("error", "bad_frame"),
        ("error", "bad_frame"),
        ("error", "frame_too_large"),
        ("error", "bad_frame"),
    ]
    assert client.recv() == {"type": "pong"}


def test_a_frame_over_the_servers_message_limit_closes_only_that_connection(
    web: int, alpha: TenantSetup
) -> None:
    hostile = WsClient(web, alpha.host, token=alpha.staff.token)
    bystander = WsClient(web, alpha.host, token=alpha.staff.token)

    hostile.send(json.dumps({"type": "chat.send", "text": "x" * (2 * 1024 * 1024)}))
    closed = hostile.closed(timeout=10)
    bystander.send({"type": "ping"})

    assert closed
    assert bystander.recv() == {"type": "pong"}
    assert WsClient(web, alpha.host, token=alpha.staff.token).ping_ok()


def _rss(port: int) -> int:
    for connection in psutil.net_connections(kind="tcp"):
        if connection.laddr and connection.laddr.port == port and connection.status == "LISTEN":
            return int(psutil.Process(connection.pid).memory_info().rss)
    raise LookupError(port)


def test_a_flood_of_frames_is_rate_limited_without_hurting_other_connections(
    web: int, alpha: TenantSetup
) -> None:
    flooder = WsClient(web, alpha.host, token=alpha.staff.token)
    bystander = WsClient(web, alpha.host, token=alpha.staff.token)
    rss_before = _rss(web)

    for _ in range(10):  # 10 seconds at 200 frames a second
        started = time.monotonic()
        for _ in range(200):
            flooder.send({"type": "ping"})
        time.sleep(max(0.0, 1 - (time.monotonic() - started)))
    bystander.send({"type": "ping"})
    pong = bystander.recv()
    replies = flooder.drain(quiet_seconds=2)
    rss_after = _rss(web)
    pongs = sum(1 for r in replies if r == {"type": "pong"})
    limited = sum(1 for r in replies if r.get("code") == "rate_limited")

    assert pong == {"type": "pong"}
    assert 0 < pongs < 2000 * 0.25, "most of the flood is dropped"
    assert 1 <= limited <= 12, "at most one rate_limited error a second"
    assert rss_after - rss_before < 30 * 1024 * 1024
