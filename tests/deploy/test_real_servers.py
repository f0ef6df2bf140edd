"""A deployment made as docs/deployment.md says, on servers the product does not start.

``deploy/ci-deploy-test.sh`` starts Debian's redis-server and nginx, a PostgreSQL server
(pgserver's binaries, with pgvector), two web processes behind nginx, two workers and beat with
``DEBUG=false``, then runs this module; it says where everything is in ``DEPLOY_*`` variables.
Clients go through nginx over TLS, as browsers do, except where a test needs a given web process.
"""

from __future__ import annotations

import os
import socket
import ssl
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from tests.e2e.wsclient import WsClient

pytestmark = [
    pytest.mark.deploy,
    pytest.mark.timeout(900),  # a restart test waits on several turns, each up to 240 s
    pytest.mark.skipif(
        os.environ.get("COUNTERSIGN_DEPLOY_TEST") != "1",
        reason="needs the deployment of deploy/ci-deploy-test.sh (run by .ci/run)",
    ),
]
QUESTION = "How many days of paid annual leave do staff get?"
# A web process behind the TLS proxy: it redirects plain HTTP unless the proxy says https.
BEHIND_PROXY = {"X-Forwarded-Proto": "https"}


@dataclass(frozen=True)
class Deployment:
    https_port: int
    web_ports: tuple[int, int]
    host: str
    staff_token: str
    approver_token: str
    bin: Path
    worker_pids: tuple[int, ...]

    def run(self, script: str) -> None:
        """Start or stop a server with the deployment's own command (bin/pg-stop, …)."""
        subprocess.run([str(self.bin / script)], check=True, timeout=60)

    def through_nginx(self, token: str) -> httpx.Client:
        return httpx.Client(
            base_url=f"https://127.0.0.1:{self.https_port}",
            verify=False,  # the script's self-signed certificate
            timeout=15,
            headers={"Host": self.host, "Authorization": f"Bearer {token}"},
        )

    def web_process(self, index: int, token: str) -> httpx.Client:
        return httpx.Client(
            base_url=f"http://127.0.0.1:{self.web_ports[index]}",
            timeout=15,
            headers={"Host": self.host, "Authorization": f"Bearer {token}", **BEHIND_PROXY},
        )

    def readyz(self) -> int:
        with httpx.Client(verify=False, timeout=10) as client:
            response = client.get(
                f"https://127.0.0.1:{self.https_port}/readyz", headers={"Host": self.host}
            )
            return response.status_code

    def workers_alive(self) -> bool:
        for pid in self.worker_pids:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return False
        return True


@pytest.fixture(scope="module")
def deployment() -> Deployment:
    env = os.environ
    web = tuple(int(port) for port in env["DEPLOY_WEB_PORTS"].split(","))
    return Deployment(
        https_port=int(env["DEPLOY_HTTPS_PORT"]),
        web_ports=(web[0], web[1]),
        host=env["DEPLOY_HOST"],
        staff_token=env["DEPLOY_STAFF_TOKEN"],
        approver_token=env["DEPLOY_APPROVER_TOKEN"],
        bin=Path(env["DEPLOY_BIN"]),
        worker_pids=tuple(int(pid) for pid in env["DEPLOY_WORKER_PIDS"].split(",")),
    )


class TlsWsClient(WsClient):
    """The suite's WebSocket client, over TLS through nginx (wss://, as a browser connects)."""

    def __init__(self, port: int, host: str, *, token: str) -> None:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        sock = socket.create_connection(("127.0.0.1", port))
        self.ws = connect(
            f"wss://{host}:{port}/ws/chat/",
            sock=sock,
            ssl=context,
            server_hostname=host,
            additional_headers={"Authorization": f"Bearer {token}"},
            max_size=None,
            open_timeout=10,
        ).__enter__()
        self.frames: list[dict[str, Any]] = []


class DirectWsClient(WsClient):
    """The suite's WebSocket client on one given web process, as the proxy would reach it."""

    def __init__(self, port: int, host: str, *, token: str) -> None:
        super().__init__(port, host, token=token, headers=BEHIND_PROXY)


def _until(condition: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.5)
    return condition()


def _readyz_is(deployment: Deployment, status: int) -> Callable[[], bool]:
    def check() -> bool:
        try:
            return deployment.readyz() == status
        except httpx.HTTPError:
            return False

    return check


def _a_turn_is_answered(deployment: Deployment) -> list[dict[str, Any]]:
    """A new conversation through nginx, answered to its end ("done"), not an error."""
    client = TlsWsClient(deployment.https_port, deployment.host, token=deployment.staff_token)
    try:
        client.send_chat(QUESTION)
        frames = client.until(lambda f: f["type"] in ("done", "error"), timeout=240)
    finally:
        client.close()
    assert frames[-1]["type"] == "done", frames[-1]
    return frames


def test_a_turn_streams_its_tokens_through_nginx_over_tls(deployment: Deployment) -> None:
    frames = _a_turn_is_answered(deployment)

    kinds = [frame["type"] for frame in frames]
    assert "accepted" in kinds
    assert "token" in kinds
    streamed = "".join(f["content"] for f in frames if f["type"] == "token")
    assert streamed and streamed == frames[-1]["content"]


def test_an_approval_decided_through_the_other_web_process_is_executed_once(
    deployment: Deployment,
) -> None:
    staff = DirectWsClient(deployment.web_ports[0], deployment.host, token=deployment.staff_token)
    staff.send_chat("Send an SMS to Parents saying School closes at 1pm")
    pending = staff.until(lambda f: f["type"] == "pending", timeout=240)[-1]

    with deployment.web_process(1, deployment.approver_token) as other:
        decided = other.post(f"/api/actions/{pending['action']['id']}/approve", json={})
    assert decided.status_code == 200, decided.text

    staff.until(lambda f: f["type"] == "done", timeout=240)
    staff.drain(quiet_seconds=3)
    cards = [
        f["action"]
        for f in staff.frames
        if f["type"] == "action" and f["action"]["id"] == pending["action"]["id"]
    ]
    statuses = [card["status"] for card in cards]
    assert "executed" in statuses and "failed" not in statuses, statuses
    # The card of a message action is sent again as each recipient's message settles, so
    # "executed" repeats; executed once means one message per recipient, none twice.
    addresses = [delivery["to"] for delivery in cards[-1]["deliveries"]]
    assert addresses and len(addresses) == len(set(addresses)), addresses
    staff.close()


def _restart(deployment: Deployment, server: str) -> None:
    """Stop ``server`` ("redis" or "pg"): /readyz answers 503 while it is down, 200 once it is
    started again."""
    deployment.run(f"{server}-stop")
    try:
        assert _until(_readyz_is(deployment, 503), timeout=30)
    finally:
        deployment.run(f"{server}-start")
    assert _until(_readyz_is(deployment, 200), timeout=60)


def test_a_redis_restart_answers_503_while_down_and_turns_are_answered_after_it(
    deployment: Deployment,
) -> None:
    _a_turn_is_answered(deployment)

    _restart(deployment, "redis")

    _a_turn_is_answered(deployment)
    assert deployment.workers_alive()


def test_a_postgresql_restart_answers_503_while_down_and_turns_are_answered_after_it(
    deployment: Deployment,
) -> None:
    _a_turn_is_answered(deployment)

    _restart(deployment, "pg")

    _a_turn_is_answered(deployment)
    _a_turn_is_answered(deployment)
    assert deployment.workers_alive()
