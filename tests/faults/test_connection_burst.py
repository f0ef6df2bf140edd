"""A burst of unauthenticated requests cannot exhaust PostgreSQL (issue #13, item 1).

500 concurrent ``GET /login/`` against a real daphne on the embedded PostgreSQL: every answer is
a page or a deliberate 503 with a body, never a 500 or PostgreSQL's "too many clients", the
process never holds more connections than its budget, and they are back within seconds.
"""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import httpx
import pytest
from django.db import connection

from tests.e2e.conftest import TenantSetup
from tests.e2e.processes import start_daphne

pytestmark = pytest.mark.e2e

BURST = 500


def _web_backends(*, busy_only: bool = False) -> int:
    """Connections web processes hold on the test database (their ``application_name``)."""
    busy = "AND state <> 'idle'" if busy_only else ""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity "
            f"WHERE datname = current_database() AND application_name = 'countersign-web' {busy}"
        )
        return int(cursor.fetchone()[0])


async def _burst(port: int, host: str, size: int = BURST) -> list[httpx.Response | Exception]:
    limits = httpx.Limits(max_connections=size, max_keepalive_connections=0)
    async with httpx.AsyncClient(
        base_url=f"http://127.0.0.1:{port}", limits=limits, timeout=60, headers={"Host": host}
    ) as client:

        async def one() -> httpx.Response | Exception:
            try:
                return await client.get("/login/")
            except httpx.HTTPError as error:
                return error

        return await asyncio.gather(*(one() for _ in range(size)))


def test_a_burst_of_500_logins_gets_pages_or_503s_and_connections_stay_within_the_budget(
    web: int, alpha: TenantSetup, stack_env: dict[str, str]
) -> None:
    from django.conf import settings

    budget = settings.DB_CONNECTIONS_PER_WEB_PROCESS
    peak = [0]
    sampling = threading.Event()

    def sample() -> None:
        while not sampling.is_set():
            peak[0] = max(peak[0], _web_backends())
            time.sleep(0.05)
        connection.close()

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        answers = asyncio.run(_burst(web, alpha.host))
    finally:
        sampling.set()
        sampler.join()

    responses = [a for a in answers if isinstance(a, httpx.Response)]
    assert len(responses) == BURST, [a for a in answers if isinstance(a, Exception)][:3]
    statuses = sorted({r.status_code for r in responses})
    assert set(statuses) <= {200, 503}, statuses
    assert all("too many clients" not in r.text for r in responses)
    for refused in (r for r in responses if r.status_code == 503):
        assert refused.json()["error"]["code"] == "overloaded"
        assert refused.headers["Retry-After"]
    assert peak[0] <= budget, (peak[0], budget)
    deadline = time.monotonic() + 15
    while _web_backends(busy_only=True) and time.monotonic() < deadline:
        time.sleep(0.25)
    assert _web_backends(busy_only=True) == 0
    assert _web_backends() <= budget


def test_a_burst_of_400_logins_is_answered_in_full_because_each_takes_milliseconds(
    alpha: TenantSetup, stack_env: dict[str, str], tmp_path: Path
) -> None:
    """Admission sheds by the wait a request would have, not by how many wait (issue #30): 400
    login pages of a few milliseconds each are all served, where a cap of 200 waiting requests
    refused about half. The queue timeout is raised from 10 to 30 s because the machine that
    runs the suite is shared with other test runs, which can make 400 pages take over 10 s;
    the rule, not the machine's speed, is under test."""
    env = {**stack_env, "WEB_QUEUE_TIMEOUT_SECONDS": "30"}
    process, port = start_daphne(env, tmp_path)
    try:
        asyncio.run(_burst(port, alpha.host, size=20))  # warm: the first requests load templates
        answers = asyncio.run(_burst(port, alpha.host, size=400))
        shed = [
            line
            for line in httpx.get(f"http://127.0.0.1:{port}/metrics").text.splitlines()
            if line.startswith("http_requests_shed_total")
        ]
    finally:
        process.stop()

    responses = [a for a in answers if isinstance(a, httpx.Response)]
    assert len(responses) == 400, [a for a in answers if isinstance(a, Exception)][:3]
    refused = [r for r in responses if r.status_code != 200]
    assert refused == [], (len(refused), shed)
