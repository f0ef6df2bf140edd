"""The floor of the web edge, which the streaming benchmark weighs daphne's CPU against
(bench/stream.py).

Daphne serving one bare Channels consumer: no database, Redis, tenant, credential or Celery.
It answers a ``chat.send`` frame the way the product's web process does on the wire
(``accepted``, token frames, ``done`` with the whole text) but makes the reply up itself: the
``tokens`` numbered tokens of the paced model (``… tokens=200 rate=50 …``) at ``rate`` per second,
the first at once, then every token due sent as one frame per ``--flush-ms`` (the product's
``CHAT_TOKEN_FLUSH_MS``). Its CPU is what the chosen edge (daphne, Twisted, autobahn, Channels)
costs to carry the benchmark's traffic before the product does any work of its own. Prints its
port on the first line, serves until killed.

    python bench/_edge.py --flush-ms 100
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import sys
import uuid
from pathlib import Path
from typing import Any

import django
from django.conf import settings

settings.configure(INSTALLED_APPS=[], CHANNEL_LAYERS={}, DEBUG=False, USE_TZ=True)
django.setup()
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from channels.generic.websocket import AsyncWebsocketConsumer  # noqa: E402 - after setup()
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import path  # noqa: E402

from tests.fakes.paced_llm import reply_params, token_text  # noqa: E402 - the tokens counted

FLUSH_SECONDS = 0.1  # set from --flush-ms before daphne imports the application


class EdgeConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        await self.accept()

    async def receive(self, text_data: str | None = None, bytes_data: Any = None) -> None:
        frame = json.loads(text_data or "{}")
        if frame.get("type") != "chat.send":
            return
        tokens, rate, _ = reply_params(str(frame.get("text", "")))
        conversation = str(uuid.uuid4())
        await self._send(
            {"type": "accepted", "conversation": conversation, "message": conversation}
        )
        await self._reply(conversation, tokens, rate)

    async def _reply(self, conversation: str, tokens: int, rate: float) -> None:
        loop = asyncio.get_running_loop()
        started, sent, seq = loop.time(), 0, 0
        while sent < tokens:
            elapsed = loop.time() - started
            due = tokens if rate <= 0 else min(tokens, int(elapsed * rate) + 1)
            if due > sent:
                seq += 1
                content = "".join(token_text(i) for i in range(sent, due))
                await self._send(
                    {"type": "token", "conversation": conversation, "seq": seq, "content": content}
                )
                sent = due
            if sent < tokens:
                await asyncio.sleep(FLUSH_SECONDS)
        text = "".join(token_text(i) for i in range(tokens))
        done = {"type": "done", "conversation": conversation, "seq": seq + 1, "content": text}
        await self._send(done)

    async def _send(self, payload: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps(payload, ensure_ascii=False))


application = ProtocolTypeRouter(
    {"websocket": URLRouter([path("ws/chat/", EdgeConsumer.as_asgi())])}
)


def main() -> None:
    global FLUSH_SECONDS
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--flush-ms", type=float, default=100.0)
    FLUSH_SECONDS = parser.parse_args().flush_ms / 1000
    # Listening before the port is printed, so the benchmark may connect at once: daphne adopts
    # the socket, and connections made meanwhile wait in its backlog.
    listening = socket.socket()
    listening.bind(("127.0.0.1", 0))
    listening.listen(1024)
    print(listening.getsockname()[1], flush=True)
    from daphne.cli import CommandLineInterface

    sys.modules.setdefault("_edge", sys.modules[__name__])  # daphne imports "_edge:application"
    CommandLineInterface().run(["--fd", str(listening.fileno()), "_edge:application"])


if __name__ == "__main__":
    main()
