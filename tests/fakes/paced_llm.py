"""A paced, scripted OpenAI-compatible streaming server for the streaming benchmark.

Every chat completion streams ``tokens`` numbered tokens (``<0> <1> …``) at ``rate`` tokens per
second (0: as fast as it can), both read from the last user message (``… tokens=200 rate=50
id=<key>``), so one server serves every scenario and any number of concurrent streams
(``ThreadingHTTPServer``, one thread per stream). It records when each request arrived and when
each token was written, by ``id``; ``GET /emits`` returns and forgets them. ``ChatOpenAI`` in the
worker talks to it over real HTTP, so the client and its streaming parser are part of the path.

    python -m tests.fakes.paced_llm          # prints its port, serves until killed
"""

from __future__ import annotations

import json
import re
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_PARAMS = re.compile(r"(\w+)=(\S+)")


def token_text(i: int) -> str:
    return f"<{i}> "


def reply_params(text: str) -> tuple[int, float, str | None]:
    """The tokens, rate and id a message asks for (``… tokens=200 rate=50 id=<key>``)."""
    params = dict(_PARAMS.findall(text))
    return int(params.get("tokens", 20)), float(params.get("rate", 0)), params.get("id")


TOKEN = re.compile(r"<(\d+)>")


class PacedServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024  # many streams connect at once; the default backlog is 5

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.lock = threading.Lock()
        self.emits: dict[str, dict[str, Any]] = {}

    def take_emits(self) -> dict[str, dict[str, Any]]:
        with self.lock:
            emits, self.emits = self.emits, {}
        return emits


def _last_user_text(body: dict[str, Any]) -> str:
    for message in reversed(body.get("messages", [])):
        if message.get("role") == "user":
            content = message.get("content")
            return content if isinstance(content, str) else json.dumps(content)
    return ""


class _Handler(BaseHTTPRequestHandler):
    server: PacedServer

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        data = json.dumps(self.server.take_emits()).encode() if self.path == "/emits" else b"{}"
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        received = time.time()
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        tokens, rate, key = reply_params(_last_user_text(body))
        record: dict[str, Any] = {"received": received, "emits": []}
        with self.server.lock:
            self.server.emits[key or uuid.uuid4().hex] = record
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        base = {
            "id": f"chatcmpl-{uuid.uuid4().hex[:8]}",
            "object": "chat.completion.chunk",
            "created": int(received),
            "model": body.get("model", "paced"),
        }

        def send(choices: list[dict[str, Any]], **extra: Any) -> None:
            self.wfile.write(
                f"data: {json.dumps({**base, 'choices': choices, **extra})}\n\n".encode()
            )
            self.wfile.flush()

        send([{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}])
        started = time.time()
        for i in range(tokens):
            if rate > 0:  # an absolute schedule: a late token does not delay the next ones
                delay = started + i / rate - time.time()
                if delay > 0:
                    time.sleep(delay)
            send([{"index": 0, "delta": {"content": token_text(i)}, "finish_reason": None}])
            record["emits"].append(time.time())
        send([{"index": 0, "delta": {}, "finish_reason": "stop"}])
        usage = {"prompt_tokens": 50, "completion_tokens": tokens, "total_tokens": 50 + tokens}
        send([], usage=usage)
        self.wfile.write(b"data: [DONE]\n\n")


def main() -> None:
    server = PacedServer()
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
