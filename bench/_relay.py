"""The minimal relay the streaming benchmark measures the product against (bench/stream.py).

A bare asyncio WebSocket server, no Django, Celery, Redis or LangChain: on a ``chat.send`` frame
it asks the same scripted model (``--model``, OpenAI-compatible, streaming) for a reply, parses
its server-sent events and sends every token to the client as a ``token`` frame the moment it
arrives, then ``done`` with the whole text: what relaying a model's stream to a browser costs
at the least in Python. Prints its port on the first line, serves until killed.

    python bench/_relay.py --model http://127.0.0.1:PORT/v1
"""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any

import httpx
from websockets.asyncio.server import ServerConnection, serve


async def _reply(ws: ServerConnection, client: httpx.AsyncClient, model: str, text: str) -> None:
    body = {"model": "paced", "stream": True, "messages": [{"role": "user", "content": text}]}
    parts: list[str] = []
    async with client.stream("POST", f"{model}/chat/completions", json=body) as response:
        async for line in response.aiter_lines():
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            chunk: dict[str, Any] = json.loads(line[6:])
            for choice in chunk.get("choices", []):
                content = choice.get("delta", {}).get("content")
                if content:
                    parts.append(content)
                    await ws.send(json.dumps({"type": "token", "content": content}))
    await ws.send(json.dumps({"type": "done", "content": "".join(parts)}))


def _handler(model: str, client: httpx.AsyncClient) -> Any:
    async def handle(ws: ServerConnection) -> None:
        async for raw in ws:
            frame = json.loads(raw)
            if frame.get("type") == "chat.send":
                await _reply(ws, client, model, str(frame.get("text", "")))

    return handle


async def main(model: str) -> None:
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=200)
    async with (
        httpx.AsyncClient(timeout=120, limits=limits) as client,
        serve(_handler(model, client), "127.0.0.1", 0, max_size=None, ping_interval=None) as server,
    ):
        port = next(iter(server.sockets)).getsockname()[1]
        print(port, flush=True)
        await asyncio.Future()  # until killed


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="the model's OpenAI-compatible base URL")
    asyncio.run(main(parser.parse_args().model))
