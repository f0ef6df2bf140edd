"""Channel-layer sends from sync code (workers), for the approvers' inbox feed."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from typing import Any

import redis
from channels.layers import get_channel_layer


class Publisher:
    """One event loop thread per process for channel-layer sends from sync code (workers).

    ``async_to_sync`` per event would build a loop and a Redis pool each time; one long-lived
    loop keeps one pool. Sends to one group go out in the order they were submitted (each waits
    for the previous one to that group); sends to different groups overlap. ``group_send``
    returns at once with a future, so a streaming worker thread goes back to reading the model
    instead of waiting two Redis round trips per frame (see ``PublishingEvents``).
    """

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()
        # group → the latest send to it (only touched on the loop's thread)
        self._tails: dict[str, asyncio.Future[None]] = {}

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None or self._loop.is_closed():
                loop = asyncio.new_event_loop()
                threading.Thread(target=loop.run_forever, daemon=True, name="cs-publisher").start()
                self._loop = loop
            return self._loop

    def group_send(self, group: str, message: dict[str, Any]) -> concurrent.futures.Future[None]:
        return asyncio.run_coroutine_threadsafe(
            self._send_in_order(group, message), self._ensure_loop()
        )

    async def _send_in_order(self, group: str, message: dict[str, Any]) -> None:
        # Coroutines submitted from threads start in submission order (call_soon_threadsafe is
        # FIFO), so this first step, which chains the send behind the previous one, is ordered.
        previous = self._tails.get(group)
        current = asyncio.ensure_future(self._send_after(previous, group, message))
        self._tails[group] = current
        try:
            await current
        finally:
            if self._tails.get(group) is current:
                del self._tails[group]

    @staticmethod
    async def _send_after(
        previous: asyncio.Future[None] | None, group: str, message: dict[str, Any]
    ) -> None:
        if previous is not None:
            # The previous send's failure is its own (its caller sees it); ordering is all here.
            await asyncio.gather(previous, return_exceptions=True)
        layer = get_channel_layer()
        if layer is None:
            return
        try:
            await layer.group_send(group, message)
        except redis.exceptions.ConnectionError:
            # The pool is long-lived: after Redis restarts (or a proxy drops idle connections)
            # its first connection is dead. The failed one is dropped; the retry reconnects.
            await layer.group_send(group, message)


publisher = Publisher()
