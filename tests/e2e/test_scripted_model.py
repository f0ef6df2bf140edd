"""Turns answered by a scripted OpenAI-compatible model through workers started per test.

A module of its own: no shared worker may be running here, or it would take these turns.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import time
from pathlib import Path

import pytest
from django_tenants.utils import tenant_context

from chat.models import Message
from tests.e2e.conftest import TenantSetup, start_worker
from tests.e2e.test_resilience import _rss
from tests.e2e.wsclient import WsClient
from tests.fakes.openai_server import FakeOpenAIServer, ScriptedText, ScriptedToolCall

pytestmark = pytest.mark.e2e
SLOW_ANSWER = "All staff receive twenty days of paid annual leave every year. " * 6


def test_a_worker_killed_mid_turn_leaves_the_turn_to_another_which_completes_it_once(
    web: int, alpha: TenantSetup, stack_env: dict[str, str], tmp_path: Path
) -> None:
    script: list[ScriptedText | ScriptedToolCall] = [
        ScriptedText(SLOW_ANSWER, chunk_chars=4) for _ in range(3)
    ]
    with FakeOpenAIServer(script, token_delay=0.05) as llm:
        env = {**stack_env, "LLM_BASE_URL": llm.base_url, "LLM_MODEL": "slow", "LLM_API_KEY": "k"}
        doomed = start_worker(env, tmp_path, "doomed")
        try:
            client = WsClient(web, alpha.host, token=alpha.staff.token)
            client.send_chat("Tell me about leave")
            client.until(lambda f: f["type"] == "token")
        finally:  # also when no token came: a worker left running takes later tests' tasks
            doomed.popen.kill()  # SIGKILL: no chance to acknowledge or clean up
            doomed.popen.wait()
        rescuer = start_worker(env, tmp_path, "rescuer")
        try:
            done = client.until(lambda f: f["type"] == "done", timeout=90)[-1]
        finally:
            rescuer.stop()

    assert done["content"] == SLOW_ANSWER
    with tenant_context(alpha.tenant):
        assert Message.objects.filter(role="assistant").count() == 1
        assert Message.objects.filter(role="user").count() == 1


def _raw_websocket(port: int, host: str, token: str) -> socket.socket:
    """A WebSocket that completes the handshake, sends one frame, and then never reads again."""
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        f"GET /ws/chat/ HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
        f"Authorization: Bearer {token}\r\n\r\n".encode()
    )
    response = b""
    while b"\r\n\r\n" not in response:
        response += sock.recv(1)
    assert b" 101 " in response.split(b"\r\n")[0]
    return sock


def _masked_text_frame(payload: dict[str, object]) -> bytes:
    data, mask = json.dumps(payload).encode(), os.urandom(4)
    assert len(data) < 126
    return (
        bytes([0x81, 0x80 | len(data)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data))
    )


def test_a_client_that_stops_reading_is_disconnected_and_the_others_get_everything(
    web: int, alpha: TenantSetup, stack_env: dict[str, str], tmp_path: Path
) -> None:
    answer = "A long answer streamed token by token to a reader that has stopped. " * 300
    script: list[ScriptedText | ScriptedToolCall] = [ScriptedText(answer, chunk_chars=4)]
    with FakeOpenAIServer(script, token_delay=0.001) as llm:
        # A long stream on a loaded machine may outlast a short visibility timeout; a redelivered
        # copy would then run beside it (see the closing note), which is not what this tests.
        env = {
            **stack_env,
            "LLM_BASE_URL": llm.base_url,
            "LLM_MODEL": "fast",
            "LLM_API_KEY": "k",
            "CELERY_VISIBILITY_TIMEOUT": "600",
        }
        streaming_worker = start_worker(env, tmp_path, "streamer")
        try:
            reader = WsClient(web, alpha.host, token=alpha.staff.token)
            reader.send_chat("Tell me everything")
            conversation = reader.until(lambda f: f["type"] == "accepted")[-1]["conversation"]
            stalled = _raw_websocket(web, alpha.host, alpha.staff.token)
            stalled.sendall(
                _masked_text_frame(
                    {"type": "chat.subscribe", "conversation": conversation, "after": 0}
                )
            )
            rss_before = _rss(web)
            done = reader.until(lambda f: f["type"] == "done", timeout=120)[-1]
            rss_after = _rss(web)
        finally:
            streaming_worker.stop()

    stalled.settimeout(30)
    started = time.monotonic()
    try:
        while stalled.recv(65536):  # what was buffered for it, then the end of the stream
            pass
    except ConnectionResetError:
        pass  # closed with unread data still queued: also a disconnection
    assert time.monotonic() - started < 30
    assert done["content"] == answer
    assert rss_after - rss_before < 30 * 1024 * 1024
