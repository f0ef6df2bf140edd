"""A small blocking WebSocket client for tests, over the `websockets` library."""

from __future__ import annotations

import json
import socket
import time
import uuid
from typing import Any

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect


class WsClient:
    def __init__(
        self,
        port: int,
        host: str,
        *,
        token: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        sock = socket.create_connection(("127.0.0.1", port))
        extra = dict(headers or {})
        if token:
            extra["Authorization"] = f"Bearer {token}"
        # The `with` protocol, entered by hand: the connection lives as long as this object.
        self.ws: ClientConnection = connect(
            f"ws://{host}:{port}/ws/chat/",
            sock=sock,
            additional_headers=extra,
            max_size=None,
            open_timeout=10,
        ).__enter__()
        self.frames: list[dict[str, Any]] = []

    def send(self, frame: dict[str, Any] | str | bytes) -> None:
        self.ws.send(frame if isinstance(frame, (str, bytes)) else json.dumps(frame))

    def send_chat(self, text: str, conversation: str | None = None) -> str:
        client_id = str(uuid.uuid4())
        self.send(
            {
                "type": "chat.send",
                "conversation": conversation,
                "text": text,
                "client_id": client_id,
            }
        )
        return client_id

    def recv(self, timeout: float = 20) -> dict[str, Any]:
        frame = json.loads(self.ws.recv(timeout=timeout))
        self.frames.append(frame)
        return dict(frame)

    def until(self, predicate: Any, timeout: float = 30) -> list[dict[str, Any]]:
        """Frames received until one satisfies ``predicate`` (inclusive)."""
        got: list[dict[str, Any]] = []
        deadline = time.monotonic() + timeout
        while True:
            frame = self.recv(timeout=max(0.1, deadline - time.monotonic()))
            got.append(frame)
            if predicate(frame):
                return got

    def close_code(self, timeout: float = 10) -> int | None:
        try:
            while True:
                self.ws.recv(timeout=timeout)
        except ConnectionClosed as closed:
            return closed.rcvd.code if closed.rcvd else None

    def closed(self, timeout: float = 10) -> bool:
        """True once the server has ended the connection (with or without a close frame)."""
        try:
            self.ws.recv(timeout=timeout)
        except (ConnectionClosed, OSError):
            return True
        except TimeoutError:
            return False
        return False

    def drain(self, quiet_seconds: float = 1) -> list[dict[str, Any]]:
        """Every frame that arrives until none has for ``quiet_seconds``."""
        frames = []
        while True:
            try:
                frames.append(self.recv(timeout=quiet_seconds))
            except TimeoutError:
                return frames

    def ping_ok(self) -> bool:
        self.send({"type": "ping"})
        return self.recv() == {"type": "pong"}

    def close(self) -> None:
        self.ws.close()
