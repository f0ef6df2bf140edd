"""Start and stop real daphne and Celery worker processes (end-to-end tests and bench/stream.py).

Plain Python, no pytest or Django imports: the benchmark uses it outside the test suite.
"""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Process:
    popen: subprocess.Popen[bytes]
    log: Path

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.popen.poll() is None:
            self.popen.send_signal(sig)
            try:
                self.popen.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-4000:]


def spawn(args: list[str], env: dict[str, str], log: Path) -> Process:
    handle = open(log, "wb")  # noqa: SIM115 - stays open for the child's lifetime
    popen = subprocess.Popen(
        args, cwd=ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
    )
    return Process(popen, log)


def start_daphne(
    env: dict[str, str], tmp: Path, *, start_timeout: float = 60
) -> tuple[Process, int]:
    port = free_port()
    process = spawn(
        [
            # daphne through the product's launcher, as in production (access lines logged).
            str(VENV_BIN / "python"),
            "-m",
            "core.serve",
            "-b",
            "127.0.0.1",
            "-p",
            str(port),
            "--ping-interval",
            "5",
            "--ping-timeout",
            "10",
            "config.asgi:application",
        ],
        env,
        tmp / f"daphne-{port}.log",
    )
    deadline = time.monotonic() + start_timeout
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return process, port
        except httpx.HTTPError:
            time.sleep(0.1)
        if process.popen.poll() is not None:
            break
    process.stop()  # never left running behind a failed start
    raise RuntimeError(f"daphne did not start:\n{process.output()}")


def start_worker(env: dict[str, str], tmp: Path, name: str, *, concurrency: int = 16) -> Process:
    process = spawn(
        [
            str(VENV_BIN / "celery"),
            "-A",
            "config",
            "worker",
            "-P",
            "threads",
            "-c",
            str(concurrency),
            "-n",
            f"{name}@%h",
            "--without-mingle",
            "--without-gossip",
            "-l",
            "info",
        ],
        env,
        tmp / f"worker-{name}.log",
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if "ready." in process.output():
            return process
        if process.popen.poll() is not None:
            break
        time.sleep(0.1)
    raise RuntimeError(f"worker did not start:\n{process.output()}")
