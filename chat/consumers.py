"""The WebSocket door of DESIGN.md §6.

The connection arrives already tenant-resolved and authenticated by
``tenants.asgi.TenantWebSocketMiddleware`` (``scope["tenant"]``, ``scope["user"]``). This consumer
only parses frames and answers them; bad frames get an ``error`` frame and the connection stays
usable.
"""

from __future__ import annotations

import json
from typing import Any

from channels.generic.websocket import AsyncWebsocketConsumer


class ChatConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        await self.accept()

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if text_data is None:
            return await self._error("bad_frame", "frames must be JSON text, not binary")
        try:
            frame = json.loads(text_data)
        except json.JSONDecodeError:
            return await self._error("bad_frame", "frame is not valid JSON")
        if not isinstance(frame, dict) or not isinstance(frame.get("type"), str):
            return await self._error("bad_frame", "frame must be a JSON object with a 'type'")
        if frame["type"] == "ping":
            return await self._send({"type": "pong"})
        return await self._error("unknown_type", f"unknown frame type {frame['type']!r}")

    async def _send(self, payload: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps(payload))

    async def _error(self, code: str, message: str) -> None:
        await self._send({"type": "error", "code": code, "message": message})
