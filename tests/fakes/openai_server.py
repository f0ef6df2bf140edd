"""A local, scripted OpenAI-compatible chat completions server (streaming), for tests.

``ChatOpenAI`` talks to it over real HTTP, so the client, its streaming parser and its tool-call
assembly are exercised for real; only the model's answers are scripted.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class ScriptedText:
    text: str
    chunk_chars: int = 6


@dataclass(frozen=True)
class ScriptedToolCall:
    name: str
    arguments: dict[str, Any]


@dataclass
class FakeOpenAIServer:
    script: list[ScriptedText | ScriptedToolCall]
    requests: list[dict[str, Any]] = field(default_factory=list)
    token_delay: float = 0.0
    # When set, every request is recorded and then waits for it before answering: a model that
    # is "thinking" for as long as a test needs (a busy worker, a turn that has just started).
    gate: threading.Event | None = None

    def __enter__(self) -> FakeOpenAIServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append(
                    {
                        "path": self.path,
                        "body": body,
                        "authorization": self.headers.get("Authorization"),
                    }
                )
                if self.path != "/v1/chat/completions" or not server.script:
                    self.send_response(404)
                    self.end_headers()
                    return
                if server.gate is not None:
                    server.gate.wait(timeout=120)
                reply = server.script.pop(0)
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for chunk in server._chunks(reply, body.get("model", "scripted")):
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                    time.sleep(server.token_delay)
                self.wfile.write(b"data: [DONE]\n\n")

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def _chunks(self, reply: ScriptedText | ScriptedToolCall, model: str) -> list[dict[str, Any]]:
        base = {
            "id": f"chatcmpl-{uuid.uuid4().hex[:8]}",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": model,
        }

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

        chunks = [chunk({"role": "assistant", "content": ""})]
        if isinstance(reply, ScriptedText):
            text = reply.text
            chunks += [
                chunk({"content": text[i : i + reply.chunk_chars]})
                for i in range(0, len(text), reply.chunk_chars)
            ]
            chunks.append(chunk({}, "stop"))
        else:
            arguments = json.dumps(reply.arguments)
            call_id = f"call_{uuid.uuid4().hex[:10]}"
            chunks.append(
                chunk(
                    {
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": call_id,
                                "type": "function",
                                "function": {"name": reply.name, "arguments": ""},
                            }
                        ]
                    }
                )
            )
            chunks += [
                chunk(
                    {"tool_calls": [{"index": 0, "function": {"arguments": arguments[i : i + 7]}}]}
                )
                for i in range(0, len(arguments), 7)
            ]
            chunks.append(chunk({}, "tool_calls"))
        chunks.append(
            {
                **base,
                "choices": [],
                "usage": {"prompt_tokens": 42, "completion_tokens": 7, "total_tokens": 49},
            }
        )
        return chunks
