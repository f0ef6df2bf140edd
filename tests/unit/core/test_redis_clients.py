"""One place opens Redis clients: one synchronous per process, one asynchronous per loop."""

from __future__ import annotations

import asyncio
import re

import pytest

from core.infra import EmbeddedInfra
from core.redis_clients import async_redis, probe_redis, sync_redis
from tests.source_lines import lines_matching

pytestmark = pytest.mark.usefixtures("embedded_infra")

_OPENS_A_CLIENT = re.compile(r"\b(Strict)?Redis\.from_url\(|\bredis\.(asyncio\.)?Redis\(")


def test_every_call_gets_the_process_client_and_it_answers(embedded_infra: EmbeddedInfra) -> None:
    assert sync_redis() is sync_redis()
    assert sync_redis().ping() is True
    assert probe_redis().ping() is True


def test_a_loop_reuses_its_async_client_and_another_loop_gets_its_own() -> None:
    async def twice() -> tuple[object, object, bool]:
        first, second = async_redis(), async_redis()
        return first, second, await first.ping()

    first, second, answered = asyncio.run(twice())
    other, _, _ = asyncio.run(twice())

    assert first is second and answered is True
    assert other is not first  # the first loop is closed: its connections died with it


def test_no_module_outside_core_redis_clients_opens_a_redis_client() -> None:
    offenders = lines_matching(_OPENS_A_CLIENT, except_in="core/redis_clients.py")
    assert offenders == []


# Kills every connection of the shared Redis (other test processes' too): alone.
@pytest.mark.alone
def test_a_connection_the_server_dropped_is_replaced_and_the_command_answers() -> None:
    """What a Redis restart does to every pooled connection: the next command on each must
    reconnect, not fail (before, the async client retried on the same dead connection)."""
    sync_redis().set("cs:test:dropped", "1")
    probe_redis().client_kill_filter(_type="normal", skipme=True)

    assert sync_redis().get("cs:test:dropped") == "1"

    async def after_a_drop() -> object:
        await async_redis().ping()
        probe_redis().client_kill_filter(_type="normal", skipme=True)
        return await async_redis().get("cs:test:dropped")

    assert asyncio.run(after_a_drop()) == "1"
